//! Session-level facts computed while canonical records stream past: the
//! snapshot id and the ending status.
//!
//! # The snapshot id
//!
//! `sha256:<hex>` over the session's canonical records, in order, each in a
//! canonical encoding (object keys sorted, every value length-prefixed), so
//! two reads that yield the same records give the same id and any change to
//! a record gives another. The first record (the session's `meta`) is hashed
//! apart: the id is `sha256(encoding(first) ‖ sha256(encoding(rest…)))`, so
//! that a session continued from a resume point (whose `meta` may change,
//! a title appended late) gets the id a whole read gives, from the saved
//! state of the rest's hasher ([`SessionDigest::save`]) and its new `meta`. The id covers what the records *say*, byte
//! offsets included, and leaves out who read them and where the file lay:
//!
//! - the `codec` field of `meta` (`harness@version`) is skipped, so an
//!   upgraded codec that reads the same bytes into the same records keeps
//!   the id;
//! - `src.file` is replaced by the ordinal of that file among the session's
//!   files (0 for the first file seen, 1 for the next, …); `src.offset` and
//!   `src.len` stay;
//! - where a record's `id` or `parent` embeds its `src.file` (ids made from
//!   the byte location, `toy/a.jsonl@120`), that path is replaced by the
//!   same ordinal.
//!
//! So the same file read in place, copied to another folder under another
//! name, or read by the next codec version has one id, as long as the codec
//! derives the other fields (`native_id` among them) from the content.

use std::collections::BTreeSet;

use serde::Deserialize as _;
use serde_json::Value;
use sha2_resumable::digest::common::hazmat::{SerializableState, SerializedState};
use sha2_resumable::{Digest as _, Sha256};

use trajhost_canonical::{Body, Record};

/// How a session ended, judged from its records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// The last turn finished: the model answered and no call is pending.
    Completed,
    /// The last turn ended in an error the harness recorded.
    Error,
    /// The user or harness interrupted the last turn.
    Aborted,
    /// The records stop mid-turn: a prompt or tool result awaits an answer,
    /// or a tool call awaits its result.
    Open,
}

impl Ending {
    /// The name used in every output (`completed`, `error`, `aborted`, `open`).
    pub fn name(self) -> &'static str {
        match self {
            Ending::Completed => "completed",
            Ending::Error => "error",
            Ending::Aborted => "aborted",
            Ending::Open => "open",
        }
    }
}

impl std::fmt::Display for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What [`SessionDigest::save`] keeps.
#[derive(serde::Serialize, serde::Deserialize)]
struct Saved {
    /// The rest's hasher state, hex.
    hasher: String,
    records: u64,
    files: Vec<String>,
    pending_calls: BTreeSet<String>,
    last: Option<String>,
    trailing: Option<Ending>,
}

/// A saved digest state that is not one.
#[derive(Debug, thiserror::Error)]
#[error("not a saved snapshot digest: {0}")]
pub struct BadDigestState(String);

