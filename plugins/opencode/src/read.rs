//! `read`: one session as canonical records, streamed in batches.
//!
//! Order: the `meta` (from the `session` row), then the session's messages
//! by id (OpenCode's ids sort by creation time), each with its parts by id.
//! Messages are paged from the host; the parts of one message are fetched
//! when it is reached, so memory is bounded by one message and its parts.
//! Diagnostics are aggregated and go out with the last batch.
//!
//! Mapping:
//!
//! | native | canonical |
//! |---|---|
//! | `message` role `user`: `text` parts | `user` (text parts joined by `\n`, ignored parts left out); `file` parts → attachments |
//! | `text` part with `synthetic: true` (either role) | `system` (text the harness added) |
//! | `message` role `assistant` | per model step, in part order (`trajhost_opencode_core::step::steps`: call → result → answer): `reasoning` per `reasoning` part, one `assistant` (text parts joined, `modelID`, usage from `tokens`/`cost` — a step of several from its `step-finish` — and `finish`), a `tool_call` per `tool` part (`callID`, `tool`, `state.input`), then the `tool_result`s (`state.output`, or `state.error`), then the step's other parts |
//! | `part` `compaction` + the next assistant message with `summary: true` | `compaction` (summary = that message's text) |
//! | `subtask`, `agent`, `retry`, `patch`, assistant `file` parts, `error` of a message | `observation` |
//! | `step-start`, `snapshot` | counted (`unmapped-record-type`) |
//!
//! `ok` of a tool result: `false` for `status: error` or a completed call
//! whose `metadata.exit` is a non-zero exit code, `true` for other completed
//! calls; none for calls without a result (`pending`/`running`, reported).
//! Usage is `None` when the message has no `tokens`; `input` is OpenCode's
//! `tokens.input`, which excludes cache reads and writes.
//!
//! Ids: a message's record has the message id (`msg_…`), a part's record the
//! part id (`prt_…`), a tool result `<part id>#result`, the `assistant`
//! record of a message's later step `<its step-start part id>#step`. `src` of a record
//! read from SQLite: `file` = the database path, `offset` = the row's
//! `rowid` (of the message or part row; the session row for `meta`),
//! `len` = 0 (a row has no byte span). Read from an import document
//! (`prepare`'s output): `file` = the document's path, `offset` = the
//! message's index (a part's running index), `len` = 0.

use std::collections::VecDeque;

use serde_json::Value;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Reasoning, Record, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::json::str_of;
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::sqlite::{Database, Rows, Value as Sql};
use trajhost_codec_sdk::{CodecError, ReadOptions, Severity};
use trajhost_opencode_core::message;
use trajhost_opencode_core::part::{self, ToolOutcome};
use trajhost_opencode_core::session;
use trajhost_opencode_core::step;

use crate::layout;
use crate::store::{self, Session, sqlite_error};
use crate::time::rfc3339_utc;
use crate::{CODEC, Handling, handling};
use trajhost_codec_sdk::sql::Row;

/// Messages fetched per page.
const PAGE: u32 = 64;

/// Where the messages come from (one per reader: the size difference does not matter).
#[allow(clippy::large_enum_variant)]
enum Source {
    /// The store: messages paged from the host, parts per message.
    Db {
        db: Database,
        schema: store::Schema,
        messages: Rows,
        columns: Vec<String>,
        page: VecDeque<Vec<Sql>>,
        done: bool,
    },
    /// An import document (`prepare`'s output, not yet imported): its messages
    /// with their parts; `src.offset` is the message's (part's) index.
    Doc(VecDeque<DocMessage>),
}

/// (index, id, created, info, parts as (index, id, data)).
type DocMessage = (i64, String, Option<i64>, Value, Vec<(i64, String, Value)>);

