//! `write`: a canonical session → one Copilot CLI session directory,
//! `.copilot/session-state/<sessionId>/events.jsonl` with its
//! `workspace.yaml`, in the shape Copilot CLI 1.0.102 writes.
//!
//! ```text
//! session.start             sessionId, version 1, producer copilot-agent, copilotVersion 1.0.102,
//!                           startTime, context {cwd, branch}; `prepare` adds selectedModel
//! system.message            role system, content (Copilot sends its own system prompt on resume:
//!                           the record is kept in the log, and another harness's is reported)
//! user.message              content (`source: "system"` for an observation `user.message/system`)
//! assistant.reasoning       a Copilot source's standalone reasoning event
//! session.usage_record      usage {model, inputTokens (cache included), outputTokens, cache…, apiCallId}
//! assistant.message         messageId, content, model, toolRequests[], reasoningText, reasoningOpaque,
//!                           apiCallId (joins the usage record), outputTokens (when only that is known)
//! tool.execution_start      one per tool request, as Copilot logs it
//! tool.execution_complete   toolCallId, success, result {content}
//! session.compaction_complete  success, summaryContent, trigger: Copilot rebuilds history from it
//! abort                     reason
//! ```
//!
//! Observed with the real Copilot CLI 1.0.102 (`tests/lab`, loader check
//! with a mutated tool result): the event log alone resumes with
//! `--resume=<id>` (no `workspace.yaml`, no `session-store.db` row: the CLI
//! indexes the session itself when it resumes it). Its loader validates
//! every event: ids must be UUIDs, `assistant.message` needs `messageId`,
//! `tool.execution_complete` needs `success`, `session.resume` needs the
//! runtime's bookkeeping (so it is not written).
//!
//! An event's id is its canonical record's id when that is a UUID not used
//! yet (so a Copilot session keeps its event ids), else a UUID derived from
//! the session seed; `parentId` is the previous event's id, as Copilot
//! chains them.
//!
//! Repaired and reported:
//! - `placeholder` / `messageId`: an assistant message without one gets a UUID;
//! - `placeholder` / `success`: a result without a recorded outcome is a success;
//! - `placeholder` / `assistant.message`: tool calls with no assistant record
//!   before them get an empty assistant message to hold their requests;
//! - `synthesized` / `tool-result`: a call left without a result when the
//!   conversation goes on (or ends) gets an error result, since the resumed
//!   request would otherwise be invalid.
//!
//! Not carried (`not-carried`, detail = what): `system-prompt` (another
//! harness's: written, but not what the resumed model sees), `observation/<subtype>`
//! (except `abort` and `user.message/system`), `attachments`,
//! `stop-reason`, `usage.reasoning`, `usage.cost_usd`, `subagent-transcript`,
//! `parent-session`, `orphan-tool-result`, `duplicate-tool-result`,
//! `opaque-reasoning` (another harness's signature or encrypted reasoning
//! beside its text), `additional-meta`, `unknown-kind/<kind>`.
//! `untranslated-reasoning`: encrypted reasoning of another harness with no
//! text, which Copilot cannot hold.
//!
//! The session id is `options.native_id` (a UUID), else a version-4-shaped
//! UUID from the SHA-256 of the canonical `meta` line: the same document
//! always gives the same bytes, and the writer streams (the id is known at
//! the first record).

use serde::Serialize;
use serde_json::Value;
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Reasoning, Record, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::hash::sha256;
use trajhost_codec_sdk::paths::is_uuid;
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WriteOptions, Written};

use crate::core::events::{
    EPOCH, EventLog, NO_RESULT, ToolStart, assistant_or_placeholder, message_id_or_placeholder, session_id,
};
pub use crate::core::events::{EVENTS_SCHEMA, PRODUCER};
use crate::core::layout::{self, EVENTS, SESSION_STATE, WORKSPACE};
use crate::core::{HARNESS, head::title_of};
use trajhost_codec_sdk::writer::OpenCalls;

/// A timestamp as Copilot writes them (milliseconds, `Z`): its loader
/// refuses a session whose `startTime` has microseconds and an offset, as
/// Deep Agents' do. A text that is no timestamp is kept as it is.
fn copilot_time(ts: &str) -> String {
    trajhost_codec_sdk::time::normalized_rfc3339_ms(ts).unwrap_or_else(|| ts.to_string())
}

