//! `sniff`: a loose file that is an Aider chat history: a `# aider chat
//! started at` line within its first lines (the file starts with a blank
//! line, then the header). No id: a block's id is made from the path the
//! file is read by.

use trajhost_codec_sdk::Sniffed;

use crate::history;

pub fn sniff(_path: &str, head: &[u8]) -> Option<Sniffed> {
    let text = std::str::from_utf8(head).or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()])).ok()?;
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    history::header_time(first)?;
    let blocks = history::blocks(text);
    let messages = blocks.first().map(history::messages).unwrap_or_default();
    Some(Sniffed { native_version: history::version(&messages), native_id: None })
}
