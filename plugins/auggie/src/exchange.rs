//! A `chatHistory` entry → canonical records.
//!
//! | node | records |
//! |---|---|
//! | request type 0 `text_node` (else `request_message`) | `user` |
//! | request type 1 `tool_result_node` | `tool_result` of `tool_use_id` (`ok` = not `is_error`) |
//! | request type 4 `ide_state_node` | none: its workspace folder is `meta.cwd` |
//! | response type 0 (else `response_text`) | `assistant` |
//! | response type 5 `tool_use` | `tool_call` (`input_json` parsed) |
//!
//! Ids: the user record is the exchange's `request_id`, its response
//! `<request_id>#response`; calls are their `tool_use_id`, results
//! `<tool_use_id>#result`. Times: a response's first node
//! (`timestamp_ms`), a call's node (`timestamp_ms`: when the model asked),
//! a result's `start_time_ms + duration_ms` (when it ended); a prompt has
//! none (an exchange records no request time).
//! Every record's `src` is its exchange's span in the file.

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Body, Record, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::records::location_id;
use trajhost_codec_sdk::time::rfc3339_epoch_ms;

use crate::{Handling, handling};

/// Request node types.
pub const REQUEST_TEXT: i64 = 0;
pub const REQUEST_TOOL_RESULT: i64 = 1;
pub const REQUEST_IDE_STATE: i64 = 4;
/// Response node types.
pub const RESPONSE_TEXT: i64 = 0;
pub const RESPONSE_TOOL_USE: i64 = 5;

/// One `chatHistory` entry; the bookkeeping beside `exchange` (`completed`,
/// `sequenceId`, `finishedAt`, `changedFiles…`, `source`) carries nothing a
/// record holds.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Entry {
    pub exchange: Option<Exchange>,
    pub finished_at: Option<String>,
}

/// One model call: what was sent, what came back.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Exchange {
    pub request_message: Option<String>,
    pub response_text: Option<String>,
    pub request_id: Option<String>,
    pub request_nodes: Vec<Node>,
    pub response_nodes: Vec<Node>,
}

