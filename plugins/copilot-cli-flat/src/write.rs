//! `write`: a canonical session → one flat Copilot CLI 0.0.3xx event log,
//! `.copilot/session-state/<sessionId>.jsonl`, with only the events that
//! version knows, in the shapes it writes them.
//!
//! Copilot CLI 0.0.354 (`npm pack @github/copilot@0.0.354`, its bundled
//! session store) loads a session by parsing every line against its event
//! union (a zod discriminated union: one unknown `type`, a timestamp with an
//! offset or a non-UUID `id`/`parentId` and the whole file is refused) and
//! then, finding nothing, silently starts an empty session. It rebuilds the
//! conversation from `user.message`, `assistant.message` (`toolRequests`)
//! and `tool.execution_complete` (the result's `content`, else the error's
//! `message`); `abort` and `session.resume` repair dangling tool calls. The
//! 1.0.x events trajhost writes for the per-session-folder layout
//! (`system.message` with a foreign prompt, `assistant.reasoning`,
//! `session.usage_record`, `session.compaction_complete`, a `context` in
//! `session.start`, `reasoningText`, `model`) are left out.
//!
//! ```text
//! session.start             sessionId, version 1, producer copilot-agent, copilotVersion 0.0.354,
//!                           startTime; `prepare` adds selectedModel
//! session.model_change      newModel (a Copilot source's own model changes only)
//! user.message              content, attachments []
//! assistant.message         messageId, content, toolRequests [{toolCallId, name, arguments}]
//! tool.execution_start      one per tool request, as Copilot logs it
//! tool.execution_complete   toolCallId, success, result {content} | error {message, code "failure"}
//! abort                     reason
//! ```
//!
//! Event ids are the canonical record ids when they are fresh UUIDs (a
//! Copilot session keeps its event ids), else UUIDs derived from the session
//! seed; `parentId` is the previous event's id. Timestamps are milliseconds
//! with `Z` (the loader refuses an offset); a record without one takes the
//! previous event's.
//!
//! Repaired and reported:
//! - `placeholder` / `messageId`: an assistant message without one gets a UUID;
//! - `placeholder` / `success`: a result without a recorded outcome is a success;
//! - `placeholder` / `assistant.message`: tool calls with no assistant record
//!   before them get an empty assistant message to hold their requests;
//! - `synthesized` / `tool-result`: a call left without a result when the
//!   conversation goes on (or ends) gets an error result.
//!
//! Not carried (`not-carried`, detail = what): `system-prompt` (0.0.354 logs
//! none and sends its own), `reasoning`, `opaque-reasoning`, `usage`, `model`,
//! `stop-reason`, `compaction` (0.0.354 has no compaction event; the
//! records before it are written whole), `observation/<subtype>` (except
//! `abort`, and a Copilot source's `session.model_change`), `attachments`,
//! `subagent-transcript`, `parent-session`, `orphan-tool-result`,
//! `duplicate-tool-result`, `cwd` and `git-branch` (0.0.354's `session.start` has no
//! context; `prepare`'s resume command `cd`s to `options.cwd`),
//! `additional-meta`, `unknown-kind/<kind>`. `untranslated-reasoning`:
//! opaque reasoning with no text, which 0.0.354 cannot hold.
//!
//! The session id is `options.native_id` (a UUID), else a version-4-shaped
//! UUID from the SHA-256 of the canonical `meta` line, as the session-folder
//! writer derives it: the same document always gives the same bytes.

use serde::Serialize;
use serde_json::Value;
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Reasoning, Record};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::hash::sha256;
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WriteOptions, Written};

use crate::core::HARNESS;
use crate::core::events::{
    EPOCH, EventLog, ToolStart, assistant_or_placeholder, message_id_or_placeholder, session_id,
};
pub use crate::core::events::{EVENTS_SCHEMA, NO_RESULT, PRODUCER};
use crate::core::layout::{self, JSONL, SESSION_STATE};
use trajhost_codec_sdk::writer::OpenCalls;

