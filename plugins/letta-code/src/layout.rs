//! Where Letta Code's experimental local backend keeps conversations
//! (`LETTA_LOCAL_BACKEND_DIR`, default `~/.letta/lc-local-backend`).
//!
//! ```text
//! ~/.letta/lc-local-backend/conversations/<base64url(key)>/messages.jsonl   the transcript (main file)
//! ~/.letta/lc-local-backend/conversations/<base64url(key)>/manifest.json    {schema_version, message_format, created_at}
//! ~/.letta/lc-local-backend/conversations/<base64url(key)>/conversation.json {id, agent_id, summary, in_context_message_ids, …}
//! ~/.letta/lc-local-backend/conversations/<base64url(key)>/system-prompt.json
//! ~/.letta/lc-local-backend/agents/<base64url(agent id)>.json
//! ```
//! The key is `conversation:<id>` for named conversations and
//! `default:<agent id>` for an agent's default one.

use trajhost_codec_sdk::CodecError;

use trajhost_codec_sdk::paths::is_relative_below;
pub use trajhost_codec_sdk::paths::{join, plain_name};
use trajhost_codec_sdk::text::base64_decode;

pub const CONVERSATIONS: &str = ".letta/lc-local-backend/conversations";
pub const MESSAGES: &str = "messages.jsonl";
pub const MANIFEST: &str = "manifest.json";
pub const CONVERSATION: &str = "conversation.json";

#[derive(Debug, Clone)]
pub struct SessionPaths {
    pub locator: String,
    /// `.letta/lc-local-backend/conversations/<key folder>`.
    pub dir: String,
    /// The decoded conversation key without its `conversation:` prefix
    /// (`local-conv-1`, `default:agent-…`), else the folder name.
    pub native_id: String,
    /// The folder name is a base64url key (as Letta Code names them); a
    /// folder that is not (a renamed copy) is identified by its
    /// `conversation.json`.
    pub named_by_key: bool,
}

impl SessionPaths {
    pub fn from_locator(locator: &str) -> Result<SessionPaths, CodecError> {
        let bad = |why: &str| CodecError::NotFound(format!("locator {locator:?}: {why}"));
        if !is_relative_below(locator) {
            return Err(bad("not a relative path below the home"));
        }
        let dir = locator
            .strip_suffix(MESSAGES)
            .and_then(|d| d.strip_suffix('/'))
            .ok_or_else(|| bad("not a Letta Code messages.jsonl"))?;
        let folder = dir.rsplit_once('/').map_or(dir, |(_, f)| f);
        Ok(SessionPaths {
            locator: locator.to_string(),
            dir: dir.to_string(),
            native_id: native_id(folder),
            named_by_key: key_of(folder).is_some(),
        })
    }

    pub fn in_dir(&self, name: &str) -> String {
        join(&self.dir, name)
    }
}

/// The conversation key a folder name encodes, when it is one.
pub fn key_of(folder: &str) -> Option<String> {
    base64_decode(folder).and_then(|b| String::from_utf8(b).ok()).filter(|k| !k.is_empty() && !k.contains(['/', '\0']))
}

/// The conversation id a key folder names.
pub fn native_id(folder: &str) -> String {
    match key_of(folder) {
        Some(key) => key.strip_prefix("conversation:").map(str::to_string).unwrap_or(key),
        None => folder.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn conversation_ids_from_key_folders() {
        assert_eq!(super::native_id("Y29udmVyc2F0aW9uOmxvY2FsLWNvbnYtMQ"), "local-conv-1");
        assert_eq!(super::native_id("ZGVmYXVsdDphZ2VudC0x"), "default:agent-1");
        assert_eq!(super::native_id("not*base64"), "not*base64");
    }
}
