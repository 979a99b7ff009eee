//! `write`: a canonical session → one Continue CLI session document,
//! `.continue/sessions/<sessionId>.json`, in the shape Continue CLI 1.5
//! writes itself (`fixtures/continue-cli/1.5.47/simple`):
//! `JSON.stringify(session, null, 2)` of
//!
//! ```text
//! {sessionId, title, workspaceDirectory, history: [
//!   user       {message: {role: "user", content}, contextItems: [], editorState: "<content>"}
//!   assistant  {message: {role: "assistant", content, toolCalls?: [{id, type: "function", function: {name, arguments}}],
//!                         usage?: {prompt_tokens, completion_tokens, total_tokens, model, cost_cents}},
//!               contextItems: [],
//!               toolCallStates?: [{toolCallId, toolCall, status: "done"|"errored", parsedArgs,
//!                                  output: [{content, name: "Tool Result", description: "Tool execution result"}]}]}
//! ], usage: {totalCost, promptTokens, completionTokens, promptTokensDetails: {cachedTokens, cacheWriteTokens}}}
//! ```
//!
//! and the index entry `.continue/sessions/sessions.json` (`[{sessionId,
//! title, dateCreated, workspaceDirectory, messageCount}]`), which
//! `prepare` adds to the target's index.
//!
//! Continue CLI sends each assistant item as one model turn followed by one
//! tool message per `toolCallStates` output, so every result is written
//! into the state of its call, wherever the call is (the document is
//! assembled whole at `finish`). A call after an answered one starts the
//! next assistant item. A call never answered gets an `errored` state (a
//! `placeholder` diagnostic): a tool call without its response is refused
//! by the chat-completions API. A result without a recorded outcome is
//! written `done` (`placeholder`).
//!
//! Not carried, each named in a `not-carried` diagnostic: `reasoning`,
//! `system` (the CLI builds its own system prompt), `attachments`,
//! `observation/<subtype>`, `compaction`, `stop-reason`, `model` (of an
//! assistant record without usage: the model lives in `usage`),
//! `usage.reasoning`, `subagent-transcript`, `orphan-tool-result`,
//! `duplicate-tool-result`, `unknown-kind/<kind>`.
//!
//! The session id is `options.native_id` (a UUID), else a UUID (version-4
//! layout) from the SHA-256 of the canonical `meta` line: the same document
//! always gives the same bytes. `dateCreated` is the session's start.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Record, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::hash::sha256;
use trajhost_codec_sdk::time::parse_rfc3339;
use trajhost_codec_sdk::writer::ids;
use trajhost_codec_sdk::writer::{CanonicalInput, json_document, main_content};
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WriteOptions, Written};

use crate::layout::{self, INDEX, UNTITLED};

/// What the CLI records as the output of a call that never ran to the end.
pub const NO_RESULT: &str = "[no result was recorded for this call]";
/// `name` and `description` of a tool's output item.
const OUTPUT_NAME: &str = "Tool Result";
const OUTPUT_DESCRIPTION: &str = "Tool execution result";

/// The writer: records are mapped as they arrive; the document is
/// serialized at `finish`.
pub struct Writer {
    options: WriteOptions,
    diags: Diagnostics,
    input: CanonicalInput,
    meta: Option<Meta>,
    first_ts: Option<String>,
    history: Vec<ItemOut>,
    /// The assistant item that still takes calls.
    current: Option<usize>,
    /// Every call written: id → (item, state).
    calls: BTreeMap<String, (usize, usize)>,
}

/// The document, in the CLI's key order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Document<'a> {
    session_id: &'a str,
    title: &'a str,
    workspace_directory: &'a str,
    history: &'a [ItemOut],
    usage: SessionUsage,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionUsage {
    total_cost: f64,
    prompt_tokens: u64,
    completion_tokens: u64,
    prompt_tokens_details: TokensDetails,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TokensDetails {
    cached_tokens: u64,
    cache_write_tokens: u64,
}

/// One `ChatHistoryItem`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ItemOut {
    message: MessageOut,
    context_items: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    editor_state: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_call_states: Vec<StateOut>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageOut {
    role: &'static str,
    content: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<ToolCallOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<UsageOut>,
}

#[derive(Serialize, Clone)]
struct ToolCallOut {
    id: String,
    #[serde(rename = "type")]
    kind: &'static str,
    function: FunctionOut,
}

#[derive(Serialize, Clone)]
struct FunctionOut {
    name: String,
    arguments: String,
}

#[derive(Serialize)]
struct UsageOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    completion_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cost_cents: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_tokens_details: Option<UsageDetailsOut>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UsageDetailsOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    cached_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_write_tokens: Option<u64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StateOut {
    tool_call_id: String,
    tool_call: ToolCallOut,
    status: &'static str,
    parsed_args: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<Vec<OutputOut>>,
}

#[derive(Serialize)]
struct OutputOut {
    content: String,
    name: &'static str,
    description: &'static str,
}

/// The index entry.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexOut<'a> {
    pub session_id: &'a str,
    pub title: &'a str,
    pub date_created: String,
    pub workspace_directory: &'a str,
    pub message_count: usize,
}

