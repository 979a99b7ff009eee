//! `discover`: the sessions under a home, from directory listings and the
//! head of each transcript.
//!
//! Each file is stat'ed once, by the host's listing; only the first 64 KiB
//! (and for larger files the last 64 KiB) of a transcript are read.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems, SESSION_ID_MISMATCH};
use trajhost_codec_sdk::fs::{Dir, Metadata};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

pub use trajhost_codec_sdk::errors::{fs_error, fs_kind};

use crate::head::Head;
use crate::layout::{self, CHATS, JSONL, ROOTS, RUNTIME_JSON, SessionPaths};
use crate::time::rfc3339_utc;

/// Every transcript under `home`: the `chats/` directory of each project
/// holds transcripts and their `<sessionId>.runtime.json` (known, no
/// session), so anything else there is named in a diagnostic. Project directories hold more (`meta.json`, `memory/`,
/// spilled tool outputs in `.qwen/tmp`), none of it a session: only
/// `chats/` is looked into.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut problems = FileProblems::new();
    for root in ROOTS {
        let Some(projects) = discovery::list(home, root, &mut problems) else { continue };
        // `.qwen/tmp` is scratch space: files at its top are not reported.
        for project in projects.iter().filter(|e| e.is_dir()) {
            let chats = layout::join(&layout::join(root, &project.name), CHATS);
            let Some(entries) = discovery::list(home, &chats, &mut problems) else { continue };
            for entry in &entries {
                let locator = layout::join(&chats, &entry.name);
                if entry.is_file() && entry.name.ends_with(RUNTIME_JSON) {
                    continue;
                }
                if !entry.is_file() || !entry.name.ends_with(JSONL) || entry.name.len() == JSONL.len() {
                    problems.unrecognized(&locator, "not a transcript (<sessionId>.jsonl)");
                } else if let Some(session) = session_ref(home, &locator, &entry.meta, &mut problems) {
                    sessions.push(session);
                }
            }
        }
        if root == ROOTS[0] {
            for file in projects.iter().filter(|e| !e.is_dir()) {
                problems.unrecognized(&layout::join(root, &file.name), "not a project directory");
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
    session_ref(home, locator, &meta, &mut problems).ok_or_else(|| {
        CodecError::Malformed(format!("{locator}: not a Qwen Code session: {}", problems.first_detail().unwrap_or("")))
    })
}

fn session_ref(home: &Dir, locator: &str, meta: &Metadata, problems: &mut FileProblems) -> Option<SessionRef> {
    let mut paths = SessionPaths::from_locator(locator).ok()?;
    let head = problems.scan_head(home, locator, meta.size, "jsonl", Head::scan)?;
    if head.session_id.is_none() {
        problems.malformed_head(locator, "no record with a sessionId at the head");
        return None;
    }
    if paths.identify(head.session_id.as_deref()) {
        problems.add(SESSION_ID_MISMATCH, Severity::Warning, locator, "sessionId");
    }
    Some(SessionRef {
        native_id: paths.native_id,
        locator: locator.to_string(),
        cwd: head.cwd.clone(),
        started_at: head.started_at.clone(),
        updated_at: meta.modified_ms.map(rfc3339_utc),
        size: meta.size,
        native_version: head.version.clone(),
        title: head.title(),
    })
}
