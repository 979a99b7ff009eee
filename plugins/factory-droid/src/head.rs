//! Session facts from the start of a session file, without reading it all:
//! what `discover` lists and what the `meta` record carries.
//!
//! `session_start` is the first line; it has no timestamp, so the session
//! starts at the first line that has one (the injected context message,
//! written with the first prompt).

use trajhost_codec_sdk::fs::{File, FsError};

use crate::native::{self, Content, Entry};

/// Bytes read from the start of a file for its session facts.
pub const HEAD_BYTES: u32 = 64 * 1024;
/// How far the head read goes when the first lines are longer (the
/// injected context message is several KiB).
const HEAD_MAX_BYTES: u64 = 1 << 20;
/// Characters of the first prompt used as a title when there is no other.
const TITLE_CHARS: usize = 80;

/// What the first lines of a session file say.
#[derive(Debug, Default, Clone)]
pub struct Head {
    /// `session_start.id`.
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    /// The session format version.
    pub version: Option<String>,
    /// First `timestamp` of any line.
    pub started_at: Option<String>,
    /// Byte span of the `session_start` line.
    pub start_span: Option<(u64, u64)>,
    title: Option<String>,
    first_prompt: Option<String>,
}

impl Head {
    /// `session_start`'s title, else the first prompt.
    pub fn title(&self) -> Option<String> {
        self.title.clone().or_else(|| self.first_prompt.clone())
    }

    /// Reads the head of `file`.
    pub fn scan(file: &File) -> Result<Head, FsError> {
        let size = file.size();
        let mut head = Head::default();
        let mut buf = file.read_at(0, HEAD_BYTES)?;
        let mut done = 0;
        loop {
            done += head.feed(&buf[done..], done as u64);
            if buf.len() as u64 >= size {
                if done < buf.len()
                    && let Ok(entry) = native::parse(&buf[done..])
                {
                    head.take(&entry, done as u64, (buf.len() - done) as u64);
                }
                return Ok(head);
            }
            if (head.session_id.is_some() && head.started_at.is_some() && head.first_prompt.is_some())
                || buf.len() as u64 >= HEAD_MAX_BYTES
            {
                return Ok(head);
            }
            let more = file.read_at(buf.len() as u64, HEAD_BYTES)?;
            if more.is_empty() {
                return Ok(head);
            }
            buf.extend_from_slice(&more);
        }
    }

    fn feed(&mut self, buf: &[u8], base: u64) -> usize {
        let mut pos = 0;
        while let Some(i) = memchr::memchr(b'\n', &buf[pos..]) {
            let line = &buf[pos..pos + i];
            let offset = base + pos as u64;
            pos += i + 1;
            if let Ok(entry) = native::parse(line) {
                self.take(&entry, offset, (i + 1) as u64);
            }
        }
        pos
    }

    fn take(&mut self, entry: &Entry, offset: u64, len: u64) {
        if self.started_at.is_none() {
            self.started_at = entry.timestamp.clone();
        }
        match entry.kind.as_deref() {
            Some("session_start") if self.start_span.is_none() => {
                self.start_span = Some((offset, len));
                self.session_id = entry.id.clone().filter(|s| !s.is_empty());
                self.cwd = entry.cwd.clone().filter(|s| !s.is_empty());
                self.version = entry.format_version();
                self.title = entry
                    .session_title
                    .as_deref()
                    .or(entry.title.as_deref())
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_string);
            }
            Some("message") if self.first_prompt.is_none() => {
                let Some(message) = &entry.message else { return };
                if message.role.as_deref() != Some("user") || is_context(message) {
                    return;
                }
                let text = user_text(&message.content);
                if !text.trim().is_empty() {
                    self.first_prompt = Some(title_of(&text));
                }
            }
            _ => {}
        }
    }
}

/// Context the harness injects for the model only (system reminders).
pub fn is_context(message: &native::Message) -> bool {
    message.visibility.as_deref() == Some("llm_only")
}

/// The text blocks of a user message, joined.
pub fn user_text(content: &Content) -> String {
    match content {
        Content::Text(s) => s.clone(),
        Content::Blocks(blocks) => {
            let mut out = String::new();
            for text in blocks.iter().filter(|b| b.kind.as_deref() == Some("text")).filter_map(|b| b.text.as_deref()) {
                if !out.is_empty() {
                    out.push_str("\n\n");
                }
                out.push_str(text);
            }
            out
        }
        Content::None | Content::Unrecognized => String::new(),
    }
}

/// Whitespace collapsed, at most [`TITLE_CHARS`] characters.
pub fn title_of(text: &str) -> String {
    let mut out = String::new();
    for (n, word) in text.split_whitespace().enumerate() {
        if n > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > TITLE_CHARS {
            break;
        }
    }
    if out.chars().count() > TITLE_CHARS {
        out = out.chars().take(TITLE_CHARS - 1).collect::<String>();
        out.push('…');
    }
    out
}
