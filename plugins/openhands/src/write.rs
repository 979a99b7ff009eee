//! `write`: a canonical session → one OpenHands conversation folder, in the
//! shape the OpenHands CLI 1.16 (software-agent-sdk 1.21) writes itself
//! (`fixtures/openhands/1.16.0`):
//!
//! ```text
//! .openhands/conversations/<uuid hex>/events/event-<index:05>-<event uuid>.json   one event per file
//! .openhands/conversations/<uuid hex>/base_state.json                             written last
//! ```
//!
//! Events (`kind` discriminated, `extra="forbid"` in the SDK's pydantic
//! models, so only fields those models know are written):
//!
//! - `SystemPromptEvent` first: OpenHands resumes with the system prompt it
//!   stored (it never renders a new one for a conversation that has one), so
//!   an OpenHands source's own `system` text is written back; any other
//!   source gets a short prompt of trajhost's, and its own system text is
//!   `not-carried` (it describes another agent). `tools` is empty: the
//!   resumed agent sends its own tool list.
//! - `user` → `MessageEvent` (source `user`).
//! - one model response (reasoning, assistant text, tool calls, in canonical
//!   order) → `MessageEvent` (source `agent`) when it has no tool calls, else
//!   one `ActionEvent` per call sharing an `llm_response_id`, the text as the
//!   first one's `thought` (how OpenHands records parallel calls). `action`
//!   is left out (`None`: not executable), so a resume never runs a call
//!   again; the call itself is `tool_call` (`arguments` a JSON string).
//! - `tool_result` → `ObservationEvent` whose observation is the SDK's
//!   generic `MCPToolObservation` (content sent to the model as it is;
//!   `is_error` for a failed call), `action_id` naming its call's event.
//! - reasoning: readable text → `reasoning_content` (the first of a
//!   response; later ones and signed ones → `thinking_blocks`), redacted →
//!   `redacted_thinking` blocks, encrypted with a summary → the response's
//!   `responses_reasoning_item`.
//! - usage → `base_state.json` `stats` (`token_usages`/`costs` by
//!   `response_id`, as OpenHands records them); `prompt_tokens` counts cache
//!   reads and writes, as LiteLLM's does.
//!
//! - `compaction` → `Condensation` forgetting every event before it but the
//!   system prompt, its summary inserted after the system prompt
//!   (`summary_offset` 1): the view OpenHands' condenser leaves.
//!
//! Not carried, each named in a `not-carried` diagnostic: `system` (another
//! harness's prompt), `attachments`, `compaction-trigger`, `observation/<subtype>`,
//! `stop-reason`, `subagent-transcript`, `orphan-tool-result`,
//! `duplicate-tool-result`, `extra-reasoning-item`, `unknown-kind/<kind>`. A
//! call without a result gets an `AgentErrorEvent` saying so (`placeholder`),
//! since a chat API refuses an unanswered call.
//!
//! Ids: the conversation id is `options.native_id` (a UUID, hex or
//! hyphenated), else a UUID from the SHA-256 of the canonical `meta` line;
//! event ids are UUIDs from the conversation id and the record id (OpenHands
//! accepts only hex and hyphens in event file names). Times are written as
//! OpenHands writes them (`isoformat()`, no offset), in UTC.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Reasoning, Record, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::time::{parse_iso8601, rfc3339_ms};
use trajhost_codec_sdk::writer::CanonicalInput;
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WriteOptions, Written};

use crate::layout::{BASE_STATE, CONVERSATIONS, EVENTS, join};

/// The format this writer produces (`info().writes`).
pub const FORMAT: &str = "openhands-event-json";
/// The `usage_id` of the agent's LLM, under which OpenHands keeps its metrics.
pub const USAGE_ID: &str = "agent";
/// The model recorded when the source names none (the resumed agent uses
/// its own configured model either way).
pub const UNKNOWN_MODEL: &str = "unknown";

