//! trajhost codec for the Cline CLI / SDK (cline/cline, `cline` 3.x):
//! discovers and reads the sessions kept under
//! `~/.cline/data/sessions/<id>/` into canonical records.
//!
//! Module map, following the native store:
//! - [`layout`]: the session directory, its files and the index database;
//! - [`native`]: the manifest, the messages document, messages and blocks;
//! - [`discover`]: `discover` and `inspect`, from the index `sessions.db`
//!   (one query) and, for sessions it does not list, the manifests;
//! - [`messages`]: message roles and content blocks → canonical records,
//!   [`KNOWN_ROLES`] and [`KNOWN_BLOCKS`];
//! - [`read`]: the batch reader.
//!
//! The index is read through the host's read-only SQLite capability
//! (natively, in tests: the SDK opens it read-only with rusqlite).
//!
//! **Source spans.** Records of a message carry the message's exact byte
//! span in `<id>.messages.json`; the system prompt its string's span;
//! `meta` offset 0, length 0 (it comes from the index or the manifest).
//!
//! **Ids.** `meta`: the session id. A message's records: the message `id`,
//! suffixed `#n` for further records of the message; tool calls keep their
//! native call id.
//!
//! **Versions.** `native_version` is `metadata.sessionHistoryOrigin.version`
//! of the index row or manifest, else `origin.version` of the messages
//! document.
//!
//! The VS Code extension's task layout (`tasks/<id>/…` under VS Code's
//! global storage) is read by the `0.1.0-vscode` codec
//! (`plugins/cline-vscode`), not this one.
//!
//! - [`write`]: canonical records → a session directory (messages and manifest);
//! - [`prepare`]: the plan that installs it, with its `sessions.db` row.

pub mod discover;
pub mod layout;
pub mod messages;
pub mod native;
pub mod prepare;
pub mod read;
mod time;
pub mod write;

pub use messages::{Handling, KNOWN_BLOCKS, KNOWN_ROLES};
pub use time::rfc3339_utc;

trajhost_codec_sdk::codec_identity! {
    /// The Cline codec.
    codec: Cline,
    harness: "cline",
    /// Cline CLI versions whose session files this codec reads.
    native_versions: ">=3.0.0, <4.0.0",
    version_shows: "`metadata.sessionHistoryOrigin.version` (sessions.db / <id>.json), else `origin.version` of <id>.messages.json",
    formats: reads_and_writes("cline-session-json"),
    globs: layout::SESSION_GLOBS.iter().copied(),
    reader: read::Reader,
    methods: { discover, inspect, read = read::open, writer, prepare_from_export },
}