/// The Copilot CLI version the log claims: the one it was checked against.
pub const CLI_VERSION: &str = "0.0.354";
/// `tool.execution_complete.data.error.code` of a failed call, as 0.0.354
/// writes it (the runtime's `resultType`).
const FAILURE: &str = "failure";

/// `.copilot/session-state/<id>.jsonl`.
pub fn events_path(id: &str) -> String {
    layout::join(SESSION_STATE, &format!("{id}{JSONL}"))
}

/// A timestamp as Copilot's loader accepts it (milliseconds, `Z`), or none.
fn copilot_time(ts: Option<&str>) -> Option<String> {
    trajhost_codec_sdk::time::normalized_rfc3339_ms(ts.filter(|t| !t.is_empty())?)
}

/// An assistant message being gathered with the tool calls after it.
#[derive(Default)]
struct Pending {
    id: Option<String>,
    ts: Option<String>,
    assistant: Option<Assistant>,
    calls: Vec<(String, String, Value)>,
}

/// The streaming writer.
pub struct Writer {
    options: WriteOptions,
    diags: Diagnostics,
    line_no: usize,
    /// Set once the session is opened (at the first record).
    session: Option<Session>,
}

struct Session {
    id: String,
    copilot_source: bool,
    log: EventLog,
    last_ts: String,
    pending: Option<Pending>,
    /// Calls written and not answered yet, in order.
    calls: OpenCalls,
}

fn not_carried(diags: &mut Diagnostics, detail: &str) {
    diags.add("not-carried", Severity::Info, detail, None, None);
}

impl Writer {
    pub fn new(options: WriteOptions) -> Writer {
        Writer { options, diags: Diagnostics::new(), line_no: 0, session: None }
    }

    /// Opens the session: its id, and the `session.start` line.
    fn open(&mut self, seed_line: &str, meta: Option<&Meta>, first_ts: Option<&str>) -> Result<(), CodecError> {
        let seed = sha256(seed_line.as_bytes());
        let id = session_id(&self.options, &seed)?;
        let start = meta.and_then(|m| copilot_time(m.started_at.as_deref())).or_else(|| copilot_time(first_ts));
        let start = start.unwrap_or_else(|| {
            self.diags.add("no-timestamp", Severity::Warning, "startTime", None, None);
            EPOCH.to_string()
        });
        if let Some(meta) = meta {
            if meta.parent_session.is_some() {
                not_carried(&mut self.diags, "parent-session");
            }
            if meta.cwd.as_deref().is_some_and(|c| !c.is_empty()) {
                not_carried(&mut self.diags, "cwd");
            }
            if meta.git_branch.as_deref().is_some_and(|b| !b.is_empty()) {
                not_carried(&mut self.diags, "git-branch");
            }
        }
        let mut session = Session {
            id: id.clone(),
            copilot_source: meta.is_some_and(|m| m.harness == HARNESS),
            log: EventLog::new(seed, events_path(&id)),
            last_ts: start.clone(),
            pending: None,
            calls: OpenCalls::new(),
        };
        let data = SessionStart {
            session_id: &id,
            version: EVENTS_SCHEMA,
            producer: PRODUCER,
            copilot_version: CLI_VERSION,
            start_time: &start,
        };
        session.event("session.start", None, None, data)?;
        self.session = Some(session);
        Ok(())
    }