/// The system prompt written for a conversation from another harness.
pub fn imported_system_prompt(harness: &str) -> String {
    format!(
        "You are OpenHands agent, a helpful AI assistant that can interact with a computer to solve tasks.\n\n\
         This conversation was started in another coding agent ({harness}) and carried over into OpenHands by \
         trajhost. Earlier tool calls may name that agent's tools; use the tools you have now."
    )
}

pub struct Writer {
    options: WriteOptions,
    diags: Diagnostics,
    input: CanonicalInput,
    conv: Option<Conv>,
    source_harness: String,
    cwd: Option<String>,
    /// The next event index.
    index: u64,
    system_written: bool,
    pending: Option<Response>,
    /// call id → (action event id, tool name).
    calls: BTreeMap<String, (String, String)>,
    answered: BTreeSet<String>,
    event_ids: BTreeSet<String>,
    response_ids: BTreeSet<String>,
    usages: Vec<(String, String, Usage)>,
    /// Ids a condensation forgets (every model-visible event but the system
    /// prompt).
    forgettable: Vec<String>,
    model: Option<String>,
    last_user: Option<String>,
    last_ms: Option<i64>,
    warned_no_ts: bool,
    out: Vec<Artifact>,
}

struct Conv {
    /// Hyphenated UUID (`base_state.json` `id`).
    uuid: String,
    /// `.openhands/conversations/<hex>`.
    dir: String,
}

/// One model response being collected.
#[derive(Default)]
struct Response {
    key: String,
    ms: Option<i64>,
    text: Option<String>,
    message_id: Option<String>,
    model: Option<String>,
    usage: Option<Usage>,
    reasoning_content: Option<String>,
    thinking_blocks: Vec<Value>,
    responses_item: Option<Value>,
    calls: Vec<Call>,
}

struct Call {
    key: String,
    ms: Option<i64>,
    call_id: String,
    name: String,
    arguments: Value,
}

impl Writer {
    pub fn new(options: WriteOptions) -> Writer {
        Writer {
            options,
            diags: Diagnostics::new(),
            input: CanonicalInput::new(),
            conv: None,
            source_harness: String::new(),
            cwd: None,
            index: 0,
            system_written: false,
            pending: None,
            calls: BTreeMap::new(),
            answered: BTreeSet::new(),
            event_ids: BTreeSet::new(),
            response_ids: BTreeSet::new(),
            usages: Vec::new(),
            forgettable: Vec::new(),
            model: None,
            last_user: None,
            last_ms: None,
            warned_no_ts: false,
            out: Vec::new(),
        }
    }

    fn open(&mut self, meta: Option<(&Meta, &str)>) -> Result<(), CodecError> {
        if self.conv.is_some() {
            return Ok(());
        }
        let uuid = match self.options.native_id.as_deref() {
            Some(id) => parse_uuid(id).ok_or_else(|| {
                CodecError::Other(format!(
                    "native id {id:?} is not a UUID; OpenHands names conversations by UUID (`openhands --resume` \
                     parses it as one)"
                ))
            })?,
            None => uuid_from(Sha256::digest(meta.map_or("", |(_, line)| line).as_bytes()).into()),
        };
        let hex = uuid.replace('-', "");
        if let Some((meta, _)) = meta {
            self.source_harness = meta.harness.clone();
            self.cwd = meta.cwd.clone();
            self.last_ms = meta.started_at.as_deref().and_then(parse_iso8601).map(|(ms, _)| ms);
        }
        if let Some(cwd) = self.options.cwd.clone().filter(|c| !c.is_empty()) {
            self.cwd = Some(cwd);
        }
        if self.cwd.is_none() {
            self.diags.add("no-cwd", Severity::Warning, "workspace.working_dir", None, None);
        }
        self.conv = Some(Conv { uuid, dir: join(CONVERSATIONS, &hex) });
        Ok(())
    }

    fn conv(&self) -> &Conv {
        self.conv.as_ref().expect("opened")
    }

