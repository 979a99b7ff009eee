//! `read`: one thread as canonical records.
//!
//! What a thread's conversation is: the `messages` channel of its latest
//! checkpoint in the root namespace (`checkpoint_ns = ''`; other namespaces
//! hold subgraph checkpoints and are only counted, `subgraph-checkpoints`).
//! LangGraph ≥ 1.2 stores that channel as deltas: a checkpoint's
//! `channel_values` carries `messages` only when a full snapshot was taken
//! (`counters_since_delta_snapshot` in the metadata says how long ago), and
//! every step's additions are rows of `writes` with `channel = 'messages'`.
//! The reader therefore walks the `parent_checkpoint_id` chain of the latest
//! checkpoint, starts from the newest snapshot on it (if any), and applies
//! the `messages` writes of the checkpoints from there to the latest (its
//! pending writes included) with LangGraph's `add_messages` semantics.
//! Checkpoints off the chain (abandoned forks) and their writes are counted
//! (`off-branch-checkpoint`, `off-branch-write`), not read.
//!
//! The reduced list is the conversation (what LangGraph itself holds in
//! memory for the thread); writes are fetched a page at a time and only the
//! messages are kept, decoded. Records then go out in batches.
//!
//! A message carries no time of its own: `ts` is the time of the checkpoint
//! that committed it (the child of the checkpoint its write belongs to;
//! checkpoint ids are time-based UUIDv6). The provider's whole-second
//! `response_metadata.created_at` is coarser, and not used.

use std::collections::{BTreeMap, VecDeque};

use serde_json::Value as Json;
use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::sqlite::{Database, SqliteError, Value};
use trajhost_codec_sdk::{CodecError, ReadOptions, Severity};

use crate::layout::Locator;
use crate::messages::{self, Entry};
use crate::msgpack;
use crate::threads::{self, sqlite_error};
use crate::time::{rfc3339_utc, uuid6_ms};
use crate::{CODEC, HARNESS};
use trajhost_codec_sdk::sql::{self, Row};

/// Writes fetched per query.
const PAGE_ROWS: u32 = 64;

pub struct Reader {
    file: String,
    thread: String,
    list: VecDeque<Entry>,
    writer: BatchWriter,
    diags: Diagnostics,
    pending: VecDeque<Record>,
    done: bool,
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        let parsed = Locator::parse(locator)?;
        let thread = threads::thread(&home, locator)?;
        let file = parsed.db;
        let id = thread.session.native_id.clone();
        let mut diags = Diagnostics::new();
        let list = if file == crate::export::FILE {
            threads::load_export(&home)?.entries()
        } else {
            let db = Database::open(&home, &file).map_err(|e| sqlite_error(&file, e))?;
            conversation(&db, &id, &thread, &file, &mut diags).map_err(|e| sqlite_error(&file, e))?
        };
        let s = &thread.session;
        let meta = Record {
            id: id.clone(),
            body: Body::Meta(Meta {
                schema: SCHEMA.into(),
                harness: HARNESS.into(),
                native_id: id.clone(),
                native_version: s.native_version.clone(),
                cwd: s.cwd.clone(),
                title: s.title.clone(),
                git_branch: thread.git_branch.clone(),
                started_at: s.started_at.clone(),
                parent_session: None,
                parent_call: None,
                codec: Some(CODEC.into()),
            }),
            parent: None,
            ts: s.started_at.clone(),
            agent: None,
            src: Some(SourceSpan { file: file.clone(), offset: thread.latest_rowid as u64, len: 0 }),
        };
        Ok(Reader {
            file,
            thread: id,
            list: list.into(),
            writer: BatchWriter::starting_with(options, &meta),
            diags,
            pending: VecDeque::new(),
            done: false,
        })
    }
}

