//! `updates.jsonl` lines → canonical records.
//!
//! Each line is an ACP notification (`method` `session/update`, or
//! `_x.ai/session/update` for Grok Build's extensions) whose
//! `params.update.sessionUpdate` names its kind. The conversation streams
//! as chunks, joined here into one record per run:
//! - `user_message_chunk`s of one `_meta.promptIndex` are one prompt;
//! - `agent_message_chunk`s are one answer until a prompt, a tool call or
//!   update, or the turn's end breaks the run; `agent_thought_chunk`s
//!   likewise make one reasoning record (put before the answer it precedes);
//! - `tool_call` is a call (first line per id; later ones refine it), the
//!   `tool_call_update` that says `completed` or `failed` its result.
//!
//! Every kind is mapped or counted in a diagnostic (`unmapped-record-type`
//! for kinds known and left out, `unknown-record-type` for others; detail
//! `updates:<kind>`). A run's record points at its first line.

use std::collections::BTreeSet;

use serde_json::Value;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Reasoning, Record, SourceSpan};
use trajhost_codec_sdk::json::str_of;
use trajhost_codec_sdk::jsonl::Line;
use trajhost_codec_sdk::known::Handling;
use trajhost_codec_sdk::records::location_id;
use trajhost_codec_sdk::text::type_name;

use trajhost_grok_build_core::read::{Lines, Out};

use crate::layout::UPDATES;

/// Every `sessionUpdate` kind known to appear: ACP's own and Grok Build's
/// `_x.ai/session/update` extensions (the ones both codecs leave out come
/// from [`trajhost_grok_build_core::known_update_types`]).
pub const KNOWN_UPDATE_TYPES: &[(&str, Handling)] = trajhost_grok_build_core::known_update_types![
    ("user_message_chunk", Handling::Mapped("user (the chunks of one promptIndex)")),
    ("agent_message_chunk", Handling::Mapped("assistant (a run of chunks)")),
    ("agent_thought_chunk", Handling::Mapped("reasoning (a run of chunks)")),
    ("tool_call", Handling::Mapped("tool_call (name from _meta x.ai/tool, else title; rawInput)")),
    ("tool_call_update", Handling::Mapped("tool_result when completed or failed (content text, else rawOutput)")),
    ("turn_completed", Handling::Mapped("observation turn-usage (the turn's usage as recorded)")),
    ("retry_state", Handling::Mapped("observation retry (an API error and its retry)")),
];

pub fn update_handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_UPDATE_TYPES, kind)
}

/// A run of chunks being joined: its record, which text grows.
struct Run {
    record: Record,
    /// The prompt a user run belongs to.
    prompt: Option<u64>,
}

pub struct Journal {
    file: String,
    /// The model of the answers (the prompt's `_meta.modelId`, else the
    /// summary's current model).
    model: Option<String>,
    user: Option<Run>,
    thought: Option<Run>,
    answer: Option<Run>,
    calls: BTreeSet<String>,
    results: BTreeSet<String>,
}

impl Journal {
    pub fn new(file: String, model: Option<String>) -> Journal {
        Journal {
            file,
            model,
            user: None,
            thought: None,
            answer: None,
            calls: BTreeSet::new(),
            results: BTreeSet::new(),
        }
    }

    /// The call a `tool_call` (or an unannounced update) makes, once per id.
    fn call(&mut self, update: &Value, index: usize, at: &dyn Fn(usize, Body) -> Record) -> Option<Record> {
        let id = str_of(update, "toolCallId")?;
        if !self.calls.insert(id.to_string()) {
            return None;
        }
        let tool = update.get("_meta").and_then(|m| m.get("x.ai/tool"));
        let name = tool.and_then(|t| str_of(t, "name")).or_else(|| str_of(update, "title")).unwrap_or("");
        let body = Body::ToolCall {
            call_id: id.to_string(),
            name: name.to_string(),
            arguments: update.get("rawInput").cloned().unwrap_or(Value::Null),
        };
        Some(at(index, body))
    }

    fn end_user(&mut self, out: &mut Out<'_>) {
        if let Some(run) = self.user.take() {
            out.writer.push(&run.record);
        }
    }

    fn end_thought(&mut self, out: &mut Out<'_>) {
        if let Some(run) = self.thought.take() {
            out.writer.push(&run.record);
        }
    }

    fn end_answer(&mut self, out: &mut Out<'_>) {
        self.end_thought(out);
        if let Some(run) = self.answer.take() {
            out.writer.push(&run.record);
        }
    }

    fn end_all(&mut self, out: &mut Out<'_>) {
        self.end_user(out);
        self.end_answer(out);
    }
}

