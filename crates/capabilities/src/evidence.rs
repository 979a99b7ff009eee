//! What a codec read, kept as evidence, and a recorded SQLite read served
//! back.
//!
//! The archive keeps the native bytes each session was read from. For files
//! that is the file itself (the host copies the bytes the codec opened); for
//! a SQLite store it is the rows the codec's queries returned, a *tape*:
//! replaying the tape to the same codec reads the same session again after
//! the store is gone, without keeping a copy of a database full of other
//! sessions.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::wit::latest::sqlite::Value;

/// What one codec instance opened while recording.
#[derive(Debug, Default)]
pub struct Recorder {
    /// Files opened through `fs`, by host path, with their size at open.
    pub files: Vec<(PathBuf, u64)>,
    /// Queries per database (host path), in the order they ran.
    pub databases: Vec<(PathBuf, Vec<RecordedQuery>)>,
    /// Bytes of the rows the queries returned.
    pub row_bytes: u64,
}

impl Recorder {
    pub(crate) fn opened_file(&mut self, path: PathBuf, size: u64) {
        match self.files.iter_mut().find(|(p, _)| *p == path) {
            Some((_, s)) => *s = (*s).max(size),
            None => self.files.push((path, size)),
        }
    }

    pub(crate) fn ran_query(&mut self, database: &std::path::Path, query: RecordedQuery) {
        self.row_bytes += query.rows.iter().flatten().map(TapeValue::size).sum::<usize>() as u64;
        match self.databases.iter_mut().find(|(p, _)| p == database) {
            Some((_, queries)) => queries.push(query),
            None => self.databases.push((database.to_path_buf(), vec![query])),
        }
    }
}

/// One query and what it returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedQuery {
    pub sql: String,
    pub params: Vec<TapeValue>,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<TapeValue>>,
}

/// A SQLite value in a tape (blobs as hex, so that a tape is JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TapeValue {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(String),
}

impl TapeValue {
    fn size(&self) -> usize {
        match self {
            TapeValue::Text(t) => t.len(),
            TapeValue::Blob(b) => b.len() / 2,
            _ => 8,
        }
    }
}

impl From<&Value> for TapeValue {
    fn from(value: &Value) -> TapeValue {
        match value {
            Value::Null => TapeValue::Null,
            Value::Integer(i) => TapeValue::Integer(*i),
            Value::Real(f) => TapeValue::Real(*f),
            Value::Text(t) => TapeValue::Text(t.clone()),
            Value::Blob(b) => TapeValue::Blob(hex::encode(b)),
        }
    }
}

impl TapeValue {
    pub fn to_value(&self) -> Value {
        match self {
            TapeValue::Null => Value::Null,
            TapeValue::Integer(i) => Value::Integer(*i),
            TapeValue::Real(f) => Value::Real(*f),
            TapeValue::Text(t) => Value::Text(t.clone()),
            TapeValue::Blob(b) => Value::Blob(hex::decode(b).unwrap_or_default()),
        }
    }
}

/// Recorded databases served in place of real ones, by the host path the
/// codec opens.
#[derive(Debug, Default, Clone)]
pub struct Replay {
    pub databases: HashMap<PathBuf, Arc<Vec<RecordedQuery>>>,
}

impl Replay {
    /// The recorded answer to `sql` with `params` on `database`.
    pub fn answer(&self, database: &std::path::Path, sql: &str, params: &[Value]) -> Option<&RecordedQuery> {
        let params: Vec<TapeValue> = params.iter().map(TapeValue::from).collect();
        self.databases.get(database)?.iter().find(|q| q.sql == sql && q.params == params)
    }
}
