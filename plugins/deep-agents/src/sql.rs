//! Small helpers over the SDK's SQLite values: typed access by column name,
//! and the columns a table has (schemas grow between versions).

use std::collections::BTreeSet;

use trajhost_codec_sdk::sqlite::{Database, SqliteError, Value};

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

    pub fn int(&self, name: &str) -> Option<i64> {
        match self.get(name)? {
            Value::Integer(i) => Some(*i),
            Value::Real(f) if f.fract() == 0.0 => Some(*f as i64),
            Value::Text(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

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
/// `SELECT * … LIMIT 0` (the host's authorizer denies pragmas with an
/// argument, such as `table_info(x)`). Empty when the table does not exist.
pub fn table_columns(db: &Database, table: &str) -> Result<BTreeSet<String>, SqliteError> {
    // `table` is one of this crate's constants, never input.
    match db.query(&format!("SELECT * FROM {table} LIMIT 0"), &[]) {
        Ok(rows) => Ok(rows.columns().into_iter().collect()),
        Err(SqliteError::Sqlite(m)) if m.contains("no such table") => Ok(BTreeSet::new()),
        Err(e) => Err(e),
    }
}

/// `name` when the table has it, else `NULL AS name`: one query text for
/// every schema version.
pub fn column_or_null(present: &BTreeSet<String>, qualifier: &str, name: &str) -> String {
    if present.contains(name) { format!("{qualifier}{name}") } else { format!("NULL AS {name}") }
}
