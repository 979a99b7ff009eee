//! Native rollout lines → canonical records, one module per record family:
//! [`response`] (`response_item`: the conversation as the model saw it),
//! [`event`] (`event_msg`: UI events, usage, outcomes), and the small line
//! types here (`session_meta`, `turn_context`, `compacted`, …).
//!
//! ## Double logging
//! Codex writes each turn twice: as `response_item` lines (what the model
//! sees) and as `event_msg` lines (`user_message`, `agent_message`,
//! `agent_reasoning`, newer `item_completed`). Content comes from
//! `response_item`, except prompts and answers that only an event carries
//! (see [`mirror`]: each message is taken from its first copy); `event_msg`
//! contributes what `response_item` lacks: usage (`token_count`), tool
//! outcomes (`exec_command_end`, `item_completed` exit codes), errors and
//! turn ends.
//!
//! ## Model calls
//! One model response (its reasoning, assistant message and tool calls)
//! becomes one `assistant` record (text possibly empty) followed by its
//! `tool_call`s, with `reasoning` before it — the shape other codecs use.
//! Its usage arrives later (`token_usage_record` in newer builds,
//! `token_count` otherwise, sometimes after the tool outputs), so the
//! response and what follows it are held back until the usage arrives or
//! something else (a user message, a new response) shows none will; the
//! buffer is bounded by [`MAX_PENDING_RECORDS`] and [`MAX_PENDING_BYTES`].
//!
//! Every line's `type` (and for `response_item` / `event_msg` the payload
//! `type`) is mapped or counted in a diagnostic: `unmapped-record-type`
//! for types known and left out on purpose, `unknown-record-type` for
//! types never seen. Nothing is dropped silently.

mod event;
mod mirror;
mod response;

use std::collections::VecDeque;

use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Record, SCHEMA, SourceSpan, Usage};
use trajhost_codec_sdk::jsonl::{BadLine, Line};
use trajhost_codec_sdk::records::location_id;

use crate::head::Head;
use crate::native::{self, Compacted, TokenUsage, TurnContext, type_name};
use crate::{CODEC, HARNESS};

pub use trajhost_codec_sdk::known::Handling;
pub use trajhost_codec_sdk::records::{Out, Span};

/// Line `type`s of a rollout (`RolloutItem` plus newer line kinds).
pub const KNOWN_LINE_TYPES: &[(&str, Handling)] = &[
    (
        "session_meta",
        Handling::Mapped("meta (first line); a later one is observation session_meta (inherited history)"),
    ),
    ("response_item", Handling::Mapped("by payload type, see KNOWN_RESPONSE_ITEM_TYPES")),
    ("event_msg", Handling::Mapped("by payload type, see KNOWN_EVENT_TYPES")),
    ("turn_context", Handling::Mapped("model of the following assistant records; observation turn_context")),
    ("compacted", Handling::Mapped("compaction")),
    ("token_usage_record", Handling::Mapped("usage of the response it follows")),
    // Newer builds: the full context state (instructions, tools, environment)
    // the next request is built from; the messages it yields are logged as
    // response items too.
    ("world_state", Handling::Reported),
    ("inter_agent_communication", Handling::Mapped("observation inter_agent_communication")),
    // Whether a message between agents starts a turn: bookkeeping.
    ("inter_agent_communication_metadata", Handling::Reported),
];

