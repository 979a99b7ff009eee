//! `sniff`: a loose file that is an Auggie session document.
//!
//! `JSON.stringify(session, null, 2)` puts `sessionId`, `created` and
//! `modified` before `chatHistory`, so the head shows them. A JSON object
//! with a `sessionId` string and a `chatHistory` array whose entries hold an
//! `exchange` (or no entry yet) is claimed.

use trajhost_codec_sdk::Sniffed;

pub fn sniff(_path: &str, head: &[u8]) -> Option<Sniffed> {
    let text = std::str::from_utf8(head).or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()])).ok()?;
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if !trimmed.starts_with('{') {
        return None;
    }
    let history = value_start(trimmed, "\"chatHistory\"")?;
    let rest = &trimmed[history..];
    if !rest.starts_with('[') {
        return None;
    }
    let empty = rest[1..].trim_start().starts_with(']');
    if !empty && !rest.contains("\"exchange\"") {
        return None;
    }
    let id_at = value_start(trimmed, "\"sessionId\"")?;
    let id = trimmed[id_at..].strip_prefix('"')?;
    let id = &id[..id.find('"')?];
    (!id.is_empty()).then(|| Sniffed { native_version: None, native_id: Some(id.to_string()) })
}

/// Where the value of the first `"key":` starts.
fn value_start(text: &str, key: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find(key) {
        let end = from + at + key.len();
        let after = text[end..].trim_start();
        if let Some(value) = after.strip_prefix(':') {
            let value = value.trim_start();
            return Some(text.len() - value.len());
        }
        from = end;
    }
    None
}
