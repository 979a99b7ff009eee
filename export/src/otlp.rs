//! Canonical records → OpenTelemetry spans following the GenAI semantic
//! conventions (status Development, gen-ai-agent-spans / gen-ai-spans):
//!
//! - one root `invoke_agent {harness}` span per session (kind INTERNAL: the
//!   agent ran in the harness's own process), from its first to its last
//!   timestamp; a subagent's records (`Record::agent`) get an `invoke_agent`
//!   span of their own under the root;
//! - one `chat {model}` span (kind CLIENT) per model call: a run of
//!   reasoning / assistant / tool-call records of one agent, from the input
//!   that preceded it (the user message or tool result) to its last record,
//!   with the served model and the usage the store recorded (none otherwise);
//! - one `execute_tool {tool}` span (kind INTERNAL) per tool call, a child of
//!   the model call that issued it, ending at its result.
//!
//! Message content (`gen_ai.input.messages`, `gen_ai.output.messages`,
//! `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`, event text) is
//! only written with [`Options::content`]. Ids are derived from the session
//! and record ids, so a re-export has the same trace and span ids.
//!
//! Spans are encoded as soon as they end ([`SessionEncoder`]), so a session
//! costs its encoded spans, not a tree of them.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use prost::Message;
use serde_json::{Value, json};
use trajhost_canonical::{Body, Meta, Record, Usage};

use crate::ExportError;
use crate::ids::{span_id, trace_id};
use crate::proto::{
    AnyValue, Event, InstrumentationScope, KeyValue, Resource, Span, SpanKind, Status, StatusCode, any_value,
};

/// The semantic conventions version the attributes follow.
pub const SCHEMA_URL: &str = "https://opentelemetry.io/schemas/1.37.0";
/// The instrumentation scope every span is reported under.
pub const SCOPE_NAME: &str = "trajhost";

#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Write message content (opt-in, as the conventions require).
    pub content: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// OTLP protobuf (`application/x-protobuf`).
    Proto,
    /// The OTLP JSON mapping (`application/json`).
    Json,
}

impl Format {
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Proto => "application/x-protobuf",
            Format::Json => "application/json",
        }
    }
}

/// One model call in progress.
struct Call {
    span_id: [u8; 8],
    first_record: String,
    start: u64,
    end: u64,
    model: Option<String>,
    models: Vec<String>,
    message_ids: Vec<String>,
    stop_reason: Option<String>,
    /// The last usage per message id (a harness may repeat one message's usage on each of its lines).
    usage: Vec<(String, Usage)>,
    input: Vec<Value>,
    output: Vec<Value>,
}

/// An agent (the session's own, or a subagent) and its open model call.
struct Agent {
    span_id: [u8; 8],
    parent: Vec<u8>,
    name: String,
    id: String,
    start: Option<u64>,
    end: u64,
    call: Option<Call>,
    /// When the input of the next model call arrived.
    input_at: Option<u64>,
    /// The input of the next model call (content only).
    input: Vec<Value>,
    events: Vec<Event>,
}

/// A tool call waiting for its result.
struct Tool {
    span: Span,
    agent: Option<String>,
}

/// Builds the spans of one session from its records in order.
pub struct SpanBuilder {
    options: Options,
    meta: Meta,
    trace: [u8; 16],
    agents: BTreeMap<Option<String>, Agent>,
    tools: HashMap<String, Tool>,
    models: BTreeMap<String, u64>,
    last_ns: u64,
    finished: Vec<Span>,
    records: u64,
}

impl SpanBuilder {
    /// Starts a session from its `meta` record.
    pub fn new(meta_record: &Record, options: Options) -> Result<SpanBuilder, ExportError> {
        let Body::Meta(meta) = &meta_record.body else { return Err(ExportError::NoMeta(meta_record.id.clone())) };
        let trace = trace_id(&meta.harness, &meta.native_id);
        let mut builder = SpanBuilder {
            options,
            meta: meta.clone(),
            trace,
            agents: BTreeMap::new(),
            tools: HashMap::new(),
            models: BTreeMap::new(),
            last_ns: 0,
            finished: Vec::new(),
            records: 1,
        };
        let start = meta.started_at.as_deref().and_then(crate::time::unix_nanos).or_else(|| ts(meta_record));
        if let Some(ns) = start {
            builder.last_ns = ns;
        }
        let root = Agent {
            span_id: span_id(&trace, "invoke_agent", ""),
            parent: Vec::new(),
            name: meta.harness.clone(),
            id: meta.native_id.clone(),
            start,
            end: start.unwrap_or(0),
            call: None,
            input_at: None,
            input: Vec::new(),
            events: Vec::new(),
        };
        builder.agents.insert(None, root);
        Ok(builder)
    }

    /// The trace every span of the session belongs to.
    pub fn trace_id(&self) -> [u8; 16] {
        self.trace
    }