/// `response_item` payload `type`s (`ResponseItem`).
pub const KNOWN_RESPONSE_ITEM_TYPES: &[(&str, Handling)] = &[
    ("message", Handling::Mapped("user / assistant text; developer, system and injected context → system")),
    ("reasoning", Handling::Mapped("reasoning (summary text; encrypted_content → opaque)")),
    ("function_call", Handling::Mapped("tool_call (arguments parsed from the JSON string)")),
    ("custom_tool_call", Handling::Mapped("tool_call (arguments = the raw input string)")),
    ("local_shell_call", Handling::Mapped("tool_call local_shell (arguments = action)")),
    ("web_search_call", Handling::Mapped("observation web_search_call (provider-side search)")),
    ("tool_search_call", Handling::Mapped("observation tool_search_call (tool catalog query)")),
    ("tool_search_output", Handling::Mapped("observation tool_search_output (tools found)")),
    ("image_generation_call", Handling::Mapped("observation image_generation_call (provider-side)")),
    ("agent_message", Handling::Mapped("observation agent_message (between agents)")),
    ("function_call_output", Handling::Mapped("tool_result")),
    ("custom_tool_call_output", Handling::Mapped("tool_result")),
    // The TypeScript CLI's answer to a `local_shell_call`.
    ("local_shell_call_output", Handling::Mapped("tool_result")),
    ("compaction", Handling::Mapped("compaction (remote, encrypted: empty summary)")),
    ("compaction_summary", Handling::Mapped("compaction (older name of `compaction`)")),
    ("context_compaction", Handling::Mapped("compaction (remote, encrypted: empty summary)")),
    ("ghost_snapshot", Handling::Reported),
    ("compaction_trigger", Handling::Reported),
    ("configuration_update", Handling::Reported),
    ("other", Handling::Reported),
];

/// `event_msg` payload `type`s (`EventMsg`, the persisted subset and the
/// extended one).
pub const KNOWN_EVENT_TYPES: &[(&str, Handling)] = &[
    ("token_count", Handling::Mapped("usage of the response it follows")),
    ("error", Handling::Mapped("observation error")),
    ("stream_error", Handling::Mapped("observation stream_error")),
    ("warning", Handling::Mapped("observation warning")),
    ("task_started", Handling::Mapped("observation task_started")),
    ("turn_started", Handling::Mapped("observation task_started")),
    ("task_complete", Handling::Mapped("observation task_complete")),
    ("turn_complete", Handling::Mapped("observation task_complete")),
    ("turn_aborted", Handling::Mapped("observation turn_aborted")),
    ("thread_rolled_back", Handling::Mapped("observation thread_rolled_back (turns are not removed)")),
    ("entered_review_mode", Handling::Mapped("observation entered_review_mode")),
    ("exited_review_mode", Handling::Mapped("observation exited_review_mode")),
    ("thread_name_updated", Handling::Mapped("observation thread_name")),
    ("exec_command_end", Handling::Mapped("tool_result ok from exit_code")),
    ("patch_apply_end", Handling::Mapped("tool_result ok from success")),
    ("mcp_tool_call_end", Handling::Mapped("tool_result ok from result")),
    ("item_completed", Handling::Mapped("tool_result ok from a CommandExecution's exit_code; the rest double-logs")),
    ("user_message", Handling::Mapped("user when no response item carries it; else a mirror (reported)")),
    ("agent_message", Handling::Mapped("assistant text when no response item carries it; else a mirror (reported)")),
    // Double logging of response items.
    ("agent_reasoning", Handling::Reported),
    ("agent_reasoning_raw_content", Handling::Reported),
    ("agent_reasoning_section_break", Handling::Reported),
    ("item_started", Handling::Reported),
    ("context_compacted", Handling::Reported),
    // UI and harness bookkeeping.
    ("thread_settings_applied", Handling::Reported),
    ("session_configured", Handling::Reported),
    ("exec_command_begin", Handling::Reported),
    ("exec_command_output_delta", Handling::Reported),
    ("patch_apply_begin", Handling::Reported),
    ("mcp_tool_call_begin", Handling::Reported),
    ("web_search_begin", Handling::Reported),
    ("web_search_end", Handling::Reported),
    ("view_image_tool_call", Handling::Reported),
    ("image_generation_end", Handling::Reported),
    ("turn_diff", Handling::Reported),
    ("plan_update", Handling::Reported),
    ("background_event", Handling::Reported),
    ("undo_started", Handling::Reported),
    ("undo_completed", Handling::Reported),
    ("shutdown_complete", Handling::Reported),
    ("collab_agent_spawn_begin", Handling::Reported),
    ("collab_agent_spawn_end", Handling::Reported),
    ("collab_agent_interaction_begin", Handling::Reported),
    ("collab_agent_interaction_end", Handling::Reported),
    ("collab_waiting_begin", Handling::Reported),
    ("collab_waiting_end", Handling::Reported),
    ("collab_close_begin", Handling::Reported),
    ("collab_close_end", Handling::Reported),
    // Newer builds: a client-side dynamic tool's request/response (its
    // call and output are response items), the approval reviewer's verdicts,
    // a subagent's status, the thread goal.
    ("dynamic_tool_call_request", Handling::Reported),
    ("dynamic_tool_call_response", Handling::Reported),
    ("guardian_assessment", Handling::Reported),
    ("sub_agent_activity", Handling::Reported),
    ("thread_goal_updated", Handling::Reported),
];

