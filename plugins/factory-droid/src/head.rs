//! Session facts from the start of a session file, without reading it all:
//! what `discover` lists and what the `meta` record carries.
//!
//! `session_start` is the first line; it has no timestamp, so the session
//! starts at the first line that has one (the injected context message,
//! written with the first prompt).

use trajhost_codec_sdk::fs::{File, FsError};
use trajhost_codec_sdk::head::{self, HEAD_MAX, HeadLines};

use crate::native::{self, Content, Entry};

/// Characters of the first prompt used as a title when there is no other.
const TITLE_CHARS: usize = 80;

/// What the first lines of a session file say.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
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

    /// Reads the head of `file` (it grows past the first step while the
    /// injected context message, several KiB, keeps the prompt out).
    pub fn scan(file: &File) -> Result<Head, FsError> {
        Ok(Head::scan_settled(file)?.0)
    }

    /// The head, and whether later lines can no longer change it: it has
    /// all it looks for, or the scan stopped short of the file's end.
    pub fn scan_settled(file: &File) -> Result<(Head, bool), FsError> {
        let mut head = Head::default();
        let read = head::read_head(file, HEAD_MAX, &mut head)?;
        let settled = head.enough() || !read.whole;
        Ok((head, settled))
    }

    /// Why the head is not a Droid session's, for a diagnostic.
    pub fn not_a_session(&self) -> Option<&'static str> {
        self.start_span.is_none().then_some("no session_start line at the head")
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
                let (_, typed) = split_reminders(&text);
                if !typed.trim().is_empty() {
                    self.first_prompt = Some(title_of(typed));
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

/// The `<system-reminder>…</system-reminder>` blocks the harness put
/// before what the person typed in the same text (without marking the
/// message `llm_only`), and the rest.
pub fn split_reminders(text: &str) -> (Option<&str>, &str) {
    const OPEN: &str = "<system-reminder>";
    const CLOSE: &str = "</system-reminder>";
    let mut rest = text;
    let mut end = 0;
    while let Some(after) = rest.trim_start().strip_prefix(OPEN) {
        let Some(close) = after.find(CLOSE) else { break };
        let tail = &after[close + CLOSE.len()..];
        end = text.len() - tail.len();
        rest = tail;
    }
    if end == 0 {
        return (None, text);
    }
    (Some(&text[..end]), rest.trim_start())
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
    trajhost_codec_sdk::text::title_of(text, TITLE_CHARS).unwrap_or_default()
}

impl HeadLines for Head {
    fn line(&mut self, bytes: &[u8], offset: u64, len: u64) {
        if let Ok(entry) = native::parse(bytes) {
            self.take(&entry, offset, len);
        }
    }

    fn enough(&self) -> bool {
        self.session_id.is_some() && self.started_at.is_some() && self.first_prompt.is_some()
    }
}
