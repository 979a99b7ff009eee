//! Op types of a Kimi Code journal (`wire.jsonl`) → canonical records.
//!
//! Each line after `metadata` is an op tagged by `type`. The context ops
//! (`context.append_message`, `context.append_loop_event`,
//! `context.apply_compaction`) are what the model saw and did; the turn ops
//! repeat the prompts (`turn.prompt`, `turn.steer`: the context appends the
//! same input) or mark state. Every type is mapped or counted in a
//! diagnostic: `unmapped-record-type` for types known and left out on
//! purpose, `unknown-record-type` for others (detail `op:<type>`).

use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Record, SourceSpan};
use trajhost_codec_sdk::json::{content_text, str_of};
use trajhost_codec_sdk::jsonl::{Line, report_bad_line};
use trajhost_codec_sdk::known::Handling;
pub use trajhost_codec_sdk::records::Out;
use trajhost_codec_sdk::records::{Lines, location_id};
use trajhost_codec_sdk::text::type_name;
use trajhost_codec_sdk::time::rfc3339_ms;

use crate::loop_event::Step;

/// Every op type known to appear in a journal.
pub const KNOWN_OP_TYPES: &[(&str, Handling)] = &[
    ("metadata", Handling::Mapped("native version (protocol_version)")),
    (
        "context.append_message",
        Handling::Mapped(
            "user (origin user); observation injection/<variant>, system-trigger/<name>; assistant, tool_call, tool_result, system by role",
        ),
    ),
    (
        "context.append_loop_event",
        Handling::Mapped("reasoning, assistant, tool_call, tool_result (see KNOWN_LOOP_EVENTS)"),
    ),
    ("context.apply_compaction", Handling::Mapped("compaction (trigger from full_compaction.begin)")),
    ("full_compaction.begin", Handling::Mapped("the trigger of the next compaction")),
    ("config.update", Handling::Mapped("system (systemPrompt); the model of later answers (modelAlias)")),
    ("profile.bind", Handling::Mapped("system (systemPrompt); the model of later answers (modelAlias)")),
    ("llm.request", Handling::Mapped("the model of the answers that follow")),
    ("turn.cancel", Handling::Mapped("observation interrupt")),
    ("plan_mode.enter", Handling::Mapped("observation plan-mode enter")),
    ("plan_mode.exit", Handling::Mapped("observation plan-mode exit")),
    ("permission.set_mode", Handling::Mapped("observation permission-mode")),
    // The context appends the same input.
    ("turn.prompt", Handling::Reported),
    ("turn.steer", Handling::Reported),
    ("turn.ended", Handling::Reported),
    ("full_compaction.complete", Handling::Reported),
    // Repeats step.end's usage.
    ("usage.record", Handling::Reported),
    ("llm.tools_snapshot", Handling::Reported),
    ("tools.set_active_tools", Handling::Reported),
    ("permission.record_approval_result", Handling::Reported),
    ("token_counting.measured", Handling::Reported),
    ("token_counting.turn_recorded", Handling::Reported),
    ("runtime.set_binding", Handling::Reported),
    ("plugin.session_start", Handling::Reported),
];

pub fn op_handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_OP_TYPES, kind)
}

/// A record of one journal line: its id, time and span.
pub struct At<'a> {
    pub file: &'a str,
    pub offset: u64,
    pub len: u64,
    pub ts: Option<String>,
}

impl At<'_> {
    pub fn record(&self, index: usize, body: Body) -> Record {
        Record {
            id: location_id(crate::layout::WIRE, self.offset, index),
            body,
            parent: None,
            ts: self.ts.clone(),
            agent: None,
            src: Some(SourceSpan { file: self.file.to_string(), offset: self.offset, len: self.len }),
        }
    }
}

/// The reading state of one journal (kept with a resume point: the wire
/// journal only grows).
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Journal {
    file: String,
    /// The model answering now (`llm.request.model`, else the profile's alias).
    model: Option<String>,
    /// `full_compaction.begin.source`, until the compaction it announces.
    compaction_trigger: Option<String>,
    /// The loop step being read; its records go out when it ends.
    step: Step,
}

impl Journal {
    pub fn new(file: String) -> Journal {
        Journal { file, model: None, compaction_trigger: None, step: Step::default() }
    }

    fn report(&self, detail: &str, handling: Option<Handling>, offset: u64, out: &mut Out<'_>) {
        match handling {
            Some(_) => out.diags.add("unmapped-record-type", Severity::Info, detail, Some(&self.file), Some(offset)),
            None => out.diags.add("unknown-record-type", Severity::Warning, detail, Some(&self.file), Some(offset)),
        }
    }

