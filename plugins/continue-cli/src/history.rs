//! `ChatHistoryItem` → canonical records.
//!
//! | `message.role` | records |
//! |---|---|
//! | `user` | `user` (text; `imageUrl` parts as attachments), then an `observation` `context_item` per `contextItems` entry |
//! | `assistant` | `assistant` (text, `usage.model`, usage), a `tool_call` per `toolCalls` entry, then a `tool_result` per `toolCallStates` entry with `output` (`ok` from `status`) |
//! | `thinking` | `reasoning` |
//! | `system` | `system` |
//! | `tool` | `tool_result` of `toolCallId` |
//!
//! History items carry no ids: a message's record is named by its item's
//! byte location; calls by their native `id`, results `<callId>#result`.
//! Every record's `src` is its item's span in the file. The store keeps no
//! times: records have none.

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Reasoning, Record, SourceSpan, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::genai::attachment;
use trajhost_codec_sdk::records::location_id;
use trajhost_codec_sdk::text::type_name;

use crate::{Handling, handling};

/// One `ChatHistoryItem`. `editorState` (the prompt as the editor held it)
/// repeats `message.content`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Item {
    pub message: Option<Message>,
    pub context_items: Vec<ContextItem>,
    pub tool_call_states: Vec<ToolCallState>,
}

/// `ChatMessage`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Message {
    pub role: Option<String>,
    pub content: Content,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Option<MessageUsage>,
    /// A `tool` message's call.
    pub tool_call_id: Option<String>,
}

/// `MessageContent`: a string, or parts.
#[derive(Debug, Default, Deserialize)]
#[serde(untagged)]
pub enum Content {
    #[default]
    None,
    Text(String),
    Parts(Vec<Part>),
    Other(Value),
}

/// `MessagePart`: `{type: "text", text}` or `{type: "imageUrl", imageUrl: {url}}`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Part {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub text: Option<String>,
    pub image_url: Option<Value>,
}

impl Content {
    /// The text of the content (text parts joined).
    pub fn text(&self) -> String {
        match self {
            Content::Text(t) => t.clone(),
            Content::Parts(parts) => parts.iter().filter_map(|p| p.text.as_deref()).collect::<Vec<_>>().join("\n"),
            Content::None | Content::Other(_) => String::new(),
        }
    }

    fn attachments(&self) -> Vec<Attachment> {
        let Content::Parts(parts) = self else { return Vec::new() };
        parts
            .iter()
            .filter(|p| p.image_url.is_some())
            .map(|p| {
                let url = p.image_url.as_ref().and_then(|u| u.get("url")).and_then(Value::as_str).unwrap_or("");
                let mime = url.strip_prefix("data:").and_then(|r| r.split(';').next());
                attachment(mime.or(Some("image/*")))
            })
            .collect()
    }
}

/// A `toolCalls` entry: `{id, type: "function", function: {name, arguments}}`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ToolCall {
    pub id: Option<String>,
    pub function: Function,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Function {
    pub name: Option<String>,
    /// The arguments as the model streamed them: a JSON string.
    pub arguments: Option<String>,
}

impl ToolCall {
    /// The arguments, parsed (a string that is no JSON stays a string).
    pub fn arguments(&self) -> Value {
        match self.function.arguments.as_deref().map(str::trim) {
            None | Some("") => Value::Object(Default::default()),
            Some(text) => serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string())),
        }
    }
}

/// A `toolCallStates` entry.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolCallState {
    pub tool_call_id: Option<String>,
    pub tool_call: Option<ToolCall>,
    /// `generating`, `generated`, `calling`, `done`, `errored`, `canceled`.
    pub status: Option<String>,
    pub output: Option<Vec<ContextItem>>,
}

/// A `ContextItem`: `{content, name, description}`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ContextItem {
    pub content: Option<String>,
    pub name: Option<String>,
    pub description: Option<String>,
}

/// An assistant message's `usage`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct MessageUsage {
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    pub total_tokens: Option<u64>,
    pub model: Option<String>,
    pub cost_cents: Option<f64>,
    pub prompt_tokens_details: Option<TokensDetails>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TokensDetails {
    #[serde(alias = "cached_tokens")]
    pub cached_tokens: Option<u64>,
    #[serde(alias = "cache_write_tokens")]
    pub cache_write_tokens: Option<u64>,
}

impl MessageUsage {
    fn usage(&self) -> Option<Usage> {
        let details = self.prompt_tokens_details.as_ref();
        let usage = Usage {
            input: self.prompt_tokens,
            output: self.completion_tokens,
            cache_read: details.and_then(|d| d.cached_tokens),
            cache_write: details.and_then(|d| d.cache_write_tokens),
            reasoning: None,
            cost_usd: self.cost_cents.map(|c| c / 100.0),
        };
        (usage != Usage::default()).then_some(usage)
    }
}

/// The `ok` a state's `status` records: `done` succeeded, `errored` and
/// `canceled` did not; the others are a call still running.
pub fn status_ok(status: Option<&str>) -> Option<bool> {
    match status? {
        "done" => Some(true),
        "errored" | "canceled" | "cancelled" => Some(false),
        _ => None,
    }
}

/// A result's text: its output items' contents, joined.
pub fn output_text(output: &[ContextItem]) -> String {
    output.iter().filter_map(|o| o.content.as_deref()).collect::<Vec<_>>().join("\n")
}

/// The record id of a call's result.
pub fn result_id(call_id: &str) -> String {
    format!("{call_id}#result")
}

/// Maps the history items of one file, in order.
pub struct Mapper {
    file: String,
    emitted: BTreeSet<String>,
    pub diags: Diagnostics,
    pub records: Vec<Record>,
}

