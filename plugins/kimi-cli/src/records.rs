//! Native record types → canonical records.
//!
//! `context.jsonl` lines are kosong `Message`s tagged by `role` (plus the
//! pseudo-roles `_system_prompt`, `_checkpoint`, `_usage`); `wire.jsonl`
//! lines are `{timestamp, message{type, payload}}` events. Every role and
//! wire type is either mapped (see [`KNOWN_CONTEXT_ROLES`] and
//! [`KNOWN_WIRE_TYPES`]) or counted in a diagnostic:
//! `unmapped-record-type` for types the codec knows and leaves out on
//! purpose, `unknown-record-type` for types it has never seen. Diagnostic
//! details are `context:<role>` and `wire:<Type>`.

use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Reasoning, Record, SourceSpan};
use trajhost_codec_sdk::jsonl::{Line, report_bad_line};
use trajhost_codec_sdk::records::location_id;

use crate::dedup::Dedup;
use crate::wire::{WireIndex, call_key, input_hash, text_key, text_of};
use trajhost_codec_sdk::hash::Fnv;
use trajhost_codec_sdk::json::str_of;
use trajhost_codec_sdk::text::type_name;
use trajhost_codec_sdk::time::rfc3339_secs;

pub use trajhost_codec_sdk::known::Handling;
pub use trajhost_codec_sdk::records::Out;

/// Every `role` Kimi CLI writes to `context.jsonl`.
pub const KNOWN_CONTEXT_ROLES: &[(&str, Handling)] = &[
    ("_system_prompt", Handling::Mapped("system")),
    ("system", Handling::Mapped("system")),
    (
        "user",
        Handling::Mapped(
            "user; compaction for the summary that opens a compacted context; observation system-reminder for <system> parts",
        ),
    ),
    ("assistant", Handling::Mapped("reasoning (think parts), assistant, tool_call")),
    ("tool", Handling::Mapped("tool_result")),
    // `/undo` revert markers and the context size: harness bookkeeping.
    ("_checkpoint", Handling::Reported),
    ("_usage", Handling::Reported),
];

/// Every wire message type of Kimi CLI's wire protocol (1.x), plus the
/// `metadata` header line.
pub const KNOWN_WIRE_TYPES: &[(&str, Handling)] = &[
    ("metadata", Handling::Mapped("meta.native_version (protocol_version)")),
    ("TurnBegin", Handling::Mapped("user ts")),
    ("SteerInput", Handling::Mapped("user ts")),
    ("StepBegin", Handling::Mapped("assistant ts (step boundary)")),
    ("TurnEnd", Handling::Mapped("step boundary")),
    ("StepInterrupted", Handling::Mapped("step boundary")),
    (
        "ContentPart",
        Handling::Mapped("assistant ts; matches the step to its context message (content is read from context.jsonl)"),
    ),
    (
        "ToolCall",
        Handling::Mapped("assistant ts; matches the step to its context message (calls are read from context.jsonl)"),
    ),
    ("ToolResult", Handling::Mapped("tool_result ok (return_value.is_error) and ts")),
    ("StatusUpdate", Handling::Mapped("assistant usage (token_usage) and message_id")),
    (
        "SubagentEvent",
        Handling::Mapped("binds subagents/<agent_id> to its parent tool call (the child is read from its own files)"),
    ),
    (
        "ApprovalRequest",
        Handling::Mapped("matched with its answer; one left unanswered is a pending-approval diagnostic"),
    ),
    ("ApprovalResponse", Handling::Mapped("answers an ApprovalRequest")),
    ("ApprovalRequestResolved", Handling::Mapped("answers an ApprovalRequest")),
    // Streaming deltas, progress and UI traffic: nothing a canonical
    // record holds, or already in the context.
    ("ToolCallPart", Handling::Reported),
    ("StepRetry", Handling::Reported),
    ("CompactionBegin", Handling::Reported),
    ("CompactionEnd", Handling::Reported),
    ("HookTriggered", Handling::Reported),
    ("HookResolved", Handling::Reported),
    ("MCPLoadingBegin", Handling::Reported),
    ("MCPLoadingEnd", Handling::Reported),
    ("Notification", Handling::Reported),
    ("PlanDisplay", Handling::Reported),
    ("BtwBegin", Handling::Reported),
    ("BtwEnd", Handling::Reported),
    ("ToolCallRequest", Handling::Reported),
    ("QuestionRequest", Handling::Reported),
    ("HookRequest", Handling::Reported),
];

