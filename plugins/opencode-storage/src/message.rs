//! Messages and their parts → canonical records (the mapping of the
//! `opencode` codec, over files instead of rows).
//!
//! | native | canonical |
//! |---|---|
//! | `message` role `user`: `text` parts | `user` (text parts joined by `\n`; `ignored` parts left out); `file` parts → attachments |
//! | `text` part with `synthetic: true` | `system` (text the harness added, not the person's or the model's) |
//! | `message` role `assistant` | per model step, in part order ([`step::steps`]): `reasoning` per `reasoning` part, one `assistant` (text parts joined, `modelID`, usage from `tokens`/`cost`, `finish`), a `tool_call` per `tool` part (`callID`, `tool`, `state.input`), then the `tool_result`s (`state.output`, or `state.error`) |
//! | `compaction` part + the next assistant message with `summary: true` | `compaction` (summary = that message's text) |
//! | `subtask`, `agent`, `retry`, `patch`, assistant `file` parts, a message's `error` | `observation` |
//! | `step-start`, `snapshot` | counted (`unmapped-record-type`) |
//!
//! A message of one step is one such run, with the message's usage and
//! `finish`. A message of several (0.5.29 writes one per turn: `step-start,
//! tool, step-finish, step-start, text, step-finish`) is one run per step, so
//! the answer comes after the result it read: the first step's `assistant`
//! has the message's id, a later one `<its step-start part id>#step`, each
//! with its `step-finish`'s usage and reason (the last step falls back to the
//! message's), all with the message's id as `message_id`. Steps without
//! anything but their markers give no record.
//!
//! `ok` of a tool result: `false` for `status: error` or a completed call
//! whose `metadata.exit` is non-zero, `true` for other completed calls; none
//! for `pending`/`running` calls (reported). Ids: the message's and part's
//! ids (content, else file name); one seen before in the session gets its
//! file's location. Every record's `src` is the whole file it came from.

use std::collections::BTreeSet;

use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Reasoning, Record, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::json::str_of;
use trajhost_codec_sdk::records::{BatchWriter, location_id};
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_opencode_core::message::{self, error_text, is_summary, summary_text};
use trajhost_opencode_core::part::{self, ToolOutcome};
use trajhost_opencode_core::step;

use crate::{Handling, handling, type_name};

/// What one step's `assistant` record takes from where.
struct StepFacts {
    id: String,
    parent: Option<String>,
    src: SourceSpan,
    ts: Option<String>,
    /// The message's last step: the message's `tokens`/`cost` and `finish`
    /// stand in for what its `step-finish` lacks.
    last: bool,
    /// The message's only step: its facts are the message's (`tokens`,
    /// `cost`, `finish`; else the `step-finish`'s).
    only: bool,
}

/// One file of the tree, parsed.
#[derive(Debug, Clone)]
pub struct Item {
    /// The file, relative to the home.
    pub path: String,
    pub len: u64,
    /// The content's id, else the file name's.
    pub id: String,
    pub stem: String,
    pub value: Value,
}

impl Item {
    fn src(&self) -> SourceSpan {
        SourceSpan { file: self.path.clone(), offset: 0, len: self.len }
    }
}

/// The mapping state of one session.
#[derive(Default)]
pub struct Mapper {
    emitted: BTreeSet<String>,
    /// A `compaction` part whose summary message is next: (id, its file, trigger).
    compaction: Option<(String, SourceSpan, Option<String>)>,
    pub diags: Diagnostics,
}

impl Mapper {
    /// A record id not used before in the session.
    fn id(&mut self, wanted: &str, file: &str) -> String {
        let id = if wanted.is_empty() || self.emitted.contains(wanted) {
            location_id(file, 0, 0)
        } else {
            wanted.to_string()
        };
        self.emitted.insert(id.clone());
        id
    }

    fn push(
        &mut self,
        out: &mut BatchWriter,
        id: String,
        body: Body,
        parent: Option<String>,
        ts: Option<String>,
        src: SourceSpan,
    ) {
        out.push(&Record { id, body, parent, ts, agent: None, src: Some(src) });
    }

    /// Counts a type, or reports it unknown; true when it is mapped.
    fn known(&mut self, kind: &str, file: &str) -> bool {
        match handling(kind) {
            Some(Handling::Mapped(_)) => true,
            Some(Handling::Reported) => {
                self.diags.add("unmapped-record-type", Severity::Info, kind, Some(file), None);
                false
            }
            None => {
                let detail = type_name(kind);
                self.diags.add("unknown-record-type", Severity::Warning, &detail, Some(file), None);
                false
            }
        }
    }

