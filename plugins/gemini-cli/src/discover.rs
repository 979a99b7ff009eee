//! `discover`: the sessions under a home, from directory listings and the
//! head of each session file.
//!
//! Each file is stat'ed once, by the host's listing. Per project the
//! `.project_root` marker (a few bytes) gives the working directory; per
//! session only the first 64 KiB (and for larger files the last 64 KiB)
//! are read.

use std::collections::BTreeMap;

use serde::Deserialize;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, DirEntry, FsError, Metadata};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::head::Head;
use crate::layout::{self, CHATS, JSONL, LEGACY_JSON, PROJECT_ROOT_FILE, PROJECTS_JSON, SESSION_PREFIX, SessionPaths, TMP_ROOT};
use crate::time::rfc3339_utc;

/// Largest `.project_root` or `projects.json` read.
const MAX_SMALL_FILE: u64 = 1 << 20;

/// Every main session under `home`.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut diags = Diagnostics::new();
    let mut registry: Option<BTreeMap<String, String>> = None;
    let Some(projects) = list(home, TMP_ROOT, &mut diags) else {
        return Ok(Discovery { sessions, diagnostics: diags.drain() });
    };
    for project in projects.iter().filter(|e| e.is_dir()) {
        let project_dir = layout::join(TMP_ROOT, &project.name);
        let chats_dir = layout::join(&project_dir, CHATS);
        let entries = match home.list(&chats_dir) {
            Ok(entries) => entries,
            // Project directories without sessions (and `bin/`).
            Err(FsError::NotFound(_)) => continue,
            Err(e) => {
                diags.add("unreadable-directory", Severity::Warning, fs_kind(&e), Some(&chats_dir), None);
                continue;
            }
        };
        let mut cwd: Option<Option<String>> = None;
        for entry in entries.iter().filter(|e| e.is_file()) {
            if entry.name.starts_with(SESSION_PREFIX) && entry.name.ends_with(LEGACY_JSON) {
                diags.add("legacy-json-session", Severity::Info, "session-*.json", Some(&chats_dir), None);
                continue;
            }
            if !layout::is_main_session_file(&entry.name) {
                continue;
            }
            let cwd = cwd.get_or_insert_with(|| project_root(home, &project_dir, &project.name, &mut registry)).clone();
            let locator = layout::join(&chats_dir, &entry.name);
            if let Some(session) = session_ref(home, &locator, &entry.meta, Some(&entries), cwd, &mut diags) {
                sessions.push(session);
            }
        }
    }
    Ok(Discovery { sessions, diagnostics: diags.drain() })
}

/// The session-ref of one session file, as `discover` reports it.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let meta = home.stat(locator).map_err(|e| fs_error(locator, e))?;
    let entries = home.list(&paths.chats_dir).ok();
    let slug = paths.project_dir.rsplit('/').next().unwrap_or("").to_string();
    let cwd = project_root(home, &paths.project_dir, &slug, &mut None);
    let mut diags = Diagnostics::new();
    session_ref(home, locator, &meta, entries.as_deref(), cwd, &mut diags)
        .ok_or_else(|| CodecError::Malformed(format!("{locator}: no Gemini CLI session header in the head of the file")))
}

/// The project's working directory: `.project_root`, else the project
/// registry's entry for this slug.
pub fn project_root(
    home: &Dir,
    project_dir: &str,
    slug: &str,
    registry: &mut Option<BTreeMap<String, String>>,
) -> Option<String> {
    if let Ok(bytes) = home.read_to_end(&layout::join(project_dir, PROJECT_ROOT_FILE), MAX_SMALL_FILE) {
        let text = String::from_utf8_lossy(&bytes).trim().to_string();
        if !text.is_empty() {
            return Some(text);
        }
    }
    let registry = registry.get_or_insert_with(|| read_registry(home));
    registry.iter().find(|(_, s)| s.as_str() == slug).map(|(root, _)| root.clone())
}

/// `projects.json`: `{"projects": {<root>: <slug>}}`.
fn read_registry(home: &Dir) -> BTreeMap<String, String> {
    #[derive(Deserialize, Default)]
    struct Registry {
        #[serde(default)]
        projects: BTreeMap<String, String>,
    }
    home.read_to_end(PROJECTS_JSON, MAX_SMALL_FILE)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Registry>(&bytes).ok())
        .unwrap_or_default()
        .projects
}

fn list(home: &Dir, path: &str, diags: &mut Diagnostics) -> Option<Vec<DirEntry>> {
    match home.list(path) {
        Ok(entries) => Some(entries),
        Err(FsError::NotFound(_)) => None,
        Err(e) => {
            diags.add("unreadable-directory", Severity::Warning, fs_kind(&e), Some(path), None);
            None
        }
    }
}

fn session_ref(
    home: &Dir,
    locator: &str,
    meta: &Metadata,
    chats: Option<&[DirEntry]>,
    cwd: Option<String>,
    diags: &mut Diagnostics,
) -> Option<SessionRef> {
    let paths = SessionPaths::from_locator(locator).ok()?;
    if meta.size == 0 {
        diags.add("empty-session-file", Severity::Info, "jsonl", Some(locator), None);
        return None;
    }
    let head = match home.open(locator).and_then(|file| Head::scan(&file)) {
        Ok(head) => head,
        Err(e) => {
            diags.add("unreadable-file", Severity::Warning, fs_kind(&e), Some(locator), None);
            return None;
        }
    };
    let Some(native_id) = head.session_id.clone() else {
        diags.add("no-session-header", Severity::Info, "jsonl", Some(locator), None);
        return None;
    };
    let mut size = meta.size;
    // Subagent sessions live in `chats/<sessionId>/`.
    if let (Some(entries), Some(dir)) = (chats, paths.subagents_dir(&native_id))
        && entries.iter().any(|e| e.is_dir() && e.name == native_id)
    {
        size += home
            .list(&dir)
            .map(|children| children.iter().filter(|e| e.is_file() && e.name.ends_with(JSONL)).map(|e| e.meta.size).sum())
            .unwrap_or(0);
    }
    Some(SessionRef {
        native_id,
        locator: locator.to_string(),
        cwd,
        started_at: head.started_at(),
        updated_at: meta.modified_ms.map(rfc3339_utc),
        size,
        native_version: None,
        title: head.title(),
    })
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