/// The Copilot CLI version the log claims: the one it was checked against.
pub const CLI_VERSION: &str = "1.0.102";

/// `.copilot/session-state/<id>`.
pub fn session_dir(id: &str) -> String {
    layout::join(SESSION_STATE, id)
}

/// `.copilot/session-state/<id>/events.jsonl`.
pub fn events_path(id: &str) -> String {
    layout::join(&session_dir(id), EVENTS)
}

/// `.copilot/session-state/<id>/workspace.yaml`.
pub fn workspace_path(id: &str) -> String {
    layout::join(&session_dir(id), WORKSPACE)
}

/// An assistant message being gathered: its reasoning (before it), its
/// text, and the tool calls after it.
#[derive(Default)]
struct Pending {
    id: Option<String>,
    ts: Option<String>,
    assistant: Option<Assistant>,
    reasoning_text: Option<String>,
    reasoning_opaque: Option<String>,
    calls: Vec<(String, String, Value)>,
}

/// The streaming writer.
pub struct Writer {
    options: WriteOptions,
    diags: Diagnostics,
    line_no: usize,
    /// Set once the session is opened (at the first record).
    session: Option<Session>,
    meta: Option<Meta>,
}

struct Session {
    id: String,
    copilot_source: bool,
    log: EventLog,
    start: String,
    last_ts: String,
    first_prompt: Option<String>,
    pending: Option<Pending>,
    /// Calls written and not answered yet, in order.
    calls: OpenCalls,
}

impl Writer {
    pub fn new(options: WriteOptions) -> Writer {
        Writer { options, diags: Diagnostics::new(), line_no: 0, session: None, meta: None }
    }

    fn not_carried(diags: &mut Diagnostics, detail: &str) {
        diags.add("not-carried", Severity::Info, detail, None, None);
    }

    /// Opens the session: its id, and the `session.start` line.
    fn open(&mut self, seed_line: &str, first_ts: Option<&str>) -> Result<(), CodecError> {
        let seed = sha256(seed_line.as_bytes());
        let id = session_id(&self.options, &seed)?;
        let meta = self.meta.clone().unwrap_or_default();
        let start = meta.started_at.as_deref().filter(|s| !s.is_empty()).or(first_ts).map(copilot_time);
        let start = start.unwrap_or_else(|| {
            self.diags.add("no-timestamp", Severity::Warning, "startTime", None, None);
            EPOCH.to_string()
        });
        let cwd = self.options.cwd.clone().or(meta.cwd.clone()).filter(|c| !c.is_empty());
        if cwd.is_none() {
            self.diags.add("no-cwd", Severity::Warning, "context.cwd", None, None);
        }
        if meta.parent_session.is_some() {
            Self::not_carried(&mut self.diags, "parent-session");
        }
        let context = Context { cwd: cwd.clone(), branch: meta.git_branch.clone().filter(|b| !b.is_empty()) };
        let mut session = Session {
            id: id.clone(),
            copilot_source: meta.harness == HARNESS,
            log: EventLog::new(seed, events_path(&id)),
            start: start.clone(),
            last_ts: start.clone(),
            first_prompt: None,
            pending: None,
            calls: OpenCalls::new(),
        };
        let data = SessionStart {
            session_id: &id,
            version: EVENTS_SCHEMA,
            producer: PRODUCER,
            copilot_version: CLI_VERSION,
            start_time: &start,
            context,
        };
        session.event("session.start", None, Some(&start), data)?;
        self.session = Some(session);
        Ok(())
    }

