//! trajhost codec for OpenClaw (openclaw/openclaw, ex Clawdbot/Moltbot):
//! discovers and reads the sessions OpenClaw (2026.8 and later) keeps in
//! each agent's SQLite store,
//! `~/.openclaw/agents/<agent>/agent/openclaw-agent.sqlite`, into canonical
//! records.
//!
//! Module map, following the native store:
//! - [`layout`]: where the databases live and the locator
//!   `<db path>#<session id>` (one database holds all of an agent's
//!   sessions);
//! - [`sessions`]: `session_windows` / `schema_meta` — `discover`, `inspect`;
//! - [`events`]: `transcript_events`, Pi-style entries — each entry type
//!   and message role → canonical records, [`KNOWN_ENTRY_TYPES`] and
//!   [`KNOWN_MESSAGE_ROLES`];
//! - [`read`]: the batch reader over the session's active branch;
//! - [`export`]: this codec's export file (the transcript entries as JSON
//!   lines), its discovery and reader;
//! - [`write`]: canonical records → the export file (Pi-style entries, made
//!   by the Pi writer of `trajhost-pi-core`);
//! - [`prepare`]: the export file → rows of the `main` agent's database
//!   (`create-database` with the CLI's schema, or `insert-rows`).
//!
//! All database access goes through the host's read-only SQLite capability
//! (natively, in tests: the SDK opens the file read-only with rusqlite).
//!
//! **Source spans.** A record made from a SQLite row has `src.file` = the
//! database path relative to the home, `src.offset` = the row's `rowid`
//! (`transcript_events` for entries, `session_windows` for `meta`) and
//! `src.len` = 0: a row has no byte range of its own.
//!
//! **Ids.** `meta`: the session id. An entry's records: the entry `id`,
//! suffixed `#n` for further records of the entry; tool calls keep their
//! native call id. `parent` follows the entry's `parentId` (through entries
//! that made no record); a tool result's parent is its call.
//!
//! **Versions.** `native_version` is `schema_meta.app_version`, the OpenClaw
//! version that wrote the database.
//!
//! **Schemas.** Columns are checked, not assumed: stores without
//! `event_zstd` (older ones, `doctor` imports) are read from `event_json`;
//! without `transcript_event_identities` the active branch is recomputed
//! from the entries' own `id` / `parentId`.
//!
//! The legacy JSONL transcripts (`agents/<agent>/sessions/*.jsonl`, up to
//! 2026.7) are read by the `openclaw-jsonl` codec (`plugins/openclaw-jsonl`),
//! which shares the entry mapping (`trajhost-openclaw-core`).
//!
//! Writing: [`write`] makes this codec's export file ([`export`]: the
//! transcript entries as JSON lines, which `discover`/`read` also read), and
//! [`prepare`] turns it into rows of the `main` agent's database.

/// The entry mapping, shared with the JSONL codec (`trajhost-openclaw-core`).
pub use trajhost_openclaw_core::events;
pub mod export;
pub mod layout;
pub mod prepare;
pub mod read;
pub mod sessions;
mod time;
pub mod write;

use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{
    Batch, CodecError, ReadOptions, SessionReader, SessionRef, SessionWriter, WholeDocument, WriteOptions,
};

pub use events::{Handling, KNOWN_ENTRY_TYPES, KNOWN_MESSAGE_ROLES};
pub use time::rfc3339_utc;

trajhost_codec_sdk::codec_identity! {
    /// The OpenClaw codec.
    codec: OpenClaw,
    harness: "openclaw",
    /// OpenClaw versions whose SQLite store this codec reads: the store came
    /// with the switch to SQLite (merged 2026-06-30, shipped around 2026.8; the
    /// lab fixtures are 2026.9.6). Older stores, and those `openclaw doctor
    /// --session-sqlite import` builds, have no `schema_meta` (no version: the
    /// layout decides) and only plain `event_json`; the range stays wide.
    native_versions: ">=2026.6.0, <2028.0.0",
    version_shows: "`schema_meta.app_version` of the agent database",
    formats: reads(["openclaw-agent-sqlite", export::FORMAT]).writes([export::FORMAT]),
    globs: layout::SESSION_GLOBS.iter().map(|g| g.to_string()).chain([format!("{}/*.jsonl", export::EXPORT_DIR)]),
    reader: Reader,
    methods: { discover = sessions::discover, prepare },
    impl {
        fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
            if export::is_export(locator) {
                return export::inspect(home, locator);
            }
            sessions::inspect(home, locator)
        }

        fn read(home: Dir, locator: &str, options: ReadOptions) -> Result<Reader, CodecError> {
            if export::is_export(locator) {
                return Ok(Reader::Export(Box::new(export::Reader::open(home, locator, &options)?)));
            }
            Ok(Reader::Database(Box::new(read::Reader::open(home, locator, &options)?)))
        }

        fn write(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
            Ok(WholeDocument::boxed(options, write::write))
        }
    },
}

/// A session being read: from an agent database, or from an export file.
pub enum Reader {
    Database(Box<read::Reader>),
    Export(Box<export::Reader>),
}

impl SessionReader for Reader {
    fn next_batch(&mut self) -> Result<Option<Batch>, CodecError> {
        match self {
            Reader::Database(r) => r.next_batch(),
            Reader::Export(r) => r.next_batch(),
        }
    }
}
