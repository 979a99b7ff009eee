//! The store's schema check and the session rows.
//!
//! OpenCode's schema drifts between releases (38 migrations by 1.18.33).
//! Before reading, the columns this codec needs are checked (the SDK's
//! `sql::table_columns`); a store without them fails closed, naming the table
//! and the columns, instead of being misread.

use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::sqlite::{Database, Value};

use trajhost_codec_sdk::sql::{Row, table_columns};

/// Columns read, per table.
pub const SESSION_COLUMNS: &[&str] = &["id", "directory", "title", "version", "time_created", "time_updated"];
pub const MESSAGE_COLUMNS: &[&str] = &["id", "session_id", "time_created", "data"];
pub const PART_COLUMNS: &[&str] = &["id", "message_id", "session_id", "data"];

/// The columns of `session` that are read when present.
pub struct Schema {
    pub has_parent: bool,
}

pub use trajhost_codec_sdk::errors::sqlite_error;

/// Checks the three tables; fails closed on an unknown schema.
pub fn check(db: &Database, path: &str) -> Result<Schema, CodecError> {
    let mut problems = Vec::new();
    let mut has_parent = false;
    for (table, needed) in [("session", SESSION_COLUMNS), ("message", MESSAGE_COLUMNS), ("part", PART_COLUMNS)] {
        let columns = table_columns(db, table).map_err(|e| sqlite_error(path, e))?;
        if columns.is_empty() {
            problems.push(format!("no `{table}` table"));
            continue;
        }
        let missing: Vec<&str> = needed.iter().copied().filter(|c| !columns.contains(*c)).collect();
        if !missing.is_empty() {
            problems.push(format!("`{table}` lacks {}", missing.join(", ")));
        }
        if table == "session" {
            has_parent = columns.contains("parent_id");
        }
    }
    if !problems.is_empty() {
        return Err(CodecError::Unsupported(format!(
            "{path}: not an OpenCode schema this codec knows ({}); nothing was read",
            problems.join("; ")
        )));
    }
    Ok(Schema { has_parent })
}

/// One `session` row.
#[derive(Debug, Clone)]
pub struct Session {
    pub rowid: i64,
    pub id: String,
    pub directory: Option<String>,
    pub title: Option<String>,
    pub version: Option<String>,
    pub created: Option<i64>,
    pub updated: Option<i64>,
    pub parent: Option<String>,
}

fn select(schema: &Schema) -> String {
    let parent = if schema.has_parent { "parent_id" } else { "NULL AS parent_id" };
    format!("SELECT rowid AS row_id, id, directory, title, version, time_created, time_updated, {parent} FROM session")
}

fn session(columns: &[String], values: &[Value]) -> Option<Session> {
    let row = Row { columns, values };
    Some(Session {
        rowid: row.int("row_id").unwrap_or(0),
        id: row.text("id")?.to_string(),
        directory: row.text("directory").map(str::to_string),
        title: row.text("title").map(str::to_string),
        version: row.text("version").map(str::to_string),
        created: row.int("time_created"),
        updated: row.int("time_updated"),
        parent: row.text("parent_id").map(str::to_string),
    })
}

/// Every session, oldest first.
pub fn sessions(db: &Database, path: &str, schema: &Schema) -> Result<Vec<Session>, CodecError> {
    let rows =
        db.query(&format!("{} ORDER BY time_created, id", select(schema)), &[]).map_err(|e| sqlite_error(path, e))?;
    let columns = rows.columns();
    let mut out = Vec::new();
    loop {
        let page = rows.next_page(256).map_err(|e| sqlite_error(path, e))?;
        out.extend(page.rows.iter().filter_map(|values| session(&columns, values)));
        if page.done {
            return Ok(out);
        }
    }
}

/// One session by id.
pub fn session_by_id(db: &Database, path: &str, schema: &Schema, id: &str) -> Result<Option<Session>, CodecError> {
    let rows = db
        .query(&format!("{} WHERE id = ?", select(schema)), &[Value::Text(id.to_string())])
        .map_err(|e| sqlite_error(path, e))?;
    let columns = rows.columns();
    let page = rows.next_page(1).map_err(|e| sqlite_error(path, e))?;
    Ok(page.rows.first().and_then(|values| session(&columns, values)))
}

/// Bytes of a session's message and part rows (`length(data)` summed).
pub fn session_bytes(db: &Database, path: &str, id: &str) -> Result<u64, CodecError> {
    let mut total = 0u64;
    for table in ["message", "part"] {
        let sql = format!("SELECT COALESCE(SUM(length(data)), 0) FROM {table} WHERE session_id = ?");
        let rows = db.query(&sql, &[Value::Text(id.to_string())]).map_err(|e| sqlite_error(path, e))?;
        if let Some(Value::Integer(n)) =
            rows.collect_all().map_err(|e| sqlite_error(path, e))?.first().and_then(|r| r.first())
        {
            total += (*n).max(0) as u64;
        }
    }
    Ok(total)
}
