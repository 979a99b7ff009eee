//! `MessageRecord` → canonical records.
//!
//! | `type` | records |
//! |---|---|
//! | `user` | `user` (text, attachments; `<session_context>`/`<hook_context>` text is an `observation`), then a `tool_result` per `functionResponse` part whose call recorded no result |
//! | `gemini` (`model`) | `reasoning` per thought, `assistant` (text of `content`, model, usage), a `tool_call` per `toolCalls` entry (and per `functionCall` part not among them), then the calls' `result`s as `tool_result` (`ok` from `status`) |
//! | `info`, `warning`, `error` | `observation` of that subtype |
//!
//! Ids come from native ids (message id, call id, `<callId>#result`,
//! `<messageId>#thought<n>`); a message without an id, or an id seen
//! before, gets its byte location. Every record's `src` is its message's
//! span in the file.

use std::collections::BTreeSet;

use serde::Deserialize;
use serde::de::IgnoredAny;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Body, Reasoning, Record, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::genai::{Content, attachment, status_ok};
use trajhost_codec_sdk::records::location_id;
use trajhost_codec_sdk::text::type_name;

use crate::{Handling, handling};

/// One `MessageRecord`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Message {
    pub id: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub timestamp: Option<String>,
    pub content: Content,
    pub tool_calls: Option<Vec<ToolCall>>,
    pub thoughts: Option<Vec<Thought>>,
    pub tokens: Option<Tokens>,
    pub model: Option<String>,
    /// Not a `MessageRecord` field: the API's `Content.parts`, seen in
    /// third-party files instead of `content` (reported, not read).
    pub parts: Option<IgnoredAny>,
}

/// The shapes inside a message and their mapping, shared with the JSONL
/// layout.
pub use trajhost_gemini_cli_core::message::{Thought, Tokens, ToolCall, harness_context_kind, result_id};
use trajhost_gemini_cli_core::message::{no_result, part_calls, result_text, thoughts, unguard_command, usage};

/// Maps the messages of one file, in order.
pub struct Mapper {
    file: String,
    emitted: BTreeSet<String>,
    last_ts: Option<String>,
    pub diags: Diagnostics,
    pub records: Vec<Record>,
}

impl Mapper {
    pub fn new(file: &str) -> Mapper {
        Mapper {
            file: file.to_string(),
            emitted: BTreeSet::new(),
            last_ts: None,
            diags: Diagnostics::new(),
            records: Vec::new(),
        }
    }

    fn diag(&mut self, code: &str, severity: Severity, detail: &str, offset: u64) {
        self.diags.add(code, severity, detail, Some(&self.file), Some(offset));
    }

    /// One raw message at `offset` (`len` bytes).
    pub fn message(&mut self, raw: &str, offset: u64, len: u64) {
        let message: Message = match serde_json::from_str(raw) {
            Ok(m) => m,
            Err(_) => {
                self.diag("malformed-message", Severity::Error, "messages[]", offset);
                return;
            }
        };
        let span = SourceSpan { file: self.file.clone(), offset, len };
        if let Some(ts) = &message.timestamp {
            self.last_ts = Some(ts.clone());
        }
        let kind = message.kind.clone().unwrap_or_default();
        match handling(&kind) {
            Some(Handling::Mapped(_)) => {}
            _ => {
                let detail = if kind.is_empty() { "(no type)".to_string() } else { type_name(Some(&kind)) };
                self.diag("unknown-record-type", Severity::Warning, &detail, offset);
                return;
            }
        }
        if message.parts.is_some() && matches!(message.content, Content::None) {
            let detail = format!("{}.parts", type_name(Some(&kind)));
            self.diag("unrecognized-content", Severity::Warning, &detail, offset);
        }
        if let Content::Unrecognized = message.content {
            self.diag("unrecognized-content", Severity::Warning, &format!("{kind}.content"), offset);
        }
        let id = match message.id.clone().filter(|id| !id.is_empty() && !self.emitted.contains(id)) {
            Some(id) => id,
            None => location_id(&self.file, offset, 0),
        };
        match kind.as_str() {
            "user" => self.user(&message, id, span),
            "gemini" | "model" => self.gemini(&message, id, span),
            _ => {
                let ts = message.timestamp.clone().or_else(|| self.last_ts.clone());
                let body = Body::Observation { subtype: kind.clone(), text: Some(message.content.text()) };
                self.push(id, body, None, ts, &span);
            }
        }
    }

