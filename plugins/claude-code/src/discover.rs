//! `discover`: the sessions under a home, from directory listings and the
//! head of each transcript.
//!
//! Each file is stat'ed once, by the host's listing; only the first 64 KiB
//! (and for larger files the last 64 KiB) of a transcript are read.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::fs::{Dir, Metadata};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

pub use trajhost_codec_sdk::errors::{fs_error, fs_kind};

use crate::head::Head;
use crate::layout::{self, JSONL, PROJECT_ROOTS, SessionPaths};
use crate::time::rfc3339_utc;

/// `sessions-index.json`: Claude Code's own (often stale) list of the
/// project's sessions; the transcripts are the truth, so it is not read.
const SESSIONS_INDEX: &str = "sessions-index.json";
/// `memory/`: the project's auto-memory notes, no transcript.
const MEMORY_DIR: &str = "memory";

/// Every main transcript under `home`. Each entry of a project directory is
/// a transcript, something that belongs to one (its `<sessionId>/`
/// directory, a legacy `agent-*.jsonl`), a known auxiliary file
/// ([`SESSIONS_INDEX`], [`MEMORY_DIR`]) or a diagnostic naming it.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut problems = FileProblems::new();
    for root in PROJECT_ROOTS {
        let Some(projects) = discovery::list(home, root, &mut problems) else {
            continue;
        };
        for project in &projects {
            let project_dir = layout::join(root, &project.name);
            if !project.is_dir() {
                problems.unrecognized(&project_dir, "not a project directory");
                continue;
            }
            let Some(entries) = discovery::list(home, &project_dir, &mut problems) else {
                continue;
            };
            for entry in &entries {
                let locator = layout::join(&project_dir, &entry.name);
                if entry.is_dir() {
                    let owner = format!("{}{JSONL}", entry.name);
                    let owned = entries.iter().any(|e| e.is_file() && e.name == owner);
                    if !owned && entry.name != MEMORY_DIR {
                        problems.unrecognized(&locator, "a directory that belongs to no transcript");
                    }
                    continue;
                }
                if layout::agent_id(&entry.name).is_some() || entry.name == SESSIONS_INDEX {
                    continue;
                }
                if !entry.is_file() || !is_main_transcript(&entry.name) {
                    problems.unrecognized(&locator, "not a transcript (<sessionId>.jsonl)");
                    continue;
                }
                let stem = entry.name.strip_suffix(JSONL).unwrap_or(&entry.name);
                let has_sibling_dir = entries.iter().any(|e| e.is_dir() && e.name == stem);
                if let Some(session) = session_ref(home, &locator, &entry.meta, has_sibling_dir, &mut problems) {
                    sessions.push(session);
                }
            }
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The session-ref of one transcript, as `discover` reports it.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    SessionPaths::from_locator(locator)?;
    let meta = home.stat(locator).map_err(|e| fs_error(locator, e))?;
    let mut problems = FileProblems::new();
    session_ref(home, locator, &meta, true, &mut problems).ok_or_else(|| {
        let why = problems.drain().into_iter().next().map(|d| d.detail).unwrap_or_default();
        CodecError::Malformed(format!("{locator}: not a Claude Code session: {why}"))
    })
}

/// Main transcripts are `<sessionId>.jsonl`; `agent-*.jsonl` files next to
/// them are subagent transcripts of older builds and belong to a session.
fn is_main_transcript(name: &str) -> bool {
    name.ends_with(JSONL) && name.len() > JSONL.len() && layout::agent_id(name).is_none()
}

fn session_ref(
    home: &Dir,
    locator: &str,
    meta: &Metadata,
    has_sibling_dir: bool,
    problems: &mut FileProblems,
) -> Option<SessionRef> {
    let mut paths = SessionPaths::from_locator(locator).ok()?;
    if meta.size == 0 {
        // Claude Code creates the file with its first line; an empty one is
        // left over from a crash or a copy.
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
    if !head.has_records {
        problems.malformed_head(locator, "no line of the head is a Claude Code record (JSON with a type)");
        return None;
    }
    if head.session_id.is_none() && !head.has_conversation {
        // Legacy summary-only files: Claude Code's own records, no session.
        problems.add("no-session-records", Severity::Info, locator, "jsonl");
        return None;
    }
    if paths.identify(head.session_id.as_deref()) {
        problems.add("session-id-mismatch", Severity::Warning, locator, "sessionId");
    }
    let mut size = meta.size;
    if has_sibling_dir {
        size += subagent_bytes(home, &paths);
    }
    Some(SessionRef {
        native_id: paths.native_id,
        locator: locator.to_string(),
        cwd: head.cwd.clone(),
        started_at: head.started_at.clone(),
        updated_at: meta.modified_ms.map(rfc3339_utc),
        size,
        native_version: head.version.clone(),
        title: head.title(),
    })
}

/// Bytes of the session's subagent transcripts (one listing).
fn subagent_bytes(home: &Dir, paths: &SessionPaths) -> u64 {
    home.list(&paths.subagents_dir())
        .map(|entries| {
            entries.iter().filter(|e| e.is_file() && layout::agent_id(&e.name).is_some()).map(|e| e.meta.size).sum()
        })
        .unwrap_or(0)
}
