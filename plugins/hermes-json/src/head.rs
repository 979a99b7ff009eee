//! Session facts from the head of a file, without reading or parsing it
//! all: discovery reads at most [`HEAD_MAX`] bytes of each.
//!
//! A log's top-level fields come in the order Hermes writes them
//! (`session_id`, `model`, `base_url`, `platform`, `session_start`,
//! `last_updated`, `system_prompt`, `tools`, `message_count`, `messages`);
//! the walk reads them one by one and stops at the first value the head
//! cuts (a long tool list), so a large file costs a bounded read. A
//! transcript's first line is the gateway's `session_meta`. Exports of
//! state.db rows are read too: `{"session": {…row…}, "messages": [rows]}`
//! or a bare array of message rows.

use serde_json::Value;
use serde_json::value::RawValue;
use trajhost_codec_sdk::fs::{File, FsError};
use trajhost_codec_sdk::head::{self, HEAD_MAX, HeadLines};
use trajhost_codec_sdk::json::str_of;

use crate::time;

/// Characters of the first prompt used as a title.
const TITLE_CHARS: usize = 80;

/// What the head of a session file says.
#[derive(Debug, Default, Clone)]
pub struct Head {
    /// The file looks like this format (a log's `session_id` or `messages`,
    /// a transcript's messages).
    pub recognized: bool,
    pub id: Option<String>,
    pub model: Option<String>,
    pub cwd: Option<String>,
    pub started_at: Option<String>,
    pub updated_at: Option<String>,
    /// An export's `session.title`.
    pub title: Option<String>,
    /// An export's `session.system_prompt` (a log's is read by `read`).
    pub system_prompt: Option<String>,
    first_prompt: Option<String>,
}

impl Head {
    pub fn title(&self) -> Option<String> {
        self.title
            .clone()
            .or_else(|| self.first_prompt.as_deref().and_then(|t| trajhost_codec_sdk::text::title_of(t, TITLE_CHARS)))
    }

    /// The head of a log (`session_<id>.json`).
    pub fn of_log(file: &File) -> Result<Head, FsError> {
        let buf = file.read_at(0, file.size().min(HEAD_MAX) as u32)?;
        Ok(scan_log(&buf))
    }

    /// The head of a gateway transcript (`<id>.jsonl`).
    pub fn of_transcript(file: &File) -> Result<Head, FsError> {
        let mut head = Lines(Head::default());
        head::read_head(file, HEAD_MAX, &mut head)?;
        Ok(head.0)
    }

    fn message(&mut self, m: &Value) {
        self.recognized |= str_of(m, "role").is_some();
        if self.id.is_none() {
            self.id = str_of(m, "session_id").filter(|s| !s.is_empty()).map(str::to_string);
        }
        if self.first_prompt.is_none() && str_of(m, "role") == Some("user") && m.get("_compressed_summary").is_none() {
            let text = crate::messages::content(
                m.get("content"),
                "user",
                "",
                0,
                &mut trajhost_codec_sdk::diag::Diagnostics::new(),
            )
            .text;
            self.first_prompt = Some(text);
        }
        if self.started_at.is_none() {
            self.started_at = m.get("timestamp").and_then(time::of_value);
        }
    }
}

fn skip_ws(buf: &[u8], mut pos: usize) -> usize {
    while buf.get(pos).is_some_and(u8::is_ascii_whitespace) {
        pos += 1;
    }
    pos
}

/// One JSON value at the start of `buf`, and the bytes it took.
fn value_at<'a, T: serde::Deserialize<'a>>(buf: &'a [u8]) -> Option<(T, usize)> {
    let mut stream = serde_json::Deserializer::from_slice(buf).into_iter::<T>();
    let value = stream.next()?.ok()?;
    Some((value, stream.byte_offset()))
}

