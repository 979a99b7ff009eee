//! Session facts from the start (and end) of a transcript, without reading
//! it all: what `discover` lists and what the `meta` record carries.
//!
//! Every record repeats the session id, cwd, version and branch, so the
//! first record gives them. Titles (`system/custom_title`, from `/rename` or
//! generated) are appended late and re-anchored near the end of the file,
//! so the last 64 KiB are searched too; without one the first prompt is the
//! title.

use trajhost_codec_sdk::fs::{File, FsError};

use crate::native::{self, Content, Entry};

/// Bytes read from the start of a file for its session facts.
pub const HEAD_BYTES: u32 = 64 * 1024;
/// How far the head read goes when the first lines are longer.
const HEAD_MAX_BYTES: u64 = 1 << 20;
/// Bytes read from the end of a larger file for a late title.
pub const TAIL_BYTES: u32 = 64 * 1024;
/// Characters of the first prompt used as a title when there is no other.
const TITLE_CHARS: usize = 80;

/// What the first lines of a transcript say.
#[derive(Debug, Default, Clone)]
pub struct Head {
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub version: Option<String>,
    pub git_branch: Option<String>,
    /// First `timestamp` of any record.
    pub started_at: Option<String>,
    /// Byte span of the first record carrying `sessionId`.
    pub first_span: Option<(u64, u64)>,
    /// `system/parent_session`: the session that spawned this one.
    pub parent_session: Option<String>,
    custom_title: Option<String>,
    first_prompt: Option<String>,
}

impl Head {
    /// The custom title, else the first prompt.
    pub fn title(&self) -> Option<String> {
        self.custom_title.clone().or_else(|| self.first_prompt.clone())
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
                if done < buf.len()
                    && let Ok(entry) = native::parse(&buf[done..])
                {
                    head.take(&entry, done as u64, (buf.len() - done) as u64);
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
                if memchr::memmem::find(line, b"custom_title").is_none() {
                    continue;
                }
                if let Ok(entry) = native::parse(line) {
                    head.take_title(&entry);
                }
            }
        }
        Ok(head)
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
        if self.session_id.is_none() && entry.session_id.as_deref().is_some_and(|s| !s.is_empty()) {
            self.session_id = entry.session_id.clone();
            self.first_span = Some((offset, len));
        }
        let first = |slot: &mut Option<String>, value: &Option<String>| {
            if slot.is_none() {
                *slot = value.clone().filter(|v| !v.is_empty());
            }
        };
        first(&mut self.cwd, &entry.cwd);
        first(&mut self.version, &entry.version);
        first(&mut self.git_branch, &entry.git_branch);
        if entry.kind.as_deref() == Some("user") && self.first_prompt.is_none() && entry.is_sidechain != Some(true) {
            self.first_prompt = entry.message.as_ref().and_then(|m| prompt_title(&m.parts));
        }
        if entry.kind.as_deref() == Some("system") && entry.subtype.as_deref() == Some("parent_session") && self.parent_session.is_none() {
            self.parent_session = payload_str(entry, "parentSessionId");
        }
        self.take_title(entry);
    }

    fn take_title(&mut self, entry: &Entry) {
        if entry.kind.as_deref() == Some("system")
            && entry.subtype.as_deref() == Some("custom_title")
            && let Some(title) = payload_str(entry, "customTitle")
        {
            // The last title written wins.
            self.custom_title = Some(title);
        }
    }
}

/// A non-empty string field of `systemPayload`.
pub fn payload_str(entry: &Entry, key: &str) -> Option<String> {
    let value = entry.system_payload.as_ref()?.get(key)?.as_str()?.trim();
    (!value.is_empty()).then(|| value.to_string())
}

/// The text parts of a content (thoughts aside), concatenated.
pub fn content_text(content: &Content) -> String {
    match content {
        Content::Text(s) => s.clone(),
        Content::Parts(parts) => parts.iter().filter(|p| !p.is_thought()).filter_map(|p| p.text.as_deref()).collect(),
        Content::None | Content::Unrecognized => String::new(),
    }
}

fn prompt_title(content: &Content) -> Option<String> {
    let text = content_text(content);
    let trimmed = text.trim();
    (!trimmed.is_empty()).then(|| title_of(trimmed))
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