impl Writer {
    pub fn new(options: WriteOptions) -> Writer {
        Writer {
            options,
            diags: Diagnostics::new(),
            input: CanonicalInput::new(),
            meta: None,
            first_ts: None,
            history: Vec::new(),
            current: None,
            calls: BTreeMap::new(),
        }
    }

    fn placeholder(&mut self, what: &str) {
        self.diags.add("placeholder", Severity::Info, what, None, None);
    }

    fn record(&mut self, record: Record) {
        let started = !self.history.is_empty();
        let Some(record) = main_content(&mut self.meta, record, started, &mut self.diags) else { return };
        if self.first_ts.is_none() {
            self.first_ts = record.ts.clone();
        }
        match record.body {
            Body::Meta(_) => {}
            Body::System { .. } => self.diags.not_carried("system"),
            Body::User { text, attachments } => {
                if !attachments.is_empty() {
                    self.diags.not_carried("attachments");
                }
                self.current = None;
                self.history.push(ItemOut {
                    message: MessageOut { role: "user", content: text.clone(), tool_calls: Vec::new(), usage: None },
                    context_items: Vec::new(),
                    editor_state: Some(text),
                    tool_call_states: Vec::new(),
                });
            }
            Body::Observation { subtype, .. } => self.diags.not_carried(&format!("observation/{subtype}")),
            Body::Reasoning(_) => self.diags.not_carried("reasoning"),
            Body::Assistant(assistant) => self.assistant(assistant),
            Body::ToolCall { call_id, name, arguments } => self.tool_call(call_id, name, arguments),
            Body::ToolResult { call_id, content, ok } => self.tool_result(&call_id, content, ok),
            Body::Compaction { .. } => self.diags.not_carried("compaction"),
        }
    }

    fn assistant(&mut self, assistant: Assistant) {
        if assistant.stop_reason.is_some() {
            self.diags.not_carried("stop-reason");
        }
        let usage = match assistant.usage.as_ref() {
            Some(u) => Some(self.usage(u, assistant.model.clone())),
            None => {
                if assistant.model.is_some() {
                    self.diags.not_carried("model");
                }
                None
            }
        };
        self.history.push(ItemOut {
            message: MessageOut { role: "assistant", content: assistant.text, tool_calls: Vec::new(), usage },
            context_items: Vec::new(),
            editor_state: None,
            tool_call_states: Vec::new(),
        });
        self.current = Some(self.history.len() - 1);
    }

    fn usage(&mut self, usage: &Usage, model: Option<String>) -> UsageOut {
        if usage.reasoning.is_some() {
            self.diags.not_carried("usage.reasoning");
        }
        let total = match (usage.input, usage.output) {
            (None, None) => None,
            (i, o) => Some(i.unwrap_or(0) + o.unwrap_or(0)),
        };
        let details = (usage.cache_read.is_some() || usage.cache_write.is_some())
            .then_some(UsageDetailsOut { cached_tokens: usage.cache_read, cache_write_tokens: usage.cache_write });
        UsageOut {
            prompt_tokens: usage.input,
            completion_tokens: usage.output,
            total_tokens: total,
            model,
            cost_cents: usage.cost_usd.map(|c| c * 100.0),
            prompt_tokens_details: details,
        }
    }