/// A session being read.
pub struct Reader {
    source: Source,
    path: String,
    writer: BatchWriter,
    diags: Diagnostics,
    /// A `compaction` part whose summary message is next: (part id, rowid, trigger).
    compaction: Option<(String, i64, Option<String>)>,
    done: bool,
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        if layout::import_locator(locator).is_some() || layout::is_loose_document(locator) {
            let doc = crate::discover::import_document(&home, locator)?;
            let session = crate::discover::import_session(&doc);
            let mut messages = VecDeque::new();
            let mut part_index = 0i64;
            for (i, m) in doc["messages"].as_array().into_iter().flatten().enumerate() {
                let info = m.get("info").cloned().unwrap_or(Value::Null);
                let id = info.get("id").and_then(Value::as_str).unwrap_or("").to_string();
                let created = info.pointer("/time/created").and_then(Value::as_i64);
                let mut parts = Vec::new();
                for p in m.get("parts").and_then(Value::as_array).into_iter().flatten() {
                    parts.push((part_index, p.get("id").and_then(Value::as_str).unwrap_or("").to_string(), p.clone()));
                    part_index += 1;
                }
                messages.push_back((i as i64, id, created, info, parts));
            }
            return Ok(Reader {
                source: Source::Doc(messages),
                path: locator.to_string(),
                writer: BatchWriter::starting_with(options, &meta(locator, &session)),
                diags: Diagnostics::new(),
                compaction: None,
                done: false,
            });
        }
        let (path, id) = layout::parse_locator(locator)?;
        let db = Database::open(&home, path).map_err(|e| sqlite_error(path, e))?;
        let schema = store::check(&db, path)?;
        let session = store::resolve(&db, path, &schema, id)?;
        let sql = format!(
            "SELECT rowid AS row_id, id, {}, data FROM message WHERE session_id = ? ORDER BY id",
            schema.message_column("time_created")
        );
        let messages = db.query(&sql, &[Sql::Text(session.id.clone())]).map_err(|e| sqlite_error(path, e))?;
        let columns = messages.columns();
        let mut diags = Diagnostics::new();
        schema.note(&mut diags, path);
        Ok(Reader {
            source: Source::Db { db, schema, messages, columns, page: VecDeque::new(), done: false },
            path: path.to_string(),
            writer: BatchWriter::starting_with(options, &meta(path, &session)),
            diags,
            compaction: None,
            done: false,
        })
    }
}

impl Steps for Reader {
    fn step(&mut self) -> Result<bool, CodecError> {
        let (messages, columns, page, done) = match &mut self.source {
            Source::Doc(queue) => {
                let Some((index, id, created, data, parts)) = queue.pop_front() else {
                    return Ok(false);
                };
                self.message(&id, index, created, &data, &parts);
                return Ok(true);
            }
            Source::Db { messages, columns, page, done, .. } => (messages, columns, page, done),
        };
        if page.is_empty() {
            if *done {
                return Ok(false);
            }
            let next = messages.next_page(PAGE).map_err(|e| sqlite_error(&self.path, e))?;
            *done = next.done;
            page.extend(next.rows);
            if page.is_empty() {
                return Ok(false);
            }
        }
        let values = page.pop_front().unwrap_or_default();
        let row = Row { columns, values: &values };
        let (rowid, id) = (row.int("row_id").unwrap_or(0), row.text("id").unwrap_or("").to_string());
        let created = row.int("time_created");
        let data: Value = match row.text("data").map(serde_json::from_str) {
            Some(Ok(v)) => v,
            _ => {
                self.diags.add("malformed-row", Severity::Error, "message.data", Some(&self.path), Some(rowid as u64));
                return Ok(true);
            }
        };
        let parts = self.parts(&id)?;
        self.message(&id, rowid, created, &data, &parts);
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}

impl Reader {
    /// The parts of one message: (rowid, id, data).
    fn parts(&mut self, message: &str) -> Result<Vec<(i64, String, Value)>, CodecError> {
        let Source::Db { db, schema, .. } = &self.source else {
            return Ok(Vec::new());
        };
        if !schema.has_parts() {
            return Ok(Vec::new());
        }
        // Without part ids, the row order is the order of writing.
        let (id, order) =
            if schema.part_column("id") == "id" { ("id", "id") } else { ("('part-' || rowid) AS id", "rowid") };
        let sql = format!("SELECT rowid AS row_id, {id}, data FROM part WHERE message_id = ? ORDER BY {order}");
        let rows = db.query(&sql, &[Sql::Text(message.into())]).map_err(|e| sqlite_error(&self.path, e))?;
        let columns = rows.columns();
        let mut parts = Vec::new();
        for values in rows.collect_all().map_err(|e| sqlite_error(&self.path, e))? {
            let row = Row { columns: &columns, values: &values };
            let rowid = row.int("row_id").unwrap_or(0);
            match row.text("data").map(serde_json::from_str::<Value>) {
                Some(Ok(v)) => parts.push((rowid, row.text("id").unwrap_or("").to_string(), v)),
                _ => {
                    self.diags.add("malformed-row", Severity::Error, "part.data", Some(&self.path), Some(rowid as u64))
                }
            }
        }
        Ok(parts)
    }

