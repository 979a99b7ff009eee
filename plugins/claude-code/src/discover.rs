//! `discover`: the sessions under a home, from directory listings and the
//! head of each transcript.
//!
//! Each file is stat'ed once, by the host's listing; only the first 64 KiB
//! (and for larger files the last 64 KiB) of a transcript are read.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, DirEntry, FsError, Metadata};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::head::Head;
use crate::layout::{self, JSONL, PROJECT_ROOTS, SessionPaths};
use crate::time::rfc3339_utc;

/// Every main transcript under `home`.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut diags = Diagnostics::new();
    for root in PROJECT_ROOTS {
        let Some(projects) = list(home, root, &mut diags) else {
            continue;
        };
        for project in projects.iter().filter(|e| e.is_dir()) {
            let project_dir = layout::join(root, &project.name);
            let Some(entries) = list(home, &project_dir, &mut diags) else {
                continue;
            };
            for entry in &entries {
                if !entry.is_file() || !is_main_transcript(&entry.name) {
                    continue;
                }
                let locator = layout::join(&project_dir, &entry.name);
                let stem = entry.name.strip_suffix(JSONL).unwrap_or(&entry.name);
                let has_sibling_dir = entries.iter().any(|e| e.is_dir() && e.name == stem);
                if let Some(session) =
                    session_ref(home, &locator, &entry.meta, has_sibling_dir, &mut diags)
                {
                    sessions.push(session);
                }
            }
        }
    }
    Ok(Discovery {
        sessions,
        diagnostics: diags.drain(),
    })
}

/// The session-ref of one transcript, as `discover` reports it.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let meta = home.stat(locator).map_err(|e| fs_error(locator, e))?;
    let mut diags = Diagnostics::new();
    session_ref(home, locator, &meta, true, &mut diags).ok_or_else(|| {
        CodecError::Malformed(format!(
            "{}: no Claude Code session records in the head of the file",
            paths.locator
        ))
    })
}

/// Main transcripts are `<sessionId>.jsonl`; `agent-*.jsonl` files next to
/// them are subagent transcripts of older builds and belong to a session.
fn is_main_transcript(name: &str) -> bool {
    name.ends_with(JSONL) && name.len() > JSONL.len() && layout::agent_id(name).is_none()
}

fn list(home: &Dir, path: &str, diags: &mut Diagnostics) -> Option<Vec<DirEntry>> {
    match home.list(path) {
        Ok(entries) => Some(entries),
        Err(FsError::NotFound(_)) => None,
        Err(e) => {
            diags.add(
                "unreadable-directory",
                Severity::Warning,
                fs_kind(&e),
                Some(path),
                None,
            );
            None
        }
    }
}

fn session_ref(
    home: &Dir,
    locator: &str,
    meta: &Metadata,
    has_sibling_dir: bool,
    diags: &mut Diagnostics,
) -> Option<SessionRef> {
    let mut paths = SessionPaths::from_locator(locator).ok()?;
    if meta.size == 0 {
        // Claude Code creates the file with its first line; an empty one is
        // left over from a crash or a copy.
        diags.add(
            "empty-session-file",
            Severity::Info,
            "jsonl",
            Some(locator),
            None,
        );
        return None;
    }
    let head = match home.open(locator).and_then(|file| Head::scan(&file)) {
        Ok(head) => head,
        Err(e) => {
            diags.add(
                "unreadable-file",
                Severity::Warning,
                fs_kind(&e),
                Some(locator),
                None,
            );
            return None;
        }
    };
    if head.session_id.is_none() && !head.has_conversation {
        // Legacy summary-only files and other JSONL that is not a transcript.
        diags.add(
            "no-session-records",
            Severity::Info,
            "jsonl",
            Some(locator),
            None,
        );
        return None;
    }
    // A renamed copy (not `<uuid>.jsonl`) is identified by its content.
    if let Some(id) = head.session_id.as_deref().filter(|_| !crate::sniff::is_session_id(&paths.native_id)) {
        paths.native_id = id.to_string();
    }
    if head
        .session_id
        .as_deref()
        .is_some_and(|id| id != paths.native_id)
    {
        diags.add(
            "session-id-mismatch",
            Severity::Warning,
            "sessionId",
            Some(locator),
            None,
        );
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
            entries
                .iter()
                .filter(|e| e.is_file() && layout::agent_id(&e.name).is_some())
                .map(|e| e.meta.size)
                .sum()
        })
        .unwrap_or(0)
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
