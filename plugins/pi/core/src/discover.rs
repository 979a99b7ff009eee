//! `discover`: the sessions under a home, from directory listings and the
//! head of each session file. Each file is stat'ed once (by the listing);
//! only its head is read.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, DirEntry, FsError, Metadata};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::Flavor;
use crate::head::Head;
use crate::layout::{self, JSONL};

/// Every session file `<sessions>/<dir>/<ts>_<id>.jsonl` under `home`.
/// Subfolders of a session folder (Oh My Pi's artifacts and subagent
/// transcripts, `<ts>_<id>/`) are not sessions of their own.
pub fn discover(flavor: &Flavor, home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut diags = Diagnostics::new();
    if let Some(dirs) = list(home, flavor.sessions_dir, &mut diags) {
        for dir in dirs.iter().filter(|e| e.is_dir()) {
            let dir_path = layout::join(flavor.sessions_dir, &dir.name);
            let Some(entries) = list(home, &dir_path, &mut diags) else { continue };
            for entry in entries.iter().filter(|e| e.is_file() && e.name.ends_with(JSONL) && e.name.len() > JSONL.len()) {
                let locator = layout::join(&dir_path, &entry.name);
                if let Some(session) = session_ref(home, &locator, &entry.meta, &mut diags) {
                    sessions.push(session);
                }
            }
        }
    }
    Ok(Discovery { sessions, diagnostics: diags.drain() })
}

/// The session-ref of one session file, as `discover` reports it.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    layout::check_locator(locator)?;
    let meta = home.stat(locator).map_err(|e| fs_error(locator, e))?;
    let mut diags = Diagnostics::new();
    session_ref(home, locator, &meta, &mut diags)
        .ok_or_else(|| CodecError::Malformed(format!("{locator}: no `session` header line in the head of the file")))
}

fn list(home: &Dir, path: &str, diags: &mut Diagnostics) -> Option<Vec<DirEntry>> {
    match home.list(path) {
        Ok(entries) => Some(entries),
        Err(FsError::NotFound(_)) => None,
        Err(e) => {
            diags.add("unreadable-directory", Severity::Warning, fs_kind(&e), Some(path), None);
            None
        }
    }
}

fn session_ref(home: &Dir, locator: &str, meta: &Metadata, diags: &mut Diagnostics) -> Option<SessionRef> {
    if meta.size == 0 {
        diags.add("empty-session-file", Severity::Info, "jsonl", Some(locator), None);
        return None;
    }
    let head = match home.open(locator).and_then(|file| Head::scan(&file)) {
        Ok(head) => head,
        Err(e) => {
            diags.add("unreadable-file", Severity::Warning, fs_kind(&e), Some(locator), None);
            return None;
        }
    };
    if !head.has_header() {
        // Pi treats a file without a header as invalid.
        diags.add("no-session-header", Severity::Warning, "session", Some(locator), None);
        return None;
    }
    let file_id = locator.rsplit('/').next().and_then(layout::id_of_file_name);
    let native_id = head.id.clone().or_else(|| file_id.map(str::to_string))?;
    if file_id.is_some_and(|id| id != native_id) {
        diags.add("session-id-mismatch", Severity::Warning, "id", Some(locator), None);
    }
    Some(SessionRef {
        native_id,
        locator: locator.to_string(),
        cwd: head.cwd.clone(),
        started_at: head.started_at.clone(),
        updated_at: meta.modified_ms.map(crate::time::rfc3339_utc),
        size: meta.size,
        native_version: head.version.clone(),
        title: head.title(),
    })
}

/// The kind of a filesystem error, for diagnostics (no paths, no content).
pub fn fs_kind(error: &FsError) -> &'static str {
    match error {
        FsError::NotFound(_) => "not-found",
        FsError::Denied(_) => "denied",
        FsError::InvalidPath(_) => "invalid-path",
        FsError::Io(_) => "io",
        FsError::LimitExceeded(_) => "limit-exceeded",
    }
}

/// A filesystem error as a codec error naming the file.
pub fn fs_error(path: &str, error: FsError) -> CodecError {
    match error {
        FsError::NotFound(_) => CodecError::NotFound(path.to_string()),
        FsError::LimitExceeded(m) => CodecError::LimitExceeded(format!("{path}: {m}")),
        other => CodecError::Io(format!("{path}: {other}")),
    }
}