    fn src(&self, rowid: i64) -> Option<SourceSpan> {
        Some(SourceSpan { file: self.path.clone(), offset: rowid.max(0) as u64, len: 0 })
    }

    fn push(&mut self, id: String, body: Body, parent: Option<String>, ts: Option<String>, rowid: i64) {
        let record = Record { id, body, parent, ts, agent: None, src: self.src(rowid) };
        self.writer.push(&record);
    }

    /// Counts a record type, or reports it unknown; true when it is mapped.
    fn known(&mut self, kind: &str, rowid: i64) -> bool {
        match handling(kind) {
            Some(Handling::Mapped(_)) => true,
            Some(Handling::Reported) => {
                self.diags.add("unmapped-record-type", Severity::Info, kind, Some(&self.path), Some(rowid as u64));
                false
            }
            None => {
                let detail = crate::type_name(kind);
                self.diags.add("unknown-record-type", Severity::Warning, &detail, Some(&self.path), Some(rowid as u64));
                false
            }
        }
    }

    fn message(&mut self, id: &str, rowid: i64, created: Option<i64>, data: &Value, parts: &[(i64, String, Value)]) {
        let role = str_of(data, "role").unwrap_or("");
        let created = data.pointer("/time/created").and_then(Value::as_i64).or(created);
        let ts = created.map(rfc3339_utc);
        if !self.known(&format!("message/{role}"), rowid) {
            return;
        }
        let parent = str_of(data, "parentID").map(str::to_string);
        if role == "user" {
            let mut texts = Vec::new();
            let mut attachments = Vec::new();
            let mut injected = Vec::new();
            for (prowid, pid, part) in parts {
                let kind = str_of(part, "type").unwrap_or("");
                if !self.known(&format!("part/{kind}"), *prowid) {
                    continue;
                }
                match kind {
                    "text" if part::is_synthetic(part) => injected.push((pid, part, *prowid)),
                    "text" if !part::is_ignored(part) => texts.push(str_of(part, "text").unwrap_or("").to_string()),
                    "file" => attachments
                        .push(Attachment { kind: "file".into(), media_type: str_of(part, "mime").map(str::to_string) }),
                    "compaction" => {
                        self.compaction = Some((pid.clone(), *prowid, part::compaction_trigger(part)));
                    }
                    _ => self.observation_part(kind, pid, part, id, ts.clone(), *prowid),
                }
            }
            if !texts.is_empty() || !attachments.is_empty() {
                self.push(id.to_string(), Body::User { text: texts.join("\n"), attachments }, None, ts.clone(), rowid);
            }
            self.injected(&injected, id, ts);
            return;
        }
        // assistant
        if message::is_summary(data) {
            let trigger = self.compaction.take().and_then(|(_, _, trigger)| trigger);
            let summary = message::summary_text(parts.iter().map(|(_, _, p)| p));
            self.push(id.to_string(), Body::Compaction { summary, trigger }, parent, ts, rowid);
            return;
        }
        if let Some((pid, prowid, trigger)) = self.compaction.take() {
            // A compaction request whose summary never came.
            let body = Body::Observation { subtype: "compaction".into(), text: trigger };
            self.push(pid, body, None, ts.clone(), prowid);
        }
        // The model steps of the message, in part order (call → result →
        // answer): each its own `reasoning* assistant tool_call* tool_result*` run.
        let ranges = step::steps(parts.iter().map(|(_, _, p)| str_of(p, "type").unwrap_or("")));
        let last = ranges.len().saturating_sub(1);
        let mut first = true;
        for (n, range) in ranges.iter().enumerate() {
            let step = &parts[range.clone()];
            let with_content = step
                .iter()
                .any(|(_, _, p)| !matches!(str_of(p, "type").unwrap_or(""), "step-start" | "step-finish" | "snapshot"));
            // A message of empty steps only still gives its one record.
            let keep = with_content || (first && n == last);
            if !keep {
                // An empty step (markers only) is counted, not a record.
                for (prowid, _, part) in step {
                    self.known(&format!("part/{}", str_of(part, "type").unwrap_or("")), *prowid);
                }
                continue;
            }
            let single = ranges.len() == 1;
            let facts = if first {
                StepFacts {
                    id: id.to_string(),
                    parent: parent.clone(),
                    rowid,
                    ts: ts.clone(),
                    last: single,
                    only: single,
                }
            } else {
                // A later step: the record of its step-start part (else its first part).
                let (marker_rowid, marker_id, _) = &step[0];
                let sts = step
                    .iter()
                    .find_map(|(_, _, p)| {
                        p.pointer("/time/start").or_else(|| p.pointer("/state/time/start")).and_then(Value::as_i64)
                    })
                    .map(rfc3339_utc)
                    .or(ts.clone());
                StepFacts {
                    id: format!("{marker_id}#step"),
                    parent: Some(id.to_string()),
                    rowid: *marker_rowid,
                    ts: sts,
                    last: n == last,
                    only: false,
                }
            };
            self.step(id, data, step, facts);
            first = false;
        }
        if ranges.is_empty() {
            let facts = StepFacts { id: id.to_string(), parent, rowid, ts: ts.clone(), last: true, only: true };
            self.step(id, data, &[], facts);
        }
        if let Some(text) = message::error_text(data) {
            self.push(
                format!("{id}#error"),
                Body::Observation { subtype: "error".into(), text: Some(text) },
                Some(id.to_string()),
                ts,
                rowid,
            );
        }
    }

