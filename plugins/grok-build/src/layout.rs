//! Where Grok Build keeps sessions under a home directory (`GROK_HOME`
//! defaults to `~/.grok`).
//!
//! ```text
//! ~/.grok/sessions/<percent-encoded cwd>/<uuidv7>/chat_history.jsonl  model context (main file)
//! ~/.grok/sessions/<percent-encoded cwd>/<uuidv7>/updates.jsonl       ACP session/update journal
//! ~/.grok/sessions/<percent-encoded cwd>/<uuidv7>/summary.json        id, cwd, times, title, model
//! ~/.grok/sessions/<percent-encoded cwd>/<uuidv7>/{events.jsonl, usage.json, signals.json,
//!     rewind_points.jsonl, prompt_context.json, system_prompt.txt, tool_definitions.json,
//!     terminal/<call id>.log, subagents/<id>/meta.json, *.lock}
//! ~/.grok/sessions/<percent-encoded cwd>/prompt_history.jsonl         input history (not a session)
//! ~/.grok/sessions/session_search.sqlite                              search index (not a session)
//! ```
//! A subagent runs as a session of its own (its `summary.json` names the
//! parent); an encoded cwd longer than 255 bytes becomes a slug with a hash.

use trajhost_codec_sdk::CodecError;

use trajhost_codec_sdk::paths::{bad_locator, folder_of};
pub use trajhost_codec_sdk::paths::{join, plain_name};

pub const SESSIONS: &str = ".grok/sessions";
pub const CHAT_HISTORY: &str = "chat_history.jsonl";
pub const UPDATES: &str = "updates.jsonl";
pub const SUMMARY: &str = "summary.json";
/// Per cwd folder: the prompt input history, no session.
pub const PROMPT_HISTORY: &str = "prompt_history.jsonl";
/// In the sessions root: the CLI's search index, no session.
pub const SESSION_SEARCH: &str = "session_search.sqlite";

#[derive(Debug, Clone)]
pub struct SessionPaths {
    pub locator: String,
    /// `.grok/sessions/<cwd folder>/<id>`.
    pub session_dir: String,
    /// The percent-encoded cwd (or its slug).
    pub cwd_folder: String,
    /// The folder name: the session id.
    pub native_id: String,
}

impl SessionPaths {
    pub fn from_locator(locator: &str) -> Result<SessionPaths, CodecError> {
        let session_dir = folder_of(locator, CHAT_HISTORY, "a Grok Build chat_history.jsonl")?;
        let (parent, native_id) =
            session_dir.rsplit_once('/').ok_or_else(|| bad_locator(locator, "no session folder"))?;
        let cwd_folder = parent.rsplit_once('/').map_or(parent, |(_, f)| f);
        Ok(SessionPaths {
            locator: locator.to_string(),
            session_dir: session_dir.to_string(),
            cwd_folder: cwd_folder.to_string(),
            native_id: native_id.to_string(),
        })
    }

    /// Settles the session id with `summary.json`'s `info.id`: a folder
    /// named by a UUID (as Grok Build names them) wins, `true` when the
    /// summary disagrees; any other name gives way.
    pub fn identify(&mut self, content_id: Option<&str>) -> bool {
        trajhost_codec_sdk::discovery::identify_uuid_named(&mut self.native_id, content_id)
    }

    pub fn in_session(&self, name: &str) -> String {
        join(&self.session_dir, name)
    }
}
