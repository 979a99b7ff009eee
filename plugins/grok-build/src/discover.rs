//! `discover` and `inspect`: sessions from directory listings (one stat per
//! entry, by the host's listing) and each session's `summary.json`.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems, SESSION_ID_MISMATCH};
use trajhost_codec_sdk::errors::fs_error;
use trajhost_codec_sdk::fs::{Dir, DirEntry};
use trajhost_codec_sdk::paths::join;
use trajhost_codec_sdk::text::percent_decode;
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::layout::{
    CHAT_HISTORY, PROMPT_HISTORY, SESSION_SEARCH, SESSIONS, SUMMARY, SessionPaths, UPDATES, plain_name,
};
use crate::summary::Summary;

/// Every session under `.grok/sessions/<cwd folder>/<id>/` that has a
/// `chat_history.jsonl` (folders with only `updates.jsonl` are read by the
/// `grok-build-updates` codec). Known files
/// that are no sessions: the search index in the root and each cwd
/// folder's prompt history; a session folder's many other files are its
/// own. Anything else is named in a diagnostic.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let mut sessions = Vec::new();
    for folder in discovery::list(home, SESSIONS, &mut problems).unwrap_or_default() {
        let folder_path = join(SESSIONS, &folder.name);
        if folder.name.starts_with(SESSION_SEARCH) {
            continue;
        }
        if !folder.is_dir() || !plain_name(&folder.name) {
            problems.unrecognized(&folder_path, "not a cwd folder");
            continue;
        }
        let Some(entries) = discovery::list(home, &folder_path, &mut problems) else { continue };
        for entry in &entries {
            let session_dir = join(&folder_path, &entry.name);
            if !entry.is_dir() {
                if entry.name != PROMPT_HISTORY && !entry.name.ends_with(".lock") {
                    problems.unrecognized(&session_dir, "not a session folder");
                }
                continue;
            }
            let Some(files) = discovery::list(home, &session_dir, &mut problems) else { continue };
            let has = |name: &str| files.iter().any(|f| f.is_file() && f.name == name);
            if !has(CHAT_HISTORY) {
                // A journal-only session is the `0.1.0-updates` codec's layout.
                if has(UPDATES) {
                    continue;
                }
                problems.add(
                    "no-chat-history",
                    Severity::Info,
                    &session_dir,
                    "session folder without chat_history.jsonl",
                );
                continue;
            }
            let Ok(mut paths) = SessionPaths::from_locator(&join(&session_dir, CHAT_HISTORY)) else {
                problems.unrecognized(&session_dir, "a folder name that is not a plain name");
                continue;
            };
            if let Some(s) = session_ref(home, &mut paths, &files, &mut problems) {
                sessions.push(s);
            }
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let mut paths = SessionPaths::from_locator(locator)?;
    let files = home.list(&paths.session_dir).map_err(|e| fs_error(&paths.session_dir, e))?;
    let mut problems = FileProblems::new();
    session_ref(home, &mut paths, &files, &mut problems).ok_or_else(|| CodecError::NotFound(locator.to_string()))
}

/// The session-ref of one session folder, with its summary (a problem
/// with it names the file). Settles `paths.native_id`.
pub fn session_ref(
    home: &Dir,
    paths: &mut SessionPaths,
    files: &[DirEntry],
    problems: &mut FileProblems,
) -> Option<SessionRef> {
    let file = |name: &str| files.iter().find(|f| f.is_file() && f.name == name);
    let history = file(CHAT_HISTORY)?;
    let summary_path = paths.in_session(SUMMARY);
    let mut summary_diags = Diagnostics::new();
    let summary = Summary::read(home, &summary_path, &mut summary_diags);
    problems.absorb(&mut summary_diags, &summary_path);
    if paths.identify(summary.id.as_deref()) {
        problems.add(SESSION_ID_MISMATCH, Severity::Warning, &paths.session_dir, "info.id");
    }
    let modified = [Some(history), file(UPDATES)].into_iter().flatten().filter_map(|f| f.meta.modified_ms).max();
    Some(SessionRef {
        native_id: paths.native_id.clone(),
        locator: paths.locator.clone(),
        cwd: summary.cwd.clone().or_else(|| percent_decode(&paths.cwd_folder).filter(|c| c.starts_with('/'))),
        started_at: summary.created_at.clone(),
        updated_at: summary.updated_at.clone().or_else(|| modified.map(rfc3339_ms)),
        size: files.iter().filter(|f| f.is_file()).map(|f| f.meta.size).sum(),
        native_version: summary.chat_format_version.clone(),
        title: summary.title.clone(),
    })
}
