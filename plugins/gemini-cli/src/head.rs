//! Session facts from the start (and end) of a session file, without
//! reading it all: what `discover` lists and what the `meta` record carries.
//!
//! The header is the first line. The title is the session summary
//! (`summary` in the header or a `$set` patch, usually appended late, so the
//! last 64 KiB are searched too), else the first prompt the person typed.

use trajhost_codec_sdk::fs::{File, FsError};
use trajhost_codec_sdk::head::{self, HEAD_MAX, HeadLines};

use crate::native::{self, Content, LineKind};

/// Characters of the first prompt used as a title when there is no summary.
const TITLE_CHARS: usize = 80;

/// What the first lines of a session file say.
#[derive(Debug, Default, Clone)]
pub struct Head {
    pub session_id: Option<String>,
    pub start_time: Option<String>,
    /// `main` or `subagent`.
    pub session_kind: Option<String>,
    /// Byte span of the header line.
    pub header_span: Option<(u64, u64)>,
    /// The first message's timestamp, when the header has no start time.
    first_ts: Option<String>,
    /// Whether the head holds a message record.
    pub has_messages: bool,
    /// The `sessionId` a message record carries (some writers repeat it
    /// on every record): the session's id when the header is missing.
    message_session_id: Option<String>,
    summary: Option<String>,
    first_prompt: Option<String>,
}

impl Head {
    /// The session summary, else the first prompt.
    pub fn title(&self) -> Option<String> {
        self.summary.clone().or_else(|| self.first_prompt.clone())
    }

    /// The session id: the header's, else one a message record carries,
    /// else the file name without `.jsonl` (a file that lost its header
    /// line). The flag says whether the header named it.
    pub fn native_id(&self, locator: &str) -> (String, bool) {
        if let Some(id) = &self.session_id {
            return (id.clone(), true);
        }
        if let Some(id) = &self.message_session_id {
            return (id.clone(), false);
        }
        (trajhost_codec_sdk::paths::file_stem(locator, crate::layout::JSONL).to_string(), false)
    }

    /// When the session started: the header's `startTime`, else the first
    /// message's timestamp.
    pub fn started_at(&self) -> Option<String> {
        self.start_time.clone().or_else(|| self.first_ts.clone())
    }

    /// Reads the head (and, for files larger than the head, the tail) of `file`.
    pub fn scan(file: &File) -> Result<Head, FsError> {
        let mut head = Head::default();
        let read = head::read_head(file, HEAD_MAX, &mut head)?;
        if !read.whole {
            head::read_tail(file, read.consumed, |line| {
                if memchr::memmem::find(line, b"\"summary\"").is_some()
                    && let Ok(line) = native::parse(line)
                {
                    head.take_summary(&line);
                }
            })?;
        }
        Ok(head)
    }

    fn take(&mut self, line: &native::Line, offset: u64, len: u64) {
        match line.kind() {
            LineKind::Header if self.session_id.is_none() => {
                self.session_id = line.session_id.clone().filter(|s| !s.is_empty());
                self.start_time = line.start_time.clone();
                self.session_kind = line.session_kind.clone();
                self.header_span = Some((offset, len));
                self.take_summary(line);
            }
            LineKind::Message(kind) => {
                self.has_messages = true;
                if self.message_session_id.is_none() {
                    self.message_session_id = line.session_id.clone().filter(|s| !s.is_empty());
                }
                if self.first_ts.is_none() {
                    self.first_ts = line.timestamp.clone();
                }
                if kind == "user" && self.first_prompt.is_none() {
                    self.first_prompt = prompt_title(&line.content);
                }
            }
            LineKind::Set => self.take_summary(line),
            _ => {}
        }
    }

    fn take_summary(&mut self, line: &native::Line) {
        let summary = line.summary.as_deref().or(line.set.as_ref().and_then(|s| s.summary.as_deref()));
        if let Some(s) = summary.map(str::trim).filter(|s| !s.is_empty()) {
            // The last summary written wins.
            self.summary = Some(s.to_string());
        }
    }
}

pub use trajhost_gemini_cli_core::message::harness_context_kind;
use trajhost_gemini_cli_core::message::unguard_command;

/// The first prompt as a title: not a slash command or harness context,
/// whitespace collapsed, cut to [`TITLE_CHARS`].
fn prompt_title(content: &Content) -> Option<String> {
    let text = unguard_command(content.text());
    let trimmed = text.trim();
    if trimmed.is_empty()
        || trimmed.starts_with('/')
        || trimmed.starts_with('?')
        || harness_context_kind(trimmed).is_some()
    {
        return None;
    }
    Some(title_of(trimmed))
}

/// Whitespace collapsed, at most [`TITLE_CHARS`] characters.
pub fn title_of(text: &str) -> String {
    trajhost_codec_sdk::text::title_of(text, TITLE_CHARS).unwrap_or_default()
}

impl HeadLines for Head {
    fn line(&mut self, bytes: &[u8], offset: u64, len: u64) {
        if let Ok(parsed) = native::parse(bytes) {
            self.take(&parsed, offset, len);
        }
    }

    fn enough(&self) -> bool {
        self.session_id.is_some() && self.first_prompt.is_some()
    }
}
