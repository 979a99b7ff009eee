//! Session facts from the head (and tail) of a session file, without reading
//! it all: what `discover` lists and what the `meta` record carries.
//!
//! Like Claude Code's own session picker, titles are looked for in the first
//! and last 64 KiB: `custom-title` (`/rename`) and `ai-title` lines are
//! appended late, legacy `summary` lines sit at the top.
//!
//! The same reads give what links one session to another
//! ([`Continuation`]): the `leafUuid` of the `summary` lines a 1.0.x forked
//! resume file starts with, the uuid of the file's last record, and a
//! `continued-in` record at its end.

use trajhost_codec_sdk::fs::File;
use trajhost_codec_sdk::head::{self, HEAD_MAX, HeadLines};

use crate::native::{self, Content};

/// Characters of the first prompt used as a title when there is no other.
const TITLE_CHARS: usize = 80;

/// What the first lines of a session file say.
#[derive(Debug, Default, Clone)]
pub struct Head {
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub version: Option<String>,
    pub git_branch: Option<String>,
    /// `agentId` of a subagent transcript's lines.
    pub agent_id: Option<String>,
    /// First `timestamp` of any line.
    pub started_at: Option<String>,
    /// Byte span of the first line carrying `sessionId`.
    pub first_span: Option<(u64, u64)>,
    /// Whether the first user/assistant line is a sidechain line: then the
    /// file is a subagent's conversation (or flags its main chain so), and
    /// its sidechain lines are its own.
    pub starts_as_sidechain: Option<bool>,
    /// A line with a conversational type was seen.
    pub has_conversation: bool,
    /// A line with a record `type` was seen: the file is Claude Code's.
    pub has_records: bool,
    /// What links this session to others.
    pub continuation: Continuation,
    custom_title: Option<String>,
    ai_title: Option<String>,
    summary: Option<String>,
    first_prompt: Option<String>,
}

/// `summary` lines read before the first conversational line at most.
const MAX_FORK_LEAVES: usize = 8;
/// `parentUuid`s kept (the newest).
const MAX_PARENTS: usize = 1024;

/// What links a session file to another one.
#[derive(Debug, Default, Clone)]
pub struct Continuation {
    /// `leafUuid` of the `summary` lines before the first user/assistant
    /// line. Claude Code 1.0.x's `--resume` writes a new file that may start
    /// with the summary of the conversation it resumes, whose `leafUuid` is
    /// the last record of that conversation's file.
    pub fork_leaves: Vec<String>,
    /// The `parentUuid`s of the lines read (the head, and the tail of a
    /// larger file), in file order. A 1.0.x forked file copies the history
    /// it resumes with its uuids, then hangs its new turn off the last
    /// record of the file it resumed.
    pub parents: Vec<String>,
    /// `uuid` of the file's last line that has one (in the last 64 KiB).
    pub last_uuid: Option<String>,
    /// `continuedInSessionId` of a `continued-in` record (Claude Code
    /// >= 2.1.261) after which the conversation did not go on in this file.
    pub continued_in: Option<String>,
}

impl Continuation {
    /// One line's part (the whole head, and the tail's lines).
    fn take(&mut self, entry: &native::Entry<'_>, has_conversation: bool) {
        match entry.kind.get() {
            Some("summary") if !has_conversation && self.fork_leaves.len() < MAX_FORK_LEAVES => {
                if let Some(leaf) = entry.leaf_uuid.non_empty() {
                    self.fork_leaves.push(leaf.to_string());
                }
            }
            Some("continued-in") => {
                self.continued_in = entry.continued_in_session_id.owned().filter(|id| plain_id(id));
            }
            // A completed response after it: the conversation went on here
            // (what Claude Code's own reader of the tail checks).
            Some("assistant")
                if !entry.is_api_error_message.is_true()
                    && entry.message.0.as_ref().is_some_and(|m| m.stop_reason.get().is_some()) =>
            {
                self.continued_in = None;
            }
            _ => {}
        }
        if let Some(uuid) = entry.uuid.non_empty() {
            self.last_uuid = Some(uuid.to_string());
        }
        if let Some(parent) = entry.parent_uuid.non_empty() {
            self.parent(parent);
        }
    }

    fn parent(&mut self, parent: &str) {
        if self.parents.len() >= MAX_PARENTS {
            self.parents.remove(0);
        }
        self.parents.push(parent.to_string());
    }

    /// One line of the tail: only the few that matter are parsed.
    fn feed_tail(&mut self, line: &[u8], last_with_uuid: &mut Vec<u8>) {
        let has = |needle: &[u8]| memchr::memmem::find(line, needle).is_some();
        if has(b"\"uuid\":\"") {
            last_with_uuid.clear();
            last_with_uuid.extend_from_slice(line);
        }
        if (has(b"\"continued-in\"") || (self.continued_in.is_some() && has(b"\"type\":\"assistant\"")))
            && let Ok(entry) = native::parse(line)
        {
            self.take(&entry, true);
            return;
        }
        const KEY: &[u8] = b"\"parentUuid\":\"";
        if let Some(at) = memchr::memmem::find(line, KEY) {
            let rest = &line[at + KEY.len()..];
            if let Some(end) = memchr::memchr(b'"', rest)
                && let Ok(parent) = std::str::from_utf8(&rest[..end])
                && plain_id(parent)
            {
                self.parent(parent);
            }
        }
    }
}

