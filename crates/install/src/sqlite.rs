//! SQLite for installs: new databases built from a codec's DDL under an
//! authorizer, rows inserted into existing databases in one transaction,
//! and the probe that tells after a kill whether that transaction committed.

use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::types::{ToSqlOutput, Value, ValueRef};
use rusqlite::{Connection, OpenFlags};

use super::error::{InstallError, Result};
use super::journal::{Probe, StoredValue};
use super::{SqlValue, TableRows};

impl rusqlite::ToSql for SqlValue {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            SqlValue::Null => ToSqlOutput::Owned(Value::Null),
            SqlValue::Integer(i) => ToSqlOutput::Owned(Value::Integer(*i)),
            SqlValue::Real(f) => ToSqlOutput::Owned(Value::Real(*f)),
            SqlValue::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            SqlValue::Blob(b) => ToSqlOutput::Borrowed(ValueRef::Blob(b)),
        })
    }
}

fn from_sql(value: ValueRef<'_>) -> SqlValue {
    match value {
        ValueRef::Null => SqlValue::Null,
        ValueRef::Integer(i) => SqlValue::Integer(i),
        ValueRef::Real(f) => SqlValue::Real(f),
        ValueRef::Text(t) => SqlValue::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => SqlValue::Blob(b.to_vec()),
    }
}

/// Virtual-table modules a new database may use (compiled into SQLite).
const VTABLE_MODULES: &[&str] = &["fts3", "fts4", "fts5", "rtree"];

/// What the authorizer currently lets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// trajhost's own statements.
    Host,
    /// Compiling one schema statement of the codec.
    SchemaPrepare,
    /// Running it (a virtual table creates its shadow tables here).
    SchemaStep,
    /// Inserting rows (and whatever the new schema's triggers do).
    Rows,
}

struct Gate {
    phase: Phase,
    creates: usize,
    refused: Option<String>,
}

fn authorize(gate: &Mutex<Gate>, ctx: AuthContext<'_>) -> Authorization {
    let mut gate = gate.lock().unwrap_or_else(|p| p.into_inner());
    let schema_table = |name: &str| matches!(name, "sqlite_master" | "sqlite_schema");
    let allowed = match (gate.phase, &ctx.action) {
        (Phase::Host, _) => true,
        (
            Phase::SchemaPrepare | Phase::SchemaStep,
            AuthAction::CreateTable { .. }
            | AuthAction::CreateIndex { .. }
            | AuthAction::CreateView { .. }
            | AuthAction::CreateTrigger { .. },
        ) => {
            gate.creates += 1;
            true
        }
        (Phase::SchemaPrepare | Phase::SchemaStep, AuthAction::CreateVtable { module_name, .. })
            if VTABLE_MODULES.contains(&module_name.to_ascii_lowercase().as_str()) =>
        {
            gate.creates += 1;
            true
        }
        (
            Phase::SchemaPrepare,
            AuthAction::Insert { table_name }
            | AuthAction::Update { table_name, .. }
            | AuthAction::Delete { table_name },
        ) => schema_table(table_name),
        // A virtual table fills its shadow tables while it is created.
        (
            Phase::SchemaStep | Phase::Rows,
            AuthAction::Insert { .. } | AuthAction::Update { .. } | AuthAction::Delete { .. },
        ) => true,
        // FTS5 reads `PRAGMA data_version` when a trigger writes into it (rows into a table with FTS triggers).
        (Phase::SchemaStep | Phase::Rows, AuthAction::Pragma { pragma_name, pragma_value: None })
            if pragma_name.eq_ignore_ascii_case("data_version") =>
        {
            true
        }
        // Creating an index on a table with rows fills it.
        (Phase::SchemaPrepare | Phase::SchemaStep, AuthAction::Reindex { .. }) => true,
        (_, AuthAction::Read { .. } | AuthAction::Select | AuthAction::Recursive) => true,
        (_, AuthAction::Function { function_name }) => !function_name.eq_ignore_ascii_case("load_extension"),
        _ => false,
    };
    if allowed {
        Authorization::Allow
    } else {
        gate.refused.get_or_insert_with(|| describe(&ctx.action));
        Authorization::Deny
    }
}

