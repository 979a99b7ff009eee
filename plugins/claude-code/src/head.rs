//! Session facts from the head (and tail) of a session file, without reading
//! it all: what `discover` lists and what the `meta` record carries.
//!
//! Like Claude Code's own session picker, titles are looked for in the first
//! and last 64 KiB: `custom-title` (`/rename`) and `ai-title` lines are
//! appended late, legacy `summary` lines sit at the top.

use trajhost_codec_sdk::fs::File;

use crate::native::{self, Content};

/// Bytes read from the start of a file for its session facts.
pub const HEAD_BYTES: u32 = 64 * 1024;
/// How far the head read goes when the first lines are longer than
/// [`HEAD_BYTES`] (a huge first prompt or attachment).
const HEAD_MAX_BYTES: u64 = 1 << 20;
/// Bytes read from the end of a larger file for late titles.
pub const TAIL_BYTES: u32 = 64 * 1024;
/// Characters of the first prompt used as a title when there is no other.
const TITLE_CHARS: usize = 80;

/// What the first lines of a session file say.
#[derive(Debug, Default, Clone)]
pub struct Head {
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub version: Option<String>,
    pub git_branch: Option<String>,
    /// First `timestamp` of any line.
    pub started_at: Option<String>,
    /// Byte span of the first line carrying `sessionId`.
    pub first_span: Option<(u64, u64)>,
    /// A line with a conversational type was seen.
    pub has_conversation: bool,
    custom_title: Option<String>,
    ai_title: Option<String>,
    summary: Option<String>,
    first_prompt: Option<String>,
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
        let size = file.size();
        let mut head = Head::default();
        let mut buf = file.read_at(0, HEAD_BYTES)?;
        let mut done = 0;
        // Grow the head read, within a bound, until a complete line carries
        // the session facts.
        loop {
            done += head.feed(&buf[done..], done as u64);
            let whole = buf.len() as u64 >= size;
            if whole {
                // A last line without `\n` still counts when it parses.
                if done < buf.len()
                    && let Ok(entry) = native::parse(&buf[done..])
                {
                    head.take(&entry, done as u64, (buf.len() - done) as u64);
                }
                return Ok(head);
            }
            if head.session_id.is_some() || buf.len() as u64 >= HEAD_MAX_BYTES {
                break;
            }
            let more = file.read_at(buf.len() as u64, HEAD_BYTES)?;
            if more.is_empty() {
                return Ok(head);
            }
            buf.extend_from_slice(&more);
        }
        drop(buf);
        // Tail lines start after the last complete head line. Reading from
        // one byte before the tail start tells whether it begins a line.
        let tail_start = size.saturating_sub(u64::from(TAIL_BYTES)).max(done as u64);
        if tail_start < size {
            let from = tail_start.saturating_sub(1).max(done as u64);
            let tail = file.read_at(from, TAIL_BYTES + 1)?;
            let skip = if from == done as u64 {
                0
            } else {
                memchr::memchr(b'\n', &tail).map_or(tail.len(), |i| i + 1)
            };
            head.feed_titles(&tail[skip..]);
        }
        Ok(head)
    }

    /// The facts of the complete lines of a file's first bytes (for `sniff`).
    pub fn of_bytes(bytes: &[u8]) -> Head {
        let mut head = Head::default();
        head.feed(bytes, 0);
        head
    }

    /// Takes the facts from the complete lines of `buf` (which starts at file
    /// offset `base`); returns the bytes of complete lines consumed.
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

    fn feed_titles(&mut self, buf: &[u8]) {
        for line in buf.split(|&b| b == b'\n') {
            // Only title lines matter here; skip the parse for the rest.
            if memchr::memmem::find(line, b"-title\"").is_none()
                && memchr::memmem::find(line, b"\"summary\"").is_none()
            {
                continue;
            }
            if let Ok(entry) = native::parse(line) {
                self.take_title(&entry);
            }
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
        let kind = entry.kind.get().unwrap_or("");
        if matches!(kind, "user" | "assistant") {
            self.has_conversation = true;
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
        let text = |t: &native::Text<'_>| {
            t.get()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        match entry.kind.get() {
            // The last title written wins.
            Some("custom-title") => {
                self.custom_title = text(&entry.custom_title).or(self.custom_title.take())
            }
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
        Content::Blocks(blocks) => blocks
            .iter()
            .find(|b| b.kind.get() == Some("text"))
            .and_then(|b| b.text.get())?,
        Content::None => return None,
    };
    title_from_prompt(text)
}

/// The title a prompt gives a session that has no other: its text,
/// whitespace collapsed, cut to [`TITLE_CHARS`].
pub fn title_from_prompt(text: &str) -> Option<String> {
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
