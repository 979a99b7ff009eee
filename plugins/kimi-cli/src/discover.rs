//! `discover` and `inspect`: sessions from directory listings (one stat per
//! entry, by the host's listing), the head of each `wire.jsonl`, its
//! `state.json`, and `kimi.json` once per home.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, DirEntry, FsError};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::layout::{self, CONTEXT, SESSIONS, STATE, SessionPaths, WIRE, plain_name};
use crate::store;
use crate::util::{fs_error, fs_kind, join, rfc3339_ms, rfc3339_secs, title_of};
use crate::wire::WireHead;

/// Characters of the first prompt used as a title.
pub const TITLE_CHARS: usize = 80;

pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut diags = Diagnostics::new();
    let mut sessions = Vec::new();
    let Some(folders) = list(home, SESSIONS, &mut diags) else {
        return Ok(Discovery { sessions, diagnostics: diags.drain() });
    };
    let work_dirs = store::work_dirs(home, &mut diags);
    for folder in folders.iter().filter(|e| e.is_dir() && plain_name(&e.name)) {
        let folder_path = join(SESSIONS, &folder.name);
        let Some(entries) = list(home, &folder_path, &mut diags) else { continue };
        let cwd = store::cwd_of(&work_dirs, &folder.name);
        for entry in entries.iter().filter(|e| e.is_dir() && plain_name(&e.name)) {
            let session_dir = join(&folder_path, &entry.name);
            let Some(files) = list(home, &session_dir, &mut diags) else { continue };
            if !files.iter().any(|f| f.is_file() && f.name == CONTEXT) {
                diags.add("no-context-file", Severity::Info, CONTEXT, Some(&session_dir), None);
                continue;
            }
            if let Some(session) = session_ref(home, &session_dir, &entry.name, &files, cwd.clone(), &mut diags) {
                sessions.push(session);
            }
        }
    }
    Ok(Discovery { sessions, diagnostics: diags.drain() })
}

pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let files = home.list(&paths.session_dir).map_err(|e| fs_error(&paths.session_dir, e))?;
    if !files.iter().any(|f| f.is_file() && f.name == CONTEXT) {
        return Err(CodecError::NotFound(locator.to_string()));
    }
    let mut diags = Diagnostics::new();
    let work_dirs = store::work_dirs(home, &mut diags);
    let cwd = store::cwd_of(&work_dirs, &paths.work_dir_folder);
    session_ref(home, &paths.session_dir, &paths.native_id, &files, cwd, &mut diags)
        .ok_or_else(|| CodecError::Malformed(format!("{locator}: an empty Kimi CLI session")))
}

fn session_ref(
    home: &Dir,
    session_dir: &str,
    native_id: &str,
    files: &[DirEntry],
    cwd: Option<String>,
    diags: &mut Diagnostics,
) -> Option<SessionRef> {
    let file = |name: &str| files.iter().find(|f| f.is_file() && f.name == name);
    let context = file(CONTEXT)?;
    let wire = file(WIRE);
    let wire_path = join(session_dir, WIRE);
    let head = match wire {
        Some(_) => match WireHead::scan(home, &wire_path) {
            Ok(head) => head,
            Err(e) => {
                diags.add("unreadable-file", Severity::Warning, fs_kind(&e), Some(&wire_path), None);
                WireHead::default()
            }
        },
        None => WireHead::default(),
    };
    let has_rotations = files.iter().any(|f| f.is_file() && layout::rotation_index(&f.name).is_some());
    if context.meta.size == 0 && !head.has_records && !has_rotations {
        // Kimi CLI creates the files before the first prompt.
        diags.add("empty-session", Severity::Info, CONTEXT, Some(session_dir), None);
        return None;
    }
    let mut size: u64 = files.iter().filter(|f| f.is_file()).map(|f| f.meta.size).sum();
    if files.iter().any(|f| f.is_dir() && f.name == layout::SUBAGENTS) {
        size += subagent_bytes(home, &join(session_dir, layout::SUBAGENTS));
    }
    let updated_ms = [Some(context), wire].into_iter().flatten().filter_map(|f| f.meta.modified_ms).max();
    let title = store::custom_title(home, &join(session_dir, STATE), diags)
        .or_else(|| head.first_input.as_deref().and_then(|t| title_of(t, TITLE_CHARS)));
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

pub fn list(home: &Dir, path: &str, diags: &mut Diagnostics) -> Option<Vec<DirEntry>> {
    match home.list(path) {
        Ok(entries) => Some(entries),
        Err(FsError::NotFound(_)) => None,
        Err(e) => {
            diags.add("unreadable-directory", Severity::Warning, fs_kind(&e), Some(path), None);
            None
        }
    }
}
