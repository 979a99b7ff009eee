//! A JSON scanner for one record line: where each string is (raw byte ranges), without building
//! values, so a redacted line is the original bytes with only the masked strings re-encoded
//! (key order, number spelling and escapes elsewhere stay as they were).

use std::borrow::Cow;
use std::ops::Range;

use crate::scan::Hit;

/// Nesting deeper than this is not scanned (the caller falls back to treating the line as text).
const MAX_DEPTH: usize = 256;

#[derive(Debug)]
pub(crate) enum Node {
    /// A string: its raw range including the quotes, and whether it has escapes.
    Str(Range<usize>, bool),
    Obj(Vec<Member>),
    Arr(Vec<Node>),
    /// A number, `true`, `false` or `null`.
    Other,
}

#[derive(Debug)]
pub(crate) struct Member {
    pub key: Range<usize>,
    pub key_escaped: bool,
    pub value: Node,
}

/// Scans a whole line holding one JSON value. `None` when it is not JSON (or nests too deep).
pub(crate) fn parse(line: &str) -> Option<Node> {
    let b = line.as_bytes();
    let mut at = skip_ws(b, 0);
    let node = value(b, &mut at, 0)?;
    at = skip_ws(b, at);
    (at == b.len()).then_some(node)
}

/// The decoded text of a string node (borrowed when it has no escapes).
pub(crate) fn decode(line: &str, raw: Range<usize>, escaped: bool) -> Cow<'_, str> {
    decode_mapped(line, raw, escaped, &[], &mut Vec::new())
}

/// Decodes the string node at `raw` (quotes included) of `line`, and appends to `mapped` the
/// keyword occurrences `hits` (offsets in `line`, inside `raw`) translated to offsets in the
/// decoded text. Never fails: an invalid escape stays as written, a lone surrogate becomes
/// U+FFFD, so no string is left unredacted for being odd.
pub(crate) fn decode_mapped<'a>(
    line: &'a str,
    raw: Range<usize>,
    escaped: bool,
    hits: &[Hit],
    mapped: &mut Vec<Hit>,
) -> Cow<'a, str> {
    let body = raw.start + 1..raw.end - 1;
    if !escaped {
        let shift = body.start as u32;
        // (An occurrence can start before the string when a user's keyword holds a quote.)
        mapped.extend(hits.iter().map(|h| Hit {
            start: h.start.saturating_sub(shift),
            end: h.end.saturating_sub(shift),
            keyword: h.keyword,
        }));
        return Cow::Borrowed(&line[body]);
    }
    let b = line.as_bytes();
    let mut out = String::with_capacity(body.len());
    // (offset in line, offset in out) after each escape: offsets between two are a plain copy.
    let mut marks: Vec<(usize, usize)> = vec![(body.start, 0)];
    let mut i = body.start;
    while i < body.end {
        let Some(off) = memchr::memchr(b'\\', &b[i..body.end]) else {
            out.push_str(&line[i..body.end]);
            break;
        };
        out.push_str(&line[i..i + off]);
        i += off;
        let (c, len) = match b.get(i + 1) {
            Some(b'"') => ('"', 2),
            Some(b'\\') => ('\\', 2),
            Some(b'/') => ('/', 2),
            Some(b'b') => ('\u{8}', 2),
            Some(b'f') => ('\u{c}', 2),
            Some(b'n') => ('\n', 2),
            Some(b'r') => ('\r', 2),
            Some(b't') => ('\t', 2),
            Some(b'u') => unicode_escape(b, i, body.end),
            _ => ('\\', 1),
        };
        out.push(c);
        i += len;
        marks.push((i, out.len()));
    }
    let map = |p: u32| -> u32 {
        let p = p as usize;
        let at = marks.partition_point(|m| m.0 <= p).saturating_sub(1);
        let (r, d) = marks[at];
        (d + p.saturating_sub(r)).min(out.len()) as u32
    };
    mapped.extend(hits.iter().map(|h| Hit { start: map(h.start), end: map(h.end), keyword: h.keyword }));
    Cow::Owned(out)
}

/// The character of a `\uXXXX` escape at `i` (a surrogate pair when one follows), and how many
/// bytes it takes.
fn unicode_escape(b: &[u8], i: usize, end: usize) -> (char, usize) {
    let hex = |at: usize| -> Option<u32> {
        let h = b.get(at..at + 4).filter(|_| at + 4 <= end)?;
        u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    };
    let Some(first) = hex(i + 2) else { return ('\\', 1) };
    if (0xD800..0xDC00).contains(&first)
        && b.get(i + 6) == Some(&b'\\')
        && b.get(i + 7) == Some(&b'u')
        && let Some(second) = hex(i + 8)
        && (0xDC00..0xE000).contains(&second)
    {
        let c = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
        return (char::from_u32(c).unwrap_or('\u{FFFD}'), 12);
    }
    (char::from_u32(first).unwrap_or('\u{FFFD}'), 6)
}

/// Encodes `s` as a JSON string literal.
pub(crate) fn encode(s: &str) -> String {
    serde_json::to_string(s).expect("a str always serializes")
}

fn skip_ws(b: &[u8], mut at: usize) -> usize {
    while at < b.len() && matches!(b[at], b' ' | b'\t' | b'\n' | b'\r') {
        at += 1;
    }
    at
}

