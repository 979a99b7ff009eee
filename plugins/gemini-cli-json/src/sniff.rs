//! `sniff`: a loose file that is a legacy Gemini CLI session document.
//!
//! `JSON.stringify(conversation, null, 2)` puts `sessionId`, `projectHash`,
//! `startTime` and `lastUpdated` before `messages`, so the head shows them.
//! A JSON document (not JSON lines: the JSONL log's header line has no
//! `messages`) with `sessionId` and a `messages` array is claimed.

use trajhost_codec_sdk::Sniffed;

pub fn sniff(_path: &str, head: &[u8]) -> Option<Sniffed> {
    let text = std::str::from_utf8(head).or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()])).ok()?;
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if !trimmed.starts_with('{') {
        return None;
    }
    // A whole object on the first line: the document on one line, or the
    // header of JSON lines (then more lines follow).
    let first_line = trimmed.split('\n').next().unwrap_or("");
    if let Ok(serde_json::Value::Object(doc)) = serde_json::from_str::<serde_json::Value>(first_line)
        && (!trimmed[first_line.len()..].trim().is_empty() || !doc.get("messages").is_some_and(|m| m.is_array()))
    {
        return None;
    }
    let messages = string_key(trimmed, "\"messages\"")?;
    if !trimmed[messages..].trim_start().trim_start_matches(':').trim_start().starts_with('[') {
        return None;
    }
    let id = string_after(trimmed, "\"sessionId\"")?;
    if id.is_empty() {
        return None;
    }
    // Gemini's own shapes, not Hermes/Qwen look-alikes: a `type` of a
    // MessageRecord, or no message yet.
    let has_type = ["\"user\"", "\"gemini\"", "\"info\"", "\"model\""].iter().any(|t| trimmed.contains(t));
    let empty = trimmed[messages..].trim_start().trim_start_matches(':').trim_start().starts_with("[]");
    (has_type || empty).then_some(Sniffed { native_version: None, native_id: Some(id) })
}

/// Where `"key"` ends, followed by `:`.
fn string_key(text: &str, key: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find(key) {
        let end = from + at + key.len();
        if text[end..].trim_start().starts_with(':') {
            return Some(end);
        }
        from = end;
    }
    None
}

/// The string value of the first `"key": "value"`.
fn string_after(text: &str, key: &str) -> Option<String> {
    let end = string_key(text, key)?;
    let rest = text[end..].trim_start().strip_prefix(':')?.trim_start().strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_string())
}
