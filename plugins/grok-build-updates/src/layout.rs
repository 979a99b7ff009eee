//! Where the journal-only sessions lie (the same folders as every Grok
//! Build session; `GROK_HOME` defaults to `~/.grok`).
//!
//! ```text
//! ~/.grok/sessions/<percent-encoded cwd>/<uuidv7>/updates.jsonl   ACP session/update journal (main file)
//! ~/.grok/sessions/<percent-encoded cwd>/<uuidv7>/summary.json    id, cwd, times, title, model
//! ```
//! A session folder that also has `chat_history.jsonl` belongs to the main
//! `grok-build` codec.

use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::paths::is_relative_below;
pub use trajhost_codec_sdk::paths::{join, plain_name};

pub const SESSIONS: &str = ".grok/sessions";
pub const UPDATES: &str = "updates.jsonl";
pub const CHAT_HISTORY: &str = "chat_history.jsonl";
pub const SUMMARY: &str = "summary.json";

#[derive(Debug, Clone)]
pub struct SessionPaths {
    pub locator: String,
    /// `.grok/sessions/<cwd folder>/<id>`; `None` for a loose journal.
    pub session_dir: Option<String>,
    /// The percent-encoded cwd (or its slug).
    pub cwd_folder: Option<String>,
    /// The folder name (the session id), else the file's stem.
    pub native_id: String,
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
            return Ok(SessionPaths {
                locator: locator.to_string(),
                session_dir: None,
                cwd_folder: None,
                native_id: locator.strip_suffix(".jsonl").unwrap_or(locator).to_string(),
            });
        }
        let session_dir = locator
            .strip_suffix(UPDATES)
            .and_then(|d| d.strip_suffix('/'))
            .ok_or_else(|| bad("not a Grok Build updates.jsonl"))?;
        let (parent, native_id) = session_dir.rsplit_once('/').ok_or_else(|| bad("no session folder"))?;
        let (root, cwd_folder) = parent.rsplit_once('/').ok_or_else(|| bad("no cwd folder"))?;
        if root != SESSIONS {
            return Err(bad("not under .grok/sessions/<cwd>/<id>/"));
        }
        Ok(SessionPaths {
            locator: locator.to_string(),
            session_dir: Some(session_dir.to_string()),
            cwd_folder: Some(cwd_folder.to_string()),
            native_id: native_id.to_string(),
        })
    }

    pub fn summary(&self) -> Option<String> {
        self.session_dir.as_ref().map(|d| join(d, SUMMARY))
    }
}