pub fn context_handling(role: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_CONTEXT_ROLES, role)
}

pub fn wire_handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_WIRE_TYPES, kind)
}

/// The text Kimi CLI puts before the summary of a compacted context.
pub const COMPACTION_PREFIX: &str =
    "<system>Previous context has been compacted. Here is the compaction output:</system>";

/// The reading state of one agent's context files (the main session's or a
/// subagent's), across their rotations.
pub struct Transcript {
    /// The context file being read, relative to the home.
    pub file: String,
    /// The same file relative to the session folder: what record ids name.
    id_file: String,
    /// The subagent id for records of a subagent.
    pub agent: Option<String>,
    pub wire: WireIndex,
    pub dedup: Dedup,
}

impl Transcript {
    pub fn new(agent: Option<String>, wire: WireIndex) -> Transcript {
        Transcript { file: String::new(), id_file: String::new(), agent, wire, dedup: Dedup::default() }
    }

    /// Starts the next context file of this transcript; `id_file` is its
    /// path relative to the session folder.
    pub fn start_file(&mut self, file: String, id_file: String) {
        self.file = file;
        self.id_file = id_file;
        self.dedup.start_file();
    }

    /// Maps one line of a context file.
    pub fn line(&mut self, line: &Line<'_>, out: &mut Out<'_>) {
        let value: Value = match serde_json::from_slice(line.bytes) {
            Ok(v) => v,
            Err(_) => {
                report_bad_line(out.diags, line, "context line", &self.file);
                return;
            }
        };
        let role = str_of(&value, "role");
        let span = (line.offset, line.len);
        let compaction = role == Some("user")
            && text_of(value.get("content").unwrap_or(&Value::Null), "").starts_with(COMPACTION_PREFIX);
        if self.dedup.carried_over(Fnv::of(line.bytes), role.unwrap_or(""), compaction) {
            out.diags.add(
                "carried-over-line",
                Severity::Info,
                &format!("context:{}", type_name(role)),
                Some(&self.file),
                Some(line.offset),
            );
            return;
        }
        match role {
            Some("_system_prompt" | "system") => {
                let text = text_of(value.get("content").unwrap_or(&Value::Null), "\n");
                self.push(out, 0, Body::System { text }, None, span);
            }
            Some("user") => self.user(&value, compaction, span, out),
            Some("assistant") => self.assistant(&value, span, out),
            Some("tool") => self.tool(&value, span, out),
            other => out.unmapped(
                other.and_then(context_handling),
                &format!("context:{}", type_name(other)),
                &self.file,
                line.offset,
            ),
        }
    }

    fn user(&mut self, value: &Value, compaction: bool, span: (u64, u64), out: &mut Out<'_>) {
        let content = value.get("content").unwrap_or(&Value::Null);
        let ts = self.wire.take_turn(input_hash(content)).and_then(rfc3339_secs);
        if compaction {
            let full = text_of(content, "\n");
            let summary = full.strip_prefix(COMPACTION_PREFIX).unwrap_or(&full).trim_start_matches('\n').to_string();
            self.push(out, 0, Body::Compaction { summary, trigger: None }, ts, span);
            return;
        }
        // `<system>…</system>` and `<system-reminder>` parts are injected by
        // the harness, not typed by the person.
        let mut said = Vec::new();
        let mut injected = Vec::new();
        let mut attachments = Vec::new();
        match content {
            Value::String(s) => said.push(s.as_str()),
            Value::Array(parts) => {
                for part in parts {
                    match str_of(part, "type") {
                        Some("text") => {
                            let text = str_of(part, "text").unwrap_or("");
                            if is_injected(text) { injected.push(text) } else { said.push(text) }
                        }
                        Some(kind @ ("image_url" | "audio_url" | "video_url")) => attachments.push(Attachment {
                            kind: kind.trim_end_matches("_url").to_string(),
                            media_type: media_type(part, kind),
                        }),
                        other => out.diags.add(
                            "unmapped-content-part",
                            Severity::Info,
                            &format!("user:{}", type_name(other)),
                            Some(&self.file),
                            Some(span.0),
                        ),
                    }
                }
            }
            _ => {}
        }
        let mut index = 0;
        if !injected.is_empty() {
            let text = injected.join("\n");
            self.push(
                out,
                index,
                Body::Observation { subtype: "system-reminder".into(), text: Some(text) },
                ts.clone(),
                span,
            );
            index += 1;
        }
        if !said.is_empty() || !attachments.is_empty() || injected.is_empty() {
            self.push(out, index, Body::User { text: said.join("\n"), attachments }, ts, span);
        }
    }

