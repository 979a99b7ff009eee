//! `discover`: the sessions under a home, from directory listings, the
//! start of each event log and each `workspace.yaml`.
//!
//! One listing of `session-state/` and one of each session directory give
//! every size and time; only the first 64 KiB of an event log are read.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, DirEntry, FsError};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::head::Head;
use crate::layout::{self, EVENTS, SESSION_STATE, SessionPaths, WORKSPACE};
use crate::time::rfc3339_utc;

/// Every session under `home`.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut diags = Diagnostics::new();
    let entries = match home.list(SESSION_STATE) {
        Ok(entries) => entries,
        Err(FsError::NotFound(_)) => return Ok(Discovery { sessions, diagnostics: Vec::new() }),
        Err(e) => {
            diags.add("unreadable-directory", Severity::Warning, fs_kind(&e), Some(SESSION_STATE), None);
            return Ok(Discovery { sessions, diagnostics: diags.drain() });
        }
    };
    for dir in entries.iter().filter(|e| e.is_dir() && layout::is_session_dir(&e.name)) {
        let session_dir = layout::join(SESSION_STATE, &dir.name);
        let files = match home.list(&session_dir) {
            Ok(files) => files,
            Err(e) => {
                diags.add("unreadable-directory", Severity::Warning, fs_kind(&e), Some(&session_dir), None);
                continue;
            }
        };
        let locator = layout::join(&session_dir, EVENTS);
        if let Some(session) = session_ref(home, &locator, &files, &mut diags) {
            sessions.push(session);
        }
    }
    Ok(Discovery { sessions, diagnostics: diags.drain() })
}

/// The session-ref of one session, as `discover` reports it.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let files = home.list(&paths.session_dir).map_err(|e| fs_error(&paths.session_dir, e))?;
    let mut diags = Diagnostics::new();
    session_ref(home, locator, &files, &mut diags)
        .ok_or_else(|| CodecError::Malformed(format!("{locator}: not a Copilot CLI event log")))
}

/// A session from its directory listing; `None` (with a diagnostic) when
/// the directory holds no usable event log.
fn session_ref(home: &Dir, locator: &str, files: &[DirEntry], diags: &mut Diagnostics) -> Option<SessionRef> {
    let paths = SessionPaths::from_locator(locator).ok()?;
    let Some(events) = files.iter().find(|e| e.is_file() && e.name == EVENTS) else {
        // A session whose first event is not written yet, or another directory.
        diags.add("no-event-log", Severity::Info, EVENTS, Some(&paths.session_dir), None);
        return None;
    };
    if events.meta.size == 0 {
        diags.add("empty-session-file", Severity::Info, EVENTS, Some(locator), None);
        return None;
    }
    let head = match home.open(locator).and_then(|file| Head::scan(home, &file, &paths.workspace())) {
        Ok(head) => head,
        Err(e) => {
            diags.add("unreadable-file", Severity::Warning, fs_kind(&e), Some(locator), None);
            return None;
        }
    };
    if head.start.is_none() {
        diags.add("no-session-start", Severity::Info, "session.start", Some(locator), None);
        return None;
    }
    if head.session_id().is_some_and(|id| id != paths.native_id) {
        diags.add("session-id-mismatch", Severity::Warning, "sessionId", Some(locator), None);
    }
    let workspace_size: u64 = files.iter().filter(|e| e.is_file() && e.name == WORKSPACE).map(|e| e.meta.size).sum();
    Some(SessionRef {
        native_id: paths.native_id,
        locator: locator.to_string(),
        cwd: head.cwd(),
        started_at: head.started_at(),
        updated_at: events.meta.modified_ms.map(rfc3339_utc),
        size: events.meta.size + workspace_size,
        native_version: head.version(),
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
