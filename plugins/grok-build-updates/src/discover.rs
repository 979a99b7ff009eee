//! `discover` and `inspect`: the session folders that hold `updates.jsonl`
//! and no `chat_history.jsonl` (those are the main codec's), with each
//! one's `summary.json`. Files that are no session folder of any kind are
//! named by the main codec, which walks the same store.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems, SESSION_ID_MISMATCH};
use trajhost_codec_sdk::errors::fs_error;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::paths::{is_uuid, join};
use trajhost_codec_sdk::text::percent_decode;
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::layout::{CHAT_HISTORY, SESSIONS, SessionPaths, UPDATES, plain_name};
use crate::summary::Summary;

pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let mut sessions = Vec::new();
    for folder in discovery::list(home, SESSIONS, &mut problems).unwrap_or_default() {
        if !folder.is_dir() || !plain_name(&folder.name) {
            continue;
        }
        let folder_path = join(SESSIONS, &folder.name);
        let Some(entries) = discovery::list(home, &folder_path, &mut problems) else { continue };
        for entry in entries.iter().filter(|e| e.is_dir() && plain_name(&e.name)) {
            let session_dir = join(&folder_path, &entry.name);
            let Some(files) = discovery::list(home, &session_dir, &mut problems) else { continue };
            let has = |name: &str| files.iter().find(|f| f.is_file() && f.name == name);
            let (Some(journal), None) = (has(UPDATES), has(CHAT_HISTORY)) else { continue };
            let locator = join(&session_dir, UPDATES);
            if journal.meta.size == 0 {
                problems.empty(&locator, "Grok Build updates.jsonl");
            }
            let Ok(paths) = SessionPaths::from_locator(&locator) else { continue };
            let size = files.iter().filter(|f| f.is_file()).map(|f| f.meta.size).sum();
            sessions.push(session_ref(home, paths, size, journal.meta.modified_ms, &mut problems));
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let meta = home.stat(locator).map_err(|e| fs_error(locator, e))?;
    let size = match &paths.session_dir {
        Some(dir) => {
            let files = home.list(dir).map_err(|e| fs_error(dir, e))?;
            files.iter().filter(|f| f.is_file()).map(|f| f.meta.size).sum()
        }
        None => meta.size,
    };
    Ok(session_ref(home, paths, size, meta.modified_ms, &mut FileProblems::new()))
}

/// The session-ref of one journal, with its summary (a problem with it
/// names the file).
pub fn session_ref(
    home: &Dir,
    mut paths: SessionPaths,
    size: u64,
    modified_ms: Option<i64>,
    problems: &mut FileProblems,
) -> SessionRef {
    let summary = match paths.summary() {
        Some(path) => {
            let mut diags = Diagnostics::new();
            let summary = Summary::read(home, &path, &mut diags);
            problems.absorb(&mut diags, &path);
            summary
        }
        None => Summary::default(),
    };
    // A folder named by a UUID (as Grok Build names them) wins over the summary.
    let (id, mismatch) = discovery::identify(&paths.native_id, is_uuid(&paths.native_id), summary.id.as_deref());
    if mismatch && let Some(dir) = &paths.session_dir {
        problems.add(SESSION_ID_MISMATCH, Severity::Warning, dir, "info.id");
    }
    paths.native_id = id;
    let folder_cwd = paths.cwd_folder.as_deref().and_then(percent_decode).filter(|c| c.starts_with('/'));
    SessionRef {
        native_id: paths.native_id,
        locator: paths.locator,
        cwd: summary.cwd.or(folder_cwd),
        started_at: summary.created_at,
        updated_at: summary.updated_at.or_else(|| modified_ms.map(rfc3339_ms)),
        size,
        native_version: summary.chat_format_version,
        title: summary.title,
    }
}