    /// One model step of an assistant message: its reasoning, its
    /// `assistant` record (text, model, usage of its `step-finish`), its
    /// calls, their results, then its other parts.
    fn step(&mut self, mid: &str, data: &Value, parts: &[(i64, String, Value)], facts: StepFacts) {
        let ts = facts.ts.clone();
        let mut texts = Vec::new();
        let mut calls = Vec::new();
        let mut results = Vec::new();
        let mut injected = Vec::new();
        let mut later = Vec::new();
        let mut step_finish: Option<&Value> = None;
        for (prowid, pid, part) in parts {
            let kind = str_of(part, "type").unwrap_or("");
            if !self.known(&format!("part/{kind}"), *prowid) {
                continue;
            }
            let pts = part.pointer("/time/start").and_then(Value::as_i64).map(rfc3339_utc).or(ts.clone());
            match kind {
                "text" if part::is_synthetic(part) => injected.push((pid, part, *prowid)),
                "text" if part::is_ignored(part) => self.diags.add(
                    "ignored-text-part",
                    Severity::Info,
                    "part/text",
                    Some(&self.path),
                    Some(*prowid as u64),
                ),
                "text" => texts.push(str_of(part, "text").unwrap_or("").to_string()),
                "reasoning" => {
                    let body = Body::Reasoning(Reasoning {
                        text: str_of(part, "text").map(str::to_string),
                        opaque: None,
                        encrypted: false,
                    });
                    self.push(pid.clone(), body, Some(mid.to_string()), pts, *prowid);
                }
                "step-finish" => {
                    if step_finish.is_none() {
                        step_finish = Some(part);
                    }
                }
                "tool" => {
                    let state = part.get("state").unwrap_or(&Value::Null);
                    let call_id = str_of(part, "callID").unwrap_or(pid).to_string();
                    let arguments = part::tool_arguments(state);
                    let name = str_of(part, "tool").unwrap_or("").to_string();
                    calls.push((
                        pid.clone(),
                        Body::ToolCall { call_id: call_id.clone(), name: name.clone(), arguments },
                        pts.clone(),
                        *prowid,
                    ));
                    let end = state.pointer("/time/end").and_then(Value::as_i64).map(rfc3339_utc).or(pts);
                    match part::tool_outcome(state) {
                        ToolOutcome::Result { content, ok, truncated } => {
                            if truncated {
                                let detail = format!("tool/{}", crate::type_name(&name));
                                self.diags.add(
                                    "tool-output-truncated",
                                    Severity::Info,
                                    &detail,
                                    Some(&self.path),
                                    Some(*prowid as u64),
                                );
                            }
                            results.push((
                                format!("{pid}#result"),
                                Body::ToolResult { call_id, content, ok },
                                end,
                                *prowid,
                            ));
                        }
                        ToolOutcome::Unfinished(status) => {
                            let detail = format!("tool-state/{}", crate::type_name(status.unwrap_or("<missing>")));
                            self.diags.add(
                                "unfinished-tool-call",
                                Severity::Info,
                                &detail,
                                Some(&self.path),
                                Some(*prowid as u64),
                            );
                        }
                    }
                }
                _ => later.push((kind, pid, part, pts, *prowid)),
            }
        }
        let (stop_reason, usage) = message::step_stop_and_usage(data, step_finish, facts.last, facts.only);
        let assistant = Assistant {
            text: texts.join("\n"),
            model: str_of(data, "modelID").map(str::to_string),
            message_id: Some(mid.to_string()),
            stop_reason,
            usage,
        };
        let sid = facts.id;
        self.push(sid.clone(), Body::Assistant(assistant), facts.parent, ts.clone(), facts.rowid);
        for (cid, body, cts, prowid) in calls {
            self.push(cid, body, Some(sid.clone()), cts, prowid);
        }
        for (rid, body, rts, prowid) in results {
            self.push(rid, body, Some(sid.clone()), rts, prowid);
        }
        for (kind, pid, part, pts, prowid) in later {
            self.observation_part(kind, pid, part, mid, pts, prowid);
        }
        self.injected(&injected, mid, ts);
    }

