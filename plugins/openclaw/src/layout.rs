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

/// A parsed locator: the database and, after `#`, the session.
pub use trajhost_codec_sdk::discovery::DbLocator as Locator;

/// `locator` parsed (refused unless its database is a [`DB_NAME`] below the
/// home).
pub fn parse_locator(locator: &str) -> Result<Locator, CodecError> {
    Locator::parse(locator, DB_NAME, "an OpenClaw agent database")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_locators() {
        let l = parse_locator(".openclaw/agents/main/agent/openclaw-agent.sqlite#abc").unwrap();
        assert_eq!(l.db, db_path("main"));
        assert_eq!(l.session.as_deref(), Some("abc"));
        assert_eq!(parse_locator(&db_path("main")).unwrap().session, None);
        assert!(parse_locator(".openclaw/agents/main/agent/other.sqlite#x").is_err());
        assert!(parse_locator(&format!("{}#", db_path("main"))).is_err());
    }
}