    fn assistant(&mut self, value: &Value, span: (u64, u64), out: &mut Out<'_>) {
        let content = value.get("content").unwrap_or(&Value::Null);
        let calls: &[Value] = value.get("tool_calls").and_then(Value::as_array).map_or(&[], Vec::as_slice);
        let text = text_of(content, "");
        let key = match calls.iter().find_map(|c| str_of(c, "id")) {
            Some(id) => call_key(id),
            None => text_key(Fnv::of(text.as_bytes())),
        };
        let step = self.wire.take_step(&key).unwrap_or_default();
        let ts = step.ts.and_then(rfc3339_secs);
        let mut index = 0;
        if let Value::Array(parts) = content {
            for part in parts {
                match str_of(part, "type") {
                    Some("text") => {}
                    Some("think") => {
                        let encrypted = str_of(part, "encrypted").filter(|e| !e.is_empty());
                        let reasoning = Reasoning {
                            text: str_of(part, "think").filter(|t| !t.is_empty()).map(str::to_string),
                            opaque: encrypted.map(str::to_string),
                            encrypted: encrypted.is_some(),
                        };
                        self.push(out, index, Body::Reasoning(reasoning), ts.clone(), span);
                        index += 1;
                    }
                    other => out.diags.add(
                        "unmapped-content-part",
                        Severity::Info,
                        &format!("assistant:{}", type_name(other)),
                        Some(&self.file),
                        Some(span.0),
                    ),
                }
            }
        }
        let assistant =
            Assistant { text, model: None, message_id: step.message_id, stop_reason: None, usage: step.usage };
        self.push(out, index, Body::Assistant(assistant), ts.clone(), span);
        index += 1;
        for call in calls {
            let function = call.get("function").unwrap_or(&Value::Null);
            let arguments = match function.get("arguments") {
                Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone())),
                Some(other) => other.clone(),
                None => Value::Null,
            };
            let body = Body::ToolCall {
                call_id: str_of(call, "id").unwrap_or("").to_string(),
                name: str_of(function, "name").unwrap_or("").to_string(),
                arguments,
            };
            self.push(out, index, body, ts.clone(), span);
            index += 1;
        }
    }

    fn tool(&mut self, value: &Value, span: (u64, u64), out: &mut Out<'_>) {
        let call_id = str_of(value, "tool_call_id").unwrap_or("").to_string();
        let outcome = self.wire.take_result(&call_id).unwrap_or_default();
        let content = text_of(value.get("content").unwrap_or(&Value::Null), "\n");
        let body = Body::ToolResult { call_id, content, ok: outcome.is_error.map(|e| !e) };
        self.push(out, 0, body, outcome.ts.and_then(rfc3339_secs), span);
    }

    fn push(&self, out: &mut Out<'_>, index: usize, body: Body, ts: Option<String>, span: (u64, u64)) {
        let record = Record {
            id: location_id(&self.id_file, span.0, index),
            body,
            parent: None,
            ts,
            agent: self.agent.clone(),
            src: Some(SourceSpan { file: self.file.clone(), offset: span.0, len: span.1 }),
        };
        out.writer.push(&record);
    }
}

/// A text part the harness injected into a user message.
fn is_injected(text: &str) -> bool {
    let t = text.trim_start();
    (t.starts_with("<system>") || t.starts_with("<system-reminder>"))
        && (t.trim_end().ends_with("</system>") || t.trim_end().ends_with("</system-reminder>"))
}

/// The media type of a `data:` URL part.
fn media_type(part: &Value, kind: &str) -> Option<String> {
    let url = part.get(kind).and_then(|u| str_of(u, "url"))?;
    let rest = url.strip_prefix("data:")?;
    let end = rest.find([';', ','])?;
    Some(rest[..end].to_string()).filter(|m| !m.is_empty() && m.len() <= 100)
}
