//! Session facts from the head of a rollout, without reading it all: what
//! `discover` lists and what the `meta` record carries.
//!
//! The first line is `session_meta` (often tens of KiB: it carries the base
//! instructions); the first prompt follows after injected context. The head
//! is read with the SDK's [`trajhost_codec_sdk::head::read_head`] until both
//! are found.

use trajhost_codec_sdk::fs::{File, FsError};
use trajhost_codec_sdk::head::{self, HEAD_MAX, HeadLines};

use crate::native::{self, ResponseItem, SessionMeta};

/// Lines looked at for the first prompt.
const HEAD_MAX_LINES: usize = 256;
/// Characters of the first prompt used as a title.
const TITLE_CHARS: usize = 80;

/// What the first line of a file is, for telling a rollout from other files.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FirstLine {
    /// Not JSON, or JSON without the rollout envelope (`{timestamp, type,
    /// payload}`).
    NotRollout,
    /// A rollout line of this `type` (`session_meta` for a proper rollout).
    Rollout(String),
}

/// What the first lines of a rollout say.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct Head {
    /// `session_meta.id`.
    pub id: Option<String>,
    pub cwd: Option<String>,
    pub cli_version: Option<String>,
    pub originator: Option<String>,
    pub model_provider: Option<String>,
    pub git_branch: Option<String>,
    /// `session_meta.timestamp`, else the first line's.
    pub started_at: Option<String>,
    /// A fork's origin or a subagent's parent thread.
    pub parent: Option<String>,
    /// Byte span of the `session_meta` line.
    pub meta_span: Option<(u64, u64)>,
    /// The first prompt, whitespace collapsed and cut to a title.
    pub title: Option<String>,
    /// What the first non-blank line is; `None` for a blank file.
    pub first_line: Option<FirstLine>,
    lines: usize,
}

impl Head {
    /// Reads the head of `file`.
    pub fn scan(file: &File) -> Result<Head, FsError> {
        Ok(Head::scan_settled(file)?.0)
    }

    /// The head, and whether later lines can no longer change it: it has
    /// all it looks for, or the scan stopped short of the file's end.
    pub fn scan_settled(file: &File) -> Result<(Head, bool), FsError> {
        let mut head = Head::default();
        let read = head::read_head(file, HEAD_MAX, &mut head)?;
        let settled = head.complete() || !read.whole;
        Ok((head, settled))
    }

    /// Why the head is not a rollout's, in words for a diagnostic; `None`
    /// when it carries a `session_meta`.
    pub fn not_a_rollout(&self) -> Option<&'static str> {
        if self.id.is_some() {
            return None;
        }
        Some(match &self.first_line {
            None => "no lines",
            Some(FirstLine::NotRollout) => "the first line is not a rollout line (JSON {timestamp, type, payload})",
            Some(FirstLine::Rollout(kind)) if kind == "session_meta" => "session_meta without a thread id",
            Some(FirstLine::Rollout(_)) => "no session_meta line at the head",
        })
    }

    fn complete(&self) -> bool {
        (self.id.is_some() && self.title.is_some()) || self.lines >= HEAD_MAX_LINES
    }

    fn take_line(&mut self, bytes: &[u8], offset: u64, len: u64) {
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        self.lines += 1;
        let env = native::envelope(bytes).ok().filter(|e| e.kind.get().is_some());
        if self.first_line.is_none() {
            self.first_line = Some(match &env {
                Some(e) => FirstLine::Rollout(e.kind.get().unwrap_or_default().to_string()),
                None => FirstLine::NotRollout,
            });
        }
        let Some(env) = env else { return };
        if self.started_at.is_none() {
            self.started_at = env.timestamp.owned();
        }
        match env.kind.get() {
            Some("session_meta") if self.id.is_none() => {
                let Some(meta) = native::payload::<SessionMeta<'_>>(env.payload) else { return };
                self.take_meta(&meta, offset, len);
            }
            Some("response_item") if self.title.is_none() => {
                let Some(item) = native::payload::<ResponseItem<'_>>(env.payload) else { return };
                if item.kind.get() == Some("message") && item.role.get() == Some("user") && !item.is_injected_context()
                {
                    let text = item.content.0.as_deref().map(|c| native::join_text(c, "\n")).unwrap_or_default();
                    self.title = title(&text);
                }
            }
            _ => {}
        }
    }

    fn take_meta(&mut self, meta: &SessionMeta<'_>, offset: u64, len: u64) {
        self.id = meta.thread_id().map(str::to_string);
        self.cwd = meta.cwd.non_empty().map(str::to_string);
        self.cli_version = meta.cli_version.non_empty().map(str::to_string);
        self.originator = meta.originator.non_empty().map(str::to_string);
        self.model_provider = meta.model_provider.non_empty().map(str::to_string);
        self.git_branch = meta.git.0.as_ref().and_then(|g| g.branch.clone()).filter(|b| !b.is_empty());
        if let Some(ts) = meta.timestamp.non_empty() {
            self.started_at = Some(ts.to_string());
        }
        self.parent = meta.parent();
        self.meta_span = Some((offset, len));
    }
}

impl HeadLines for Head {
    fn line(&mut self, bytes: &[u8], offset: u64, len: u64) {
        if !self.complete() {
            self.take_line(bytes, offset, len);
        }
    }

    fn enough(&self) -> bool {
        self.complete()
    }
}

/// A prompt's text, whitespace collapsed, cut to [`TITLE_CHARS`].
pub fn title(text: &str) -> Option<String> {
    trajhost_codec_sdk::text::title_of(text, TITLE_CHARS)
}
