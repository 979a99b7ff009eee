//! Helpers over [`crate::sqlite`] for stores whose schema grows between
//! harness versions: typed access to a row's values by column name, the
//! columns a table has, and query text that reads a column only where it
//! exists.

use std::collections::{BTreeSet, VecDeque};

use crate::sqlite::{Database, SqliteError, Value};

/// One result row with its column names.
pub struct Row<'a> {
    pub columns: &'a [String],
    pub values: &'a [Value],
}

impl<'a> Row<'a> {
    pub fn get(&self, name: &str) -> Option<&'a Value> {
        let i = self.columns.iter().position(|c| c == name)?;
        self.values.get(i)
    }

    /// A non-empty text value.
    pub fn text(&self, name: &str) -> Option<&'a str> {
        match self.get(name)? {
            Value::Text(s) if !s.is_empty() => Some(s.as_str()),
            _ => None,
        }
    }

    /// An integer, also from a whole real or a numeric text.
    pub fn int(&self, name: &str) -> Option<i64> {
        match self.get(name)? {
            Value::Integer(i) => Some(*i),
            Value::Real(f) if f.fract() == 0.0 => Some(*f as i64),
            Value::Text(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// A number, also from an integer or a numeric text.
    pub fn real(&self, name: &str) -> Option<f64> {
        match self.get(name)? {
            Value::Integer(i) => Some(*i as f64),
            Value::Real(f) => Some(*f),
            Value::Text(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// Bytes the row's values take (text and blob lengths, 8 per number).
    pub fn byte_size(&self) -> u64 {
        self.values
            .iter()
            .map(|v| match v {
                Value::Null => 0,
                Value::Integer(_) | Value::Real(_) => 8,
                Value::Text(s) => s.len() as u64,
                Value::Blob(b) => b.len() as u64,
            })
            .sum()
    }
}

/// The column names of `table`, from the result columns of
/// `SELECT * … LIMIT 0`; empty when the table does not exist. `table` must
/// be one of the codec's own constants, never input: it is spliced into the
/// query text.
pub fn table_columns(db: &Database, table: &str) -> Result<BTreeSet<String>, SqliteError> {
    match db.query(&format!("SELECT * FROM {table} LIMIT 0"), &[]) {
        Ok(rows) => Ok(rows.columns().into_iter().collect()),
        Err(SqliteError::Sqlite(m)) if m.contains("no such table") => Ok(BTreeSet::new()),
        Err(e) => Err(e),
    }
}

/// Runs a query and hands each result row to `each`, a page at a time.
pub fn each_row(db: &Database, sql: &str, params: &[Value], mut each: impl FnMut(Row<'_>)) -> Result<(), SqliteError> {
    let rows = db.query(sql, params)?;
    let columns = rows.columns();
    loop {
        let page = rows.next_page(256)?;
        for values in &page.rows {
            each(Row { columns: &columns, values });
        }
        if page.done {
            return Ok(());
        }
    }
}

/// `qualifier name` when the table has column `name`, else `NULL AS name`:
/// one query text for every schema version.
pub fn column_or_null(present: &BTreeSet<String>, qualifier: &str, name: &str) -> String {
    if present.contains(name) { format!("{qualifier}{name}") } else { format!("NULL AS {name}") }
}

/// A session's rows read a page at a time, by keyset: each query asks for
/// the rows after the last one fetched (by a cursor column that grows), so
/// no query holds the database for long and a reader keeps one page.
pub struct KeysetPages {
    page: VecDeque<Vec<Value>>,
    columns: Vec<String>,
    cursor: i64,
    page_rows: u32,
    exhausted: bool,
}

impl KeysetPages {
    /// Pages of at most `page_rows` rows (the `LIMIT` of the queries), from
    /// the first row on.
    pub fn new(page_rows: u32) -> KeysetPages {
        KeysetPages { page: VecDeque::new(), columns: Vec::new(), cursor: i64::MIN, page_rows, exhausted: false }
    }

    /// The next row of the page fetched last, with [`columns`](Self::columns).
    pub fn next_row(&mut self) -> Option<Vec<Value>> {
        self.page.pop_front()
    }

    /// The columns of the page fetched last.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// Whether the page fetched last was the final one: no rows follow it.
    pub fn is_exhausted(&self) -> bool {
        self.exhausted
    }

    /// Fetches the next page: `sql` with the parameters `key` and the
    /// cursor (`… WHERE <key column> = ? AND <cursor column> > ? ORDER BY
    /// <cursor column> LIMIT <page_rows>`). The cursor moves to
    /// `cursor_column` of the page's last row.
    pub fn fetch(&mut self, db: &Database, sql: &str, key: &str, cursor_column: &str) -> Result<(), SqliteError> {
        let rows = db.query(sql, &[Value::Text(key.to_string()), Value::Integer(self.cursor)])?;
        self.columns = rows.columns();
        let page: VecDeque<Vec<Value>> = rows.collect_all()?.into();
        self.exhausted = page.len() < self.page_rows as usize;
        if let Some(last) = page.back() {
            self.cursor = Row { columns: &self.columns, values: last }.int(cursor_column).unwrap_or(i64::MAX);
        }
        self.page = page;
        Ok(())
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::fs::Dir;

    #[test]
    fn rows_columns_and_missing_tables() {
        let dir = tempfile::tempdir().unwrap();
        let conn = rusqlite::Connection::open(dir.path().join("s.db")).unwrap();
        conn.execute_batch(
            "CREATE TABLE t (id TEXT, n INTEGER, r REAL, s TEXT); INSERT INTO t VALUES ('a', 3, 2.0, ' 7 ');",
        )
        .unwrap();
        drop(conn);
        let db = Database::open(&Dir::native(dir.path()), "s.db").unwrap();
        let present = table_columns(&db, "t").unwrap();
        assert_eq!(present.iter().map(String::as_str).collect::<Vec<_>>(), ["id", "n", "r", "s"]);
        assert!(table_columns(&db, "absent").unwrap().is_empty());
        assert_eq!(column_or_null(&present, "t.", "n"), "t.n");
        assert_eq!(column_or_null(&present, "t.", "gone"), "NULL AS gone");
        let query = format!("SELECT id, n, r, s, {} FROM t", column_or_null(&present, "", "gone"));
        let rows = db.query(&query, &[]).unwrap();
        let columns = rows.columns();
        let all = rows.collect_all().unwrap();
        let row = Row { columns: &columns, values: &all[0] };
        assert_eq!(row.text("id"), Some("a"));
        assert_eq!(row.int("n"), Some(3));
        assert_eq!(row.int("r"), Some(2));
        assert_eq!(row.int("s"), Some(7));
        assert_eq!(row.real("n"), Some(3.0));
        assert_eq!(row.text("gone"), None);
        assert!(row.get("nope").is_none());
        assert_eq!(row.byte_size(), 1 + 8 + 8 + 3);
    }
}
