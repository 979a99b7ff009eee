//! `discover` and `inspect`: sessions from directory listings (one stat per
//! entry, by the host's listing) and each session's `summary.json`.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, DirEntry, FsError};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::layout::{CHAT_HISTORY, SESSIONS, SUMMARY, SessionPaths, UPDATES, plain_name};
use crate::summary::Summary;
use crate::util::{fs_error, fs_kind, join, percent_decode, rfc3339_ms};

pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut diags = Diagnostics::new();
    let mut sessions = Vec::new();
    let Some(folders) = list(home, SESSIONS, &mut diags) else {
        return Ok(Discovery { sessions, diagnostics: diags.drain() });
    };
    for folder in folders.iter().filter(|e| e.is_dir() && plain_name(&e.name)) {
        let folder_path = join(SESSIONS, &folder.name);
        let Some(entries) = list(home, &folder_path, &mut diags) else { continue };
        for entry in entries.iter().filter(|e| e.is_dir() && plain_name(&e.name)) {
            let session_dir = join(&folder_path, &entry.name);
            let Some(files) = list(home, &session_dir, &mut diags) else { continue };
            if !files.iter().any(|f| f.is_file() && f.name == CHAT_HISTORY) {
                diags.add("no-chat-history", Severity::Info, CHAT_HISTORY, Some(&session_dir), None);
                continue;
            }
            let paths = SessionPaths::from_locator(&join(&session_dir, CHAT_HISTORY))?;
            if let Some(s) = session_ref(home, &paths, &files, &mut diags) {
                sessions.push(s);
            }
        }
    }
    Ok(Discovery { sessions, diagnostics: diags.drain() })
}

pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let files = home.list(&paths.session_dir).map_err(|e| fs_error(&paths.session_dir, e))?;
    let mut diags = Diagnostics::new();
    session_ref(home, &paths, &files, &mut diags).ok_or_else(|| CodecError::NotFound(locator.to_string()))
}

/// The session-ref of one session folder, with its summary.
pub fn session_ref(home: &Dir, paths: &SessionPaths, files: &[DirEntry], diags: &mut Diagnostics) -> Option<SessionRef> {
    let file = |name: &str| files.iter().find(|f| f.is_file() && f.name == name);
    let history = file(CHAT_HISTORY)?;
    let summary = Summary::read(home, &paths.in_session(SUMMARY), diags);
    if summary.id.as_deref().is_some_and(|id| id != paths.native_id) {
        diags.add("session-id-mismatch", Severity::Warning, "info.id", Some(&paths.session_dir), None);
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

pub fn list(home: &Dir, path: &str, diags: &mut Diagnostics) -> Option<Vec<DirEntry>> {
    match home.list(path) {
        Ok(entries) => Some(entries),
        Err(FsError::NotFound(_)) => None,
        Err(e) => {
            diags.add("unreadable-directory", Severity::Warning, fs_kind(&e), Some(path), None);
            None
        }
    }
}
