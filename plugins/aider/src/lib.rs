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
//! history in a workspace that has none; appending a block to an existing
//! one needs a plan operation the host does not have ([`prepare`]).
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

use trajhost_codec_sdk::canonical::SCHEMA;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{
    ArtifactInfo, Codec, CodecError, CodecInfo, Discovery, Plan, ReadOptions, SessionRef, SessionWriter, Sniffed,
    WholeDocument, WriteOptions,
};

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
        CodecInfo {
            harness: HARNESS.into(),
            codec_version: VERSION.into(),
            native_versions: NATIVE_VERSIONS.into(),
            native_version_source: "the banner line `> Aider v<version>` of each `# aider chat started at` block"
                .into(),
            reads: vec![FORMAT.into()],
            writes: vec![FORMAT.into()],
            session_globs: vec![history::FILE.into()],
            canonical_schema: SCHEMA.into(),
        }
    }

    fn discover(home: &Dir) -> Result<Discovery, CodecError> {
        discover::discover(home)
    }

    fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
        discover::inspect(home, locator)
    }

    fn sniff(path: &str, head: &[u8]) -> Option<Sniffed> {
        sniff::sniff(path, head)
    }

    fn read(home: Dir, locator: &str, options: ReadOptions) -> Result<read::Reader, CodecError> {
        read::open(home, locator, &options)
    }

    fn write(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
        Ok(WholeDocument::boxed(options, write::write))
    }

    fn prepare(
        artifacts: Vec<ArtifactInfo>,
        export: &Dir,
        target: &Dir,
        options: WriteOptions,
    ) -> Result<Plan, CodecError> {
        // Asked first, so a choice is never ignored.
        let choice = prepare::target_choice();
        let artifacts = trajhost_codec_sdk::load_artifacts(export, &artifacts)?;
        prepare::prepare(artifacts, target, &options, &choice)
    }
}

trajhost_codec_sdk::export_codec!(Aider);
