//! Where OpenCode keeps sessions, and the locators of this codec.
//!
//! ```text
//! ~/.local/share/opencode/opencode.db          SQLite: session, message, part (+ project, event, …)
//! ~/.local/share/opencode/tool-output/<id>     full outputs of truncated tool results
//! ```
//!
//! A session's locator is `<db path>#<session id>`, e.g.
//! `.local/share/opencode/opencode.db#ses_dd5597ad9ffezBir1gCV6AWlI8`; the
//! database path alone names the store's only session (a store given as a
//! path, as the host passes a file it recognized by content).
//! Written sessions are OpenCode import documents, installed at
//! `.local/share/trajhost/opencode-import/<session id>.json` (outside
//! OpenCode's own folder, which it manages). Such a document is discovered
//! and read too (its locator is that path): `trajhost convert` reads what it
//! wrote back before reporting fidelity.

use trajhost_codec_sdk::CodecError;

/// The store and where `prepare` puts import documents, relative to the home.
pub use crate::flavor::{DB, IMPORT_DIR};

/// `<db>#<session id>`.
pub fn locator(db: &str, session: &str) -> String {
    format!("{db}#{session}")
}

/// Splits a locator into the database path and the session id: `<db>#<id>`
/// names one session of the store (any id the store holds: OpenCode's own
/// are `ses_…`, other tools write others); a bare `<db>` (a store given as
/// a path) names its only session, `None` here.
pub fn parse_locator(locator: &str) -> Result<(&str, Option<&str>), CodecError> {
    let bad = |why: &str| CodecError::NotFound(format!("locator {locator:?}: {why}"));
    // The session id follows the first `#` after the database's name.
    let (db, id) = match locator.find(".db#") {
        Some(at) => (&locator[..at + 3], Some(&locator[at + 4..])),
        None => match locator.split_once('#') {
            Some((db, id)) => (db, Some(id)),
            None => (locator, None),
        },
    };
    if db.is_empty() || db.starts_with('/') || db.split('/').any(|c| c.is_empty() || c == "." || c == "..") {
        return Err(bad("not a relative path of an OpenCode database"));
    }
    if db.ends_with(".json") {
        return Err(bad("a JSON document, not an OpenCode database"));
    }
    if id.is_some_and(|id| id.is_empty() || id.chars().any(char::is_control)) {
        return Err(bad("expected <database>#<session id>"));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locators_name_a_store_and_any_session_id_it_holds() {
        let db = ".local/share/opencode/opencode.db";
        assert_eq!(parse_locator(&format!("{db}#ses_abc")).unwrap(), (db, Some("ses_abc")));
        // Ids other tools wrote: any, even with `#` or `-` in them.
        assert_eq!(parse_locator(&format!("{db}#imported-1")).unwrap(), (db, Some("imported-1")));
        assert_eq!(parse_locator(&format!("{db}#a#b")).unwrap(), (db, Some("a#b")));
        assert_eq!(parse_locator("opencode.db").unwrap(), ("opencode.db", None));
        assert_eq!(parse_locator("copy.sqlite#x").unwrap(), ("copy.sqlite", Some("x")));
        for bad in [format!("{db}#"), "/abs/opencode.db#x".into(), "../opencode.db#x".into(), "a//b.db".into()] {
            assert!(parse_locator(&bad).is_err(), "{bad}");
        }
        assert!(parse_locator("export.json").is_err());
    }
}