    /// Synthetic text parts: text the harness added (a file it read for the
    /// prompt, a continuation after a compaction), neither the person's nor
    /// the model's.
    fn injected(&mut self, parts: &[(&String, &Value, i64)], message: &str, ts: Option<String>) {
        for (pid, part, prowid) in parts {
            let body = Body::System { text: str_of(part, "text").unwrap_or("").to_string() };
            self.push(pid.to_string(), body, Some(message.to_string()), ts.clone(), *prowid);
        }
    }

    /// `subtask`, `agent`, `retry`, `patch` and assistant `file` parts.
    fn observation_part(&mut self, kind: &str, pid: &str, part: &Value, message: &str, ts: Option<String>, rowid: i64) {
        let text = match kind {
            // Text parts of user messages marked `ignored`.
            "text" => {
                self.diags.add("ignored-text-part", Severity::Info, "part/text", Some(&self.path), Some(rowid as u64));
                return;
            }
            _ => part::observation_text(kind, part),
        };
        self.push(
            pid.to_string(),
            Body::Observation { subtype: kind.to_string(), text },
            Some(message.to_string()),
            ts,
            rowid,
        );
    }
}

/// Where one model step's `assistant` record goes.
struct StepFacts {
    id: String,
    parent: Option<String>,
    /// The row its `src` names: the message's, or a later step's marker part.
    rowid: i64,
    ts: Option<String>,
    /// The message's last step (its `finish` and usage are the message's).
    last: bool,
    /// The message's only step.
    only: bool,
}

fn meta(path: &str, session: &Session) -> Record {
    let info = session::Info {
        id: session.id.clone(),
        version: session.version.clone(),
        cwd: session.directory.clone(),
        title: session.title.clone(),
        parent: session.parent.clone(),
        started: session.created.map(rfc3339_utc),
    };
    session::meta_of(
        crate::HARNESS,
        CODEC,
        info,
        SourceSpan { file: path.to_string(), offset: session.rowid.max(0) as u64, len: 0 },
    )
}
