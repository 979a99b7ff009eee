//! Where OpenClaw keeps sessions, and how a locator names one of them.
//!
//! Since the switch to SQLite (2026.8), each agent's sessions live in one
//! database, `~/.openclaw/agents/<agent>/agent/openclaw-agent.sqlite`. A
//! locator names the database and the session (`session_windows.session_id`)
//! separated by `#`:
//! `.openclaw/agents/main/agent/openclaw-agent.sqlite#d59a25e0-…`. A locator
//! without `#` names the database alone and is accepted when it holds
//! exactly one session.

use trajhost_codec_sdk::CodecError;

/// The directory of the agents, relative to the home.
pub const AGENTS_DIR: &str = ".openclaw/agents";
/// File name of an agent's database (in `<agent>/agent/`).
pub const DB_NAME: &str = "openclaw-agent.sqlite";

/// The `session-globs` of `info`.
pub const SESSION_GLOBS: &[&str] = &[".openclaw/agents/*/agent/openclaw-agent.sqlite"];

/// The database of `agent`.
pub fn db_path(agent: &str) -> String {
    format!("{AGENTS_DIR}/{agent}/agent/{DB_NAME}")
}

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
        if !db.ends_with(DB_NAME) || db.split('/').any(|s| s == "..") {
            return Err(CodecError::NotFound(format!("{locator}: not an OpenClaw agent database locator")));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_locators() {
        let l = Locator::parse(".openclaw/agents/main/agent/openclaw-agent.sqlite#abc").unwrap();
        assert_eq!(l.db, db_path("main"));
        assert_eq!(l.session.as_deref(), Some("abc"));
        assert_eq!(Locator::parse(&db_path("main")).unwrap().session, None);
        assert!(Locator::parse(".openclaw/agents/main/agent/other.sqlite#x").is_err());
        assert!(Locator::parse(&format!("{}#", db_path("main"))).is_err());
    }
}
