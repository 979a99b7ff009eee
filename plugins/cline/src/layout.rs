//! Where the Cline CLI keeps sessions.
//!
//! `~/.cline/data/sessions/<id>/` holds `<id>.json` (the manifest: cwd,
//! model, times, title, version), `<id>.messages.json` (the transcript, one
//! JSON document) and, after a compaction, `<id>.compaction.json`. The
//! index `~/.cline/data/db/sessions.db` (table `sessions`) lists them. A
//! session's locator is its messages file.

use trajhost_codec_sdk::CodecError;
pub use trajhost_codec_sdk::paths::join;

pub const SESSIONS_DIR: &str = ".cline/data/sessions";
pub const INDEX_DB: &str = ".cline/data/db/sessions.db";
pub const MESSAGES_SUFFIX: &str = ".messages.json";
pub const MANIFEST_SUFFIX: &str = ".json";
pub const COMPACTION_SUFFIX: &str = ".compaction.json";

/// The `session-globs` of `info`.
pub const SESSION_GLOBS: &[&str] = &[".cline/data/sessions/*/*.messages.json"];

/// The files of one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionPaths {
    pub id: String,
    pub dir: String,
    pub messages: String,
    pub manifest: String,
}

impl SessionPaths {
    pub fn of(id: &str) -> SessionPaths {
        let dir = format!("{SESSIONS_DIR}/{id}");
        SessionPaths {
            id: id.to_string(),
            messages: format!("{dir}/{id}{MESSAGES_SUFFIX}"),
            manifest: format!("{dir}/{id}{MANIFEST_SUFFIX}"),
            dir,
        }
    }

    /// The paths of the session whose messages file is `locator`.
    pub fn from_locator(locator: &str) -> Result<SessionPaths, CodecError> {
        let bad = || CodecError::NotFound(format!("{locator}: not a Cline <id>/<id>.messages.json path"));
        let (dir, name) = locator.rsplit_once('/').ok_or_else(bad)?;
        let id = name.strip_suffix(MESSAGES_SUFFIX).filter(|id| !id.is_empty()).ok_or_else(bad)?;
        if locator.split('/').any(|s| s == "..") || !dir.ends_with(&format!("/{id}")) && dir != id {
            return Err(bad());
        }
        Ok(SessionPaths {
            id: id.to_string(),
            dir: dir.to_string(),
            messages: locator.to_string(),
            manifest: format!("{dir}/{id}{MANIFEST_SUFFIX}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locators() {
        let p = SessionPaths::of("1796013198212_v0vps");
        assert_eq!(p.messages, ".cline/data/sessions/1796013198212_v0vps/1796013198212_v0vps.messages.json");
        assert_eq!(SessionPaths::from_locator(&p.messages).unwrap(), p);
        assert!(SessionPaths::from_locator(".cline/data/sessions/a/b.messages.json").is_err());
        assert!(SessionPaths::from_locator(".cline/data/sessions/a/a.json").is_err());
    }
}
