//! Read-only SQLite through the host's capability. Compiled natively (tests,
//! benchmarks) the same API opens the file read-only with rusqlite.

pub use crate::bindings::trajhost::codec::sqlite::{Page, SqliteError, Value};

use crate::fs::Dir;

impl From<SqliteError> for crate::CodecError {
    fn from(error: SqliteError) -> Self {
        crate::CodecError::Io(format!("{error:?}"))
    }
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::*;
    use crate::bindings::trajhost::codec::sqlite as host;

    /// A read-only database opened by the host.
    pub struct Database(host::Database);

    /// The result of one query, fetched in pages.
    pub struct Rows(host::Rows);

    impl Database {
        /// Opens `path` (relative to `dir`) read-only.
        pub fn open(dir: &Dir, path: &str) -> Result<Database, SqliteError> {
            host::Database::open(dir.handle(), path).map(Database)
        }

        /// Runs one statement with positional `?` parameters.
        pub fn query(&self, sql: &str, params: &[Value]) -> Result<Rows, SqliteError> {
            self.0.query(sql, params).map(Rows)
        }
    }

    impl Rows {
        pub fn columns(&self) -> Vec<String> {
            self.0.columns()
        }

        pub fn next_page(&self, max_rows: u32) -> Result<Page, SqliteError> {
            self.0.next_page(max_rows)
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::*;
    use std::cell::RefCell;
    use std::collections::VecDeque;

    /// A database opened read-only with rusqlite (native builds only). Like
    /// the host, it never creates or changes files beside the store: a
    /// database with a live WAL is read from a private copy, one without is
    /// opened `immutable=1`.
    pub struct Database {
        conn: rusqlite::Connection,
        /// Keeps the private copy of a store with a live WAL alive.
        _copy: Option<tempfile::TempDir>,
    }

    /// All rows of one query, handed out in pages.
    pub struct Rows {
        columns: Vec<String>,
        rows: RefCell<VecDeque<Vec<Value>>>,
    }

    fn error(e: rusqlite::Error) -> SqliteError {
        SqliteError::Sqlite(e.to_string())
    }

    impl Database {
        pub fn open(dir: &Dir, path: &str) -> Result<Database, SqliteError> {
            let full = dir.host_path().join(path);
            if !full.is_file() {
                return Err(SqliteError::NotFound(path.to_string()));
            }
            use rusqlite::OpenFlags;
            let io = |e: std::io::Error| SqliteError::Sqlite(format!("{path}: {e}"));
            let mut wal = full.clone().into_os_string();
            wal.push("-wal");
            let wal = std::path::PathBuf::from(wal);
            let live_wal = std::fs::metadata(&wal).map(|m| m.len() > 0).unwrap_or(false);
            let (conn, copy) = if live_wal {
                let dir = tempfile::tempdir().map_err(io)?;
                let copy = dir.path().join("db.sqlite");
                std::fs::copy(&full, &copy).map_err(io)?;
                std::fs::copy(&wal, dir.path().join("db.sqlite-wal")).map_err(io)?;
                (rusqlite::Connection::open(&copy).map_err(error)?, Some(dir))
            } else {
                let uri = format!("file:{}?mode=ro&immutable=1", full.display());
                let flags =
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
                (rusqlite::Connection::open_with_flags(uri, flags).map_err(error)?, None)
            };
            conn.execute_batch("PRAGMA query_only = ON;").map_err(error)?;
            Ok(Database { conn, _copy: copy })
        }

        pub fn query(&self, sql: &str, params: &[Value]) -> Result<Rows, SqliteError> {
            use rusqlite::types::{Value as V, ValueRef};
            let mut stmt = self.conn.prepare(sql).map_err(error)?;
            let columns: Vec<String> = stmt.column_names().into_iter().map(String::from).collect();
            let params: Vec<V> = params
                .iter()
                .map(|p| match p {
                    Value::Null => V::Null,
                    Value::Integer(i) => V::Integer(*i),
                    Value::Real(f) => V::Real(*f),
                    Value::Text(s) => V::Text(s.clone()),
                    Value::Blob(b) => V::Blob(b.clone()),
                })
                .collect();
            let mut rows = stmt.query(rusqlite::params_from_iter(params.iter())).map_err(error)?;
            let mut out = VecDeque::new();
            while let Some(row) = rows.next().map_err(error)? {
                let mut values = Vec::with_capacity(columns.len());
                for i in 0..columns.len() {
                    values.push(match row.get_ref(i).map_err(error)? {
                        ValueRef::Null => Value::Null,
                        ValueRef::Integer(i) => Value::Integer(i),
                        ValueRef::Real(f) => Value::Real(f),
                        ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
                        ValueRef::Blob(b) => Value::Blob(b.to_vec()),
                    });
                }
                out.push_back(values);
            }
            Ok(Rows { columns, rows: RefCell::new(out) })
        }
    }

    impl Rows {
        pub fn columns(&self) -> Vec<String> {
            self.columns.clone()
        }

        pub fn next_page(&self, max_rows: u32) -> Result<Page, SqliteError> {
            let mut rows = self.rows.borrow_mut();
            let take = (max_rows.max(1) as usize).min(rows.len());
            let page: Vec<Vec<Value>> = rows.drain(..take).collect();
            Ok(Page { rows: page, done: rows.is_empty() })
        }
    }
}

pub use imp::{Database, Rows};

impl Rows {
    /// Every remaining row (convenience for small results).
    pub fn collect_all(&self) -> Result<Vec<Vec<Value>>, SqliteError> {
        let mut all = Vec::new();
        loop {
            let page = self.next_page(1024)?;
            all.extend(page.rows);
            if page.done {
                return Ok(all);
            }
        }
    }
}
