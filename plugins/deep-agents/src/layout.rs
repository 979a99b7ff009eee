//! Where Deep Agents Code (`dcode`) keeps sessions, and the locator.
//!
//! All threads live in one LangGraph SQLite checkpointer,
//! `~/.deepagents/.state/sessions.db` (older builds: `~/.deepagents/sessions.db`).
//! A locator names the database and the thread, separated by `#`:
//! `.deepagents/.state/sessions.db#<thread_id>`. A locator without `#` is
//! accepted when the database holds exactly one thread.

use trajhost_codec_sdk::CodecError;

pub const STATE_DB: &str = ".deepagents/.state/sessions.db";
pub const LEGACY_DB: &str = ".deepagents/sessions.db";

/// The `session-globs` of `info`.
pub const SESSION_GLOBS: &[&str] = &[STATE_DB, LEGACY_DB];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locator {
    pub db: String,
    pub thread: Option<String>,
}

impl Locator {
    pub fn parse(locator: &str) -> Result<Locator, CodecError> {
        let (db, thread) = match locator.split_once('#') {
            Some((db, t)) => (db, Some(t)),
            None => (locator, None),
        };
        let known = db.ends_with("sessions.db") || db == crate::export::FILE;
        if !known || db.split('/').any(|s| s == "..") {
            return Err(CodecError::NotFound(format!("{locator}: not a Deep Agents sessions.db locator")));
        }
        if thread.is_some_and(str::is_empty) {
            return Err(CodecError::NotFound(format!("{locator}: empty thread id after '#'")));
        }
        Ok(Locator { db: db.to_string(), thread: thread.map(str::to_string) })
    }

    pub fn of(db: &str, thread: &str) -> String {
        format!("{db}#{thread}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_locators() {
        let l = Locator::parse(".deepagents/.state/sessions.db#01a2").unwrap();
        assert_eq!((l.db.as_str(), l.thread.as_deref()), (STATE_DB, Some("01a2")));
        assert_eq!(Locator::parse(LEGACY_DB).unwrap().thread, None);
        assert!(Locator::parse(".deepagents/x.db#a").is_err());
    }
}
