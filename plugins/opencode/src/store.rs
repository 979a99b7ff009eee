//! The store's schema check and the session rows.
//!
//! OpenCode's schema drifts between releases (38 migrations by 1.18.33), and
//! stores written by other tools or older releases carry fewer tables and
//! columns. Before reading, the tables are looked at (the SDK's
//! `sql::table_columns`): what the transcript cannot do without
//! ([`REQUIRED`]) is checked and a store without it fails closed, naming the
//! table and the columns, instead of being misread; the other columns this
//! codec reads ([`OPTIONAL`]), and the `part` table itself, are read when
//! present and named in a `schema-missing-columns` diagnostic when not.

use std::collections::BTreeSet;

use trajhost_codec_sdk::sqlite::{Database, Value};
use trajhost_codec_sdk::{CodecError, Severity};

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::sql::{Row, column_or_null, table_columns};

/// Columns without which a table cannot be read, per table.
pub const REQUIRED: &[(&str, &[&str])] =
    &[("session", &["id"]), ("message", &["id", "session_id", "data"]), ("part", &["message_id", "data"])];
/// Columns read when present, per table.
pub const OPTIONAL: &[(&str, &[&str])] = &[
    ("session", &["directory", "title", "version", "time_created", "time_updated", "parent_id"]),
    ("message", &["time_created"]),
    ("part", &["id", "session_id"]),
];

/// The columns each table has, as far as this codec reads them.
#[derive(Debug, Clone, Default)]
pub struct Schema {
    session: BTreeSet<String>,
    message: BTreeSet<String>,
    /// Empty when there is no `part` table (messages then have no parts).
    part: BTreeSet<String>,
    /// What is missing of [`OPTIONAL`] (and the `part` table), for the diagnostic.
    pub missing: Vec<String>,
}

impl Schema {
    pub fn has_parts(&self) -> bool {
        !self.part.is_empty()
    }

    /// `message` columns, `NULL AS` the missing ones.
    pub fn message_column(&self, name: &str) -> String {
        column_or_null(&self.message, "", name)
    }

    /// `part` columns, `NULL AS` the missing ones.
    pub fn part_column(&self, name: &str) -> String {
        column_or_null(&self.part, "", name)
    }

    /// The diagnostic naming what is missing, when something is.
    pub fn note(&self, diags: &mut Diagnostics, path: &str) {
        if !self.missing.is_empty() {
            let detail = format!("read without {}", self.missing.join(", "));
            diags.add("schema-missing-columns", Severity::Info, &detail, Some(path), None);
        }
    }
}

pub use trajhost_codec_sdk::errors::sqlite_error;

/// Checks the tables; fails closed when a required table or column is missing.
pub fn check(db: &Database, path: &str) -> Result<Schema, CodecError> {
    let mut problems = Vec::new();
    let mut schema = Schema::default();
    for (table, needed) in REQUIRED {
        let columns = table_columns(db, table).map_err(|e| sqlite_error(path, e))?;
        let missing: Vec<&str> = needed.iter().copied().filter(|c| !columns.contains(*c)).collect();
        match *table {
            // Without parts, messages are read without their content.
            "part" if columns.is_empty() => {
                schema.missing.push("the `part` table".into());
                continue;
            }
            _ if columns.is_empty() => {
                problems.push(format!("no `{table}` table"));
                continue;
            }
            _ if !missing.is_empty() => {
                problems.push(format!("`{table}` lacks {}", missing.join(", ")));
                continue;
            }
            _ => {}
        }
        let optional = OPTIONAL.iter().find(|(t, _)| t == table).map_or(&[][..], |(_, c)| *c);
        schema.missing.extend(optional.iter().filter(|c| !columns.contains(**c)).map(|c| format!("{table}.{c}")));
        match *table {
            "session" => schema.session = columns,
            "message" => schema.message = columns,
            _ => schema.part = columns,
        }
    }
    if !problems.is_empty() {
        return Err(CodecError::Unsupported(format!(
            "{path}: not an OpenCode schema this codec knows ({}); nothing was read",
            problems.join("; ")
        )));
    }
    Ok(schema)
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
    let columns: Vec<String> = ["directory", "title", "version", "time_created", "time_updated", "parent_id"]
        .iter()
        .map(|c| column_or_null(&schema.session, "", c))
        .collect();
    format!("SELECT rowid AS row_id, id, {} FROM session", columns.join(", "))
}

/// `ORDER BY` of sessions: oldest first, where the store says when.
fn session_order(schema: &Schema) -> &'static str {
    if schema.session.contains("time_created") { "ORDER BY time_created, id" } else { "ORDER BY rowid" }
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
        db.query(&format!("{} {}", select(schema), session_order(schema)), &[]).map_err(|e| sqlite_error(path, e))?;
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

/// The session a locator names: the one of `id`, or, for a bare store
/// (`id` `None`), its only session (as Hermes reads a `state.db` given as a
/// path); a store of several sessions asks for one by name.
pub fn resolve(db: &Database, path: &str, schema: &Schema, id: Option<&str>) -> Result<Session, CodecError> {
    if let Some(id) = id {
        return session_by_id(db, path, schema, id)?
            .ok_or_else(|| CodecError::NotFound(format!("{path}: no session {id}")));
    }
    let mut all = sessions(db, path, schema)?;
    match all.len() {
        1 => Ok(all.remove(0)),
        0 => Err(CodecError::NotFound(format!("{path}: holds no session"))),
        n => Err(CodecError::NotFound(format!("{path}: holds {n} sessions; name one as {path}#<session id>"))),
    }
}

/// Bytes of a session's message and part rows (`length(data)` summed).
pub fn session_bytes(db: &Database, path: &str, schema: &Schema, id: &str) -> Result<u64, CodecError> {
    let mut total = 0u64;
    let mut queries = vec!["SELECT COALESCE(SUM(length(data)), 0) FROM message WHERE session_id = ?".to_string()];
    if schema.part.contains("session_id") {
        queries.push("SELECT COALESCE(SUM(length(data)), 0) FROM part WHERE session_id = ?".into());
    } else if schema.has_parts() {
        queries.push(
            "SELECT COALESCE(SUM(length(data)), 0) FROM part WHERE message_id IN (SELECT id FROM message WHERE session_id = ?)"
                .into(),
        );
    }
    for sql in queries {
        let rows = db.query(&sql, &[Value::Text(id.to_string())]).map_err(|e| sqlite_error(path, e))?;
        if let Some(Value::Integer(n)) =
            rows.collect_all().map_err(|e| sqlite_error(path, e))?.first().and_then(|r| r.first())
        {
            total += (*n).max(0) as u64;
        }
    }
    Ok(total)
}