    /// Spans that ended since the last call.
    pub fn take_finished(&mut self) -> std::vec::Drain<'_, Span> {
        self.finished.drain(..)
    }

    pub fn push(&mut self, record: &Record) {
        self.records += 1;
        let now = match ts(record) {
            Some(ns) => {
                self.last_ns = self.last_ns.max(ns);
                ns
            }
            None => self.last_ns,
        };
        let key = record.agent.clone();
        self.agent(&key, now);
        let content = self.options.content;
        match &record.body {
            Body::Meta(_) => {}
            Body::Reasoning(r) => {
                let call = self.open_call(&key, record, now);
                if content && let Some(text) = &r.text {
                    call.output.push(json!({"type": "reasoning", "content": text}));
                }
            }
            Body::Assistant(a) => {
                // A new message id after another one is a new model call.
                let split = match (&a.message_id, self.agents[&key].call.as_ref().and_then(|c| c.message_ids.last())) {
                    (Some(new), Some(last)) => new != last,
                    _ => false,
                };
                if split {
                    self.close_call(&key);
                }
                if let Some(model) = &a.model {
                    *self.models.entry(model.clone()).or_default() += 1;
                }
                let call = self.open_call(&key, record, now);
                if let Some(model) = &a.model {
                    if call.model.is_none() {
                        call.model = Some(model.clone());
                    }
                    if !call.models.contains(model) {
                        call.models.push(model.clone());
                    }
                }
                let message_key = a.message_id.clone().unwrap_or_else(|| record.id.clone());
                if let Some(id) = &a.message_id
                    && !call.message_ids.contains(id)
                {
                    call.message_ids.push(id.clone());
                }
                if a.stop_reason.is_some() {
                    call.stop_reason = a.stop_reason.clone();
                }
                if let Some(usage) = &a.usage {
                    match call.usage.iter_mut().find(|(k, _)| *k == message_key) {
                        Some(slot) => slot.1 = usage.clone(),
                        None => call.usage.push((message_key, usage.clone())),
                    }
                }
                if content && !a.text.is_empty() {
                    call.output.push(json!({"type": "text", "content": a.text}));
                }
            }
            Body::ToolCall { call_id, name, arguments } => {
                let call = self.open_call(&key, record, now);
                if content {
                    call.output.push(json!({"type": "tool_call", "id": call_id, "name": name, "arguments": arguments}));
                }
                let parent = call.span_id.to_vec();
                let mut attributes = vec![
                    KeyValue::string("gen_ai.operation.name", "execute_tool"),
                    KeyValue::string("gen_ai.tool.name", name.as_str()),
                    KeyValue::string("gen_ai.tool.call.id", call_id.as_str()),
                    KeyValue::string("gen_ai.tool.type", "function"),
                    KeyValue::string("gen_ai.conversation.id", self.meta.native_id.as_str()),
                    KeyValue::string("trajhost.record.id", record.id.as_str()),
                ];
                if content {
                    let text = match arguments {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    attributes.push(KeyValue::string("gen_ai.tool.call.arguments", text));
                }
                let span = Span {
                    trace_id: self.trace.to_vec(),
                    span_id: span_id(&self.trace, "execute_tool", &format!("{}\0{call_id}", record.id)).to_vec(),
                    parent_span_id: parent,
                    name: format!("execute_tool {name}"),
                    kind: SpanKind::Internal as i32,
                    start_time_unix_nano: now,
                    end_time_unix_nano: now,
                    attributes,
                    ..Default::default()
                };
                // A call id seen twice: the first call ends where the second starts.
                if let Some(previous) = self.tools.insert(call_id.clone(), Tool { span, agent: key.clone() }) {
                    self.finish_tool(previous, now, Some(("trajhost.tool.superseded", true)));
                }
            }
            Body::ToolResult { call_id, content: result, ok } => {
                self.close_call(&key);
                self.note_input(&key, now, json!({"role": "tool", "parts": [{"type": "tool_call_response", "id": call_id, "response": result}]}));
                match self.tools.remove(call_id) {
                    Some(mut tool) => {
                        tool.span.end_time_unix_nano = now.max(tool.span.start_time_unix_nano);
                        if content {
                            tool.span.attributes.push(KeyValue::string("gen_ai.tool.call.result", result.as_str()));
                        }
                        match ok {
                            Some(false) => {
                                tool.span.status =
                                    Some(Status { message: String::new(), code: StatusCode::Error as i32 });
                                tool.span.attributes.push(KeyValue::string("error.type", "tool_error"));
                            }
                            Some(true) => tool.span.attributes.push(KeyValue::bool("trajhost.tool.ok", true)),
                            None => {}
                        }
                        self.finished.push(tool.span);
                    }
                    None => {
                        let mut attributes = vec![KeyValue::string("gen_ai.tool.call.id", call_id.as_str())];
                        if content {
                            attributes.push(KeyValue::string("gen_ai.tool.call.result", result.as_str()));
                        }
                        self.event(&key, now, "trajhost.orphan_tool_result", attributes);
                    }
                }
            }
            Body::User { text, attachments } => {
                self.close_call(&key);
                let mut parts = Vec::new();
                if content {
                    parts.push(json!({"type": "text", "content": text}));
                }
                for attachment in attachments {
                    parts
                        .push(json!({"type": "blob", "modality": attachment.kind, "mime_type": attachment.media_type}));
                }
                self.note_input(&key, now, json!({"role": "user", "parts": parts}));
            }
            Body::System { text } => {
                self.close_call(&key);
                self.note_input(&key, now, json!({"role": "system", "parts": [{"type": "text", "content": text}]}));
            }
            Body::Observation { subtype, text } => {
                let mut attributes = vec![KeyValue::string("trajhost.observation.subtype", subtype.as_str())];
                if content && let Some(text) = text {
                    attributes.push(KeyValue::string("trajhost.observation.text", text.as_str()));
                }
                self.event(&key, now, "trajhost.observation", attributes);
            }
            Body::Compaction { summary, trigger } => {
                self.close_call(&key);
                let mut attributes = Vec::new();
                if let Some(trigger) = trigger {
                    attributes.push(KeyValue::string("trajhost.compaction.trigger", trigger.as_str()));
                }
                if content {
                    attributes.push(KeyValue::string("trajhost.compaction.summary", summary.as_str()));
                }
                self.event(&key, now, "trajhost.compaction", attributes);
            }
        }
    }

    /// Ends every open span: unanswered tool calls at the session's last time
    /// (marked `trajhost.tool.unanswered`), the agents, the root last.
    pub fn finish(&mut self) {
        let keys: Vec<Option<String>> = self.agents.keys().cloned().collect();
        for key in &keys {
            self.close_call(key);
        }
        let mut open: Vec<(String, Tool)> = self.tools.drain().collect();
        open.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, tool) in open {
            let end = self.last_ns;
            self.finish_tool(tool, end, Some(("trajhost.tool.unanswered", true)));
        }
        // Subagents first, the root last.
        let mut agents = std::mem::take(&mut self.agents);
        let root = agents.remove(&None).expect("root agent");
        for (_, agent) in agents {
            let span = self.agent_span(agent, false);
            self.finished.push(span);
        }
        let span = self.agent_span(root, true);
        self.finished.push(span);
    }

    /// The resource of the session's spans.
    pub fn resource(&self) -> Resource {
        let m = &self.meta;
        let mut attributes = vec![
            KeyValue::string("service.name", m.harness.as_str()),
            KeyValue::string("trajhost.harness", m.harness.as_str()),
            KeyValue::string("trajhost.session.id", m.native_id.as_str()),
        ];
        if let Some(v) = &m.native_version {
            attributes.push(KeyValue::string("service.version", v.as_str()));
        }
        if let Some(codec) = &m.codec {
            attributes.push(KeyValue::string("trajhost.codec", codec.as_str()));
        }
        Resource { attributes }
    }

    fn agent(&mut self, key: &Option<String>, now: u64) {
        let trace = self.trace;
        let harness = self.meta.harness.clone();
        let root_span = self.agents[&None].span_id;
        let agent = self.agents.entry(key.clone()).or_insert_with(|| {
            let id = key.clone().unwrap_or_default();
            Agent {
                span_id: span_id(&trace, "invoke_agent", &id),
                parent: root_span.to_vec(),
                name: format!("{harness} subagent"),
                id,
                start: None,
                end: now,
                call: None,
                input_at: None,
                input: Vec::new(),
                events: Vec::new(),
            }
        });
        if agent.start.is_none() {
            agent.start = Some(now);
        }
        agent.end = agent.end.max(now);
        // A subagent's time is its parent's too.
        if key.is_some()
            && let Some(root) = self.agents.get_mut(&None)
        {
            root.end = root.end.max(now);
            if root.start.is_none() {
                root.start = Some(now);
            }
        }
    }

    fn open_call(&mut self, key: &Option<String>, record: &Record, now: u64) -> &mut Call {
        let trace = self.trace;
        let agent = self.agents.get_mut(key).expect("agent");
        if agent.call.is_none() {
            let start = agent.input_at.take().map_or(now, |at| at.min(now));
            agent.call = Some(Call {
                span_id: span_id(&trace, "chat", &record.id),
                first_record: record.id.clone(),
                start,
                end: now,
                model: None,
                models: Vec::new(),
                message_ids: Vec::new(),
                stop_reason: None,
                usage: Vec::new(),
                input: std::mem::take(&mut agent.input),
                output: Vec::new(),
            });
        }
        let call = agent.call.as_mut().expect("open call");
        call.end = call.end.max(now);
        call
    }

    fn note_input(&mut self, key: &Option<String>, now: u64, message: Value) {
        let content = self.options.content;
        let agent = self.agents.get_mut(key).expect("agent");
        if agent.input_at.is_none() {
            agent.input_at = Some(now);
        }
        if content {
            agent.input.push(message);
        }
    }

    fn event(&mut self, key: &Option<String>, now: u64, name: &str, attributes: Vec<KeyValue>) {
        let agent = self.agents.get_mut(key).expect("agent");
        agent.events.push(Event { time_unix_nano: now, name: name.to_string(), attributes });
    }

    fn finish_tool(&mut self, mut tool: Tool, end: u64, mark: Option<(&str, bool)>) {
        tool.span.end_time_unix_nano = end.max(tool.span.start_time_unix_nano);
        if let Some((key, value)) = mark {
            tool.span.attributes.push(KeyValue::bool(key, value));
        }
        let _ = &tool.agent;
        self.finished.push(tool.span);
    }

    fn close_call(&mut self, key: &Option<String>) {
        let Some(agent) = self.agents.get_mut(key) else { return };
        let Some(call) = agent.call.take() else { return };
        let parent = agent.span_id.to_vec();
        let span = self.call_span(call, parent);
        self.finished.push(span);
    }

    fn call_span(&self, call: Call, parent: Vec<u8>) -> Span {
        let mut attributes = vec![
            KeyValue::string("gen_ai.operation.name", "chat"),
            KeyValue::string("gen_ai.conversation.id", self.meta.native_id.as_str()),
        ];
        if let Some(model) = &call.model {
            attributes.push(KeyValue::string("gen_ai.request.model", model.as_str()));
            attributes.push(KeyValue::string("gen_ai.response.model", model.as_str()));
            if let Some(provider) = provider_of(model) {
                attributes.push(KeyValue::string("gen_ai.provider.name", provider));
            }
        }
        if call.models.len() > 1 {
            attributes.push(KeyValue::strings("trajhost.response.models", &call.models));
        }
        if let Some(id) = call.message_ids.first() {
            attributes.push(KeyValue::string("gen_ai.response.id", id.as_str()));
        }
        if let Some(reason) = &call.stop_reason {
            attributes.push(KeyValue::strings("gen_ai.response.finish_reasons", std::slice::from_ref(reason)));
        }
        usage_attributes(&call.usage, &mut attributes);
        attributes.push(KeyValue::string("trajhost.record.id", call.first_record.as_str()));
        if self.options.content {
            attributes.push(KeyValue::string("gen_ai.input.messages", Value::Array(call.input).to_string()));
            let mut message = json!({"role": "assistant", "parts": call.output});
            if let Some(reason) = &call.stop_reason {
                message["finish_reason"] = json!(reason);
            }
            attributes.push(KeyValue::string("gen_ai.output.messages", json!([message]).to_string()));
        }
        let name = match &call.model {
            Some(model) => format!("chat {model}"),
            None => "chat".to_string(),
        };
        Span {
            trace_id: self.trace.to_vec(),
            span_id: call.span_id.to_vec(),
            parent_span_id: parent,
            name,
            kind: SpanKind::Client as i32,
            start_time_unix_nano: call.start,
            end_time_unix_nano: call.end.max(call.start),
            attributes,
            ..Default::default()
        }
    }

    fn agent_span(&self, agent: Agent, root: bool) -> Span {
        let m = &self.meta;
        let mut attributes = vec![
            KeyValue::string("gen_ai.operation.name", "invoke_agent"),
            KeyValue::string("gen_ai.agent.name", agent.name.as_str()),
            KeyValue::string("gen_ai.agent.id", agent.id.as_str()),
            KeyValue::string("gen_ai.conversation.id", m.native_id.as_str()),
        ];
        if root {
            // The most frequent model, ties broken lexically.
            if let Some((model, _)) = self.models.iter().max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0))) {
                attributes.push(KeyValue::string("gen_ai.request.model", model.as_str()));
                if let Some(provider) = provider_of(model) {
                    attributes.push(KeyValue::string("gen_ai.provider.name", provider));
                }
            }
            if let Some(v) = &m.native_version {
                attributes.push(KeyValue::string("trajhost.native_version", v.as_str()));
            }
            if let Some(cwd) = &m.cwd {
                attributes.push(KeyValue::string("trajhost.session.cwd", cwd.as_str()));
            }
            if let Some(branch) = &m.git_branch {
                attributes.push(KeyValue::string("trajhost.session.git_branch", branch.as_str()));
            }
            if let Some(parent) = &m.parent_session {
                attributes.push(KeyValue::string("trajhost.session.parent", parent.as_str()));
            }
            if let Some(call) = &m.parent_call {
                attributes.push(KeyValue::string("trajhost.session.parent_call", call.as_str()));
            }
            if self.options.content
                && let Some(title) = &m.title
            {
                attributes.push(KeyValue::string("trajhost.session.title", title.as_str()));
            }
            attributes.push(KeyValue::int("trajhost.records", self.records as i64));
        }
        let start = agent.start.unwrap_or(0);
        let name = format!("invoke_agent {}", agent.name);
        Span {
            trace_id: self.trace.to_vec(),
            span_id: agent.span_id.to_vec(),
            parent_span_id: agent.parent,
            name,
            kind: SpanKind::Internal as i32,
            start_time_unix_nano: start,
            end_time_unix_nano: agent.end.max(start),
            attributes,
            events: agent.events,
            ..Default::default()
        }
    }
}

