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

use trajhost_codec_sdk::{Codec, CodecInfo};

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
        CodecInfo::of(HARNESS, VERSION, NATIVE_VERSIONS, "`version` field of user/assistant records")
            .reads_and_writes("claude-code-jsonl")
            .globs(
                layout::PROJECT_ROOTS
                    .iter()
                    .map(|root| root.to_string())
                    .chain([format!("{}*/projects", layout::SIBLING_PREFIX)])
                    .flat_map(|root| [format!("{root}/*/*.jsonl"), format!("{root}/*/*/subagents/agent-*.jsonl")]),
            )
    }

    trajhost_codec_sdk::module_methods! {
        discover, inspect, read, sniff, write = write::TranscriptWriter::start, prepare
    }
}

trajhost_codec_sdk::export_codec!(ClaudeCode);
