//! The rollout document of the TypeScript Codex CLI (`@openai/codex` 0.1.x
//! of early 2025, before the Rust rewrite): one JSON document per session,
//! `~/.codex/sessions/rollout-<YYYY-MM-DD>-<session uuid>.json`, pretty
//! printed, rewritten whole after every turn:
//!
//! ```text
//! {"session": {"timestamp", "id", "instructions", "model"?, "provider"?, "lastResponseId"?},
//!  "items": [ResponseItem, …]}
//! ```
//!
//! `items` are OpenAI Responses API items, the shapes the Rust CLI later
//! logged as `response_item` payloads (`message`, `reasoning`,
//! `function_call`, `function_call_output`, `local_shell_call`, …), so each
//! is mapped by [`crate::records`] like a `response_item` line. What the
//! document lacks: per-item times, the CLI version, the cwd, usage.
//! `session.timestamp` is when the document was last written (each save
//! stamps it anew), not when the session began. A `function_call_output`'s
//! `output` is the JSON text `{"output", "metadata": {"exit_code",
//! "duration_seconds"}}` the model was sent; its `exit_code` is the call's
//! outcome.
//!
//! [`scan`] walks the document (or only its head) without parsing the items:
//! it finds the `session` object and the byte span of every complete item,
//! so discovery reads a head and `read` parses one item at a time.

use serde::Deserialize;
use serde_json::value::RawValue;
use trajhost_codec_sdk::fs::{File, FsError};

use crate::native::{Lenient, ResponseItem, Text};

/// File name suffix of a rollout document.
pub const JSON: &str = ".json";
/// Bytes of a document read by discovery (and shown to `sniff`).
pub const HEAD_MAX: u64 = 1 << 20;

/// `session`: what the document says of the session.
#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub struct Session<'a> {
    #[serde(borrow)]
    pub id: Text<'a>,
    /// The key some builds wrote instead of `id`.
    #[serde(borrow)]
    pub session_id: Text<'a>,
    /// When the document was written.
    #[serde(borrow)]
    pub timestamp: Text<'a>,
    /// The user's instructions, sent with every request.
    #[serde(borrow)]
    pub instructions: Text<'a>,
    #[serde(borrow)]
    pub model: Text<'a>,
    #[serde(borrow)]
    pub provider: Text<'a>,
}

impl Session<'_> {
    pub fn session_id(&self) -> Option<&str> {
        self.id.non_empty().or(self.session_id.non_empty())
    }
}

/// What [`scan`] found.
#[derive(Debug, Default)]
pub struct Scan {
    /// (offset, len) of the `session` object.
    pub session: Option<(usize, usize)>,
    /// Whether an `items` key was reached.
    pub has_items: bool,
    /// (offset, len) of every complete item, in order.
    pub items: Vec<(usize, usize)>,
    /// Whether the document ended properly (its closing `}`); false when
    /// the bytes end first (a head, or a torn write).
    pub complete: bool,
}

/// Why bytes are no rollout document.
pub type NotDocument = &'static str;

/// Walks a document's top-level object: the `session` value and each item
/// of `items`, as byte spans. Stops at the end of `bytes` when they end
/// early (`complete` false); fails only on bytes that are no such document.
pub fn scan(bytes: &[u8]) -> Result<Scan, NotDocument> {
    let mut scan = Scan::default();
    let mut at = skip_ws(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return Err("not a JSON object");
    }
    at += 1;
    loop {
        at = skip_ws(bytes, at);
        match bytes.get(at) {
            None => return Ok(scan),
            Some(b'}') => {
                scan.complete = true;
                return Ok(scan);
            }
            Some(b',') => {
                at += 1;
                continue;
            }
            Some(b'"') => {}
            Some(_) => return Err("not a JSON object"),
        }
        let Some((key, end)) = value::<String>(bytes, at)? else { return Ok(scan) };
        at = skip_ws(bytes, end);
        match bytes.get(at) {
            None => return Ok(scan),
            Some(b':') => at = skip_ws(bytes, at + 1),
            Some(_) => return Err("not a JSON object"),
        }
        if key == "items" {
            scan.has_items = true;
            match bytes.get(at) {
                None => return Ok(scan),
                Some(b'[') => {}
                Some(_) => return Err("`items` is not an array"),
            }
            at += 1;
            loop {
                at = skip_ws(bytes, at);
                match bytes.get(at) {
                    None => return Ok(scan),
                    Some(b']') => {
                        at += 1;
                        break;
                    }
                    Some(b',') => {
                        at += 1;
                        continue;
                    }
                    Some(_) => {}
                }
                let Some((raw, end)) = value::<&RawValue>(bytes, at)? else { return Ok(scan) };
                scan.items.push(span_of(bytes, raw));
                at = end;
            }
        } else {
            let Some((raw, end)) = value::<&RawValue>(bytes, at)? else { return Ok(scan) };
            if key == "session" {
                if !raw.get().starts_with('{') {
                    return Err("`session` is not an object");
                }
                scan.session = Some(span_of(bytes, raw));
            }
            at = end;
        }
    }
}

/// One JSON value at `at`: the value and where it ends; `None` when the
/// bytes end inside it.
fn value<'a, T: Deserialize<'a>>(bytes: &'a [u8], at: usize) -> Result<Option<(T, usize)>, NotDocument> {
    let mut stream = serde_json::Deserializer::from_slice(&bytes[at..]).into_iter::<T>();
    match stream.next() {
        None => Ok(None),
        Some(Ok(v)) => Ok(Some((v, at + stream.byte_offset()))),
        Some(Err(e)) if e.is_eof() => Ok(None),
        Some(Err(_)) => Err("not JSON"),
    }
}

fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// (offset, len) of `raw`, borrowed from `bytes`.
fn span_of(bytes: &[u8], raw: &RawValue) -> (usize, usize) {
    (raw.get().as_ptr() as usize - bytes.as_ptr() as usize, raw.get().len())
}

/// The `session` object of a scanned document.
pub fn session<'a>(bytes: &'a [u8], scan: &Scan) -> Option<Session<'a>> {
    let (offset, len) = scan.session?;
    serde_json::from_slice(&bytes[offset..offset + len]).ok()
}

/// Whether the head of a file is a rollout document: a `session` object
/// with an id, and `items` (or bytes that end before it).
pub fn is_document(head: &[u8]) -> Option<String> {
    let scan = scan(head).ok()?;
    if !scan.has_items && scan.complete {
        return None;
    }
    session(head, &scan)?.session_id().map(str::to_string)
}

/// The first `HEAD_MAX` bytes of `file`.
pub fn read_head(file: &File) -> Result<Vec<u8>, FsError> {
    let want = file.size().min(HEAD_MAX) as usize;
    let mut out = Vec::with_capacity(want);
    while out.len() < want {
        let chunk = file.read_at(out.len() as u64, (want - out.len()) as u32)?;
        if chunk.is_empty() {
            break;
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

/// The text of the first prompt among the scanned items (not harness context).
pub fn first_prompt(bytes: &[u8], scan: &Scan) -> Option<String> {
    scan.items.iter().find_map(|&(offset, len)| {
        let item: ResponseItem<'_> = serde_json::from_slice(&bytes[offset..offset + len]).ok()?;
        let is_prompt =
            item.kind.get() == Some("message") && item.role.get() == Some("user") && !item.is_injected_context();
        is_prompt.then(|| crate::native::join_text(item.content.0.as_deref().unwrap_or(&[]), "\n"))
    })
}

/// A `function_call_output`'s `output` as the TypeScript CLI wrote it:
/// the exit code in its JSON text's `metadata`, when there is one.
pub fn exit_code(output: Option<&RawValue>) -> Option<i64> {
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Wrapped {
        metadata: Lenient<Metadata>,
    }
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Metadata {
        exit_code: Option<i64>,
    }
    let Text(Some(text)) = serde_json::from_str::<Text<'_>>(output?.get()).ok()? else { return None };
    serde_json::from_str::<Wrapped>(&text).ok()?.metadata.0?.exit_code
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"{
  "session": {
    "timestamp": "2025-04-20T10:00:00.000Z",
    "id": "7f1d2c3b-0000-4000-8000-0000000000aa",
    "instructions": "Be brief. ] , { \" tricky"
  },
  "items": [
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi [there]"}]},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hello"}]}
  ]
}
"#;

    #[test]
    fn scans_the_session_and_every_item() {
        let bytes = DOC.as_bytes();
        let scan = scan(bytes).unwrap();
        assert!(scan.complete && scan.has_items);
        assert_eq!(scan.items.len(), 2);
        let (o, l) = scan.items[1];
        assert!(DOC[o..o + l].starts_with('{') && DOC[o..o + l].ends_with('}') && DOC[o..o + l].contains("hello"));
        let session = session(bytes, &scan).unwrap();
        assert_eq!(session.session_id(), Some("7f1d2c3b-0000-4000-8000-0000000000aa"));
        assert_eq!(session.instructions.get(), Some("Be brief. ] , { \" tricky"));
        assert_eq!(first_prompt(bytes, &scan).as_deref(), Some("hi [there]"));
        assert_eq!(is_document(bytes).as_deref(), Some("7f1d2c3b-0000-4000-8000-0000000000aa"));
    }

    #[test]
    fn a_head_gives_the_items_it_holds_whole() {
        let cut = DOC.find("hello").unwrap();
        let scan = scan(&DOC.as_bytes()[..cut]).unwrap();
        assert!(!scan.complete && scan.has_items);
        assert_eq!(scan.items.len(), 1);
        assert!(is_document(&DOC.as_bytes()[..cut]).is_some());
        // Cut inside the session object: no id known yet.
        let early = DOC.find("\"id\"").unwrap();
        assert!(is_document(&DOC.as_bytes()[..early]).is_none());
    }

    #[test]
    fn other_documents_are_not_rollouts() {
        for other in [
            r#"{"info": {"id": "ses_1"}, "messages": []}"#,
            r#"{"sessionId": "x", "messages": []}"#,
            r#"{"session": {"id": "x"}}"#,
            r#"{"session": "x", "items": []}"#,
            r#"[{"session": {"id": "x"}, "items": []}]"#,
            "{\"session\": {\"id\": \"x\"}, \"items\": {}}",
            "not json",
            "",
        ] {
            assert!(is_document(other.as_bytes()).is_none(), "{other}");
        }
    }

    #[test]
    fn exit_codes_come_from_the_output_metadata() {
        let raw = |s: &str| RawValue::from_string(s.to_string()).unwrap();
        let out = raw(r#""{\"output\":\"x\",\"metadata\":{\"exit_code\":3,\"duration_seconds\":0.1}}""#);
        assert_eq!(exit_code(Some(&out)), Some(3));
        assert_eq!(exit_code(Some(&raw(r#""plain text""#))), None);
        assert_eq!(exit_code(Some(&raw(r#"{"metadata":{"exit_code":0}}"#))), None);
        assert_eq!(exit_code(None), None);
    }
}
