//! Small helpers over the SDK's SQLite values: typed access by column name,
//! and the columns a table has (the schema drifts between OpenCode releases).

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
}

/// The column names of `table` (`PRAGMA table_info`, which the host allows).
/// Empty when the table does not exist.
pub fn table_columns(db: &Database, table: &str) -> Result<BTreeSet<String>, SqliteError> {
    // `table` is one of this crate's constants, never input.
    let rows = db.query(&format!("PRAGMA table_info({table})"), &[])?;
    let columns = rows.columns();
    let name = columns.iter().position(|c| c == "name").unwrap_or(1);
    Ok(rows
        .collect_all()?
        .into_iter()
        .filter_map(|row| match row.into_iter().nth(name) {
            Some(Value::Text(s)) => Some(s),
            _ => None,
        })
        .collect())
}
