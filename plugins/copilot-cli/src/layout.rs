//! Where Copilot CLI keeps sessions under a home directory.
//!
//! ```text
//! ~/.copilot/session-state/<sessionId>/events.jsonl      the event log
//! ~/.copilot/session-state/<sessionId>/workspace.yaml    id, cwd, name, summary, created/updated
//! ~/.copilot/session-state/<sessionId>/checkpoints/      compaction checkpoints (index.md, NNN-*.md)
//! ~/.copilot/session-state/<sessionId>/rewind-file-snapshots/, files/, plan.md
//! ~/.copilot/session-state/.session-operation-locks/     lock files
//! ~/.copilot/session-store.db                            the CLI's own index (not read)
//! ```

use trajhost_codec_sdk::CodecError;
pub use trajhost_codec_sdk::paths::join;

/// Session directories, relative to the home.
pub const SESSION_STATE: &str = ".copilot/session-state";
/// The event log inside a session directory.
pub const EVENTS: &str = "events.jsonl";
/// The workspace metadata inside a session directory.
pub const WORKSPACE: &str = "workspace.yaml";

/// The paths of one session, relative to the home.
#[derive(Debug, Clone)]
pub struct SessionPaths {
    pub locator: String,
    /// `.copilot/session-state/<sessionId>`.
    pub session_dir: String,
    /// The directory name: the session id.
    pub native_id: String,
}

impl SessionPaths {
    /// Splits a locator `.copilot/session-state/<sessionId>/events.jsonl`.
    pub fn from_locator(locator: &str) -> Result<SessionPaths, CodecError> {
        let bad = |why: &str| CodecError::NotFound(format!("locator {locator:?}: {why}"));
        if locator.starts_with('/') || locator.split('/').any(|c| c == ".." || c == "." || c.is_empty()) {
            return Err(bad("not a relative path below the home"));
        }
        let rest = locator
            .strip_prefix(SESSION_STATE)
            .and_then(|r| r.strip_prefix('/'))
            .ok_or_else(|| bad("not under .copilot/session-state"))?;
        let Some((id, EVENTS)) = rest.split_once('/') else {
            return Err(bad("not <sessionId>/events.jsonl"));
        };
        if !is_session_dir(id) {
            return Err(bad("not a session directory"));
        }
        Ok(SessionPaths {
            locator: locator.to_string(),
            session_dir: join(SESSION_STATE, id),
            native_id: id.to_string(),
        })
    }

    /// Settles the session id with the one `session.start` carries: a
    /// directory named by a UUID (as Copilot CLI names them) wins, `true`
    /// when the content disagrees; any other name gives way.
    pub fn identify(&mut self, content_id: Option<&str>) -> bool {
        let is_id = trajhost_codec_sdk::paths::is_uuid(&self.native_id);
        let (id, mismatch) = trajhost_codec_sdk::discovery::identify(&self.native_id, is_id, content_id);
        self.native_id = id;
        mismatch
    }

    /// `<session-dir>/workspace.yaml`.
    pub fn workspace(&self) -> String {
        join(&self.session_dir, WORKSPACE)
    }
}

/// Session directories are named by the session id; dot-directories
/// (`.session-operation-locks`) are not sessions.
pub fn is_session_dir(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\', '\0'])
}
