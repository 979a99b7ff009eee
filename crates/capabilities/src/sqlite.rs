//! The read-only SQLite capability (`trajhost:codec/sqlite`).
//!
//! Read-only by construction, in layers: read-only open flags, `query_only`,
//! `trusted_schema=OFF`, defensive mode, no attached databases, and an
//! authorizer that allows only reads. A live store is never changed: a
//! database with a WAL beside it is copied (with its WAL) into a private
//! temporary directory first, and one without is opened `immutable=1`, so
//! SQLite neither checkpoints nor creates `-wal`/`-shm` files next to it.
//! Every statement runs under a progress handler bound to the same deadline
//! as the epoch interruption of the calling codec.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rusqlite::limits::Limit;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use wasmtime::component::Resource;

use crate::PluginState;
use crate::evidence::{RecordedQuery, Replay, TapeValue};
use crate::fs::DirHandle;
use crate::wit::latest::sqlite::{self as wit, Page, SqliteError, Value};

/// An open, read-only database.
pub struct DatabaseHandle {
    /// `None` for a database served from a recorded tape (an archived session).
    conn: Option<Connection>,
    /// Holds the private copy of a database that had a live WAL.
    _copy: Option<tempfile::TempDir>,
    /// The host path the codec opened, for recording and replay.
    host_path: std::path::PathBuf,
}

/// The buffered result of one query, handed out in pages.
pub struct RowsHandle {
    columns: Vec<String>,
    rows: VecDeque<Vec<Value>>,
}

/// A deadline shared between the epoch timer and SQLite's progress handler:
/// milliseconds since `base`, or `u64::MAX` for none.
#[derive(Clone)]
pub struct SharedDeadline {
    base: Instant,
    at_ms: Arc<AtomicU64>,
}

impl SharedDeadline {
    pub fn new() -> SharedDeadline {
        SharedDeadline { base: Instant::now(), at_ms: Arc::new(AtomicU64::new(u64::MAX)) }
    }

    pub fn set(&self, timeout: std::time::Duration) {
        let at = self.base.elapsed().saturating_add(timeout).as_millis() as u64;
        self.at_ms.store(at, Ordering::Relaxed);
    }

    pub fn passed(&self) -> bool {
        self.base.elapsed().as_millis() as u64 > self.at_ms.load(Ordering::Relaxed)
    }
}

impl Default for SharedDeadline {
    fn default() -> Self {
        SharedDeadline::new()
    }
}

/// Pragmas a codec may read, without an argument. Setting any pragma is denied.
const READABLE_PRAGMAS: &[&str] =
    &["table_list", "user_version", "schema_version", "application_id", "page_size", "page_count", "encoding"];

/// Schema introspection pragmas, whose argument is a table or index name.
const SCHEMA_PRAGMAS: &[&str] =
    &["table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list"];

/// The read-only policy, as SQLite's authorizer callback. Set through the C
/// API, not rusqlite's hook: the hook turns each argument into `&str` and
/// panics on a name that is not UTF-8, which a hostile database's schema can
/// hold (found by the `read_session` fuzz target). Here names stay bytes.
extern "C" fn authorize(
    _: *mut std::ffi::c_void,
    action: std::ffi::c_int,
    first: *const std::ffi::c_char,
    second: *const std::ffi::c_char,
    _: *const std::ffi::c_char,
    _: *const std::ffi::c_char,
) -> std::ffi::c_int {
    use rusqlite::ffi;
    let bytes = |p: *const std::ffi::c_char| {
        // SAFETY: SQLite passes NUL-terminated strings or NULL, valid for the call.
        (!p.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes())
    };
    let allowed = match action {
        ffi::SQLITE_SELECT | ffi::SQLITE_READ | ffi::SQLITE_FUNCTION | ffi::SQLITE_RECURSIVE => true,
        ffi::SQLITE_PRAGMA => {
            let name = bytes(first).map(<[u8]>::to_ascii_lowercase).unwrap_or_default();
            let is = |list: &[&str]| list.iter().any(|p| p.as_bytes() == name.as_slice());
            match bytes(second) {
                // Introspection pragmas take a table or index name.
                Some(_) => is(SCHEMA_PRAGMAS),
                None => is(READABLE_PRAGMAS) || is(SCHEMA_PRAGMAS),
            }
        }
        _ => false,
    };
    if allowed { ffi::SQLITE_OK } else { ffi::SQLITE_DENY }
}

