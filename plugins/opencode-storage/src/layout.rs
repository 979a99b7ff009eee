//! The storage tree, locators and where a session's files are.
//!
//! A session's locator is its session file,
//! `.local/share/opencode/storage/session/<projectID>/<sessionID>.json`
//! (before 0.6, `.local/share/opencode/project/<slug>/storage/session/info/<sessionID>.json`).
//! The tree's root is what precedes `session/<projectID>/`, so a tree copied
//! elsewhere under the home is read the same way.

use trajhost_codec_sdk::CodecError;
pub use trajhost_codec_sdk::paths::{join, plain_name};

/// The tree, relative to the home.
pub const STORAGE: &str = ".local/share/opencode/storage";
/// Before 0.6 each project had a tree of its own:
/// `.local/share/opencode/project/<project slug>/storage`.
pub const PROJECTS: &str = ".local/share/opencode/project";
/// The tree inside a [`PROJECTS`] directory.
pub const PROJECT_STORAGE: &str = "storage";
/// Session files, per project.
pub const SESSION: &str = "session";
/// Message files, per session.
pub const MESSAGE: &str = "message";
/// Part files, per message.
pub const PART: &str = "part";
/// Session files in a [`PROJECTS`] tree (`session/info/<sessionID>.json`).
pub const INFO: &str = "info";
/// Project files (`project/<projectID>.json`, `worktree`: the project root).
pub const PROJECT: &str = "project";
/// Extension of every file of the tree.
pub const JSON: &str = ".json";
/// The oldest trees' directories under `session/`: `session/info/<id>.json`
/// is a session file like any project's; these two hold directories.
pub const OLD_MESSAGE_DIRS: [&str; 2] = [MESSAGE, PART];

/// The paths around one session file.
#[derive(Debug, Clone)]
pub struct SessionPaths {
    pub locator: String,
    /// The tree's root (`…/storage`); `None` for a loose session file.
    pub root: Option<String>,
    /// The file name without `.json`.
    pub stem: String,
}

impl SessionPaths {
    pub fn from_locator(locator: &str) -> Result<SessionPaths, CodecError> {
        if locator.starts_with('/') || locator.split('/').any(|c| c.is_empty() || c == "." || c == "..") {
            return Err(CodecError::NotFound(format!("locator {locator:?}: not a relative path below the home")));
        }
        let Some(stem) = file_stem(locator) else {
            return Err(CodecError::NotFound(format!("locator {locator:?}: not a session file (<id>.json)")));
        };
        let segments: Vec<&str> = locator.split('/').collect();
        let n = segments.len();
        let root = (n >= 3 && segments[n - 3] == SESSION).then(|| segments[..n - 3].join("/"));
        Ok(SessionPaths { locator: locator.to_string(), root, stem: stem.to_string() })
    }

    fn under(&self, path: &str) -> Option<String> {
        let root = self.root.as_deref()?;
        Some(if root.is_empty() { path.to_string() } else { join(root, path) })
    }

    /// Where the session's messages may be: `message/<id>`, by the content's
    /// id, then the file name's; the oldest trees' `session/message/<id>`.
    pub fn message_dirs(&self, session_id: &str) -> Vec<String> {
        let mut ids = vec![session_id];
        if self.stem != session_id {
            ids.push(&self.stem);
        }
        let mut out = Vec::new();
        for id in ids.iter().filter(|id| plain_name(id)) {
            out.extend(self.under(&format!("{MESSAGE}/{id}")));
            out.extend(self.under(&format!("{SESSION}/{MESSAGE}/{id}")));
        }
        out
    }

    /// Where a message's parts may be: `part/<messageID>` (content id, then
    /// file name), the oldest trees' `session/part/<sessionID>/<messageID>`.
    pub fn part_dirs(&self, session_id: &str, message_id: &str, message_stem: &str) -> Vec<String> {
        let mut ids = vec![message_id];
        if message_stem != message_id {
            ids.push(message_stem);
        }
        let mut out = Vec::new();
        for id in ids.iter().filter(|id| plain_name(id)) {
            out.extend(self.under(&format!("{PART}/{id}")));
            if plain_name(session_id) {
                out.extend(self.under(&format!("{SESSION}/{PART}/{session_id}/{id}")));
            }
        }
        out
    }

    /// `project/<projectID>.json`.
    pub fn project_file(&self, project_id: &str) -> Option<String> {
        plain_name(project_id).then(|| self.under(&format!("{PROJECT}/{project_id}{JSON}"))).flatten()
    }
}

/// Whether a version (`major.minor.patch`, anything after a `-` or `+`
/// ignored) is at least `min`; false for text that is no version.
pub fn version_at_least(version: &str, min: (u64, u64, u64)) -> bool {
    let core = version.trim().trim_start_matches('v').split(['-', '+']).next().unwrap_or("");
    let mut numbers = core.split('.').map(|n| n.parse::<u64>().ok());
    match (numbers.next().flatten(), numbers.next().unwrap_or(Some(0)), numbers.next().unwrap_or(Some(0))) {
        (Some(major), Some(minor), Some(patch)) => (major, minor, patch) >= min,
        _ => false,
    }
}

/// `<stem>` of a path ending in `<stem>.json`.
pub fn file_stem(path: &str) -> Option<&str> {
    let name = path.rsplit('/').next()?;
    name.strip_suffix(JSON).filter(|s| !s.is_empty())
}