impl Mapper {
    pub fn new(file: &str) -> Mapper {
        Mapper { file: file.to_string(), emitted: BTreeSet::new(), diags: Diagnostics::new(), records: Vec::new() }
    }

    fn diag(&mut self, code: &str, severity: Severity, detail: &str, offset: u64) {
        self.diags.add(code, severity, detail, Some(&self.file), Some(offset));
    }

    fn push(&mut self, id: String, body: Body, parent: Option<String>, span: &SourceSpan) -> bool {
        if !self.emitted.insert(id.clone()) {
            return false;
        }
        self.records.push(Record { id, body, parent, ts: None, agent: None, src: Some(span.clone()) });
        true
    }

    /// One raw history item at `offset` (`len` bytes).
    pub fn item(&mut self, raw: &str, offset: u64, len: u64) {
        let item: Item = match serde_json::from_str(raw) {
            Ok(item) => item,
            Err(_) => {
                self.diag("malformed-message", Severity::Error, "history[]", offset);
                return;
            }
        };
        let span = SourceSpan { file: self.file.clone(), offset, len };
        let Some(message) = item.message.as_ref() else {
            self.diag("unknown-record-type", Severity::Warning, "(no message)", offset);
            return;
        };
        let role = message.role.clone().unwrap_or_default();
        if !matches!(handling(&role), Some(Handling::Mapped(_))) {
            let detail = if role.is_empty() { "(no role)".to_string() } else { type_name(Some(&role)) };
            self.diag("unknown-record-type", Severity::Warning, &detail, offset);
            return;
        }
        if let Content::Other(_) = message.content {
            self.diag("unrecognized-content", Severity::Warning, &format!("{role}.content"), offset);
        }
        if let Content::Parts(parts) = &message.content {
            for part in parts.iter().filter(|p| p.text.is_none() && p.image_url.is_none()) {
                let detail = format!("{role}/{}", type_name(part.kind.as_deref()));
                self.diag("unknown-content-part", Severity::Warning, &detail, offset);
            }
        }
        let id = location_id(&self.file, offset, 0);
        match role.as_str() {
            "user" => self.user(&item, message, id, &span),
            "assistant" => self.assistant(&item, message, id, &span),
            "thinking" => {
                let body =
                    Body::Reasoning(Reasoning { text: Some(message.content.text()), opaque: None, encrypted: false });
                self.push(id, body, None, &span);
            }
            "system" => {
                self.push(id, Body::System { text: message.content.text() }, None, &span);
            }
            _ => {
                // `tool`: a result sent as a message of its own.
                let call_id = message.tool_call_id.clone().unwrap_or_default();
                let body = Body::ToolResult { call_id: call_id.clone(), content: message.content.text(), ok: None };
                if !self.push(result_id(&call_id), body, Some(call_id), &span) {
                    self.diag("duplicate-tool-result", Severity::Info, "tool", offset);
                }
            }
        }
    }

    fn user(&mut self, item: &Item, message: &Message, id: String, span: &SourceSpan) {
        let text = message.content.text();
        let attachments = message.content.attachments();
        self.push(id.clone(), Body::User { text, attachments }, None, span);
        for (n, context) in item.context_items.iter().enumerate() {
            let body = Body::Observation { subtype: "context_item".into(), text: context.content.clone() };
            self.push(location_id(&self.file, span.offset, n + 1), body, Some(id.clone()), span);
        }
    }

    fn assistant(&mut self, item: &Item, message: &Message, id: String, span: &SourceSpan) {
        let usage = message.usage.as_ref();
        let assistant = Assistant {
            text: message.content.text(),
            model: usage.and_then(|u| u.model.clone()).filter(|m| !m.is_empty()),
            message_id: None,
            stop_reason: None,
            usage: usage.and_then(MessageUsage::usage),
        };
        self.push(id.clone(), Body::Assistant(assistant), None, span);
        let mut calls: Vec<String> = Vec::new();
        let call = |mapper: &mut Mapper, n: usize, c: &ToolCall| {
            let call_id =
                c.id.clone()
                    .filter(|c| !c.is_empty() && !mapper.emitted.contains(c))
                    .unwrap_or_else(|| location_id(&mapper.file, span.offset, n + 1));
            let body = Body::ToolCall {
                call_id: call_id.clone(),
                name: c.function.name.clone().unwrap_or_default(),
                arguments: c.arguments(),
            };
            mapper.push(call_id.clone(), body, Some(id.clone()), span);
            call_id
        };
        for (n, c) in message.tool_calls.iter().enumerate() {
            calls.push(call(self, n, c));
        }
        for (n, state) in item.tool_call_states.iter().enumerate() {
            let native = state.tool_call_id.clone().or_else(|| state.tool_call.as_ref().and_then(|c| c.id.clone()));
            let call_id = match native.as_ref().filter(|c| calls.contains(c)) {
                Some(c) => c.clone(),
                // A state whose call the message does not list: its call first.
                None => {
                    let c = state.tool_call.clone().unwrap_or_default();
                    let call_id = call(self, message.tool_calls.len() + n, &c);
                    calls.push(call_id.clone());
                    call_id
                }
            };
            let Some(output) = state.output.as_ref() else {
                if status_ok(state.status.as_deref()).is_none() {
                    self.diag("unfinished-tool-call", Severity::Info, "toolCallStates[].output", span.offset);
                }
                continue;
            };
            let body = Body::ToolResult {
                call_id: call_id.clone(),
                content: output_text(output),
                ok: status_ok(state.status.as_deref()),
            };
            if !self.push(result_id(&call_id), body, Some(call_id), span) {
                self.diag("duplicate-tool-result", Severity::Info, "toolCallStates[]", span.offset);
            }
        }
    }
}