    fn record(&mut self, record: Record) -> Result<(), CodecError> {
        let diags = &mut self.diags;
        let s = self.session.as_mut().expect("opened before records");
        if record.agent.is_some() {
            not_carried(diags, "subagent-transcript");
            return Ok(());
        }
        let ts = record.ts.as_deref();
        match record.body {
            Body::Meta(_) => not_carried(diags, "additional-meta"),
            Body::Reasoning(r) => reasoning(r, diags),
            Body::Assistant(a) => {
                s.flush(diags)?;
                s.pending =
                    Some(Pending { id: Some(record.id), ts: record.ts.clone(), assistant: Some(a), calls: Vec::new() });
            }
            Body::ToolCall { call_id, name, arguments } => {
                let pending = s.pending.get_or_insert_with(|| Pending { ts: record.ts.clone(), ..Pending::default() });
                pending.calls.push((call_id, name, arguments));
            }
            Body::ToolResult { call_id, content, ok } => {
                s.flush(diags)?;
                if let Err(unmatched) = s.calls.answer(&call_id) {
                    not_carried(diags, unmatched.detail());
                    return Ok(());
                }
                if ok.is_none() {
                    diags.add("placeholder", Severity::Info, "success", None, None);
                }
                s.result(Some(&record.id), ts, &call_id, &content, ok.unwrap_or(true))?;
            }
            Body::User { text, attachments } => {
                s.flush(diags)?;
                s.close_calls(diags)?;
                if !attachments.is_empty() {
                    not_carried(diags, "attachments");
                }
                let data = UserMessage { content: &text, attachments: [] };
                s.event("user.message", Some(&record.id), ts, data)?;
            }
            // 0.0.354 logs no system prompt: it sends its own.
            Body::System { .. } => not_carried(diags, "system-prompt"),
            // 0.0.354 has no compaction event: the records before it are
            // all written, so the conversation is whole.
            Body::Compaction { .. } => not_carried(diags, "compaction"),
            Body::Observation { subtype, text } => match subtype.as_str() {
                "abort" => {
                    s.flush(diags)?;
                    let data = Abort { reason: text.as_deref().unwrap_or_default() };
                    s.event("abort", Some(&record.id), ts, data)?;
                }
                "session.model_change" if s.copilot_source && text.as_deref().is_some_and(|t| !t.is_empty()) => {
                    s.flush(diags)?;
                    let data = ModelChange { new_model: text.as_deref().unwrap_or_default() };
                    s.event("session.model_change", Some(&record.id), ts, data)?;
                }
                other => not_carried(diags, &format!("observation/{other}")),
            },
        }
        Ok(())
    }

    fn take_chunk(&mut self) -> Vec<Artifact> {
        match self.session.as_mut() {
            Some(s) => s.log.take_chunks(),
            None => Vec::new(),
        }
    }
}

/// Reasoning has no place in a 0.0.354 log: its text is reported, opaque
/// reasoning alone cannot be carried at all.
fn reasoning(r: Reasoning, diags: &mut Diagnostics) {
    let text = r.text.is_some_and(|t| !t.is_empty());
    let opaque = r.opaque.is_some_and(|o| !o.is_empty());
    if text {
        not_carried(diags, "reasoning");
        if opaque {
            not_carried(diags, "opaque-reasoning");
        }
    } else if opaque {
        // A provider's encrypted reasoning with no text beside it: the
        // resumed model would lose it silently.
        diags.add("untranslated-reasoning", Severity::Warning, "opaque-reasoning", None, None);
    }
}

impl Session {
    fn event(
        &mut self,
        kind: &str,
        record_id: Option<&str>,
        ts: Option<&str>,
        data: impl Serialize,
    ) -> Result<String, CodecError> {
        if let Some(ts) = copilot_time(ts) {
            self.last_ts = ts;
        }
        Ok(self.log.append(kind, record_id, &self.last_ts, data))
    }

