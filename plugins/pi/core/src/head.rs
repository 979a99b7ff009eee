//! Session facts from the head of a file, without reading it all: the
//! title slot (Oh My Pi), the `session` header and the first user prompt.

use serde_json::Value;
use trajhost_codec_sdk::fs::{File, FsError};

use crate::native::{content_text, str_of, string_of};

/// Bytes read first.
pub const HEAD_BYTES: u32 = 64 * 1024;
/// How far the head read grows when the first lines are long.
const HEAD_MAX_BYTES: u64 = 1 << 20;
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
        let size = file.size();
        let mut head = Head::default();
        let mut buf = file.read_at(0, HEAD_BYTES)?;
        let mut done = 0;
        loop {
            done += head.feed(&buf[done..], done as u64);
            if buf.len() as u64 >= size {
                if done < buf.len()
                    && let Ok(v) = serde_json::from_slice::<Value>(&buf[done..])
                {
                    head.take(&v, done as u64, (buf.len() - done) as u64);
                }
                return Ok(head);
            }
            if (head.has_header() && head.first_prompt.is_some()) || buf.len() as u64 >= HEAD_MAX_BYTES {
                return Ok(head);
            }
            let more = file.read_at(buf.len() as u64, HEAD_BYTES)?;
            if more.is_empty() {
                return Ok(head);
            }
            buf.extend_from_slice(&more);
        }
    }

    /// Takes the facts from the complete lines of `buf` (file offset `base`);
    /// returns the bytes consumed.
    fn feed(&mut self, buf: &[u8], base: u64) -> usize {
        let mut pos = 0;
        while let Some(i) = buf[pos..].iter().position(|&b| b == b'\n') {
            let line = &buf[pos..pos + i];
            let offset = base + pos as u64;
            pos += i + 1;
            if let Ok(v) = serde_json::from_slice::<Value>(line) {
                self.take(&v, offset, (i + 1) as u64);
            }
        }
        pos
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
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.is_empty() {
        return None;
    }
    if collapsed.chars().count() > TITLE_CHARS {
        let mut cut: String = collapsed.chars().take(TITLE_CHARS - 1).collect();
        cut.push('…');
        return Some(cut);
    }
    Some(collapsed)
}
