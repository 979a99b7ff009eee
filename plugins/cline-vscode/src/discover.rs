//! `discover` and `inspect`: the task folders under each extension root
//! ([`layout::roots`]), described by the index `state/taskHistory.json`
//! (read once per root), `task_metadata.json` (the Cline version) and the
//! head of the API history (cwd and first prompt when the index has none).

use std::collections::BTreeMap;

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::errors::{fs_error, fs_kind};
use trajhost_codec_sdk::fs::{Dir, DirEntry, EntryKind, FsError};
use trajhost_codec_sdk::text::title_of;
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::layout::{self, CHECKPOINTS, TASKS, TaskPaths, join};
use crate::native::{HistoryItem, TaskMetadata};

pub const TITLE_CHARS: usize = 80;
/// Largest index or metadata file read.
pub const MAX_SIDE_BYTES: u64 = 64 << 20;
/// Bytes of the API history scanned for cwd and first prompt.
pub const HEAD_BYTES: u32 = 64 * 1024;

/// What the side files say about a task.
#[derive(Debug, Default, Clone)]
pub struct Facts {
    pub cwd: Option<String>,
    pub title: Option<String>,
    pub started_at: Option<String>,
    pub updated_at: Option<String>,
    pub version: Option<String>,
    pub native_id: String,
}

pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let mut sessions = Vec::new();
    for root in layout::roots() {
        let tasks = join(&root, TASKS);
        match home.stat(&tasks) {
            Ok(m) if matches!(m.kind, EntryKind::Directory) => {}
            Ok(_) => {
                problems.unrecognized(&tasks, "a tasks folder");
                continue;
            }
            Err(FsError::NotFound(_)) => continue,
            Err(e) => {
                problems.unreadable_directory(&tasks, &e);
                continue;
            }
        }
        let mut diags = Diagnostics::new();
        let history = join(&root, layout::TASK_HISTORY);
        let mut index = read_index(home, &history, &mut diags);
        problems.absorb(&mut diags, &history);
        for task in discovery::list(home, &tasks, &mut problems).unwrap_or_default() {
            let dir = join(&tasks, &task.name);
            if !task.is_dir() {
                problems.unrecognized(&dir, "a task folder");
                continue;
            }
            let Some(files) = discovery::list(home, &dir, &mut problems) else { continue };
            for f in &files {
                let own = layout::is_task_file(&task.name, &f.name) || (f.is_dir() && f.name == CHECKPOINTS);
                if !own {
                    problems.unrecognized(&join(&dir, &f.name), "a Cline task file");
                }
            }
            let paths = TaskPaths::of(&root, &task.name);
            if !files.iter().any(|f| f.is_file() && f.name == layout::API_HISTORY) {
                problems.add(
                    "no-api-history",
                    Severity::Info,
                    &dir,
                    "task folder without api_conversation_history.json",
                );
                continue;
            }
            let item = index.remove(&task.name);
            let mut diags = Diagnostics::new();
            if let Some(s) = session_ref(home, &paths, &files, item, &mut diags) {
                sessions.push(s);
            }
            problems.absorb(&mut diags, &paths.api);
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let paths = TaskPaths::from_locator(locator)?;
    // The task's own files by name (a loose copy may sit in a large folder).
    let mut files = Vec::new();
    let focus = format!("focus_chain_taskid_{}.md", paths.id);
    let names = [layout::API_HISTORY, layout::UI_MESSAGES, layout::TASK_METADATA, layout::LEGACY_UI_MESSAGES];
    for name in names.iter().copied().chain(layout::STATE_FILES.iter().copied()).chain([focus.as_str()]) {
        match home.stat(&paths.file(name)) {
            Ok(meta) => files.push(DirEntry { name: name.to_string(), meta }),
            Err(FsError::NotFound(_)) if name != layout::API_HISTORY => {}
            Err(e) => return Err(fs_error(&paths.file(name), e)),
        }
    }
    let mut diags = Diagnostics::new();
    let item = item_of(home, &paths, &mut diags);
    session_ref(home, &paths, &files, item, &mut diags)
        .ok_or_else(|| CodecError::NotFound(format!("{locator}: no Cline task")))
}

/// The index entry of one task.
pub fn item_of(home: &Dir, paths: &TaskPaths, diags: &mut Diagnostics) -> Option<HistoryItem> {
    let history = paths.history()?;
    read_index(home, &history, diags).remove(&paths.id)
}

fn session_ref(
    home: &Dir,
    paths: &TaskPaths,
    files: &[DirEntry],
    item: Option<HistoryItem>,
    diags: &mut Diagnostics,
) -> Option<SessionRef> {
    let api = files.iter().find(|f| f.is_file() && f.name == layout::API_HISTORY)?;
    let facts = facts(home, paths, item, api.meta.modified_ms, diags);
    let size =
        files.iter().filter(|f| f.is_file() && layout::is_task_file(&paths.id, &f.name)).map(|f| f.meta.size).sum();
    Some(SessionRef {
        native_id: facts.native_id,
        locator: paths.api.clone(),
        cwd: facts.cwd,
        started_at: facts.started_at,
        updated_at: facts.updated_at,
        size,
        native_version: facts.version,
        title: facts.title,
    })
}

/// A task's facts: the index entry, `task_metadata.json`, the id (a
/// creation time) and the head of the API history.
pub fn facts(
    home: &Dir,
    paths: &TaskPaths,
    item: Option<HistoryItem>,
    modified_ms: Option<i64>,
    diags: &mut Diagnostics,
) -> Facts {
    let item = item.unwrap_or_default();
    let metadata: TaskMetadata = read_json(home, &paths.file(layout::TASK_METADATA), diags).unwrap_or_default();
    let head = home.open(&paths.api).and_then(|f| f.read_at(0, HEAD_BYTES)).unwrap_or_default();
    let head = String::from_utf8_lossy(&head);
    let native_id = if paths.id.is_empty() { "api_conversation_history".to_string() } else { paths.id.clone() };
    Facts {
        cwd: item.cwd_on_task_initialization.filter(|c| !c.is_empty()).or_else(|| head_cwd(&head)),
        title: item.task.as_deref().and_then(|t| title_of(t, TITLE_CHARS)).or_else(|| head_task(&head)),
        started_at: epoch_ms(&paths.id).map(rfc3339_ms),
        updated_at: item.ts.0.filter(|ms| *ms > 0).or(modified_ms).map(rfc3339_ms),
        version: metadata.environment_history.iter().rev().find_map(|e| e.cline_version.clone()),
        native_id,
    }
}

/// A task id that is an epoch-milliseconds time.
pub fn epoch_ms(id: &str) -> Option<i64> {
    let ms: i64 = id.parse().ok()?;
    (946_684_800_000..4_102_444_800_000).contains(&ms).then_some(ms)
}

/// The `# Current Working Directory (<cwd>) Files` line of the first
/// environment details, in the raw (JSON-escaped) head.
fn head_cwd(head: &str) -> Option<String> {
    let marker = "# Current Working Directory (";
    let start = head.find(marker)? + marker.len();
    let end = head[start..].find(") Files")?;
    unescape(&head[start..start + end]).filter(|c| !c.is_empty() && !c.contains('\n'))
}

/// The first `<task>` of the head, as a title.
fn head_task(head: &str) -> Option<String> {
    let start = head.find("<task>\\n")? + "<task>\\n".len();
    let rest = &head[start..];
    let end = rest.find("\\n</task>").unwrap_or(rest.len().min(4096));
    let raw = rest.get(..end)?;
    // A cut escape at the end of the head is dropped with what follows it.
    let text = unescape(raw).or_else(|| unescape(raw.trim_end_matches('\\')))?;
    title_of(&text, TITLE_CHARS)
}

fn unescape(raw: &str) -> Option<String> {
    serde_json::from_str(&format!("\"{raw}\"")).ok()
}

/// `state/taskHistory.json` by task id; missing or unreadable: empty (the
/// task folders are still listed).
fn read_index(home: &Dir, path: &str, diags: &mut Diagnostics) -> BTreeMap<String, HistoryItem> {
    let items: Vec<HistoryItem> = read_json(home, path, diags).unwrap_or_default();
    items.into_iter().filter_map(|i| Some((i.id.clone()?, i))).collect()
}

fn read_json<T: serde::de::DeserializeOwned>(home: &Dir, path: &str, diags: &mut Diagnostics) -> Option<T> {
    match home.read_to_end(path, MAX_SIDE_BYTES) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|_| diags.add("malformed-file", Severity::Warning, "json", Some(path), None))
            .ok(),
        Err(FsError::NotFound(_)) => None,
        Err(e) => {
            diags.add("unreadable-file", Severity::Warning, fs_kind(&e), Some(path), None);
            None
        }
    }
}
