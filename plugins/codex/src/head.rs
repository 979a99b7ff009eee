//! Session facts from the head of a rollout, without reading it all: what
//! `discover` lists and what the `meta` record carries.
//!
//! The first line is `session_meta` (often tens of KiB: it carries the base
//! instructions); the first prompt follows after injected context. The head
//! read starts at [`HEAD_BYTES`] and grows, within [`HEAD_MAX_BYTES`], until
//! both are found.

use trajhost_codec_sdk::fs::{File, FsError};

use crate::native::{self, ResponseItem, SessionMeta};

/// Bytes read per step of the head read.
pub const HEAD_BYTES: u32 = 64 * 1024;
/// How far the head read goes at most.
pub const HEAD_MAX_BYTES: u64 = 1 << 20;
/// Lines looked at for the first prompt.
const HEAD_MAX_LINES: usize = 256;
/// Characters of the first prompt used as a title.
const TITLE_CHARS: usize = 80;

/// What the first lines of a rollout say.
#[derive(Debug, Default, Clone)]
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
    lines: usize,
}

impl Head {
    /// Reads the head of `file`.
    pub fn scan(file: &File) -> Result<Head, FsError> {
        let size = file.size();
        let mut head = Head::default();
        let mut buf = file.read_at(0, HEAD_BYTES)?;
        let mut done = 0;
        loop {
            done += head.feed(&buf[done..], done as u64);
            if head.complete() {
                return Ok(head);
            }
            if buf.len() as u64 >= size {
                // A last line without `\n` still counts when it parses.
                if done < buf.len() {
                    head.line(&buf[done..], done as u64, (buf.len() - done) as u64);
                }
                return Ok(head);
            }
            if buf.len() as u64 >= HEAD_MAX_BYTES {
                return Ok(head);
            }
            let more = file.read_at(buf.len() as u64, HEAD_BYTES)?;
            if more.is_empty() {
                return Ok(head);
            }
            buf.extend_from_slice(&more);
        }
    }

    fn complete(&self) -> bool {
        (self.id.is_some() && self.title.is_some()) || self.lines >= HEAD_MAX_LINES
    }

    /// Takes the facts from the complete lines of `buf` (which starts at file
    /// offset `base`); returns the bytes of complete lines consumed.
    fn feed(&mut self, buf: &[u8], base: u64) -> usize {
        let mut pos = 0;
        while let Some(i) = memchr::memchr(b'\n', &buf[pos..]) {
            let line = &buf[pos..pos + i];
            let offset = base + pos as u64;
            pos += i + 1;
            self.line(line, offset, (i + 1) as u64);
            if self.complete() {
                break;
            }
        }
        pos
    }

    fn line(&mut self, bytes: &[u8], offset: u64, len: u64) {
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        self.lines += 1;
        let Ok(env) = native::envelope(bytes) else { return };
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
                if item.kind.get() == Some("message") && item.role.get() == Some("user") && !item.is_injected_context() {
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

/// A prompt's text, whitespace collapsed, cut to [`TITLE_CHARS`].
pub fn title(text: &str) -> Option<String> {
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
    if out.is_empty() {
        return None;
    }
    if out.chars().count() > TITLE_CHARS {
        out = out.chars().take(TITLE_CHARS - 1).collect::<String>();
        out.push('…');
    }
    Some(out)
}