/// A record line that is not a canonical record.
#[derive(Debug, thiserror::Error)]
#[error("not a canonical record: {0}")]
pub struct NotCanonical(#[from] serde_json::Error);

/// Accumulates one session's records.
#[derive(Default, Clone)]
pub struct SessionDigest {
    /// The encoding of the first record, hashed apart (see the module docs).
    first: Option<Vec<u8>>,
    /// The records after the first.
    hasher: Sha256,
    records: u64,
    /// Every `src.file` seen, in order of first appearance: a file's index
    /// here stands for its path in the snapshot id.
    files: Vec<String>,
    /// Reused for each record's encoding.
    buf: Vec<u8>,
    pending_calls: BTreeSet<String>,
    /// The last conversational kind of the main transcript.
    last: Option<&'static str>,
    /// An error or abort observed after the last assistant answer.
    trailing: Option<Ending>,
}

impl SessionDigest {
    pub fn new() -> SessionDigest {
        SessionDigest::default()
    }

    /// Parses one canonical record line, adds it, and returns the record.
    pub fn push_line(&mut self, line: &str) -> Result<Record, NotCanonical> {
        let value: Value = serde_json::from_str(line)?;
        let record = Record::deserialize(&value)?;
        self.push(&value, &record);
        Ok(record)
    }

    /// Adds one record: `value` is its JSON as the codec sent it, `record`
    /// the same parsed.
    pub fn push(&mut self, value: &Value, record: &Record) {
        self.hash_record(value, record);
        self.records += 1;
        self.follow(record);
    }

    /// Feeds the record's canonical encoding, without the codec's identity
    /// and with file paths replaced by ordinals (see the module docs).
    fn hash_record(&mut self, value: &Value, record: &Record) {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        match value {
            Value::Object(fields) => {
                let file = record.src.as_ref().map(|src| (src.file.as_str(), self.file_ordinal(&src.file)));
                let is_meta = matches!(record.body, Body::Meta(_));
                let mut keys: Vec<&String> = fields.keys().filter(|k| !(is_meta && k.as_str() == "codec")).collect();
                if !keys.is_sorted() {
                    keys.sort_unstable();
                }
                buf.push(b'{');
                push_len(&mut buf, keys.len());
                for key in keys {
                    let field = &fields[key];
                    encode_str(&mut buf, key);
                    match (key.as_str(), field, &file) {
                        ("src", Value::Object(src), Some((_, ordinal))) => encode_object(&mut buf, src, Some(ordinal)),
                        ("id" | "parent", Value::String(text), Some((path, ordinal)))
                            if !path.is_empty() && text.contains(path) =>
                        {
                            encode_str(&mut buf, &text.replace(path, ordinal));
                        }
                        _ => encode(&mut buf, field),
                    }
                }
            }
            other => encode(&mut buf, other),
        }
        if self.first.is_none() {
            self.first = Some(buf.clone());
        } else {
            self.hasher.update(&buf);
        }
        self.buf = buf;
    }

    /// `\0file<N>\0`, where N is the file's index among those seen.
    fn file_ordinal(&mut self, file: &str) -> String {
        let ordinal = match self.files.iter().position(|f| f == file) {
            Some(i) => i,
            None => {
                self.files.push(file.to_string());
                self.files.len() - 1
            }
        };
        format!("\u{0}file{ordinal}\u{0}")
    }

    /// Tracks the conversation's state for the ending.
    fn follow(&mut self, record: &Record) {
        if record.agent.is_some() {
            return;
        }
        match &record.body {
            Body::User { .. } => {
                self.last = Some("user");
                self.trailing = None;
            }
            Body::Assistant(_) => {
                self.last = Some("assistant");
                self.trailing = None;
            }
            Body::ToolCall { call_id, .. } => {
                self.pending_calls.insert(call_id.clone());
                self.last = Some("tool_call");
            }
            Body::ToolResult { call_id, .. } => {
                self.pending_calls.remove(call_id);
                self.last = Some("tool_result");
            }
            Body::Observation { subtype, .. } => {
                let subtype = subtype.to_ascii_lowercase();
                if subtype.contains("abort") || subtype.contains("interrupt") || subtype.contains("cancel") {
                    self.trailing = Some(Ending::Aborted);
                } else if subtype.contains("error") {
                    self.trailing = Some(Ending::Error);
                }
            }
            _ => {}
        }
    }

    pub fn records(&self) -> u64 {
        self.records
    }

    /// `sha256:<hex>` of the canonical records.
    pub fn snapshot_id(&self) -> String {
        let mut id = Sha256::new();
        id.update(self.first.as_deref().unwrap_or_default());
        id.update(self.hasher.clone().finalize());
        format!("sha256:{}", hex::encode(id.finalize()))
    }

    /// The state after the records so far, to continue from with
    /// [`SessionDigest::resume`] (kept with a resume point).
    pub fn save(&self) -> Vec<u8> {
        let saved = Saved {
            hasher: hex::encode(self.hasher.serialize()),
            records: self.records,
            files: self.files.clone(),
            pending_calls: self.pending_calls.clone(),
            last: self.last.map(String::from),
            trailing: self.trailing,
        };
        serde_json::to_vec(&saved).expect("the digest state serializes")
    }

    /// Continues from a state [`SessionDigest::save`] gave, for a stream
    /// that starts with the session's `meta` again (replacing the first
    /// record) and goes on with the records after the saved ones.
    pub fn resume(saved: &[u8]) -> Result<SessionDigest, BadDigestState> {
        let saved: Saved = serde_json::from_slice(saved).map_err(|e| BadDigestState(e.to_string()))?;
        let bytes = hex::decode(&saved.hasher).map_err(|e| BadDigestState(e.to_string()))?;
        let state = SerializedState::<Sha256>::try_from(bytes.as_slice())
            .map_err(|_| BadDigestState(format!("a hasher state of {} bytes", bytes.len())))?;
        let hasher =
            Sha256::deserialize(&state).map_err(|_| BadDigestState("a hasher state that is not one".into()))?;
        let last = match saved.last.as_deref() {
            None => None,
            Some(kind) => Some(
                ["user", "assistant", "tool_call", "tool_result"]
                    .into_iter()
                    .find(|k| *k == kind)
                    .ok_or_else(|| BadDigestState(format!("last kind {kind:?}")))?,
            ),
        };
        Ok(SessionDigest {
            first: None,
            hasher,
            // The new `meta` stands in for the first record.
            records: saved.records.saturating_sub(1),
            files: saved.files,
            buf: Vec::new(),
            pending_calls: saved.pending_calls,
            last,
            trailing: saved.trailing,
        })
    }

    pub fn ending(&self) -> Ending {
        if let Some(trailing) = self.trailing {
            return trailing;
        }
        match self.last {
            Some("assistant") if self.pending_calls.is_empty() => Ending::Completed,
            None => Ending::Open,
            _ => Ending::Open,
        }
    }
}

/// A canonical, unambiguous encoding: a type tag, then lengths before
/// contents, object keys sorted. Written to a buffer hashed once per record
/// (many small hasher updates cost more than the parse).
fn encode(buf: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => buf.push(b'n'),
        Value::Bool(true) => buf.push(b't'),
        Value::Bool(false) => buf.push(b'f'),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                buf.push(b'u');
                buf.extend_from_slice(&u.to_le_bytes());
            } else if let Some(i) = n.as_i64() {
                buf.push(b'i');
                buf.extend_from_slice(&i.to_le_bytes());
            } else {
                buf.push(b'd');
                buf.extend_from_slice(&n.as_f64().unwrap_or(f64::NAN).to_bits().to_le_bytes());
            }
        }
        Value::String(s) => encode_str(buf, s),
        Value::Array(items) => {
            buf.push(b'[');
            push_len(buf, items.len());
            for item in items {
                encode(buf, item);
            }
        }
        Value::Object(fields) => encode_object(buf, fields, None),
    }
}

