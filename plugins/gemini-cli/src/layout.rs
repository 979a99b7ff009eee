//! Where Gemini CLI keeps sessions under a home directory.
//!
//! ```text
//! ~/.gemini/projects.json                                   {"projects": {<root>: <slug>}}
//! ~/.gemini/tmp/<slug>/.project_root                        the project root path
//! ~/.gemini/tmp/<slug>/chats/session-<time>-<id8>.jsonl     main session
//! ~/.gemini/tmp/<slug>/chats/<parentSessionId>/<id>.jsonl   subagent session
//! ~/.gemini/tmp/<slug>/tool-outputs/session-<id>/<file>.txt full output of a truncated tool result
//! ~/.gemini/tmp/<slug>/chats/session-*.json                 legacy single-JSON sessions (the gemini-cli-json codec)
//! ```
//! Older builds named `<slug>` by the SHA-256 of the project root.

use trajhost_codec_sdk::CodecError;
pub use trajhost_codec_sdk::paths::{join, plain_name as plain_file_name};

/// Project directories, relative to the home.
pub const TMP_ROOT: &str = ".gemini/tmp";
pub use trajhost_gemini_cli_core::project::PROJECTS_JSON;
/// Sessions directory inside a project directory.
pub const CHATS: &str = "chats";
/// Marker file holding the project root inside a project directory.
pub const PROJECT_ROOT_FILE: &str = ".project_root";
/// Spilled tool outputs inside a project directory.
pub const TOOL_OUTPUTS: &str = "tool-outputs";
/// Prefix of main session file names.
pub const SESSION_PREFIX: &str = "session-";
/// Extension of session files.
pub const JSONL: &str = ".jsonl";
/// Extension of legacy single-JSON session files.
pub const LEGACY_JSON: &str = ".json";

/// The paths around one main session file, all relative to the home.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SessionPaths {
    /// The session file, as the host passed it.
    pub locator: String,
    /// `.gemini/tmp/<slug>`.
    pub project_dir: String,
    /// `.gemini/tmp/<slug>/chats`.
    pub chats_dir: String,
}

impl SessionPaths {
    /// Splits a locator `.gemini/tmp/<slug>/chats/session-*.jsonl`.
    pub fn from_locator(locator: &str) -> Result<SessionPaths, CodecError> {
        let bad = |why: &str| CodecError::NotFound(format!("locator {locator:?}: {why}"));
        let rest = trajhost_codec_sdk::paths::below_root(locator, TMP_ROOT, "not under .gemini/tmp")?;
        let parts: Vec<&str> = rest.split('/').collect();
        let [slug, chats, file] = parts.as_slice() else {
            return Err(bad("not .gemini/tmp/<project>/chats/<file>"));
        };
        // Gemini CLI names them `session-*.jsonl`; a renamed copy is read
        // all the same (the header names the session).
        if *chats != CHATS || !file.ends_with(JSONL) || file.len() == JSONL.len() {
            return Err(bad("not a chats/*.jsonl file"));
        }
        let project_dir = join(TMP_ROOT, slug);
        Ok(SessionPaths { locator: locator.to_string(), chats_dir: join(&project_dir, CHATS), project_dir })
    }

    /// `chats/<sessionId>`: where the session's subagent files live.
    pub fn subagents_dir(&self, session_id: &str) -> Option<String> {
        plain_file_name(session_id).then(|| join(&self.chats_dir, session_id))
    }

    /// The spilled output a truncated tool result names by its absolute
    /// path in the original home: `<anything>/tool-outputs/<rest>` becomes
    /// `<project>/tool-outputs/<rest>` when `<rest>` is one or two plain
    /// names.
    pub fn spilled_output(&self, recorded_path: &str) -> Option<String> {
        let marker = format!("/{TOOL_OUTPUTS}/");
        let start = recorded_path.rfind(&marker)? + marker.len();
        let rest = recorded_path[start..].trim();
        let segments: Vec<&str> = rest.split('/').collect();
        if segments.is_empty() || segments.len() > 2 || !segments.iter().all(|s| plain_file_name(s)) {
            return None;
        }
        Some(join(&join(&self.project_dir, TOOL_OUTPUTS), rest))
    }
}
