//! Where Letta Code keeps reflection transcripts.
//!
//! ```text
//! ~/.letta/transcripts/<agent id>/<conversation id>/transcript.jsonl   the transcript (the session's locator)
//! ~/.letta/transcripts/<agent id>/<conversation id>/state.json         reflection progress (schema_version, steps)
//! ~/.letta/transcripts/<agent id>/<conversation id>/state.json.lock    held while a step is appended
//! ~/.letta/transcripts/<agent id>/multi-reflection-payloads/…          payloads built from transcripts, not sessions
//! ```
//! Both ids are path segments with every character outside
//! `[A-Za-z0-9._-]` replaced by `_` (`sanitizePathSegment`).

use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::paths::is_relative_below;
pub use trajhost_codec_sdk::paths::join;

pub const ROOT: &str = ".letta/transcripts";
pub const TRANSCRIPT: &str = "transcript.jsonl";
pub const STATE: &str = "state.json";
/// The lock file `withFileLock` holds beside `state.json` while appending.
pub const STATE_LOCK: &str = "state.json.lock";
/// The agent-level folder of reflection payloads.
pub const PAYLOADS: &str = "multi-reflection-payloads";
pub const SESSION_GLOB: &str = ".letta/transcripts/*/*/transcript.jsonl";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionPaths {
    pub locator: String,
    /// The folder holding the transcript ("" for a loose file).
    pub dir: String,
    /// The conversation id: the folder name, else the file's stem.
    pub native_id: String,
    /// The agent id: the folder above, when the file sits in the layout.
    pub agent_id: Option<String>,
}

impl SessionPaths {
    /// Any relative `.jsonl` path (a sniffed loose copy is named by its file
    /// name alone).
    pub fn from_locator(locator: &str) -> Result<SessionPaths, CodecError> {
        let bad = |why: &str| CodecError::NotFound(format!("locator {locator:?}: {why}"));
        if !is_relative_below(locator) {
            return Err(bad("not a relative path below the home"));
        }
        let (dir, name) = locator.rsplit_once('/').unwrap_or(("", locator));
        let stem = name.strip_suffix(".jsonl").filter(|s| !s.is_empty()).ok_or_else(|| bad("not a .jsonl file"))?;
        let mut parts = dir.rsplit('/');
        let (native_id, agent_id) = match (name, parts.next().filter(|p| !p.is_empty())) {
            (TRANSCRIPT, Some(conversation)) => {
                (conversation.to_string(), parts.next().filter(|p| !p.is_empty()).map(str::to_string))
            }
            _ => (stem.to_string(), None),
        };
        let in_layout = dir.strip_prefix(ROOT).is_some_and(|rest| rest.starts_with('/'));
        Ok(SessionPaths {
            locator: locator.to_string(),
            dir: dir.to_string(),
            native_id,
            agent_id: agent_id.filter(|_| in_layout),
        })
    }

    pub fn in_dir(&self, name: &str) -> String {
        join(&self.dir, name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locators() {
        let p = SessionPaths::from_locator(".letta/transcripts/agent-1/conv-2/transcript.jsonl").unwrap();
        assert_eq!((p.native_id.as_str(), p.agent_id.as_deref()), ("conv-2", Some("agent-1")));
        assert_eq!(p.in_dir(STATE), ".letta/transcripts/agent-1/conv-2/state.json");
        let loose = SessionPaths::from_locator("copy.jsonl").unwrap();
        assert_eq!((loose.native_id.as_str(), loose.dir.as_str(), loose.agent_id), ("copy", "", None));
        assert!(SessionPaths::from_locator("../x/transcript.jsonl").is_err());
        assert!(SessionPaths::from_locator(".letta/transcripts/a/b/state.json").is_err());
    }
}
