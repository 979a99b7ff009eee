//! `add-json-entry`: one entry added to a JSON document, existing entries
//! never changed.
//!
//! The semantics are decided on a parsed `serde_json::Value`; the new text
//! is made by splicing the entry into the original text, so the rest of the
//! file keeps its bytes (member order, formatting, trailing newline). The
//! splice is checked by parsing it back: it must equal the expected value
//! (else the expected value is written pretty-printed, which is equal as
//! JSON).

use std::path::Path;

use serde_json::Value;

use super::error::{InstallError, Result};

/// One entry, as the plan gives it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    pub pointer: String,
    pub key: Option<String>,
    pub match_member: Option<String>,
    pub value: String,
}

/// The document after adding `entry`, or None when an equal entry is
/// already there.
pub(crate) fn add_entry(path: &Path, text: &str, entry: &Entry) -> Result<Option<String>> {
    let mut document: Value = serde_json::from_str(text).map_err(|e| InstallError::JsonInvalid {
        path: path.to_path_buf(),
        what: "the file",
        message: e.to_string(),
    })?;
    let value: Value = serde_json::from_str(&entry.value).map_err(|e| InstallError::JsonInvalid {
        path: path.to_path_buf(),
        what: "the entry's value",
        message: e.to_string(),
    })?;
    let tokens = parse_pointer(path, &entry.pointer)?;
    let pointer_error = |message: String| InstallError::JsonPointer {
        path: path.to_path_buf(),
        pointer: entry.pointer.clone(),
        message,
    };
    let entry_error = |message: String| InstallError::JsonEntry { path: path.to_path_buf(), message };

    // How many tokens resolve (the rest are objects to create).
    let mut depth = 0;
    let mut probe = &document;
    while depth < tokens.len() {
        let token = &tokens[depth];
        probe = match probe {
            Value::Object(map) => match map.get(token) {
                Some(next) => next,
                None => break,
            },
            Value::Array(items) => array_index(token)
                .and_then(|i| items.get(i))
                .ok_or_else(|| pointer_error(format!("{} has no element {token:?}", describe(&tokens[..depth]))))?,
            other => {
                return Err(pointer_error(format!(
                    "{} is {}, not an object or array",
                    describe(&tokens[..depth]),
                    kind(other)
                )));
            }
        };
        depth += 1;
    }
    let mut current = &mut document;
    for token in &tokens[..depth] {
        current = match current {
            Value::Object(map) => map.get_mut(token).expect("resolved above"),
            Value::Array(items) => &mut items[array_index(token).expect("resolved above")],
            _ => unreachable!("resolved above"),
        };
    }

    let splice = if depth < tokens.len() {
        // Missing objects on the way: one new member of the deepest object.
        if entry.match_member.is_some() && entry.key.is_some() {
            return Err(entry_error("match-member applies to an array receiver; the entry has a key".into()));
        }
        let mut created = match &entry.key {
            Some(key) => Value::Object([(key.clone(), value)].into_iter().collect()),
            None => Value::Array(vec![value]),
        };
        for token in tokens[depth + 1..].iter().rev() {
            created = Value::Object([(token.clone(), created)].into_iter().collect());
        }
        let Value::Object(map) = current else { unreachable!("only an object member can be missing") };
        map.insert(tokens[depth].clone(), created.clone());
        Splice::Member { key: tokens[depth].clone(), value: created }
    } else {
        match current {
            Value::Object(map) => {
                let Some(key) = &entry.key else {
                    return Err(entry_error(format!("{} is an object: the entry needs a key", describe(&tokens))));
                };
                if entry.match_member.is_some() {
                    return Err(entry_error(format!(
                        "{} is an object: match-member applies to arrays",
                        describe(&tokens)
                    )));
                }
                match map.get(key) {
                    Some(existing) if *existing == value => return Ok(None),
                    Some(_) => {
                        return Err(InstallError::JsonKeyCollision {
                            path: path.to_path_buf(),
                            pointer: entry.pointer.clone(),
                            key: key.clone(),
                        });
                    }
                    None => {}
                }
                map.insert(key.clone(), value.clone());
                Splice::Member { key: key.clone(), value }
            }
            Value::Array(items) => {
                if entry.key.is_some() {
                    return Err(entry_error(format!(
                        "{} is an array: entries are appended, without a key",
                        describe(&tokens)
                    )));
                }
                let present = match &entry.match_member {
                    Some(member) => {
                        let Some(wanted) = value.get(member) else {
                            return Err(entry_error(format!("the entry has no member {member:?} to match on")));
                        };
                        items.iter().any(|item| item.get(member) == Some(wanted))
                    }
                    None => items.contains(&value),
                };
                if present {
                    return Ok(None);
                }
                items.push(value.clone());
                Splice::Element { value }
            }
            other => {
                return Err(pointer_error(format!("{} is {}, not an object or array", describe(&tokens), kind(other))));
            }
        }
    };

    let spliced = scan(text).and_then(|root| splice_into(text, &root, &tokens[..depth], &splice));
    if let Some(new_text) = spliced
        && serde_json::from_str::<Value>(&new_text).ok().as_ref() == Some(&document)
    {
        return Ok(Some(new_text));
    }
    tracing::warn!("{}: cannot add the entry in place; writing the document re-formatted", path.display());
    let mut pretty = serde_json::to_string_pretty(&document).map_err(|e| InstallError::io(path, e))?;
    if text.ends_with('\n') {
        pretty.push('\n');
    }
    Ok(Some(pretty))
}