/// How `kind` is handled in `table`; `None` for a type never seen.
pub fn handling(table: &[(&str, Handling)], kind: &str) -> Option<Handling> {
    table.iter().find(|(k, _)| *k == kind).map(|(_, h)| *h)
}

/// Records held back for a response's usage, at most.
pub const MAX_PENDING_RECORDS: usize = 512;
/// Bytes of text held back for a response's usage, at most.
pub const MAX_PENDING_BYTES: usize = 8 << 20;
/// Tool outcomes (call id → success) remembered until their output line.
const OUTCOMES_KEPT: usize = 256;

/// The `meta` record that opens a session: facts of its `session_meta`.
pub fn session_meta(file: &str, native_id: &str, head: &Head) -> Record {
    Record {
        id: native_id.to_string(),
        body: Body::Meta(Meta {
            schema: SCHEMA.to_string(),
            harness: HARNESS.to_string(),
            native_id: native_id.to_string(),
            native_version: head.cli_version.clone(),
            cwd: head.cwd.clone(),
            title: head.title.clone(),
            git_branch: head.git_branch.clone(),
            started_at: head.started_at.clone(),
            parent_session: head.parent.clone(),
            parent_call: None,
            codec: Some(CODEC.to_string()),
        }),
        parent: None,
        ts: head.started_at.clone(),
        agent: None,
        src: head.meta_span.map(|(offset, len)| SourceSpan { file: file.to_string(), offset, len }),
    }
}

/// One model response being assembled.
#[derive(serde::Serialize, serde::Deserialize)]
struct Group {
    /// The assistant record's id.
    id: String,
    message_id: Option<String>,
    text: String,
    model: Option<String>,
    ts: Option<String>,
    span: Span,
    /// Reasoning and tool calls, in order.
    parts: Vec<Record>,
    /// Where the assistant record goes among `parts`.
    assistant_at: Option<usize>,
    /// An assistant message named the record.
    has_message: bool,
    /// Still taking model output: no tool output or usage seen since.
    open: bool,
    usage: Option<Usage>,
}

/// The reading state of one rollout (kept with a resume point).
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Rollout {
    /// The file, relative to the home: what `src.file` says.
    file: String,
    meta_offset: Option<u64>,
    /// `turn_context.model`: the model of the following responses.
    model: Option<String>,
    /// The last timestamp seen: the time of lines that carry none.
    last_ts: Option<String>,
    /// The response waiting for its usage, and the records after it.
    group: Option<Group>,
    tail: Vec<Record>,
    pending_bytes: usize,
    /// Success of finished tool calls, from events, until their output.
    outcomes: VecDeque<(String, bool)>,
    /// Messages logged twice (response item and event), see [`mirror`].
    mirrors: mirror::Mirrors,
}

impl Rollout {
    /// Takes the head's `session_meta` span (a head read again on resume may
    /// have found it since).
    pub fn with_head(mut self, head: &Head) -> Rollout {
        self.meta_offset = head.meta_span.map(|(offset, _)| offset);
        self
    }

    pub fn new(file: String, head: &Head) -> Rollout {
        Rollout {
            file,
            meta_offset: head.meta_span.map(|(offset, _)| offset),
            model: None,
            last_ts: None,
            group: None,
            tail: Vec::new(),
            pending_bytes: 0,
            outcomes: VecDeque::new(),
            mirrors: mirror::Mirrors::default(),
        }
    }

