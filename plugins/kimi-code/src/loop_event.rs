//! `context.append_loop_event`: the agent loop's events, one step (one model
//! call) at a time.
//!
//! A step is `step.begin`, its `content.part`s (`think`, `text`), its
//! `tool.call`s and their `tool.result`s, then `step.end` with the call's
//! usage, finish reason and message id. The step's records are held until
//! it ends so its answer carries that usage: one `assistant` record per
//! step (its text parts joined), placed where its first text or call was,
//! then the calls and results in journal order. Memory is bounded by one
//! step ([`MAX_STEP_RECORDS`]).

use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Body, Reasoning, Record, Usage};
use trajhost_codec_sdk::json::{count_of, str_of};
use trajhost_codec_sdk::known::Handling;
use trajhost_codec_sdk::text::type_name;

use crate::journal::{At, Out, arguments};

/// Every loop event type known to appear.
pub const KNOWN_LOOP_EVENTS: &[(&str, Handling)] = &[
    ("step.begin", Handling::Mapped("starts a step")),
    ("content.part", Handling::Mapped("reasoning (think), assistant text (text)")),
    ("tool.call", Handling::Mapped("tool_call")),
    ("tool.result", Handling::Mapped("tool_result (ok = !isError)")),
    ("step.end", Handling::Mapped("the step's assistant usage, stop_reason, message_id")),
];

/// Records one step holds at most before it is let out early.
pub const MAX_STEP_RECORDS: usize = 4096;

#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct Step {
    /// The step's uuid (`step.begin.uuid`, the events' `stepUuid`).
    uuid: Option<String>,
    records: Vec<Record>,
    /// Where the step's assistant record is in `records`.
    answer: Option<usize>,
}

impl Step {
    pub fn event(&mut self, event: &Value, at: &At<'_>, model: Option<&str>, out: &mut Out<'_>) {
        let kind = str_of(event, "type");
        let step_uuid = match kind {
            Some("step.begin" | "step.end") => str_of(event, "uuid"),
            _ => str_of(event, "stepUuid"),
        };
        // An event of another step (a journal missing a step.end) ends this one.
        if kind == Some("step.begin")
            || (step_uuid.is_some() && self.uuid.is_some() && step_uuid != self.uuid.as_deref())
        {
            self.flush(out);
        }
        if self.uuid.is_none() {
            self.uuid = step_uuid.map(str::to_string);
        }
        match kind {
            Some("step.begin") => {}
            Some("content.part") => {
                let part = event.get("part").unwrap_or(&Value::Null);
                match str_of(part, "type") {
                    Some("text") => {
                        let text = str_of(part, "text").unwrap_or("");
                        let i = self.answer_at(at, model);
                        if let Body::Assistant(a) = &mut self.records[i].body {
                            a.text.push_str(text);
                        }
                    }
                    Some("think") => {
                        let think = str_of(part, "think").unwrap_or("");
                        // Consecutive think parts are one stretch of reasoning.
                        if let Some(Record { body: Body::Reasoning(r), .. }) = self.records.last_mut() {
                            r.text.get_or_insert_with(String::new).push_str(think);
                        } else {
                            let encrypted = str_of(part, "encrypted").filter(|e| !e.is_empty());
                            let reasoning = Reasoning {
                                text: Some(think.to_string()),
                                opaque: encrypted.map(str::to_string),
                                encrypted: encrypted.is_some(),
                            };
                            self.push(at.record(0, Body::Reasoning(reasoning)), out);
                        }
                    }
                    other => out.diags.add(
                        "unmapped-content-part",
                        Severity::Info,
                        &format!("content.part:{}", type_name(other)),
                        Some(at.file),
                        Some(at.offset),
                    ),
                }
            }
            Some("tool.call") => {
                self.answer_at(at, model);
                let body = Body::ToolCall {
                    call_id: str_of(event, "toolCallId").or_else(|| str_of(event, "uuid")).unwrap_or("").to_string(),
                    name: str_of(event, "name").unwrap_or("").to_string(),
                    arguments: arguments(event.get("args").or_else(|| event.get("arguments"))),
                };
                self.push(at.record(0, body), out);
            }
            Some("tool.result") => {
                let result = event.get("result").unwrap_or(&Value::Null);
                let content = match result.get("output") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => result.to_string(),
                };
                let body = Body::ToolResult {
                    call_id: str_of(event, "toolCallId")
                        .or_else(|| str_of(event, "parentUuid"))
                        .unwrap_or("")
                        .to_string(),
                    content,
                    ok: result.get("isError").and_then(Value::as_bool).map(|e| !e).or(Some(true)),
                };
                self.push(at.record(0, body), out);
            }
            Some("step.end") => {
                if let Some(Record { body: Body::Assistant(a), .. }) = self.answer.and_then(|i| self.records.get_mut(i))
                {
                    a.usage = event.get("usage").and_then(usage);
                    a.stop_reason = str_of(event, "finishReason").map(str::to_string);
                    a.message_id = str_of(event, "messageId").map(str::to_string);
                }
                self.flush(out);
            }
            other => out.diags.add(
                "unknown-record-type",
                Severity::Warning,
                &format!("loop:{}", type_name(other)),
                Some(at.file),
                Some(at.offset),
            ),
        }
    }

    /// Lets the step's records out, in order.
    pub fn flush(&mut self, out: &mut Out<'_>) {
        for record in self.records.drain(..) {
            out.writer.push(&record);
        }
        self.answer = None;
        self.uuid = None;
    }

    /// The index of the step's assistant record, made here when it has none.
    fn answer_at(&mut self, at: &At<'_>, model: Option<&str>) -> usize {
        if let Some(i) = self.answer {
            return i;
        }
        let assistant = Assistant { model: model.map(str::to_string), ..Assistant::default() };
        // Index 1: a think part may have taken index 0 of the same line.
        self.records.push(at.record(1, Body::Assistant(assistant)));
        self.answer = Some(self.records.len() - 1);
        self.records.len() - 1
    }

    fn push(&mut self, record: Record, out: &mut Out<'_>) {
        if self.records.len() >= MAX_STEP_RECORDS {
            let uuid = self.uuid.take();
            self.flush(out);
            self.uuid = uuid;
        }
        self.records.push(record);
    }
}

/// A step's usage: `inputOther` is the input that was neither read from nor
/// written to the cache.
fn usage(u: &Value) -> Option<Usage> {
    let usage = Usage {
        input: count_of(u, "inputOther"),
        output: count_of(u, "output"),
        cache_read: count_of(u, "inputCacheRead"),
        cache_write: count_of(u, "inputCacheCreation"),
        reasoning: None,
        cost_usd: None,
    };
    (usage.input.is_some() || usage.output.is_some()).then_some(usage)
}
