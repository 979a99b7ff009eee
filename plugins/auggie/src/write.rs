//! `write`: a canonical session → one Auggie session document,
//! `.augment/sessions/<sessionId>.json`, in the shape Auggie 0.36 writes
//! itself (`fixtures/auggie/0.36.0/simple`): `JSON.stringify(session, null,
//! 2)` of
//!
//! ```text
//! {sessionId, created, modified, chatHistory: [
//!   {exchange: {request_message, response_text, request_id,
//!               request_nodes: [{id, type: 0, text_node: {content}},            the prompt
//!                               {id, type: 4, ide_state_node: {workspace_folders, current_terminal}},
//!                               {id, type: 1, tool_result_node: {tool_use_id, content, is_error, …}}],
//!               response_nodes: [{id: 0, type: 0, content, timestamp_ms},        the answer
//!                                {id, type: 5, content: "", tool_use: {tool_use_id, tool_name, input_json}}]},
//!    completed, sequenceId, finishedAt, changedFiles, changedFilesSkipped, changedFilesSkippedCount,
//!    isHistorySummary, historySummaryVersion, source: "local"}
//! ], agentState: {userGuidelines, workspaceGuidelines, modelId, userEmail}, subAgentCreditsUsed, subAgentCostUsd}
//! ```
//!
//! One exchange per model call: a prompt starts an exchange; the answer and
//! the calls of that model turn are its response; the results of those calls
//! start the next exchange (`request_message` ""), whose response is the next
//! model turn. A prompt that follows results before any answer joins their
//! exchange. A call never answered gets an error result in the next exchange
//! (a `placeholder` diagnostic): a tool use without its result is refused by
//! the model API; a call of the last exchange stays unanswered (Auggie
//! resumes such a session as it left it when it stopped mid-call).
//!
//! Not carried, each named in a `not-carried` diagnostic: `reasoning`,
//! `system` (the CLI builds its own system prompt), `attachments`,
//! `observation/<subtype>`, `compaction`, `stop-reason`, `usage`, `model`
//! (the tenant picks it; `agentState.modelId` is left to the CLI),
//! `subagent-transcript`, `orphan-tool-result`, `duplicate-tool-result`,
//! `unknown-kind/<kind>`.
//!
//! The session id is `options.native_id` (a UUID), else a UUID (version-4
//! layout) from the SHA-256 of the canonical `meta` line; each exchange's
//! `request_id` likewise from it and the exchange's place: the same
//! document always gives the same bytes.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::{Value, json};
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Record};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::hash::sha256;
use trajhost_codec_sdk::time::{parse_rfc3339, rfc3339_ms};
use trajhost_codec_sdk::writer::ids;
use trajhost_codec_sdk::writer::{CanonicalInput, json_document, main_content};
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WriteOptions, Written};

use crate::exchange::{REQUEST_IDE_STATE, REQUEST_TEXT, REQUEST_TOOL_RESULT, RESPONSE_TEXT, RESPONSE_TOOL_USE};
use crate::layout;

/// The result written for a call that never got one.
pub const NO_RESULT: &str = "[no result was recorded for this call]";

/// The writer: records are mapped as they arrive; the document is
/// serialized at `finish`.
pub struct Writer {
    options: WriteOptions,
    diags: Diagnostics,
    input: CanonicalInput,
    meta: Option<Meta>,
    exchanges: Vec<ExchangeOut>,
    /// Every call written: id → its exchange.
    calls: BTreeMap<String, usize>,
    answered: BTreeSet<String>,
}

/// A request node as written (the IDE state takes the cwd at `finish`).
enum RequestNode {
    Text(String),
    IdeState,
    ToolResult { call_id: String, content: String, is_error: bool, ts: Option<i64> },
}

/// A response node.
enum ResponseNode {
    Text(String, Option<i64>),
    ToolUse { call_id: String, name: String, input: String, ts: Option<i64> },
}

#[derive(Default)]
struct ExchangeOut {
    request_message: String,
    request: Vec<RequestNode>,
    response: Vec<ResponseNode>,
    /// The latest time of its records (ms).
    last_ts: Option<i64>,
}

impl ExchangeOut {
    fn has_prompt(&self) -> bool {
        self.request.iter().any(|n| matches!(n, RequestNode::Text(_)))
    }
}

