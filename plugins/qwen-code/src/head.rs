//! Session facts from the start (and end) of a transcript, without reading
//! it all: what `discover` lists and what the `meta` record carries.
//!
//! Every record repeats the session id, cwd, version and branch, so the
//! first record gives them. Titles (`system/custom_title`, from `/rename` or
//! generated) are appended late and re-anchored near the end of the file,
//! so the last 64 KiB are searched too; without one the first prompt is the
//! title.

use trajhost_codec_sdk::fs::{File, FsError};
use trajhost_codec_sdk::head::{self, HEAD_MAX, HeadLines};

use crate::native::{self, Content, Entry};

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
        let mut head = Head::default();
        let read = head::read_head(file, HEAD_MAX, &mut head)?;
        if !read.whole {
            head::read_tail(file, read.consumed, |line| {
                if memchr::memmem::find(line, b"custom_title").is_some()
                    && let Ok(entry) = native::parse(line)
                {
                    head.take_title(&entry);
                }
            })?;
        }
        Ok(head)
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
        if entry.kind.as_deref() == Some("user")
            && self.first_prompt.is_none()
            && entry.is_sidechain != Some(true)
            && entry.subtype.as_deref() != Some("notification")
        {
            self.first_prompt = entry.message.as_ref().and_then(|m| prompt_title(&m.parts));
        }
        if entry.kind.as_deref() == Some("system")
            && entry.subtype.as_deref() == Some("parent_session")
            && self.parent_session.is_none()
        {
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

fn prompt_title(content: &Content) -> Option<String> {
    let text = content.text();
    let trimmed = text.trim();
    (!trimmed.is_empty()).then(|| title_of(trimmed))
}

/// Whitespace collapsed, at most [`TITLE_CHARS`] characters.
pub fn title_of(text: &str) -> String {
    trajhost_codec_sdk::text::title_of(text, TITLE_CHARS).unwrap_or_default()
}

impl HeadLines for Head {
    fn line(&mut self, bytes: &[u8], offset: u64, len: u64) {
        if let Ok(entry) = native::parse(bytes) {
            self.take(&entry, offset, len);
        } else if let Some(ranges) = native::glued(bytes) {
            for (start, end) in ranges {
                if let Ok(entry) = native::parse(&bytes[start..end]) {
                    self.take(&entry, offset + start as u64, (end - start) as u64);
                }
            }
        }
    }

    fn enough(&self) -> bool {
        self.session_id.is_some() && self.first_prompt.is_some()
    }
}
