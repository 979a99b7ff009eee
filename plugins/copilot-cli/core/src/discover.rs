//! `discover`: the sessions under a home, from directory listings, the
//! start of each event log and each `workspace.yaml`.
//!
//! One listing of `session-state/` (and, for session directories, one of
//! each) gives every size and time; only the first 64 KiB of an event log
//! are read. Each layout looks only at its own entries of `session-state/`:
//! directories ([`Layout::Dirs`]) or `*.jsonl` files ([`Layout::Flat`]).

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems, SESSION_ID_MISMATCH};
use trajhost_codec_sdk::fs::{Dir, DirEntry, Metadata};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

pub use trajhost_codec_sdk::errors::{fs_error, fs_kind};

use crate::Flavor;
use crate::head::Head;
use crate::layout::{self, EVENTS, JSONL, Layout, SESSION_STATE, SessionPaths, WORKSPACE};
use crate::time::rfc3339_utc;

/// Every session of `flavor`'s layout under `home`.
///
/// Session directories: each directory of `session-state/` is a session (its
/// other files, `workspace.yaml`, `checkpoints/`, snapshots, locks, are the
/// session's own and not looked at), dot-directories hold the CLI's locks;
/// a `*.jsonl` file there is a flat event log (the other layout's); any
/// other file is named in a diagnostic.
///
/// Flat files: each `<sessionId>.jsonl` of `session-state/` is a session;
/// directories and other files are the session directories' layout's.
pub fn discover(flavor: &Flavor, home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut problems = FileProblems::new();
    for entry in discovery::list(home, SESSION_STATE, &mut problems).unwrap_or_default() {
        let path = layout::join(SESSION_STATE, &entry.name);
        let flat = entry.is_file() && entry.name.ends_with(JSONL) && layout::is_session_dir(&entry.name);
        match flavor.layout {
            Layout::Dirs => {
                if !entry.is_dir() {
                    if !flat {
                        problems.unrecognized(&path, "not a session directory");
                    }
                    continue;
                }
                if !layout::is_session_dir(&entry.name) {
                    continue;
                }
                let Some(files) = discovery::list(home, &path, &mut problems) else { continue };
                let locator = layout::join(&path, EVENTS);
                if let Some(session) = dir_session(flavor, home, &locator, &files, &mut problems) {
                    sessions.push(session);
                }
            }
            Layout::Flat => {
                if flat
                    && entry.name.len() > JSONL.len()
                    && let Some(session) = flat_session(flavor, home, &path, &entry.meta, &mut problems)
                {
                    sessions.push(session);
                }
            }
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The session-ref of one session, as `discover` reports it.
pub fn inspect(flavor: &Flavor, home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let paths = SessionPaths::from_locator(flavor.layout, locator)?;
    let mut problems = FileProblems::new();
    let found = match &paths.session_dir {
        Some(dir) => {
            let files = home.list(dir).map_err(|e| fs_error(dir, e))?;
            dir_session(flavor, home, locator, &files, &mut problems)
        }
        None => {
            let meta = home.stat(locator).map_err(|e| fs_error(locator, e))?;
            flat_session(flavor, home, locator, &meta, &mut problems)
        }
    };
    found.ok_or_else(|| {
        CodecError::Malformed(format!(
            "{locator}: not a Copilot CLI event log: {}",
            problems.first_detail().unwrap_or("")
        ))
    })
}

/// A session from its directory listing; `None` (with a diagnostic) when
/// the directory holds no usable event log.
fn dir_session(
    flavor: &Flavor,
    home: &Dir,
    locator: &str,
    files: &[DirEntry],
    problems: &mut FileProblems,
) -> Option<SessionRef> {
    let paths = SessionPaths::from_locator(flavor.layout, locator).ok()?;
    let Some(events) = files.iter().find(|e| e.is_file() && e.name == EVENTS) else {
        // A session whose first event is not written yet.
        let dir = paths.session_dir.as_deref().unwrap_or(locator);
        problems.add("no-event-log", Severity::Info, dir, "session directory without events.jsonl");
        return None;
    };
    let workspace_size: u64 = files.iter().filter(|e| e.is_file() && e.name == WORKSPACE).map(|e| e.meta.size).sum();
    session_ref(home, paths, &events.meta, workspace_size, problems)
}

/// A flat event log.
fn flat_session(
    flavor: &Flavor,
    home: &Dir,
    locator: &str,
    meta: &Metadata,
    problems: &mut FileProblems,
) -> Option<SessionRef> {
    let paths = SessionPaths::from_locator(flavor.layout, locator).ok()?;
    session_ref(home, paths, meta, 0, problems)
}

/// `extra`: the bytes of the session's `workspace.yaml`.
fn session_ref(
    home: &Dir,
    mut paths: SessionPaths,
    events: &Metadata,
    extra: u64,
    problems: &mut FileProblems,
) -> Option<SessionRef> {
    let locator = paths.locator.clone();
    let workspace = paths.workspace();
    let head =
        problems.scan_head(home, &locator, events.size, EVENTS, |file| Head::scan(home, file, workspace.as_deref()))?;
    if let Some(why) = head.not_a_session() {
        problems.malformed_head(&locator, why);
        return None;
    }
    if paths.identify(head.session_id()) {
        problems.add(SESSION_ID_MISMATCH, Severity::Warning, &locator, "sessionId");
    }
    Some(SessionRef {
        native_id: paths.native_id,
        locator,
        cwd: head.cwd(),
        started_at: head.started_at(),
        updated_at: events.modified_ms.map(rfc3339_utc),
        size: events.size + extra,
        native_version: head.version(),
        title: head.title(),
    })
}