fn ts(record: &Record) -> Option<u64> {
    record.ts.as_deref().and_then(crate::time::unix_nanos)
}

/// Usage as the conventions count it: `gen_ai.usage.input_tokens` includes
/// cache reads and writes (canonical `input` excludes them). Each attribute
/// only when the store recorded its parts; never a 0 for unknown.
fn usage_attributes(usage: &[(String, Usage)], out: &mut Vec<KeyValue>) {
    if usage.is_empty() {
        return;
    }
    let sum = |f: fn(&Usage) -> Option<u64>| -> Option<u64> {
        let values: Vec<u64> = usage.iter().filter_map(|(_, u)| f(u)).collect();
        (!values.is_empty()).then(|| values.iter().sum())
    };
    let input = sum(|u| u.input);
    let cache_read = sum(|u| u.cache_read);
    let cache_write = sum(|u| u.cache_write);
    if let Some(input) = input {
        let total = input + cache_read.unwrap_or(0) + cache_write.unwrap_or(0);
        out.push(KeyValue::int("gen_ai.usage.input_tokens", total as i64));
    }
    if let Some(output) = sum(|u| u.output) {
        out.push(KeyValue::int("gen_ai.usage.output_tokens", output as i64));
    }
    if let Some(n) = cache_read {
        out.push(KeyValue::int("gen_ai.usage.cache_read.input_tokens", n as i64));
    }
    if let Some(n) = cache_write {
        out.push(KeyValue::int("gen_ai.usage.cache_creation.input_tokens", n as i64));
    }
    if let Some(n) = sum(|u| u.reasoning) {
        out.push(KeyValue::int("trajhost.usage.reasoning_tokens", n as i64));
    }
    let costs: Vec<f64> = usage.iter().filter_map(|(_, u)| u.cost_usd).collect();
    if !costs.is_empty() {
        out.push(KeyValue::double("trajhost.usage.cost_usd", costs.iter().sum()));
    }
}

