//! `discover` and `inspect`: the transcripts under a home, from directory
//! listings, each folder's `sessions.json` and the head of each file. Each
//! file is stat'ed once (by the listing); only its head is read.

use std::collections::BTreeSet;

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems, SESSION_ID_MISMATCH};
use trajhost_codec_sdk::fs::{Dir, DirEntry, Metadata};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

pub use trajhost_codec_sdk::errors::{fs_error, fs_kind};

use crate::head::Head;
use crate::index::{Index, Problem};
use crate::layout::{self, FileKind};

/// Every transcript under `home`: `<state>/agents/<agent>/sessions/` and the
/// flat `<state>/sessions/` of each state directory. Other folders of an
/// agent (`agent/`, which holds the SQLite store another codec reads) are
/// not this layout and are not looked at.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let mut sessions = Vec::new();
    for state in layout::STATE_DIRS {
        let agents_dir = format!("{state}/agents");
        let mut folders = Vec::new();
        for agent in discovery::list(home, &agents_dir, &mut problems).unwrap_or_default() {
            if agent.is_dir() {
                folders.push(format!("{agents_dir}/{}/sessions", agent.name));
            }
        }
        folders.push(layout::flat_sessions_dir(state));
        for folder in folders {
            if let Some(entries) = discovery::list(home, &folder, &mut problems) {
                list_folder(home, &folder, &entries, &mut problems, &mut sessions);
            }
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The session-ref of one transcript, as `discover` reports it.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    layout::check_locator(locator)?;
    let meta = home.stat(locator).map_err(|e| fs_error(locator, e))?;
    let mut problems = FileProblems::new();
    let folder = locator.rsplit_once('/').map_or("", |(dir, _)| dir);
    let index = load_index(home, folder, &mut problems);
    session_ref(home, locator, &meta, &index, &mut problems).ok_or_else(|| {
        CodecError::Malformed(format!("{locator}: not a transcript: {}", problems.first_detail().unwrap_or("")))
    })
}

fn load_index(home: &Dir, folder: &str, problems: &mut FileProblems) -> Index {
    let path = layout::join(folder, layout::INDEX);
    match Index::load(home, &path) {
        Ok(index) => index,
        Err(Problem::Unreadable(e)) => {
            problems.unreadable(&path, &e);
            Index::default()
        }
        Err(Problem::Malformed(what)) => {
            problems.add("malformed-index", Severity::Warning, &path, what);
            Index::default()
        }
    }
}

/// The transcripts of one sessions folder: live ones first, then archives
/// (an archive whose session a live transcript continues is not listed
/// twice).
fn list_folder(
    home: &Dir,
    folder: &str,
    entries: &[DirEntry],
    problems: &mut FileProblems,
    sessions: &mut Vec<SessionRef>,
) {
    let index = load_index(home, folder, problems);
    let mut seen = BTreeSet::new();
    for pass in [FileKind::Transcript, FileKind::Archive] {
        for entry in entries {
            let path = layout::join(folder, &entry.name);
            let kind = layout::kind_of(&entry.name);
            if entry.is_dir() {
                if pass == FileKind::Transcript {
                    problems.unrecognized(&path, "a folder inside a sessions folder");
                }
                continue;
            }
            match kind {
                // The index is read above; locks, backups and temp files
                // hold no conversation. A checkpoint is the transcript
                // before a compaction: the live transcript continues it
                // (OpenClaw lists it as metadata of that session).
                FileKind::Index | FileKind::Auxiliary | FileKind::Checkpoint => continue,
                FileKind::Other => {
                    if pass == FileKind::Transcript {
                        problems.unrecognized(&path, "not a transcript (<sessionId>.jsonl) or sessions.json");
                    }
                    continue;
                }
                FileKind::Transcript | FileKind::Archive if kind != pass => continue,
                FileKind::Transcript | FileKind::Archive => {}
            }
            if !entry.is_file() {
                problems.unrecognized(&path, "not a regular file");
                continue;
            }
            let Some(session) = session_ref(home, &path, &entry.meta, &index, problems) else { continue };
            if !seen.insert(session.native_id.clone()) {
                problems.add("duplicate-session", Severity::Info, &path, "an archive of a listed session");
                continue;
            }
            sessions.push(session);
        }
    }
}

fn session_ref(
    home: &Dir,
    locator: &str,
    meta: &Metadata,
    index: &Index,
    problems: &mut FileProblems,
) -> Option<SessionRef> {
    let head = problems.scan_head(home, locator, meta.size, "jsonl", Head::scan)?;
    if head.shape.is_none() {
        problems.malformed_head(locator, "no OpenClaw entry or message at the head");
        return None;
    }
    let name = locator.rsplit('/').next().unwrap_or(locator);
    let (native_id, mismatch) = native_id(&head, name, index);
    if mismatch {
        problems.add(SESSION_ID_MISMATCH, Severity::Warning, locator, "id");
    }
    let entry = index.get(&native_id);
    Some(SessionRef {
        native_id,
        locator: locator.to_string(),
        cwd: head.cwd.clone(),
        started_at: head.started_at.clone(),
        updated_at: entry
            .and_then(|e| e.updated_ms)
            .or(meta.modified_ms)
            .filter(|ms| *ms >= 0)
            .map(trajhost_codec_sdk::time::rfc3339_ms),
        size: meta.size,
        // OpenClaw wrote no version of its own into transcripts (the
        // header's `version` is Pi's format version): the layout decides.
        native_version: None,
        title: entry.and_then(|e| e.title.clone()).or_else(|| head.prompt_title()),
    })
}

/// The session id: the header's, else the index's for this file, else the
/// file name's. A uuid-shaped name that differs from the header is worth a
/// warning (a renamed copy keeps its content's id).
pub fn native_id(head: &Head, name: &str, index: &Index) -> (String, bool) {
    let from_name = layout::id_of_file_name(name).unwrap_or(name);
    match &head.id {
        Some(id) => (id.clone(), layout::is_uuid(from_name) && from_name != id),
        None => (index.id_of_file(name).unwrap_or(from_name).to_string(), false),
    }
}
