//! `read`: one session as canonical records, streamed in batches.
//!
//! Order: `meta`, the session's system prompt (`sessions.system_prompt`) as a
//! `system` record, then the `messages` rows in `id` order. Rows are fetched
//! with keyset paging (`id > last LIMIT n`), so neither the host nor the
//! codec ever holds more than one page; diagnostics are aggregated and go
//! out with the last batch.

use std::collections::VecDeque;

use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::sqlite::{Database, Value};
use trajhost_codec_sdk::{Batch, CodecError, ReadOptions, SessionReader};

use crate::layout;
use crate::messages::{self, Mapper};
use crate::sessions::{self, sqlite_error};
use crate::time::from_epoch_secs;
use crate::{CODEC, HARNESS};
use trajhost_codec_sdk::sql::{self, KeysetPages, Row};

/// Rows fetched per query.
const PAGE_ROWS: u32 = 128;

/// A session being read.
pub struct DbReader {
    db: Database,
    /// The database path: `src.file` of every record.
    file: String,
    session: String,
    /// The paging query.
    sql: String,
    mapper: Mapper,
    writer: BatchWriter,
    diags: Diagnostics,
    /// Records ready to go out (meta and system prompt first).
    pending: VecDeque<Record>,
    /// The `messages` rows, a page at a time (the cursor: `messages.id`).
    pages: KeysetPages,
    done: bool,
}

impl DbReader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<DbReader, CodecError> {
        let parsed = layout::parse_locator(locator)?;
        let session = match parsed.session {
            Some(id) => id,
            None => sessions::inspect(&home, locator)?.native_id,
        };
        let file = parsed.db;
        let db = Database::open(&home, &file).map_err(|e| sqlite_error(&file, e))?;
        let err = |e| sqlite_error(&file, e);

        let rows = db
            .query("SELECT rowid AS trajhost_rowid, * FROM sessions WHERE id = ?", &[Value::Text(session.clone())])
            .map_err(err)?;
        let columns = rows.columns();
        let values = rows
            .collect_all()
            .map_err(err)?
            .into_iter()
            .next()
            .ok_or_else(|| CodecError::NotFound(format!("{file}: no session {session}")))?;
        let row = Row { columns: &columns, values: &values };
        let version = sessions::schema_version(&db);
        let rowid = row.int("trajhost_rowid").unwrap_or(0) as u64;
        let src = SourceSpan { file: file.clone(), offset: rowid, len: 0 };
        let pending = session_records(&row, &session, version, src);
        let fallback_model = row.text("model").map(str::to_string);
        let models = model_usage(&db, &session);

        let present = sql::table_columns(&db, "messages").map_err(err)?;
        for needed in ["id", "session_id", "role"] {
            if !present.contains(needed) {
                return Err(CodecError::Malformed(format!("{file}: messages has no column {needed}")));
            }
        }
        let selected: Vec<&str> = messages::COLUMNS.iter().copied().filter(|c| present.contains(*c)).collect();
        let sql = format!(
            "SELECT {} FROM messages WHERE session_id = ? AND id > ? ORDER BY id LIMIT {PAGE_ROWS}",
            selected.join(", ")
        );
        Ok(DbReader {
            db,
            file,
            mapper: Mapper::new(&session, models, fallback_model),
            session,
            sql,
            writer: BatchWriter::new(options),
            diags: Diagnostics::new(),
            pending,
            pages: KeysetPages::new(PAGE_ROWS),
            done: false,
        })
    }
}

impl Steps for DbReader {
    /// Does one unit of work. False when nothing is left.
    fn step(&mut self) -> Result<bool, CodecError> {
        if self.writer.release(&mut self.pending) {
            return Ok(true);
        }
        if let Some(values) = self.pages.next_row() {
            self.row(&values);
            return Ok(true);
        }
        if self.pages.is_exhausted() {
            return Ok(false);
        }
        self.pages.fetch(&self.db, &self.sql, &self.session, "id").map_err(|e| sqlite_error(&self.file, e))?;
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}

impl DbReader {
    fn row(&mut self, values: &[Value]) {
        let row = Row { columns: self.pages.columns(), values };
        let offset = row.int("id").unwrap_or(0) as u64;
        let Some(mapped) = self.mapper.map(&row, &self.file, &mut self.diags) else { return };
        for made in mapped.records {
            self.pending.push_back(made.at(mapped.ts.clone(), SourceSpan { file: self.file.clone(), offset, len: 0 }));
        }
    }
}

/// The records a `sessions` row opens a session with: `meta`, then the
/// system prompt (`system_prompt`) as a `system` record.
pub fn session_records(row: &Row<'_>, session: &str, version: Option<String>, src: SourceSpan) -> VecDeque<Record> {
    let started = row.real("started_at").and_then(from_epoch_secs);
    let meta = Record {
        id: session.to_string(),
        body: Body::Meta(Meta {
            schema: SCHEMA.into(),
            harness: HARNESS.into(),
            native_id: session.to_string(),
            native_version: version,
            cwd: row.text("cwd").map(str::to_string),
            title: row.text("title").map(str::to_string),
            git_branch: row.text("git_branch").map(str::to_string),
            started_at: started.clone(),
            parent_session: row.text("parent_session_id").map(str::to_string),
            parent_call: None,
            codec: Some(CODEC.into()),
        }),
        parent: None,
        ts: started.clone(),
        agent: None,
        src: Some(src.clone()),
    };
    let mut pending = VecDeque::from([meta]);
    if let Some(prompt) = row.text("system_prompt") {
        pending.push_back(Record {
            id: format!("{session}:system"),
            body: Body::System { text: prompt.to_string() },
            parent: None,
            ts: started,
            agent: None,
            src: Some(src),
        });
    }
    pending
}

/// (first seen, model) of the session from `session_model_usage`; empty
/// when the table (or its `first_seen`) does not exist.
fn model_usage(db: &Database, session: &str) -> Vec<(f64, String)> {
    let Ok(rows) = db.query(
        "SELECT first_seen, model FROM session_model_usage WHERE session_id = ? AND model <> ''",
        &[Value::Text(session.to_string())],
    ) else {
        return Vec::new();
    };
    let columns = rows.columns();
    let Ok(all) = rows.collect_all() else { return Vec::new() };
    let pairs: Vec<(Option<f64>, String)> = all
        .iter()
        .filter_map(|values| {
            let row = Row { columns: &columns, values };
            Some((row.real("first_seen"), row.text("model")?.to_string()))
        })
        .collect();
    messages::models_by_first_use(&pairs)
}

/// A session being read: from a `state.db`, or from an export `write` made.
pub enum Reader {
    Db(Box<DbReader>),
    Export(Box<crate::export::Reader>),
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        match crate::export::export_id(locator) {
            Some(id) => Ok(Reader::Export(Box::new(crate::export::Reader::open(home, id, options)?))),
            None => Ok(Reader::Db(Box::new(DbReader::open(home, locator, options)?))),
        }
    }
}

impl SessionReader for Reader {
    fn next_batch(&mut self) -> Result<Option<Batch>, CodecError> {
        match self {
            Reader::Db(r) => r.next_batch(),
            Reader::Export(r) => r.next_batch(),
        }
    }
}
