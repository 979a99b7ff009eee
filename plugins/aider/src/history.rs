//! The history file, `<workspace>/.aider.chat.history.md`, as Aider 0.86
//! writes it (`aider/io.py`) and reads it back (`split_chat_history_markdown`
//! in `aider/utils.py`).
//!
//! The file is only ever appended to. Every run starts a block with
//! `\n# aider chat started at YYYY-MM-DD HH:MM:SS\n\n` (local time, no
//! zone); a block is one session. Inside a block, line by line:
//!
//! - `#### <text>  `: the user's input; a multi-line input is several such
//!   lines (each but the last ends with two spaces, the markdown line break);
//! - `> <text>  `: Aider's own output (the banner: argv, `Aider v0.86.2`,
//!   `Model: …`; confirmations, `Tokens: …`). `--restore-chat-history` drops
//!   these lines;
//! - any other line: the model's reply (`\n<reply>\n\n`), up to the next
//!   `#### ` or `> ` line. Blank lines between are part of it.
//!
//! A run of consecutive lines of one kind is one message. No ids, no times
//! per message, no tool calls: Aider has no tool calling, and the output of
//! `/run` reaches the chat but not this file.

/// The history's file name, in the workspace.
pub const FILE: &str = ".aider.chat.history.md";
/// The histories of the workspaces directly under a HOME (`~/project`).
pub const WORKSPACE_FILES: &str = "*/.aider.chat.history.md";
/// A block's header line, before its start time.
pub const HEADER: &str = "# aider chat started at ";
/// A user line's prefix.
pub const USER: &str = "#### ";
/// A status line's prefix (Aider's own output).
pub const STATUS: &str = "> ";
/// The banner line naming the version.
pub const VERSION_LINE: &str = "Aider v";
/// The banner line naming the model (`Model: <name> with <format> edit format`).
pub const MODEL_LINE: &str = "Model: ";

/// What a message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    User,
    Assistant,
    Status,
}

impl Kind {
    /// The native line type, as conformance tables and diagnostics name it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::User => "user",
            Kind::Assistant => "assistant",
            Kind::Status => "status",
        }
    }
}

/// One message: consecutive lines of one kind, prefixes and line-break
/// spaces taken off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub kind: Kind,
    pub text: String,
    /// Byte offset of its first line in the file, and the length of its lines.
    pub offset: u64,
    pub len: u64,
}

/// One `# aider chat started at` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block<'a> {
    /// Byte offset of the header line in the file.
    pub offset: usize,
    /// The start time as written (`YYYY-MM-DD HH:MM:SS`).
    pub started: &'a str,
    /// The block's text, from its header line to the next header (or the end).
    pub text: &'a str,
}

/// The lines of `text` with their byte offsets (line ends kept).
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    text.split_inclusive('\n').map(move |line| {
        let start = at;
        at += line.len();
        (start, line)
    })
}

/// The header's start time, if `line` is a block header.
pub fn header_time(line: &str) -> Option<&str> {
    line.strip_prefix(HEADER).map(|t| t.trim_end_matches(['\n', '\r']).trim())
}

/// The blocks of a history file, in file order. Text before the first
/// header (the leading newline) belongs to no block.
pub fn blocks(text: &str) -> Vec<Block<'_>> {
    let starts: Vec<(usize, &str)> =
        lines(text).filter_map(|(at, line)| header_time(line).map(|time| (at, time))).collect();
    starts
        .iter()
        .enumerate()
        .map(|(i, &(offset, started))| {
            let end = starts.get(i + 1).map_or(text.len(), |next| next.0);
            Block { offset, started, text: &text[offset..end] }
        })
        .collect()
}

/// Whether anything but blank lines precedes the first header.
pub fn has_preamble(text: &str) -> bool {
    let first = blocks(text).first().map_or(text.len(), |b| b.offset);
    !text[..first].trim().is_empty()
}

