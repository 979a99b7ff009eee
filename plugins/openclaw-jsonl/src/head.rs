//! Session facts from the head of a transcript, without reading it all:
//! the `session` header line and the first user prompt. Early Clawdbot
//! transcripts have no header: their lines are bare messages
//! (`{role, content, timestamp}`).

use serde_json::Value;
use trajhost_codec_sdk::fs::{File, FsError};
use trajhost_codec_sdk::head::{self, HEAD_MAX, HeadLines};
use trajhost_codec_sdk::json::str_of;

/// Characters of the first prompt used as a title when there is no other.
const TITLE_CHARS: usize = 80;

/// The shape of a transcript's lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Pi-style entries (`{type, id, parentId, …}`), a `session` header first.
    Entries,
    /// Bare messages without `type` (early Clawdbot).
    Flat,
}

/// What the head of a transcript says.
#[derive(Debug, Default, Clone)]
pub struct Head {
    pub id: Option<String>,
    /// The header's `version`: Pi's session format version, not OpenClaw's.
    pub format_version: Option<String>,
    pub cwd: Option<String>,
    /// The header's `timestamp`, else the first line's.
    pub started_at: Option<String>,
    /// `parentSession` (the transcript a fork or subagent came from).
    pub parent_session: Option<String>,
    /// Byte span of the header line.
    pub header_span: Option<(u64, u64)>,
    pub shape: Option<Shape>,
    first_prompt: Option<String>,
}

impl Head {
    pub fn scan(file: &File) -> Result<Head, FsError> {
        let mut head = Head::default();
        head::read_head(file, HEAD_MAX, &mut head)?;
        Ok(head)
    }

    /// The first prompt, whitespace collapsed and cut.
    pub fn prompt_title(&self) -> Option<String> {
        self.first_prompt.as_deref().and_then(|t| trajhost_codec_sdk::text::title_of(t, TITLE_CHARS))
    }

    fn take(&mut self, v: &Value, offset: u64, len: u64) {
        let kind = str_of(v, "type");
        if self.shape.is_none() {
            self.shape = match kind {
                Some(_) => Some(Shape::Entries),
                None if v.get("role").is_some() => Some(Shape::Flat),
                None => None,
            };
        }
        if self.started_at.is_none() {
            self.started_at = str_of(v, "timestamp").filter(|s| !s.is_empty()).map(str::to_string);
        }
        let message = match (kind, self.shape) {
            (Some("session"), _) if self.header_span.is_none() => {
                self.header_span = Some((offset, len));
                self.id = str_of(v, "id").filter(|s| !s.is_empty()).map(str::to_string);
                self.format_version = match v.get("version") {
                    Some(Value::Number(n)) => Some(n.to_string()),
                    Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
                    _ => None,
                };
                self.cwd = str_of(v, "cwd").filter(|s| !s.is_empty()).map(str::to_string);
                if let Some(ts) = str_of(v, "timestamp").filter(|s| !s.is_empty()) {
                    self.started_at = Some(ts.to_string());
                }
                self.parent_session = str_of(v, "parentSession").filter(|s| !s.is_empty()).map(str::to_string);
                return;
            }
            (Some("message"), _) => v.get("message"),
            (None, Some(Shape::Flat)) => Some(v),
            _ => None,
        };
        if self.first_prompt.is_none()
            && let Some(m) = message
            && str_of(m, "role") == Some("user")
        {
            self.first_prompt = Some(text_of(m.get("content")));
        }
    }
}

/// The text blocks of a message's content.
fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| str_of(b, "type") == Some("text"))
            .filter_map(|b| str_of(b, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

impl HeadLines for Head {
    fn line(&mut self, bytes: &[u8], offset: u64, len: u64) {
        if let Ok(v) = serde_json::from_slice::<Value>(bytes)
            && v.is_object()
        {
            self.take(&v, offset, len);
        }
    }

    fn enough(&self) -> bool {
        self.shape.is_some() && self.first_prompt.is_some()
    }
}
