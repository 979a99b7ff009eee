//! The export `write` produces (the guest cannot create SQLite files): the
//! rows `prepare` puts into `state.db`, one directory per session,
//! `.hermes/export/<session id>/`:
//!
//! - `messages.jsonl`: one `messages` row per line, a JSON object of column
//!   → value (no `id`: SQLite assigns it, in line order), streamed as the
//!   records arrive;
//! - `session.json`: the `sessions` row (written last: its counters and
//!   token totals are known only at the end).
//!
//! `discover` and `read` read an export back with the same row mapping as a
//! `state.db` ([`crate::messages::Mapper`]); a message line's `src` is its
//! byte range, and its row id (record ids) its line number.

use std::collections::VecDeque;

use serde_json::{Map, Value as Json};
use trajhost_codec_sdk::canonical::{Record, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::jsonl::{BadLine, JsonLines};
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::sql::Row;
use trajhost_codec_sdk::sqlite::Value;
use trajhost_codec_sdk::{CodecError, ReadOptions, SessionRef, Severity};

use crate::messages::Mapper;
use crate::read::session_records;
use crate::schema::SCHEMA_VERSION;
use crate::time::from_epoch_secs;

/// Where exports live, relative to a home.
pub const EXPORT_DIR: &str = ".hermes/export";
/// The `sessions` row of one export.
pub const SESSION_FILE: &str = "session.json";
/// The `messages` rows of one export.
pub const MESSAGES_FILE: &str = "messages.jsonl";
/// Largest `session.json` read.
const MAX_SESSION_BYTES: u64 = 64 << 20;

pub fn session_path(id: &str) -> String {
    format!("{EXPORT_DIR}/{id}/{SESSION_FILE}")
}

pub fn messages_path(id: &str) -> String {
    format!("{EXPORT_DIR}/{id}/{MESSAGES_FILE}")
}

/// The session id of an export locator (`.hermes/export/<id>/session.json`).
pub fn export_id(locator: &str) -> Option<&str> {
    let id = locator.strip_prefix(EXPORT_DIR)?.strip_prefix('/')?.strip_suffix(SESSION_FILE)?.strip_suffix('/')?;
    is_session_id(id).then_some(id)
}

/// A session id Hermes and a path can both hold: letters, digits, `_`, `-`.
pub fn is_session_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('-')
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A JSON scalar as a SQLite value; `None` for arrays and objects.
pub fn value_of(json: &Json) -> Option<Value> {
    Some(match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Integer(i64::from(*b)),
        Json::Number(n) => match n.as_i64() {
            Some(i) if !n.is_f64() => Value::Integer(i),
            _ => Value::Real(n.as_f64()?),
        },
        Json::String(s) => Value::Text(s.clone()),
        Json::Array(_) | Json::Object(_) => return None,
    })
}

/// A row object's columns and values (non-scalar members are errors).
pub fn row_of(object: &Map<String, Json>, file: &str) -> Result<(Vec<String>, Vec<Value>), CodecError> {
    let mut columns = Vec::with_capacity(object.len());
    let mut values = Vec::with_capacity(object.len());
    for (name, json) in object {
        let value = value_of(json)
            .ok_or_else(|| CodecError::Malformed(format!("{file}: column {name} holds no SQLite value")))?;
        columns.push(name.clone());
        values.push(value);
    }
    Ok((columns, values))
}

/// The `sessions` row of the export of `id`.
pub fn session_row(home: &Dir, id: &str) -> Result<Map<String, Json>, CodecError> {
    let path = session_path(id);
    let bytes = home.read_to_end(&path, MAX_SESSION_BYTES)?;
    match serde_json::from_slice::<Json>(&bytes) {
        Ok(Json::Object(row)) => Ok(row),
        _ => Err(CodecError::Malformed(format!("{path}: not a JSON object"))),
    }
}

