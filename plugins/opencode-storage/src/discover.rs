//! `discover`: the session files of the tree.
//!
//! Looked into: `session/` (a directory per project, a file per session) and
//! `message/` (a directory per session: one without a session file is
//! reported). The other folders of the tree (`part/`, `project/`, `todo/`,
//! `permission/`, `session_share/`, `session_diff/`, `snapshot/`) and the
//! `migration` marker hold nothing to list.

use std::collections::BTreeSet;

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems, SESSION_ID_MISMATCH};
use trajhost_codec_sdk::errors::{detail_of, fs_error};
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::info::{self, Session};
use crate::layout::{self, MESSAGE, OLD_MESSAGE_DIRS, PROJECT_STORAGE, PROJECTS, SESSION, STORAGE, SessionPaths};

pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let mut sessions = Vec::new();
    // The tree, and the per-project trees of releases before 0.6.
    let mut roots = vec![STORAGE.to_string()];
    let mut projects = discovery::list(home, PROJECTS, &mut problems).unwrap_or_default();
    projects.sort_by(|a, b| a.name.cmp(&b.name));
    roots.extend(projects.iter().filter(|e| e.is_dir()).map(|e| format!("{PROJECTS}/{}/{PROJECT_STORAGE}", e.name)));
    for root in roots {
        tree(home, &root, &mut sessions, &mut problems);
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The sessions of one tree.
fn tree(home: &Dir, root: &str, sessions: &mut Vec<SessionRef>, problems: &mut FileProblems) {
    let mut named = BTreeSet::new();
    let session_dir = layout::join(root, SESSION);
    let Some(mut projects) = discovery::list(home, &session_dir, problems) else { return };
    projects.sort_by(|a, b| a.name.cmp(&b.name));
    for project in &projects {
        let project_dir = layout::join(&session_dir, &project.name);
        if !project.is_dir() {
            problems.unrecognized(&project_dir, "a project directory of session files");
            continue;
        }
        // The oldest trees' message and part folders (directories of directories).
        if OLD_MESSAGE_DIRS.contains(&project.name.as_str()) {
            continue;
        }
        let Some(mut files) = discovery::list(home, &project_dir, problems) else { continue };
        files.sort_by(|a, b| a.name.cmp(&b.name));
        for file in files {
            let locator = layout::join(&project_dir, &file.name);
            if !file.is_file() || layout::file_stem(&file.name).is_none() {
                problems.unrecognized(&locator, "a session file (<session id>.json)");
                continue;
            }
            if file.meta.size == 0 {
                problems.empty(&locator, "json");
                continue;
            }
            match session_ref(home, &locator, problems) {
                Ok(s) => {
                    named.insert(s.native_id.clone());
                    named.insert(layout::file_stem(&file.name).unwrap_or_default().to_string());
                    sessions.push(s);
                }
                Err(e) => problems.malformed_head(&locator, &detail_of(&locator, &e)),
            }
        }
    }
    // Messages of a session whose session file is gone.
    let message_dir = layout::join(root, MESSAGE);
    for entry in discovery::list(home, &message_dir, problems).unwrap_or_default() {
        let path = layout::join(&message_dir, &entry.name);
        if !entry.is_dir() {
            problems.unrecognized(&path, "a directory of one session's messages");
        } else if !named.contains(&entry.name) {
            problems.unrecognized(&path, "messages of a session without a session file");
        }
    }
}

pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    session_ref(home, locator, &mut FileProblems::new())
}

/// The session file's facts; its size adds the session's message files.
fn session_ref(home: &Dir, locator: &str, problems: &mut FileProblems) -> Result<SessionRef, CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let (value, size) = info::load(home, locator)?;
    if !looks_like_session(&value) {
        return Err(CodecError::Malformed(format!("{locator}: not an OpenCode session file (id, time)")));
    }
    let session = Session::of(&value, &paths.stem);
    if session.id_from_content && session.id != paths.stem {
        problems.add(SESSION_ID_MISMATCH, Severity::Info, locator, "id differs from the file name");
    }
    let mut total = size;
    if let Ok(Some((_, files))) = message_files(home, &paths, &session.id) {
        total += files.iter().filter(|e| e.is_file()).map(|e| e.meta.size).sum::<u64>();
    }
    Ok(SessionRef {
        native_id: session.id.clone(),
        locator: locator.to_string(),
        cwd: cwd(home, &paths, &session),
        started_at: session.created.map(rfc3339_ms),
        updated_at: session.updated.map(rfc3339_ms),
        size: total,
        native_version: session.version.clone(),
        title: session.title.clone(),
    })
}

/// A session file has an `id` or a `time` object, and is no message or part.
pub fn looks_like_session(value: &serde_json::Value) -> bool {
    let has = |k: &str| value.get(k).is_some();
    (has("id") || value.get("time").is_some_and(|t| t.is_object()))
        && !has("role")
        && !has("messageID")
        && !has("messages")
}

/// The first of the session's message directories that exists, with its entries.
pub fn message_files(
    home: &Dir,
    paths: &SessionPaths,
    session_id: &str,
) -> Result<Option<(String, Vec<trajhost_codec_sdk::fs::DirEntry>)>, CodecError> {
    for dir in paths.message_dirs(session_id) {
        match home.list(&dir) {
            Ok(entries) => return Ok(Some((dir, entries))),
            Err(FsError::NotFound(_)) => continue,
            Err(e) => return Err(fs_error(&dir, e)),
        }
    }
    Ok(None)
}

/// `directory` of the session, else the project's `worktree`, else the
/// `path.cwd` an assistant message recorded (the oldest trees' session files
/// have no `directory`).
pub fn cwd(home: &Dir, paths: &SessionPaths, session: &Session) -> Option<String> {
    session
        .directory
        .clone()
        .or_else(|| {
            let file = paths.project_file(session.project_id.as_deref()?)?;
            info::worktree(home, &file)
        })
        .or_else(|| message_cwd(home, paths, &session.id))
}

/// Most message files read looking for a `path.cwd`.
const CWD_SEARCH: usize = 16;

fn message_cwd(home: &Dir, paths: &SessionPaths, session_id: &str) -> Option<String> {
    let (dir, mut entries) = message_files(home, paths, session_id).ok().flatten()?;
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    entries.iter().filter(|e| e.is_file() && e.name.ends_with(layout::JSON)).take(CWD_SEARCH).find_map(|e| {
        let (value, _) = info::load(home, &layout::join(&dir, &e.name)).ok()?;
        let path = value.get("path").or_else(|| value.pointer("/metadata/assistant/path"))?;
        path.get("cwd").and_then(serde_json::Value::as_str).filter(|s| !s.is_empty()).map(str::to_string)
    })
}
