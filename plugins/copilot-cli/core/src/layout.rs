//! Where Copilot CLI keeps sessions under a home directory.
//!
//! ```text
//! ~/.copilot/session-state/<sessionId>.jsonl             the event log (older builds: flat files)
//! ~/.copilot/session-state/<sessionId>/events.jsonl      the event log
//! ~/.copilot/session-state/<sessionId>/workspace.yaml    id, cwd, name, summary, created/updated
//! ~/.copilot/session-state/<sessionId>/checkpoints/      compaction checkpoints (index.md, NNN-*.md)
//! ~/.copilot/session-state/<sessionId>/rewind-file-snapshots/, files/, plan.md
//! ~/.copilot/session-state/.session-operation-locks/     lock files
//! ~/.copilot/session-store.db                            the CLI's index (not read or written: it indexes what it resumes)
//! ```

use trajhost_codec_sdk::CodecError;
pub use trajhost_codec_sdk::paths::join;

/// Session directories, relative to the home.
pub const SESSION_STATE: &str = ".copilot/session-state";
/// The event log inside a session directory.
pub const EVENTS: &str = "events.jsonl";
/// The workspace metadata inside a session directory.
pub const WORKSPACE: &str = "workspace.yaml";
/// Extension of a flat event log.
pub const JSONL: &str = ".jsonl";

/// How a session's event log lies under `session-state/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `<sessionId>/events.jsonl` beside `workspace.yaml` (current builds).
    Dirs,
    /// `<sessionId>.jsonl`, nothing beside it (older builds).
    Flat,
}

impl Layout {
    /// The glob of event logs, relative to the home.
    pub fn session_glob(self) -> String {
        match self {
            Layout::Dirs => format!("{SESSION_STATE}/*/{EVENTS}"),
            Layout::Flat => format!("{SESSION_STATE}/*{JSONL}"),
        }
    }
}

/// The paths of one session, relative to the home.
#[derive(Debug, Clone)]
pub struct SessionPaths {
    pub locator: String,
    /// `.copilot/session-state/<sessionId>` (none for a flat file).
    pub session_dir: Option<String>,
    /// The directory name: the session id.
    pub native_id: String,
}

impl SessionPaths {
    /// Splits a locator: `.copilot/session-state/<sessionId>/events.jsonl`
    /// ([`Layout::Dirs`]) or `.copilot/session-state/<sessionId>.jsonl`
    /// ([`Layout::Flat`]).
    pub fn from_locator(layout: Layout, locator: &str) -> Result<SessionPaths, CodecError> {
        let bad = |why: &str| CodecError::NotFound(format!("locator {locator:?}: {why}"));
        let rest = trajhost_codec_sdk::paths::below_root(locator, SESSION_STATE, "not under .copilot/session-state")?;
        let id = match layout {
            Layout::Dirs => match rest.split_once('/') {
                Some((id, EVENTS)) => id,
                _ => return Err(bad("not <sessionId>/events.jsonl")),
            },
            Layout::Flat => match rest.strip_suffix(JSONL) {
                Some(id) if !id.contains('/') => id,
                _ => return Err(bad("not <sessionId>.jsonl")),
            },
        };
        if !is_session_dir(id) {
            return Err(bad("not a session directory"));
        }
        let session_dir = match layout {
            Layout::Dirs => Some(join(SESSION_STATE, id)),
            Layout::Flat => None,
        };
        Ok(SessionPaths { locator: locator.to_string(), session_dir, native_id: id.to_string() })
    }

    /// Settles the session id with the one `session.start` carries: a
    /// directory named by a UUID (as Copilot CLI names them) wins, `true`
    /// when the content disagrees; any other name gives way.
    pub fn identify(&mut self, content_id: Option<&str>) -> bool {
        trajhost_codec_sdk::discovery::identify_uuid_named(&mut self.native_id, content_id)
    }

    /// `<session-dir>/workspace.yaml`; a flat file has none.
    pub fn workspace(&self) -> Option<String> {
        self.session_dir.as_deref().map(|dir| join(dir, WORKSPACE))
    }
}

/// Session directories (and flat files) are named by the session id;
/// dot-directories (`.session-operation-locks`) are not sessions.
pub fn is_session_dir(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\', '\0'])
}