fn describe(action: &AuthAction<'_>) -> String {
    let text = format!("{action:?}");
    // `CreateTempTable { table_name: "x" }` → `CreateTempTable`, then the detail.
    match text.split_once(' ') {
        Some((kind, detail)) => format!("{kind} {detail}"),
        None => text,
    }
}

/// Builds a new database on `conn` (fresh, empty): schema, user_version,
/// rows, in one transaction. Returns the rows per table.
fn build(
    conn: &Connection,
    path: &Path,
    schema: &[String],
    user_version: Option<i64>,
    tables: &[TableRows],
) -> Result<Vec<(String, usize)>> {
    use rusqlite::config::DbConfig;
    let sql_error = |e: rusqlite::Error| InstallError::sqlite(path, e);
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true).map_err(sql_error)?;
    conn.set_limit(rusqlite::limits::Limit::SQLITE_LIMIT_ATTACHED, 0).map_err(sql_error)?;
    let gate = Arc::new(Mutex::new(Gate { phase: Phase::Host, creates: 0, refused: None }));
    let hook = Arc::clone(&gate);
    conn.authorizer(Some(move |ctx: AuthContext<'_>| authorize(&hook, ctx)));
    let set_phase = |phase: Phase| {
        let mut g = gate.lock().unwrap_or_else(|p| p.into_inner());
        g.phase = phase;
        g.creates = 0;
        g.refused = None;
    };
    let refusal = || gate.lock().unwrap_or_else(|p| p.into_inner()).refused.clone();

    // Triggers are created after the rows, as a dump restores a database:
    // the rows are stored as the codec gave them (a trigger that resets a
    // column on insert would change them).
    let is_trigger = |sql: &str| {
        let words: Vec<String> = sql.split_whitespace().take(3).map(|w| w.to_ascii_uppercase()).collect();
        words.first().is_some_and(|w| w == "CREATE")
            && (words.get(1).is_some_and(|w| w == "TRIGGER")
                || words.get(1).is_some_and(|w| w == "TEMP" || w == "TEMPORARY")
                    && words.get(2).is_some_and(|w| w == "TRIGGER"))
    };
    let statements: Vec<(usize, &String)> = schema.iter().enumerate().collect();
    let (triggers, others): (Vec<_>, Vec<_>) = statements.into_iter().partition(|(_, sql)| is_trigger(sql));
    let run_schema = |statements: &[(usize, &String)]| -> Result<()> {
        for &(index, sql) in statements {
            let refused =
                |message: String| InstallError::SchemaRefused { path: path.to_path_buf(), index, reason: message };
            set_phase(Phase::SchemaPrepare);
            let mut statement = conn.prepare(sql).map_err(|e| match refusal() {
                Some(action) => refused(format!("{action} is not allowed")),
                None => refused(e.to_string()),
            })?;
            if gate.lock().unwrap_or_else(|p| p.into_inner()).creates == 0 {
                return Err(refused("not a CREATE statement".into()));
            }
            set_phase(Phase::SchemaStep);
            statement.raw_execute().map_err(|e| match refusal() {
                Some(action) => refused(format!("{action} is not allowed")),
                None => refused(e.to_string()),
            })?;
        }
        set_phase(Phase::Host);
        Ok(())
    };

    let result = (|| {
        conn.execute_batch("BEGIN").map_err(sql_error)?;
        run_schema(&others)?;
        if let Some(version) = user_version {
            conn.execute_batch(&format!("PRAGMA user_version = {version}")).map_err(sql_error)?;
        }
        let mut counts = Vec::new();
        for table in tables {
            set_phase(Phase::Rows);
            insert(conn, path, &table.table, &table.columns, &table.rows, |_, _| {}).map_err(|e| match refusal() {
                Some(action) => {
                    InstallError::sqlite(path, format!("inserting into {}: {action} is not allowed", table.table))
                }
                None => e,
            })?;
            counts.push((table.table.clone(), table.rows.len()));
        }
        set_phase(Phase::Host);
        run_schema(&triggers)?;
        conn.execute_batch("COMMIT").map_err(sql_error)?;
        Ok(counts)
    })();
    set_phase(Phase::Host);
    conn.authorizer(None::<fn(AuthContext<'_>) -> Authorization>);
    result
}

/// Builds the database in memory: validation of schema and rows.
pub fn check_new(
    path: &Path,
    schema: &[String],
    user_version: Option<i64>,
    tables: &[TableRows],
) -> Result<Vec<(String, usize)>> {
    let conn = Connection::open_in_memory().map_err(|e| InstallError::sqlite(path, e))?;
    build(&conn, path, schema, user_version, tables)
}

/// Builds the database into `temp`, an empty file this install created.
/// No SQLite journal: a kill leaves only the temporary file, which is
/// discarded.
pub(crate) fn build_file(
    temp: &Path,
    target: &Path,
    schema: &[String],
    user_version: Option<i64>,
    tables: &[TableRows],
) -> Result<()> {
    let conn = Connection::open_with_flags(temp, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(|e| InstallError::sqlite(target, e))?;
    conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
        .map_err(|e| InstallError::sqlite(target, e))?;
    build(&conn, target, schema, user_version, tables)?;
    conn.close().map_err(|(_, e)| InstallError::sqlite(target, e))
}

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Inserts rows; `each(index, rowid)` after every row.
///
/// The rows are stored as the codec gave them, as in a new database: when
/// the table has triggers, a given column that a trigger changed on the
/// inserted row is set back (OpenClaw's insert trigger marks every new
/// `session_nodes` row unvalidated, which its own writer then sets back
/// after checking the row). Columns the codec did not give keep what the
/// triggers and defaults made.
fn insert(
    conn: &Connection,
    path: &Path,
    table: &str,
    columns: &[String],
    rows: &[Vec<SqlValue>],
    mut each: impl FnMut(usize, i64),
) -> Result<()> {
    let sql = format!(
        "INSERT INTO {} ({}) VALUES ({})",
        quote(table),
        columns.iter().map(|c| quote(c)).collect::<Vec<_>>().join(", "),
        vec!["?"; columns.len()].join(", ")
    );
    let mut statement =
        conn.prepare(&sql).map_err(|e| InstallError::sqlite(path, format!("inserting into {table}: {e}")))?;
    let mut restore = StoredAsGiven::prepare(conn, path, table, columns)?;
    for (index, row) in rows.iter().enumerate() {
        statement
            .execute(rusqlite::params_from_iter(row.iter()))
            .map_err(|e| InstallError::sqlite(path, format!("inserting row {} into {table}: {e}", index + 1)))?;
        let rowid = conn.last_insert_rowid();
        if let Some(restore) = restore.as_mut() {
            restore.apply(conn, rowid, row).map_err(|e| {
                InstallError::sqlite(path, format!("row {} of {table}, as a trigger left it: {e}", index + 1))
            })?;
        }
        each(index, rowid);
    }
    Ok(())
}

/// Sets back the given columns of an inserted row that a trigger changed.
struct StoredAsGiven<'c> {
    table: String,
    columns: Vec<String>,
    /// `SELECT c1 IS ?1, … FROM t WHERE rowid = ?N`: SQLite's own
    /// comparison, so a value the column's affinity converted counts as
    /// stored as given.
    compare: rusqlite::Statement<'c>,
}

impl<'c> StoredAsGiven<'c> {
    /// None when the table has no triggers (nothing can change a row after
    /// its insert) or no rowid.
    fn prepare(conn: &'c Connection, path: &Path, table: &str, columns: &[String]) -> Result<Option<Self>> {
        let triggers: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?1 COLLATE NOCASE",
                [table],
                |r| r.get(0),
            )
            .map_err(|e| InstallError::sqlite(path, e))?;
        if triggers == 0 || columns.is_empty() {
            return Ok(None);
        }
        let tests: Vec<String> =
            columns.iter().enumerate().map(|(i, c)| format!("{} IS ?{}", quote(c), i + 1)).collect();
        let sql = format!("SELECT {} FROM {} WHERE rowid = ?{}", tests.join(", "), quote(table), columns.len() + 1);
        match conn.prepare(&sql) {
            Ok(compare) => Ok(Some(StoredAsGiven { table: table.to_string(), columns: columns.to_vec(), compare })),
            Err(e) => {
                // A WITHOUT ROWID table: its rows are not compared.
                tracing::debug!("{}: {table}: inserted rows are not compared: {e}", path.display());
                Ok(None)
            }
        }
    }

    fn apply(&mut self, conn: &Connection, rowid: i64, row: &[SqlValue]) -> rusqlite::Result<()> {
        let mut params: Vec<&dyn rusqlite::ToSql> = row.iter().map(|v| v as &dyn rusqlite::ToSql).collect();
        params.push(&rowid);
        let changed: Option<Vec<usize>> = self
            .compare
            .query_row(params.as_slice(), |r| {
                let mut changed = Vec::new();
                for i in 0..self.columns.len() {
                    if r.get::<_, Option<i64>>(i)? != Some(1) {
                        changed.push(i);
                    }
                }
                Ok(changed)
            })
            .map(Some)
            .or_else(|e| if e == rusqlite::Error::QueryReturnedNoRows { Ok(None) } else { Err(e) })?;
        // A trigger that removed the row leaves nothing to set back.
        let Some(changed) = changed.filter(|c| !c.is_empty()) else { return Ok(()) };
        let sets: Vec<String> =
            changed.iter().enumerate().map(|(n, &i)| format!("{} = ?{}", quote(&self.columns[i]), n + 1)).collect();
        let sql = format!("UPDATE {} SET {} WHERE rowid = ?{}", quote(&self.table), sets.join(", "), changed.len() + 1);
        let mut values: Vec<&dyn rusqlite::ToSql> = changed.iter().map(|&i| &row[i] as &dyn rusqlite::ToSql).collect();
        values.push(&rowid);
        tracing::debug!(
            "{}: set back {} on the inserted row (a trigger changed them)",
            self.table,
            changed.iter().map(|&i| self.columns[i].as_str()).collect::<Vec<_>>().join(", ")
        );
        conn.prepare_cached(&sql)?.execute(values.as_slice())?;
        Ok(())
    }
}

/// Validation of an insert into an existing database: it is a SQLite
/// database, and has the table and the columns. Read without changing
/// anything (immutable); with a live WAL the columns are checked by the
/// transaction itself instead.
pub(crate) fn check_existing(path: &Path, table: &str, columns: &[String]) -> Result<()> {
    let mut header = [0u8; 16];
    let read = std::fs::File::open(path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut header));
    if read.is_err() || &header != b"SQLite format 3\0" {
        return Err(InstallError::sqlite(path, "not a SQLite database (nothing was changed)"));
    }
    let wal = path.with_file_name(format!("{}-wal", path.file_name().unwrap_or_default().to_string_lossy()));
    if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
        tracing::debug!("{}: live WAL; table {table} is checked when the rows are inserted", path.display());
        return Ok(());
    }
    let uri = format!("file:{}?mode=ro&immutable=1", uri_escape(path));
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(uri, flags).map_err(|e| InstallError::sqlite(path, e))?;
    let mut statement =
        conn.prepare(&format!("PRAGMA table_info({})", quote(table))).map_err(|e| InstallError::sqlite(path, e))?;
    let known: Vec<String> = statement
        .query_map([], |row| row.get::<_, String>(1))
        .and_then(|rows| rows.collect())
        .map_err(|e| InstallError::sqlite(path, e))?;
    if known.is_empty() {
        return Err(InstallError::sqlite(path, format!("has no table {table} (nothing was changed)")));
    }
    if let Some(missing) = columns.iter().find(|c| !known.iter().any(|k| k.eq_ignore_ascii_case(c))) {
        return Err(InstallError::sqlite(path, format!("table {table} has no column {missing} (nothing was changed)")));
    }
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

/// Rows for one table of an existing database.
pub(crate) struct Insert<'a> {
    pub table: &'a str,
    pub columns: &'a [String],
    pub rows: &'a [Vec<SqlValue>],
}

