//! `discover` and `inspect`: sessions from directory listings (one stat per
//! entry, by the host's listing), the head of each `wire.jsonl`, its
//! `state.json`, and `kimi.json` once per home.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::errors::fs_error;
use trajhost_codec_sdk::fs::{Dir, DirEntry};
use trajhost_codec_sdk::paths::join;
use trajhost_codec_sdk::text::title_of;
use trajhost_codec_sdk::time::{rfc3339_ms, rfc3339_secs};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::layout::{self, CONTEXT, SESSIONS, STATE, SessionPaths, WIRE, plain_name};
use crate::store;
use crate::wire::WireHead;

/// Characters of the first prompt used as a title.
pub const TITLE_CHARS: usize = 80;

/// Every session under `.kimi/sessions/<work dir folder>/<uuid>/`. The two
/// levels above a session hold nothing else, so any file there is named in
/// a diagnostic; a session folder's own files (context rotations, the wire
/// log, `state.json`, `subagents/`) are the session's.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let mut sessions = Vec::new();
    let Some(folders) = discovery::list(home, SESSIONS, &mut problems) else {
        return Ok(problems.finish(sessions, Diagnostics::new()));
    };
    let mut store_diags = Diagnostics::new();
    let work_dirs = store::work_dirs(home, &mut store_diags);
    problems.absorb(&mut store_diags, layout::METADATA);
    for folder in &folders {
        let folder_path = join(SESSIONS, &folder.name);
        if !folder.is_dir() || !plain_name(&folder.name) {
            problems.unrecognized(&folder_path, "not a work directory folder");
            continue;
        }
        let Some(entries) = discovery::list(home, &folder_path, &mut problems) else { continue };
        let cwd = store::cwd_of(&work_dirs, &folder.name);
        for entry in &entries {
            let session_dir = join(&folder_path, &entry.name);
            if !entry.is_dir() || !plain_name(&entry.name) {
                problems.unrecognized(&session_dir, "not a session folder");
                continue;
            }
            let Some(files) = discovery::list(home, &session_dir, &mut problems) else { continue };
            if !files.iter().any(|f| f.is_file() && f.name == CONTEXT) {
                problems.add("no-context-file", Severity::Info, &session_dir, "session folder without context.jsonl");
                continue;
            }
            if let Some(session) = session_ref(home, &session_dir, &entry.name, &files, cwd.clone(), &mut problems) {
                sessions.push(session);
            }
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let files = home.list(&paths.session_dir).map_err(|e| fs_error(&paths.session_dir, e))?;
    if !files.iter().any(|f| f.is_file() && f.name == CONTEXT) {
        return Err(CodecError::NotFound(locator.to_string()));
    }
    let mut problems = FileProblems::new();
    let work_dirs = store::work_dirs(home, &mut Diagnostics::new());
    let cwd = store::cwd_of(&work_dirs, &paths.work_dir_folder);
    session_ref(home, &paths.session_dir, &paths.native_id, &files, cwd, &mut problems)
        .ok_or_else(|| CodecError::Malformed(format!("{locator}: an empty Kimi CLI session")))
}

fn session_ref(
    home: &Dir,
    session_dir: &str,
    native_id: &str,
    files: &[DirEntry],
    cwd: Option<String>,
    problems: &mut FileProblems,
) -> Option<SessionRef> {
    let file = |name: &str| files.iter().find(|f| f.is_file() && f.name == name);
    let context = file(CONTEXT)?;
    let wire = file(WIRE);
    let wire_path = join(session_dir, WIRE);
    let head = match wire {
        Some(_) => match WireHead::scan(home, &wire_path) {
            Ok(head) => head,
            Err(e) => {
                problems.unreadable(&wire_path, &e);
                WireHead::default()
            }
        },
        None => WireHead::default(),
    };
    let has_rotations = files.iter().any(|f| f.is_file() && layout::rotation_index(&f.name).is_some());
    if context.meta.size == 0 && !head.has_records && !has_rotations {
        // Kimi CLI creates the files before the first prompt.
        problems.add("empty-session", Severity::Info, session_dir, CONTEXT);
        return None;
    }
    let mut size: u64 = files.iter().filter(|f| f.is_file()).map(|f| f.meta.size).sum();
    if files.iter().any(|f| f.is_dir() && f.name == layout::SUBAGENTS) {
        size += subagent_bytes(home, &join(session_dir, layout::SUBAGENTS));
    }
    let updated_ms = [Some(context), wire].into_iter().flatten().filter_map(|f| f.meta.modified_ms).max();
    let state = join(session_dir, STATE);
    let mut state_diags = Diagnostics::new();
    let custom_title = store::custom_title(home, &state, &mut state_diags);
    problems.absorb(&mut state_diags, &state);
    let title = custom_title.or_else(|| head.first_input.as_deref().and_then(|t| title_of(t, TITLE_CHARS)));
    Some(SessionRef {
        native_id: native_id.to_string(),
        locator: join(session_dir, CONTEXT),
        cwd,
        started_at: head.first_ts.and_then(rfc3339_secs),
        updated_at: updated_ms.map(rfc3339_ms),
        size,
        native_version: head.protocol_version,
        title,
    })
}

/// Bytes of the files of every `subagents/<id>/` folder.
fn subagent_bytes(home: &Dir, dir: &str) -> u64 {
    let Ok(agents) = home.list(dir) else { return 0 };
    agents
        .iter()
        .filter(|a| a.is_dir() && plain_name(&a.name))
        .filter_map(|a| home.list(&join(dir, &a.name)).ok())
        .map(|files| files.iter().filter(|f| f.is_file()).map(|f| f.meta.size).sum::<u64>())
        .sum()
}