    /// Maps one line.
    pub fn line(&mut self, line: &Line<'_>, out: &mut Out<'_>) {
        let span = Span { offset: line.offset, len: line.len };
        let env = match native::envelope(line.bytes) {
            Ok(env) => env,
            Err(category) => return self.bad_line(line, category, out),
        };
        if let Some(ts) = env.timestamp.non_empty()
            && self.last_ts.as_deref() != Some(ts)
        {
            self.last_ts = Some(ts.to_string());
        }
        let kind = env.kind.get().unwrap_or("");
        match kind {
            "session_meta" => {
                if Some(span.offset) != self.meta_offset {
                    // The first session_meta is this file's thread (it made
                    // the `meta` record). A later one opens history of the
                    // thread it names, carried into this one: a fork's or a
                    // subagent's inherited context (its `session_id` is the
                    // root thread of the agent tree), or an older resume.
                    // Its lines stay this session's records; the marker says
                    // where they came from.
                    let meta = native::payload::<native::SessionMeta<'_>>(env.payload).unwrap_or_default();
                    let text = meta.thread_id().map(str::to_string);
                    self.emit(self.observation("session_meta", text, span), out);
                }
            }
            "response_item" => response::map(self, env.payload, span, out),
            "event_msg" => event::map(self, env.payload, span, out),
            "turn_context" => self.turn_context(env.payload, span, out),
            "compacted" => self.compacted(env.payload, span, out),
            "token_usage_record" => {
                let usage = native::payload::<native::UsageRecord<'_>>(env.payload).and_then(|r| r.usage.0);
                if let Some(usage) = usage {
                    self.usage(&usage, out);
                }
            }
            "inter_agent_communication" => {
                // A message passed between agents of a multi-agent thread.
                let item = native::payload::<native::InterAgent<'_>>(env.payload).unwrap_or_default();
                let text = item.message.owned().or_else(|| {
                    let text = native::join_text(item.content.0.as_deref().unwrap_or(&[]), "\n");
                    (!text.is_empty()).then_some(text)
                });
                self.emit(self.observation("inter_agent_communication", text, span), out);
            }
            other => self.report(KNOWN_LINE_TYPES, "", other, span, out),
        }
    }

    /// The model of the following responses, when the file states it
    /// elsewhere than in `turn_context` (a rollout document's `session.model`).
    pub fn set_model(&mut self, model: Option<String>) {
        if model.as_deref().is_some_and(|m| !m.is_empty()) {
            self.model = model;
        }
    }

    /// A rollout document's `session.instructions`: what the user told the
    /// model in every request, as a `system` record.
    pub fn instructions(&self, native_id: &str, text: String, span: Span) -> Record {
        self.record(format!("{native_id}#instructions"), Body::System { text }, None, span)
    }

    /// Maps one item of a rollout document ([`crate::document`]): a
    /// response item, mapped as a `response_item` line's payload. A tool
    /// output's exit code (in its `metadata`) is the call's outcome.
    pub fn document_item(&mut self, bytes: &[u8], span: Span, out: &mut Out<'_>) {
        let Some(raw) = trajhost_codec_sdk::json::as_str(bytes)
            .and_then(|text| serde_json::from_str::<&serde_json::value::RawValue>(text).ok())
        else {
            out.diags.add("malformed-item", Severity::Warning, "items", Some(&self.file), Some(span.offset));
            return;
        };
        if let Some(item) = native::payload::<native::ResponseItem<'_>>(Some(raw))
            && matches!(item.kind.get(), Some("function_call_output" | "local_shell_call_output"))
            && let (Some(call_id), Some(code)) = (item.call_id.non_empty(), crate::document::exit_code(item.output))
        {
            self.outcome(call_id, code == 0);
        }
        response::map(self, Some(raw), span, out);
    }

    /// Ends the file: emits what is still held back.
    pub fn finish(&mut self, out: &mut Out<'_>) {
        self.flush(out);
    }

    /// Counts a type that makes no record: `unmapped-record-type` when it is
    /// in `table`, `unknown-record-type` when it is not. `prefix` names the
    /// line type of a payload type (`event_msg/`).
    fn report(&self, table: &[(&str, Handling)], prefix: &str, kind: &str, span: Span, out: &mut Out<'_>) {
        let detail = format!("{prefix}{}", type_name(Some(kind).filter(|k| !k.is_empty())));
        match handling(table, kind) {
            Some(_) => {
                out.diags.add("unmapped-record-type", Severity::Info, &detail, Some(&self.file), Some(span.offset))
            }
            None => {
                out.diags.add("unknown-record-type", Severity::Warning, &detail, Some(&self.file), Some(span.offset))
            }
        }
    }

