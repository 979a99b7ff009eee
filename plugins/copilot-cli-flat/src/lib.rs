//! trajhost codec for GitHub Copilot CLI event logs kept as flat files,
//! `~/.copilot/session-state/<sessionId>.jsonl`, as older Copilot CLI builds
//! wrote them (current builds keep `<sessionId>/events.jsonl` with a
//! `workspace.yaml` beside it: `plugins/copilot-cli`). The events are the
//! same; they are read by `trajhost-copilot-cli-core`, shared with that codec.
//! A flat file has no `workspace.yaml`: the cwd and branch come from
//! `session.start`, the title from the first prompt.
//!
//! Discovery looks only at the `*.jsonl` files of `session-state/`; its
//! directories are the other layout's.
//!
//! It also writes canonical sessions as flat event logs for the Copilot CLI
//! versions that keep them ([`write`], only the events Copilot CLI 0.0.354
//! knows) and plans their install into a target home ([`prepare`]).

pub mod prepare;
pub mod write;

use trajhost_codec_sdk::Codec;

pub use trajhost_copilot_cli_core::{self as core, Flavor, KNOWN_RECORD_TYPES, Layout, read};

/// This codec's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// `harness@version`, as `meta.codec` says it.
pub const CODEC: &str = concat!("copilot-cli@", env!("CARGO_PKG_VERSION"));
/// Which Copilot CLI versions wrote flat files is not pinned down: the same
/// range as the session-directory codec's.
pub const NATIVE_VERSIONS: &str = core::NATIVE_VERSIONS;

/// The Copilot CLI versions this codec's writer writes for: those before the
/// per-session-folder layout. 0.0.380 is the first published build that
/// writes `session-state/<id>/events.jsonl` (and still loads a flat
/// `<id>.jsonl` as a legacy session): the bundles of 0.0.354 … 0.0.376 on npm
/// store only `<id>.jsonl`, 0.0.380's and later ones the folder (0.0.377 to
/// 0.0.379 were never published to npm). Builds before 0.0.342 kept
/// `history-session-state/*.json`, which no codec writes; the range starts
/// at 0.0.1 so that every 0.0.x before the folders gets this writer.
/// `plugins/copilot-cli` writes for the complement, `>=0.0.380, <2.0.0`.
pub const WRITES_FOR: &str = ">=0.0.1, <0.0.380";

/// The format written: the flat event log of Copilot CLI 0.0.3xx.
pub const FORMAT: &str = "copilot-cli-flat-events-jsonl";

/// Flat files (`session-state/<sessionId>.jsonl`).
pub static FLAT: Flavor =
    Flavor { codec: CODEC, version: VERSION, layout: Layout::Flat, native_versions: NATIVE_VERSIONS };

/// The Copilot CLI flat-file codec.
pub struct CopilotCliFlat;

impl Codec for CopilotCliFlat {
    type Reader = read::Reader;

    const WRITES_FOR: &'static str = WRITES_FOR;

    trajhost_copilot_cli_core::flavor_methods!(FLAT, writes: FORMAT);

    trajhost_codec_sdk::module_methods! { writer, prepare_with_choice }
}

trajhost_codec_sdk::export_codec!(CopilotCliFlat);
