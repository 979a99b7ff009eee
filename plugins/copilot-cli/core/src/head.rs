//! Session facts from the start of the event log and from `workspace.yaml`:
//! what `discover` lists and what the `meta` record carries.
//!
//! `session.start` is the first event; the first `user.message` follows
//! within a few lines. `workspace.yaml` (a few hundred bytes) names the
//! session and its working directory.

use trajhost_codec_sdk::fs::{Dir, File, FsError};
use trajhost_codec_sdk::head::{self, HEAD_MAX, HeadLines};

use crate::native::{self, SessionStart, UserMessage};
use crate::workspace::{MAX_WORKSPACE_BYTES, Workspace};

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

    /// Reads the head of the event log and the session's `workspace.yaml`
    /// (none beside a flat file).
    pub fn scan(home: &Dir, events: &File, workspace: Option<&str>) -> Result<Head, FsError> {
        let mut head = Head::default();
        if let Some(Ok(bytes)) = workspace.map(|w| home.read_to_end(w, MAX_WORKSPACE_BYTES)) {
            head.workspace = Workspace::parse(&String::from_utf8_lossy(&bytes));
        }
        // The head grows past the first step for a long system message.
        head::read_head(events, HEAD_MAX, &mut head)?;
        Ok(head)
    }

    /// Why the event log is not a session's, for a diagnostic.
    pub fn not_a_session(&self) -> Option<&'static str> {
        self.start.is_none().then_some("no session.start event at the head")
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
                    .filter(|m| m.source.as_deref() != Some("system"))
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
    trajhost_codec_sdk::text::title_of(text, TITLE_CHARS).unwrap_or_default()
}

impl HeadLines for Head {
    fn line(&mut self, bytes: &[u8], offset: u64, len: u64) {
        self.take(bytes, offset, len);
    }

    fn enough(&self) -> bool {
        self.start.is_some() && self.first_prompt.is_some()
    }
}
