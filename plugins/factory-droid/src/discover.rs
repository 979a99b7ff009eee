//! `discover`: the sessions under a home, from directory listings and the
//! head of each session file.
//!
//! Each file is stat'ed once, by the host's listing; only the first 64 KiB
//! of a session file are read (more only while its first lines are longer).
//! `<id>.settings.json` files are no sessions; their size counts toward
//! their session's.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, DirEntry, FsError, Metadata};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::head::Head;
use crate::layout::{self, JSONL, SESSIONS, SETTINGS, SessionPaths};
use crate::time::rfc3339_utc;

/// Every transcript under `home`.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut diags = Diagnostics::new();
    let Some(projects) = list(home, SESSIONS, &mut diags) else {
        return Ok(Discovery { sessions, diagnostics: diags.drain() });
    };
    for project in projects.iter().filter(|e| e.is_dir()) {
        let dir = layout::join(SESSIONS, &project.name);
        let Some(entries) = list(home, &dir, &mut diags) else { continue };
        for entry in entries.iter().filter(|e| e.is_file() && e.name.ends_with(JSONL) && e.name.len() > JSONL.len()) {
            let locator = layout::join(&dir, &entry.name);
            let stem = entry.name.strip_suffix(JSONL).unwrap_or(&entry.name);
            let settings = format!("{stem}{SETTINGS}");
            let extra = entries.iter().filter(|e| e.is_file() && e.name == settings).map(|e| e.meta.size).sum();
            if let Some(session) = session_ref(home, &locator, &entry.meta, extra, &mut diags) {
                sessions.push(session);
            }
        }
    }
    Ok(Discovery { sessions, diagnostics: diags.drain() })
}

/// The session-ref of one transcript, as `discover` reports it.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    SessionPaths::from_locator(locator)?;
    let meta = home.stat(locator).map_err(|e| fs_error(locator, e))?;
    let settings = format!("{}{SETTINGS}", locator.strip_suffix(JSONL).unwrap_or(locator));
    let extra = home.stat(&settings).map(|m| m.size).unwrap_or(0);
    let mut diags = Diagnostics::new();
    session_ref(home, locator, &meta, extra, &mut diags)
        .ok_or_else(|| CodecError::Malformed(format!("{locator}: no session_start in the head of the file")))
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

/// `extra`: the bytes of the session's settings file.
fn session_ref(home: &Dir, locator: &str, meta: &Metadata, extra: u64, diags: &mut Diagnostics) -> Option<SessionRef> {
    let paths = SessionPaths::from_locator(locator).ok()?;
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
    if head.start_span.is_none() {
        diags.add("no-session-start", Severity::Info, "session_start", Some(locator), None);
        return None;
    }
    if head.session_id.as_deref() != Some(paths.native_id.as_str()) {
        diags.add("session-id-mismatch", Severity::Warning, "sessionId", Some(locator), None);
    }
    Some(SessionRef {
        native_id: paths.native_id,
        locator: locator.to_string(),
        cwd: head.cwd.clone(),
        started_at: head.started_at.clone(),
        updated_at: meta.modified_ms.map(rfc3339_utc),
        size: meta.size + extra,
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