/// Opens an existing database read-write.
pub fn open(path: &Path) -> Result<Connection> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(|e| InstallError::sqlite(path, e))?;
    conn.busy_timeout(std::time::Duration::from_secs(5)).map_err(|e| InstallError::sqlite(path, e))?;
    Ok(conn)
}

/// Opens a transaction and inserts every row, without committing. Returns
/// the probe that later tells whether this transaction committed.
pub(crate) fn begin_inserts(conn: &Connection, path: &Path, inserts: &[Insert<'_>]) -> Result<Probe> {
    conn.execute_batch("BEGIN IMMEDIATE").map_err(|e| InstallError::sqlite(path, e))?;
    let first = inserts.iter().find(|i| !i.rows.is_empty()).unwrap_or(&inserts[0]);
    let count = |table: &str| -> Result<i64> {
        conn.query_row(&format!("SELECT count(*) FROM {}", quote(table)), [], |r| r.get(0))
            .map_err(|e| InstallError::sqlite(path, format!("counting {table}: {e}")))
    };
    let before = count(first.table)?;
    let has_rowid = conn.prepare(&format!("SELECT rowid FROM {} LIMIT 0", quote(first.table))).is_ok();
    let mut first_rowid = None;
    for insert in inserts {
        let is_probe = std::ptr::eq(insert, first);
        self::insert(conn, path, insert.table, insert.columns, insert.rows, |index, rowid| {
            if is_probe && index == 0 {
                first_rowid = Some(rowid);
            }
        })?;
    }
    if has_rowid
        && let Some(rowid) = first_rowid
        && let Some(values) = row_at(conn, path, first.table, rowid)?
    {
        return Ok(Probe::Row { table: first.table.to_string(), rowid, values });
    }
    let after = count(first.table)?;
    Ok(Probe::Count { table: first.table.to_string(), before, after })
}

fn row_at(conn: &Connection, path: &Path, table: &str, rowid: i64) -> Result<Option<Vec<StoredValue>>> {
    let mut statement = conn
        .prepare(&format!("SELECT * FROM {} WHERE rowid = ?1", quote(table)))
        .map_err(|e| InstallError::sqlite(path, e))?;
    let width = statement.column_count();
    let mut rows = statement.query([rowid]).map_err(|e| InstallError::sqlite(path, e))?;
    match rows.next().map_err(|e| InstallError::sqlite(path, e))? {
        Some(row) => {
            let mut values = Vec::with_capacity(width);
            for i in 0..width {
                let value = row.get_ref(i).map_err(|e| InstallError::sqlite(path, e))?;
                values.push(StoredValue::from(&from_sql(value)));
            }
            Ok(Some(values))
        }
        None => Ok(None),
    }
}

pub fn commit(conn: &Connection, path: &Path) -> Result<()> {
    conn.execute_batch("COMMIT").map_err(|e| InstallError::sqlite(path, e))
}

/// Whether the transaction `probe` describes has committed.
pub fn committed(conn: &Connection, path: &Path, probe: &Probe) -> Result<bool> {
    match probe {
        Probe::Row { table, rowid, values } => Ok(row_at(conn, path, table, *rowid)?.as_ref() == Some(values)),
        Probe::Count { table, after, .. } => {
            let now: i64 = conn
                .query_row(&format!("SELECT count(*) FROM {}", quote(table)), [], |r| r.get(0))
                .map_err(|e| InstallError::sqlite(path, e))?;
            Ok(now >= *after)
        }
    }
}

/// Opens the database once, so SQLite rolls back a transaction a killed
/// install left open (hot journal) and removes its WAL files on close.
pub(crate) fn settle(path: &Path) -> Result<()> {
    if !path.exists() {
        return Ok(());
    }
    let conn = open(path)?;
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(())).map_err(|e| InstallError::sqlite(path, e))?;
    conn.close().map_err(|(_, e)| InstallError::sqlite(path, e))
}
