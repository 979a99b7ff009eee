//! This codec's export file, `.deepagents/.state/sessions.export.jsonl`
//! (the guest cannot create SQLite files): what `prepare` turns into one
//! LangGraph checkpoint row of `sessions.db`, as JSON lines.
//!
//! - one line per message of the `messages` channel, in order:
//!   `{"message": {"module", "class", "fields"}}`, `fields` being the
//!   LangChain message's `model_dump()` (what LangGraph's serializer
//!   stores in its pydantic extension);
//! - one closing line `{"thread": {"thread_id", "checkpoint_id",
//!   "metadata"}}` (the metadata names the last message's time, known only
//!   at the end: putting it last lets the writer stream).
//!
//! `discover` and `read` read it back through the same message mapping as
//! a `sessions.db`.

use serde_json::{Value as Json, json};
use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::jsonl::{WholeLine, non_blank_lines};

use crate::messages::Entry;

pub const FILE: &str = ".deepagents/.state/sessions.export.jsonl";

/// One message line.
pub fn message_line(module: &str, class: &str, fields: &Json) -> Vec<u8> {
    let mut line = serde_json::to_vec(&json!({"message": {"module": module, "class": class, "fields": fields}}))
        .expect("JSON serializes");
    line.push(b'\n');
    line
}

/// The closing line.
pub fn thread_line(thread_id: &str, checkpoint_id: &str, metadata: &Json) -> Vec<u8> {
    let mut line = serde_json::to_vec(
        &json!({"thread": {"thread_id": thread_id, "checkpoint_id": checkpoint_id, "metadata": metadata}}),
    )
    .expect("JSON serializes");
    line.push(b'\n');
    line
}

/// A message as the export holds it.
#[derive(Debug, Clone)]
pub struct Message {
    pub module: String,
    pub class: String,
    pub fields: Json,
    /// Byte offset of its line.
    pub offset: u64,
}

/// A whole export file.
#[derive(Debug, Clone)]
pub struct Export {
    pub thread_id: String,
    pub checkpoint_id: String,
    pub metadata: Json,
    pub messages: Vec<Message>,
    /// Byte offset of the thread line.
    pub thread_offset: u64,
}

impl Export {
    /// The messages as the reader's list entries (`rowid` = line offset).
    pub fn entries(&self) -> Vec<Entry> {
        self.messages
            .iter()
            .enumerate()
            .map(|(index, m)| Entry {
                fields: m.fields.clone(),
                rowid: m.offset as i64,
                from_snapshot: true,
                ts_ms: None,
                index,
            })
            .collect()
    }

    pub fn meta_str(&self, key: &str) -> Option<&str> {
        self.metadata.get(key).and_then(Json::as_str).filter(|s| !s.is_empty())
    }
}

pub fn parse(bytes: &[u8], file: &str) -> Result<Export, CodecError> {
    let mut messages = Vec::new();
    let mut thread = None;
    for WholeLine { offset: at, bytes: line, .. } in non_blank_lines(bytes) {
        let bad = |what: &str| CodecError::Malformed(format!("{file}: line at byte {at}: {what}"));
        let v: Json = serde_json::from_slice(line).map_err(|e| bad(&format!("not JSON ({e})")))?;
        if let Some(t) = v.get("thread") {
            if thread.is_some() {
                return Err(bad("a second thread line"));
            }
            let text =
                |k: &str| t.get(k).and_then(Json::as_str).map(str::to_string).ok_or_else(|| bad(&format!("no {k}")));
            thread = Some((text("thread_id")?, text("checkpoint_id")?, t.get("metadata").cloned(), at));
            continue;
        }
        let m = v.get("message").ok_or_else(|| bad("neither a message nor the thread line"))?;
        let text = |k: &str| m.get(k).and_then(Json::as_str).map(str::to_string).ok_or_else(|| bad(&format!("no {k}")));
        let fields = m.get("fields").filter(|f| f.is_object()).cloned().ok_or_else(|| bad("no fields object"))?;
        messages.push(Message { module: text("module")?, class: text("class")?, fields, offset: at });
    }
    let (thread_id, checkpoint_id, metadata, thread_offset) =
        thread.ok_or_else(|| CodecError::Malformed(format!("{file}: no thread line")))?;
    let metadata = metadata.filter(Json::is_object).unwrap_or_else(|| json!({}));
    Ok(Export { thread_id, checkpoint_id, metadata, messages, thread_offset })
}