impl Lines for Journal {
    fn line(&mut self, line: &Line<'_>, out: &mut Out<'_>) {
        let value: Value = match serde_json::from_slice(line.bytes) {
            Ok(v) => v,
            Err(_) => return out.bad_line(line, "updates line", &self.file),
        };
        let params = value.get("params").unwrap_or(&Value::Null);
        let update = params.get("update").unwrap_or(&Value::Null);
        let ts = trajhost_grok_build_core::updates::line_time(&value);
        let file = self.file.clone();
        let at = |index: usize, body: Body| Record {
            id: location_id(UPDATES, line.offset, index),
            body,
            parent: None,
            ts: ts.clone(),
            agent: None,
            src: Some(SourceSpan { file: file.clone(), offset: line.offset, len: line.len }),
        };
        let kind = str_of(update, "sessionUpdate");
        let text = update.get("content").and_then(|c| str_of(c, "text")).unwrap_or("");
        match kind {
            Some("user_message_chunk") => {
                self.end_answer(out);
                let meta = update.get("_meta").unwrap_or(&Value::Null);
                let prompt = meta.get("promptIndex").and_then(Value::as_u64);
                if let Some(model) = str_of(meta, "modelId") {
                    self.model = Some(model.to_string());
                }
                let same = self.user.as_ref().is_some_and(|u| prompt.is_none() || u.prompt == prompt);
                if !same {
                    self.end_user(out);
                    let body = Body::User { text: String::new(), attachments: Vec::new() };
                    self.user = Some(Run { record: at(0, body), prompt });
                }
                if let Some(Run { record: Record { body: Body::User { text: t, attachments }, .. }, .. }) =
                    &mut self.user
                {
                    t.push_str(text);
                    if let Some(image) = image_of(update.get("content")) {
                        attachments.push(image);
                    }
                }
            }
            Some("agent_message_chunk") => {
                self.end_user(out);
                self.end_thought(out);
                if self.answer.is_none() {
                    let assistant = Assistant { model: self.model.clone(), ..Assistant::default() };
                    self.answer = Some(Run { record: at(0, Body::Assistant(assistant)), prompt: None });
                }
                if let Some(Run { record: Record { body: Body::Assistant(a), .. }, .. }) = &mut self.answer {
                    a.text.push_str(text);
                }
            }
            Some("agent_thought_chunk") => {
                self.end_user(out);
                if self.thought.is_none() {
                    let reasoning = Reasoning { text: Some(String::new()), opaque: None, encrypted: false };
                    self.thought = Some(Run { record: at(0, Body::Reasoning(reasoning)), prompt: None });
                }
                if let Some(Run { record: Record { body: Body::Reasoning(r), .. }, .. }) = &mut self.thought {
                    r.text.get_or_insert_with(String::new).push_str(text);
                }
            }
            Some("tool_call") => {
                self.end_all(out);
                if let Some(call) = self.call(update, 0, &at) {
                    out.writer.push(&call);
                }
            }
            Some("tool_call_update") => {
                self.end_all(out);
                let status = str_of(update, "status");
                let Some(id) = str_of(update, "toolCallId") else { return };
                if !matches!(status, Some("completed" | "failed")) || self.results.contains(id) {
                    return;
                }
                // A result whose call the journal never announced: the update
                // says what was called.
                if !self.calls.contains(id)
                    && let Some(call) = self.call(update, 1, &at)
                {
                    out.writer.push(&call);
                }
                self.results.insert(id.to_string());
                let raw = update.get("rawOutput");
                let exit = raw.and_then(|o| o.get("exit_code").or_else(|| o.get("exitCode"))).and_then(Value::as_i64);
                let body = Body::ToolResult {
                    call_id: id.to_string(),
                    content: result_text(update.get("content"), raw),
                    ok: Some(status == Some("completed") && exit.is_none_or(|c| c == 0)),
                };
                out.writer.push(&at(0, body));
            }
            Some("turn_completed") => {
                self.end_all(out);
                let usage = update.get("usage").map(Value::to_string);
                out.writer.push(&at(0, Body::Observation { subtype: "turn-usage".into(), text: usage }));
            }
            Some("retry_state") => {
                let text = str_of(update, "message").map(str::to_string);
                out.writer.push(&at(0, Body::Observation { subtype: "retry".into(), text }));
            }
            other => {
                let detail = format!("updates:{}", type_name(other));
                out.unmapped(other.and_then(update_handling), &detail, &self.file, line.offset);
            }
        }
    }

    /// Ends the file: the runs still open.
    fn finish(&mut self, out: &mut Out<'_>) {
        self.end_all(out);
    }
}

/// A tool result's text: the content blocks' text, else `rawOutput.output`,
/// else `rawOutput` as recorded.
fn result_text(content: Option<&Value>, raw: Option<&Value>) -> String {
    let texts: Vec<&str> = content
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks.iter().filter_map(|b| b.get("content").and_then(|c| str_of(c, "text"))).collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let joined = texts.join("\n");
    if !joined.trim().is_empty() {
        return joined;
    }
    match raw {
        Some(Value::String(s)) => s.clone(),
        Some(r) => match str_of(r, "output") {
            Some(o) => o.to_string(),
            None => r.to_string(),
        },
        None => joined,
    }
}

/// An image content block of a prompt chunk.
fn image_of(content: Option<&Value>) -> Option<Attachment> {
    let c = content?;
    (str_of(c, "type") == Some("image")).then(|| Attachment {
        kind: "image".into(),
        media_type: str_of(c, "mimeType").filter(|m| m.len() <= 100).map(str::to_string),
    })
}
