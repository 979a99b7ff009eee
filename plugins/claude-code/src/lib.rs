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

pub use records::{Handling, KNOWN_RECORD_TYPES};
pub use time::{parse_rfc3339, rfc3339_utc};

trajhost_codec_sdk::codec_identity! {
    /// The Claude Code codec.
    codec: ClaudeCode,
    harness: "claude-code",
    /// Claude Code versions whose transcripts this codec reads.
    native_versions: ">=1.0.0, <3.0.0",
    version_shows: "`version` field of user/assistant records",
    formats: reads_and_writes("claude-code-jsonl"),
    globs: layout::PROJECT_ROOTS
        .iter()
        .map(|root| root.to_string())
        .chain([format!("{}*/projects", layout::SIBLING_PREFIX)])
        .flat_map(|root| [format!("{root}/*/*.jsonl"), format!("{root}/*/*/subagents/agent-*.jsonl")]),
    reader: read::Reader,
    methods: { discover, inspect, read, read_from, sniff, write = write::TranscriptWriter::start, prepare },
}