/// A session id fit to name in a diagnostic (Claude Code's are uuids).
pub fn plain_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

impl Head {
    /// The best title: `/rename` wins over the AI title, then the legacy
    /// summary, then the first prompt.
    pub fn title(&self) -> Option<String> {
        self.custom_title
            .clone()
            .or_else(|| self.ai_title.clone())
            .or_else(|| self.summary.clone())
            .or_else(|| self.first_prompt.clone())
    }

    /// Reads the head (and, for files larger than the head, the tail) of `file`.
    pub fn scan(file: &File) -> Result<Head, trajhost_codec_sdk::fs::FsError> {
        let mut head = Head::default();
        // The head read grows, within a bound, until a complete line
        // carries the session facts.
        let read = head::read_head(file, HEAD_MAX, &mut head)?;
        if !read.whole {
            let mut last_with_uuid = Vec::new();
            head::read_tail(file, read.consumed, |line| {
                head.feed_title(line);
                head.continuation.feed_tail(line, &mut last_with_uuid);
            })?;
            // The head's last uuid is not the file's: only the tail's counts.
            head.continuation.last_uuid =
                native::parse(&last_with_uuid).ok().and_then(|entry| entry.uuid.owned()).filter(|u| !u.is_empty());
        }
        Ok(head)
    }

    /// The facts of the complete lines of a file's first bytes (for `sniff`).
    pub fn of_bytes(bytes: &[u8]) -> Head {
        let mut head = Head::default();
        let mut pos = 0;
        while let Some(i) = memchr::memchr(b'\n', &bytes[pos..]) {
            HeadLines::line(&mut head, &bytes[pos..pos + i], pos as u64, (i + 1) as u64);
            pos += i + 1;
        }
        head
    }

    fn feed_title(&mut self, line: &[u8]) {
        // Only title lines matter here; skip the parse for the rest.
        if memchr::memmem::find(line, b"-title\"").is_none() && memchr::memmem::find(line, b"\"summary\"").is_none() {
            return;
        }
        if let Ok(entry) = native::parse(line) {
            self.take_title(&entry);
        }
    }

    fn take(&mut self, entry: &native::Entry<'_>, offset: u64, len: u64) {
        if self.started_at.is_none() {
            self.started_at = entry.timestamp.owned();
        }
        if let Some(id) = entry.session_id.get()
            && self.session_id.is_none()
        {
            self.session_id = Some(id.to_string());
            self.first_span = Some((offset, len));
        }
        let first = |slot: &mut Option<String>, value: Option<&str>| {
            if slot.is_none() {
                *slot = value.filter(|v| !v.is_empty()).map(str::to_string);
            }
        };
        first(&mut self.cwd, entry.cwd.get());
        first(&mut self.version, entry.version.get());
        first(&mut self.git_branch, entry.git_branch.get());
        first(&mut self.agent_id, entry.agent_id.get());
        let kind = entry.kind.get().unwrap_or("");
        self.continuation.take(entry, self.has_conversation);
        self.has_records |= !kind.is_empty();
        if matches!(kind, "user" | "assistant") {
            self.has_conversation = true;
            if self.starts_as_sidechain.is_none() {
                self.starts_as_sidechain = Some(entry.is_sidechain.is_true());
            }
        }
        if kind == "user"
            && self.first_prompt.is_none()
            && !entry.is_meta.is_true()
            && !entry.is_compact_summary.is_true()
            && let Some(message) = &entry.message.0
        {
            self.first_prompt = prompt_title(&message.content);
        }
        self.take_title(entry);
    }

    fn take_title(&mut self, entry: &native::Entry<'_>) {
        let text = |t: &native::Text<'_>| t.get().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
        match entry.kind.get() {
            // The last title written wins.
            Some("custom-title") => self.custom_title = text(&entry.custom_title).or(self.custom_title.take()),
            Some("ai-title") => self.ai_title = text(&entry.ai_title).or(self.ai_title.take()),
            Some("summary") if self.summary.is_none() => self.summary = text(&entry.summary),
            _ => {}
        }
    }
}

/// The first prompt's text, whitespace collapsed, cut to [`TITLE_CHARS`].
fn prompt_title(content: &Content<'_>) -> Option<String> {
    let text: &str = match content {
        Content::Text(t) => t,
        Content::Blocks(blocks) => blocks.iter().find(|b| b.kind.get() == Some("text")).and_then(|b| b.text.get())?,
        Content::None => return None,
    };
    if crate::records::is_interrupt_marker(text) {
        return None;
    }
    title_from_prompt(text)
}

/// The title a prompt gives a session that has no other: its text,
/// whitespace collapsed, cut to [`TITLE_CHARS`].
pub fn title_from_prompt(text: &str) -> Option<String> {
    trajhost_codec_sdk::text::title_of(text, TITLE_CHARS)
}

impl HeadLines for Head {
    fn line(&mut self, bytes: &[u8], offset: u64, len: u64) {
        if let Ok(entry) = native::parse(bytes) {
            self.take(&entry, offset, len);
        }
    }

    fn enough(&self) -> bool {
        self.session_id.is_some() && self.starts_as_sidechain.is_some()
    }
}
