//! `sniff`: is a loose JSONL file a Claude Code transcript?
//!
//! Yes when a complete line in its head carries `sessionId` and a
//! conversational `type`, with Claude Code's message shape: `message.content`.
//! Qwen Code writes the same envelope with Gemini's `message.parts`, so a
//! `parts` message without `content` says no.

use serde_json::Value;
use trajhost_codec_sdk::Sniffed;

use crate::head::Head;

pub fn sniff(_path: &str, bytes: &[u8]) -> Option<Sniffed> {
    let complete = &bytes[..memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1)];
    for line in complete.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let Ok(value) = serde_json::from_slice::<Value>(line) else { continue };
        if let Some(message) = value.get("message").and_then(Value::as_object)
            && message.contains_key("parts")
            && !message.contains_key("content")
        {
            return None;
        }
    }
    let head = Head::of_bytes(complete);
    if !head.has_conversation {
        return None;
    }
    let native_id = head.session_id.clone()?;
    Some(Sniffed { native_version: head.version, native_id: Some(native_id) })
}

/// Whether a file name's stem is a session id Claude Code would give
/// (`<uuid>.jsonl`). A renamed copy's id comes from its content instead.
pub fn is_session_id(stem: &str) -> bool {
    let b = stem.as_bytes();
    b.len() == 36
        && b.iter()
            .enumerate()
            .all(|(i, c)| if matches!(i, 8 | 13 | 18 | 23) { *c == b'-' } else { c.is_ascii_hexdigit() })
}
