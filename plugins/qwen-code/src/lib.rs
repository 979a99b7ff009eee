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

pub use records::{Handling, KNOWN_RECORD_TYPES, record_type};
pub use time::rfc3339_utc;

/// The format `write` produces.
pub const WRITES: &str = "qwen-code-jsonl";

trajhost_codec_sdk::codec_identity! {
    /// The Qwen Code codec.
    codec: QwenCode,
    harness: "qwen-code",
    /// Qwen Code versions whose `ChatRecord` transcripts this codec reads.
    native_versions: ">=0.1.0, <1.0.0",
    version_shows: "`version` field of every record",
    formats: reads(["qwen-code-jsonl"]).writes([WRITES]),
    globs: layout::ROOTS.iter().map(|root| format!("{root}/*/{}/*{}", layout::CHATS, layout::JSONL)),
    reader: read::Reader,
    methods: { discover, inspect, read, read_from, write = write::TranscriptWriter::start, prepare_with_choice },
}
