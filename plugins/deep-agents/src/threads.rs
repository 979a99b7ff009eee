//! `discover` and `inspect`: the threads of the LangGraph checkpointer, one
//! query per database.
//!
//! Per thread the query takes the latest checkpoint of the root namespace
//! (`checkpoint_ns = ''`) and, through the primary keys, the first root
//! checkpoint's metadata and the first `messages` write (for the title).
//! From the JSON metadata: `cwd`, `git_branch`, `lc_versions.deepagents-code`
//! (the version; else `ls_integration_version`), `updated_at` of the first
//! checkpoint (the thread's start). `updated_at` is the time in the latest
//! checkpoint's id (a UUIDv6). `size` is the size of the database and its
//! `-wal` (the threads share it).

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::FileProblems;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::sql::{self, Row};
use trajhost_codec_sdk::sqlite::{Database, SqliteError, Value};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

pub use trajhost_codec_sdk::errors::{fs_error, sqlite_error, sqlite_kind};

use crate::export;
use crate::layout::{self, Locator};
use crate::messages;
use crate::msgpack;
use crate::time::{rfc3339_utc, uuid6_ms};

const TITLE_CHARS: usize = 80;

/// A thread as discovery sees it.
pub struct Thread {
    pub session: SessionRef,
    pub git_branch: Option<String>,
    /// The latest root checkpoint: id and rowid.
    pub latest_id: String,
    pub latest_rowid: i64,
    /// `counters_since_delta_snapshot.messages[1]` of its metadata: steps
    /// since the `messages` channel was last stored in full.
    pub steps_since_snapshot: Option<i64>,
}

/// The threads of each checkpoint database the CLI keeps (its current and
/// its legacy path; the files beside them are the CLI's own). A database
/// that cannot be read is named in a diagnostic; the other is still read.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let mut sessions = Vec::new();
    for path in layout::SESSION_GLOBS {
        let meta = match home.stat(path) {
            Ok(meta) => meta,
            Err(trajhost_codec_sdk::fs::FsError::NotFound(_)) => continue,
            Err(e) => {
                problems.unreadable(path, &e);
                continue;
            }
        };
        let size = meta.size + home.stat(&format!("{path}-wal")).map(|m| m.size).unwrap_or(0);
        match list(home, path, size, None) {
            Ok(threads) => sessions.extend(threads.into_iter().map(|t| t.session)),
            Err(e) => problems.add("unreadable-database", Severity::Warning, path, sqlite_kind(&e)),
        }
    }
    match home.stat(export::FILE) {
        Ok(_) => match load_export(home) {
            Ok(e) => sessions.push(export_thread(&e, home).session),
            Err(e) => problems.add("unreadable-export", Severity::Warning, export::FILE, &format!("{e:?}")),
        },
        Err(trajhost_codec_sdk::fs::FsError::NotFound(_)) => {}
        Err(e) => problems.unreadable(export::FILE, &e),
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// Largest export file read back.
const MAX_EXPORT: u64 = 1 << 30;

/// This codec's export file (see [`export`]), parsed.
pub fn load_export(home: &Dir) -> Result<export::Export, CodecError> {
    let bytes = home.read_to_end(export::FILE, MAX_EXPORT).map_err(|e| fs_error(export::FILE, e))?;
    export::parse(&bytes, export::FILE)
}

/// The thread an export file holds.
pub fn export_thread(e: &export::Export, home: &Dir) -> Thread {
    let size = home.stat(export::FILE).map(|m| m.size).unwrap_or(0);
    let title = e.messages.iter().find(|m| m.fields.get("type").and_then(|t| t.as_str()) == Some("human")).and_then(
        |m| match m.fields.get("content") {
            Some(serde_json::Value::String(s)) => prompt_title(s),
            _ => None,
        },
    );
    let iso = |k: &str| e.meta_str(k).and_then(trajhost_codec_sdk::time::parse_rfc3339).map(rfc3339_utc);
    Thread {
        session: SessionRef {
            native_id: e.thread_id.clone(),
            locator: Locator::of(export::FILE, &e.thread_id),
            cwd: e.meta_str("cwd").map(str::to_string),
            started_at: iso("created_at"),
            updated_at: iso("updated_at"),
            size,
            native_version: e
                .metadata
                .get("lc_versions")
                .and_then(|v| v.get("deepagents-code"))
                .and_then(|v| v.as_str())
                .map(str::to_string),
            title,
        },
        git_branch: e.meta_str("git_branch").map(str::to_string),
        latest_id: e.checkpoint_id.clone(),
        latest_rowid: e.thread_offset as i64,
        steps_since_snapshot: Some(0),
    }
}

pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    thread(home, locator).map(|t| t.session)
}

