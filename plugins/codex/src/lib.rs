//! trajhost codec for the Codex CLI: discovers and reads the rollout JSONL
//! files Codex keeps under `~/.codex/sessions/YYYY/MM/DD/` (and the single
//! JSON rollout documents of the early TypeScript CLI) into canonical
//! records, writes canonical sessions as rollouts, and plans their
//! installation into a target home (the rollout file, and the `threads`
//! row of the state database when the target has one).
//!
//! Module map, following the native format:
//! - [`layout`]: where rollouts and the state database live, file names;
//! - [`native`]: the line shapes (envelope, payloads);
//! - [`head`]: session facts from the head of a rollout;
//! - [`document`]: the TypeScript CLI's rollout document (`rollout-*.json`);
//! - [`discover`]: `discover` and `inspect`;
//! - [`read`]: the batch reader;
//! - [`records`]: native types → canonical records, one module per family,
//!   and the `KNOWN_*` type lists;
//! - [`write`]: canonical records → a rollout;
//! - [`prepare`]: the installation plan and the `threads` schema check.
//!
//! Natively (tests, benchmarks) the codec runs without the sandbox:
//! `trajhost_codec_sdk::read_all::<Codex>(Dir::native(home), locator, options, sink)`.

pub mod discover;
pub mod document;
pub mod head;
pub mod layout;
pub mod native;
pub mod prepare;
pub mod read;
pub mod records;
pub mod sniff;
pub mod time;
pub mod write;

pub use records::{Handling, KNOWN_EVENT_TYPES, KNOWN_LINE_TYPES, KNOWN_RESPONSE_ITEM_TYPES};

/// The rollout format read and written.
pub const FORMAT: &str = "codex-rollout-jsonl";
/// The TypeScript CLI's rollout document, read only.
pub const DOCUMENT_FORMAT: &str = "codex-rollout-json";

trajhost_codec_sdk::codec_identity! {
    /// The Codex codec.
    codec: Codex,
    harness: "codex",
    /// Codex CLI versions whose rollouts this codec reads.
    native_versions: ">=0.1.0, <1.0.0",
    version_shows: "`session_meta.payload.cli_version` (rollout documents record none)",
    formats: reads([FORMAT, DOCUMENT_FORMAT]).writes([FORMAT]),
    globs: layout::session_globs(),
    reader: read::Reader,
    methods: { discover, inspect, read, read_from, sniff, write = write::RolloutWriter::start, prepare },
}
