//! `read`: one session as canonical records, streamed in batches.
//!
//! Order: `meta` (from `session_windows`, `schema_meta` and the transcript
//! header entry), then the entries of the session's active branch in order.
//!
//! The active branch is what OpenClaw itself projects into
//! `session_transcript_active_events` (by `active_position`). That table is
//! derived state that OpenClaw rebuilds lazily, so it is used only when
//! `session_transcript_index_state` says it is current (`needs_rebuild = 0`
//! and `indexed_seq` at the last event). Otherwise the branch is recomputed
//! from the `parentId` chain of the last event, with ids from
//! `transcript_event_identities` (`active-branch-recomputed`); without that
//! table every event is read in `seq` order (`active-branch-unknown`).
//! Events off the branch (abandoned by a rewind or fork) are counted
//! (`off-branch-event`), not emitted.
//!
//! Events are fetched with keyset paging, a page at a time; `event_zstd`
//! rows are decompressed (ruzstd, pure Rust) up to `event_utf8_bytes`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::Value as Json;
use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::sqlite::{Database, Value};
use trajhost_codec_sdk::{CodecError, ReadOptions, Severity};

use crate::events::Mapper;
use crate::layout;
use crate::sessions::{self, sqlite_error};
use crate::time::from_epoch_ms;
use crate::{CODEC, HARNESS};
use trajhost_codec_sdk::sql::{self, KeysetPages, Row};

/// Events fetched per query.
const PAGE_ROWS: u32 = 64;
/// Largest decompressed event (OpenClaw's own bound is 4 MiB).
const MAX_EVENT_BYTES: usize = 16 << 20;

/// How the active branch is found.
enum Branch {
    /// `session_transcript_active_events`, by `active_position`.
    Projection,
    /// Events in `seq` order, only these seqs (`None`: all of them).
    Seqs(Option<BTreeSet<i64>>),
}

/// A session being read.
pub struct Reader {
    db: Database,
    /// The database path: `src.file` of every record.
    file: String,
    session: String,
    branch: Branch,
    mapper: Mapper,
    writer: BatchWriter,
    diags: Diagnostics,
    pending: VecDeque<Record>,
    /// The event columns the schema has (the others as `NULL`), qualified
    /// by `e.` and unqualified.
    event_columns: [String; 2],
    /// The events, a page at a time (the cursor: `active_position` or
    /// `seq`).
    pages: KeysetPages,
    /// The seq of the header entry, which `meta` stands for.
    header_seq: Option<i64>,
    done: bool,
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        let parsed = layout::parse_locator(locator)?;
        let session = match parsed.session {
            Some(id) => id,
            None => sessions::inspect(&home, locator)?.native_id,
        };
        let file = parsed.db;
        let db = Database::open(&home, &file).map_err(|e| sqlite_error(&file, e))?;
        let err = |e| sqlite_error(&file, e);
        let sid = || Value::Text(session.clone());
        let mut diags = Diagnostics::new();

        let rows = db
            .query("SELECT rowid AS trajhost_rowid, * FROM session_windows WHERE session_id = ?", &[sid()])
            .map_err(err)?;
        let columns = rows.columns();
        let window = rows
            .collect_all()
            .map_err(err)?
            .into_iter()
            .next()
            .ok_or_else(|| CodecError::NotFound(format!("{file}: no session {session}")))?;
        let window = Row { columns: &columns, values: &window };
        let version = sessions::app_version(&db);

        // Which encodings of an event the schema has: stores written before
        // large events were compressed (and `openclaw doctor` imports of
        // JSONL transcripts) have only `event_json`.
        let present = sql::table_columns(&db, "transcript_events").map_err(err)?;
        if !present.contains("seq") || !(present.contains("event_json") || present.contains("event_zstd")) {
            return Err(CodecError::Malformed(format!("{file}: transcript_events has no seq or event column")));
        }
        let event_columns = |q: &str| {
            ["event_json", "event_zstd", "event_utf8_bytes"]
                .iter()
                .map(|c| sql::column_or_null(&present, q, c))
                .collect::<Vec<_>>()
                .join(", ")
        };
        // The header: the first event, when it is a `session` entry.
        let rows = db
            .query(
                &format!(
                    "SELECT rowid AS trajhost_rowid, seq, {} FROM transcript_events \
                     WHERE session_id = ? ORDER BY seq LIMIT 1",
                    event_columns("")
                ),
                &[sid()],
            )
            .map_err(err)?;
        let columns = rows.columns();
        let first = rows.collect_all().map_err(err)?.into_iter().next();
        let header = first.as_ref().and_then(|values| {
            let row = Row { columns: &columns, values };
            let entry = decode(&row, &file, &mut diags)?;
            (entry.get("type").and_then(Json::as_str) == Some("session")).then(|| (row.int("seq").unwrap_or(0), entry))
        });
        let cwd = header.as_ref().and_then(|(_, h)| h.get("cwd").and_then(Json::as_str)).map(str::to_string);
        let label = node_label(&db, &session);
        let started = window.int("created_at").and_then(from_epoch_ms);
        let meta = Record {
            id: session.clone(),
            body: Body::Meta(Meta {
                schema: SCHEMA.into(),
                harness: HARNESS.into(),
                native_id: session.clone(),
                native_version: version,
                cwd,
                title: label.or_else(|| window.text("display_name").map(str::to_string)),
                git_branch: None,
                started_at: started.clone(),
                parent_session: None,
                parent_call: None,
                codec: Some(CODEC.into()),
            }),
            parent: None,
            ts: started,
            agent: None,
            src: Some(SourceSpan {
                file: file.clone(),
                offset: window.int("trajhost_rowid").unwrap_or(0) as u64,
                len: 0,
            }),
        };