/// Checks a document given as JSON text (the file or `initial`).
pub(crate) fn check_document(path: &Path, text: &str, what: &'static str) -> Result<()> {
    serde_json::from_str::<Value>(text).map(|_| ()).map_err(|e| InstallError::JsonInvalid {
        path: path.to_path_buf(),
        what,
        message: e.to_string(),
    })
}

fn parse_pointer(path: &Path, pointer: &str) -> Result<Vec<String>> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(InstallError::JsonPointer {
            path: path.to_path_buf(),
            pointer: pointer.to_string(),
            message: "a JSON pointer is empty or starts with '/'".into(),
        });
    };
    Ok(rest.split('/').map(|t| t.replace("~1", "/").replace("~0", "~")).collect())
}

fn array_index(token: &str) -> Option<usize> {
    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_digit()) || (token.len() > 1 && token.starts_with('0')) {
        return None;
    }
    token.parse().ok()
}

fn describe(tokens: &[String]) -> String {
    if tokens.is_empty() {
        "the document".into()
    } else {
        format!("/{}", tokens.iter().map(|t| t.replace('~', "~0").replace('/', "~1")).collect::<Vec<_>>().join("/"))
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// What goes into the receiving container's text.
enum Splice {
    Member { key: String, value: Value },
    Element { value: Value },
}

/// A value's place in the text.
#[derive(Debug)]
struct Node {
    start: usize,
    end: usize,
    kind: NodeKind,
}

#[derive(Debug)]
enum NodeKind {
    Object(Vec<(String, usize, Node)>),
    Array(Vec<Node>),
    Scalar,
}

/// The span tree of a document already known to be valid JSON.
fn scan(text: &str) -> Option<Node> {
    let bytes = text.as_bytes();
    let mut pos = 0;
    skip_ws(bytes, &mut pos);
    scan_value(text, &mut pos, 0)
}

fn skip_ws(bytes: &[u8], pos: &mut usize) {
    while *pos < bytes.len() && matches!(bytes[*pos], b' ' | b'\t' | b'\n' | b'\r') {
        *pos += 1;
    }
}

fn scan_string(bytes: &[u8], pos: &mut usize) -> Option<()> {
    if bytes.get(*pos) != Some(&b'"') {
        return None;
    }
    *pos += 1;
    while *pos < bytes.len() {
        match bytes[*pos] {
            b'\\' => *pos += 2,
            b'"' => {
                *pos += 1;
                return Some(());
            }
            _ => *pos += 1,
        }
    }
    None
}

fn scan_value(text: &str, pos: &mut usize, depth: usize) -> Option<Node> {
    let bytes = text.as_bytes();
    if depth > 256 {
        return None;
    }
    let start = *pos;
    match *bytes.get(*pos)? {
        b'{' => {
            *pos += 1;
            let mut members = Vec::new();
            skip_ws(bytes, pos);
            if bytes.get(*pos) == Some(&b'}') {
                *pos += 1;
                return Some(Node { start, end: *pos, kind: NodeKind::Object(members) });
            }
            loop {
                skip_ws(bytes, pos);
                let key_start = *pos;
                scan_string(bytes, pos)?;
                let key: String = serde_json::from_str(&text[key_start..*pos]).ok()?;
                skip_ws(bytes, pos);
                if bytes.get(*pos) != Some(&b':') {
                    return None;
                }
                *pos += 1;
                skip_ws(bytes, pos);
                let value = scan_value(text, pos, depth + 1)?;
                members.push((key, key_start, value));
                skip_ws(bytes, pos);
                match bytes.get(*pos)? {
                    b',' => *pos += 1,
                    b'}' => {
                        *pos += 1;
                        return Some(Node { start, end: *pos, kind: NodeKind::Object(members) });
                    }
                    _ => return None,
                }
            }
        }
        b'[' => {
            *pos += 1;
            let mut items = Vec::new();
            skip_ws(bytes, pos);
            if bytes.get(*pos) == Some(&b']') {
                *pos += 1;
                return Some(Node { start, end: *pos, kind: NodeKind::Array(items) });
            }
            loop {
                skip_ws(bytes, pos);
                items.push(scan_value(text, pos, depth + 1)?);
                skip_ws(bytes, pos);
                match bytes.get(*pos)? {
                    b',' => *pos += 1,
                    b']' => {
                        *pos += 1;
                        return Some(Node { start, end: *pos, kind: NodeKind::Array(items) });
                    }
                    _ => return None,
                }
            }
        }
        b'"' => {
            scan_string(bytes, pos)?;
            Some(Node { start, end: *pos, kind: NodeKind::Scalar })
        }
        _ => {
            while *pos < bytes.len() && !matches!(bytes[*pos], b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') {
                *pos += 1;
            }
            (*pos > start).then_some(Node { start, end: *pos, kind: NodeKind::Scalar })
        }
    }
}

/// The whitespace that starts the line holding `pos`.
fn line_indent(text: &str, pos: usize) -> &str {
    let line_start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// The text with `splice` added to the container `tokens` leads to.
fn splice_into(text: &str, root: &Node, tokens: &[String], splice: &Splice) -> Option<String> {
    let mut node = root;
    for token in tokens {
        node = match &node.kind {
            NodeKind::Object(members) => &members.iter().rev().find(|(key, _, _)| key == token)?.2,
            NodeKind::Array(items) => items.get(array_index(token)?)?,
            NodeKind::Scalar => return None,
        };
    }
    let container = &text[node.start..node.end];
    let multiline = container.contains('\n');
    let compact = !multiline && !container.contains(": ") && !container.contains(", ");
    // Where the last existing member or element ends, and where its line starts.
    let (last_end, item_start) = match (&node.kind, splice) {
        (NodeKind::Object(members), Splice::Member { .. }) => {
            (members.last().map(|(_, _, v)| v.end), members.last().map(|(_, key_start, _)| *key_start))
        }
        (NodeKind::Array(items), Splice::Element { .. }) => {
            (items.last().map(|v| v.end), items.last().map(|v| v.start))
        }
        _ => return None,
    };
    let outer = line_indent(text, node.start);
    let indent = match item_start {
        Some(start) if multiline => line_indent(text, start).to_string(),
        _ => format!("{outer}  "),
    };
    let unit = indent.strip_prefix(outer).filter(|u| !u.is_empty()).unwrap_or("  ");
    let render = |value: &Value| -> Option<String> {
        if multiline {
            let mut out = Vec::new();
            let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
            let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
            serde::Serialize::serialize(value, &mut serializer).ok()?;
            Some(String::from_utf8(out).ok()?.replace('\n', &format!("\n{indent}")))
        } else {
            serde_json::to_string(value).ok()
        }
    };
    let item = match splice {
        Splice::Member { key, value } => {
            let separator = if compact { ":" } else { ": " };
            format!("{}{separator}{}", serde_json::to_string(key).ok()?, render(value)?)
        }
        Splice::Element { value } => render(value)?,
    };
    let (at, insertion) = match last_end {
        Some(end) if multiline => (end, format!(",\n{indent}{item}")),
        Some(end) => (end, format!("{}{item}", if compact { "," } else { ", " })),
        None if multiline => (node.start + 1, format!("\n{indent}{item}")),
        None => (node.start + 1, item),
    };
    let mut out = String::with_capacity(text.len() + insertion.len());
    out.push_str(&text[..at]);
    out.push_str(&insertion);
    out.push_str(&text[at..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(
        text: &str,
        pointer: &str,
        key: Option<&str>,
        matching: Option<&str>,
        value: &str,
    ) -> Result<Option<String>> {
        let entry = Entry {
            pointer: pointer.into(),
            key: key.map(Into::into),
            match_member: matching.map(Into::into),
            value: value.into(),
        };
        add_entry(Path::new("t.json"), text, &entry)
    }

    #[test]
    fn splices_keep_the_rest_of_the_text() {
        let text = "{\n  \"b\": 1,\n  \"a\": {\n    \"x\": [1, 2]\n  }\n}\n";
        let out = add(text, "/a", Some("y"), None, "{\"k\":true}").unwrap().unwrap();
        assert_eq!(
            out,
            "{\n  \"b\": 1,\n  \"a\": {\n    \"x\": [1, 2],\n    \"y\": {\n      \"k\": true\n    }\n  }\n}\n"
        );
        let out = add(text, "/a/x", None, None, "3").unwrap().unwrap();
        assert_eq!(out, "{\n  \"b\": 1,\n  \"a\": {\n    \"x\": [1, 2, 3]\n  }\n}\n");
        let out = add("{}", "/w/v", None, None, "{\"p\":\"/x\"}").unwrap().unwrap();
        assert_eq!(out, "{\"w\":{\"v\":[{\"p\":\"/x\"}]}}");
        let out = add("{\"a\":[]}", "/a", None, None, "1").unwrap().unwrap();
        assert_eq!(out, "{\"a\":[1]}");
    }

    #[test]
    fn equal_entries_are_no_ops_and_different_ones_collide() {
        assert_eq!(add("{\"a\":{\"k\":1}}", "/a", Some("k"), None, "1").unwrap(), None);
        assert!(matches!(
            add("{\"a\":{\"k\":1}}", "/a", Some("k"), None, "2"),
            Err(InstallError::JsonKeyCollision { .. })
        ));
        assert_eq!(add("[{\"p\":\"/x\",\"n\":1}]", "", None, Some("p"), "{\"p\":\"/x\",\"n\":2}").unwrap(), None);
        assert!(add("[{\"p\":\"/x\"}]", "", None, Some("p"), "{\"p\":\"/y\"}").unwrap().is_some());
        assert_eq!(add("[1,2]", "", None, None, "2").unwrap(), None);
    }

    #[test]
    fn refusals_name_the_problem() {
        assert!(matches!(add("{\"a\":\"s\"}", "/a", Some("k"), None, "1"), Err(InstallError::JsonPointer { .. })));
        assert!(matches!(add("{\"a\":[]}", "/a/3", Some("k"), None, "1"), Err(InstallError::JsonPointer { .. })));
        assert!(matches!(add("{}", "a", Some("k"), None, "1"), Err(InstallError::JsonPointer { .. })));
        assert!(matches!(add("{}", "", None, None, "1"), Err(InstallError::JsonEntry { .. })));
        assert!(matches!(add("[]", "", Some("k"), None, "1"), Err(InstallError::JsonEntry { .. })));
        assert!(matches!(add("[]", "", None, Some("p"), "1"), Err(InstallError::JsonEntry { .. })));
        assert!(matches!(add("{", "", Some("k"), None, "1"), Err(InstallError::JsonInvalid { .. })));
        assert!(matches!(add("{}", "", Some("k"), None, "{"), Err(InstallError::JsonInvalid { .. })));
    }
}
