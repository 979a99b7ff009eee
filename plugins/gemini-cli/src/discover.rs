//! `discover`: the sessions under a home, from directory listings and the
//! head of each session file.
//!
//! Each file is stat'ed once, by the host's listing. Per project the
//! `.project_root` marker (a few bytes) gives the working directory; per
//! session only the first 64 KiB (and for larger files the last 64 KiB)
//! are read.

use std::collections::BTreeMap;

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::fs::{Dir, DirEntry, Metadata};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

pub use trajhost_codec_sdk::errors::{fs_error, fs_kind};
pub use trajhost_gemini_cli_core::project::project_root;

use crate::head::Head;
use crate::layout::{self, CHATS, JSONL, LEGACY_JSON, SESSION_PREFIX, SessionPaths, TMP_ROOT};
use crate::time::rfc3339_utc;

/// A session file without its header line (the metadata record).
pub const NO_SESSION_HEADER: &str = "no-session-header";

/// Every main session under `home`. Only each project's `chats/` is looked
/// into (`.gemini/tmp` and its project directories hold scratch files,
/// `bin/`, `tool-outputs/`, the `.project_root` marker). In `chats/`, each
/// entry is a session file, the `<sessionId>/` directory of a session's
/// subagents, or a diagnostic naming it.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut problems = FileProblems::new();
    let mut registry: Option<BTreeMap<String, String>> = None;
    for project in discovery::list(home, TMP_ROOT, &mut problems).unwrap_or_default().iter().filter(|e| e.is_dir()) {
        let project_dir = layout::join(TMP_ROOT, &project.name);
        let chats_dir = layout::join(&project_dir, CHATS);
        // Project directories without sessions (and `bin/`) have no `chats/`.
        let Some(entries) = discovery::list(home, &chats_dir, &mut problems) else { continue };
        let mut cwd: Option<Option<String>> = None;
        let mut ids = Vec::new();
        for entry in entries.iter().filter(|e| !e.is_dir()) {
            let locator = layout::join(&chats_dir, &entry.name);
            if entry.name.starts_with(SESSION_PREFIX) && entry.name.ends_with(LEGACY_JSON) {
                problems.add(
                    "legacy-json-session",
                    Severity::Info,
                    &locator,
                    "session-*.json: read by the gemini-cli 0.1.0-json codec",
                );
                continue;
            }
            if !entry.is_file() || !entry.name.ends_with(JSONL) || entry.name.len() == JSONL.len() {
                problems.unrecognized(&locator, "not a session file (session-*.jsonl)");
                continue;
            }
            let cwd = cwd.get_or_insert_with(|| project_root(home, &project_dir, &project.name, &mut registry)).clone();
            if let Some(session) = session_ref(home, &locator, &entry.meta, Some(&entries), cwd, &mut problems) {
                ids.push(session.native_id.clone());
                sessions.push(session);
            }
        }
        for dir in entries.iter().filter(|e| e.is_dir() && !ids.contains(&e.name)) {
            problems
                .unrecognized(&layout::join(&chats_dir, &dir.name), "a directory that belongs to no session of chats/");
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The session-ref of one session file, as `discover` reports it.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let meta = home.stat(locator).map_err(|e| fs_error(locator, e))?;
    let entries = home.list(&paths.chats_dir).ok();
    let slug = paths.project_dir.rsplit('/').next().unwrap_or("").to_string();
    let cwd = project_root(home, &paths.project_dir, &slug, &mut None);
    let mut problems = FileProblems::new();
    session_ref(home, locator, &meta, entries.as_deref(), cwd, &mut problems).ok_or_else(|| {
        CodecError::Malformed(format!("{locator}: not a Gemini CLI session: {}", problems.first_detail().unwrap_or("")))
    })
}

fn session_ref(
    home: &Dir,
    locator: &str,
    meta: &Metadata,
    chats: Option<&[DirEntry]>,
    cwd: Option<String>,
    problems: &mut FileProblems,
) -> Option<SessionRef> {
    let paths = SessionPaths::from_locator(locator).ok()?;
    let head = problems.scan_head(home, locator, meta.size, "jsonl", Head::scan)?;
    if head.session_id.is_none() && !head.has_messages {
        problems.malformed_head(locator, "no session header (sessionId) and no message record at the head");
        return None;
    }
    // A file whose header line is missing (its messages come first) is
    // still a session: named by a message's `sessionId`, else its file name.
    let (native_id, from_header) = head.native_id(locator);
    if !from_header {
        problems.add(NO_SESSION_HEADER, Severity::Warning, locator, "sessionId");
    }
    let mut size = meta.size;
    // Subagent sessions live in `chats/<sessionId>/`.
    if let (Some(entries), Some(dir)) = (chats, paths.subagents_dir(&native_id))
        && entries.iter().any(|e| e.is_dir() && e.name == native_id)
    {
        size += home
            .list(&dir)
            .map(|children| {
                children.iter().filter(|e| e.is_file() && e.name.ends_with(JSONL)).map(|e| e.meta.size).sum()
            })
            .unwrap_or(0);
    }
    Some(SessionRef {
        native_id,
        locator: locator.to_string(),
        cwd,
        started_at: head.started_at(),
        updated_at: meta.modified_ms.map(rfc3339_utc),
        size,
        native_version: None,
        title: head.title(),
    })
}
