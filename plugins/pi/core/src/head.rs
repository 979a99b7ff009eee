//! Session facts from the head of a file, without reading it all: the
//! title slot (Oh My Pi), the `session` header and the first user prompt.

use serde_json::Value;
use trajhost_codec_sdk::fs::{File, FsError};
use trajhost_codec_sdk::head::{self, HEAD_MAX, HeadLines};

use crate::native::{content_text, str_of, string_of};

/// Characters of the first prompt used as a title when there is no other.
const TITLE_CHARS: usize = 80;

/// What the head of a session file says.
#[derive(Debug, Default, Clone)]
pub struct Head {
    /// The header's `id`.
    pub id: Option<String>,
    /// The header's `version` (the session format version).
    pub version: Option<String>,
    pub cwd: Option<String>,
    /// The header's `timestamp`.
    pub started_at: Option<String>,
    /// `parentSession` (a fork's or subagent's parent session file).
    pub parent_session: Option<String>,
    /// Byte span of the header line.
    pub header_span: Option<(u64, u64)>,
    /// The title slot's title (Oh My Pi), or the header's `title`.
    slot_title: Option<String>,
    header_title: Option<String>,
    first_prompt: Option<String>,
}

impl Head {
    /// The best title: the title slot, the header's title, the first prompt.
    pub fn title(&self) -> Option<String> {
        self.slot_title.clone().or_else(|| self.header_title.clone()).or_else(|| self.first_prompt.clone())
    }

    /// The `session` header was found.
    pub fn has_header(&self) -> bool {
        self.header_span.is_some()
    }

    /// Reads the head of `file`, growing the read (within a bound) until the
    /// header and the first user prompt are seen.
    pub fn scan(file: &File) -> Result<Head, FsError> {
        let mut head = Head::default();
        head::read_head(file, HEAD_MAX, &mut head)?;
        Ok(head)
    }

    fn take(&mut self, v: &Value, offset: u64, len: u64) {
        match str_of(v, "type") {
            Some("title") if self.slot_title.is_none() && !self.has_header() => {
                self.slot_title = string_of(v, "title").map(|t| t.trim().to_string()).filter(|t| !t.is_empty());
            }
            Some("session") if !self.has_header() => {
                self.header_span = Some((offset, len));
                self.id = string_of(v, "id");
                self.version = match v.get("version") {
                    Some(Value::Number(n)) => Some(n.to_string()),
                    Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
                    // Version 1 files have no version field.
                    _ => Some("1".to_string()),
                };
                self.cwd = string_of(v, "cwd");
                self.started_at = string_of(v, "timestamp");
                self.parent_session = string_of(v, "parentSession");
                self.header_title = string_of(v, "title").map(|t| t.trim().to_string()).filter(|t| !t.is_empty());
            }
            Some("message") if self.first_prompt.is_none() => {
                let message = v.get("message").unwrap_or(&Value::Null);
                if str_of(message, "role") == Some("user") {
                    self.first_prompt = prompt_title(&content_text(message.get("content"), |_, _| {}));
                }
            }
            _ => {}
        }
    }
}

/// The first prompt, whitespace collapsed, cut to [`TITLE_CHARS`].
fn prompt_title(text: &str) -> Option<String> {
    trajhost_codec_sdk::text::title_of(text, TITLE_CHARS)
}

impl HeadLines for Head {
    fn line(&mut self, bytes: &[u8], offset: u64, len: u64) {
        if let Ok(v) = serde_json::from_slice::<Value>(bytes) {
            self.take(&v, offset, len);
        }
    }

    fn enough(&self) -> bool {
        self.has_header() && self.first_prompt.is_some()
    }
}