fn sqlite_error(path: &str, error: rusqlite::Error) -> SqliteError {
    match &error {
        rusqlite::Error::SqliteFailure(e, _) if e.code == rusqlite::ErrorCode::AuthorizationForStatementDenied => {
            SqliteError::Denied(format!("{path}: only reads are allowed ({error})"))
        }
        rusqlite::Error::SqliteFailure(e, _) if e.code == rusqlite::ErrorCode::OperationInterrupted => {
            SqliteError::LimitExceeded(format!("{path}: query ran past the call deadline"))
        }
        rusqlite::Error::SqliteFailure(e, _) if e.code == rusqlite::ErrorCode::ReadOnly => {
            SqliteError::Denied(format!("{path}: the database is read-only"))
        }
        rusqlite::Error::MultipleStatement => SqliteError::Invalid(format!("{path}: one statement per query")),
        _ => SqliteError::Sqlite(format!("{path}: {error}")),
    }
}

/// Opens `host_path` without changing it or anything beside it.
fn open_read_only(host_path: &Path, rel: &str, deadline: SharedDeadline) -> Result<DatabaseHandle, SqliteError> {
    let wal = host_path
        .with_file_name(format!("{}-wal", host_path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()));
    let live_wal = std::fs::metadata(&wal).map(|m| m.len() > 0).unwrap_or(false);
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
    let io = |e: std::io::Error| SqliteError::Sqlite(format!("{rel}: {e}"));
    let (conn, copy) = if live_wal {
        // The WAL holds committed data; reading it in place would need a
        // -shm beside the store. Read a private copy instead.
        let dir = tempfile::Builder::new().prefix("trajhost-sqlite-").tempdir().map_err(io)?;
        let copy = dir.path().join("db.sqlite");
        std::fs::copy(host_path, &copy).map_err(io)?;
        std::fs::copy(&wal, dir.path().join("db.sqlite-wal")).map_err(io)?;
        let conn =
            Connection::open_with_flags(&copy, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
                .map_err(|e| sqlite_error(rel, e))?;
        (conn, Some(dir))
    } else {
        let uri = format!("file:{}?mode=ro&immutable=1", uri_escape(host_path));
        (Connection::open_with_flags(uri, flags).map_err(|e| sqlite_error(rel, e))?, None)
    };
    harden(&conn, deadline).map_err(|e| sqlite_error(rel, e))?;
    // Fail at open, not at the first query, when the file is not a database.
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(())).map_err(|e| sqlite_error(rel, e))?;
    Ok(DatabaseHandle { conn: Some(conn), _copy: copy, host_path: host_path.to_path_buf() })
}

fn harden(conn: &Connection, deadline: SharedDeadline) -> rusqlite::Result<()> {
    use rusqlite::config::DbConfig;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
    conn.execute_batch("PRAGMA query_only = ON;")?;
    conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)?;
    conn.set_limit(Limit::SQLITE_LIMIT_SQL_LENGTH, 100_000)?;
    conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, 64 << 20)?;
    // SAFETY: the handle is this open connection's; the callback needs no user data.
    let rc = unsafe { rusqlite::ffi::sqlite3_set_authorizer(conn.handle(), Some(authorize), std::ptr::null_mut()) };
    if rc != rusqlite::ffi::SQLITE_OK {
        return Err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rc),
            Some("setting the authorizer".into()),
        ));
    }
    conn.progress_handler(10_000, Some(move || deadline.passed()));
    Ok(())
}

fn uri_escape(path: &Path) -> String {
    let mut out = String::new();
    for byte in path.to_string_lossy().bytes() {
        match byte {
            b'?' | b'#' | b'%' => out.push_str(&format!("%{byte:02X}")),
            _ => out.push(byte as char),
        }
    }
    out
}