/// `gen_ai.provider.name` for the model families whose provider the name
/// settles; `None` for the rest (a model served through a router says nothing).
pub fn provider_of(model: &str) -> Option<&'static str> {
    let m = model.to_ascii_lowercase();
    let m = m.rsplit('/').next().unwrap_or(&m);
    if m.starts_with("claude") {
        Some("anthropic")
    } else if m.starts_with("gpt-")
        || m.starts_with("o1")
        || m.starts_with("o3")
        || m.starts_with("o4")
        || m.contains("codex")
    {
        Some("openai")
    } else if m.starts_with("gemini") {
        Some("gcp.gemini")
    } else if m.starts_with("grok") {
        Some("x_ai")
    } else if m.starts_with("mistral") || m.starts_with("codestral") || m.starts_with("devstral") {
        Some("mistral_ai")
    } else if m.starts_with("deepseek") {
        Some("deepseek")
    } else {
        None
    }
}

/// One session's spans, encoded as they end.
pub struct SessionEncoder {
    format: Format,
    builder: SpanBuilder,
    /// Proto: the spans' `ScopeSpans.spans` fields back to back. JSON: span objects joined by commas.
    spans: Vec<u8>,
    count: usize,
}

/// A finished session: one `ResourceSpans`, encoded.
pub struct EncodedSession {
    pub format: Format,
    /// Proto: a `ResourceSpans` message, JSON: a `resourceSpans` element, in three pieces
    /// (the encoded spans between what precedes and follows them), never concatenated for a file.
    head: Vec<u8>,
    spans: Vec<u8>,
    tail: Vec<u8>,
    /// How many spans.
    pub count: usize,
    pub trace_id: [u8; 16],
}