    fn tool_call(&mut self, call_id: String, name: String, arguments: Value) {
        // A call after an answered one starts the next assistant item.
        let starts_new = match self.current {
            None => true,
            Some(i) => self.history[i].tool_call_states.iter().any(|s| s.output.is_some()),
        };
        if starts_new {
            self.assistant(Assistant::default());
        }
        let index = self.current.expect("started above");
        let arguments = match arguments {
            Value::Null => Value::Object(Default::default()),
            other => other,
        };
        let call = ToolCallOut {
            id: call_id.clone(),
            kind: "function",
            function: FunctionOut { name, arguments: arguments.to_string() },
        };
        let item = &mut self.history[index];
        item.message.tool_calls.push(call.clone());
        item.tool_call_states.push(StateOut {
            tool_call_id: call_id.clone(),
            tool_call: call,
            status: "errored",
            parsed_args: arguments,
            output: None,
        });
        let at = (index, item.tool_call_states.len() - 1);
        // A repeated call id: the later call takes the results from here on.
        self.calls.insert(call_id, at);
    }

    fn tool_result(&mut self, call_id: &str, content: String, ok: Option<bool>) {
        let Some(&(i, s)) = self.calls.get(call_id) else {
            self.diags.not_carried("orphan-tool-result");
            return;
        };
        let state = &mut self.history[i].tool_call_states[s];
        if state.output.is_some() {
            self.diags.not_carried("duplicate-tool-result");
            return;
        }
        state.output = Some(vec![OutputOut { content, name: OUTPUT_NAME, description: OUTPUT_DESCRIPTION }]);
        state.status = if ok == Some(false) { "errored" } else { "done" };
        if ok.is_none() {
            self.placeholder("toolCallStates.status");
        }
    }

    /// Calls never answered get an errored state with a placeholder output.
    fn answer_the_unanswered(&mut self) {
        let mut placeholders = 0;
        for item in &mut self.history {
            for state in item.tool_call_states.iter_mut().filter(|s| s.output.is_none()) {
                state.output = Some(vec![OutputOut {
                    content: NO_RESULT.into(),
                    name: OUTPUT_NAME,
                    description: OUTPUT_DESCRIPTION,
                }]);
                placeholders += 1;
            }
        }
        for _ in 0..placeholders {
            self.placeholder("toolCallStates.output (no result)");
        }
    }

    fn totals(&self) -> SessionUsage {
        let mut totals = SessionUsage {
            total_cost: 0.0,
            prompt_tokens: 0,
            completion_tokens: 0,
            prompt_tokens_details: TokensDetails { cached_tokens: 0, cache_write_tokens: 0 },
        };
        for usage in self.history.iter().filter_map(|i| i.message.usage.as_ref()) {
            totals.total_cost += usage.cost_cents.unwrap_or(0.0) / 100.0;
            totals.prompt_tokens += usage.prompt_tokens.unwrap_or(0);
            totals.completion_tokens += usage.completion_tokens.unwrap_or(0);
            if let Some(d) = &usage.prompt_tokens_details {
                totals.prompt_tokens_details.cached_tokens += d.cached_tokens.unwrap_or(0);
                totals.prompt_tokens_details.cache_write_tokens += d.cache_write_tokens.unwrap_or(0);
            }
        }
        totals
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
            "Continue CLI records every session's workspace directory",
        )?;
        let start_ms = meta.started_at.as_deref().or(self.first_ts.as_deref()).and_then(parse_rfc3339);
        let start_ms = start_ms.unwrap_or_else(|| {
            self.placeholder("dateCreated");
            0
        });
        let id = ids::uuid_native_id(
            &self.options,
            "Continue CLI session ids are UUIDs; `cn --fork <id>` names one",
            || {
                ids::uuid_v4_layout(
                    &self.input.meta_digest().unwrap_or_else(|| sha256(start_ms.to_string().as_bytes())),
                )
            },
        )?;
        self.answer_the_unanswered();
        let title = meta.title.clone().filter(|t| !t.trim().is_empty()).unwrap_or_else(|| UNTITLED.to_string());
        let document = Document {
            session_id: &id,
            title: &title,
            workspace_directory: &cwd,
            history: &self.history,
            usage: self.totals(),
        };
        let bytes = json_document(&document)?;
        let entry = IndexOut {
            session_id: &id,
            title: &title,
            date_created: start_ms.to_string(),
            workspace_directory: &cwd,
            message_count: self.history.len(),
        };
        let index = json_document(&[entry])?;
        let chunks = vec![
            Artifact { path: layout::session_path(&id), bytes },
            Artifact { path: INDEX.to_string(), bytes: index },
        ];
        Ok(Written { native_id: id, chunks, diagnostics: self.diags.drain() })
    }
}