        let branch = branch(&db, &session, &file, present.contains("event_json"), &mut diags).map_err(err)?;
        Ok(Reader {
            db,
            file,
            session,
            branch,
            mapper: Mapper::default(),
            writer: BatchWriter::starting_with(options, &meta),
            diags,
            pending: VecDeque::new(),
            event_columns: [event_columns("e."), event_columns("")],
            pages: KeysetPages::new(PAGE_ROWS),
            header_seq: header.map(|(seq, _)| seq),
            done: false,
        })
    }
}

impl Steps for Reader {
    fn step(&mut self) -> Result<bool, CodecError> {
        if self.writer.release(&mut self.pending) {
            return Ok(true);
        }
        if let Some(values) = self.pages.next_row() {
            self.event(&values);
            return Ok(true);
        }
        if self.pages.is_exhausted() {
            return Ok(false);
        }
        let [qualified, plain] = &self.event_columns;
        let (sql, cursor_column) = match self.branch {
            Branch::Projection => (
                format!(
                    "SELECT a.active_position, e.rowid AS trajhost_rowid, e.seq, {qualified} \
                     FROM session_transcript_active_events a JOIN transcript_events e \
                       ON e.session_id = a.session_id AND e.seq = a.event_seq \
                     WHERE a.session_id = ? AND a.active_position > ? ORDER BY a.active_position LIMIT {PAGE_ROWS}"
                ),
                "active_position",
            ),
            Branch::Seqs(_) => (
                format!(
                    "SELECT rowid AS trajhost_rowid, seq, {plain} FROM transcript_events \
                     WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT {PAGE_ROWS}"
                ),
                "seq",
            ),
        };
        self.pages.fetch(&self.db, &sql, &self.session, cursor_column).map_err(|e| sqlite_error(&self.file, e))?;
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}

impl Reader {
    fn event(&mut self, values: &[Value]) {
        let row = Row { columns: self.pages.columns(), values };
        let seq = row.int("seq").unwrap_or(-1);
        if Some(seq) == self.header_seq {
            return;
        }
        if let Branch::Seqs(Some(on_branch)) = &self.branch
            && !on_branch.contains(&seq)
        {
            self.diags.add("off-branch-event", Severity::Info, "transcript_events", Some(&self.file), Some(seq as u64));
            return;
        }
        let offset = row.int("trajhost_rowid").unwrap_or(0) as u64;
        let Some(entry) = decode(&row, &self.file, &mut self.diags) else { return };
        let ts = entry.get("timestamp").and_then(Json::as_str).map(str::to_string);
        for made in self.mapper.map(&entry, &self.file, offset, &mut self.diags) {
            self.pending.push_back(made.at(ts.clone(), SourceSpan { file: self.file.clone(), offset, len: 0 }));
        }
    }
}

/// The label a user gave the session (`session_nodes`), if any.
fn node_label(db: &Database, session: &str) -> Option<String> {
    let rows = db
        .query(
            "SELECT coalesce(label, display_name) FROM session_nodes WHERE current_session_id = ? LIMIT 1",
            &[Value::Text(session.to_string())],
        )
        .ok()?;
    match rows.collect_all().ok()?.into_iter().next()?.into_iter().next()? {
        Value::Text(s) if !s.is_empty() => Some(s),
        _ => None,
    }
}

/// How to find the active branch (see the module docs).
fn branch(
    db: &Database,
    session: &str,
    file: &str,
    has_event_json: bool,
    diags: &mut Diagnostics,
) -> Result<Branch, trajhost_codec_sdk::sqlite::SqliteError> {
    let sid = || Value::Text(session.to_string());
    let rows = db.query("SELECT max(seq), count(*) FROM transcript_events WHERE session_id = ?", &[sid()])?;
    let all = rows.collect_all()?;
    let (max_seq, events) = match all.first().map(Vec::as_slice) {
        Some([Value::Integer(m), Value::Integer(n)]) => (*m, *n),
        _ => return Ok(Branch::Seqs(None)),
    };
    // The projection, when OpenClaw says it is current.
    let state = db.query(
        "SELECT s.needs_rebuild, s.indexed_seq, s.leaf_event_id, \
           (SELECT count(*) FROM session_transcript_active_events a WHERE a.session_id = s.session_id) AS active \
         FROM session_transcript_index_state s WHERE s.session_id = ?",
        &[sid()],
    );
    let mut leaf = None;
    if let Ok(rows) = state {
        let columns = rows.columns();
        if let Some(values) = rows.collect_all()?.into_iter().next() {
            let row = Row { columns: &columns, values: &values };
            let current = row.int("needs_rebuild") == Some(0) && row.int("indexed_seq").is_some_and(|s| s >= max_seq);
            let active = row.int("active").unwrap_or(0);
            if current && active > 0 {
                // Everything not on the branch except the header.
                let off = events - active - 1;
                for _ in 0..off.max(0) {
                    diags.add("off-branch-event", Severity::Info, "transcript_events", Some(file), None);
                }
                return Ok(Branch::Projection);
            }
            if current {
                leaf = row.text("leaf_event_id").map(str::to_string);
            }
        }
    }
    // Recompute from the parentId chain: the identities OpenClaw keeps, else
    // (older stores) the entries' own `id` / `parentId`.
    let identities = sql::table_columns(db, "transcript_event_identities")?;
    let query = if ["seq", "event_id", "parent_id"].iter().all(|c| identities.contains(*c)) {
        "SELECT seq, event_id, parent_id FROM transcript_event_identities WHERE session_id = ?"
    } else if has_event_json {
        "SELECT seq, json_extract(event_json, '$.id') AS event_id, json_extract(event_json, '$.parentId') AS parent_id \
         FROM transcript_events WHERE session_id = ? AND json_valid(event_json) \
           AND json_extract(event_json, '$.type') <> 'session'"
    } else {
        diags.add("active-branch-unknown", Severity::Warning, "no transcript_event_identities", Some(file), None);
        return Ok(Branch::Seqs(None));
    };
    let Ok(rows) = db.query(query, &[sid()]) else {
        diags.add("active-branch-unknown", Severity::Warning, "transcript_event_identities", Some(file), None);
        return Ok(Branch::Seqs(None));
    };
    let columns = rows.columns();
    let mut parents: BTreeMap<String, (i64, Option<String>)> = BTreeMap::new();
    let mut last: Option<(i64, String)> = None;
    for values in rows.collect_all()? {
        let row = Row { columns: &columns, values: &values };
        let (Some(seq), Some(id)) = (row.int("seq"), row.text("event_id")) else { continue };
        if last.as_ref().is_none_or(|(s, _)| seq > *s) {
            last = Some((seq, id.to_string()));
        }
        parents.insert(id.to_string(), (seq, row.text("parent_id").map(str::to_string)));
    }
    if last.as_ref().map(|(s, _)| *s) != Some(max_seq) {
        diags.add(
            "active-branch-unknown",
            Severity::Warning,
            "transcript_event_identities incomplete",
            Some(file),
            None,
        );
        return Ok(Branch::Seqs(None));
    }
    // Several parentless entries besides the header are a forest (a writer
    // that kept no tree, e.g. an import of such a transcript): no branch is
    // the conversation, so every event is.
    let roots =
        parents.iter().filter(|(id, (_, parent))| parent.as_deref().is_none_or(|p| p == session) && *id != session);
    if roots.count() > 1 {
        diags.add("several-roots", Severity::Info, "parentId", Some(file), None);
        return Ok(Branch::Seqs(None));
    }
    let mut id = leaf.filter(|l| parents.contains_key(l)).or(last.map(|(_, id)| id));
    let mut on_branch = BTreeSet::new();
    while let Some(current) = id.take() {
        let Some((seq, parent)) = parents.get(&current) else { break };
        if !on_branch.insert(*seq) {
            break; // a cycle
        }
        id = parent.clone();
    }
    diags.add(
        "active-branch-recomputed",
        Severity::Info,
        "session_transcript_active_events not current",
        Some(file),
        None,
    );
    Ok(Branch::Seqs(Some(on_branch)))
}

/// The entry of an event row: `event_json`, else `event_zstd` decompressed.
fn decode(row: &Row<'_>, file: &str, diags: &mut Diagnostics) -> Option<Json> {
    let offset = row.int("trajhost_rowid").map(|r| r as u64);
    let parsed = if let Some(json) = row.text("event_json") {
        serde_json::from_str(json)
    } else if let Some(Value::Blob(zstd)) = row.get("event_zstd") {
        let expected = row.int("event_utf8_bytes").unwrap_or(0).clamp(0, MAX_EVENT_BYTES as i64) as usize;
        let mut out =
            Vec::with_capacity(if expected > 0 { expected } else { MAX_EVENT_BYTES.min(zstd.len() * 64 + 1024) });
        if ruzstd::decoding::FrameDecoder::new().decode_all_to_vec(zstd, &mut out).is_err() {
            diags.add("malformed-event", Severity::Error, "event_zstd", Some(file), offset);
            return None;
        }
        serde_json::from_slice(&out)
    } else {
        diags.add("malformed-event", Severity::Error, "no event_json or event_zstd", Some(file), offset);
        return None;
    };
    match parsed {
        Ok(entry @ Json::Object(_)) => Some(entry),
        _ => {
            diags.add("malformed-event", Severity::Error, "event is not a JSON object", Some(file), offset);
            None
        }
    }
}