impl EncodedSession {
    /// The encoded length.
    pub fn len(&self) -> usize {
        self.head.len() + self.spans.len() + self.tail.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl SessionEncoder {
    pub fn new(meta: &Record, format: Format, options: Options) -> Result<SessionEncoder, ExportError> {
        Ok(SessionEncoder { format, builder: SpanBuilder::new(meta, options)?, spans: Vec::new(), count: 0 })
    }

    pub fn push(&mut self, record: &Record) {
        self.builder.push(record);
        self.drain();
    }

    fn drain(&mut self) {
        let format = self.format;
        let spans: Vec<Span> = self.builder.take_finished().collect();
        for span in spans {
            match format {
                Format::Proto => {
                    prost::encoding::message::encode(2, &span, &mut self.spans);
                }
                Format::Json => {
                    if self.count > 0 {
                        self.spans.push(b',');
                    }
                    json::span(&mut self.spans, &span);
                }
            }
            self.count += 1;
        }
    }

    pub fn finish(mut self) -> EncodedSession {
        self.builder.finish();
        self.drain();
        let resource = self.builder.resource();
        let scope = InstrumentationScope { name: SCOPE_NAME.into(), version: env!("CARGO_PKG_VERSION").into() };
        let spans = std::mem::take(&mut self.spans);
        let (head, tail) = match self.format {
            Format::Proto => {
                // ResourceSpans { resource = 1, scope_spans = 2 { scope = 1, spans = 2…, schema_url = 3 }, schema_url = 3 },
                // written around the encoded spans without copying them.
                let mut scope_head = Vec::new();
                prost::encoding::message::encode(1, &scope, &mut scope_head);
                let mut scope_tail = Vec::new();
                prost::encoding::string::encode(3, &SCHEMA_URL.to_string(), &mut scope_tail);
                let mut head = Vec::with_capacity(256);
                prost::encoding::message::encode(1, &resource, &mut head);
                prost::encoding::encode_key(2, prost::encoding::WireType::LengthDelimited, &mut head);
                prost::encoding::encode_varint((scope_head.len() + spans.len() + scope_tail.len()) as u64, &mut head);
                head.extend_from_slice(&scope_head);
                let mut tail = scope_tail;
                prost::encoding::string::encode(3, &SCHEMA_URL.to_string(), &mut tail);
                (head, tail)
            }
            Format::Json => {
                let mut head = Vec::with_capacity(512);
                head.extend_from_slice(b"{\"resource\":{\"attributes\":");
                json::attributes(&mut head, &resource.attributes);
                head.extend_from_slice(b"},\"scopeSpans\":[{\"scope\":");
                head.extend_from_slice(json!({"name": scope.name, "version": scope.version}).to_string().as_bytes());
                head.extend_from_slice(b",\"spans\":[");
                let tail = format!("],\"schemaUrl\":\"{SCHEMA_URL}\"}}],\"schemaUrl\":\"{SCHEMA_URL}\"}}").into_bytes();
                (head, tail)
            }
        };
        EncodedSession { format: self.format, head, spans, tail, count: self.count, trace_id: self.builder.trace_id() }
    }
}

/// Writes one `ExportTraceServiceRequest` holding several sessions, one
/// session at a time (protobuf: concatenated `resource_spans` fields are one
/// message; JSON: one `{"resourceSpans":[…]}` document).
pub struct RequestWriter<W: Write> {
    format: Format,
    out: W,
    sessions: usize,
}

impl<W: Write> RequestWriter<W> {
    pub fn new(format: Format, mut out: W) -> Result<RequestWriter<W>, ExportError> {
        if format == Format::Json {
            out.write_all(b"{\"resourceSpans\":[")?;
        }
        Ok(RequestWriter { format, out, sessions: 0 })
    }

    pub fn add(&mut self, session: &EncodedSession) -> Result<(), ExportError> {
        match self.format {
            Format::Proto => {
                let mut head = Vec::with_capacity(16);
                prost::encoding::encode_key(1, prost::encoding::WireType::LengthDelimited, &mut head);
                prost::encoding::encode_varint(session.len() as u64, &mut head);
                self.out.write_all(&head)?;
            }
            Format::Json if self.sessions > 0 => self.out.write_all(b",")?,
            Format::Json => {}
        }
        self.out.write_all(&session.head)?;
        self.out.write_all(&session.spans)?;
        self.out.write_all(&session.tail)?;
        self.sessions += 1;
        Ok(())
    }

    pub fn finish(mut self) -> Result<W, ExportError> {
        if self.format == Format::Json {
            self.out.write_all(b"]}\n")?;
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

/// The request body of one session.
pub fn request_body(session: &EncodedSession) -> Vec<u8> {
    let mut writer = RequestWriter::new(session.format, Vec::with_capacity(session.len() + 32)).expect("in memory");
    writer.add(session).expect("in memory");
    writer.finish().expect("in memory")
}

/// Decodes a protobuf request (tests, and `--validate`-style checks).
pub fn decode_request(bytes: &[u8]) -> Result<crate::proto::ExportTraceServiceRequest, prost::DecodeError> {
    crate::proto::ExportTraceServiceRequest::decode(bytes)
}

/// The OTLP JSON mapping: hex ids, lowerCamelCase names, 64-bit integers as
/// strings, enums as integers.
mod json {
    use super::*;

    pub fn span(out: &mut Vec<u8>, span: &Span) {
        out.extend_from_slice(b"{\"traceId\":\"");
        out.extend_from_slice(hex::encode(&span.trace_id).as_bytes());
        out.extend_from_slice(b"\",\"spanId\":\"");
        out.extend_from_slice(hex::encode(&span.span_id).as_bytes());
        out.extend_from_slice(b"\"");
        if !span.parent_span_id.is_empty() {
            out.extend_from_slice(b",\"parentSpanId\":\"");
            out.extend_from_slice(hex::encode(&span.parent_span_id).as_bytes());
            out.extend_from_slice(b"\"");
        }
        out.extend_from_slice(b",\"name\":");
        string(out, &span.name);
        out.extend_from_slice(
            format!(
                ",\"kind\":{},\"startTimeUnixNano\":\"{}\",\"endTimeUnixNano\":\"{}\",\"attributes\":",
                span.kind, span.start_time_unix_nano, span.end_time_unix_nano
            )
            .as_bytes(),
        );
        attributes(out, &span.attributes);
        if !span.events.is_empty() {
            out.extend_from_slice(b",\"events\":[");
            for (i, event) in span.events.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(format!("{{\"timeUnixNano\":\"{}\",\"name\":", event.time_unix_nano).as_bytes());
                string(out, &event.name);
                out.extend_from_slice(b",\"attributes\":");
                attributes(out, &event.attributes);
                out.push(b'}');
            }
            out.push(b']');
        }
        match &span.status {
            Some(status) => {
                out.extend_from_slice(format!(",\"status\":{{\"code\":{}", status.code).as_bytes());
                if !status.message.is_empty() {
                    out.extend_from_slice(b",\"message\":");
                    string(out, &status.message);
                }
                out.extend_from_slice(b"}}");
            }
            None => out.push(b'}'),
        }
    }

    pub fn attributes(out: &mut Vec<u8>, attributes: &[KeyValue]) {
        out.push(b'[');
        for (i, kv) in attributes.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"key\":");
            string(out, &kv.key);
            out.extend_from_slice(b",\"value\":");
            any(out, kv.value.as_ref());
            out.push(b'}');
        }
        out.push(b']');
    }

    fn any(out: &mut Vec<u8>, value: Option<&AnyValue>) {
        match value.and_then(|v| v.value.as_ref()) {
            None => out.extend_from_slice(b"{}"),
            Some(any_value::Value::StringValue(s)) => {
                out.extend_from_slice(b"{\"stringValue\":");
                string(out, s);
                out.push(b'}');
            }
            Some(any_value::Value::BoolValue(b)) => out.extend_from_slice(format!("{{\"boolValue\":{b}}}").as_bytes()),
            Some(any_value::Value::IntValue(n)) => {
                out.extend_from_slice(format!("{{\"intValue\":\"{n}\"}}").as_bytes())
            }
            Some(any_value::Value::DoubleValue(x)) => {
                out.extend_from_slice(b"{\"doubleValue\":");
                out.extend_from_slice(
                    serde_json::Number::from_f64(*x).map_or("0".into(), |n| n.to_string()).as_bytes(),
                );
                out.push(b'}');
            }
            Some(any_value::Value::ArrayValue(array)) => {
                out.extend_from_slice(b"{\"arrayValue\":{\"values\":[");
                for (i, v) in array.values.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    any(out, Some(v));
                }
                out.extend_from_slice(b"]}}");
            }
        }
    }

    fn string(out: &mut Vec<u8>, s: &str) {
        serde_json::to_writer(&mut *out, s).expect("a string into memory");
    }
}

/// Checks the span tree of one decoded request: per trace exactly one root
/// `invoke_agent` span, every parent present, every `execute_tool` span a
/// child of a `chat` span, every `chat` span under an `invoke_agent` span,
/// ids non-zero and unique, start ≤ end, and (without content) no content
/// attribute. Returns what is wrong, empty when nothing is.
pub fn check_tree(request: &crate::proto::ExportTraceServiceRequest, content: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let content_keys = [
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "gen_ai.system_instructions",
        "trajhost.observation.text",
        "trajhost.compaction.summary",
        "trajhost.session.title",
    ];
    for rs in &request.resource_spans {
        let spans: Vec<&Span> = rs.scope_spans.iter().flat_map(|s| s.spans.iter()).collect();
        let mut by_id: HashMap<&[u8], &Span> = HashMap::new();
        for span in &spans {
            if span.span_id.len() != 8 || span.span_id.iter().all(|b| *b == 0) {
                problems.push(format!("span {:?}: invalid span id", span.name));
            }
            if span.trace_id.len() != 16 || span.trace_id != spans[0].trace_id {
                problems.push(format!("span {:?}: trace id differs from the session's", span.name));
            }
            if by_id.insert(&span.span_id, span).is_some() {
                problems.push(format!("span {:?}: duplicate span id {}", span.name, hex::encode(&span.span_id)));
            }
            if span.start_time_unix_nano > span.end_time_unix_nano {
                problems.push(format!("span {:?}: starts after it ends", span.name));
            }
        }
        let op = |span: &Span| -> String {
            span.attributes
                .iter()
                .find(|kv| kv.key == "gen_ai.operation.name")
                .and_then(|kv| match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
                    Some(any_value::Value::StringValue(s)) => Some(s.clone()),
                    _ => None,
                })
                .unwrap_or_default()
        };
        let roots: Vec<&&Span> = spans.iter().filter(|s| s.parent_span_id.is_empty()).collect();
        if roots.len() != 1 || op(roots[0]) != "invoke_agent" {
            problems.push(format!("{} root spans, not one invoke_agent root", roots.len()));
        }
        for span in &spans {
            let this = op(span);
            if !span.name.starts_with(&this) || this.is_empty() {
                problems.push(format!("span {:?}: gen_ai.operation.name {this:?} does not name it", span.name));
            }
            if !span.parent_span_id.is_empty() {
                match by_id.get(span.parent_span_id.as_slice()) {
                    None => problems.push(format!("span {:?}: its parent is not in the trace", span.name)),
                    Some(parent) => {
                        let expected = match this.as_str() {
                            "execute_tool" => "chat",
                            _ => "invoke_agent",
                        };
                        if op(parent) != expected {
                            problems.push(format!(
                                "span {:?}: a child of {:?}, not of a {expected} span",
                                span.name, parent.name
                            ));
                        }
                    }
                }
            }
            for kv in &span.attributes {
                if !content && content_keys.contains(&kv.key.as_str()) {
                    problems.push(format!("span {:?}: content attribute {} without --content", span.name, kv.key));
                }
                if kv.key.starts_with("gen_ai.usage.")
                    && matches!(kv.value.as_ref().and_then(|v| v.value.as_ref()), Some(any_value::Value::IntValue(n)) if *n < 0)
                {
                    problems.push(format!("span {:?}: negative {}", span.name, kv.key));
                }
            }
            for event in &span.events {
                for kv in &event.attributes {
                    if !content && content_keys.contains(&kv.key.as_str()) {
                        problems.push(format!("span {:?}: event content {} without --content", span.name, kv.key));
                    }
                }
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use trajhost_canonical::{Assistant, Meta};

    fn record(id: &str, ts: &str, body: Body) -> Record {
        Record { id: id.into(), body, parent: None, ts: Some(ts.into()), agent: None, src: None }
    }

    fn session(usage: Option<Usage>) -> Vec<Record> {
        vec![
            record(
                "m",
                "2026-01-01T00:00:00Z",
                Body::Meta(Meta { harness: "codex".into(), native_id: "s1".into(), ..Default::default() }),
            ),
            record("u", "2026-01-01T00:00:01Z", Body::User { text: "secret prompt".into(), attachments: vec![] }),
            record(
                "a",
                "2026-01-01T00:00:03Z",
                Body::Assistant(Assistant {
                    text: "ok".into(),
                    model: Some("gpt-5".into()),
                    usage,
                    ..Default::default()
                }),
            ),
            record(
                "c",
                "2026-01-01T00:00:03Z",
                Body::ToolCall { call_id: "c1".into(), name: "shell".into(), arguments: json!({"cmd": "ls"}) },
            ),
            record(
                "r",
                "2026-01-01T00:00:05Z",
                Body::ToolResult { call_id: "c1".into(), content: "file".into(), ok: Some(false) },
            ),
            record(
                "a2",
                "2026-01-01T00:00:06Z",
                Body::Assistant(Assistant { text: "done".into(), ..Default::default() }),
            ),
        ]
    }

    fn export(records: &[Record], options: Options) -> crate::proto::ExportTraceServiceRequest {
        let mut encoder = SessionEncoder::new(&records[0], Format::Proto, options).unwrap();
        for r in &records[1..] {
            encoder.push(r);
        }
        decode_request(&request_body(&encoder.finish())).unwrap()
    }

    #[test]
    fn a_session_is_a_tree_of_agent_model_and_tool_spans() {
        let request = export(&session(None), Options::default());
        assert!(check_tree(&request, false).is_empty(), "{:?}", check_tree(&request, false));
        let spans = &request.resource_spans[0].scope_spans[0].spans;
        let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["chat gpt-5", "execute_tool shell", "chat", "invoke_agent codex"]);
        let tool = &spans[1];
        assert_eq!(tool.parent_span_id, spans[0].span_id);
        assert_eq!((tool.end_time_unix_nano - tool.start_time_unix_nano) / 1_000_000_000, 2);
        assert_eq!(tool.status.as_ref().map(|s| s.code), Some(StatusCode::Error as i32));
        // The model call starts at its input (the user message), ends at its last record.
        assert_eq!((spans[0].end_time_unix_nano - spans[0].start_time_unix_nano) / 1_000_000_000, 2);
        let keys: Vec<&str> = spans.iter().flat_map(|s| s.attributes.iter().map(|kv| kv.key.as_str())).collect();
        assert!(!keys.iter().any(|k| k.starts_with("gen_ai.usage")), "no usage recorded, none exported");
        // Stable ids.
        assert_eq!(request, export(&session(None), Options::default()));
    }

    #[test]
    fn usage_only_as_recorded_and_content_only_when_asked() {
        let usage = Usage { input: Some(10), output: Some(5), cache_read: Some(100), ..Default::default() };
        let request = export(&session(Some(usage)), Options { content: true });
        assert!(check_tree(&request, true).is_empty());
        let chat = &request.resource_spans[0].scope_spans[0].spans[0];
        let get = |key: &str| chat.attributes.iter().find(|kv| kv.key == key).and_then(|kv| kv.value.clone());
        assert_eq!(get("gen_ai.usage.input_tokens"), Some(AnyValue { value: Some(any_value::Value::IntValue(110)) }));
        assert_eq!(get("gen_ai.usage.output_tokens"), Some(AnyValue { value: Some(any_value::Value::IntValue(5)) }));
        assert!(get("gen_ai.usage.cache_creation.input_tokens").is_none());
        let Some(AnyValue { value: Some(any_value::Value::StringValue(input)) }) = get("gen_ai.input.messages") else {
            panic!()
        };
        assert!(input.contains("secret prompt"));
        // Without --content the checker notices content, and the export has none.
        assert!(!check_tree(&request, false).is_empty());
        let bare = export(&session(None), Options::default());
        assert!(!format!("{bare:?}").contains("secret prompt"));
    }

    #[test]
    fn json_follows_the_otlp_mapping() {
        let records = session(Some(Usage { input: Some(1), ..Default::default() }));
        let mut encoder = SessionEncoder::new(&records[0], Format::Json, Options::default()).unwrap();
        for r in &records[1..] {
            encoder.push(r);
        }
        let body = request_body(&encoder.finish());
        let value: Value = serde_json::from_slice(&body).unwrap();
        let span = &value["resourceSpans"][0]["scopeSpans"][0]["spans"][0];
        assert_eq!(span["traceId"].as_str().unwrap().len(), 32);
        assert_eq!(span["spanId"].as_str().unwrap().len(), 16);
        assert_eq!(span["kind"], 3);
        assert!(span["startTimeUnixNano"].is_string());
        let input =
            span["attributes"].as_array().unwrap().iter().find(|kv| kv["key"] == "gen_ai.usage.input_tokens").unwrap();
        assert_eq!(input["value"]["intValue"], "1");
    }
}