    /// One message and its parts (in order).
    pub fn message(&mut self, out: &mut BatchWriter, message: &Item, parts: &[Item]) {
        let data = &message.value;
        let role = str_of(data, "role").unwrap_or("");
        let ts = crate::info::time(data, "created").map(rfc3339_ms);
        if !self.known(&format!("message/{role}"), &message.path) {
            return;
        }
        let mid = self.id(&message.id, &message.path);
        let parent = str_of(data, "parentID").map(str::to_string);
        if role == "user" {
            self.user(out, message, &mid, parts, ts);
            return;
        }
        if is_summary(data) {
            let trigger = self.compaction.take().and_then(|(_, _, trigger)| trigger);
            let body = Body::Compaction { summary: summary_text(parts.iter().map(|p| &p.value)), trigger };
            self.push(out, mid, body, parent, ts, message.src());
            return;
        }
        if let Some((pid, src, trigger)) = self.compaction.take() {
            // A compaction request whose summary never came.
            self.push(
                out,
                pid,
                Body::Observation { subtype: "compaction".into(), text: trigger },
                None,
                ts.clone(),
                src,
            );
        }
        self.assistant(out, message, &mid, parent, parts, ts);
    }

    fn user(&mut self, out: &mut BatchWriter, message: &Item, mid: &str, parts: &[Item], ts: Option<String>) {
        let mut texts = Vec::new();
        let mut attachments = Vec::new();
        let mut later = Vec::new();
        for part in parts {
            let kind = str_of(&part.value, "type").unwrap_or("");
            if !self.known(&format!("part/{kind}"), &part.path) {
                continue;
            }
            match kind {
                "text" if part::is_synthetic(&part.value) => later.push(part),
                "text" if part::is_ignored(&part.value) => {
                    self.diags.add("ignored-text-part", Severity::Info, "part/text", Some(&part.path), None)
                }
                "text" => texts.push(str_of(&part.value, "text").unwrap_or("").to_string()),
                "file" => attachments.push(Attachment {
                    kind: "file".into(),
                    media_type: str_of(&part.value, "mime").map(str::to_string),
                }),
                "compaction" => {
                    let trigger = part::compaction_trigger(&part.value);
                    let pid = self.id(&part.id, &part.path);
                    self.compaction = Some((pid, part.src(), trigger));
                }
                _ => later.push(part),
            }
        }
        if !texts.is_empty() || !attachments.is_empty() {
            // The message's record points at its first text part, where the prompt is.
            let src = parts
                .iter()
                .find(|p| str_of(&p.value, "type") == Some("text") && !part::is_synthetic(&p.value))
                .map(Item::src)
                .unwrap_or_else(|| message.src());
            self.push(out, mid.to_string(), Body::User { text: texts.join("\n"), attachments }, None, ts.clone(), src);
        }
        for part in later {
            let kind = str_of(&part.value, "type").unwrap_or("").to_string();
            self.other_part(out, &kind, part, mid, ts.clone());
        }
    }

    /// An assistant message: its model steps in order ([`step::steps`]), each
    /// as `reasoning* assistant tool_call* tool_result*` and its other parts.
    fn assistant(
        &mut self,
        out: &mut BatchWriter,
        message: &Item,
        mid: &str,
        parent: Option<String>,
        parts: &[Item],
        ts: Option<String>,
    ) {
        let data = &message.value;
        let ranges = step::steps(parts.iter().map(|p| str_of(&p.value, "type").unwrap_or("")));
        let last = ranges.len().saturating_sub(1);
        let mut first = true;
        for (n, range) in ranges.iter().enumerate() {
            let step = &parts[range.clone()];
            let with_content = step
                .iter()
                .any(|p| !matches!(str_of(&p.value, "type").unwrap_or(""), "step-start" | "step-finish" | "snapshot"));
            // A message of empty steps only still gives its one record.
            let keep = with_content || (first && n == last);
            if !keep {
                // An empty step (markers only) is counted, not a record.
                for part in step {
                    let kind = str_of(&part.value, "type").unwrap_or("");
                    self.known(&format!("part/{kind}"), &part.path);
                }
                continue;
            }
            let single = ranges.len() == 1;
            let (id, parent, src, step_ts) = if first {
                (mid.to_string(), parent.clone(), message.src(), ts.clone())
            } else {
                // A later step: the record of its step-start part (else its first part).
                let marker = &step[0];
                let sts = step
                    .iter()
                    .find_map(|p| {
                        p.value
                            .pointer("/time/start")
                            .or_else(|| p.value.pointer("/state/time/start"))
                            .and_then(Value::as_i64)
                    })
                    .map(rfc3339_ms)
                    .or(ts.clone());
                let id = self.id(&format!("{}#step", marker.id), &format!("{}#step", marker.path));
                (id, Some(mid.to_string()), marker.src(), sts)
            };
            let facts = StepFacts { id, parent, src, ts: step_ts, last: single || n == last, only: single };
            self.step(out, message, mid, step, facts);
            first = false;
        }
        if ranges.is_empty() {
            let facts =
                StepFacts { id: mid.to_string(), parent, src: message.src(), ts: ts.clone(), last: true, only: true };
            self.step(out, message, mid, &[], facts);
        }
        if let Some(text) = error_text(data) {
            let eid = self.id(&format!("{mid}#error"), &format!("{}#error", message.path));
            let body = Body::Observation { subtype: "error".into(), text: Some(text) };
            self.push(out, eid, body, Some(mid.to_string()), ts, message.src());
        }
    }

