//! Text helpers codecs share: text from bytes that may not be UTF-8, names
//! safe for a diagnostic's detail, titles from a first prompt, and the
//! percent and base64 decoding some stores use in their directory names.

/// Bytes as text: as they are when UTF-8 (no copy), else with each invalid
/// sequence replaced by U+FFFD.
pub fn lossy(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// Longest type name a diagnostic carries as spelled.
const MAX_TYPE_NAME: usize = 64;

/// A native type name fit for a diagnostic's detail: the spelling when it is
/// a plain identifier (ASCII letters, digits and `-_./:$`, at most 64),
/// `(missing)` when absent or empty, else `(not an identifier)` — a hostile
/// file could put anything, transcript text included, in a type field.
pub fn type_name(kind: Option<&str>) -> String {
    match kind {
        None | Some("") => "(missing)".to_string(),
        Some(k) if is_identifier(k) => k.to_string(),
        Some(_) => "(not an identifier)".to_string(),
    }
}

/// Whether `kind` may appear in a diagnostic as spelled (see [`type_name`]).
pub fn is_identifier(kind: &str) -> bool {
    !kind.is_empty()
        && kind.len() <= MAX_TYPE_NAME
        && kind.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/' | b':' | b'$'))
}

/// The first `max` characters of `text` on one line (whitespace runs become
/// one space), `…` in the last place when cut; `None` when blank.
pub fn title_of(text: &str, max: usize) -> Option<String> {
    let mut out = String::new();
    let mut chars = 0;
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
            chars += 1;
        }
        out.push_str(word);
        chars += word.chars().count();
        if chars > max {
            break;
        }
    }
    if out.is_empty() {
        return None;
    }
    if chars > max {
        out = out.chars().take(max.saturating_sub(1)).collect();
        out.push('…');
    }
    Some(out)
}

/// Percent-decoding (`%2F` → `/`); `None` when an escape is malformed or the
/// result is not UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Decodes base64url or standard base64, padded or not; `None` on bad input.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    fn value(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        } as u32)
    }
    let bytes = text.trim_end_matches('=').as_bytes();
    if bytes.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut acc = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            acc |= value(*c)? << (18 - 6 * i);
        }
        out.push((acc >> 16) as u8);
        if chunk.len() > 2 {
            out.push((acc >> 8) as u8);
        }
        if chunk.len() > 3 {
            out.push(acc as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_never_carry_content() {
        assert_eq!(type_name(Some("response_item")), "response_item");
        assert_eq!(type_name(Some("system/turn_duration")), "system/turn_duration");
        assert_eq!(type_name(Some("$set")), "$set");
        assert_eq!(type_name(None), "(missing)");
        assert_eq!(type_name(Some("")), "(missing)");
        assert_eq!(type_name(Some("the secret word is PAPAYA")), "(not an identifier)");
        assert_eq!(type_name(Some(&"a".repeat(65))), "(not an identifier)");
    }

    #[test]
    fn titles_are_flat_and_bounded() {
        assert_eq!(title_of("a\n  b", 10).as_deref(), Some("a b"));
        assert_eq!(title_of("abcdef", 4).as_deref(), Some("abc…"));
        assert_eq!(title_of("abcd", 4).as_deref(), Some("abcd"));
        assert_eq!(title_of("ab cd", 4).as_deref(), Some("ab …"));
        assert_eq!(title_of("本本本本本", 3).as_deref(), Some("本本…"));
        assert_eq!(title_of(" \n ", 4), None);
    }

    #[test]
    fn decodes() {
        assert_eq!(percent_decode("%2Fhome%2Fuser%2Fproject").as_deref(), Some("/home/user/project"));
        assert_eq!(percent_decode("%E6%9C%AC").as_deref(), Some("本"));
        assert_eq!(percent_decode("%2"), None);
        assert_eq!(percent_decode("%FF"), None);
        let d = |s: &str| base64_decode(s).map(|b| String::from_utf8(b).unwrap());
        assert_eq!(d("Y29udmVyc2F0aW9uOmxvY2FsLWNvbnYtMQ").as_deref(), Some("conversation:local-conv-1"));
        assert_eq!(d("YQ==").as_deref(), Some("a"));
        assert_eq!(d("YWI").as_deref(), Some("ab"));
        assert_eq!(base64_decode("a"), None);
        assert_eq!(base64_decode("a*b="), None);
    }
}