/// The thread a locator names.
pub fn thread(home: &Dir, locator: &str) -> Result<Thread, CodecError> {
    let parsed = Locator::parse(locator)?;
    if parsed.db == export::FILE {
        let e = load_export(home)?;
        if parsed.thread.as_deref().is_some_and(|t| t != e.thread_id) {
            return Err(CodecError::NotFound(format!(
                "{}: no thread {}",
                export::FILE,
                parsed.thread.unwrap_or_default()
            )));
        }
        return Ok(export_thread(&e, home));
    }
    let meta = home.stat(&parsed.db).map_err(|e| fs_error(&parsed.db, e))?;
    let size = meta.size + home.stat(&format!("{}-wal", parsed.db)).map(|m| m.size).unwrap_or(0);
    let mut found = list(home, &parsed.db, size, parsed.thread.as_deref()).map_err(|e| sqlite_error(&parsed.db, e))?;
    match (found.len(), &parsed.thread) {
        (1, _) => Ok(found.remove(0)),
        (0, Some(id)) => Err(CodecError::NotFound(format!("{}: no thread {id}", parsed.db))),
        (n, _) => Err(CodecError::NotFound(format!(
            "{}: holds {n} threads; name one as {}#<thread-id>",
            parsed.db, parsed.db
        ))),
    }
}

/// `json_extract` of the metadata JSON of checkpoint alias `a`, `NULL` when
/// the metadata is not JSON.
fn meta(a: &str, path: &str) -> String {
    format!(
        "CASE WHEN json_valid(CAST({a}.metadata AS TEXT)) THEN json_extract(CAST({a}.metadata AS TEXT), '{path}') END"
    )
}

fn list(home: &Dir, db: &str, size: u64, only: Option<&str>) -> Result<Vec<Thread>, SqliteError> {
    let conn = Database::open(home, db)?;
    // Older LangGraph writes tables have no `task_path` (see `read`); a
    // database of checkpoints alone has no `writes` at all.
    let writes = sql::table_columns(&conn, "writes")?;
    let task_path = if writes.contains("task_path") { "w.task_path" } else { "''" };
    let first_messages = if writes.is_empty() {
        "NULL".to_string()
    } else {
        format!(
            "(SELECT w.value FROM writes w WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = '' \
               AND w.channel = 'messages' AND w.type = 'msgpack' \
               ORDER BY w.checkpoint_id, {task_path}, w.task_id, w.idx LIMIT 1)"
        )
    };
    let sql = format!(
        "SELECT c.thread_id, c.checkpoint_id, c.rowid AS trajhost_rowid, \
           {cwd} AS cwd, {branch} AS git_branch, {version} AS version, {integration} AS integration_version, \
           {steps} AS steps_since_snapshot, \
           (SELECT {started} FROM checkpoints f WHERE f.thread_id = c.thread_id AND f.checkpoint_ns = '' \
              ORDER BY f.checkpoint_id LIMIT 1) AS started_at, \
           {first_messages} AS first_messages \
         FROM checkpoints c \
         WHERE c.checkpoint_ns = '' {filter} AND c.checkpoint_id = \
           (SELECT max(m.checkpoint_id) FROM checkpoints m WHERE m.thread_id = c.thread_id AND m.checkpoint_ns = '') \
         ORDER BY c.thread_id",
        cwd = meta("c", "$.cwd"),
        branch = meta("c", "$.git_branch"),
        version = meta("c", "$.lc_versions.\"deepagents-code\""),
        integration = meta("c", "$.ls_integration_version"),
        steps = meta("c", "$.counters_since_delta_snapshot.messages[1]"),
        started = meta("f", "$.updated_at"),
        filter = if only.is_some() { "AND c.thread_id = ?" } else { "" },
    );
    let params: Vec<Value> = only.map(|t| Value::Text(t.to_string())).into_iter().collect();
    let rows = conn.query(&sql, &params)?;
    let columns = rows.columns();
    let mut out = Vec::new();
    loop {
        let page = rows.next_page(256)?;
        for values in &page.rows {
            let row = Row { columns: &columns, values };
            let (Some(id), Some(latest)) = (row.text("thread_id"), row.text("checkpoint_id")) else { continue };
            let title = match row.get("first_messages") {
                Some(Value::Blob(b)) => first_prompt(b),
                _ => None,
            };
            out.push(Thread {
                session: SessionRef {
                    native_id: id.to_string(),
                    locator: Locator::of(db, id),
                    cwd: row.text("cwd").map(str::to_string),
                    started_at: row.text("started_at").map(str::to_string),
                    updated_at: uuid6_ms(latest).map(rfc3339_utc),
                    size,
                    native_version: row.text("version").or_else(|| row.text("integration_version")).map(str::to_string),
                    title,
                },
                git_branch: row.text("git_branch").map(str::to_string),
                latest_id: latest.to_string(),
                latest_rowid: row.int("trajhost_rowid").unwrap_or(0),
                steps_since_snapshot: row.int("steps_since_snapshot"),
            });
        }
        if page.done {
            return Ok(out);
        }
    }
}

/// The text of the first human message of a `messages` write, as a title.
fn first_prompt(blob: &[u8]) -> Option<String> {
    let value = msgpack::decode(blob).ok()?;
    let first = match &value {
        serde_json::Value::Array(items) => items.first()?.clone(),
        other => other.clone(),
    };
    let fields = messages::fields(&first)?;
    if fields.get("type").and_then(|t| t.as_str()) != Some("human") {
        return None;
    }
    let text = match fields.get("content")? {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(blocks) => {
            blocks.iter().find_map(|b| b.get("text").and_then(|t| t.as_str()))?.to_string()
        }
        _ => return None,
    };
    prompt_title(&text)
}

pub fn prompt_title(text: &str) -> Option<String> {
    trajhost_codec_sdk::text::title_of(text, TITLE_CHARS)
}