    /// A fresh event id (a UUID) for record `key`.
    fn event_id(&mut self, key: &str) -> String {
        let base = self.conv().uuid.clone();
        let mut n = 0u32;
        loop {
            let seed = format!("{base}\0{key}\0{n}");
            let id = uuid_from(Sha256::digest(seed.as_bytes()).into());
            if self.event_ids.insert(id.clone()) {
                return id;
            }
            n += 1;
        }
    }

    /// The timestamp of a record: its own, else the last one seen.
    fn stamp(&mut self, ms: Option<i64>) -> String {
        let ms = match ms.or(self.last_ms) {
            Some(ms) => ms,
            None => {
                if !self.warned_no_ts {
                    self.warned_no_ts = true;
                    self.diags.add("no-timestamp", Severity::Warning, "timestamp", None, None);
                }
                0
            }
        };
        if self.last_ms.is_none_or(|l| ms > l) {
            self.last_ms = Some(ms);
        }
        naive_utc(ms)
    }

    fn emit(&mut self, id: &str, event: Value) -> Result<(), CodecError> {
        if !matches!(event["kind"].as_str(), Some("SystemPromptEvent" | "Condensation")) {
            self.forgettable.push(id.to_string());
        }
        let name = format!("event-{:05}-{id}.json", self.index);
        self.index += 1;
        let path = join(&join(&self.conv().dir, EVENTS), &name);
        let bytes = serde_json::to_vec(&event).map_err(|e| CodecError::Other(format!("serializing an event: {e}")))?;
        self.out.push(Artifact { path, bytes });
        Ok(())
    }

    /// The `SystemPromptEvent`, before anything else.
    fn system_prompt(&mut self, text: Option<(&str, &str, Option<i64>)>) -> Result<(), CodecError> {
        if self.system_written {
            return Ok(());
        }
        self.system_written = true;
        let (key, prompt, ms) = match text {
            Some((key, text, ms)) => (key.to_string(), text.to_string(), ms),
            None => ("system-prompt".to_string(), imported_system_prompt(&self.source_harness), None),
        };
        let id = self.event_id(&key);
        let timestamp = self.stamp(ms);
        let event = json!({
            "id": id, "timestamp": timestamp, "source": "agent",
            "system_prompt": text_content(&prompt),
            "tools": [],
            "kind": "SystemPromptEvent",
        });
        self.emit(&id, event)
    }

