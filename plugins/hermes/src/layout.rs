//! Where Hermes keeps sessions, and how a locator names one of them.
//!
//! All sessions of a Hermes home live in one SQLite database,
//! `~/.hermes/state.db` (profiles: `~/.hermes/profiles/<name>/state.db`). A
//! locator names the database and the session in it, separated by `#`:
//! `.hermes/state.db#20261130_041901_233928`. A locator without `#` names the
//! database alone and is accepted when it holds exactly one session (what a
//! path given on the command line resolves to).

use trajhost_codec_sdk::CodecError;

/// The default profile's database, relative to the home.
pub const STATE_DB: &str = ".hermes/state.db";
/// Named profiles live under this directory, one `state.db` each.
pub const PROFILES_DIR: &str = ".hermes/profiles";
/// File name of a profile's database.
pub const DB_NAME: &str = "state.db";

/// The `session-globs` of `info`.
pub const SESSION_GLOBS: &[&str] = &[STATE_DB, ".hermes/profiles/*/state.db"];

/// A parsed locator: the database and, after `#`, the session.
pub use trajhost_codec_sdk::discovery::DbLocator as Locator;

/// `locator` parsed (refused unless its database is a [`DB_NAME`] below the
/// home).
pub fn parse_locator(locator: &str) -> Result<Locator, CodecError> {
    Locator::parse(locator, DB_NAME, "a Hermes state.db")
}

/// `-wal` file of a database path.
pub fn wal_of(db: &str) -> String {
    format!("{db}-wal")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_locators() {
        let l = parse_locator(".hermes/state.db#20261130_041901_233928").unwrap();
        assert_eq!(l.db, ".hermes/state.db");
        assert_eq!(l.session.as_deref(), Some("20261130_041901_233928"));
        assert_eq!(parse_locator(".hermes/state.db").unwrap().session, None);
        assert!(parse_locator(".hermes/other.db#x").is_err());
        assert!(parse_locator(".hermes/state.db#").is_err());
        assert!(parse_locator("../state.db#x").is_err());
    }
}
