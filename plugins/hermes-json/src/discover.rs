//! `discover` and `inspect`: the session files of the default profile
//! (`~/.hermes/sessions/`) and of each named profile
//! (`~/.hermes/profiles/<name>/sessions/`), from listings and each file's
//! head. The state.db beside them is another layout (the `hermes` codec).

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems, SESSION_ID_MISMATCH};
use trajhost_codec_sdk::fs::{Dir, Metadata};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

pub use trajhost_codec_sdk::errors::{fs_error, fs_kind};

use crate::head::Head;
use crate::layout::{self, FileKind};

pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let mut sessions = Vec::new();
    let mut folders = vec![layout::SESSIONS_DIR.to_string()];
    for profile in discovery::list(home, layout::PROFILES_DIR, &mut problems).unwrap_or_default() {
        if profile.is_dir() {
            folders.push(format!("{}/{}/sessions", layout::PROFILES_DIR, profile.name));
        }
    }
    for folder in folders {
        let Some(entries) = discovery::list(home, &folder, &mut problems) else { continue };
        for entry in &entries {
            let path = layout::join(&folder, &entry.name);
            match layout::kind_of(&entry.name) {
                // The gateway's routing index, temp files of an atomic
                // write, request dumps: no session of their own.
                FileKind::Auxiliary => continue,
                FileKind::Other => {
                    problems.unrecognized(&path, "not a session file (session_<id>.json or <id>.jsonl)");
                    continue;
                }
                FileKind::Log | FileKind::Transcript => {}
            }
            if !entry.is_file() {
                problems.unrecognized(&path, "not a regular file");
                continue;
            }
            if let Some(session) = session_ref(home, &path, &entry.meta, &mut problems) {
                sessions.push(session);
            }
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    layout::check_locator(locator)?;
    let meta = home.stat(locator).map_err(|e| fs_error(locator, e))?;
    let mut problems = FileProblems::new();
    session_ref(home, locator, &meta, &mut problems).ok_or_else(|| {
        CodecError::Malformed(format!(
            "{locator}: not a Hermes session file: {}",
            problems.first_detail().unwrap_or("")
        ))
    })
}

/// The head of the session file at `locator`, by its kind.
pub fn head_of(file: &trajhost_codec_sdk::fs::File, kind: FileKind) -> Result<Head, trajhost_codec_sdk::fs::FsError> {
    match kind {
        FileKind::Transcript => Head::of_transcript(file),
        _ => Head::of_log(file),
    }
}

fn session_ref(home: &Dir, locator: &str, meta: &Metadata, problems: &mut FileProblems) -> Option<SessionRef> {
    let name = locator.rsplit('/').next().unwrap_or(locator);
    let kind = layout::kind_of(name);
    let head = problems.scan_head(home, locator, meta.size, "json", |file| head_of(file, kind))?;
    if !head.recognized {
        problems.malformed_head(locator, "no session_id or messages at the head");
        return None;
    }
    let (native_id, mismatch) = native_id(&head, name);
    if mismatch {
        problems.add(SESSION_ID_MISMATCH, Severity::Warning, locator, "session_id");
    }
    Some(SessionRef {
        native_id,
        locator: locator.to_string(),
        cwd: head.cwd.clone(),
        started_at: head.started_at.clone(),
        updated_at: head
            .updated_at
            .clone()
            .or_else(|| meta.modified_ms.filter(|ms| *ms >= 0).map(trajhost_codec_sdk::time::rfc3339_ms)),
        size: meta.size,
        // Session files record no Hermes version.
        native_version: None,
        title: head.title(),
    })
}

/// The session id: the content's `session_id`, else the file name's. A
/// name that disagrees with its content is worth a warning.
pub fn native_id(head: &Head, name: &str) -> (String, bool) {
    let from_name = layout::id_of_file_name(name).unwrap_or(name);
    match &head.id {
        Some(id) => (id.clone(), id != from_name),
        None => (from_name.to_string(), false),
    }
}