/// The thread's message list (see the module docs).
fn conversation(
    db: &Database,
    thread: &str,
    t: &threads::Thread,
    file: &str,
    diags: &mut Diagnostics,
) -> Result<Vec<Entry>, SqliteError> {
    let tid = || Value::Text(thread.to_string());

    // The chain of the latest root checkpoint.
    let rows = db.query(
        "SELECT rowid AS trajhost_rowid, checkpoint_id, parent_checkpoint_id FROM checkpoints \
         WHERE thread_id = ? AND checkpoint_ns = ''",
        &[tid()],
    )?;
    let columns = rows.columns();
    let mut parents: BTreeMap<String, (Option<String>, i64)> = BTreeMap::new();
    for values in rows.collect_all()? {
        let row = Row { columns: &columns, values: &values };
        if let Some(id) = row.text("checkpoint_id") {
            parents.insert(
                id.to_string(),
                (row.text("parent_checkpoint_id").map(str::to_string), row.int("trajhost_rowid").unwrap_or(0)),
            );
        }
    }
    let mut chain = Vec::new();
    let mut at = Some(t.latest_id.clone());
    while let Some(id) = at.take() {
        let Some((parent, rowid)) = parents.get(&id) else { break };
        if chain.iter().any(|(c, _)| *c == id) {
            break;
        }
        chain.push((id.clone(), *rowid));
        at = parent.clone();
    }
    chain.reverse();
    for _ in chain.len()..parents.len() {
        diags.add("off-branch-checkpoint", Severity::Info, "checkpoints", Some(file), None);
    }
    let position: BTreeMap<&str, usize> = chain.iter().enumerate().map(|(i, (id, _))| (id.as_str(), i)).collect();

    let rows = db.query("SELECT count(*) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns <> ''", &[tid()])?;
    if let Some(Value::Integer(n)) = rows.collect_all()?.first().and_then(|r| r.first())
        && *n > 0
    {
        diags.add(
            "subgraph-checkpoints",
            Severity::Info,
            "checkpoint_ns other than the root, not read",
            Some(file),
            None,
        );
    }

    // The newest full snapshot of `messages` on the chain.
    let mut list = Vec::new();
    let mut start: Option<&str> = None;
    let lookback = match t.steps_since_snapshot {
        Some(steps) if steps >= chain.len() as i64 => 0,
        Some(steps) => (steps + 1) as usize,
        None => chain.len(),
    };
    for (id, rowid) in chain.iter().rev().take(lookback) {
        let rows = db.query(
            "SELECT type, checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?",
            &[tid(), Value::Text(id.clone())],
        )?;
        let Some(values) = rows.collect_all()?.into_iter().next() else { continue };
        let Some(checkpoint) = decode_value(&values[0], &values[1], file, *rowid, diags) else { continue };
        if let Some(messages) = checkpoint.get("channel_values").and_then(|c| c.get("messages")) {
            let ts = uuid6_ms(id);
            list = entries(messages, *rowid, true, ts, file, diags);
            start = Some(id.as_str());
            break;
        }
    }

    // The `messages` writes from the snapshot on, in LangGraph's order.
    // LangGraph before `task_path` (checkpoint-sqlite < 2.0.?) keyed writes
    // by `(checkpoint_id, task_id, idx)` only: the missing column sorts as ''.
    let writes = sql::table_columns(db, "writes")?;
    if writes.is_empty() {
        return Ok(list);
    }
    let task_path = if writes.contains("task_path") { "task_path" } else { "''" };
    let mut cursor = (start.unwrap_or("").to_string(), String::new(), String::new(), -1i64);
    loop {
        let rows = db.query(
            &format!(
                "SELECT rowid AS trajhost_rowid, checkpoint_id, {task_path} AS task_path, task_id, idx, type, value \
                 FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND channel = 'messages' \
                   AND (checkpoint_id, {task_path}, task_id, idx) > (?, ?, ?, ?) \
                 ORDER BY checkpoint_id, {task_path}, task_id, idx LIMIT {PAGE_ROWS}"
            ),
            &[
                tid(),
                Value::Text(cursor.0.clone()),
                Value::Text(cursor.1.clone()),
                Value::Text(cursor.2.clone()),
                Value::Integer(cursor.3),
            ],
        )?;
        let columns = rows.columns();
        let page = rows.collect_all()?;
        for values in &page {
            let row = Row { columns: &columns, values };
            let checkpoint = row.text("checkpoint_id").unwrap_or("");
            cursor = (
                checkpoint.to_string(),
                row.text("task_path").unwrap_or("").to_string(),
                row.text("task_id").unwrap_or("").to_string(),
                row.int("idx").unwrap_or(0),
            );
            let rowid = row.int("trajhost_rowid").unwrap_or(0);
            let Some(&pos) = position.get(checkpoint) else {
                diags.add("off-branch-write", Severity::Info, "writes", Some(file), Some(rowid as u64));
                continue;
            };
            // Committed by the next checkpoint on the chain (pending writes
            // of the latest: its own time).
            let ts = chain.get(pos + 1).or(chain.get(pos)).and_then(|(id, _)| uuid6_ms(id));
            let Some(value) = decode_value(
                row.get("type").unwrap_or(&Value::Null),
                row.get("value").unwrap_or(&Value::Null),
                file,
                rowid,
                diags,
            ) else {
                continue;
            };
            // `Overwrite(value)` (serialized `{"__overwrite__": value}`)
            // replaces the channel's value instead of going through
            // `add_messages`.
            if let Some(replacement) = overwrite(&value) {
                list = entries(replacement, rowid, false, ts, file, diags);
                diags.add("overwritten-messages", Severity::Info, "Overwrite write", Some(file), Some(rowid as u64));
                continue;
            }
            let written = entries(&value, rowid, false, ts, file, diags);
            messages::reduce(&mut list, written, file, diags);
        }
        if page.len() < PAGE_ROWS as usize {
            return Ok(list);
        }
    }
}

