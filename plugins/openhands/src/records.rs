//! Event kinds → canonical records.
//!
//! Every event file holds one event tagged by `kind`. Every kind is either
//! mapped (see [`KNOWN_EVENT_KINDS`]) or counted in a diagnostic:
//! `unmapped-record-type` for kinds the codec knows and leaves out on
//! purpose, `unknown-record-type` for kinds it has never seen.
//!
//! Record ids are event ids (`<event id>#<n>` for a second record of one
//! event); a tool result's `parent` is the action event it answers, which is
//! its tool call's record.

use std::collections::BTreeMap;

use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Reasoning, Record, SourceSpan};

use crate::clock::Clock;
use crate::store::ResponseUsage;
use trajhost_codec_sdk::json::str_of;
use trajhost_codec_sdk::text::type_name;

pub use trajhost_codec_sdk::known::Handling;
pub use trajhost_codec_sdk::records::Out;

/// Every event `kind` of the software-agent-sdk (1.x) event log.
pub const KNOWN_EVENT_KINDS: &[(&str, Handling)] = &[
    ("SystemPromptEvent", Handling::Mapped("system (system_prompt and dynamic_context)")),
    (
        "MessageEvent",
        Handling::Mapped("user / assistant / system by llm_message.role; reasoning; observation extended-content"),
    ),
    ("ActionEvent", Handling::Mapped("tool_call; reasoning and assistant (thought) once per llm_response_id")),
    ("ObservationEvent", Handling::Mapped("tool_result (observation.is_error, exit_code)")),
    ("UserRejectObservation", Handling::Mapped("tool_result, ok false")),
    ("AgentErrorEvent", Handling::Mapped("tool_result, ok false")),
    ("CondensationSummaryEvent", Handling::Mapped("compaction")),
    ("Condensation", Handling::Mapped("compaction when it carries a summary, else observation condensation")),
    ("ConversationErrorEvent", Handling::Mapped("observation conversation-error/<code>")),
    // Bookkeeping, streaming and telemetry.
    ("CondensationRequest", Handling::Reported),
    ("ConversationStateUpdateEvent", Handling::Reported),
    ("HookExecutionEvent", Handling::Reported),
    ("LLMCompletionLogEvent", Handling::Reported),
    ("TokenEvent", Handling::Reported),
    ("StreamingDeltaEvent", Handling::Reported),
    ("PauseEvent", Handling::Reported),
    ("InterruptEvent", Handling::Reported),
    ("ACPToolCallEvent", Handling::Reported),
];

pub fn handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_EVENT_KINDS, kind)
}

/// Text of a content list (`[{type: text, text}, …]`) or a string, text
/// parts joined by newlines.
pub fn text_of(content: &Value) -> String {
    match content {
        Value::Object(_) => str_of(content, "text").unwrap_or("").to_string(),
        _ => trajhost_codec_sdk::json::content_text(content),
    }
}

/// The reading state of one event log.
pub struct Events {
    pub clock: Clock,
    usages: BTreeMap<String, ResponseUsage>,
    /// The `llm_response_id` whose assistant record was emitted last (parallel
    /// tool calls of one response are consecutive action events).
    last_response: Option<String>,
}

/// One event being mapped.
struct Ctx<'a> {
    file: &'a str,
    len: u64,
    id: &'a str,
    ts: Option<String>,
    parent: Option<String>,
}

impl Events {
    pub fn new(clock: Clock, usages: BTreeMap<String, ResponseUsage>) -> Events {
        Events { clock, usages, last_response: None }
    }