/// An object; `file` replaces the value of its `file` key (for `src`).
fn encode_object(buf: &mut Vec<u8>, fields: &serde_json::Map<String, Value>, file: Option<&str>) {
    buf.push(b'{');
    push_len(buf, fields.len());
    let put = |buf: &mut Vec<u8>, key: &String, value: &Value| {
        encode_str(buf, key);
        match file {
            Some(file) if key == "file" => encode_str(buf, file),
            _ => encode(buf, value),
        }
    };
    // serde_json's map is sorted unless its `preserve_order` feature is on.
    if fields.keys().is_sorted() {
        for (key, value) in fields {
            put(buf, key, value);
        }
    } else {
        let mut entries: Vec<(&String, &Value)> = fields.iter().collect();
        entries.sort_unstable_by_key(|(k, _)| *k);
        for (key, value) in entries {
            put(buf, key, value);
        }
    }
}

fn encode_str(buf: &mut Vec<u8>, text: &str) {
    buf.push(b's');
    push_len(buf, text.len());
    buf.extend_from_slice(text.as_bytes());
}

fn push_len(buf: &mut Vec<u8>, len: usize) {
    buf.extend_from_slice(&(len as u64).to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use trajhost_canonical::Assistant;

    fn push(d: &mut SessionDigest, body: Body) {
        let record = Record { id: "x".into(), body, parent: None, ts: None, agent: None, src: None };
        let line = serde_json::to_string(&record).unwrap();
        d.push_line(&line).unwrap();
    }

    fn id_of(lines: &[&str]) -> String {
        let mut d = SessionDigest::new();
        for line in lines {
            d.push_line(line).unwrap();
        }
        d.snapshot_id()
    }

    fn user() -> Body {
        Body::User { text: "q".into(), attachments: vec![] }
    }

    fn answer() -> Body {
        Body::Assistant(Assistant { text: "a".into(), ..Default::default() })
    }

    #[test]
    fn endings() {
        let mut d = SessionDigest::new();
        push(&mut d, user());
        assert_eq!(d.ending(), Ending::Open);
        push(&mut d, Body::ToolCall { call_id: "c".into(), name: "sh".into(), arguments: serde_json::json!({}) });
        push(&mut d, answer());
        assert_eq!(d.ending(), Ending::Open, "a call without its result");
        push(&mut d, Body::ToolResult { call_id: "c".into(), content: "r".into(), ok: None });
        push(&mut d, answer());
        assert_eq!(d.ending(), Ending::Completed);
        push(&mut d, Body::Observation { subtype: "turn_aborted".into(), text: None });
        assert_eq!(d.ending(), Ending::Aborted);
        push(&mut d, user());
        push(&mut d, Body::Observation { subtype: "system/api_error".into(), text: None });
        assert_eq!(d.ending(), Ending::Error);
    }

    #[test]
    fn a_resumed_digest_with_a_new_meta_gives_the_whole_reads_id() {
        let meta = |title: &str| {
            format!(
                r#"{{"id":"m","kind":"meta","schema":"s","harness":"toy","native_id":"a","codec":"toy@1","title":"{title}"}}"#
            )
        };
        let line = |body: Body, n: u64| {
            let src = trajhost_canonical::SourceSpan { file: "s.jsonl".into(), offset: n * 10, len: 10 };
            let record = Record { id: format!("r{n}"), body, parent: None, ts: None, agent: None, src: Some(src) };
            serde_json::to_string(&record).unwrap()
        };
        let call = Body::ToolCall { call_id: "c".into(), name: "sh".into(), arguments: serde_json::json!({}) };
        let result = Body::ToolResult { call_id: "c".into(), content: "r".into(), ok: None };
        let before = [meta("old"), line(user(), 1), line(call, 2)];
        let after = [line(result, 3), line(answer(), 4)];

        let mut whole = SessionDigest::new();
        whole.push_line(&meta("new")).unwrap();
        for l in before[1..].iter().chain(&after) {
            whole.push_line(l).unwrap();
        }
        let mut first = SessionDigest::new();
        for l in &before {
            first.push_line(l).unwrap();
        }
        assert_eq!(first.ending(), Ending::Open, "a call waits for its result");
        let mut resumed = SessionDigest::resume(&first.save()).unwrap();
        resumed.push_line(&meta("new")).unwrap();
        for l in &after {
            resumed.push_line(l).unwrap();
        }
        assert_eq!(resumed.snapshot_id(), whole.snapshot_id());
        assert_eq!(resumed.records(), whole.records());
        assert_eq!(resumed.ending(), Ending::Completed, "the call's result came after the point");
        assert!(SessionDigest::resume(b"{}").is_err());
    }

    #[test]
    fn snapshot_ids_follow_the_records() {
        let (mut a, mut b, mut c) = (SessionDigest::new(), SessionDigest::new(), SessionDigest::new());
        push(&mut a, user());
        push(&mut b, user());
        push(&mut c, answer());
        assert_eq!(a.snapshot_id(), b.snapshot_id());
        assert_ne!(a.snapshot_id(), c.snapshot_id());
        assert!(a.snapshot_id().starts_with("sha256:"));
    }

    #[test]
    fn snapshot_ids_ignore_the_codec_and_the_file_path_but_not_offsets() {
        let meta = |codec: &str| {
            format!(r#"{{"id":"m","kind":"meta","schema":"s","harness":"toy","native_id":"a","codec":"{codec}"}}"#)
        };
        let user = |file: &str, offset: u64| {
            format!(
                r#"{{"id":"{file}@{offset}","kind":"user","text":"hi","src":{{"file":"{file}","offset":{offset},"len":9}}}}"#
            )
        };
        let base = id_of(&[&meta("toy@1.0.0"), &user("toy/a.jsonl", 40)]);
        assert_eq!(base, id_of(&[&meta("toy@2.0.0"), &user("toy/a.jsonl", 40)]), "the codec version does not count");
        assert_eq!(
            base,
            id_of(&[&meta("toy@1.0.0"), &user("copy.jsonl", 40)]),
            "nor the file's path, in src or in the id"
        );
        assert_ne!(base, id_of(&[&meta("toy@1.0.0"), &user("toy/a.jsonl", 41)]), "offsets count");
        let moved_meta = r#"{"id":"m","kind":"meta","schema":"s","harness":"toy","native_id":"b","codec":"toy@1.0.0"}"#;
        assert_ne!(base, id_of(&[moved_meta, &user("toy/a.jsonl", 40)]), "meta fields other than codec count");
        // Key order is not content.
        let reordered = r#"{"kind":"user","src":{"len":9,"offset":40,"file":"x.jsonl"},"text":"hi","id":"x.jsonl@40"}"#;
        assert_eq!(base, id_of(&[&meta("toy@1.0.0"), reordered]));
        // Two files stay two files.
        let one_file = id_of(&[&user("a.jsonl", 0), &user("a.jsonl", 10)]);
        assert_ne!(one_file, id_of(&[&user("a.jsonl", 0), &user("b.jsonl", 10)]));
        assert_eq!(
            id_of(&[&user("a.jsonl", 0), &user("b.jsonl", 10)]),
            id_of(&[&user("c.jsonl", 0), &user("d.jsonl", 10)])
        );
        // A string that merely equals another field's path is content.
        assert_ne!(
            id_of(&[r#"{"id":"r","kind":"user","text":"a.jsonl","src":{"file":"a.jsonl","offset":0,"len":1}}"#]),
            id_of(&[r#"{"id":"r","kind":"user","text":"b.jsonl","src":{"file":"b.jsonl","offset":0,"len":1}}"#])
        );
    }

    #[test]
    fn a_line_that_is_not_a_record_is_an_error() {
        let mut d = SessionDigest::new();
        assert!(d.push_line("{\"kind\":\"nonsense\"}").is_err());
        assert!(d.push_line("not json").is_err());
        assert_eq!(d.records(), 0);
    }

    #[test]
    fn ending_names() {
        let names: Vec<String> =
            [Ending::Completed, Ending::Error, Ending::Aborted, Ending::Open].iter().map(|e| e.to_string()).collect();
        assert_eq!(names, ["completed", "error", "aborted", "open"]);
        for e in [Ending::Completed, Ending::Error, Ending::Aborted, Ending::Open] {
            assert_eq!(serde_json::to_value(e).unwrap(), e.name());
        }
    }
}