    fn bad_line(&mut self, line: &Line<'_>, category: &str, out: &mut Out<'_>) {
        let bad = BadLine::of(line);
        let (severity, detail) = match bad {
            BadLine::TornTail => (Severity::Warning, "unterminated last line"),
            BadLine::Corrupt => (Severity::Error, category),
        };
        out.diags.add(bad.code(), severity, detail, Some(&self.file), Some(line.offset));
    }

    fn turn_context(&mut self, payload: Option<&serde_json::value::RawValue>, span: Span, out: &mut Out<'_>) {
        let ctx = native::payload::<TurnContext<'_>>(payload).unwrap_or_default();
        if let Some(model) = ctx.model.non_empty() {
            self.model = Some(model.to_string());
        }
        let text = ctx.model.owned();
        self.emit(self.observation("turn_context", text, span), out);
    }

    fn compacted(&mut self, payload: Option<&serde_json::value::RawValue>, span: Span, out: &mut Out<'_>) {
        let item = native::payload::<Compacted<'_>>(payload).unwrap_or_default();
        // `message` is the summary; newer builds may leave it empty and put
        // the summary as the last message of the replacement history.
        let summary = item.message.non_empty().map(str::to_string).or_else(|| {
            let last = item.replacement_history.0.as_ref()?.last()?;
            (last.kind.get() == Some("message"))
                .then(|| native::join_text(last.content.0.as_deref().unwrap_or(&[]), "\n"))
        });
        if summary.is_none() {
            // Remote compaction: the summary is an encrypted item.
            out.diags.add("opaque-compaction", Severity::Info, "compacted", Some(&self.file), Some(span.offset));
        }
        let body = Body::Compaction { summary: summary.unwrap_or_default(), trigger: None };
        let record = self.record(location_id(&self.file, span.offset, 0), body, None, span);
        self.emit(record, out);
    }

    /// The record time: the line's own timestamp (or the last one seen).
    fn ts(&self) -> Option<String> {
        self.last_ts.clone()
    }

    fn record(&self, id: String, body: Body, parent: Option<String>, span: Span) -> Record {
        Record {
            id,
            body,
            parent,
            ts: self.ts(),
            agent: None,
            src: Some(SourceSpan { file: self.file.clone(), offset: span.offset, len: span.len }),
        }
    }

    fn observation(&self, subtype: &str, text: Option<String>, span: Span) -> Record {
        let body = Body::Observation { subtype: subtype.to_string(), text };
        self.record(location_id(&self.file, span.offset, 0), body, None, span)
    }

    /// Emits a record that ends any held-back response (a user message, an
    /// observation): the response goes out first, without usage if none came.
    fn emit(&mut self, record: Record, out: &mut Out<'_>) {
        self.flush(out);
        out.writer.push(&record);
    }

    /// Emits a record that may belong after a held-back response (a tool
    /// result): held back with it, in order.
    fn follow(&mut self, record: Record, out: &mut Out<'_>) {
        match self.group.as_mut() {
            Some(group) => {
                group.open = false;
                self.pending_bytes += record_bytes(&record);
                self.tail.push(record);
                self.check_pending(out);
            }
            None => out.writer.push(&record),
        }
    }

    /// The response a piece of model output belongs to: the open one, else
    /// a new one (the held-back one goes out without usage).
    fn group(&mut self, span: Span, out: &mut Out<'_>) -> &mut Group {
        if self.group.as_ref().is_some_and(|g| !g.open) {
            self.flush(out);
        }
        let model = self.model.clone();
        let ts = self.ts();
        let file = self.file.clone();
        self.group.get_or_insert_with(|| Group {
            // Replaced by the message id or location when a message comes.
            id: location_id(&file, span.offset, 1),
            message_id: None,
            has_message: false,
            text: String::new(),
            model,
            ts,
            span,
            parts: Vec::new(),
            assistant_at: None,
            open: true,
            usage: None,
        })
    }

