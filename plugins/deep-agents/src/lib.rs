//! trajhost codec for Deep Agents Code (`dcode`, langchain-ai/deepagents
//! `libs/code`): discovers and reads the threads kept in its LangGraph
//! SQLite checkpointer, `~/.deepagents/.state/sessions.db`, into canonical
//! records, and writes threads into it.
//!
//! Module map, following the native store:
//! - [`layout`]: the database and the locator `<db path>#<thread id>`;
//! - [`threads`]: `discover`, `inspect` (one query per database over the
//!   `checkpoints` table and its JSON metadata);
//! - [`msgpack`]: a small MessagePack decoder and encoder for LangGraph's
//!   serializer;
//! - [`messages`]: LangChain messages → canonical records, the
//!   `add_messages` reducer, [`KNOWN_MESSAGE_TYPES`] and [`KNOWN_BLOCKS`];
//! - [`read`]: the thread's conversation from its latest root checkpoint
//!   (snapshot plus `messages` writes along the checkpoint chain);
//! - [`write`]: canonical records → LangChain messages in this codec's
//!   export file ([`export`]);
//! - [`prepare`]: the export → one checkpoint row of `sessions.db`.
//!
//! All database access goes through the host's read-only SQLite capability
//! (natively, in tests: the SDK opens the file read-only with rusqlite).
//!
//! **Source spans.** A record read from an export file has `src.offset` =
//! the byte offset of its message line. A record made from a SQLite row has `src.file` = the
//! database path relative to the home, `src.offset` = the row's `rowid` —
//! of the `writes` row that added the message (or, for a message from a
//! full snapshot, of the `checkpoints` row; for `meta`, the latest root
//! checkpoint) — and `src.len` = 0: a row has no byte range of its own.
//!
//! **Ids.** `meta`: the thread id. A message's records: the LangChain
//! message `id`, suffixed `#n` for further records; tool calls keep their
//! native call id.
//!
//! **Versions.** `native_version` is `lc_versions["deepagents-code"]` of
//! the latest checkpoint's metadata.
//!
//! **Writing.** [`write`] streams canonical records into this codec's
//! export file ([`export`]); [`prepare`] turns it into one checkpoint row of
//! `sessions.db` (a new database, or rows added to an existing one whose
//! schema it checks first). Resume is dcode's interactive TUI only:
//! `dcode [-M <model>] -r <thread_id>` in the session's directory.

pub mod export;
pub mod layout;
pub mod messages;
pub mod msgpack;
pub mod prepare;
pub mod read;
pub mod threads;
mod time;
pub mod write;

use trajhost_codec_sdk::{CodecError, SessionWriter, WriteOptions};

pub use messages::{Handling, KNOWN_BLOCKS, KNOWN_MESSAGE_TYPES};
pub use time::{rfc3339_utc, uuid6_ms};

trajhost_codec_sdk::codec_identity! {
    /// The Deep Agents codec.
    codec: DeepAgents,
    harness: "deep-agents",
    /// deepagents-code versions whose threads this codec reads: the store is
    /// LangGraph's checkpointer, whose tables and serializer do not follow the
    /// CLI's version (older LangGraph without `writes.task_path` is read too).
    native_versions: ">=0.0.0, <1.0.0",
    version_shows: "`lc_versions.deepagents-code` of the latest checkpoint's metadata",
    formats: reads_and_writes("langgraph-sqlite-checkpoints"),
    globs: layout::SESSION_GLOBS.iter().copied(),
    reader: read::Reader,
    methods: { discover = threads::discover, inspect = threads::inspect, read, prepare },
    impl {
        fn write(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
            // Asked here too: a model or provider given to `convert` is applied
            // in the resume command `prepare` returns.
            let _ = trajhost_codec_sdk::target::choice();
            Ok(Box::new(write::Writer::new(options)))
        }
    },
}