    fn record(&mut self, record: Record) -> Result<(), CodecError> {
        if record.agent.is_some() {
            if matches!(record.body, Body::Meta(_)) {
                self.diags.not_carried("subagent-transcript");
            }
            return Ok(());
        }
        let ms = record.ts.as_deref().and_then(parse_iso8601).map(|(ms, _)| ms);
        if !self.system_written {
            if let Body::System { text } = &record.body
                && self.source_harness == crate::HARNESS
            {
                return self.system_prompt(Some((&record.id, text, ms)));
            }
            self.system_prompt(None)?;
        }
        match record.body {
            Body::Meta(_) => {}
            Body::System { text } => {
                self.flush()?;
                if self.source_harness == crate::HARNESS {
                    let id = self.event_id(&record.id);
                    let timestamp = self.stamp(ms);
                    let event = json!({
                        "id": id, "timestamp": timestamp, "source": "agent",
                        "llm_message": {"role": "system", "content": [text_content(&text)]},
                        "kind": "MessageEvent",
                    });
                    self.emit(&id, event)?;
                } else {
                    self.diags.not_carried("system");
                }
            }
            Body::User { text, attachments } => {
                self.flush()?;
                if !attachments.is_empty() {
                    self.diags.not_carried("attachments");
                }
                let id = self.event_id(&record.id);
                let timestamp = self.stamp(ms);
                let event = json!({
                    "id": id, "timestamp": timestamp, "source": "user",
                    "llm_message": {"role": "user", "content": [text_content(&text)], "thinking_blocks": []},
                    "activated_skills": [], "extended_content": [],
                    "kind": "MessageEvent",
                });
                self.last_user = Some(id.clone());
                self.emit(&id, event)?;
            }
            Body::Reasoning(reasoning) => {
                if self.pending.as_ref().is_some_and(|p| p.text.is_some() || !p.calls.is_empty()) {
                    self.flush()?;
                }
                let pending =
                    self.pending.get_or_insert_with(|| Response { key: record.id.clone(), ms, ..Default::default() });
                if let Some(lost) = add_reasoning(pending, reasoning) {
                    self.diags.not_carried(lost);
                }
            }
            Body::Assistant(assistant) => {
                if self.pending.as_ref().is_some_and(|p| p.text.is_some() || !p.calls.is_empty()) {
                    self.flush()?;
                }
                let Assistant { text, model, message_id, stop_reason, usage } = assistant;
                if stop_reason.is_some() {
                    self.diags.not_carried("stop-reason");
                }
                if model.is_some() {
                    self.model.clone_from(&model);
                }
                let pending =
                    self.pending.get_or_insert_with(|| Response { key: record.id.clone(), ms, ..Default::default() });
                pending.ms = pending.ms.or(ms);
                pending.text = Some(text);
                pending.message_id = message_id;
                pending.model = model;
                pending.usage = usage;
            }
            Body::ToolCall { call_id, name, arguments } => {
                let pending =
                    self.pending.get_or_insert_with(|| Response { key: record.id.clone(), ms, ..Default::default() });
                pending.calls.push(Call { key: record.id.clone(), ms, call_id, name, arguments });
            }
            Body::ToolResult { call_id, content, ok } => {
                self.flush()?;
                let Some((action_id, name)) = self.calls.get(&call_id).cloned() else {
                    self.diags.not_carried("orphan-tool-result");
                    return Ok(());
                };
                if !self.answered.insert(call_id.clone()) {
                    self.diags.not_carried("duplicate-tool-result");
                    return Ok(());
                }
                let id = self.event_id(&record.id);
                let timestamp = self.stamp(ms);
                let event = json!({
                    "id": id, "timestamp": timestamp, "source": "environment",
                    "tool_name": name, "tool_call_id": call_id,
                    "observation": {
                        "content": [text_content(&content)],
                        "is_error": ok == Some(false),
                        "tool_name": name,
                        "kind": "MCPToolObservation",
                    },
                    "action_id": action_id,
                    "kind": "ObservationEvent",
                });
                self.emit(&id, event)?;
            }
            Body::Observation { subtype, .. } => {
                self.diags.not_carried(&format!("observation/{subtype}"));
            }
            Body::Compaction { summary, trigger } => {
                self.flush()?;
                if trigger.is_some() {
                    self.diags.not_carried("compaction-trigger");
                }
                self.condensation(&record.id, &summary, ms)?;
            }
        }
        Ok(())
    }

    /// A `Condensation` that forgets everything written so far but the
    /// system prompt (and calls still waiting for their result) and puts the
    /// summary right after the system prompt: what OpenHands' own condenser
    /// records, so the resumed view is the compacted one.
    fn condensation(&mut self, key: &str, summary: &str, ms: Option<i64>) -> Result<(), CodecError> {
        let open: BTreeSet<&str> = self
            .calls
            .iter()
            .filter(|(call, _)| !self.answered.contains(*call))
            .map(|(_, (action, _))| action.as_str())
            .collect();
        let forgotten: Vec<String> =
            self.forgettable.iter().filter(|id| !open.contains(id.as_str())).cloned().collect();
        self.forgettable.retain(|id| open.contains(id.as_str()));
        let id = self.event_id(key);
        let timestamp = self.stamp(ms);
        let response_id = self.response_id(&Response { key: key.to_string(), ..Default::default() });
        let event = json!({
            "id": id, "timestamp": timestamp, "source": "environment",
            "forgotten_event_ids": forgotten,
            "summary": summary,
            "summary_offset": 1,
            "llm_response_id": response_id,
            "kind": "Condensation",
        });
        self.emit(&id, event)?;
        // The summary OpenHands inserts is forgotten by a later condensation.
        self.forgettable.push(format!("{id}-summary"));
        Ok(())
    }