    fn record(&mut self, record: Record) -> Result<(), CodecError> {
        let diags = &mut self.diags;
        let s = self.session.as_mut().expect("opened before records");
        if record.agent.is_some() {
            Self::not_carried(diags, "subagent-transcript");
            return Ok(());
        }
        if let Some(ts) = record.ts.as_deref().filter(|t| !t.is_empty()) {
            s.last_ts = copilot_time(ts);
        }
        match record.body {
            Body::Meta(_) => Self::not_carried(diags, "additional-meta"),
            Body::Reasoning(r) => s.reasoning(&record.id, record.ts, r, diags)?,
            Body::Assistant(a) => {
                // Reasoning gathered before it is this message's.
                let reasoning_only = s.pending.as_ref().is_some_and(|p| p.assistant.is_none() && p.calls.is_empty());
                if !reasoning_only {
                    s.flush(diags)?;
                }
                let pending = s.pending.get_or_insert_with(Pending::default);
                pending.id = Some(record.id);
                pending.ts = record.ts;
                pending.assistant = Some(a);
            }
            Body::ToolCall { call_id, name, arguments } => {
                let pending = s.pending.get_or_insert_with(|| Pending { ts: record.ts.clone(), ..Pending::default() });
                pending.calls.push((call_id, name, arguments));
            }
            Body::ToolResult { call_id, content, ok } => {
                s.flush(diags)?;
                if let Err(unmatched) = s.calls.answer(&call_id) {
                    Self::not_carried(diags, unmatched.detail());
                    return Ok(());
                }
                if ok.is_none() {
                    diags.add("placeholder", Severity::Info, "success", None, None);
                }
                s.result(Some(&record.id), record.ts.as_deref(), &call_id, &content, ok.unwrap_or(true))?;
            }
            Body::User { text, attachments } => {
                s.flush(diags)?;
                s.close_calls(diags)?;
                if !attachments.is_empty() {
                    Self::not_carried(diags, "attachments");
                }
                if s.first_prompt.is_none() {
                    s.first_prompt = Some(title_of(&text));
                }
                s.event(
                    "user.message",
                    Some(&record.id),
                    record.ts.as_deref(),
                    UserMessage { content: &text, source: None },
                )?;
            }
            Body::System { text } => {
                s.flush(diags)?;
                // Kept in the log, but Copilot sends its own system prompt on resume.
                if !s.copilot_source {
                    Self::not_carried(diags, "system-prompt");
                }
                s.event(
                    "system.message",
                    Some(&record.id),
                    record.ts.as_deref(),
                    SystemMessage { role: "system", content: &text },
                )?;
            }
            Body::Compaction { summary, trigger } => {
                s.flush(diags)?;
                s.close_calls(diags)?;
                let data = CompactionComplete { success: true, summary_content: &summary, trigger: trigger.as_deref() };
                s.event("session.compaction_complete", Some(&record.id), record.ts.as_deref(), data)?;
            }
            Body::Observation { subtype, text } => match subtype.as_str() {
                "user.message/system" => {
                    s.flush(diags)?;
                    let text = text.unwrap_or_default();
                    let data = UserMessage { content: &text, source: Some("system") };
                    s.event("user.message", Some(&record.id), record.ts.as_deref(), data)?;
                }
                "abort" => {
                    s.flush(diags)?;
                    let data = Abort { reason: text.as_deref() };
                    s.event("abort", Some(&record.id), record.ts.as_deref(), data)?;
                }
                other => Self::not_carried(diags, &format!("observation/{other}")),
            },
        }
        Ok(())
    }

    fn workspace_yaml(&self, s: &Session) -> Vec<u8> {
        let meta = self.meta.clone().unwrap_or_default();
        let cwd = self.options.cwd.clone().or(meta.cwd.clone()).filter(|c| !c.is_empty());
        let mut out = format!("id: {}\n", s.id);
        if let Some(cwd) = cwd {
            out.push_str(&format!("cwd: {}\n", yaml_scalar(&cwd)));
        }
        if let Some(branch) = meta.git_branch.as_deref().filter(|b| !b.is_empty()) {
            out.push_str(&format!("branch: {}\n", yaml_scalar(branch)));
        }
        let title = meta.title.as_deref().map(str::trim).filter(|t| !t.is_empty()).map(str::to_string);
        let user_named = title.is_some() && title != s.first_prompt;
        if let Some(name) = title.or_else(|| s.first_prompt.clone()).filter(|t| !t.is_empty()) {
            out.push_str(&format!("name: {}\n", yaml_scalar(&name)));
        }
        out.push_str(&format!("user_named: {user_named}\nsummary_count: 0\nfork_count: 0\n"));
        out.push_str(&format!("created_at: {}\n", yaml_scalar(&s.start)));
        out.push_str(&format!("updated_at: {}\n", yaml_scalar(&s.last_ts)));
        out.into_bytes()
    }

