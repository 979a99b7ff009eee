//! `discover` and `inspect`: the blocks of the history file in the granted
//! directory (the workspace), one session each.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::FileProblems;
use trajhost_codec_sdk::errors::fs_error;
use trajhost_codec_sdk::fs::{Dir, EntryKind, FsError, Metadata};
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::history::{self, Block, FILE};
use crate::session;

/// Text before the first block header (Aider writes only a newline there).
pub const PREAMBLE: &str = "unrecognized-content";

pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let mut sessions = Vec::new();
    for file in history_files(home) {
        sessions.extend(sessions_of(home, &file, &mut problems));
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The history files of the granted directory: its own, and those of the
/// workspaces directly under it (`~/project/.aider.chat.history.md` when the
/// directory is a HOME).
fn history_files(home: &Dir) -> Vec<String> {
    let mut files = vec![FILE.to_string()];
    let mut workspaces: Vec<String> = home
        .list("")
        .unwrap_or_default()
        .into_iter()
        .filter(|entry| entry.is_dir())
        .map(|entry| format!("{}/{FILE}", entry.name))
        .filter(|file| home.stat(file).is_ok())
        .collect();
    workspaces.sort();
    files.extend(workspaces);
    files
}

/// The blocks of one history file, one session each.
fn sessions_of(home: &Dir, file: &str, problems: &mut FileProblems) -> Vec<SessionRef> {
    let meta = match home.stat(file) {
        Ok(meta) => meta,
        Err(FsError::NotFound(_)) => return Vec::new(),
        Err(e) => {
            problems.unreadable(file, &e);
            return Vec::new();
        }
    };
    if meta.kind != EntryKind::File {
        problems.unrecognized(file, "a file (the chat history)");
        return Vec::new();
    }
    let text = match session::load(home, file) {
        Ok(text) => text,
        Err(e) => {
            problems.add("unreadable-file", Severity::Warning, file, &trajhost_codec_sdk::errors::detail_of(file, &e));
            return Vec::new();
        }
    };
    if text.is_empty() {
        problems.empty(file, "markdown");
        return Vec::new();
    }
    let blocks = history::blocks(&text);
    if blocks.is_empty() {
        problems.malformed_head(file, "no `# aider chat started at` line");
    } else if history::has_preamble(&text) {
        problems.add(PREAMBLE, Severity::Warning, file, "text before the first `# aider chat started at` line");
    }
    let last = blocks.len().saturating_sub(1);
    blocks.iter().enumerate().map(|(i, b)| session_ref(file, b, i == last, &meta)).collect()
}

/// The session-ref of the block a locator names, as `discover` gives it
/// (a history file elsewhere too: a loose copy the host sniffed).
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let (file, id) = session::split_locator(locator);
    let meta = home.stat(file).map_err(|e| fs_error(file, e))?;
    let text = session::load(home, file)?;
    let block = session::find(&text, file, id)?;
    let last = history::blocks(&text).last().is_some_and(|b| b.offset == block.offset);
    Ok(session_ref(file, &block, last, &meta))
}

fn session_ref(file: &str, block: &Block<'_>, last: bool, meta: &Metadata) -> SessionRef {
    let messages = history::messages(block);
    let native_id = session::native_id(file, block);
    SessionRef {
        locator: session::locator(file, &native_id),
        native_id,
        // The file lies in the workspace, whose path the codec is not told.
        cwd: None,
        started_at: session::started_at(block),
        // Only the last block can still grow: its end is the file's mtime.
        updated_at: if last { meta.modified_ms.map(rfc3339_ms) } else { None },
        size: block.text.len() as u64,
        native_version: history::version(&messages),
        title: None,
    }
}
