//! Where Kimi Code keeps sessions under a home directory (beside Kimi CLI's
//! `~/.kimi`).
//!
//! ```text
//! ~/.kimi-code/sessions/wd_<slug>_<hash>/session_<uuid>/state.json               work dir, title, times, agents
//! ~/.kimi-code/sessions/wd_<slug>_<hash>/session_<uuid>/agents/main/wire.jsonl   the main agent's op journal
//! ~/.kimi-code/sessions/wd_<slug>_<hash>/session_<uuid>/agents/<id>/wire.jsonl   a subagent's (agent-0, …)
//! ```
//! A session is one agent's journal: the main agent's is the session
//! `<uuid>`, a subagent's the session `<uuid>:<agent id>`.

use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::paths::is_relative_below;
pub use trajhost_codec_sdk::paths::{join, plain_name};

pub const SESSIONS: &str = ".kimi-code/sessions";
pub const AGENTS: &str = "agents";
pub const WIRE: &str = "wire.jsonl";
pub const STATE: &str = "state.json";
/// Prefix of a work dir folder.
pub const WORK_DIR_PREFIX: &str = "wd_";
/// Prefix of a session folder.
pub const SESSION_PREFIX: &str = "session_";
/// The agent a session's own journal belongs to.
pub const MAIN_AGENT: &str = "main";

/// The paths of one agent's journal, relative to the home.
#[derive(Debug, Clone)]
pub struct SessionPaths {
    pub locator: String,
    /// `.kimi-code/sessions/<wd>/session_<uuid>`; `None` for a loose file.
    pub session_dir: Option<String>,
    /// The session uuid (the folder name without `session_`), else the
    /// file's name.
    pub session_id: String,
    /// The agent folder's name (`main` for a loose file).
    pub agent: String,
}

impl SessionPaths {
    /// A locator inside the layout, or a loose journal (a file the host
    /// sniffed: its name only).
    pub fn from_locator(locator: &str) -> Result<SessionPaths, CodecError> {
        let bad = |why: &str| CodecError::NotFound(format!("locator {locator:?}: {why}"));
        if !is_relative_below(locator) {
            return Err(bad("not a relative path below the home"));
        }
        if !locator.contains('/') {
            let stem = locator.strip_suffix(".jsonl").unwrap_or(locator);
            return Ok(SessionPaths {
                locator: locator.to_string(),
                session_dir: None,
                session_id: stem.to_string(),
                agent: MAIN_AGENT.to_string(),
            });
        }
        let agent_dir = locator
            .strip_suffix(WIRE)
            .and_then(|d| d.strip_suffix('/'))
            .ok_or_else(|| bad("not a Kimi Code wire.jsonl"))?;
        let (agents_dir, agent) = agent_dir.rsplit_once('/').ok_or_else(|| bad("no agent folder"))?;
        let session_dir = agents_dir
            .strip_suffix(AGENTS)
            .and_then(|d| d.strip_suffix('/'))
            .ok_or_else(|| bad("not under an agents folder"))?;
        let folder = session_dir.rsplit_once('/').map_or(session_dir, |(_, f)| f);
        let session_id = folder.strip_prefix(SESSION_PREFIX).filter(|s| !s.is_empty()).unwrap_or(folder);
        Ok(SessionPaths {
            locator: locator.to_string(),
            session_dir: Some(session_dir.to_string()),
            session_id: session_id.to_string(),
            agent: agent.to_string(),
        })
    }

    pub fn is_main(&self) -> bool {
        self.agent == MAIN_AGENT
    }

    /// The native id of agent `agent` of this session.
    pub fn agent_id(&self, agent: &str) -> String {
        if agent == MAIN_AGENT { self.session_id.clone() } else { format!("{}:{agent}", self.session_id) }
    }

    pub fn native_id(&self) -> String {
        self.agent_id(&self.agent)
    }

    pub fn state(&self) -> Option<String> {
        self.session_dir.as_ref().map(|d| join(d, STATE))
    }
}

#[cfg(test)]
mod tests {
    use super::SessionPaths;

    #[test]
    fn locators() {
        let p = SessionPaths::from_locator(".kimi-code/sessions/wd_p_1/session_abc/agents/agent-0/wire.jsonl").unwrap();
        assert_eq!((p.session_id.as_str(), p.agent.as_str(), p.native_id()), ("abc", "agent-0", "abc:agent-0".into()));
        assert_eq!(p.state().as_deref(), Some(".kimi-code/sessions/wd_p_1/session_abc/state.json"));
        let loose = SessionPaths::from_locator("main.jsonl").unwrap();
        assert_eq!((loose.native_id(), loose.session_dir), ("main".into(), None));
        assert!(SessionPaths::from_locator(".kimi-code/sessions/wd/session_a/wire.jsonl").is_err());
        assert!(SessionPaths::from_locator("../x/agents/main/wire.jsonl").is_err());
    }
}