/// A line's kind and its content (prefix and trailing line break off).
fn classify(line: &str) -> (Kind, &str) {
    let body = line.trim_end_matches(['\n', '\r']);
    if let Some(rest) = body.strip_prefix(USER) {
        (Kind::User, rest.strip_suffix("  ").unwrap_or(rest))
    } else if let Some(rest) = body.strip_prefix(STATUS) {
        (Kind::Status, rest.strip_suffix("  ").unwrap_or(rest))
    } else {
        (Kind::Assistant, body)
    }
}

/// The messages of one block (its header line skipped). `base` is the
/// block's offset in the file.
pub fn messages(block: &Block<'_>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::new();
    let mut open: Option<(Kind, Vec<&str>, usize, usize)> = None;
    let close = |open: &mut Option<(Kind, Vec<&str>, usize, usize)>, out: &mut Vec<Message>| {
        if let Some((kind, parts, start, end)) = open.take() {
            let text = parts.join("\n");
            let text = if kind == Kind::Assistant { text.trim().to_string() } else { text };
            // An assistant run of blank lines only is the space between messages.
            if kind != Kind::Assistant || !text.is_empty() {
                out.push(Message { kind, text, offset: (block.offset + start) as u64, len: (end - start) as u64 });
            }
        }
    };
    for (at, line) in lines(block.text).skip(1) {
        let (kind, content) = classify(line);
        let blank = kind == Kind::Assistant && content.trim().is_empty();
        let open_kind = open.as_ref().map(|o| o.0);
        if open_kind == Some(kind) {
            if let Some((_, parts, _, end)) = open.as_mut() {
                parts.push(content);
                *end = at + line.len();
            }
        } else if blank {
            // A blank line ends a user or status run; it opens nothing.
            if open_kind.is_some() {
                close(&mut open, &mut out);
            }
        } else {
            close(&mut open, &mut out);
            open = Some((kind, vec![content], at, at + line.len()));
        }
    }
    close(&mut open, &mut out);
    out
}

/// The version the block's banner names (`> Aider v0.86.2`).
pub fn version(messages: &[Message]) -> Option<String> {
    banner_value(messages, VERSION_LINE).map(|v| v.split_whitespace().next().unwrap_or(v).to_string())
}

/// The model the block's banner names (`> Model: openai/fake-model with …`).
pub fn model(messages: &[Message]) -> Option<String> {
    banner_value(messages, MODEL_LINE).and_then(|v| v.split_whitespace().next()).map(str::to_string)
}

fn banner_value<'a>(messages: &'a [Message], prefix: &str) -> Option<&'a str> {
    messages
        .iter()
        .filter(|m| m.kind == Kind::Status)
        .flat_map(|m| m.text.lines())
        .find_map(|line| line.strip_prefix(prefix))
        .map(str::trim)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "\n# aider chat started at 2026-12-07 01:10:42\n\n> Aider v0.86.2  \n> Model: openai/m with whole edit format  \n\n#### hi  \n#### there  \n\nHello\n\nagain\n\n> Tokens: 1 sent  \n\n# aider chat started at 2026-12-07 01:10:47\n\n#### q  \n";

    #[test]
    fn blocks_and_messages() {
        let blocks = blocks(TWO);
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].started, "2026-12-07 01:10:42");
        assert_eq!(blocks[0].offset, 1);
        let m = messages(&blocks[0]);
        let kinds: Vec<_> = m.iter().map(|m| m.kind).collect();
        assert_eq!(kinds, [Kind::Status, Kind::User, Kind::Assistant, Kind::Status]);
        assert_eq!(m[1].text, "hi\nthere");
        assert_eq!(m[2].text, "Hello\n\nagain");
        assert_eq!(&TWO[m[1].offset as usize..(m[1].offset + m[1].len) as usize], "#### hi  \n#### there  \n");
        assert_eq!(version(&m).as_deref(), Some("0.86.2"));
        assert_eq!(model(&m).as_deref(), Some("openai/m"));
        assert_eq!(messages(&blocks[1])[0].text, "q");
        assert!(!has_preamble(TWO));
    }
}