/// A request or response node.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Node {
    #[serde(rename = "type")]
    pub kind: Option<i64>,
    pub content: Option<String>,
    pub text_node: Option<TextNode>,
    pub tool_result_node: Option<ToolResultNode>,
    pub ide_state_node: Option<IdeStateNode>,
    pub tool_use: Option<ToolUse>,
    pub timestamp_ms: Option<i64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct TextNode {
    pub content: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ToolResultNode {
    pub tool_use_id: Option<String>,
    pub content: Option<String>,
    pub is_error: Option<bool>,
    pub duration_ms: Option<i64>,
    pub start_time_ms: Option<i64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct IdeStateNode {
    pub workspace_folders: Vec<WorkspaceFolder>,
    pub current_terminal: Option<Terminal>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct WorkspaceFolder {
    pub folder_root: Option<String>,
    pub repository_root: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Terminal {
    pub current_working_directory: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ToolUse {
    pub tool_use_id: Option<String>,
    pub tool_name: Option<String>,
    /// The arguments as the model streamed them: a JSON string.
    pub input_json: Option<String>,
    pub started_at_ms: Option<i64>,
}

impl ToolUse {
    /// The arguments, parsed (a string that is no JSON stays a string).
    pub fn arguments(&self) -> Value {
        match self.input_json.as_deref().map(str::trim) {
            None | Some("") => Value::Object(Default::default()),
            Some(text) => serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string())),
        }
    }
}

/// The name a node type is known by (`request/text`, `response/17`).
pub fn node_kind(side: &str, kind: Option<i64>) -> String {
    let name = match (side, kind) {
        ("request", Some(REQUEST_TEXT)) => "text",
        ("request", Some(REQUEST_TOOL_RESULT)) => "tool_result",
        ("request", Some(REQUEST_IDE_STATE)) => "ide_state",
        ("response", Some(RESPONSE_TEXT)) => "text",
        ("response", Some(RESPONSE_TOOL_USE)) => "tool_use",
        (_, Some(n)) => return format!("{side}/{n}"),
        (_, None) => return format!("{side}/(no type)"),
    };
    format!("{side}/{name}")
}

impl Exchange {
    /// The prompt: the text nodes, else `request_message`.
    pub fn prompt(&self) -> String {
        let texts: Vec<&str> = self
            .request_nodes
            .iter()
            .filter(|n| n.kind == Some(REQUEST_TEXT))
            .filter_map(|n| n.text_node.as_ref()?.content.as_deref())
            .collect();
        if texts.is_empty() { self.request_message.clone().unwrap_or_default() } else { texts.join("\n") }
    }

    /// The answer: `response_text`, else the text nodes.
    pub fn answer(&self) -> String {
        match self.response_text.as_deref().filter(|t| !t.is_empty()) {
            Some(text) => text.to_string(),
            None => self
                .response_nodes
                .iter()
                .filter(|n| n.kind == Some(RESPONSE_TEXT))
                .filter_map(|n| n.content.as_deref())
                .collect(),
        }
    }

    /// The earliest time any of its nodes records (ms).
    pub fn first_ms(&self) -> Option<i64> {
        let results = self.request_nodes.iter().filter_map(|n| n.tool_result_node.as_ref()?.start_time_ms);
        let responses = self
            .response_nodes
            .iter()
            .flat_map(|n| [n.timestamp_ms, n.tool_use.as_ref().and_then(|t| t.started_at_ms)]);
        results.chain(responses.flatten()).min()
    }

    /// The working directory of the first IDE state node.
    pub fn cwd(&self) -> Option<String> {
        self.request_nodes.iter().filter_map(|n| n.ide_state_node.as_ref()).find_map(|s| {
            s.workspace_folders
                .iter()
                .find_map(|f| f.folder_root.clone().or_else(|| f.repository_root.clone()))
                .or_else(|| s.current_terminal.as_ref()?.current_working_directory.clone())
                .filter(|c| !c.is_empty())
        })
    }
}

/// The record id of a call's result.
pub fn result_id(call_id: &str) -> String {
    format!("{call_id}#result")
}

/// Maps the exchanges of one file, in order.
pub struct Mapper {
    file: String,
    model: Option<String>,
    emitted: BTreeSet<String>,
    pub diags: Diagnostics,
    pub records: Vec<Record>,
}

impl Mapper {
    pub fn new(file: &str, model: Option<String>) -> Mapper {
        Mapper {
            file: file.to_string(),
            model,
            emitted: BTreeSet::new(),
            diags: Diagnostics::new(),
            records: Vec::new(),
        }
    }

    fn diag(&mut self, code: &str, severity: Severity, detail: &str, offset: u64) {
        self.diags.add(code, severity, detail, Some(&self.file), Some(offset));
    }

    fn push(&mut self, id: String, body: Body, parent: Option<String>, ts: Option<i64>, span: &SourceSpan) -> bool {
        if !self.emitted.insert(id.clone()) {
            return false;
        }
        let ts = ts.and_then(rfc3339_epoch_ms);
        self.records.push(Record { id, body, parent, ts, agent: None, src: Some(span.clone()) });
        true
    }

    /// Warns of node types no table knows.
    fn check_kinds(&mut self, side: &str, nodes: &[Node], offset: u64) {
        for node in nodes {
            let kind = node_kind(side, node.kind);
            if !matches!(handling(&kind), Some(Handling::Mapped(_))) {
                self.diag("unknown-record-type", Severity::Warning, &kind, offset);
            }
        }
    }

    /// One raw `chatHistory` entry at `offset` (`len` bytes).
    pub fn entry(&mut self, raw: &str, offset: u64, len: u64) {
        let entry: Entry = match serde_json::from_str(raw) {
            Ok(entry) => entry,
            Err(_) => {
                self.diag("malformed-message", Severity::Error, "chatHistory[]", offset);
                return;
            }
        };
        let Some(exchange) = entry.exchange else {
            self.diag("unknown-record-type", Severity::Warning, "(no exchange)", offset);
            return;
        };
        let span = SourceSpan { file: self.file.clone(), offset, len };
        self.check_kinds("request", &exchange.request_nodes, offset);
        self.check_kinds("response", &exchange.response_nodes, offset);
        let base = exchange
            .request_id
            .clone()
            .filter(|id| !id.is_empty())
            .unwrap_or_else(|| location_id(&self.file, offset, 0));

        // The request: results of the previous exchange's calls, then the prompt.
        for node in exchange.request_nodes.iter().filter(|n| n.kind == Some(REQUEST_TOOL_RESULT)) {
            let Some(result) = node.tool_result_node.as_ref() else {
                self.diag(
                    "malformed-message",
                    Severity::Warning,
                    "request/tool_result without tool_result_node",
                    offset,
                );
                continue;
            };
            let call_id = result.tool_use_id.clone().unwrap_or_default();
            let ts = result.start_time_ms.map(|s| s + result.duration_ms.unwrap_or(0));
            let body = Body::ToolResult {
                call_id: call_id.clone(),
                content: result.content.clone().unwrap_or_default(),
                ok: result.is_error.map(|e| !e),
            };
            if !self.push(result_id(&call_id), body, Some(call_id), ts, &span) {
                self.diag("duplicate-tool-result", Severity::Info, "request/tool_result", offset);
            }
        }
        let prompt = exchange.prompt();
        if !prompt.is_empty() {
            self.push(base.clone(), Body::User { text: prompt, attachments: Vec::new() }, None, None, &span);
        }

        // The response: its text, then its calls.
        let calls: Vec<(&ToolUse, Option<i64>)> = exchange
            .response_nodes
            .iter()
            .filter(|n| n.kind == Some(RESPONSE_TOOL_USE))
            .filter_map(|n| Some((n.tool_use.as_ref()?, n.timestamp_ms)))
            .collect();
        let text = exchange.answer();
        if text.is_empty() && calls.is_empty() {
            return;
        }
        let answer_id = format!("{base}#response");
        let first_ts = exchange.response_nodes.iter().find_map(|n| n.timestamp_ms);
        let assistant = Assistant { text, model: self.model.clone(), message_id: None, stop_reason: None, usage: None };
        self.push(answer_id.clone(), Body::Assistant(assistant), None, first_ts, &span);
        for (n, (call, node_ts)) in calls.into_iter().enumerate() {
            let call_id = call
                .tool_use_id
                .clone()
                .filter(|c| !c.is_empty() && !self.emitted.contains(c))
                .unwrap_or_else(|| location_id(&self.file, offset, n + 1));
            let body = Body::ToolCall {
                call_id: call_id.clone(),
                name: call.tool_name.clone().unwrap_or_default(),
                arguments: call.arguments(),
            };
            let ts = node_ts.or(call.started_at_ms).or(first_ts);
            self.push(call_id, body, Some(answer_id.clone()), ts, &span);
        }
    }
}