/// A WIT value as a SQLite parameter.
pub fn to_sql(value: &Value) -> rusqlite::types::Value {
    use rusqlite::types::Value as V;
    match value {
        Value::Null => V::Null,
        Value::Integer(i) => V::Integer(*i),
        Value::Real(f) => V::Real(*f),
        Value::Text(s) => V::Text(s.clone()),
        Value::Blob(b) => V::Blob(b.clone()),
    }
}

fn from_sql(value: ValueRef<'_>) -> (Value, usize) {
    match value {
        ValueRef::Null => (Value::Null, 1),
        ValueRef::Integer(i) => (Value::Integer(i), 8),
        ValueRef::Real(f) => (Value::Real(f), 8),
        ValueRef::Text(t) => (Value::Text(String::from_utf8_lossy(t).into_owned()), t.len()),
        ValueRef::Blob(b) => (Value::Blob(b.to_vec()), b.len()),
    }
}

/// The result columns' names, lossily decoded. rusqlite's `column_names`
/// panics on a name that is not UTF-8, which a hostile database can give
/// (`SELECT *` over its columns; found by the `read_session` fuzz target), so
/// the names are read through the C API from a second preparation.
fn column_names(conn: &Connection, sql: &str, count: usize) -> Vec<String> {
    use rusqlite::ffi;
    let fallback = || (0..count).map(|i| format!("column{}", i + 1)).collect();
    let Ok(text) = std::ffi::CString::new(sql) else { return fallback() };
    let mut stmt = std::ptr::null_mut();
    // SAFETY: the handle is this open connection's; the statement is finalized below, and each name is
    // copied before the next call.
    unsafe {
        let rc = ffi::sqlite3_prepare_v2(conn.handle(), text.as_ptr(), -1, &mut stmt, std::ptr::null_mut());
        if rc != ffi::SQLITE_OK || stmt.is_null() {
            if !stmt.is_null() {
                ffi::sqlite3_finalize(stmt);
            }
            return fallback();
        }
        let names = (0..count)
            .map(|i| {
                let name = ffi::sqlite3_column_name(stmt, i as std::ffi::c_int);
                if name.is_null() {
                    format!("column{}", i + 1)
                } else {
                    std::ffi::CStr::from_ptr(name).to_string_lossy().into_owned()
                }
            })
            .collect();
        ffi::sqlite3_finalize(stmt);
        names
    }
}

fn run_query(conn: &Connection, sql: &str, params: &[Value], max_bytes: usize) -> Result<RowsHandle, SqliteError> {
    let label = "query";
    let mut stmt = conn.prepare(sql).map_err(|e| sqlite_error(label, e))?;
    if !stmt.readonly() {
        return Err(SqliteError::Denied("only read statements are allowed".into()));
    }
    let columns = column_names(conn, sql, stmt.column_count());
    let params: Vec<rusqlite::types::Value> = params.iter().map(to_sql).collect();
    let mut rows = stmt.query(rusqlite::params_from_iter(params.iter())).map_err(|e| sqlite_error(label, e))?;
    let mut out = VecDeque::new();
    let mut bytes = 0usize;
    while let Some(row) = rows.next().map_err(|e| sqlite_error(label, e))? {
        let mut values = Vec::with_capacity(columns.len());
        for i in 0..columns.len() {
            let (value, size) = from_sql(row.get_ref(i).map_err(|e| sqlite_error(label, e))?);
            bytes += size;
            values.push(value);
        }
        if bytes > max_bytes {
            return Err(SqliteError::LimitExceeded(format!("query result is larger than {max_bytes} bytes")));
        }
        out.push_back(values);
    }
    Ok(RowsHandle { columns, rows: out })
}

