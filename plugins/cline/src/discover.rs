//! `discover` and `inspect`: the session directories under
//! `.cline/data/sessions/`, described by the index `sessions.db` (one query)
//! or, for a session the index does not list, by its manifest `<id>.json`.
//!
//! Each session directory is listed once (its files' sizes are the
//! session's `size`); transcripts are not opened.

use std::collections::BTreeMap;

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::fs::{Dir, DirEntry};
use trajhost_codec_sdk::sql::{self, Row};
use trajhost_codec_sdk::sqlite::Database;
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

pub use trajhost_codec_sdk::errors::{fs_error, fs_kind, sqlite_kind};

use crate::layout::{self, SessionPaths};
use crate::native::{Manifest, Metadata};
use crate::time::rfc3339_utc;

/// Largest manifest read.
pub const MAX_MANIFEST_BYTES: u64 = 1 << 20;
/// Characters of the first prompt used as a title when there is no other.
const TITLE_CHARS: usize = 80;

/// What the index or the manifest says about a session.
#[derive(Debug, Default, Clone)]
pub struct Facts {
    pub cwd: Option<String>,
    pub started_at: Option<String>,
    pub updated_at: Option<String>,
    pub title: Option<String>,
    pub version: Option<String>,
    pub model: Option<String>,
    pub parent_session: Option<String>,
}

/// Every session directory of `sessions/` (its manifest, transcript and
/// compaction file are its own), described by the index. A file in
/// `sessions/` is named in a diagnostic, and so is anything wrong with the
/// index or a manifest, per file.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let mut diags = Diagnostics::new();
    let mut index = read_index(home, None, &mut diags);
    problems.absorb(&mut diags, layout::INDEX_DB);
    let mut sessions = Vec::new();
    for dir in discovery::list(home, layout::SESSIONS_DIR, &mut problems).unwrap_or_default() {
        if !dir.is_dir() {
            problems.unrecognized(&layout::join(layout::SESSIONS_DIR, &dir.name), "not a session directory");
            continue;
        }
        let paths = SessionPaths::of(&dir.name);
        let facts = index.remove(&dir.name);
        if let Some(session) = session_ref(home, &paths, facts, &mut diags) {
            sessions.push(session);
        }
        problems.absorb(&mut diags, &paths.dir);
    }
    for _ in index.keys() {
        problems.add(
            "missing-session-directory",
            Severity::Info,
            layout::INDEX_DB,
            "sessions.db row without its directory",
        );
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let mut diags = Diagnostics::new();
    let facts = read_index(home, Some(&paths.id), &mut diags).remove(&paths.id);
    session_ref(home, &paths, facts, &mut diags).ok_or_else(|| CodecError::NotFound(locator.to_string()))
}

/// The facts of the session at `paths`: the index row if given, else the
/// manifest.
pub fn facts(home: &Dir, paths: &SessionPaths, diags: &mut Diagnostics) -> Facts {
    if let Some(f) = read_index(home, Some(&paths.id), diags).remove(&paths.id) {
        return f;
    }
    manifest_facts(home, paths, diags).unwrap_or_default()
}

fn session_ref(home: &Dir, paths: &SessionPaths, facts: Option<Facts>, diags: &mut Diagnostics) -> Option<SessionRef> {
    let entries = match home.list(&paths.dir) {
        Ok(entries) => entries,
        Err(e) => {
            diags.add("unreadable-directory", Severity::Warning, fs_kind(&e), Some(&paths.dir), None);
            return None;
        }
    };
    let messages_name = format!("{}{}", paths.id, layout::MESSAGES_SUFFIX);
    let Some(messages) = entries.iter().find(|e| e.is_file() && e.name == messages_name) else {
        diags.add(
            "no-messages-file",
            Severity::Info,
            "session directory without <id>.messages.json",
            Some(&paths.dir),
            None,
        );
        return None;
    };
    let size = entries.iter().filter(|e| e.is_file() && is_session_file(&paths.id, e)).map(|e| e.meta.size).sum();
    let facts = match facts {
        Some(f) => f,
        None => {
            diags.add("not-in-index", Severity::Info, "session missing from sessions.db", Some(&paths.dir), None);
            manifest_facts(home, paths, diags).unwrap_or_default()
        }
    };
    Some(SessionRef {
        native_id: paths.id.clone(),
        locator: paths.messages.clone(),
        cwd: facts.cwd,
        started_at: facts.started_at,
        updated_at: facts.updated_at.or_else(|| messages.meta.modified_ms.map(rfc3339_utc)),
        size,
        native_version: facts.version,
        title: facts.title,
    })
}

