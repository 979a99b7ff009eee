//! `discover`: the sessions under a home, from directory listings and the
//! head of each session file.
//!
//! Each file is stat'ed once, by the host's listing; only the first 64 KiB
//! of a session file are read (more only while its first lines are longer).
//! `<id>.settings.json` files are no sessions; their size counts toward
//! their session's.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::fs::{Dir, Metadata};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef};

pub use trajhost_codec_sdk::errors::{fs_error, fs_kind};

use crate::head::Head;
use crate::layout::{self, JSONL, SESSIONS, SETTINGS, SETTINGS_BAK, SessionPaths};
use crate::time::rfc3339_utc;

/// Every transcript under `home`. A project directory holds transcripts
/// and, beside each, its settings file and that file's backup (known, not
/// sessions); anything else there is named in a diagnostic.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut problems = FileProblems::new();
    for project in discovery::list(home, SESSIONS, &mut problems).unwrap_or_default() {
        let dir = layout::join(SESSIONS, &project.name);
        if !project.is_dir() {
            problems.unrecognized(&dir, "not a project directory");
            continue;
        }
        let Some(entries) = discovery::list(home, &dir, &mut problems) else { continue };
        for entry in &entries {
            let locator = layout::join(&dir, &entry.name);
            if entry.name.ends_with(SETTINGS) || entry.name.ends_with(SETTINGS_BAK) {
                continue;
            }
            if !entry.is_file() || !entry.name.ends_with(JSONL) || entry.name.len() == JSONL.len() {
                problems.unrecognized(&locator, "not a transcript (<sessionId>.jsonl) or its settings");
                continue;
            }
            let stem = entry.name.strip_suffix(JSONL).unwrap_or(&entry.name);
            let settings = format!("{stem}{SETTINGS}");
            let extra = entries.iter().filter(|e| e.is_file() && e.name == settings).map(|e| e.meta.size).sum();
            if let Some(session) = session_ref(home, &locator, &entry.meta, extra, &mut problems) {
                sessions.push(session);
            }
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The session-ref of one transcript, as `discover` reports it.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    SessionPaths::from_locator(locator)?;
    let meta = home.stat(locator).map_err(|e| fs_error(locator, e))?;
    let settings = format!("{}{SETTINGS}", locator.strip_suffix(JSONL).unwrap_or(locator));
    let extra = home.stat(&settings).map(|m| m.size).unwrap_or(0);
    let mut problems = FileProblems::new();
    session_ref(home, locator, &meta, extra, &mut problems).ok_or_else(|| {
        let why = problems.drain().into_iter().next().map(|d| d.detail).unwrap_or_default();
        CodecError::Malformed(format!("{locator}: not a Factory Droid session: {why}"))
    })
}

/// `extra`: the bytes of the session's settings file.
fn session_ref(
    home: &Dir,
    locator: &str,
    meta: &Metadata,
    extra: u64,
    problems: &mut FileProblems,
) -> Option<SessionRef> {
    let mut paths = SessionPaths::from_locator(locator).ok()?;
    let head = problems.scan_head(home, locator, meta.size, "jsonl", Head::scan)?;
    if let Some(why) = head.not_a_session() {
        problems.malformed_head(locator, why);
        return None;
    }
    if head.session_id.is_none() || paths.identify(head.session_id.as_deref()) {
        problems.add(discovery::SESSION_ID_MISMATCH, trajhost_codec_sdk::Severity::Warning, locator, "sessionId");
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
