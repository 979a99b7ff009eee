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

use trajhost_codec_sdk::{Codec, CodecInfo};

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
        CodecInfo::of(HARNESS, VERSION, NATIVE_VERSIONS, "`version` field of every record")
            .reads(["qwen-code-jsonl"])
            .writes([WRITES])
            .globs(layout::ROOTS.iter().map(|root| format!("{root}/*/{}/*{}", layout::CHATS, layout::JSONL)))
    }

    trajhost_codec_sdk::module_methods! {
        discover, inspect, read, write = write::TranscriptWriter::start, prepare_with_choice
    }
}

trajhost_codec_sdk::export_codec!(QwenCode);