    /// Maps one event read from `file` (`len` bytes); `file_id` is the id in
    /// its file name, used when the event has none.
    pub fn event(&mut self, file: &str, len: u64, file_id: &str, event: &Value, out: &mut Out<'_>) {
        let kind = str_of(event, "kind");
        let (ts, assumed) = match str_of(event, "timestamp").and_then(|t| self.clock.rfc3339(t)) {
            Some((ts, assumed)) => (Some(ts), assumed),
            None => (None, false),
        };
        if assumed {
            out.diags.add("naive-time-read-as-utc", Severity::Info, "timestamp", Some(file), None);
        }
        let ctx = Ctx {
            file,
            len,
            id: str_of(event, "id").filter(|i| !i.is_empty()).unwrap_or(file_id),
            ts,
            parent: str_of(event, "parent_id").map(str::to_string),
        };
        if kind != Some("ActionEvent") {
            self.last_response = None;
        }
        match kind {
            Some("SystemPromptEvent") => {
                let mut text = text_of(event.get("system_prompt").unwrap_or(&Value::Null));
                let dynamic = text_of(event.get("dynamic_context").unwrap_or(&Value::Null));
                if !dynamic.is_empty() {
                    text.push_str("\n\n");
                    text.push_str(&dynamic);
                }
                push(out, &ctx, 0, Body::System { text });
            }
            Some("MessageEvent") => self.message(event, &ctx, out),
            Some("ActionEvent") => self.action(event, &ctx, out),
            Some("ObservationEvent") => {
                let obs = event.get("observation").unwrap_or(&Value::Null);
                let exit_code = obs.get("exit_code").and_then(Value::as_i64);
                let ok = match obs.get("is_error").and_then(Value::as_bool) {
                    Some(true) => Some(false),
                    Some(false) => Some(exit_code.is_none_or(|c| c == 0)),
                    None => exit_code.map(|c| c == 0),
                };
                let content = match obs.get("content") {
                    Some(c) => text_of(c),
                    None => str_of(obs, "output").unwrap_or("").to_string(),
                };
                self.result(event, &ctx, content, ok, out);
            }
            Some("UserRejectObservation") => {
                let reason = str_of(event, "rejection_reason").unwrap_or("").to_string();
                self.result(event, &ctx, reason, Some(false), out);
            }
            Some("AgentErrorEvent") => {
                let error = str_of(event, "error").unwrap_or("").to_string();
                self.result(event, &ctx, error, Some(false), out);
            }
            Some("CondensationSummaryEvent") => {
                push(
                    out,
                    &ctx,
                    0,
                    Body::Compaction { summary: str_of(event, "summary").unwrap_or("").to_string(), trigger: None },
                );
            }
            Some("Condensation") => {
                let body = match str_of(event, "summary") {
                    Some(summary) => Body::Compaction { summary: summary.to_string(), trigger: None },
                    None => {
                        let forgotten = event.get("forgotten_event_ids").and_then(Value::as_array).map_or(0, Vec::len);
                        Body::Observation {
                            subtype: "condensation".into(),
                            text: Some(format!("{forgotten} events forgotten")),
                        }
                    }
                };
                push(out, &ctx, 0, body);
            }
            Some("ConversationErrorEvent") => {
                let code = type_name(str_of(event, "code"));
                let body = Body::Observation {
                    subtype: format!("conversation-error/{code}"),
                    text: str_of(event, "detail").map(str::to_string),
                };
                push(out, &ctx, 0, body);
            }
            other => {
                let detail = type_name(other);
                match other.and_then(handling) {
                    Some(_) => out.diags.add("unmapped-record-type", Severity::Info, &detail, Some(file), None),
                    None => out.diags.add("unknown-record-type", Severity::Warning, &detail, Some(file), None),
                }
            }
        }
    }

    fn message(&mut self, event: &Value, ctx: &Ctx<'_>, out: &mut Out<'_>) {
        let m = event.get("llm_message").unwrap_or(&Value::Null);
        let content = m.get("content").unwrap_or(&Value::Null);
        let text = text_of(content);
        let mut index = 1;
        let role = str_of(m, "role").or_else(|| str_of(event, "source"));
        match role {
            Some("user") => {
                let attachments: Vec<Attachment> = content
                    .as_array()
                    .map_or(&[][..], Vec::as_slice)
                    .iter()
                    .filter(|p| str_of(p, "type") == Some("image"))
                    .map(|_| Attachment { kind: "image".into(), media_type: None })
                    .collect();
                push(out, ctx, 0, Body::User { text, attachments });
            }
            Some("assistant") => {
                index = self.reasoning(m, ctx, index, out);
                let response = str_of(event, "llm_response_id");
                let assistant = self.assistant(text, response);
                push(out, ctx, 0, Body::Assistant(assistant));
            }
            Some("system") => push(out, ctx, 0, Body::System { text }),
            other => {
                out.diags.add(
                    "unknown-record-type",
                    Severity::Warning,
                    &format!("MessageEvent/{}", type_name(other)),
                    Some(ctx.file),
                    None,
                );
                return;
            }
        }
        let extended = text_of(event.get("extended_content").unwrap_or(&Value::Null));
        if !extended.is_empty() {
            push(out, ctx, index, Body::Observation { subtype: "extended-content".into(), text: Some(extended) });
        }
    }