    /// Writes the gathered assistant message and its calls.
    fn flush(&mut self, diags: &mut Diagnostics) -> Result<(), CodecError> {
        let Some(p) = self.pending.take() else { return Ok(()) };
        // Calls still open before another message: answer them first.
        self.close_calls(diags)?;
        let assistant = assistant_or_placeholder(p.assistant, diags);
        if assistant.stop_reason.is_some() {
            not_carried(diags, "stop-reason");
        }
        if assistant.usage.is_some() {
            not_carried(diags, "usage");
        }
        if assistant.model.as_deref().is_some_and(|m| !m.is_empty()) {
            not_carried(diags, "model");
        }
        let message_id = message_id_or_placeholder(&assistant, &self.log, diags);
        let data = AssistantMessage {
            message_id: &message_id,
            content: &assistant.text,
            tool_requests: p
                .calls
                .iter()
                .map(|(call, name, arguments)| ToolRequest { tool_call_id: call, name, arguments })
                .collect(),
        };
        self.event("assistant.message", p.id.as_deref(), p.ts.as_deref(), data)?;
        for (call, name, arguments) in p.calls {
            let data = ToolStart { tool_call_id: &call, tool_name: &name, arguments: &arguments };
            self.event("tool.execution_start", None, None, data)?;
            self.calls.reopen(call, ());
        }
        Ok(())
    }

    fn result(
        &mut self,
        id: Option<&str>,
        ts: Option<&str>,
        call: &str,
        content: &str,
        ok: bool,
    ) -> Result<(), CodecError> {
        let data = if ok {
            ToolComplete { tool_call_id: call, success: true, result: Some(ToolResult { content }), error: None }
        } else {
            let error = ToolError { message: content, code: FAILURE };
            ToolComplete { tool_call_id: call, success: false, result: None, error: Some(error) }
        };
        self.event("tool.execution_complete", id, ts, data)?;
        self.calls.mark_answered(call);
        Ok(())
    }

    /// Error results for the calls no result answered.
    fn close_calls(&mut self, diags: &mut Diagnostics) -> Result<(), CodecError> {
        for (call, ()) in self.calls.close_all() {
            diags.add("synthesized", Severity::Warning, "tool-result", None, None);
            self.result(None, None, &call, NO_RESULT, false)?;
        }
        Ok(())
    }
}

// The `data` of each event written, fields in the order 0.0.354 writes them.

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionStart<'a> {
    session_id: &'a str,
    version: u64,
    producer: &'a str,
    copilot_version: &'a str,
    start_time: &'a str,
}

#[derive(Serialize)]
struct UserMessage<'a> {
    content: &'a str,
    attachments: [(); 0],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AssistantMessage<'a> {
    message_id: &'a str,
    content: &'a str,
    tool_requests: Vec<ToolRequest<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolRequest<'a> {
    tool_call_id: &'a str,
    name: &'a str,
    arguments: &'a Value,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolComplete<'a> {
    tool_call_id: &'a str,
    success: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<ToolResult<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ToolError<'a>>,
}

#[derive(Serialize)]
struct ToolResult<'a> {
    content: &'a str,
}

#[derive(Serialize)]
struct ToolError<'a> {
    message: &'a str,
    code: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ModelChange<'a> {
    new_model: &'a str,
}

#[derive(Serialize)]
struct Abort<'a> {
    reason: &'a str,
}

impl SessionWriter for Writer {
    fn push(&mut self, records: &str) -> Result<Vec<Artifact>, CodecError> {
        for line in records.lines() {
            self.line_no += 1;
            let Some(record) = trajhost_codec_sdk::records::canonical_line(line, self.line_no, &mut self.diags)? else {
                continue;
            };
            if self.session.is_none() {
                if let Body::Meta(m) = &record.body {
                    self.open(line, Some(m), None)?;
                    continue;
                }
                self.open(line, None, record.ts.as_deref())?;
            }
            self.record(record)?;
        }
        Ok(self.take_chunk())
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        let Some(mut s) = self.session.take() else {
            return Err(CodecError::Malformed("the canonical document holds no records".into()));
        };
        s.flush(&mut self.diags)?;
        s.close_calls(&mut self.diags)?;
        let mut chunks = Vec::new();
        chunks.extend(s.log.take_chunks());
        Ok(Written { native_id: s.id.clone(), chunks, diagnostics: self.diags.drain() })
    }
}
