//! `discover`: the sessions under a home, from directory listings and the
//! head of each session file. Each file is stat'ed once (by the listing);
//! only its head is read.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems, SESSION_ID_MISMATCH};
use trajhost_codec_sdk::fs::{Dir, Metadata};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

pub use trajhost_codec_sdk::errors::{fs_error, fs_kind};

use crate::Flavor;
use crate::head::Head;
use crate::layout::{self, JSONL};

/// Every session file `<sessions>/<dir>/<ts>_<id>.jsonl` under `home`.
/// Subfolders of a session folder (Oh My Pi's artifacts and subagent
/// transcripts, `<ts>_<id>/`) are not sessions of their own and are passed
/// over; any other entry is named in a diagnostic.
pub fn discover(flavor: &Flavor, home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut problems = FileProblems::new();
    for dir in discovery::list(home, flavor.sessions_dir, &mut problems).unwrap_or_default() {
        let dir_path = layout::join(flavor.sessions_dir, &dir.name);
        if !dir.is_dir() {
            problems.unrecognized(&dir_path, "not a session folder (--<cwd>--)");
            continue;
        }
        let Some(entries) = discovery::list(home, &dir_path, &mut problems) else { continue };
        for entry in &entries {
            let locator = layout::join(&dir_path, &entry.name);
            if entry.is_dir() {
                let owner = format!("{}{JSONL}", entry.name);
                if !entries.iter().any(|e| e.is_file() && e.name == owner) {
                    problems.unrecognized(&locator, "a folder that belongs to no session file");
                }
            } else if !entry.is_file() || !entry.name.ends_with(JSONL) || entry.name.len() == JSONL.len() {
                problems.unrecognized(&locator, "not a session file (<ts>_<id>.jsonl)");
            } else if let Some(session) = session_ref(home, &locator, &entry.meta, &mut problems) {
                sessions.push(session);
            }
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The session-ref of one session file, as `discover` reports it.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    layout::check_locator(locator)?;
    let meta = home.stat(locator).map_err(|e| fs_error(locator, e))?;
    let mut problems = FileProblems::new();
    session_ref(home, locator, &meta, &mut problems).ok_or_else(|| {
        CodecError::Malformed(format!("{locator}: not a session file: {}", problems.first_detail().unwrap_or("")))
    })
}

fn session_ref(home: &Dir, locator: &str, meta: &Metadata, problems: &mut FileProblems) -> Option<SessionRef> {
    let head = problems.scan_head(home, locator, meta.size, "jsonl", Head::scan)?;
    if !head.has_header() {
        // Pi treats a file without a header as invalid.
        problems.malformed_head(locator, "no `session` header line at the head");
        return None;
    }
    // The header names the session; the file name only may.
    let file_id = locator.rsplit('/').next().and_then(layout::id_of_file_name);
    let Some(native_id) = head.id.clone().or_else(|| file_id.map(str::to_string)) else {
        problems.malformed_head(locator, "the `session` header has no id and the file name none either");
        return None;
    };
    // Only a name that carries an id (`<ts>_<uuid>.jsonl`) can disagree.
    if file_id.is_some_and(|id| layout::is_uuid(id) && id != native_id) {
        problems.add(SESSION_ID_MISMATCH, Severity::Warning, locator, "id");
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