    fn action(&mut self, event: &Value, ctx: &Ctx<'_>, out: &mut Out<'_>) {
        let response = str_of(event, "llm_response_id");
        if response.is_none() || response != self.last_response.as_deref() {
            // Reasoning is `#2…`, the assistant `#1`, the call the event id.
            self.reasoning(event, ctx, 2, out);
            let thought = text_of(event.get("thought").unwrap_or(&Value::Null));
            let assistant = self.assistant(thought, response);
            push(out, ctx, 1, Body::Assistant(assistant));
            self.last_response = response.map(str::to_string);
        }
        let call = event.get("tool_call").unwrap_or(&Value::Null);
        let arguments = match call.get("arguments") {
            Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone())),
            Some(v) => v.clone(),
            None => event.get("action").cloned().unwrap_or(Value::Null),
        };
        let body = Body::ToolCall {
            call_id: str_of(event, "tool_call_id").or_else(|| str_of(call, "id")).unwrap_or("").to_string(),
            name: str_of(event, "tool_name").or_else(|| str_of(call, "name")).unwrap_or("").to_string(),
            arguments,
        };
        push(out, ctx, 0, body);
    }

    /// Reasoning records of a message or action (`reasoning_content`,
    /// `thinking_blocks`, `responses_reasoning_item`), from id suffix `index`.
    fn reasoning(&mut self, v: &Value, ctx: &Ctx<'_>, mut index: usize, out: &mut Out<'_>) -> usize {
        if let Some(text) = str_of(v, "reasoning_content").filter(|t| !t.is_empty()) {
            push(
                out,
                ctx,
                index,
                Body::Reasoning(Reasoning { text: Some(text.to_string()), opaque: None, encrypted: false }),
            );
            index += 1;
        }
        for block in v.get("thinking_blocks").and_then(Value::as_array).map_or(&[][..], Vec::as_slice) {
            let redacted = str_of(block, "type") == Some("redacted_thinking");
            let reasoning = Reasoning {
                text: str_of(block, "thinking").filter(|t| !t.is_empty()).map(str::to_string),
                opaque: str_of(block, "signature").or_else(|| str_of(block, "data")).map(str::to_string),
                encrypted: redacted,
            };
            push(out, ctx, index, Body::Reasoning(reasoning));
            index += 1;
        }
        if let Some(item) = v.get("responses_reasoning_item").filter(|i| i.is_object()) {
            let summary: Vec<&str> = item
                .get("summary")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .filter_map(Value::as_str)
                .collect();
            let encrypted = str_of(item, "encrypted_content");
            let reasoning = Reasoning {
                text: (!summary.is_empty()).then(|| summary.join("\n")),
                opaque: encrypted.map(str::to_string),
                encrypted: encrypted.is_some(),
            };
            push(out, ctx, index, Body::Reasoning(reasoning));
            index += 1;
        }
        index
    }

    fn assistant(&mut self, text: String, response: Option<&str>) -> Assistant {
        let usage = response.and_then(|r| self.usages.remove(r));
        Assistant {
            text,
            model: usage.as_ref().and_then(|u| u.model.clone()),
            message_id: response.map(str::to_string),
            stop_reason: None,
            usage: usage.and_then(|u| u.usage),
        }
    }

    fn result(&mut self, event: &Value, ctx: &Ctx<'_>, content: String, ok: Option<bool>, out: &mut Out<'_>) {
        let body = Body::ToolResult { call_id: str_of(event, "tool_call_id").unwrap_or("").to_string(), content, ok };
        let parent = str_of(event, "action_id").map(str::to_string).or(ctx.parent.clone());
        push_with_parent(out, ctx, 0, body, parent);
    }
}

fn push(out: &mut Out<'_>, ctx: &Ctx<'_>, index: usize, body: Body) {
    push_with_parent(out, ctx, index, body, ctx.parent.clone());
}

fn push_with_parent(out: &mut Out<'_>, ctx: &Ctx<'_>, index: usize, body: Body, parent: Option<String>) {
    let id = if index == 0 { ctx.id.to_string() } else { format!("{}#{index}", ctx.id) };
    out.writer.push(&Record {
        id,
        body,
        parent,
        ts: ctx.ts.clone(),
        agent: None,
        src: Some(SourceSpan { file: ctx.file.to_string(), offset: 0, len: ctx.len }),
    });
}
