//! Session facts from the start (and end) of a session file, without
//! reading it all: what `discover` lists and what the `meta` record carries.
//!
//! The header is the first line. The title is the session summary
//! (`summary` in the header or a `$set` patch, usually appended late, so the
//! last 64 KiB are searched too), else the first prompt the person typed.

use trajhost_codec_sdk::fs::{File, FsError};

use crate::native::{self, Content, LineKind};

/// Bytes read from the start of a file for its session facts.
pub const HEAD_BYTES: u32 = 64 * 1024;
/// How far the head read goes when the first lines are longer.
const HEAD_MAX_BYTES: u64 = 1 << 20;
/// Bytes read from the end of a larger file for a late summary.
pub const TAIL_BYTES: u32 = 64 * 1024;
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
    summary: Option<String>,
    first_prompt: Option<String>,
}

impl Head {
    /// The session summary, else the first prompt.
    pub fn title(&self) -> Option<String> {
        self.summary.clone().or_else(|| self.first_prompt.clone())
    }

    /// When the session started: the header's `startTime`, else the first
    /// message's timestamp.
    pub fn started_at(&self) -> Option<String> {
        self.start_time.clone().or_else(|| self.first_ts.clone())
    }

    /// Reads the head (and, for files larger than the head, the tail) of `file`.
    pub fn scan(file: &File) -> Result<Head, FsError> {
        let size = file.size();
        let mut head = Head::default();
        let mut buf = file.read_at(0, HEAD_BYTES)?;
        let mut done = 0;
        loop {
            done += head.feed(&buf[done..], done as u64);
            if buf.len() as u64 >= size {
                // A last line without `\n` still counts when it parses.
                if done < buf.len()
                    && let Ok(line) = native::parse(&buf[done..])
                {
                    head.take(&line, done as u64, (buf.len() - done) as u64);
                }
                return Ok(head);
            }
            if (head.session_id.is_some() && head.first_prompt.is_some()) || buf.len() as u64 >= HEAD_MAX_BYTES {
                break;
            }
            let more = file.read_at(buf.len() as u64, HEAD_BYTES)?;
            if more.is_empty() {
                return Ok(head);
            }
            buf.extend_from_slice(&more);
        }
        drop(buf);
        let tail_start = size.saturating_sub(u64::from(TAIL_BYTES)).max(done as u64);
        if tail_start < size {
            let from = tail_start.saturating_sub(1).max(done as u64);
            let tail = file.read_at(from, TAIL_BYTES + 1)?;
            let skip = if from == done as u64 { 0 } else { memchr::memchr(b'\n', &tail).map_or(tail.len(), |i| i + 1) };
            for line in tail[skip..].split(|&b| b == b'\n') {
                if memchr::memmem::find(line, b"\"summary\"").is_none() {
                    continue;
                }
                if let Ok(line) = native::parse(line) {
                    head.take_summary(&line);
                }
            }
        }
        Ok(head)
    }

    /// Takes the facts from the complete lines of `buf` (at file offset
    /// `base`); returns the bytes of complete lines consumed.
    fn feed(&mut self, buf: &[u8], base: u64) -> usize {
        let mut pos = 0;
        while let Some(i) = memchr::memchr(b'\n', &buf[pos..]) {
            let line = &buf[pos..pos + i];
            let offset = base + pos as u64;
            pos += i + 1;
            if let Ok(parsed) = native::parse(line) {
                self.take(&parsed, offset, (i + 1) as u64);
            }
        }
        pos
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

/// The text parts of a content (thoughts aside), concatenated as the model
/// sees them: Gemini streams text in chunks, and the parts of a prompt
/// carry their own line breaks.
pub fn content_text(content: &Content) -> String {
    match content {
        Content::Text(s) => s.clone(),
        Content::Parts(parts) => {
            parts.iter().filter(|p| !p.is_thought()).filter_map(|p| p.text.as_deref()).collect()
        }
        Content::None | Content::Unrecognized => String::new(),
    }
}

/// Text the harness put in a user message rather than the person: Gemini
/// CLI's own rule for what a session list skips (`isIgnoredUserContent`).
pub fn harness_context_kind(text: &str) -> Option<&'static str> {
    let t = text.trim_start();
    if t.starts_with("<session_context>") {
        Some("session_context")
    } else if t.starts_with("<hook_context>") {
        Some("hook_context")
    } else {
        None
    }
}

/// The first prompt as a title: not a slash command or harness context,
/// whitespace collapsed, cut to [`TITLE_CHARS`].
fn prompt_title(content: &Content) -> Option<String> {
    let text = content_text(content);
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed.starts_with('/') || trimmed.starts_with('?') || harness_context_kind(trimmed).is_some() {
        return None;
    }
    Some(title_of(trimmed))
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