/// The document, in the CLI's key order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Document<'a> {
    session_id: &'a str,
    created: String,
    modified: String,
    chat_history: Vec<EntryOut>,
    agent_state: AgentStateOut,
    sub_agent_credits_used: u64,
    sub_agent_cost_usd: u64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AgentStateOut {
    user_guidelines: &'static str,
    workspace_guidelines: &'static str,
    model_id: &'static str,
    user_email: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EntryOut {
    exchange: Value,
    completed: bool,
    sequence_id: usize,
    finished_at: String,
    changed_files: Vec<Value>,
    changed_files_skipped: Vec<Value>,
    changed_files_skipped_count: u64,
    is_history_summary: bool,
    history_summary_version: u64,
    source: &'static str,
}

impl Writer {
    pub fn new(options: WriteOptions) -> Writer {
        Writer {
            options,
            diags: Diagnostics::new(),
            input: CanonicalInput::new(),
            meta: None,
            exchanges: Vec::new(),
            calls: BTreeMap::new(),
            answered: BTreeSet::new(),
        }
    }

    fn placeholder(&mut self, what: &str) {
        self.diags.add("placeholder", Severity::Info, what, None, None);
    }

    /// The exchange that takes a response: the last one, or a new one
    /// without a prompt when there is none.
    fn responding(&mut self) -> usize {
        if self.exchanges.is_empty() {
            self.exchanges.push(ExchangeOut::default());
        }
        self.exchanges.len() - 1
    }

    fn touch(&mut self, index: usize, ts: Option<i64>) {
        let exchange = &mut self.exchanges[index];
        exchange.last_ts = exchange.last_ts.max(ts);
    }

    fn record(&mut self, record: Record) {
        let started = !self.exchanges.is_empty();
        let Some(record) = main_content(&mut self.meta, record, started, &mut self.diags) else { return };
        let ts = record.ts.as_deref().and_then(parse_rfc3339);
        match record.body {
            Body::Meta(_) => {}
            Body::System { .. } => self.diags.not_carried("system"),
            Body::User { text, attachments } => {
                if !attachments.is_empty() {
                    self.diags.not_carried("attachments");
                }
                self.user(text, ts);
            }
            Body::Observation { subtype, .. } => self.diags.not_carried(&format!("observation/{subtype}")),
            Body::Reasoning(_) => self.diags.not_carried("reasoning"),
            Body::Assistant(assistant) => self.assistant(assistant, ts),
            Body::ToolCall { call_id, name, arguments } => self.tool_call(call_id, name, arguments, ts),
            Body::ToolResult { call_id, content, ok } => self.tool_result(call_id, content, ok, ts),
            Body::Compaction { .. } => self.diags.not_carried("compaction"),
        }
    }

    fn user(&mut self, text: String, ts: Option<i64>) {
        // Results not yet answered by the model: the prompt goes with them.
        let joins = self.exchanges.last().is_some_and(|e| e.response.is_empty() && !e.has_prompt());
        if !joins {
            self.exchanges.push(ExchangeOut::default());
        }
        let index = self.exchanges.len() - 1;
        let exchange = &mut self.exchanges[index];
        exchange.request_message = text.clone();
        exchange.request.insert(0, RequestNode::Text(text));
        if !exchange.request.iter().any(|n| matches!(n, RequestNode::IdeState)) {
            exchange.request.insert(1, RequestNode::IdeState);
        }
        self.touch(index, ts);
    }

    fn assistant(&mut self, assistant: Assistant, ts: Option<i64>) {
        if assistant.stop_reason.is_some() {
            self.diags.not_carried("stop-reason");
        }
        if assistant.usage.is_some() {
            self.diags.not_carried("usage");
        }
        if assistant.model.is_some() {
            self.diags.not_carried("model");
        }
        let index = self.responding();
        if !assistant.text.is_empty() {
            self.exchanges[index].response.push(ResponseNode::Text(assistant.text, ts));
        }
        self.touch(index, ts);
    }

    fn tool_call(&mut self, call_id: String, name: String, arguments: Value, ts: Option<i64>) {
        let index = self.responding();
        let arguments = match arguments {
            Value::Null => Value::Object(Default::default()),
            other => other,
        };
        let input = arguments.to_string();
        self.exchanges[index].response.push(ResponseNode::ToolUse { call_id: call_id.clone(), name, input, ts });
        self.touch(index, ts);
        // A repeated call id: the later call takes the result from here on.
        self.answered.remove(&call_id);
        self.calls.insert(call_id, index);
    }

    fn tool_result(&mut self, call_id: String, content: String, ok: Option<bool>, ts: Option<i64>) {
        let Some(&at) = self.calls.get(&call_id) else {
            self.diags.not_carried("orphan-tool-result");
            return;
        };
        if !self.answered.insert(call_id.clone()) {
            self.diags.not_carried("duplicate-tool-result");
            return;
        }
        if ok.is_none() {
            self.placeholder("tool_result_node.is_error");
        }
        // The results of one exchange's calls are the next exchange's request.
        if at + 1 == self.exchanges.len() {
            self.exchanges.push(ExchangeOut { request: vec![RequestNode::IdeState], ..Default::default() });
        }
        let next = &mut self.exchanges[at + 1];
        next.request.push(RequestNode::ToolResult { call_id, content, is_error: ok == Some(false), ts });
        self.touch(at + 1, ts);
    }

    /// Calls never answered get an error result in the next exchange.
    fn answer_the_unanswered(&mut self) {
        let unanswered: Vec<(String, usize)> = self
            .calls
            .iter()
            .filter(|(id, _)| !self.answered.contains(*id))
            .map(|(id, at)| (id.clone(), *at))
            .collect();
        for (call_id, at) in unanswered {
            if at + 1 < self.exchanges.len() {
                let node = RequestNode::ToolResult { call_id, content: NO_RESULT.into(), is_error: true, ts: None };
                self.exchanges[at + 1].request.push(node);
                self.placeholder("tool_result_node (no result)");
            }
        }
    }

    fn entry(&self, n: usize, exchange: &ExchangeOut, cwd: &str, request_id: String, finished: i64) -> EntryOut {
        let mut request_nodes = Vec::new();
        for (i, node) in exchange.request.iter().enumerate() {
            let id = i + 1;
            request_nodes.push(match node {
                RequestNode::Text(text) => json!({"id": id, "type": REQUEST_TEXT, "text_node": {"content": text}}),
                RequestNode::IdeState => json!({"id": id, "type": REQUEST_IDE_STATE, "ide_state_node": {
                    "workspace_folders": [{"repository_root": cwd, "folder_root": cwd}],
                    "workspace_folders_unchanged": false,
                    "current_terminal": {"terminal_id": 0, "current_working_directory": cwd}}}),
                RequestNode::ToolResult { call_id, content, is_error, ts } => {
                    let mut result = json!({"tool_use_id": call_id, "content": content, "is_error": is_error});
                    if let Some(ts) = ts {
                        result["start_time_ms"] = json!(ts);
                        result["duration_ms"] = json!(0);
                    }
                    json!({"id": id, "type": REQUEST_TOOL_RESULT, "tool_result_node": result})
                }
            });
        }
        let mut response_text = String::new();
        let mut response_nodes = Vec::new();
        for (i, node) in exchange.response.iter().enumerate() {
            response_nodes.push(match node {
                ResponseNode::Text(text, ts) => {
                    response_text.push_str(text);
                    let mut node = json!({"id": 0, "type": RESPONSE_TEXT, "content": text});
                    if let Some(ts) = ts {
                        node["timestamp_ms"] = json!(ts);
                    }
                    node
                }
                ResponseNode::ToolUse { call_id, name, input, ts } => {
                    let mut tool_use = json!({"tool_use_id": call_id, "tool_name": name, "input_json": input});
                    if let Some(ts) = ts {
                        tool_use["started_at_ms"] = json!(ts);
                    }
                    let mut node = json!({"id": i + 1, "type": RESPONSE_TOOL_USE, "content": "", "tool_use": tool_use});
                    if let Some(ts) = ts {
                        node["timestamp_ms"] = json!(ts);
                    }
                    node
                }
            });
        }
        EntryOut {
            exchange: json!({
                "request_message": exchange.request_message,
                "response_text": response_text,
                "request_id": request_id,
                "request_nodes": request_nodes,
                "response_nodes": response_nodes,
            }),
            completed: true,
            sequence_id: n + 1,
            finished_at: rfc3339_ms(finished),
            changed_files: Vec::new(),
            changed_files_skipped: Vec::new(),
            changed_files_skipped_count: 0,
            is_history_summary: false,
            history_summary_version: 0,
            source: "local",
        }
    }
}

impl SessionWriter for Writer {
    fn push(&mut self, records: &str) -> Result<Vec<Artifact>, CodecError> {
        for record in self.input.records(records, &mut self.diags)? {
            self.record(record);
        }
        // A JSON document is whole or nothing: it is returned at `finish`.
        Ok(Vec::new())
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        let meta = self.meta.clone().unwrap_or_default();
        let cwd = trajhost_codec_sdk::writer::required_cwd(
            &self.options,
            &meta,
            "Auggie records every prompt's workspace folder",
        )?;
        let first = self.exchanges.iter().filter_map(|e| e.last_ts).min();
        let start = meta.started_at.as_deref().and_then(parse_rfc3339).or(first).unwrap_or_else(|| {
            self.placeholder("created");
            0
        });
        let digest = self.input.meta_digest().unwrap_or_else(|| sha256(start.to_string().as_bytes()));
        let id = ids::uuid_native_id(
            &self.options,
            "Auggie session ids are UUIDs; `auggie --resume <id>` names one",
            || ids::uuid_v4_layout(&digest),
        )?;
        self.answer_the_unanswered();
        let mut finished = start;
        let mut chat_history = Vec::new();
        for (n, exchange) in self.exchanges.iter().enumerate() {
            finished = finished.max(exchange.last_ts.unwrap_or(finished));
            let request_id = ids::uuid_v4_layout(&ids::sha256_of(&[&digest, id.as_bytes(), &n.to_le_bytes()]));
            chat_history.push(self.entry(n, exchange, &cwd, request_id, finished));
        }
        let document = Document {
            session_id: &id,
            created: rfc3339_ms(start),
            modified: rfc3339_ms(finished),
            chat_history,
            agent_state: AgentStateOut { user_guidelines: "", workspace_guidelines: "", model_id: "", user_email: "" },
            sub_agent_credits_used: 0,
            sub_agent_cost_usd: 0,
        };
        let bytes = json_document(&document)?;
        let chunks = vec![Artifact { path: layout::session_path(&id), bytes }];
        Ok(Written { native_id: id, chunks, diagnostics: self.diags.drain() })
    }
}