    /// Writes the pending response.
    fn flush(&mut self) -> Result<(), CodecError> {
        let Some(r) = self.pending.take() else { return Ok(()) };
        let text = r.text.clone().unwrap_or_default();
        let has_reasoning =
            r.reasoning_content.is_some() || !r.thinking_blocks.is_empty() || r.responses_item.is_some();
        if r.calls.is_empty() && text.is_empty() && !has_reasoning && r.usage.is_none() {
            return Ok(());
        }
        let response_id = self.response_id(&r);
        if let Some(usage) = r.usage.clone() {
            let model = r.model.clone().or_else(|| self.model.clone()).unwrap_or_else(|| UNKNOWN_MODEL.into());
            self.usages.push((response_id.clone(), model, usage));
        }
        let content: Vec<Value> = if text.is_empty() { Vec::new() } else { vec![text_content(&text)] };
        if r.calls.is_empty() {
            let id = self.event_id(&r.key);
            let timestamp = self.stamp(r.ms);
            let mut message = json!({"role": "assistant", "content": content, "thinking_blocks": r.thinking_blocks});
            if let Some(rc) = &r.reasoning_content {
                message["reasoning_content"] = json!(rc);
            }
            if let Some(item) = &r.responses_item {
                message["responses_reasoning_item"] = item.clone();
            }
            let event = json!({
                "id": id, "timestamp": timestamp, "source": "agent",
                "llm_message": message,
                "llm_response_id": response_id,
                "activated_skills": [], "extended_content": [],
                "kind": "MessageEvent",
            });
            return self.emit(&id, event);
        }
        for (i, call) in r.calls.iter().enumerate() {
            let id = self.event_id(&call.key);
            let timestamp = self.stamp(call.ms.or(r.ms));
            let arguments = match &call.arguments {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let mut event = json!({
                "id": id, "timestamp": timestamp, "source": "agent",
                "thought": if i == 0 { content.clone() } else { Vec::new() },
                "thinking_blocks": if i == 0 { r.thinking_blocks.clone() } else { Vec::new() },
                "tool_name": call.name, "tool_call_id": call.call_id,
                "tool_call": {"id": call.call_id, "name": call.name, "arguments": arguments, "origin": "completion"},
                "llm_response_id": response_id,
                "security_risk": "UNKNOWN",
                "kind": "ActionEvent",
            });
            if i == 0 {
                if let Some(rc) = &r.reasoning_content {
                    event["reasoning_content"] = json!(rc);
                }
                if let Some(item) = &r.responses_item {
                    event["responses_reasoning_item"] = item.clone();
                }
            }
            if self.calls.contains_key(&call.call_id) {
                self.diags.not_carried("duplicate-tool-call-id");
            }
            self.calls.insert(call.call_id.clone(), (id.clone(), call.name.clone()));
            self.emit(&id, event)?;
        }
        Ok(())
    }

    /// The response's `llm_response_id`: the source's message id, unique in
    /// the log (OpenHands joins consecutive actions of one id into one
    /// assistant message).
    fn response_id(&mut self, r: &Response) -> String {
        let base = r.message_id.clone().filter(|m| !m.is_empty()).unwrap_or_else(|| {
            let seed = format!("{}\0response\0{}", self.conv().uuid, r.key);
            format!("trajhost-{}", &trajhost_codec_sdk::hash::sha256_hex(seed.as_bytes())[..24])
        });
        let mut id = base.clone();
        let mut n = 1;
        while !self.response_ids.insert(id.clone()) {
            n += 1;
            id = format!("{base}-{n}");
        }
        id
    }

    /// Placeholder results for calls nobody answered.
    fn answer_open_calls(&mut self) -> Result<(), CodecError> {
        let open: Vec<(String, String, String)> = self
            .calls
            .iter()
            .filter(|(call, _)| !self.answered.contains(*call))
            .map(|(call, (action, name))| (call.clone(), action.clone(), name.clone()))
            .collect();
        for (call_id, _action, name) in open {
            self.diags.add("not-carried", Severity::Warning, "placeholder (a tool call without a result)", None, None);
            let id = self.event_id(&format!("{call_id}\0no-result"));
            let timestamp = self.stamp(None);
            let event = json!({
                "id": id, "timestamp": timestamp, "source": "agent",
                "tool_name": name, "tool_call_id": call_id,
                "error": "No result was recorded for this tool call.",
                "kind": "AgentErrorEvent",
            });
            self.answered.insert(call_id);
            self.emit(&id, event)?;
        }
        Ok(())
    }

    fn base_state(&self) -> Value {
        let conv = self.conv();
        let model = self.model.clone().unwrap_or_else(|| UNKNOWN_MODEL.into());
        let mut token_usages = Vec::new();
        let mut costs = Vec::new();
        let (mut prompt_sum, mut completion_sum, mut read_sum, mut write_sum, mut reasoning_sum) = (0, 0, 0, 0, 0);
        let mut cost_sum = 0.0;
        for (response_id, m, u) in &self.usages {
            let cache_read = u.cache_read.unwrap_or(0);
            let cache_write = u.cache_write.unwrap_or(0);
            let prompt = u.input.unwrap_or(0) + cache_read + cache_write;
            let completion = u.output.unwrap_or(0);
            let reasoning = u.reasoning.unwrap_or(0);
            prompt_sum += prompt;
            completion_sum += completion;
            read_sum += cache_read;
            write_sum += cache_write;
            reasoning_sum += reasoning;
            token_usages.push(json!({
                "model": m, "prompt_tokens": prompt, "completion_tokens": completion,
                "cache_read_tokens": cache_read, "cache_write_tokens": cache_write,
                "reasoning_tokens": reasoning, "context_window": 0,
                "per_turn_token": prompt + completion, "response_id": response_id,
            }));
            if let Some(cost) = u.cost_usd.filter(|c| *c > 0.0) {
                cost_sum += cost;
                costs.push(json!({"model": m, "cost": cost}));
            }
        }
        let mut state = json!({
            "id": conv.uuid,
            "agent": {"llm": {"model": model, "usage_id": USAGE_ID}, "tools": [], "kind": "Agent"},
            "workspace": {"working_dir": self.cwd.clone().unwrap_or_else(|| "/".into()), "kind": "LocalWorkspace"},
            "max_iterations": 500,
            "stuck_detection": true,
            "execution_status": "finished",
            "confirmation_policy": {"kind": "NeverConfirm"},
            "activated_knowledge_skills": [], "invoked_skills": [],
            "blocked_actions": {}, "blocked_messages": {},
            "stats": {"usage_to_metrics": {USAGE_ID: {
                "model_name": model,
                "accumulated_cost": cost_sum,
                "accumulated_token_usage": {
                    "model": model, "prompt_tokens": prompt_sum, "completion_tokens": completion_sum,
                    "cache_read_tokens": read_sum, "cache_write_tokens": write_sum,
                    "reasoning_tokens": reasoning_sum, "context_window": 0, "per_turn_token": 0, "response_id": "",
                },
                "costs": costs, "response_latencies": [], "token_usages": token_usages,
            }}},
            "secret_registry": {"secret_sources": {}},
            "tags": {}, "agent_state": {},
        });
        if let Some(id) = &self.last_user {
            state["last_user_message_id"] = json!(id);
        }
        if let Some(home) = self.options.home_path.as_deref() {
            state["persistence_dir"] = json!(persistence_dir(home, &conv.dir));
        }
        state
    }
}

/// Where OpenHands keeps the conversation, as it records it (absolute).
pub fn persistence_dir(home: &str, dir: &str) -> String {
    format!("{}/{dir}", home.trim_end_matches('/'))
}

/// Adds one reasoning record to a response; what it could not hold.
fn add_reasoning(r: &mut Response, reasoning: Reasoning) -> Option<&'static str> {
    let Reasoning { text, opaque, encrypted } = reasoning;
    match (text, opaque, encrypted) {
        (Some(text), None, _) if r.reasoning_content.is_none() => r.reasoning_content = Some(text),
        (Some(text), None, _) => r.thinking_blocks.push(json!({"type": "thinking", "thinking": text})),
        (text, Some(signature), false) => r
            .thinking_blocks
            .push(json!({"type": "thinking", "thinking": text.unwrap_or_default(), "signature": signature})),
        (Some(text), Some(encrypted), true) => {
            if r.responses_item.is_some() {
                return Some("extra-reasoning-item");
            }
            r.responses_item = Some(json!({"summary": [text], "encrypted_content": encrypted}));
        }
        (None, Some(data), true) => r.thinking_blocks.push(json!({"type": "redacted_thinking", "data": data})),
        (None, None, _) => return Some("empty-reasoning"),
    }
    None
}