    fn take_chunk(&mut self) -> Vec<Artifact> {
        match self.session.as_mut() {
            Some(s) => s.log.take_chunks(),
            None => Vec::new(),
        }
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
        let ts = ts.filter(|t| !t.is_empty()).map(copilot_time).unwrap_or_else(|| self.last_ts.clone());
        Ok(self.log.append(kind, record_id, &ts, data))
    }

    fn reasoning(
        &mut self,
        id: &str,
        ts: Option<String>,
        r: Reasoning,
        diags: &mut Diagnostics,
    ) -> Result<(), CodecError> {
        let text = r.text.filter(|t| !t.is_empty());
        let opaque = r.opaque.filter(|o| !o.is_empty());
        // Opaque reasoning is the provider's: only a Copilot session's goes back.
        let opaque = match opaque {
            Some(_) if !self.copilot_source && text.is_some() => {
                Writer::not_carried(diags, "opaque-reasoning");
                None
            }
            Some(_) if !self.copilot_source => {
                diags.add("untranslated-reasoning", Severity::Warning, "opaque-reasoning", None, None);
                return Ok(());
            }
            other => other,
        };
        if text.is_none() && opaque.is_none() {
            return Ok(());
        }
        // A Copilot `assistant.reasoning` event stays one; reasoning read from
        // a message (`<id>#reasoning`) and any other goes into the next message.
        let standalone = self.copilot_source && opaque.is_none() && is_uuid(id);
        if standalone {
            self.flush(diags)?;
            let text = text.unwrap_or_default();
            let data = AssistantReasoning { reasoning_id: id, content: &text };
            self.event("assistant.reasoning", Some(id), ts.as_deref(), data)?;
            return Ok(());
        }
        let busy = self.pending.as_ref().is_some_and(|p| {
            p.assistant.is_some() || !p.calls.is_empty() || p.reasoning_text.is_some() || p.reasoning_opaque.is_some()
        });
        if busy {
            self.flush(diags)?;
        }
        let pending = self.pending.get_or_insert_with(|| Pending { ts: ts.clone(), ..Pending::default() });
        pending.reasoning_text = text;
        pending.reasoning_opaque = opaque;
        Ok(())
    }