/// The top-level fields of a log's head (see the module docs).
pub fn scan_log(buf: &[u8]) -> Head {
    let mut head = Head::default();
    let mut pos = skip_ws(buf, 0);
    if buf.get(pos) == Some(&b'[') {
        // An export of state.db rows: a bare array of messages.
        scan_messages(&buf[pos..], &mut head);
        return head;
    }
    if buf.get(pos) != Some(&b'{') {
        return head;
    }
    pos += 1;
    loop {
        pos = skip_ws(buf, pos);
        match buf.get(pos) {
            Some(b',') => {
                pos += 1;
                continue;
            }
            Some(b'"') => {}
            _ => return head,
        }
        let Some((key, n)) = value_at::<String>(&buf[pos..]) else { return head };
        pos = skip_ws(buf, pos + n);
        if buf.get(pos) != Some(&b':') {
            return head;
        }
        pos = skip_ws(buf, pos + 1);
        if key == "messages" {
            head.recognized = true;
            scan_messages(&buf[pos..], &mut head);
            return head;
        }
        let Some((raw, n)) = value_at::<&RawValue>(&buf[pos..]) else { return head };
        pos += n;
        let value = || serde_json::from_str::<Value>(raw.get()).ok();
        let text = || value().and_then(|v| v.as_str().filter(|s| !s.is_empty()).map(str::to_string));
        match key.as_str() {
            "session_id" => {
                head.recognized = true;
                head.id = text();
            }
            "model" => head.model = text(),
            "cwd" => head.cwd = text().or(head.cwd.take()),
            "model_config" if head.cwd.is_none() => {
                head.cwd = value().and_then(|v| str_of(&v, "cwd").filter(|s| !s.is_empty()).map(str::to_string));
            }
            // An export's session row (state.db `sessions` columns).
            "session" => {
                if let Some(row) = value().filter(Value::is_object) {
                    let text = |k: &str| str_of(&row, k).filter(|s| !s.is_empty()).map(str::to_string);
                    head.recognized = true;
                    head.id = text("id").or(head.id.take());
                    head.model = text("model").or(head.model.take());
                    head.cwd = text("cwd").or(head.cwd.take());
                    head.title = text("title");
                    head.started_at = row.get("started_at").and_then(time::of_value).or(head.started_at.take());
                    head.updated_at = row.get("ended_at").and_then(time::of_value).or(head.updated_at.take());
                    head.system_prompt = text("system_prompt");
                }
            }
            "session_start" => head.started_at = value().as_ref().and_then(time::of_value),
            "last_updated" => head.updated_at = value().as_ref().and_then(time::of_value),
            _ => {}
        }
    }
}

/// The elements of the `messages` array, as far as the head holds them,
/// until the first user prompt.
fn scan_messages(buf: &[u8], head: &mut Head) {
    let mut pos = skip_ws(buf, 0);
    if buf.get(pos) != Some(&b'[') {
        return;
    }
    pos += 1;
    while head.first_prompt.is_none() {
        pos = skip_ws(buf, pos);
        match buf.get(pos) {
            Some(b',') => {
                pos += 1;
                continue;
            }
            Some(b'{') => {}
            _ => return,
        }
        let Some((m, n)) = value_at::<Value>(&buf[pos..]) else { return };
        pos += n;
        head.message(&m);
    }
}

/// A transcript's head lines.
struct Lines(Head);

impl HeadLines for Lines {
    fn line(&mut self, bytes: &[u8], _offset: u64, _len: u64) {
        let Ok(v) = serde_json::from_slice::<Value>(bytes) else { return };
        if str_of(&v, "role").is_none() {
            return;
        }
        let head = &mut self.0;
        head.recognized = true;
        if str_of(&v, "role") == Some("session_meta") {
            if head.model.is_none() {
                head.model = str_of(&v, "model").filter(|s| !s.is_empty()).map(str::to_string);
            }
            if head.started_at.is_none() {
                head.started_at = v.get("timestamp").and_then(time::of_value);
            }
            return;
        }
        head.message(&v);
    }

    fn enough(&self) -> bool {
        self.0.recognized && self.0.first_prompt.is_some()
    }
}
