//! `discover`: the sessions under a home, from directory listings, the
//! start of each event log and each `workspace.yaml`.
//!
//! One listing of `session-state/` and one of each session directory give
//! every size and time; only the first 64 KiB of an event log are read.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems, SESSION_ID_MISMATCH};
use trajhost_codec_sdk::fs::{Dir, DirEntry};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

pub use trajhost_codec_sdk::errors::{fs_error, fs_kind};

use crate::head::Head;
use crate::layout::{self, EVENTS, SESSION_STATE, SessionPaths, WORKSPACE};
use crate::time::rfc3339_utc;

/// Every session under `home`: each directory of `session-state/` is a
/// session (its other files, `workspace.yaml`, `checkpoints/`, snapshots,
/// locks, are the session's own and not looked at), dot-directories hold
/// the CLI's locks; any file there is named in a diagnostic.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut problems = FileProblems::new();
    for dir in discovery::list(home, SESSION_STATE, &mut problems).unwrap_or_default() {
        let session_dir = layout::join(SESSION_STATE, &dir.name);
        if !dir.is_dir() {
            problems.unrecognized(&session_dir, "not a session directory");
            continue;
        }
        if !layout::is_session_dir(&dir.name) {
            continue;
        }
        let Some(files) = discovery::list(home, &session_dir, &mut problems) else { continue };
        let locator = layout::join(&session_dir, EVENTS);
        if let Some(session) = session_ref(home, &locator, &files, &mut problems) {
            sessions.push(session);
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The session-ref of one session, as `discover` reports it.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let files = home.list(&paths.session_dir).map_err(|e| fs_error(&paths.session_dir, e))?;
    let mut problems = FileProblems::new();
    session_ref(home, locator, &files, &mut problems).ok_or_else(|| {
        CodecError::Malformed(format!(
            "{locator}: not a Copilot CLI event log: {}",
            problems.first_detail().unwrap_or("")
        ))
    })
}

/// A session from its directory listing; `None` (with a diagnostic) when
/// the directory holds no usable event log.
fn session_ref(home: &Dir, locator: &str, files: &[DirEntry], problems: &mut FileProblems) -> Option<SessionRef> {
    let mut paths = SessionPaths::from_locator(locator).ok()?;
    let Some(events) = files.iter().find(|e| e.is_file() && e.name == EVENTS) else {
        // A session whose first event is not written yet.
        problems.add("no-event-log", Severity::Info, &paths.session_dir, "session directory without events.jsonl");
        return None;
    };
    let workspace = paths.workspace();
    let head =
        problems.scan_head(home, locator, events.meta.size, EVENTS, |file| Head::scan(home, file, &workspace))?;
    if let Some(why) = head.not_a_session() {
        problems.malformed_head(locator, why);
        return None;
    }
    if paths.identify(head.session_id()) {
        problems.add(SESSION_ID_MISMATCH, Severity::Warning, locator, "sessionId");
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
