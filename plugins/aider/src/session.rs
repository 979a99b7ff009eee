//! Which block a locator names, and the ids and times of a block.
//!
//! A locator is `<path>#<native id>`: the history file (relative to the
//! directory the host granted, the workspace) and the block. A path without
//! `#<id>` (a file read directly) names its newest block: the last run.
//!
//! Aider names no session, so the native id is made from the file's path
//! and the block's header: `<start as YYYYMMDDTHHMMSS>-<8 hex digits of
//! SHA-256(path, "#", header offset)>`. The file is only appended to, so a
//! block keeps its offset and its id.

use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::errors::fs_error;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::time::{parse_naive, rfc3339_ms};
use trajhost_codec_sdk::writer::ids::{hex_prefix, sha256_of};

use crate::history::{self, Block};

/// Largest history file read.
pub const MAX_BYTES: u64 = 1 << 30;

/// `(file, block id)` of a locator.
pub fn split_locator(locator: &str) -> (&str, Option<&str>) {
    match locator.split_once('#') {
        Some((file, id)) => (file, Some(id)),
        None => (locator, None),
    }
}

/// The locator of a block of `file`.
pub fn locator(file: &str, id: &str) -> String {
    format!("{file}#{id}")
}

/// A block's native id.
pub fn native_id(file: &str, block: &Block<'_>) -> String {
    let stamp: String = block.started.chars().filter(char::is_ascii_digit).collect();
    let stamp = if stamp.len() == 14 { format!("{}T{}", &stamp[..8], &stamp[8..]) } else { "undated".into() };
    let digest = sha256_of(&[file.as_bytes(), b"#", block.offset.to_string().as_bytes()]);
    format!("{stamp}-{}", hex_prefix(&digest, 8))
}

/// A block's start, RFC 3339 (Aider writes local time without a zone: read
/// as UTC).
pub fn started_at(block: &Block<'_>) -> Option<String> {
    parse_naive(block.started).filter(|(_, rest)| rest.trim().is_empty()).map(|(ms, _)| rfc3339_ms(ms))
}

/// The file's text; bytes that are not UTF-8 are replaced (Aider writes UTF-8).
pub fn load(home: &Dir, file: &str) -> Result<String, CodecError> {
    let bytes = home.read_to_end(file, MAX_BYTES).map_err(|e| fs_error(file, e))?;
    Ok(trajhost_codec_sdk::text::lossy(bytes))
}

/// The block `id` names in `text` (the last block without an id).
pub fn find<'a>(text: &'a str, file: &str, id: Option<&str>) -> Result<Block<'a>, CodecError> {
    let blocks = history::blocks(text);
    let found = match id {
        Some(id) => blocks.into_iter().find(|b| native_id(file, b) == id),
        None => blocks.into_iter().last(),
    };
    found.ok_or_else(|| match id {
        Some(id) => CodecError::NotFound(format!("{file}: no `# aider chat started at` block with id {id}")),
        None => CodecError::Malformed(format!("{file}: no `# aider chat started at` line: not an Aider chat history")),
    })
}

/// Whether `file` names a history file (by its name).
pub fn is_history(file: &str) -> bool {
    file.rsplit('/').next() == Some(history::FILE)
}
