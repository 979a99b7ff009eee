//! trajhost codec for Aider (PyPI `aider-chat`) chat histories:
//! `<workspace>/.aider.chat.history.md`, markdown Aider appends to on every
//! run (format: [`history`]).
//!
//! The store is in the workspace, not in HOME: `discover` looks for the
//! history in the directory it is given and treats that directory as the
//! workspace. Each `# aider chat started at <time>` block is one session;
//! Aider names none, so the id is made from the file's path and the block's
//! start ([`session`]). Resume is `aider --restore-chat-history` in that
//! workspace, which restores every block of the file as one conversation
//! (user `#### ` lines and replies; `> ` lines are dropped).
//!
//! Aider has no tool calling: its histories hold no calls or results
//! (`/run` output reaches the chat but not the file), and `write` folds the
//! calls and results of other harnesses into text Aider restores, naming
//! that in `not-carried` diagnostics ([`write`]). `prepare` creates the
//! history in a workspace that has none and appends a block to an existing
//! one (`append-file`, API 0.3.0: only while the history still has the
//! bytes `prepare` read, which stay an untouched prefix; [`prepare`]).
//!
//! Module map: [`history`] (the markdown: blocks, messages, banner),
//! [`session`] (locators, ids, times), [`discover`], [`read`], [`sniff`],
//! [`write`], [`prepare`].

pub mod discover;
pub mod history;
pub mod prepare;
pub mod read;
pub mod session;
pub mod sniff;
pub mod write;

use trajhost_codec_sdk::{Codec, CodecInfo};

pub use trajhost_codec_sdk::known::Handling;

/// The harness id.
pub const HARNESS: &str = "aider";
/// This codec's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// `harness@version`, as `meta.codec` says it.
pub const CODEC: &str = concat!("aider@", env!("CARGO_PKG_VERSION"));
/// Aider releases whose histories this codec reads and writes (the
/// markdown has been the same through the 0.x releases; the lab runs 0.86.2).
pub const NATIVE_VERSIONS: &str = ">=0.50.0, <1.0.0";
/// The format read and written.
pub const FORMAT: &str = "aider-chat-history-md";
/// The observation subtype of Aider's own `> ` lines.
pub const STATUS_SUBTYPE: &str = "status";

/// Every line type of a block.
pub const KNOWN_LINES: &[(&str, Handling)] = &[
    ("user", Handling::Mapped("user (`#### ` lines)")),
    ("assistant", Handling::Mapped("assistant (other lines; model from the banner, usage from `> Tokens:`)")),
    ("status", Handling::Mapped("observation status (`> ` lines; the banner's `Aider v` is the native version)")),
];

/// How a line type is handled; `None` for one never seen.
pub fn handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_LINES, kind)
}

/// The Aider codec.
pub struct Aider;

impl Codec for Aider {
    type Reader = read::Reader;

    fn info() -> CodecInfo {
        CodecInfo::of(
            HARNESS,
            VERSION,
            NATIVE_VERSIONS,
            "the banner line `> Aider v<version>` of each `# aider chat started at` block",
        )
        .reads_and_writes(FORMAT)
        .globs([history::FILE, history::WORKSPACE_FILES])
    }

    trajhost_codec_sdk::module_methods! { discover, inspect, read = read::open, sniff, write = write::boxed, prepare_with_choice }
}

trajhost_codec_sdk::export_codec!(Aider);