fn value(b: &[u8], at: &mut usize, depth: usize) -> Option<Node> {
    if depth > MAX_DEPTH {
        return None;
    }
    match *b.get(*at)? {
        b'"' => {
            let (range, escaped) = string(b, at)?;
            Some(Node::Str(range, escaped))
        }
        b'{' => {
            *at += 1;
            let mut members = Vec::new();
            *at = skip_ws(b, *at);
            if b.get(*at) == Some(&b'}') {
                *at += 1;
                return Some(Node::Obj(members));
            }
            loop {
                *at = skip_ws(b, *at);
                if b.get(*at) != Some(&b'"') {
                    return None;
                }
                let (key, key_escaped) = string(b, at)?;
                *at = skip_ws(b, *at);
                if b.get(*at) != Some(&b':') {
                    return None;
                }
                *at = skip_ws(b, *at + 1);
                let v = value(b, at, depth + 1)?;
                members.push(Member { key, key_escaped, value: v });
                *at = skip_ws(b, *at);
                match b.get(*at)? {
                    b',' => *at += 1,
                    b'}' => {
                        *at += 1;
                        return Some(Node::Obj(members));
                    }
                    _ => return None,
                }
            }
        }
        b'[' => {
            *at += 1;
            let mut items = Vec::new();
            *at = skip_ws(b, *at);
            if b.get(*at) == Some(&b']') {
                *at += 1;
                return Some(Node::Arr(items));
            }
            loop {
                *at = skip_ws(b, *at);
                items.push(value(b, at, depth + 1)?);
                *at = skip_ws(b, *at);
                match b.get(*at)? {
                    b',' => *at += 1,
                    b']' => {
                        *at += 1;
                        return Some(Node::Arr(items));
                    }
                    _ => return None,
                }
            }
        }
        b't' => literal(b, at, b"true"),
        b'f' => literal(b, at, b"false"),
        b'n' => literal(b, at, b"null"),
        b'-' | b'0'..=b'9' => {
            let start = *at;
            while *at < b.len() && matches!(b[*at], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                *at += 1;
            }
            (*at > start).then_some(Node::Other)
        }
        _ => None,
    }
}

fn literal(b: &[u8], at: &mut usize, word: &[u8]) -> Option<Node> {
    if b[*at..].starts_with(word) {
        *at += word.len();
        Some(Node::Other)
    } else {
        None
    }
}

/// A string starting at `*at` (a quote): its raw range and whether it has escapes.
fn string(b: &[u8], at: &mut usize) -> Option<(Range<usize>, bool)> {
    let start = *at;
    let mut i = start + 1;
    let mut escaped = false;
    loop {
        let off = memchr::memchr3(b'"', b'\\', b'\n', &b[i..])?;
        i += off;
        match b[i] {
            b'"' => {
                *at = i + 1;
                return Some((start..i + 1, escaped));
            }
            b'\\' => {
                escaped = true;
                i += 2;
                if i > b.len() {
                    return None;
                }
            }
            // A raw newline is not valid inside a JSON string.
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(line: &str) -> Vec<String> {
        fn walk(line: &str, n: &Node, out: &mut Vec<String>) {
            match n {
                Node::Str(r, e) => out.push(decode(line, r.clone(), *e).into_owned()),
                Node::Obj(ms) => {
                    for m in ms {
                        out.push(decode(line, m.key.clone(), m.key_escaped).into_owned());
                        walk(line, &m.value, out);
                    }
                }
                Node::Arr(items) => items.iter().for_each(|i| walk(line, i, out)),
                Node::Other => {}
            }
        }
        let mut out = Vec::new();
        walk(line, &parse(line).expect("valid"), &mut out);
        out
    }

    #[test]
    fn scans_strings_with_escapes() {
        let line = r#"{"a":"x\"y\\","b":[1,-2.5e3,true,null,{"c\n":"é\u00e9"}],"d":{}} "#;
        assert_eq!(strings(line), ["a", "x\"y\\", "b", "c\n", "éé", "d"]);
    }

    #[test]
    fn decodes_like_serde_and_maps_offsets() {
        for s in ["plain", "a\nb\tc\"d\\e/f", "é😀\u{1}\u{1f}", "key\n\nkey", "\u{8}\u{c}\r"] {
            let line = serde_json::to_string(s).unwrap();
            let escaped = line.contains('\\');
            assert_eq!(decode(&line, 0..line.len(), escaped), s, "{line}");
        }
        // \u escapes, a surrogate pair, a lone surrogate, an escaped slash.
        let line = r#""\u0041\ud83d\ude00\ud800x\/""#;
        assert_eq!(decode(line, 0..line.len(), true), "A😀\u{FFFD}x/");
        // Offsets of keywords after escapes move left by what the escapes saved.
        let line = r#""ab\n\u0041key""#;
        let hit = Hit { start: 11, end: 14, keyword: 0 };
        assert_eq!(&line[11..14], "key");
        let mut mapped = Vec::new();
        let text = decode_mapped(line, 0..line.len(), true, &[hit], &mut mapped);
        assert_eq!(&text[mapped[0].start as usize..mapped[0].end as usize], "key");
    }

    #[test]
    fn rejects_what_is_not_json() {
        for bad in ["", "{", r#"{"a"}"#, r#"{"a":}"#, r#"{"a":1,}"#, r#"["a"#, r#"{"a":1} x"#, "nul", "\"a\nb\""] {
            assert!(parse(bad).is_none(), "{bad:?}");
        }
        let deep = "[".repeat(1000) + &"]".repeat(1000);
        assert!(parse(&deep).is_none());
    }
}
