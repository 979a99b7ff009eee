//! trajhost codec for Hermes Agent (NousResearch/hermes-agent): discovers and
//! reads the sessions Hermes keeps in its SQLite store `~/.hermes/state.db`
//! (and `~/.hermes/profiles/<name>/state.db`) into canonical records.
//!
//! Module map, following the native store:
//! - [`layout`]: where the databases live and the locator
//!   `<db path>#<session id>` (one database holds every session);
//! - [`sessions`]: the `sessions` table — `discover`, `inspect`;
//! - [`messages`]: the `messages` table — each `role` → canonical records,
//!   and [`KNOWN_ROLES`];
//! - [`read`]: the batch reader (`meta`, system prompt, then messages with
//!   keyset paging).
//!
//! All database access goes through the host's read-only SQLite capability
//! (natively, in tests: the SDK opens the file read-only with rusqlite).
//!
//! **Source spans.** A record made from a SQLite row has `src.file` = the
//! database path relative to the home, `src.offset` = the row's `rowid`
//! (`messages.id` for messages, the `sessions` rowid for `meta` and the
//! system prompt) and `src.len` = 0: a row has no byte range of its own.
//!
//! **Ids.** `meta`: the session id. A message's records: `<session>:<id>`,
//! suffixed `#n` for the n-th further record of the row; tool calls keep
//! their native call id.
//!
//! **Versions.** Hermes stores no application version; the only version
//! mark is `schema_version.version` (22 for hermes-agent 0.19.0), which is
//! what `native_version` reports.
//!
//! **Model and usage.** Hermes records the model per session (and, per
//! model, in `session_model_usage` with its first use): each assistant
//! record gets the model in use at its time. Usage is recorded only as
//! session totals, so `usage` stays `None`.
//!
//! The session files beside the store (`~/.hermes/sessions/session_<id>.json`
//! logs and gateway `<id>.jsonl` transcripts, also per profile) are another
//! layout, read by the `hermes-json` codec (`plugins/hermes-json`).
//!
//! Writing: [`write`] turns canonical records into the rows Hermes keeps
//! (an export, [`export`]: `.hermes/export/<id>/{messages.jsonl,
//! session.json}`, which `discover`/`read` also read back), and [`prepare`]
//! puts them into the target's `state.db`: a new database with the schema of
//! [`schema`], or rows added to an existing one after its schema and version
//! were checked.

pub mod export;
pub mod layout;
pub mod messages;
pub mod prepare;
pub mod read;
pub mod schema;
pub mod sessions;
mod time;
pub mod write;

use trajhost_codec_sdk::{CodecError, SessionWriter, WriteOptions};

pub use messages::{Handling, KNOWN_PARTS, KNOWN_ROLES};
pub use time::rfc3339_utc;

/// The hermes-agent version `write` and `prepare` are tested with (the lab
/// pin); its `state.db` schema is [`schema::SCHEMA_VERSION`].
pub const TESTED_VERSION: &str = "0.19.0";

trajhost_codec_sdk::codec_identity! {
    /// The Hermes codec.
    codec: Hermes,
    harness: "hermes",
    /// `state.db` schema versions this codec reads (`schema_version.version`:
    /// 22 in hermes-agent 0.19.0; upstream is at 30 with a superset of the
    /// columns read here). Every schema since the first keeps `sessions.id` and
    /// `messages(id, session_id, role, content, timestamp)`, and the codec checks
    /// the other columns before it selects them, so older stores are read too.
    native_versions: ">=1.0.0, <31.0.0",
    version_shows: "`schema_version.version` of state.db (Hermes stores no app version)",
    formats: reads_and_writes("hermes-state-db"),
    globs: layout::SESSION_GLOBS.iter().copied(),
    reader: read::Reader,
    methods: { discover = sessions::discover, inspect = sessions::inspect, read, prepare_from_export_with_choice },
    impl {
        fn write(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
            Ok(write::writer(options))
        }
    },
}