fn text_content(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// `datetime.isoformat()` of a UTC time: `2026-11-30T05:26:21.458000`.
pub fn naive_utc(ms: i64) -> String {
    let s = rfc3339_ms(ms);
    format!("{}000", s.trim_end_matches('Z'))
}

/// A UUID (version-4 layout) from a digest.
pub fn uuid_from(seed: [u8; 32]) -> String {
    trajhost_codec_sdk::writer::ids::uuid_v4_layout(&seed)
}

/// The hyphenated lower-case form of a UUID given hyphenated or as 32 hex
/// digits (what `uuid.UUID()` accepts); `None` for anything else.
pub fn parse_uuid(id: &str) -> Option<String> {
    let hex: String = id.chars().filter(|c| *c != '-').collect();
    let grouped = id.contains('-');
    if hex.len() != 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    if grouped {
        let groups: Vec<usize> = id.split('-').map(str::len).collect();
        if groups != [8, 4, 4, 4, 12] {
            return None;
        }
    }
    let h = hex.to_ascii_lowercase();
    Some(format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32]))
}

impl SessionWriter for Writer {
    fn push(&mut self, records: &str) -> Result<Vec<Artifact>, CodecError> {
        for line in records.lines() {
            let Some(record) = self.input.record(line, &mut self.diags)? else { continue };
            if self.conv.is_none() {
                match &record.body {
                    Body::Meta(meta) if record.agent.is_none() => {
                        let meta = meta.clone();
                        self.open(Some((&meta, line)))?;
                        continue;
                    }
                    _ => self.open(None)?,
                }
            }
            self.record(record)?;
        }
        Ok(std::mem::take(&mut self.out))
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        self.open(None)?;
        self.system_prompt(None)?;
        self.flush()?;
        self.answer_open_calls()?;
        let state = self.base_state();
        let path = join(&self.conv().dir, BASE_STATE);
        let bytes =
            serde_json::to_vec(&state).map_err(|e| CodecError::Other(format!("serializing base_state.json: {e}")))?;
        self.out.push(Artifact { path, bytes });
        let native_id = self.conv().dir.rsplit('/').next().unwrap_or_default().to_string();
        Ok(Written { native_id, chunks: std::mem::take(&mut self.out), diagnostics: self.diags.drain() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_times() {
        assert_eq!(
            parse_uuid("24F67BD7227747DEA1866EB69A081AD9").as_deref(),
            Some("24f67bd7-2277-47de-a186-6eb69a081ad9")
        );
        assert_eq!(
            parse_uuid("24f67bd7-2277-47de-a186-6eb69a081ad9").as_deref(),
            Some("24f67bd7-2277-47de-a186-6eb69a081ad9")
        );
        assert_eq!(parse_uuid("24f67bd72277-47de-a186-6eb69a081ad9"), None);
        assert_eq!(parse_uuid("s1"), None);
        assert_eq!(naive_utc(1_796_013_404_649), "2026-11-30T04:36:44.649000");
        assert!(parse_uuid(&uuid_from([7; 32])).is_some());
    }
}