/// The recorded answer to a query on an archived database.
fn replayed(replay: Option<&Replay>, database: &Path, sql: &str, params: &[Value]) -> Result<RowsHandle, SqliteError> {
    let recorded = replay.and_then(|r| r.answer(database, sql, params)).ok_or_else(|| {
        SqliteError::Sqlite(format!(
            "{}: the archive holds no recorded answer to this query (the codec asks what it did not ask when the \
             session was archived)",
            database.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()
        ))
    })?;
    Ok(RowsHandle {
        columns: recorded.columns.clone(),
        rows: recorded.rows.iter().map(|row| row.iter().map(TapeValue::to_value).collect()).collect(),
    })
}

impl RowsHandle {
    fn recorded(&self, sql: String, params: &[Value]) -> RecordedQuery {
        RecordedQuery {
            sql,
            params: params.iter().map(TapeValue::from).collect(),
            columns: self.columns.clone(),
            rows: self.rows.iter().map(|row| row.iter().map(TapeValue::from).collect()).collect(),
        }
    }
}

impl wit::Host for PluginState {}

impl wit::HostDatabase for PluginState {
    fn open(
        &mut self,
        root: Resource<DirHandle>,
        path: String,
    ) -> wasmtime::Result<Result<Resource<DatabaseHandle>, SqliteError>> {
        if self.open_databases >= self.limits.sqlite_max_connections {
            return Ok(Err(SqliteError::LimitExceeded(format!(
                "more than {} open databases",
                self.limits.sqlite_max_connections
            ))));
        }
        let dir = self.table.get(&root)?;
        let host_path = match dir.resolve_host_path(&path) {
            Ok(p) => p,
            Err(e) => return Ok(Err(SqliteError::Denied(format!("{e:?}")))),
        };
        if self.replay.as_ref().is_some_and(|r| r.databases.contains_key(&host_path)) {
            self.open_databases += 1;
            return Ok(Ok(self.table.push(DatabaseHandle { conn: None, _copy: None, host_path })?));
        }
        match open_read_only(&host_path, &path, self.deadline.clone()) {
            Ok(handle) => {
                self.open_databases += 1;
                Ok(Ok(self.table.push(handle)?))
            }
            Err(e) => Ok(Err(e)),
        }
    }

    fn query(
        &mut self,
        db: Resource<DatabaseHandle>,
        sql: String,
        params: Vec<Value>,
    ) -> wasmtime::Result<Result<Resource<RowsHandle>, SqliteError>> {
        self.stats.sql_queries += 1;
        let max = self.limits.sqlite_max_result_bytes;
        let handle = self.table.get(&db)?;
        let result = match &handle.conn {
            Some(conn) => run_query(conn, &sql, &params, max),
            None => replayed(self.replay.as_deref(), &handle.host_path, &sql, &params),
        };
        if let (Ok(rows), Some(recorder)) = (&result, self.recorder.as_mut()) {
            let host_path = self.table.get(&db)?.host_path.clone();
            recorder.ran_query(&host_path, rows.recorded(sql, &params));
        }
        match result {
            Ok(rows) => Ok(Ok(self.table.push(rows)?)),
            Err(e) => Ok(Err(e)),
        }
    }

    fn drop(&mut self, db: Resource<DatabaseHandle>) -> wasmtime::Result<()> {
        self.table.delete(db)?;
        self.open_databases = self.open_databases.saturating_sub(1);
        Ok(())
    }
}

impl wit::HostRows for PluginState {
    fn columns(&mut self, rows: Resource<RowsHandle>) -> wasmtime::Result<Vec<String>> {
        Ok(self.table.get(&rows)?.columns.clone())
    }

    fn next_page(&mut self, rows: Resource<RowsHandle>, max_rows: u32) -> wasmtime::Result<Result<Page, SqliteError>> {
        let handle = self.table.get_mut(&rows)?;
        let take = (max_rows.max(1) as usize).min(handle.rows.len());
        let page: Vec<Vec<Value>> = handle.rows.drain(..take).collect();
        Ok(Ok(Page { rows: page, done: handle.rows.is_empty() }))
    }

    fn drop(&mut self, rows: Resource<RowsHandle>) -> wasmtime::Result<()> {
        self.table.delete(rows)?;
        Ok(())
    }
}
