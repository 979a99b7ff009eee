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

/// A parsed locator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locator {
    /// The database, relative to the home.
    pub db: String,
    /// The session id after `#`, when given.
    pub session: Option<String>,
}

impl Locator {
    pub fn parse(locator: &str) -> Result<Locator, CodecError> {
        let (db, session) = match locator.split_once('#') {
            Some((db, session)) => (db, Some(session)),
            None => (locator, None),
        };
        if db.is_empty() || !db.ends_with(DB_NAME) || db.split('/').any(|s| s == "..") {
            return Err(CodecError::NotFound(format!("{locator}: not a Hermes state.db locator")));
        }
        if session.is_some_and(str::is_empty) {
            return Err(CodecError::NotFound(format!("{locator}: empty session id after '#'")));
        }
        Ok(Locator { db: db.to_string(), session: session.map(str::to_string) })
    }

    /// `<db>#<session>`.
    pub fn of(db: &str, session: &str) -> String {
        format!("{db}#{session}")
    }
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
        let l = Locator::parse(".hermes/state.db#20261130_041901_233928").unwrap();
        assert_eq!(l.db, ".hermes/state.db");
        assert_eq!(l.session.as_deref(), Some("20261130_041901_233928"));
        assert_eq!(Locator::parse(".hermes/state.db").unwrap().session, None);
        assert!(Locator::parse(".hermes/other.db#x").is_err());
        assert!(Locator::parse(".hermes/state.db#").is_err());
        assert!(Locator::parse("../state.db#x").is_err());
    }
}