fn is_session_file(id: &str, entry: &DirEntry) -> bool {
    entry.name.strip_prefix(id).is_some_and(|rest| rest.ends_with(".json"))
}

/// The index rows (of `only`, when given), by session id. Missing or
/// unreadable index: empty (the manifests describe the sessions).
fn read_index(home: &Dir, only: Option<&str>, diags: &mut Diagnostics) -> BTreeMap<String, Facts> {
    let mut out = BTreeMap::new();
    if home.stat(layout::INDEX_DB).is_err() {
        return out;
    }
    let result = (|| {
        let db = Database::open(home, layout::INDEX_DB)?;
        let present = sql::table_columns(&db, "sessions")?;
        let col = |n: &str| sql::column_or_null(&present, "", n);
        let query = format!(
            "SELECT session_id, {}, {}, {}, {}, {}, {}, {}, {} FROM sessions {}",
            col("started_at"),
            col("ended_at"),
            col("updated_at"),
            col("cwd"),
            col("model"),
            col("prompt"),
            col("metadata_json"),
            col("parent_session_id"),
            if only.is_some() { "WHERE session_id = ?" } else { "" }
        );
        let params: Vec<_> =
            only.map(|id| trajhost_codec_sdk::sqlite::Value::Text(id.to_string())).into_iter().collect();
        let rows = db.query(&query, &params)?;
        let columns = rows.columns();
        loop {
            let page = rows.next_page(256)?;
            for values in &page.rows {
                let row = Row { columns: &columns, values };
                let Some(id) = row.text("session_id") else { continue };
                let metadata: Metadata =
                    row.text("metadata_json").and_then(|j| serde_json::from_str(j).ok()).unwrap_or_default();
                out.insert(
                    id.to_string(),
                    Facts {
                        cwd: row.text("cwd").map(str::to_string),
                        started_at: row.text("started_at").map(str::to_string),
                        updated_at: row.text("updated_at").or_else(|| row.text("ended_at")).map(str::to_string),
                        title: metadata.title.or_else(|| row.text("prompt").and_then(prompt_title)),
                        version: metadata.session_history_origin.version,
                        model: row.text("model").map(str::to_string),
                        parent_session: row.text("parent_session_id").map(str::to_string),
                    },
                );
            }
            if page.done {
                return Ok(());
            }
        }
    })();
    if let Err(e) = result {
        diags.add("unreadable-index", Severity::Warning, sqlite_kind(&e), Some(layout::INDEX_DB), None);
    }
    out
}

fn manifest_facts(home: &Dir, paths: &SessionPaths, diags: &mut Diagnostics) -> Option<Facts> {
    let bytes = match home.read_to_end(&paths.manifest, MAX_MANIFEST_BYTES) {
        Ok(b) => b,
        Err(e) => {
            diags.add("unreadable-manifest", Severity::Info, fs_kind(&e), Some(&paths.manifest), None);
            return None;
        }
    };
    let Ok(m) = serde_json::from_slice::<Manifest>(&bytes) else {
        diags.add("malformed-manifest", Severity::Warning, "<id>.json", Some(&paths.manifest), None);
        return None;
    };
    Some(Facts {
        cwd: m.cwd.or(m.workspace_root),
        started_at: m.started_at,
        updated_at: m.ended_at,
        title: m.metadata.title.or_else(|| m.prompt.as_deref().and_then(prompt_title)),
        version: m.metadata.session_history_origin.version,
        model: m.model,
        parent_session: m.parent_session_id,
    })
}

/// The first prompt, whitespace collapsed, cut to [`TITLE_CHARS`].
pub fn prompt_title(text: &str) -> Option<String> {
    trajhost_codec_sdk::text::title_of(text, TITLE_CHARS)
}
