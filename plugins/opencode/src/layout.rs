//! Where OpenCode keeps sessions, and the locators of this codec.
//!
//! ```text
//! ~/.local/share/opencode/opencode.db          SQLite: session, message, part (+ project, event, …)
//! ~/.local/share/opencode/tool-output/<id>     full outputs of truncated tool results
//! ```
//!
//! A session's locator is `<db path>#<session id>`, e.g.
//! `.local/share/opencode/opencode.db#ses_dd5597ad9ffezBir1gCV6AWlI8`.
//! Written sessions are OpenCode import documents, installed at
//! `.local/share/trajhost/opencode-import/<session id>.json` (outside
//! OpenCode's own folder, which it manages). Such a document is discovered
//! and read too (its locator is that path): `trajhost convert` reads what it
//! wrote back before reporting fidelity.

use trajhost_codec_sdk::CodecError;

/// The store, relative to the home.
pub const DB: &str = ".local/share/opencode/opencode.db";
/// Where `prepare` puts import documents, relative to the home.
pub const IMPORT_DIR: &str = ".local/share/trajhost/opencode-import";

/// `<db>#<session id>`.
pub fn locator(db: &str, session: &str) -> String {
    format!("{db}#{session}")
}

/// Splits a locator into the database path and the session id.
pub fn parse_locator(locator: &str) -> Result<(&str, &str), CodecError> {
    let bad = |why: &str| CodecError::NotFound(format!("locator {locator:?}: {why}"));
    let (db, id) = locator.rsplit_once('#').ok_or_else(|| bad("expected <database>#<session id>"))?;
    if !db.ends_with(".db") || db.starts_with('/') || db.split('/').any(|c| c.is_empty() || c == "." || c == "..") {
        return Err(bad("not a relative path of an OpenCode database"));
    }
    if !id.starts_with("ses_") || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(bad("not an OpenCode session id (ses_…)"));
    }
    Ok((db, id))
}

/// Whether a locator names a loose JSON document (an `opencode export`, an
/// import document copied elsewhere): any `.json` file without `#`.
pub fn is_loose_document(locator: &str) -> bool {
    locator.ends_with(".json") && !locator.contains('#') && import_locator(locator).is_none()
}

/// The session id of an import document's locator
/// (`.local/share/trajhost/opencode-import/<ses id>.json`), or `None`.
pub fn import_locator(locator: &str) -> Option<&str> {
    let id = locator.strip_prefix(IMPORT_DIR)?.strip_prefix('/')?.strip_suffix(".json")?;
    (id.starts_with("ses_") && id.len() > 4 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')).then_some(id)
}
