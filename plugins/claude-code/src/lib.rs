//! trajhost codec for Claude Code: discovers and reads the JSONL transcripts
//! Claude Code keeps under `~/.claude/projects/<cwd-slug>/<sessionId>.jsonl`
//! (each subagent transcript a session of its own) into canonical records, and writes
//! canonical sessions back as transcripts Claude Code resumes.
//!
//! Module map, following the native format:
//! - [`layout`]: where sessions, subagents and spilled tool outputs live;
//! - [`native`]: the line shapes (envelope, message, content blocks);
//! - [`head`]: session facts from the first and last 64 KiB of a file;
//! - [`discover`]: `discover` and `inspect`;
//! - [`read`]: the batch reader over the main and subagent transcripts;
//! - [`records`]: native record types → canonical records, one module per
//!   family (`user`, `assistant`, `system`, 2.1.33x's request log and
//!   accounting in `bookkeeping`, the rest in `other`), and
//!   [`KNOWN_RECORD_TYPES`];
//! - [`write`]: a canonical document → one transcript, streamed batch by
//!   batch (what is not carried is reported as `not-carried` diagnostics);
//! - [`prepare`]: the plan that installs it into a target home, and the
//!   command that resumes it;
//! - [`ids`]: the deterministic ids written sessions get.
//!
//! Natively (tests, benchmarks) the codec runs without the sandbox:
//! `trajhost_codec_sdk::read_all::<ClaudeCode>(Dir::native(home), locator, options, sink)`.

pub mod discover;
pub mod head;
pub mod ids;
pub mod layout;
pub mod native;
pub mod prepare;
pub mod read;
pub mod records;
pub mod sniff;
mod time;
pub mod write;

use trajhost_codec_sdk::canonical::SCHEMA;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{
    ArtifactInfo, Codec, CodecError, CodecInfo, Discovery, Plan, ReadOptions, SessionRef, SessionWriter, WriteOptions,
};

pub use records::{Handling, KNOWN_RECORD_TYPES};
pub use time::{parse_rfc3339, rfc3339_utc};

/// The harness id.
pub const HARNESS: &str = "claude-code";
/// This codec's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// `harness@version`, as `meta.codec` says it.
pub const CODEC: &str = concat!("claude-code@", env!("CARGO_PKG_VERSION"));
/// Claude Code versions whose transcripts this codec reads.
pub const NATIVE_VERSIONS: &str = ">=1.0.0, <3.0.0";

/// The Claude Code codec.
pub struct ClaudeCode;

impl Codec for ClaudeCode {
    type Reader = read::Reader;

    fn info() -> CodecInfo {
        CodecInfo {
            harness: HARNESS.into(),
            codec_version: VERSION.into(),
            native_versions: NATIVE_VERSIONS.into(),
            native_version_source: "`version` field of user/assistant records".into(),
            reads: vec!["claude-code-jsonl".into()],
            writes: vec!["claude-code-jsonl".into()],
            session_globs: layout::PROJECT_ROOTS
                .iter()
                .map(|root| root.to_string())
                .chain([format!("{}*/projects", layout::SIBLING_PREFIX)])
                .flat_map(|root| [format!("{root}/*/*.jsonl"), format!("{root}/*/*/subagents/agent-*.jsonl")])
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

    fn sniff(path: &str, head: &[u8]) -> Option<trajhost_codec_sdk::Sniffed> {
        sniff::sniff(path, head)
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
        let artifacts = trajhost_codec_sdk::load_artifacts(export, &artifacts)?;
        prepare::prepare(artifacts, target, &options)
    }
}

trajhost_codec_sdk::export_codec!(ClaudeCode);