    /// A message appended to the context, by role and (for user messages)
    /// `origin.kind`: only `user` (or none) is what a person typed.
    fn message(&self, message: &Value, at: &At<'_>, out: &mut Out<'_>) {
        let content = message.get("content").unwrap_or(&Value::Null);
        let text = content_text(content);
        let origin = message.get("origin").unwrap_or(&Value::Null);
        match str_of(message, "role") {
            Some("user") => {
                let body = match str_of(origin, "kind") {
                    None | Some("user") => Body::User { text, attachments: attachments(content) },
                    Some("injection") => Body::Observation {
                        subtype: format!("injection/{}", type_name(str_of(origin, "variant"))),
                        text: Some(text),
                    },
                    Some("system_trigger") => Body::Observation {
                        subtype: format!("system-trigger/{}", type_name(str_of(origin, "name"))),
                        text: Some(text),
                    },
                    Some(other) => {
                        Body::Observation { subtype: format!("origin/{}", type_name(Some(other))), text: Some(text) }
                    }
                };
                out.writer.push(&at.record(0, body));
            }
            Some("assistant") => {
                let assistant = Assistant { text, model: self.model.clone(), ..Assistant::default() };
                out.writer.push(&at.record(0, Body::Assistant(assistant)));
                let calls = message.get("toolCalls").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
                for (i, call) in calls.iter().enumerate() {
                    let function = call.get("function").unwrap_or(call);
                    let body = Body::ToolCall {
                        call_id: str_of(call, "toolCallId").or_else(|| str_of(call, "id")).unwrap_or("").to_string(),
                        name: str_of(function, "name").unwrap_or("").to_string(),
                        arguments: arguments(function.get("args").or_else(|| function.get("arguments"))),
                    };
                    out.writer.push(&at.record(i + 1, body));
                }
            }
            Some("tool") => {
                let call_id = str_of(message, "toolCallId").or_else(|| str_of(message, "tool_call_id")).unwrap_or("");
                let body = Body::ToolResult { call_id: call_id.to_string(), content: text, ok: None };
                out.writer.push(&at.record(0, body));
            }
            Some("system") => out.writer.push(&at.record(0, Body::System { text })),
            other => self.report(&format!("message:{}", type_name(other)), None, at.offset, out),
        }
    }
}

impl Lines for Journal {
    fn save(&self) -> Option<Vec<u8>> {
        trajhost_codec_sdk::resume::save(self)
    }

    fn line(&mut self, line: &Line<'_>, out: &mut Out<'_>) {
        let value: Value = match serde_json::from_slice(line.bytes) {
            Ok(v) => v,
            Err(_) => {
                report_bad_line(out.diags, line, "wire line", &self.file);
                return;
            }
        };
        let ts = value.get("time").and_then(Value::as_i64).map(rfc3339_ms);
        let at = At { file: &self.file, offset: line.offset, len: line.len, ts };
        let kind = str_of(&value, "type");
        if kind == Some("context.append_loop_event") {
            let event = value.get("event").unwrap_or(&Value::Null);
            self.step.event(event, &at, self.model.as_deref(), out);
            return;
        }
        // An op that makes a record ends the step before it, so the journal's
        // order is kept; the others (a request, an approval) happen inside steps.
        if matches!(
            kind,
            Some(
                "context.append_message"
                    | "context.apply_compaction"
                    | "turn.cancel"
                    | "plan_mode.enter"
                    | "plan_mode.exit"
                    | "permission.set_mode"
            )
        ) || value.get("systemPrompt").is_some()
        {
            self.step.flush(out);
        }
        match kind {
            Some("metadata") => {}
            Some("context.append_message") => {
                let message = value.get("message").unwrap_or(&Value::Null);
                self.message(message, &at, out);
            }
            Some("context.apply_compaction") => {
                let summary = str_of(&value, "summary").or_else(|| str_of(&value, "contextSummary")).unwrap_or("");
                let body = Body::Compaction { summary: summary.to_string(), trigger: self.compaction_trigger.take() };
                out.writer.push(&at.record(0, body));
            }
            Some("full_compaction.begin") => {
                self.compaction_trigger = str_of(&value, "source").map(str::to_string);
            }
            Some("config.update" | "profile.bind") => {
                if let Some(alias) = str_of(&value, "modelAlias") {
                    self.model = Some(alias.to_string());
                }
                if let Some(prompt) = str_of(&value, "systemPrompt") {
                    out.writer.push(&at.record(0, Body::System { text: prompt.to_string() }));
                }
            }
            Some("llm.request") => {
                if let Some(model) = str_of(&value, "model").or_else(|| str_of(&value, "modelAlias")) {
                    self.model = Some(model.to_string());
                }
            }
            Some("turn.cancel") => {
                out.writer.push(&at.record(0, Body::Observation { subtype: "interrupt".into(), text: None }));
            }
            Some(mode @ ("plan_mode.enter" | "plan_mode.exit")) => {
                let text = if mode.ends_with("enter") { "enter" } else { "exit" };
                let body = Body::Observation { subtype: "plan-mode".into(), text: Some(text.into()) };
                out.writer.push(&at.record(0, body));
            }
            Some("permission.set_mode") => {
                let text = str_of(&value, "mode").map(str::to_string);
                out.writer.push(&at.record(0, Body::Observation { subtype: "permission-mode".into(), text }));
            }
            other => self.report(&format!("op:{}", type_name(other)), other.and_then(op_handling), line.offset, out),
        }
    }

    /// Ends the file: a step cut off by the end of the journal still counts.
    fn finish(&mut self, out: &mut Out<'_>) {
        self.step.flush(out);
    }
}

/// Arguments as recorded: an object, or a JSON string parsed when it is one.
pub fn arguments(args: Option<&Value>) -> Value {
    match args {
        Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone())),
        Some(other) => other.clone(),
        None => Value::Null,
    }
}

/// Image parts of a message.
fn attachments(content: &Value) -> Vec<Attachment> {
    let Value::Array(parts) = content else { return Vec::new() };
    parts
        .iter()
        .filter(|p| matches!(str_of(p, "type"), Some("image" | "image_url")))
        .map(|p| Attachment {
            kind: "image".into(),
            media_type: str_of(p, "mediaType")
                .or_else(|| str_of(p, "media_type"))
                .filter(|m| !m.is_empty() && m.len() <= 100)
                .map(str::to_string),
        })
        .collect()
}
