//! trajhost codec for Qwen Code: discovers and reads the JSONL transcripts
//! Qwen Code keeps under `~/.qwen/projects/<cwd-slug>/chats/<sessionId>.jsonl`
//! (older builds: `~/.qwen/tmp/<sha256>/chats/`) into canonical records.
//!
//! Each line is one `ChatRecord` (`chatRecordingService.ts`): a
//! `uuid`/`parentUuid` tree like Claude Code's, with Gemini-style message
//! content (`parts`: `text`, `thought`, `functionCall`, `functionResponse`)
//! and the CLI `version` on every record. Records are `user`, `assistant`
//! (model, `usageMetadata`), `tool_result` (`toolCallResult.status`) and
//! `system` with a `subtype` (compression checkpoints, titles, slash
//! commands, telemetry, …).
//!
//! Module map:
//! - [`layout`]: where sessions and spilled tool outputs live;
//! - [`native`]: the record shape;
//! - [`head`]: session facts from the start and end of a file;
//! - [`discover`]: `discover` and `inspect`;
//! - [`read`]: the batch reader;
//! - [`records`]: native records → canonical records and
//!   [`KNOWN_RECORD_TYPES`];
//! - [`write`]: canonical records → a transcript, streamed;
//! - [`prepare`]: the plan that installs it into a target home.

pub mod discover;
pub mod head;
pub mod layout;
pub mod native;
pub mod prepare;
pub mod read;
pub mod records;
mod time;
pub mod write;

use trajhost_codec_sdk::canonical::SCHEMA;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{
    ArtifactInfo, Codec, CodecError, CodecInfo, Discovery, Plan, ReadOptions, SessionRef, SessionWriter, WriteOptions,
};

pub use records::{Handling, KNOWN_RECORD_TYPES, record_type};
pub use time::rfc3339_utc;

/// The harness id.
pub const HARNESS: &str = "qwen-code";
/// This codec's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// `harness@version`, as `meta.codec` says it.
pub const CODEC: &str = concat!("qwen-code@", env!("CARGO_PKG_VERSION"));
/// Qwen Code versions whose `ChatRecord` transcripts this codec reads.
pub const NATIVE_VERSIONS: &str = ">=0.1.0, <1.0.0";
/// The format `write` produces.
pub const WRITES: &str = "qwen-code-jsonl";

/// The Qwen Code codec.
pub struct QwenCode;

impl Codec for QwenCode {
    type Reader = read::Reader;

    fn info() -> CodecInfo {
        CodecInfo {
            harness: HARNESS.into(),
            codec_version: VERSION.into(),
            native_versions: NATIVE_VERSIONS.into(),
            native_version_source: "`version` field of every record".into(),
            reads: vec!["qwen-code-jsonl".into()],
            writes: vec![WRITES.into()],
            session_globs: layout::ROOTS
                .iter()
                .map(|root| format!("{root}/*/{}/*{}", layout::CHATS, layout::JSONL))
                .collect(),
            canonical_schema: SCHEMA.into(),
        }
    }

    fn discover(home: &Dir) -> Result<Discovery, CodecError> {
        discover::discover(home)
    }

    fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
        discover::inspect(home, locator)
    }

    fn read(home: Dir, locator: &str, options: ReadOptions) -> Result<read::Reader, CodecError> {
        read::Reader::open(home, locator, &options)
    }

    fn write(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
        write::TranscriptWriter::start(options)
    }

    fn prepare(
        artifacts: Vec<ArtifactInfo>,
        export: &Dir,
        target: &Dir,
        options: WriteOptions,
    ) -> Result<Plan, CodecError> {
        // Asked first, so that a choice is never dropped by an early refusal.
        let choice = prepare::target_choice();
        let artifacts = trajhost_codec_sdk::load_artifacts(export, &artifacts)?;
        prepare::prepare(artifacts, target, &options, &choice)
    }
}

trajhost_codec_sdk::export_codec!(QwenCode);
