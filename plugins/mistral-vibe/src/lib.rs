//! trajhost codec for Mistral Vibe (PyPI `mistral-vibe`, the `vibe` CLI)
//! sessions: a content-addressed folder per session,
//! `~/.vibe/logs/session/unified/<id>/` (store format
//! `mistral.vibe.unified-session-store/v1`; `VIBE_HOME` replaces `~/.vibe`).
//!
//! `CURRENT` names the current generation and its manifest's digest; the
//! manifest names the parts (`checkpoint.json`, `projection-state.json`,
//! `runtime-state.json`) with their digests and the chunks
//! (`chunks/<sha256>.json`, JSON arrays) that fill them. **The checkpoint's
//! chunks are the model context** — `{message: {role, content[…]}, source:
//! "history", turn_index}` items — and what `vibe --resume <id>` sends the
//! model; the projection is the UI's history and the journal a
//! hash-chained log of the turn in progress. Every JSON file is RFC 8785
//! (JCS) bytes + "\n" and every digest the sha256 of those bytes.
//!
//! Module map:
//! - [`layout`]: where the files live;
//! - [`store`]: a session folder as read (pointer, manifest, chunks, `meta.json`);
//! - [`message`]: a checkpoint item → canonical records;
//! - [`discover`]: `discover` and `inspect`; [`read`]: the batch reader;
//! - [`sniff`]: a loose `CURRENT`;
//! - [`generation`]: a session folder built from the model context, digests and all;
//! - [`write`]: canonical records → such a folder;
//! - [`prepare`]: the plan that files it under `~/.vibe/logs/session/unified/`.
//!
//! No CLI version is recorded in the store: sessions report none.

pub mod discover;
pub mod generation;
pub mod layout;
pub mod message;
pub mod prepare;
pub mod read;
pub mod sniff;
pub mod store;
pub mod write;

use trajhost_codec_sdk::{Codec, CodecInfo};

pub use trajhost_codec_sdk::known::Handling;

/// The harness id.
pub const HARNESS: &str = "mistral-vibe";
/// This codec's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// `harness@version`, as `meta.codec` says it.
pub const CODEC: &str = concat!("mistral-vibe@", env!("CARGO_PKG_VERSION"));
/// Vibe versions whose sessions this codec reads (the store records no CLI
/// version, so this only documents it; verified with 3.0.3, store format
/// minor 10).
pub const NATIVE_VERSIONS: &str = ">=3.0.0, <4.0.0";
/// The format read and written.
pub const FORMAT: &str = "mistral-vibe-unified-session-store";

/// Every part type of a checkpoint message this codec knows, as
/// `<role>/<part type>`.
pub const KNOWN_PARTS: &[(&str, Handling)] = &[
    ("user/text", Handling::Mapped("user")),
    ("assistant/text", Handling::Mapped("assistant")),
    ("assistant/tool_call", Handling::Mapped("tool_call (`arguments.value`)")),
    ("tool/text", Handling::Mapped("tool_result (`outcome`, a bash `returncode`)")),
    ("system/text", Handling::Mapped("system")),
];

/// How a part type is handled; `None` for a type never seen.
pub fn handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_PARTS, kind)
}

/// The Mistral Vibe codec.
pub struct MistralVibe;

impl Codec for MistralVibe {
    type Reader = read::Reader;

    fn info() -> CodecInfo {
        CodecInfo::of(HARNESS, VERSION, NATIVE_VERSIONS, "none: Vibe's session store records no CLI version")
            .reads_and_writes(FORMAT)
            .globs([format!("{}/*/{}", layout::SESSIONS, layout::CURRENT)])
    }

    trajhost_codec_sdk::module_methods! { discover, inspect, read = read::open, sniff, writer, prepare_with_choice }
}

trajhost_codec_sdk::export_codec!(MistralVibe);
