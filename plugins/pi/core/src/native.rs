//! Lenient access to the JSON of one line: a field of an unexpected type
//! reads as absent instead of failing the line, because one odd field must
//! not cost the whole entry.

use serde_json::Value;
pub use trajhost_codec_sdk::json::{count_of, str_of};

/// A non-empty string field, owned.
pub fn string_of(v: &Value, key: &str) -> Option<String> {
    str_of(v, key).filter(|s| !s.is_empty()).map(str::to_string)
}

/// A number field.
pub fn number_of(v: &Value, key: &str) -> Option<f64> {
    v.get(key)?.as_f64()
}

/// A type name safe for a diagnostic detail: ASCII word characters only,
/// at most 64 of them (details never carry content).
pub fn type_name(kind: Option<&str>) -> String {
    match kind {
        None => "<missing>".to_string(),
        Some(k) => {
            let clean: String = k
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
                .take(64)
                .collect();
            if clean.is_empty() { "<odd>".to_string() } else { clean }
        }
    }
}

/// The text of a `content` field: a string, or the `text` blocks of an
/// array joined by newlines. Images and other blocks become a bracketed
/// placeholder naming their type, and are counted in `other`.
pub fn content_text(content: Option<&Value>, mut other: impl FnMut(&str, Option<&str>)) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            let mut out = String::new();
            for block in blocks {
                let kind = str_of(block, "type").unwrap_or("");
                let piece = match kind {
                    "text" => str_of(block, "text").unwrap_or("").to_string(),
                    _ => {
                        let mime = str_of(block, "mimeType");
                        other(kind, mime);
                        match mime {
                            Some(m) => format!("[{}: {}]", type_name(Some(kind)), type_name(Some(m))),
                            None => format!("[{}]", type_name(Some(kind))),
                        }
                    }
                };
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&piece);
            }
            out
        }
        _ => String::new(),
    }
}