    /// A response's usage: completes the held-back response. A second copy
    /// (`token_count` after `token_usage_record`) finds none and is dropped.
    fn usage(&mut self, usage: &TokenUsage, out: &mut Out<'_>) {
        let Some(group) = self.group.as_mut() else { return };
        group.usage = canonical_usage(usage);
        self.flush(out);
    }

    fn check_pending(&mut self, out: &mut Out<'_>) {
        let records = self.tail.len() + self.group.as_ref().map_or(0, |g| g.parts.len());
        if records >= MAX_PENDING_RECORDS || self.pending_bytes >= MAX_PENDING_BYTES {
            out.diags.add("usage-wait-exceeded", Severity::Info, "response", Some(&self.file), None);
            self.flush(out);
        }
    }

    /// Emits the held-back response and the records after it.
    fn flush(&mut self, out: &mut Out<'_>) {
        let Some(group) = self.group.take() else { return };
        let assistant = Assistant {
            text: group.text,
            model: group.model,
            message_id: group.message_id,
            stop_reason: None,
            usage: group.usage,
        };
        let record = Record {
            id: group.id.clone(),
            body: Body::Assistant(assistant),
            parent: None,
            ts: group.ts,
            agent: None,
            src: Some(SourceSpan { file: self.file.clone(), offset: group.span.offset, len: group.span.len }),
        };
        let at = group.assistant_at.unwrap_or(group.parts.len());
        let mut record = Some(record);
        for (index, mut part) in group.parts.into_iter().enumerate() {
            if index == at
                && let Some(r) = record.take()
            {
                out.writer.push(&r);
            }
            part.parent = Some(group.id.clone());
            out.writer.push(&part);
        }
        if let Some(r) = record {
            out.writer.push(&r);
        }
        for r in self.tail.drain(..) {
            out.writer.push(&r);
        }
        self.pending_bytes = 0;
    }

    /// Remembers whether a tool call succeeded, for its output line.
    fn outcome(&mut self, call_id: &str, ok: bool) {
        if call_id.is_empty() {
            return;
        }
        self.outcomes.retain(|(id, _)| id != call_id);
        self.outcomes.push_back((call_id.to_string(), ok));
        if self.outcomes.len() > OUTCOMES_KEPT {
            self.outcomes.pop_front();
        }
    }

    fn take_outcome(&mut self, call_id: &str) -> Option<bool> {
        let at = self.outcomes.iter().position(|(id, _)| id == call_id)?;
        self.outcomes.remove(at).map(|(_, ok)| ok)
    }
}

/// `TokenUsage` in canonical form: OpenAI's `input_tokens` includes cache
/// reads (`cached_input_tokens`) and writes (`cache_write_input_tokens`);
/// canonical `input` excludes both. `None` when nothing is recorded.
pub fn canonical_usage(u: &TokenUsage) -> Option<Usage> {
    let cache_read = u.cached_input_tokens.count();
    let cache_write = u.cache_write_input_tokens.count();
    let input = u
        .input_tokens
        .count()
        .map(|n| n.saturating_sub(cache_read.unwrap_or(0)).saturating_sub(cache_write.unwrap_or(0)));
    let usage = Usage {
        input,
        output: u.output_tokens.count(),
        cache_read,
        cache_write,
        reasoning: u.reasoning_output_tokens.count(),
        cost_usd: None,
    };
    let any =
        usage.input.is_some() || usage.output.is_some() || usage.cache_read.is_some() || usage.cache_write.is_some();
    any.then_some(usage)
}

/// Roughly what a held-back record weighs.
fn record_bytes(record: &Record) -> usize {
    let body = match &record.body {
        Body::Assistant(a) => a.text.len(),
        Body::User { text, .. } | Body::System { text } => text.len(),
        Body::Reasoning(r) => r.text.as_ref().map_or(0, String::len) + r.opaque.as_ref().map_or(0, String::len),
        Body::ToolCall { arguments, .. } => arguments.to_string().len(),
        Body::ToolResult { content, .. } => content.len(),
        Body::Observation { text, .. } => text.as_ref().map_or(0, String::len),
        Body::Compaction { summary, .. } => summary.len(),
        Body::Meta(_) => 0,
    };
    body + record.id.len() + 128
}
