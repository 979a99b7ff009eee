//! A checkpoint item → canonical records.
//!
//! A checkpoint chunk is a JSON array of items `{message: {role, content[…],
//! …}, source: "history", turn_index}`: the model context, in order.
//!
//! | item | records |
//! |---|---|
//! | `user`, `text` parts | `user` (the texts joined) |
//! | `assistant`, `text` parts | `assistant` (the texts joined; the model is `meta.json`'s `config.model_name`) |
//! | `assistant`, `tool_call` part `{id, name, arguments{raw, type: "json", value}}` | `tool_call` (`value`, else `raw` parsed) |
//! | `tool` `{tool_call_id, name, outcome, content: [text]}` | `tool_result`; `ok`: `outcome` "success" and, for output that is a JSON object with a `returncode` (bash), that code 0 |
//! | `system`, `text` parts | `system` |
//!
//! Ids: a call is its `id`, a result `<tool_call_id>#result`, anything else
//! its place (`<chunk>@<offset>#<n>`). A chunk is content-addressed, so
//! places never move while a session lives. The store keeps no times for
//! the model context.

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Body, Record, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::records::location_id;

use crate::{Handling, handling};

/// One checkpoint item.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Item {
    pub message: Option<Message>,
    pub turn_index: Option<u64>,
}

/// A message of the model context.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Message {
    pub role: Option<String>,
    pub content: Vec<Part>,
    pub tool_call_id: Option<String>,
    pub name: Option<String>,
    pub outcome: Option<String>,
}

/// A content part.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Part {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub text: Option<String>,
    pub id: Option<String>,
    pub name: Option<String>,
    pub arguments: Option<Arguments>,
}

/// A call's arguments: as the model streamed them (`raw`) and parsed.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Arguments {
    pub raw: Option<String>,
    pub value: Option<Value>,
}

impl Arguments {
    pub fn value(&self) -> Value {
        if let Some(v) = &self.value {
            return v.clone();
        }
        match self.raw.as_deref().map(str::trim) {
            None | Some("") => Value::Object(Default::default()),
            Some(text) => serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string())),
        }
    }
}

impl Message {
    /// The text parts, joined.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter(|p| p.kind.as_deref() == Some("text"))
            .filter_map(|p| p.text.as_deref())
            .collect();
        texts.join("\n")
    }

    /// The native types of its parts: `<role>/<part type>`.
    pub fn kinds(&self) -> Vec<String> {
        let role = self.role.as_deref().unwrap_or("(no role)");
        self.content.iter().map(|p| format!("{role}/{}", p.kind.as_deref().unwrap_or("(no type)"))).collect()
    }

    /// Whether a tool ran successfully: `outcome` "success", and a bash
    /// result's `returncode` 0.
    pub fn ok(&self) -> Option<bool> {
        let outcome = self.outcome.as_deref()?;
        let code = serde_json::from_str::<Value>(&self.text()).ok().and_then(|v| v.get("returncode")?.as_i64());
        Some(outcome == "success" && code.unwrap_or(0) == 0)
    }
}

/// The id of a call's result.
pub fn result_id(call_id: &str) -> String {
    format!("{call_id}#result")
}

/// Maps the items of a session's chunks, in order.
pub struct Mapper {
    model: Option<String>,
    emitted: BTreeSet<String>,
    pub diags: Diagnostics,
    pub records: Vec<Record>,
}

impl Mapper {
    pub fn new(model: Option<String>) -> Mapper {
        Mapper { model, emitted: BTreeSet::new(), diags: Diagnostics::new(), records: Vec::new() }
    }

    fn push(&mut self, id: String, body: Body, parent: Option<String>, span: &SourceSpan) -> bool {
        if !self.emitted.insert(id.clone()) {
            return false;
        }
        self.records.push(Record { id, body, parent, ts: None, agent: None, src: Some(span.clone()) });
        true
    }

    /// One raw item of chunk `file` at `offset` (`len` bytes).
    pub fn item(&mut self, file: &str, raw: &str, offset: u64, len: u64) {
        let span = SourceSpan { file: file.to_string(), offset, len };
        let message = match serde_json::from_str::<Item>(raw) {
            Ok(Item { message: Some(message), .. }) => message,
            Ok(_) => {
                self.diags.add("unknown-record-type", Severity::Warning, "(no message)", Some(file), Some(offset));
                return;
            }
            Err(_) => {
                self.diags.add("malformed-message", Severity::Error, "checkpoint item", Some(file), Some(offset));
                return;
            }
        };
        for kind in message.kinds() {
            if !matches!(handling(&kind), Some(Handling::Mapped(_))) {
                self.diags.add("unknown-record-type", Severity::Warning, &kind, Some(file), Some(offset));
            }
        }
        let own_id = |n: usize| location_id(file, offset, n);
        match message.role.as_deref() {
            Some("user") => {
                let text = message.text();
                if !text.is_empty() {
                    self.push(own_id(0), Body::User { text, attachments: Vec::new() }, None, &span);
                }
            }
            Some("system") => {
                let text = message.text();
                self.push(own_id(0), Body::System { text }, None, &span);
            }
            Some("assistant") => {
                let text = message.text();
                let mut parent = None;
                if !text.is_empty() {
                    let assistant =
                        Assistant { text, model: self.model.clone(), message_id: None, stop_reason: None, usage: None };
                    self.push(own_id(0), Body::Assistant(assistant), None, &span);
                    parent = Some(own_id(0));
                }
                let calls = message.content.iter().filter(|p| p.kind.as_deref() == Some("tool_call"));
                for (n, part) in calls.enumerate() {
                    let call_id = part
                        .id
                        .clone()
                        .filter(|c| !c.is_empty() && !self.emitted.contains(c))
                        .unwrap_or_else(|| own_id(n + 1));
                    let arguments =
                        part.arguments.as_ref().map(Arguments::value).unwrap_or(Value::Object(Default::default()));
                    let body = Body::ToolCall {
                        call_id: call_id.clone(),
                        name: part.name.clone().unwrap_or_default(),
                        arguments,
                    };
                    self.push(call_id, body, parent.clone(), &span);
                }
            }
            Some("tool") => {
                let call_id = message.tool_call_id.clone().unwrap_or_default();
                let body = Body::ToolResult { call_id: call_id.clone(), content: message.text(), ok: message.ok() };
                if !self.push(result_id(&call_id), body, Some(call_id), &span) {
                    self.diags.add("duplicate-tool-result", Severity::Info, "tool", Some(file), Some(offset));
                }
            }
            other => {
                let detail = other.unwrap_or("(no role)");
                self.diags.add("unknown-record-type", Severity::Warning, detail, Some(file), Some(offset));
            }
        }
    }
}