    /// One model step of an assistant message.
    fn step(&mut self, out: &mut BatchWriter, message: &Item, mid: &str, parts: &[Item], facts: StepFacts) {
        let data = &message.value;
        let ts = facts.ts.clone();
        let mut texts = Vec::new();
        let mut calls = Vec::new();
        let mut results = Vec::new();
        let mut later = Vec::new();
        let mut step_finish: Option<&Value> = None;
        for part in parts {
            let kind = str_of(&part.value, "type").unwrap_or("");
            if !self.known(&format!("part/{kind}"), &part.path) {
                continue;
            }
            let pts = part.value.pointer("/time/start").and_then(Value::as_i64).map(rfc3339_ms).or(ts.clone());
            match kind {
                "text" if part::is_synthetic(&part.value) => later.push(part),
                "text" if part::is_ignored(&part.value) => {
                    self.diags.add("ignored-text-part", Severity::Info, "part/text", Some(&part.path), None)
                }
                "text" => texts.push(str_of(&part.value, "text").unwrap_or("").to_string()),
                "reasoning" => {
                    let pid = self.id(&part.id, &part.path);
                    let text = str_of(&part.value, "text").map(str::to_string);
                    let body = Body::Reasoning(Reasoning { text, opaque: None, encrypted: false });
                    self.push(out, pid, body, Some(mid.to_string()), pts, part.src());
                }
                "step-finish" => {
                    if step_finish.is_none() {
                        step_finish = Some(&part.value);
                    }
                }
                "tool" => {
                    let pid = self.id(&part.id, &part.path);
                    let state = part.value.get("state").unwrap_or(&Value::Null);
                    let call_id = str_of(&part.value, "callID").unwrap_or(&pid).to_string();
                    let arguments = part::tool_arguments(state);
                    let name = str_of(&part.value, "tool").unwrap_or("").to_string();
                    let end = state.pointer("/time/end").and_then(Value::as_i64).map(rfc3339_ms).or(pts.clone());
                    let body = Body::ToolCall { call_id: call_id.clone(), name: name.clone(), arguments };
                    calls.push((pid.clone(), body, pts, part.src()));
                    let result = match part::tool_outcome(state) {
                        ToolOutcome::Result { content, ok, truncated } => {
                            if truncated {
                                let detail = format!("tool/{}", type_name(&name));
                                self.diags.add(
                                    "tool-output-truncated",
                                    Severity::Info,
                                    &detail,
                                    Some(&part.path),
                                    None,
                                );
                            }
                            Some((content, ok))
                        }
                        ToolOutcome::Unfinished(status) => {
                            let detail = format!("tool-state/{}", type_name(status.unwrap_or("<missing>")));
                            self.diags.add("unfinished-tool-call", Severity::Info, &detail, Some(&part.path), None);
                            None
                        }
                    };
                    if let Some((content, ok)) = result {
                        let rid = self.id(&format!("{pid}#result"), &format!("{}#result", part.path));
                        results.push((rid, Body::ToolResult { call_id, content, ok }, end, part.src()));
                    }
                }
                _ => later.push(part),
            }
        }
        let (stop_reason, usage) = message::step_stop_and_usage(data, step_finish, facts.last, facts.only);
        let assistant = Assistant {
            text: texts.join("\n"),
            model: str_of(data, "modelID")
                .or_else(|| data.pointer("/model/modelID").and_then(Value::as_str))
                .map(str::to_string),
            message_id: Some(mid.to_string()),
            stop_reason,
            usage,
        };
        let id = facts.id;
        self.push(out, id.clone(), Body::Assistant(assistant), facts.parent, ts.clone(), facts.src);
        for (cid, body, cts, src) in calls {
            self.push(out, cid, body, Some(id.clone()), cts, src);
        }
        for (rid, body, rts, src) in results {
            self.push(out, rid, body, Some(id.clone()), rts, src);
        }
        for part in later {
            let kind = str_of(&part.value, "type").unwrap_or("").to_string();
            let pts = part.value.pointer("/time/start").and_then(Value::as_i64).map(rfc3339_ms).or(ts.clone());
            self.other_part(out, &kind, part, mid, pts);
        }
    }

    /// Synthetic text, `subtask`, `agent`, `retry`, `patch` and assistant `file` parts.
    fn other_part(&mut self, out: &mut BatchWriter, kind: &str, part: &Item, mid: &str, ts: Option<String>) {
        let v = &part.value;
        let pid = self.id(&part.id, &part.path);
        let body = match kind {
            "text" => Body::System { text: str_of(v, "text").unwrap_or("").to_string() },
            _ => Body::Observation { subtype: kind.to_string(), text: part::observation_text(kind, v) },
        };
        self.push(out, pid, body, Some(mid.to_string()), ts, part.src());
    }

    /// End of the session: a compaction request whose summary never came.
    pub fn finish(&mut self, out: &mut BatchWriter) {
        if let Some((pid, src, trigger)) = self.compaction.take() {
            self.push(out, pid, Body::Observation { subtype: "compaction".into(), text: trigger }, None, None, src);
        }
    }
}