/// The sessions exported under `home` (what `write` made); a directory
/// without a readable `session.json` is a diagnostic.
pub fn discover(home: &Dir, problems: &mut trajhost_codec_sdk::discovery::FileProblems) -> Vec<SessionRef> {
    let entries = match home.list(EXPORT_DIR) {
        Ok(entries) => entries,
        Err(FsError::NotFound(_)) => return Vec::new(),
        Err(e) => {
            problems.add("unreadable-directory", Severity::Warning, EXPORT_DIR, &e.to_string());
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for entry in entries {
        let path = format!("{EXPORT_DIR}/{}", entry.name);
        if !entry.is_dir() || !is_session_id(&entry.name) {
            problems.add("unrecognized-file", Severity::Warning, &path, "not a session export directory");
            continue;
        }
        match inspect(home, &entry.name) {
            Ok(found) => out.push(found),
            Err(e) => problems.add("unreadable-file", Severity::Warning, &session_path(&entry.name), &e.to_string()),
        }
    }
    out
}

/// The session-ref of the export of `id`.
pub fn inspect(home: &Dir, id: &str) -> Result<SessionRef, CodecError> {
    let path = session_path(id);
    let row = session_row(home, id)?;
    let text = |k: &str| row.get(k).and_then(Json::as_str).filter(|s| !s.is_empty()).map(str::to_string);
    if text("id").as_deref() != Some(id) {
        return Err(CodecError::Malformed(format!("{path}: its id is not the directory's {id}")));
    }
    let size = home.stat(&path)?.size + home.stat(&messages_path(id)).map(|m| m.size).unwrap_or(0);
    Ok(SessionRef {
        native_id: id.to_string(),
        locator: path,
        cwd: text("cwd"),
        started_at: row.get("started_at").and_then(Json::as_f64).and_then(from_epoch_secs),
        updated_at: row.get("ended_at").and_then(Json::as_f64).and_then(from_epoch_secs),
        size,
        native_version: Some(SCHEMA_VERSION.to_string()),
        title: text("title"),
    })
}

/// An export being read.
pub struct Reader {
    lines: Option<JsonLines>,
    file: String,
    mapper: Mapper,
    writer: BatchWriter,
    diags: Diagnostics,
    pending: VecDeque<Record>,
    row: i64,
    done: bool,
}

impl Reader {
    pub fn open(home: Dir, id: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        let object = session_row(&home, id)?;
        let session_file = session_path(id);
        let (columns, values) = row_of(&object, &session_file)?;
        let row = Row { columns: &columns, values: &values };
        let src = SourceSpan { file: session_file.clone(), offset: 0, len: 0 };
        let pending = session_records(&row, id, Some(SCHEMA_VERSION.to_string()), src);
        let file = messages_path(id);
        let lines = match JsonLines::open(&home, &file) {
            Ok(lines) => Some(lines),
            Err(FsError::NotFound(_)) => None,
            Err(e) => return Err(CodecError::Io(format!("{file}: {e}"))),
        };
        Ok(Reader {
            lines,
            file,
            mapper: Mapper::new(id, Vec::new(), row.text("model").map(str::to_string)),
            writer: BatchWriter::new(options),
            diags: Diagnostics::new(),
            pending,
            row: 0,
            done: false,
        })
    }
}

impl Steps for Reader {
    fn step(&mut self) -> Result<bool, CodecError> {
        if self.writer.release(&mut self.pending) {
            return Ok(true);
        }
        let Some(lines) = self.lines.as_mut() else { return Ok(false) };
        let line = match lines.next_line() {
            None => return Ok(false),
            Some(Err(e)) => return Err(CodecError::Io(format!("{}: {e}", self.file))),
            Some(Ok(line)) => line,
        };
        let (offset, len) = (line.offset, line.len);
        if line.bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(true);
        }
        let object = match serde_json::from_slice::<Json>(line.bytes) {
            Ok(Json::Object(object)) => object,
            _ => {
                let bad = BadLine::of(&line);
                self.diags.add(bad.code(), Severity::Error, "messages row", Some(&self.file), Some(offset));
                return Ok(true);
            }
        };
        self.row += 1;
        let (mut columns, mut values) = row_of(&object, &self.file)?;
        columns.insert(0, "id".into());
        values.insert(0, Value::Integer(self.row));
        let row = Row { columns: &columns, values: &values };
        let Some(mapped) = self.mapper.map(&row, &self.file, &mut self.diags) else { return Ok(true) };
        for made in mapped.records {
            self.pending.push_back(made.at(mapped.ts.clone(), SourceSpan { file: self.file.clone(), offset, len }));
        }
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}
