//! trajhost codec for Factory Droid: discovers and reads the JSONL session
//! files Droid keeps under `~/.factory/sessions/<cwd-slug>/<sessionId>.jsonl`
//! into canonical records. The `<sessionId>.settings.json` beside each
//! (model, autonomy, session token totals) is not a session.
//!
//! Lines: `session_start` (`{id, title, owner, version, cwd}`; `version` is
//! the session format version, 2, or in older builds the CLI version as a
//! string, `"0.81.0"`, over the same lines), `message` (`{id, parentId, timestamp,
//! message: {role, content[]}}` with Anthropic-style blocks: `text`,
//! `thinking`, `redacted_thinking`, `tool_use`, `tool_result`, `image`,
//! `document`), and bookkeeping (`agent_turn_outcome`, `todo_state`,
//! `session_settings`, `compaction_state`, `session_end`).
//!
//! Module map:
//! - [`layout`]: where sessions live;
//! - [`native`]: the line shapes;
//! - [`head`]: session facts from the start of a file;
//! - [`discover`]: `discover` and `inspect`;
//! - [`read`]: the batch reader;
//! - [`records`]: native lines → canonical records and
//!   [`KNOWN_RECORD_TYPES`].
//!
//! - [`write`]: canonical records → a transcript and its settings file,
//!   streamed;
//! - [`prepare`]: the plan that installs them into a target home, on the
//!   target's configured model.
//!
//! Droid records no CLI version in a session: the native version is the
//! session format version of `session_start`. Per-message usage is not
//! recorded (only session totals in the settings file).

pub mod discover;
pub mod head;
pub mod layout;
pub mod native;
pub mod prepare;
pub mod read;
pub mod records;
mod time;
pub mod write;

pub use records::{Handling, KNOWN_RECORD_TYPES};
pub use time::rfc3339_utc;

trajhost_codec_sdk::codec_identity! {
    /// The Factory Droid codec.
    codec: FactoryDroid,
    harness: "factory-droid",
    /// What `session_start.version` says in the files this codec reads: the
    /// session format version 2 (current builds), or the CLI version string
    /// (0.x builds, which wrote the same lines). Format 3 would be another codec.
    native_versions: ">=0.0.0, <3.0.0",
    version_shows: "`version` of the `session_start` line: the session format version (2), or the CLI version string older builds wrote there",
    formats: reads_and_writes("factory-droid-jsonl"),
    globs: [format!("{}/*/*{}", layout::SESSIONS, layout::JSONL)],
    reader: read::Reader,
    methods: { discover, inspect, read = read::open, read_from = read::resume, write = write::Writer::start, prepare_with_choice },
}