    /// Writes the gathered assistant message, its usage and its calls.
    fn flush(&mut self, diags: &mut Diagnostics) -> Result<(), CodecError> {
        let Some(p) = self.pending.take() else { return Ok(()) };
        // Calls still open before another message: answer them first.
        self.close_calls(diags)?;
        let assistant = assistant_or_placeholder(p.assistant, diags);
        if assistant.stop_reason.is_some() {
            Writer::not_carried(diags, "stop-reason");
        }
        let message_id = message_id_or_placeholder(&assistant, &self.log, diags);
        let mut output_tokens = None;
        let mut api_call_id = None;
        if let Some(usage) = &assistant.usage {
            if usage.reasoning.is_some() {
                Writer::not_carried(diags, "usage.reasoning");
            }
            if usage.cost_usd.is_some() {
                Writer::not_carried(diags, "usage.cost_usd");
            }
            if usage.input.is_none() && usage.cache_read.is_none() && usage.cache_write.is_none() {
                output_tokens = usage.output;
            } else {
                if assistant.model.as_deref().is_none_or(str::is_empty) {
                    diags.add("placeholder", Severity::Info, "usage.model", None, None);
                }
                let call = self.log.derived("api-call");
                let record = UsageRecord { usage: call_usage(usage, assistant.model.as_deref(), &call) };
                self.event("session.usage_record", None, p.ts.as_deref(), record)?;
                api_call_id = Some(call);
            }
        }
        let data = AssistantMessage {
            message_id: &message_id,
            model: assistant.model.as_deref().filter(|m| !m.is_empty()),
            content: &assistant.text,
            tool_requests: p
                .calls
                .iter()
                .map(|(call, name, arguments)| ToolRequest { tool_call_id: call, name, arguments, kind: "function" })
                .collect(),
            reasoning_text: p.reasoning_text.as_deref(),
            reasoning_opaque: p.reasoning_opaque.as_deref(),
            output_tokens,
            api_call_id: api_call_id.as_deref(),
        };
        self.event("assistant.message", p.id.as_deref(), p.ts.as_deref(), data)?;
        for (call, name, arguments) in p.calls {
            let data = ToolStart { tool_call_id: &call, tool_name: &name, arguments: &arguments };
            self.event("tool.execution_start", None, p.ts.as_deref(), data)?;
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
        let data = ToolComplete { tool_call_id: call, success: ok, result: ToolResultContent { content } };
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

/// `session.usage_record.data.usage`: Copilot's `inputTokens` counts the
/// whole prompt, cache reads and writes included. Copilot requires the
/// model; the reader takes an empty one for none.
fn call_usage<'a>(u: &Usage, model: Option<&'a str>, call: &'a str) -> CallUsage<'a> {
    let cached = u.cache_read.unwrap_or(0).saturating_add(u.cache_write.unwrap_or(0));
    CallUsage {
        model: model.unwrap_or_default(),
        input_tokens: u.input.map(|i| i.saturating_add(cached)),
        output_tokens: u.output,
        cache_read_tokens: u.cache_read,
        cache_write_tokens: u.cache_write,
        api_call_id: call,
    }
}

// The `data` of each event written, fields in Copilot's order.

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionStart<'a> {
    session_id: &'a str,
    version: u64,
    producer: &'a str,
    copilot_version: &'a str,
    start_time: &'a str,
    context: Context,
}

#[derive(Serialize)]
struct Context {
    #[serde(skip_serializing_if = "Option::is_none")]
    cwd: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    branch: Option<String>,
}

#[derive(Serialize)]
struct UserMessage<'a> {
    content: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a str>,
}

#[derive(Serialize)]
struct SystemMessage<'a> {
    role: &'a str,
    content: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AssistantReasoning<'a> {
    reasoning_id: &'a str,
    content: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AssistantMessage<'a> {
    message_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
    content: &'a str,
    tool_requests: Vec<ToolRequest<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_opaque: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    api_call_id: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolRequest<'a> {
    tool_call_id: &'a str,
    name: &'a str,
    arguments: &'a Value,
    #[serde(rename = "type")]
    kind: &'a str,
}

#[derive(Serialize)]
struct UsageRecord<'a> {
    usage: CallUsage<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallUsage<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_read_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_write_tokens: Option<u64>,
    api_call_id: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolComplete<'a> {
    tool_call_id: &'a str,
    success: bool,
    result: ToolResultContent<'a>,
}

#[derive(Serialize)]
struct ToolResultContent<'a> {
    content: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CompactionComplete<'a> {
    success: bool,
    summary_content: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    trigger: Option<&'a str>,
}

#[derive(Serialize)]
struct Abort<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
}

/// A YAML scalar: plain when that reads back as the same string, else
/// double-quoted (JSON's escapes are YAML's).
pub fn yaml_scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.trim() == s
        && !s.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@`~".contains(c))
        && !s.contains(": ")
        && !s.contains(" #")
        && !s.ends_with(':')
        && s.chars().all(|c| !c.is_control())
        && !matches!(s.to_ascii_lowercase().as_str(), "null" | "true" | "false" | "yes" | "no" | "on" | "off")
        && s.parse::<f64>().is_err();
    if plain { s.to_string() } else { serde_json::to_string(s).unwrap_or_default() }
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
                    self.meta = Some(m.clone());
                    self.open(line, None)?;
                    continue;
                }
                self.open(line, record.ts.as_deref())?;
            }
            self.record(record)?;
        }
        Ok(self.take_chunk())
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        if self.session.is_none() {
            return Err(CodecError::Malformed("the canonical document holds no records".into()));
        }
        let mut s = self.session.take().expect("checked");
        s.flush(&mut self.diags)?;
        s.close_calls(&mut self.diags)?;
        let workspace = self.workspace_yaml(&s);
        let mut chunks = Vec::new();
        chunks.extend(s.log.take_chunks());
        chunks.push(Artifact { path: workspace_path(&s.id), bytes: workspace });
        Ok(Written { native_id: s.id.clone(), chunks, diagnostics: self.diags.drain() })
    }
}