/// The value of a LangGraph `Overwrite` write: the
/// `langgraph.types.Overwrite` object (msgpack extension, its fields
/// `{value, type: "__overwrite__"}`), or the plain `{"__overwrite__": value}`
/// form.
fn overwrite(value: &Json) -> Option<&Json> {
    let Json::Object(map) = value else { return None };
    if map.len() == 1 {
        return map.get(OVERWRITE);
    }
    let fields = match map.get("name").and_then(Json::as_str) {
        Some("Overwrite") => map.get("value")?,
        _ => value,
    };
    (fields.get("type").and_then(Json::as_str) == Some(OVERWRITE)).then(|| fields.get("value")).flatten()
}

/// The key LangGraph serializes an `Overwrite` under.
const OVERWRITE: &str = "__overwrite__";

/// The messages of a channel value (one message or a list).
fn entries(
    value: &Json,
    rowid: i64,
    from_snapshot: bool,
    ts_ms: Option<i64>,
    file: &str,
    diags: &mut Diagnostics,
) -> Vec<Entry> {
    let items: Vec<&Json> = match value {
        Json::Array(items) => items.iter().collect(),
        Json::Null => Vec::new(),
        one => vec![one],
    };
    let mut out = Vec::new();
    for (index, item) in items.into_iter().enumerate() {
        match messages::fields(item) {
            Some(fields) => out.push(Entry { fields, rowid, from_snapshot, ts_ms, index }),
            None => diags.add(
                "malformed-message",
                Severity::Warning,
                "not a LangChain message",
                Some(file),
                Some(rowid as u64),
            ),
        }
    }
    out
}

/// A serialized value by its serializer `type`.
fn decode_value(kind: &Value, value: &Value, file: &str, rowid: i64, diags: &mut Diagnostics) -> Option<Json> {
    let kind = match kind {
        Value::Text(s) => s.as_str(),
        _ => "",
    };
    let bytes: &[u8] = match value {
        Value::Blob(b) => b,
        Value::Text(s) => s.as_bytes(),
        _ => return None,
    };
    match kind {
        "msgpack" => match msgpack::decode(bytes) {
            Ok(v) => Some(v),
            Err(e) => {
                diags.add("malformed-blob", Severity::Error, e.0, Some(file), Some(rowid as u64));
                None
            }
        },
        "json" => serde_json::from_slice(bytes).ok().or_else(|| {
            diags.add("malformed-blob", Severity::Error, "json", Some(file), Some(rowid as u64));
            None
        }),
        "null" | "empty" => None,
        other => {
            diags.add(
                "unsupported-serializer",
                Severity::Warning,
                &messages::type_name(Some(other)),
                Some(file),
                Some(rowid as u64),
            );
            None
        }
    }
}

impl Steps for Reader {
    fn step(&mut self) -> Result<bool, CodecError> {
        if self.writer.release(&mut self.pending) {
            return Ok(true);
        }
        let Some(entry) = self.list.pop_front() else { return Ok(false) };
        let id = entry
            .id()
            .map(str::to_string)
            .unwrap_or_else(|| format!("{}:{}:{}", self.thread, entry.rowid, entry.index));
        let ts = entry.ts_ms.map(rfc3339_utc);
        for made in messages::map(&entry, &id, &self.file, &mut self.diags) {
            self.pending.push_back(
                made.at(ts.clone(), SourceSpan { file: self.file.clone(), offset: entry.rowid as u64, len: 0 }),
            );
        }
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}
