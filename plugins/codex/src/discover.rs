//! `discover`: the rollouts under a home, from directory listings of the
//! dated tree and the head of each rollout.
//!
//! Each file is stat'ed once, by the host's listing; only the head of a
//! rollout is read (see [`crate::head`]).

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, DirEntry, FsError, Metadata};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::head::Head;
use crate::layout::{self, JSONL_ZST, SESSIONS_DIR};
use crate::time::rfc3339_utc;

/// Every rollout under `home/.codex/sessions/YYYY/MM/DD/`.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut diags = Diagnostics::new();
    let Some(years) = list(home, SESSIONS_DIR, &mut diags) else {
        return Ok(Discovery { sessions, diagnostics: diags.drain() });
    };
    for year in years.iter().filter(|e| e.is_dir()) {
        let year_dir = layout::join(SESSIONS_DIR, &year.name);
        let Some(months) = list(home, &year_dir, &mut diags) else { continue };
        for month in months.iter().filter(|e| e.is_dir()) {
            let month_dir = layout::join(&year_dir, &month.name);
            let Some(days) = list(home, &month_dir, &mut diags) else { continue };
            for day in days.iter().filter(|e| e.is_dir()) {
                let day_dir = layout::join(&month_dir, &day.name);
                let Some(files) = list(home, &day_dir, &mut diags) else { continue };
                for file in files.iter().filter(|e| e.is_file()) {
                    let locator = layout::join(&day_dir, &file.name);
                    if file.name.starts_with(layout::ROLLOUT_PREFIX) && file.name.ends_with(JSONL_ZST) {
                        // Newer builds compress old rollouts; no decoder here.
                        diags.add("compressed-rollout", Severity::Info, "jsonl.zst", Some(&locator), None);
                        continue;
                    }
                    if layout::id_from_name(&file.name).is_none() {
                        continue;
                    }
                    if let Some(session) = session_ref(home, &locator, &file.meta, &mut diags) {
                        sessions.push(session);
                    }
                }
            }
        }
    }
    Ok(Discovery { sessions, diagnostics: diags.drain() })
}

/// The session-ref of one rollout, as `discover` reports it (one stat, one
/// head read).
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    layout::name_id(locator)?;
    let meta = home.stat(locator).map_err(|e| fs_error(locator, e))?;
    let mut diags = Diagnostics::new();
    session_ref(home, locator, &meta, &mut diags)
        .ok_or_else(|| CodecError::Malformed(format!("{locator}: no session_meta line in the head of the rollout")))
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
    let name_id = layout::name_id(locator).ok()?.map(str::to_string);
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
    let Some(id) = head.id.clone() else {
        // Codex itself refuses a rollout that does not start with session_meta.
        diags.add("no-session-meta", Severity::Warning, "session_meta", Some(locator), None);
        return None;
    };
    if name_id.as_ref().is_some_and(|n| *n != id) {
        diags.add("session-id-mismatch", Severity::Warning, "session_meta.id", Some(locator), None);
    }
    Some(SessionRef {
        native_id: id,
        locator: locator.to_string(),
        cwd: head.cwd.clone(),
        started_at: head.started_at.clone(),
        updated_at: meta.modified_ms.map(rfc3339_utc),
        size: meta.size,
        native_version: head.cli_version.clone(),
        title: head.title.clone(),
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
