//! Where Letta Code's experimental local backend keeps conversations
//! (`LETTA_LOCAL_BACKEND_DIR`, default `~/.letta/lc-local-backend`).
//!
//! ```text
//! ~/.letta/lc-local-backend/conversations/<base64url(key)>/messages.jsonl   the transcript (main file)
//! ~/.letta/lc-local-backend/conversations/<base64url(key)>/manifest.json    {schema_version, message_format, provider_stack, created_at}
//! ~/.letta/lc-local-backend/conversations/<base64url(key)>/conversation.json {id, agent_id, summary, in_context_message_ids, …}
//! ~/.letta/lc-local-backend/conversations/<base64url(key)>/system-prompt.json
//! ~/.letta/lc-local-backend/agents/<base64url(agent id)>.json
//! ```
//! The key is `conversation:<id>` for named conversations and
//! `default:<agent id>` for an agent's default one.

use trajhost_codec_sdk::CodecError;

use trajhost_codec_sdk::paths::folder_of;
pub use trajhost_codec_sdk::paths::{join, plain_name};
use trajhost_codec_sdk::text::base64_decode;

/// The local backend's storage directory.
pub const STORE: &str = ".letta/lc-local-backend";
pub const CONVERSATIONS: &str = ".letta/lc-local-backend/conversations";
pub const AGENTS: &str = ".letta/lc-local-backend/agents";
/// Letta Code's user settings (`agents[]`: per-agent preferences, keyed by
/// `agentId` and `baseUrl`).
pub const SETTINGS: &str = ".letta/settings.json";
pub const MESSAGES: &str = "messages.jsonl";
pub const MANIFEST: &str = "manifest.json";
pub const CONVERSATION: &str = "conversation.json";
/// `manifest.json` `provider_stack` of both transcript formats
/// ([`crate::Format`]).
pub const PROVIDER_STACK: &str = "pi-ai";
/// Prefix of the conversation ids this codec writes (`conv-<uuid>`, as the
/// Letta server names them): not Letta Code's local `local-conv-<n>`, whose
/// numeric suffix the local backend counts on to number new conversations.
pub const CONVERSATION_ID_PREFIX: &str = "conv-";
/// Prefix of local agent ids (`agent-local-<uuid>`).
pub const AGENT_ID_PREFIX: &str = "agent-local-";

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
        let dir = folder_of(locator, MESSAGES, "a Letta Code messages.jsonl")?;
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

/// The folder of a named conversation: `base64url("conversation:<id>")`
/// without padding (Letta Code's `encodePathSegment`).
pub fn conversation_folder(id: &str) -> String {
    base64url(format!("conversation:{id}").as_bytes())
}

/// `conversations/<folder>/<name>` of conversation `id`.
pub fn conversation_file(id: &str, name: &str) -> String {
    join(&join(CONVERSATIONS, &conversation_folder(id)), name)
}

/// `agents/<base64url(agent id)>.json`.
pub fn agent_file(agent_id: &str) -> String {
    join(AGENTS, &format!("{}.json", base64url(agent_id.as_bytes())))
}

/// A conversation id this codec accepts for a new conversation: a plain
/// name (it becomes part of a folder name and of the resume command), not
/// an agent's `default` one.
pub fn is_conversation_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id != "default"
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// base64url without padding (RFC 4648 §5).
pub fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
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

    #[test]
    fn folders_of_conversations() {
        assert_eq!(super::conversation_folder("local-conv-1"), "Y29udmVyc2F0aW9uOmxvY2FsLWNvbnYtMQ");
        assert_eq!(
            super::base64url(b"agent-local-1001d2b9-429f-4dfa-b766-d55029c96c5c"),
            "YWdlbnQtbG9jYWwtMTAwMWQyYjktNDI5Zi00ZGZhLWI3NjYtZDU1MDI5Yzk2YzVj"
        );
        for n in 0..7 {
            let bytes: Vec<u8> = (0..n).map(|i| 250 - i as u8).collect();
            assert_eq!(trajhost_codec_sdk::text::base64_decode(&super::base64url(&bytes)), Some(bytes));
        }
        assert!(super::is_conversation_id("conv-0193a1b2"));
        assert!(!super::is_conversation_id("default"));
        assert!(!super::is_conversation_id("a/b"));
    }
}
