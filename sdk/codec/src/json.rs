//! Parsing a native record from its bytes, and lenient field access on
//! `serde_json::Value`s, for stores whose shapes vary between versions.

use serde_json::Value;
use serde_json::value::RawValue;

/// Parses one JSON document (a JSONL line, a file) into `T`, borrowing from
/// `bytes`.
///
/// The bytes are checked as UTF-8 once, as a whole (`simdutf8`: SIMD in a
/// guest built with `+simd128`), and then parsed as a `str`, which serde_json
/// does not check again string by string. `serde_json::from_slice` checks
/// every string it meets, which cost a fifth of a Claude Code read in wasm.
/// Bytes that are not UTF-8 go to `from_slice`, so errors are the same.
pub fn parse<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> serde_json::Result<T> {
    match as_str(bytes) {
        Some(text) => serde_json::from_str(text),
        None => serde_json::from_slice(bytes),
    }
}

/// `bytes` as a `str` when they are UTF-8: `std::str::from_utf8`, with SIMD
/// where the target has it.
pub fn as_str(bytes: &[u8]) -> Option<&str> {
    simdutf8::basic::from_utf8(bytes).ok()
}

/// The elements of a document's array borrowed from `bytes` (its
/// `messages`, `history`), each with its byte span (offset, length) in them.
pub fn raw_spans<'a>(bytes: &[u8], raws: &[&'a RawValue]) -> Vec<(&'a RawValue, u64, u64)> {
    let base = bytes.as_ptr() as usize;
    raws.iter()
        .map(|raw| {
            let text = raw.get();
            (*raw, (text.as_ptr() as usize).saturating_sub(base) as u64, text.len() as u64)
        })
        .collect()
}

/// The session id in the head of a session document that a harness writes
/// whole (`JSON.stringify(session, null, 2)`), for `sniff`: the `id_key`
/// string of a JSON object whose `list_key` array is empty or mentions
/// `item_key` (the members before the list are in the head; the list may be
/// cut off). None when the head is not such a document.
pub fn document_id_in_head(head: &[u8], id_key: &str, list_key: &str, item_key: &str) -> Option<String> {
    let text = std::str::from_utf8(head).or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()])).ok()?;
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if !trimmed.starts_with('{') {
        return None;
    }
    let list = value_start(trimmed, list_key)?;
    let rest = &trimmed[list..];
    if !rest.starts_with('[') {
        return None;
    }
    let empty = rest[1..].trim_start().starts_with(']');
    if !empty && !rest.contains(&format!("\"{item_key}\"")) {
        return None;
    }
    let id_at = value_start(trimmed, id_key)?;
    let id = trimmed[id_at..].strip_prefix('"')?;
    let id = &id[..id.find('"')?];
    (!id.is_empty()).then(|| id.to_string())
}

/// Where the value of the first `"key":` in `text` starts.
fn value_start(text: &str, key: &str) -> Option<usize> {
    let quoted = format!("\"{key}\"");
    let mut from = 0;
    while let Some(at) = text[from..].find(&quoted) {
        let end = from + at + quoted.len();
        if let Some(value) = text[end..].trim_start().strip_prefix(':') {
            return Some(text.len() - value.trim_start().len());
        }
        from = end;
    }
    None
}

/// A string field.
pub fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A non-empty string field.
pub fn text_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    str_of(v, key).filter(|s| !s.is_empty())
}

/// The text of a message's `content`: a string, or the `text` of its
/// `{type: "text"}` parts joined by newlines; empty for anything else.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter(|p| str_of(p, "type") == Some("text"))
            .filter_map(|p| str_of(p, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// A non-negative whole-number field (token counts; `12.0` counts); absent
/// when it is not one.
pub fn count_of(v: &Value, key: &str) -> Option<u64> {
    match v.get(key)? {
        Value::Number(n) => {
            n.as_u64().or_else(|| n.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0).map(|f| f as u64))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_head_gives_its_id_when_its_list_is_empty_or_holds_items() {
        let id = |head: &str| document_id_in_head(head.as_bytes(), "sessionId", "history", "message");
        let pretty = "{\n  \"sessionId\": \"abc\",\n  \"history\": [\n    {\n      \"message\": {\"role\": \"us";
        assert_eq!(id(pretty).as_deref(), Some("abc"), "a head cut inside the list");
        assert_eq!(id("\u{feff}{\"history\": [ ], \"sessionId\": \"x\"}").as_deref(), Some("x"));
        assert_eq!(id("{\"sessionId\": \"abc\", \"history\": [{\"other\": 1}]}"), None, "items without the member");
        assert_eq!(id("{\"sessionId\": \"abc\", \"history\": {}}"), None, "not a list");
        assert_eq!(id("{\"sessionId\": \"\", \"history\": []}"), None, "an empty id");
        assert_eq!(id("[{\"sessionId\": \"abc\", \"history\": []}]"), None, "not an object");
        assert_eq!(
            id("{\"note\": \"the \\\"history\\\" below\", \"history\": [], \"sessionId\": \"y\"}").as_deref(),
            Some("y")
        );
    }

    #[test]
    fn parse_reads_like_from_slice() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct Line<'a> {
            #[serde(borrow)]
            text: std::borrow::Cow<'a, str>,
        }
        let line = "{\"text\":\"caf\\u00e9 é 😀\"}".as_bytes();
        let parsed: Line<'_> = parse(line).unwrap();
        assert_eq!(parsed, serde_json::from_slice::<Line<'_>>(line).unwrap());
        assert_eq!(parsed.text, "café é 😀");
        // Not UTF-8: the same error from_slice gives.
        let bad = b"{\"text\":\"\xff\"}";
        let ours = parse::<Line<'_>>(bad).unwrap_err();
        let theirs = serde_json::from_slice::<Line<'_>>(bad).unwrap_err();
        assert_eq!(ours.to_string(), theirs.to_string());
        assert_eq!(ours.classify(), theirs.classify());
        assert!(parse::<Line<'_>>(b"{\"text\":").unwrap_err().is_eof());
    }

    #[test]
    fn fields() {
        let v = serde_json::json!({"a": "x", "e": "", "n": 12, "f": 12.0, "neg": -1, "half": 0.5, "s": "12"});
        assert_eq!(str_of(&v, "a"), Some("x"));
        assert_eq!(str_of(&v, "e"), Some(""));
        assert_eq!(text_of(&v, "e"), None);
        assert_eq!(str_of(&v, "n"), None);
        assert_eq!(count_of(&v, "n"), Some(12));
        assert_eq!(count_of(&v, "f"), Some(12));
        assert_eq!(count_of(&v, "neg"), None);
        assert_eq!(count_of(&v, "half"), None);
        assert_eq!(count_of(&v, "s"), None);
        assert_eq!(count_of(&v, "missing"), None);
    }
}
