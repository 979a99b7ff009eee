//! Small helpers: RFC 3339 times, a stable hash, type names fit for
//! diagnostics, filesystem error mapping, lenient JSON field access.

use serde_json::Value;
use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::fs::FsError;

pub use trajhost_codec_sdk::hash::Fnv;
pub use trajhost_codec_sdk::time::{rfc3339_ms, rfc3339_secs};

/// A record type name fit for a diagnostic: the native spelling when it is a
/// plain identifier, else a placeholder (a hostile file could put anything
/// in a type field).
pub fn type_name(kind: Option<&str>) -> String {
    match kind {
        None => "(missing)".to_string(),
        Some(k)
            if !k.is_empty()
                && k.len() <= 64
                && k.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/')) =>
        {
            k.to_string()
        }
        Some(_) => "(not an identifier)".to_string(),
    }
}

/// The kind of a filesystem error, for diagnostics (no paths, no content).
pub fn fs_kind(error: &FsError) -> &'static str {
    match error {
        FsError::NotFound(_) => "not-found",
        FsError::Denied(_) => "denied",
        FsError::InvalidPath(_) => "invalid-path",
        FsError::Io(_) => "io",
        FsError::LimitExceeded(_) => "limit-exceeded",
    }
}

/// A filesystem error as a codec error naming the file.
pub fn fs_error(path: &str, error: FsError) -> CodecError {
    match error {
        FsError::NotFound(_) => CodecError::NotFound(path.to_string()),
        FsError::LimitExceeded(m) => CodecError::LimitExceeded(format!("{path}: {m}")),
        other => CodecError::Io(format!("{path}: {other}")),
    }
}

/// `dir/name`, or `name` when `dir` is empty.
pub fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") }
}

/// A relative path below the home: no leading `/`, no `..`, no empty segment.
pub fn is_relative_below(path: &str) -> bool {
    !path.is_empty() && !path.starts_with('/') && !path.split('/').any(|c| c.is_empty() || c == "." || c == "..")
}

/// A string field.
pub fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A non-negative integer field (token counts); absent when not one.
pub fn count_of(v: &Value, key: &str) -> Option<u64> {
    match v.get(key)? {
        Value::Number(n) => n.as_u64().or_else(|| n.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0).map(|f| f as u64)),
        _ => None,
    }
}

/// The first `max` characters of `text` on one line, `…` when cut.
pub fn title_of(text: &str, max: usize) -> Option<String> {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.is_empty() {
        return None;
    }
    if flat.chars().count() <= max {
        return Some(flat);
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    Some(cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_ms(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339_ms(1_796_011_554_384), "2026-11-30T04:05:54.384Z");
        assert_eq!(rfc3339_ms(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(rfc3339_secs(1_796_012_370.7717643).as_deref(), Some("2026-11-30T04:19:30.772Z"));
        assert_eq!(rfc3339_secs(f64::NAN), None);
    }

    #[test]
    fn titles_are_flat_and_bounded() {
        assert_eq!(title_of("a\n b", 10).as_deref(), Some("a b"));
        assert_eq!(title_of("abcdef", 4).as_deref(), Some("abc…"));
        assert_eq!(title_of("  ", 4), None);
    }
}

/// Percent-decoding (`%2F` → `/`); `None` when the result is not UTF-8 or an
/// escape is malformed.
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let s = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(s, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod decode_tests {
    #[test]
    fn percent_decodes() {
        assert_eq!(super::percent_decode("%2Fhome%2Fuser%2Fproject").as_deref(), Some("/home/user/project"));
        assert_eq!(super::percent_decode("%E6%9C%AC").as_deref(), Some("本"));
        assert_eq!(super::percent_decode("%2"), None);
    }
}