    fn push(&mut self, id: String, body: Body, parent: Option<String>, ts: Option<String>, span: &SourceSpan) -> bool {
        if !self.emitted.insert(id.clone()) {
            return false;
        }
        self.records.push(Record { id, body, parent, ts, agent: None, src: Some(span.clone()) });
        true
    }

    fn unknown_parts(&mut self, role: &str, content: &Content, offset: u64) {
        for part in content.parts() {
            if let Some(kind) = part.unknown_kind() {
                let detail = format!("{role}/{}", type_name(Some(kind)));
                self.diag("unknown-content-part", Severity::Warning, &detail, offset);
            }
        }
    }

    fn user(&mut self, message: &Message, id: String, span: SourceSpan) {
        let ts = message.timestamp.clone().or_else(|| self.last_ts.clone());
        let mut attachments = Vec::new();
        for part in message.content.parts() {
            if let Some(blob) = part.inline_data.as_ref().or(part.file_data.as_ref()) {
                attachments.push(attachment(blob.mime_type.as_deref()));
            }
        }
        self.unknown_parts("user", &message.content, span.offset);
        let text = message.content.text();
        if !text.is_empty() || !attachments.is_empty() {
            let body = match harness_context_kind(&text) {
                Some(subtype) => Body::Observation { subtype: subtype.into(), text: Some(text) },
                None => Body::User { text: unguard_command(text), attachments },
            };
            self.push(id, body, None, ts.clone(), &span);
        }
        // Tool responses sent back to the model: read from the call's
        // `result` already, unless the call recorded none.
        for part in message.content.parts() {
            let Some(fr) = &part.function_response else { continue };
            let call_id = fr.id.clone().unwrap_or_default();
            let body = Body::ToolResult { call_id: call_id.clone(), content: fr.text(), ok: None };
            if !self.push(result_id(&call_id), body, Some(call_id), ts.clone(), &span) {
                self.diag("duplicate-tool-response", Severity::Info, "user/functionResponse", span.offset);
            }
        }
    }

    fn gemini(&mut self, message: &Message, id: String, span: SourceSpan) {
        let ts = message.timestamp.clone().or_else(|| self.last_ts.clone());
        let thoughts = thoughts(message.thoughts.as_deref(), &message.content);
        for (n, (text, thought_ts)) in thoughts.into_iter().enumerate() {
            let body = Body::Reasoning(Reasoning { text: Some(text), opaque: None, encrypted: false });
            self.push(format!("{id}#thought{n}"), body, Some(id.clone()), thought_ts.or(ts.clone()), &span);
        }
        self.unknown_parts("gemini", &message.content, span.offset);
        let calls = message.tool_calls.as_deref().unwrap_or(&[]);
        let text = message.content.text();
        let usage = message.tokens.as_ref().and_then(usage);
        let has_call_parts = message.content.parts().iter().any(|p| p.function_call.is_some());
        // A message with nothing in it (no text, calls or usage) adds no record.
        if !text.is_empty() || !calls.is_empty() || has_call_parts || usage.is_some() {
            let assistant = Assistant {
                text,
                model: message.model.clone().filter(|m| !m.is_empty()),
                message_id: Some(id.clone()),
                stop_reason: None,
                usage,
            };
            self.push(id.clone(), Body::Assistant(assistant), None, ts.clone(), &span);
        }
        let mut call_ids = Vec::new();
        for (n, call) in calls.iter().enumerate() {
            let call_id = call.id.clone().filter(|c| !c.is_empty()).unwrap_or_else(|| format!("{id}#call{n}"));
            self.push(call_id.clone(), call.body(&call_id), Some(id.clone()), ts.clone(), &span);
            call_ids.push(call_id);
        }
        for (call_id, body) in part_calls(&message.content, &id, &call_ids) {
            self.push(call_id, body, Some(id.clone()), ts.clone(), &span);
        }
        for (call, call_id) in calls.iter().zip(&call_ids) {
            if no_result(&call.result) {
                if !matches!(call.status.as_deref(), Some("success" | "error" | "cancelled")) {
                    self.diag("unfinished-tool-call", Severity::Info, "toolCalls[].result", span.offset);
                }
                continue;
            }
            let body = Body::ToolResult {
                call_id: call_id.clone(),
                content: result_text(&call.result),
                ok: status_ok(call.status.as_deref()),
            };
            let result_ts = call.timestamp.clone().or(ts.clone());
            self.push(result_id(call_id), body, Some(call_id.clone()), result_ts, &span);
        }
    }
}
