//! `discover`: the rollouts under a home, from directory listings of the
//! dated tree and the head of each rollout.
//!
//! Each file is stat'ed once, by the host's listing; only the head of a
//! rollout is read (see [`crate::head`]). Every entry of the dated tree is
//! a session, or a per-file diagnostic naming it: Codex keeps nothing else
//! there, so there are no auxiliary files to pass over.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::fs::{Dir, DirEntry, Metadata};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

pub use trajhost_codec_sdk::errors::{fs_error, fs_kind};

use crate::head::Head;
use crate::layout::{self, JSONL_ZST, SESSIONS_DIR};
use crate::time::rfc3339_utc;

/// Every rollout under `home/.codex/sessions/YYYY/MM/DD/`.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut problems = FileProblems::new();
    for year in dirs(home, SESSIONS_DIR, "a year directory (YYYY)", &mut problems) {
        let year_dir = layout::join(SESSIONS_DIR, &year.name);
        for month in dirs(home, &year_dir, "a month directory (MM)", &mut problems) {
            let month_dir = layout::join(&year_dir, &month.name);
            for day in dirs(home, &month_dir, "a day directory (DD)", &mut problems) {
                let day_dir = layout::join(&month_dir, &day.name);
                for file in discovery::list(home, &day_dir, &mut problems).unwrap_or_default() {
                    let locator = layout::join(&day_dir, &file.name);
                    if !file.is_file() {
                        problems.unrecognized(&locator, "not a rollout file (rollout-*.jsonl)");
                    } else if file.name.starts_with(layout::ROLLOUT_PREFIX) && file.name.ends_with(JSONL_ZST) {
                        // Newer builds compress old rollouts; no decoder here.
                        problems.add("compressed-rollout", Severity::Info, &locator, "jsonl.zst");
                    } else if !layout::is_rollout_name(&file.name) {
                        problems.unrecognized(&locator, "not a rollout file name (rollout-*.jsonl)");
                    } else if let Some(session) = session_ref(home, &locator, &file.meta, &mut problems) {
                        sessions.push(session);
                    }
                }
            }
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The subdirectories of one level of the dated tree; anything else there
/// is reported as unrecognized.
fn dirs(home: &Dir, path: &str, expected: &str, problems: &mut FileProblems) -> Vec<DirEntry> {
    let mut out = Vec::new();
    for entry in discovery::list(home, path, problems).unwrap_or_default() {
        if entry.is_dir() {
            out.push(entry);
        } else {
            problems.unrecognized(&layout::join(path, &entry.name), expected);
        }
    }
    out
}

/// The session-ref of one rollout, as `discover` reports it (one stat, one
/// head read). Any relative `.jsonl` path is accepted: a loose copy the
/// host recognized by its content is read like a rollout of the tree.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    layout::readable_locator(locator)?;
    let meta = home.stat(locator).map_err(|e| fs_error(locator, e))?;
    let mut problems = FileProblems::new();
    session_ref(home, locator, &meta, &mut problems).ok_or_else(|| {
        let why = problems.drain().into_iter().next().map(|d| d.detail).unwrap_or_default();
        CodecError::Malformed(format!("{locator}: not a Codex rollout: {why}"))
    })
}

fn session_ref(home: &Dir, locator: &str, meta: &Metadata, problems: &mut FileProblems) -> Option<SessionRef> {
    let name_id = layout::readable_locator(locator).ok()?;
    if meta.size == 0 {
        problems.empty(locator, "jsonl");
        return None;
    }
    let head = match home.open(locator).and_then(|file| Head::scan(&file)) {
        Ok(head) => head,
        Err(e) => {
            problems.unreadable(locator, &e);
            return None;
        }
    };
    if let Some(why) = head.not_a_rollout() {
        // Codex itself refuses a rollout that does not start with session_meta.
        problems.malformed_head(locator, why);
        return None;
    }
    // The content names the session; the file name only may.
    let id = head.id.clone()?;
    if name_id.is_some_and(|n| n != id) {
        problems.add("session-id-mismatch", Severity::Warning, locator, "session_meta.id");
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
