//! Session facts from the start of the event log and from `workspace.yaml`:
//! what `discover` lists and what the `meta` record carries.
//!
//! `session.start` is the first event; the first `user.message` follows
//! within a few lines. `workspace.yaml` (a few hundred bytes) names the
//! session and its working directory.

use trajhost_codec_sdk::fs::{Dir, File, FsError};

use crate::native::{self, SessionStart, UserMessage};
use crate::workspace::{MAX_WORKSPACE_BYTES, Workspace};

/// Bytes read from the start of a file for its session facts.
pub const HEAD_BYTES: u32 = 64 * 1024;
/// How far the head read goes when the first events are longer (a long
/// system message).
const HEAD_MAX_BYTES: u64 = 1 << 20;
/// Characters of the first prompt used as a title when there is no other.
const TITLE_CHARS: usize = 80;

/// What the start of an event log and `workspace.yaml` say.
#[derive(Debug, Default)]
pub struct Head {
    pub start: Option<SessionStart>,
    /// Byte span of the `session.start` line.
    pub start_span: Option<(u64, u64)>,
    /// First `timestamp` of any event.
    pub first_ts: Option<String>,
    pub workspace: Workspace,
    first_prompt: Option<String>,
}

impl Head {
    pub fn session_id(&self) -> Option<&str> {
        self.start.as_ref()?.session_id.as_deref().filter(|s| !s.is_empty())
    }

    pub fn version(&self) -> Option<String> {
        self.start.as_ref()?.copilot_version.clone().filter(|s| !s.is_empty())
    }

    pub fn cwd(&self) -> Option<String> {
        self.workspace.cwd.clone().or_else(|| self.start.as_ref()?.context.as_ref()?.cwd.clone())
    }

    pub fn git_branch(&self) -> Option<String> {
        self.start.as_ref().and_then(|s| s.context.as_ref()?.branch.clone()).or_else(|| self.workspace.branch.clone())
    }

    pub fn started_at(&self) -> Option<String> {
        self.start
            .as_ref()
            .and_then(|s| s.start_time.clone())
            .or_else(|| self.workspace.created_at.clone())
            .or_else(|| self.first_ts.clone())
    }

    /// The session's name as the CLI lists it, else its summary (cut like
    /// a prompt), else the first prompt.
    pub fn title(&self) -> Option<String> {
        let name = self.workspace.name.as_deref().map(str::trim).filter(|n| !n.is_empty()).map(str::to_string);
        let summary = self.workspace.summary.as_deref().map(title_of).filter(|t| !t.is_empty());
        name.or(summary).or_else(|| self.first_prompt.clone())
    }

    /// Reads the head of the event log and the session's `workspace.yaml`.
    pub fn scan(home: &Dir, events: &File, workspace: &str) -> Result<Head, FsError> {
        let mut head = Head::default();
        if let Ok(bytes) = home.read_to_end(workspace, MAX_WORKSPACE_BYTES) {
            head.workspace = Workspace::parse(&String::from_utf8_lossy(&bytes));
        }
        let size = events.size();
        let mut buf = events.read_at(0, HEAD_BYTES)?;
        let mut done = 0;
        loop {
            done += head.feed(&buf[done..], done as u64);
            if buf.len() as u64 >= size {
                if done < buf.len() {
                    head.take(&buf[done..], done as u64, (buf.len() - done) as u64);
                }
                return Ok(head);
            }
            if (head.start.is_some() && head.first_prompt.is_some()) || buf.len() as u64 >= HEAD_MAX_BYTES {
                return Ok(head);
            }
            let more = events.read_at(buf.len() as u64, HEAD_BYTES)?;
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
            self.take(line, offset, (i + 1) as u64);
        }
        pos
    }

    fn take(&mut self, line: &[u8], offset: u64, len: u64) {
        let Ok(event) = native::parse(line) else { return };
        if self.first_ts.is_none() {
            self.first_ts = event.timestamp.clone();
        }
        match event.kind.as_deref() {
            Some("session.start") if self.start.is_none() => {
                self.start = event.data::<SessionStart>();
                self.start_span = Some((offset, len));
            }
            Some("user.message") if self.first_prompt.is_none() => {
                self.first_prompt = event
                    .data::<UserMessage>()
                    .and_then(|m| m.content)
                    .map(|c| title_of(&c))
                    .filter(|t| !t.is_empty());
            }
            _ => {}
        }
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
