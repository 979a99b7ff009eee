//! `write`: a canonical session → a Kimi CLI session folder,
//! `.kimi/sessions/<md5(cwd)>/<id>/`, shaped like what Kimi CLI 1.51.0 writes
//! (`fixtures/kimi-cli/1.51.0`):
//!
//! ```text
//! context.jsonl   what the model sees on resume (kosong Messages):
//!                 _system_prompt (only a Kimi CLI source's), _checkpoint
//!                 before each prompt, user, assistant (think parts, text,
//!                 tool_calls with JSON-string arguments), tool
//! context_<n>.jsonl  the context before the n-th compaction (Kimi rotates
//!                 the file; the summary opens the next one)
//! wire.jsonl      metadata (protocol 1.10), then TurnBegin, StepBegin,
//!                 ContentPart, ToolCall, StatusUpdate (usage, message id),
//!                 ToolResult, TurnEnd: times, usage, message ids and tool
//!                 outcomes, which the context does not hold
//! state.json      version 1 with the session title as custom_title
//! ```
//!
//! Streaming: wire lines are returned as each record arrives. The context
//! lines since the last compaction are held until the next compaction (then
//! returned as `context_<n>.jsonl`) or the end (`context.jsonl`): Kimi names
//! the live file last, and a piece once returned cannot be renamed. Memory
//! follows that segment, not the whole session.
//!
//! Model messages follow the chat-completions rules Kimi's providers send
//! them by: an assistant message's tool calls are answered by tool messages
//! right after it. Calls still unanswered when the conversation moves on (or
//! ends) get an error result (`synthesized`), results of unknown or already
//! answered calls are left out (`not-carried`).
//!
//! Not carried (`not-carried`, with a count): `system-prompt` of another
//! harness (Kimi uses a recorded `_system_prompt` as its own, so another
//! harness's would replace Kimi's tools and rules), `attachments` (canonical
//! records carry no image bytes), `model` and `stop-reason` (Kimi records
//! neither per message), `usage.reasoning`, `usage.cost_usd`,
//! `observation/<subtype>` (all but Kimi's own `<system>` reminders, which
//! go back into the next user message), `subagent-transcript`,
//! `reasoning-signature` (another harness's signature on readable
//! reasoning: Kimi would send it back to its own provider). Reasoning with no
//! readable text from another harness cannot be held at all:
//! `untranslated-reasoning`.
//!
//! The session id is `options.native_id` (a plain name), else a UUID
//! (version-4 layout) from the SHA-256 of the `meta` line: the same document
//! gives the same bytes.

use serde::Serialize;
use serde_json::{Value, json};
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Reasoning, Record, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::time::{epoch_secs, parse_rfc3339};
// Wire lines and the context's pseudo-role lines are JSON as Python's
// `json.dumps` writes it.
use trajhost_codec_sdk::writer::{CanonicalInput, OpenCalls, python_json as spaced};
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WriteOptions, Written};

use crate::HARNESS;
use crate::layout::{self, CONTEXT, LOCAL_KAOS, SESSIONS, STATE, WIRE};
use crate::records::COMPACTION_PREFIX;

/// The wire protocol version written (Kimi CLI 1.51.0's).
pub const PROTOCOL_VERSION: &str = "1.10";
/// Content of a tool message written for a call whose result was not recorded.
pub const MISSING_RESULT: &str = "[trajhost: no result was recorded for this tool call]";
/// Largest context segment held before it is returned.
pub const MAX_SEGMENT_BYTES: usize = 512 << 20;

/// The writer for `KimiCli::write`.
pub fn writer(options: WriteOptions) -> Box<dyn SessionWriter> {
    Box::new(Writer::new(options))
}

/// An assistant message being assembled.
#[derive(Default)]
struct Message {
    /// `think` parts: (text, signature).
    think: Vec<(String, Option<String>)>,
    text: Option<String>,
    calls: Vec<Call>,
    usage: Option<Usage>,
    message_id: Option<String>,
    ts: f64,
}

/// Where the session goes, known once `meta` (or the first record) arrived.
struct Session {
    dir: String,
    id: String,
    same_harness: bool,
    title: Option<String>,
}

pub struct Writer {
    options: WriteOptions,
    /// The canonical lines read.
    input: CanonicalInput,
    session: Option<Session>,
    /// The context lines since the last compaction.
    segment: Vec<u8>,
    rotations: u64,
    checkpoints: u64,
    /// The `_system_prompt` line of a Kimi CLI source.
    system: Option<String>,
    wire: Vec<u8>,
    open: Option<Message>,
    /// Written call ids still awaiting a result, in order.
    pending: OpenCalls,
    /// Kimi `<system>` reminders waiting for the next user message.
    injected: Vec<String>,
    turn_open: bool,
    steps: u64,
    last_ts: f64,
    diags: Diagnostics,
}

impl Writer {
    pub fn new(options: WriteOptions) -> Writer {
        Writer {
            options,
            input: CanonicalInput::new(),
            session: None,
            segment: Vec::new(),
            rotations: 0,
            checkpoints: 0,
            system: None,
            wire: Vec::new(),
            open: None,
            pending: OpenCalls::new(),
            injected: Vec::new(),
            turn_open: false,
            steps: 0,
            last_ts: 0.0,
            diags: Diagnostics::new(),
        }
    }

    /// Sets up the session from its `meta` (or without one).
    fn start(&mut self, meta: Option<&Meta>, meta_line: &str) -> Result<(), CodecError> {
        let cwd = self
            .options
            .cwd
            .clone()
            .or_else(|| meta.and_then(|m| m.cwd.clone()))
            .filter(|c| !c.is_empty())
            .ok_or_else(|| {
                CodecError::Malformed(
                    "a Kimi CLI session belongs to a work directory: give write-options.cwd (the document's meta \
                     has no cwd)"
                        .into(),
                )
            })?;
        if !cwd.starts_with('/') {
            return Err(CodecError::Malformed(
                "the work directory must be an absolute path (Kimi CLI keys sessions by it)".into(),
            ));
        }
        let id = match self.options.native_id.as_deref() {
            Some(id) if is_session_id(id) => id.to_string(),
            Some(id) => {
                return Err(CodecError::Other(format!(
                    "write-options.native-id {id:?} is not a plain session folder name (letters, digits, '-', '_')"
                )));
            }
            None => uuid_of(meta_line.as_bytes()),
        };
        let started = meta.and_then(|m| m.started_at.as_deref()).and_then(parse_rfc3339);
        match started {
            Some(ms) => self.last_ts = epoch_secs(ms),
            None => self.diags.add("no-timestamp", Severity::Warning, "started_at", None, None),
        }
        let folder = layout::work_dir_folder(&cwd, LOCAL_KAOS);
        self.session = Some(Session {
            dir: format!("{SESSIONS}/{folder}/{id}"),
            id,
            same_harness: meta.is_some_and(|m| m.harness == HARNESS),
            title: meta.and_then(|m| m.title.clone()).filter(|t| !t.trim().is_empty()),
        });
        #[derive(Serialize)]
        struct Header {
            #[serde(rename = "type")]
            kind: &'static str,
            protocol_version: &'static str,
        }
        let header = Header { kind: "metadata", protocol_version: PROTOCOL_VERSION };
        self.wire_line(&header);
        Ok(())
    }

    fn same_harness(&self) -> bool {
        self.session.as_ref().is_some_and(|s| s.same_harness)
    }

    fn clock(&mut self, ts: Option<&str>) -> f64 {
        if let Some(ms) = ts.and_then(parse_rfc3339) {
            self.last_ts = epoch_secs(ms);
        }
        self.last_ts
    }

    fn context_line(&mut self, value: &impl Serialize) {
        if let Ok(line) = serde_json::to_vec(value) {
            self.segment.extend_from_slice(&line);
            self.segment.push(b'\n');
        }
    }

    /// A wire line, spaced as Python's `json.dumps` writes it.
    fn wire_line(&mut self, value: &impl Serialize) {
        self.wire.extend_from_slice(&spaced(value));
        self.wire.push(b'\n');
    }

    fn event(&mut self, ts: f64, kind: &str, payload: impl Serialize) {
        self.wire_line(&WireLine { timestamp: ts, message: WireMessage { kind, payload } });
    }

    /// Starts a context file: the system prompt and its first checkpoint.
    fn open_segment(&mut self) {
        self.checkpoints = 0;
        if let Some(system) = self.system.clone() {
            self.segment.extend_from_slice(system.as_bytes());
            self.segment.push(b'\n');
        }
    }

    fn checkpoint(&mut self) {
        let id = self.checkpoints;
        self.checkpoints += 1;
        #[derive(Serialize)]
        struct Checkpoint {
            role: &'static str,
            id: u64,
        }
        let line = spaced(&Checkpoint { role: "_checkpoint", id });
        self.segment.extend_from_slice(&line);
        self.segment.push(b'\n');
    }

    fn record(&mut self, record: Record, out: &mut Vec<Artifact>) -> Result<(), CodecError> {
        if record.agent.is_some() {
            if matches!(record.body, Body::Meta(_)) {
                self.diags.not_carried("subagent-transcript");
            }
            return Ok(());
        }
        let ts = record.ts.clone();
        match record.body {
            Body::Meta(_) => self.diags.not_carried("additional-meta"),
            Body::System { text } => {
                if self.same_harness() && self.system.is_none() && self.segment.is_empty() {
                    let line = String::from_utf8(spaced(&PseudoLine { role: "_system_prompt", content: &text }))
                        .map_err(|e| CodecError::Other(e.to_string()))?;
                    self.system = Some(line);
                    self.open_segment();
                } else if !self.same_harness() {
                    self.diags.not_carried("system-prompt");
                } else {
                    self.diags.not_carried("system-message");
                }
            }
            Body::User { text, attachments } => {
                for _ in &attachments {
                    self.diags.not_carried("attachments");
                }
                if text.trim().is_empty() && self.injected.is_empty() {
                    if attachments.is_empty() {
                        self.diags.not_carried("empty-user-turn");
                    }
                    return Ok(());
                }
                let ts = self.clock(ts.as_deref());
                self.close_model_side(ts);
                self.user(text, ts);
            }
            Body::Observation { subtype, text } => match text {
                Some(text) if subtype == "system-reminder" && is_injected(&text) => self.injected.push(text),
                _ => self.diags.not_carried(&format!("observation/{}", subtype.split('/').next().unwrap_or(&subtype))),
            },
            Body::Reasoning(r) => {
                let ts = self.clock(ts.as_deref());
                self.reasoning(r, ts);
            }
            Body::Assistant(a) => {
                let ts = self.clock(ts.as_deref());
                self.assistant(a, ts);
            }
            Body::ToolCall { call_id, name, arguments } => {
                let ts = self.clock(ts.as_deref());
                self.flush_injected(ts);
                if self.open.is_none() {
                    self.settle_pending(ts);
                    self.open = Some(Message { ts, ..Message::default() });
                }
                let arguments = match arguments {
                    Value::String(s) => s,
                    other => serde_json::to_string(&other).unwrap_or_default(),
                };
                let call = Call { kind: "function", id: call_id, function: Function { name, arguments } };
                if let Some(open) = self.open.as_mut() {
                    open.calls.push(call);
                }
            }
            Body::ToolResult { call_id, content, ok } => {
                let ts = self.clock(ts.as_deref());
                self.flush_message();
                if let Err(unmatched) = self.pending.answer(&call_id) {
                    self.diags.not_carried(unmatched.detail());
                    return Ok(());
                }
                self.tool_message(&call_id, &content, ok.map(|ok| !ok), ts);
            }
            Body::Compaction { summary, .. } => {
                let ts = self.clock(ts.as_deref());
                self.close_model_side(ts);
                self.end_turn(ts);
                self.rotate(out)?;
                self.checkpoint();
                let content = Content::Parts(vec![
                    Part::Text { text: COMPACTION_PREFIX.to_string() },
                    Part::Text { text: summary },
                ]);
                self.context_line(&ContextMessage::of("user", &content));
            }
        }
        if self.segment.len() > MAX_SEGMENT_BYTES {
            return Err(CodecError::LimitExceeded(format!(
                "a Kimi CLI context of more than {MAX_SEGMENT_BYTES} bytes since the last compaction"
            )));
        }
        Ok(())
    }

    /// Returns the context so far as `context_<n>.jsonl` and starts the next.
    fn rotate(&mut self, out: &mut Vec<Artifact>) -> Result<(), CodecError> {
        self.rotations += 1;
        let path = self.path(&format!("context_{}.jsonl", self.rotations));
        out.push(Artifact { path, bytes: std::mem::take(&mut self.segment) });
        self.open_segment();
        Ok(())
    }

    fn path(&self, name: &str) -> String {
        let dir = self.session.as_ref().map_or("", |s| s.dir.as_str());
        layout::join(dir, name)
    }

    fn end_turn(&mut self, ts: f64) {
        if self.turn_open {
            self.event(ts, "TurnEnd", json!({}));
            self.turn_open = false;
        }
    }

    fn user(&mut self, text: String, ts: f64) {
        self.end_turn(ts);
        let content = if self.injected.is_empty() {
            Content::Text(text)
        } else {
            let mut parts: Vec<Part> =
                std::mem::take(&mut self.injected).into_iter().map(|text| Part::Text { text }).collect();
            if !text.is_empty() {
                parts.push(Part::Text { text });
            }
            Content::Parts(parts)
        };
        self.checkpoint();
        self.context_line(&ContextMessage::of("user", &content));
        self.event(ts, "TurnBegin", TurnBegin { user_input: &content });
        self.turn_open = true;
        self.steps = 0;
    }

    /// Reminders with no user message after them: a message of their own.
    fn flush_injected(&mut self, ts: f64) {
        if !self.injected.is_empty() {
            self.close_model_side(ts);
            self.user(String::new(), ts);
        }
    }

    fn reasoning(&mut self, r: Reasoning, ts: f64) {
        let text = r.text.filter(|t| !t.is_empty());
        let same = self.same_harness();
        let (think, signature) = match (text, r.opaque) {
            (Some(text), opaque) if same => (text, opaque),
            (Some(text), opaque) => {
                if opaque.is_some() {
                    self.diags.not_carried("reasoning-signature");
                }
                (text, None)
            }
            (None, Some(opaque)) if same => (String::new(), Some(opaque)),
            (None, Some(_)) => {
                self.diags.add(
                    "untranslated-reasoning",
                    Severity::Warning,
                    "opaque reasoning of another harness (Kimi would send it to its own provider)",
                    None,
                    None,
                );
                return;
            }
            (None, None) => return,
        };
        self.flush_injected(ts);
        if self.open.as_ref().is_none_or(|m| m.text.is_some() || !m.calls.is_empty()) {
            self.flush_message();
            self.settle_pending(ts);
            self.open = Some(Message { ts, ..Message::default() });
        }
        if let Some(open) = self.open.as_mut() {
            open.think.push((think, signature));
        }
    }

    fn assistant(&mut self, a: Assistant, ts: f64) {
        if a.model.is_some() {
            self.diags.not_carried("model");
        }
        if a.stop_reason.is_some() {
            self.diags.not_carried("stop-reason");
        }
        if let Some(u) = &a.usage {
            if u.reasoning.is_some_and(|n| n > 0) {
                self.diags.not_carried("usage.reasoning");
            }
            if u.cost_usd.is_some_and(|c| c > 0.0) {
                self.diags.not_carried("usage.cost_usd");
            }
        }
        self.flush_injected(ts);
        // The text of a message whose calls came first joins it, so its
        // calls stay right before their results.
        if self.open.as_ref().is_none_or(|m| m.text.is_some()) {
            self.flush_message();
            self.settle_pending(ts);
            self.open = Some(Message { ts, ..Message::default() });
        }
        if let Some(open) = self.open.as_mut() {
            open.text = Some(a.text);
            open.usage = a.usage;
            open.message_id = a.message_id;
        }
    }

    /// Before a new model message or prompt: the open message is written
    /// and calls left unanswered get an error result.
    fn close_model_side(&mut self, ts: f64) {
        self.flush_message();
        self.settle_pending(ts);
    }

    fn settle_pending(&mut self, ts: f64) {
        for (id, ()) in self.pending.close_all() {
            self.diags.add("synthesized", Severity::Warning, "missing-tool-result", None, None);
            self.tool_message(&id, MISSING_RESULT, Some(true), ts);
        }
    }

    fn tool_message(&mut self, call_id: &str, content: &str, is_error: Option<bool>, ts: f64) {
        let text = Content::Text(content.to_string());
        self.context_line(&ContextMessage { tool_call_id: Some(call_id), ..ContextMessage::of("tool", &text) });
        if is_error.is_none() {
            self.diags.add("placeholder", Severity::Info, "tool-outcome", None, None);
        }
        let payload = ToolResult {
            tool_call_id: call_id,
            return_value: ReturnValue {
                is_error: is_error.unwrap_or(false),
                output: content,
                message: "",
                display: [],
                extras: None,
            },
        };
        self.event(ts, "ToolResult", payload);
    }

    /// Writes the open assistant message and its step on the wire.
    fn flush_message(&mut self) {
        let Some(m) = self.open.take() else { return };
        let text = m.text.clone().unwrap_or_default();
        if m.think.is_empty() && text.is_empty() && m.calls.is_empty() {
            if m.text.is_some() {
                self.diags.not_carried("empty-assistant-turn");
            }
            return;
        }
        if !self.turn_open {
            // A model message before any prompt: Kimi's wire has a turn per
            // prompt, and its context holds the message as it is.
            self.turn_open = true;
            self.event(m.ts, "TurnBegin", TurnBegin { user_input: &Content::Text(String::new()) });
        }
        let content = if m.think.is_empty() {
            if text.is_empty() { Content::Parts(Vec::new()) } else { Content::Text(text.clone()) }
        } else {
            let mut parts: Vec<Part> = m
                .think
                .iter()
                .map(|(think, encrypted)| Part::Think { think: think.clone(), encrypted: encrypted.clone() })
                .collect();
            if !text.is_empty() {
                parts.push(Part::Text { text: text.clone() });
            }
            Content::Parts(parts)
        };
        let calls = (!m.calls.is_empty()).then_some(m.calls.as_slice());
        self.context_line(&ContextMessage { tool_calls: calls, ..ContextMessage::of("assistant", &content) });
        self.steps += 1;
        self.event(m.ts, "StepBegin", json!({"n": self.steps}));
        for (think, encrypted) in &m.think {
            self.event(m.ts, "ContentPart", Part::Think { think: think.clone(), encrypted: encrypted.clone() });
        }
        if !text.is_empty() {
            self.event(m.ts, "ContentPart", Part::Text { text: text.clone() });
        }
        for call in &m.calls {
            self.pending.open(call.id.clone(), ());
            self.event(m.ts, "ToolCall", WireCall { call, extras: None });
        }
        if m.usage.is_some() || m.message_id.is_some() {
            let token_usage = m.usage.as_ref().map(|u| TokenUsage {
                input_other: u.input.unwrap_or(0),
                output: u.output.unwrap_or(0),
                input_cache_read: u.cache_read.unwrap_or(0),
                input_cache_creation: u.cache_write.unwrap_or(0),
            });
            self.event(m.ts, "StatusUpdate", StatusUpdate { token_usage, message_id: m.message_id.as_deref() });
        }
    }

    fn take_wire(&mut self, out: &mut Vec<Artifact>) {
        if !self.wire.is_empty() {
            out.push(Artifact { path: self.path(WIRE), bytes: std::mem::take(&mut self.wire) });
        }
    }
}

impl SessionWriter for Writer {
    fn push(&mut self, records: &str) -> Result<Vec<Artifact>, CodecError> {
        let mut out = Vec::new();
        for line in records.lines() {
            let Some(record) = self.input.record(line, &mut self.diags)? else { continue };
            if self.session.is_none() {
                match &record.body {
                    Body::Meta(meta) if record.agent.is_none() => {
                        self.start(Some(meta), line)?;
                        continue;
                    }
                    _ => self.start(None, line)?,
                }
            }
            self.record(record, &mut out)?;
        }
        self.take_wire(&mut out);
        Ok(out)
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        let Some(session) = self.session.as_ref() else {
            return Err(CodecError::Malformed("an empty canonical document: nothing to write".into()));
        };
        let (id, title) = (session.id.clone(), session.title.clone());
        let ts = self.last_ts;
        self.flush_injected(ts);
        self.close_model_side(ts);
        self.end_turn(ts);
        let mut out = Vec::new();
        self.take_wire(&mut out);
        out.push(Artifact { path: self.path(CONTEXT), bytes: std::mem::take(&mut self.segment) });
        out.push(Artifact { path: self.path(STATE), bytes: state_json(title.as_deref()) });
        Ok(Written { native_id: id, chunks: out, diagnostics: self.diags.drain() })
    }
}

/// `state.json` as Kimi CLI 1.51.0 writes it for a new session.
pub fn state_json(title: Option<&str>) -> Vec<u8> {
    // The fields in Kimi's order (serde_json's maps would sort them).
    let title = serde_json::to_string(&title).unwrap_or_else(|_| "null".into());
    let state = format!(
        "{{\n  \"version\": 1,\n  \"approval\": {{\n    \"yolo\": false,\n    \"afk\": false,\n    \
         \"auto_approve_actions\": []\n  }},\n  \"additional_dirs\": [],\n  \"custom_title\": {title},\n  \
         \"title_generated\": false,\n  \"title_generate_attempts\": 0,\n  \"plan_mode\": false,\n  \
         \"plan_session_id\": null,\n  \"plan_slug\": null,\n  \"wire_mtime\": null,\n  \"archived\": false,\n  \
         \"archived_at\": null,\n  \"auto_archive_exempt\": false,\n  \"todos\": []\n}}"
    );
    state.into_bytes()
}

/// A session folder name `kimi -r` finds: a plain name of letters, digits,
/// `-` and `_`, at most 128 bytes.
pub fn is_session_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('-')
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A UUID in the version-4 layout from the SHA-256 of `bytes`: the
/// session id derived from the `meta` line.
pub use trajhost_codec_sdk::writer::ids::uuid_v4_of as uuid_of;

/// A reminder Kimi CLI injects: `<system>…</system>` or
/// `<system-reminder>…</system-reminder>` (what the reader maps to an
/// observation).
fn is_injected(text: &str) -> bool {
    let t = text.trim();
    (t.starts_with("<system>") || t.starts_with("<system-reminder>"))
        && (t.ends_with("</system>") || t.ends_with("</system-reminder>"))
}

// ---------------------------------------------------------------- line shapes
// Fields in the order Kimi CLI writes them (serde_json's maps would sort).

/// A kosong content part.
#[derive(Serialize, Clone)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part {
    Text {
        text: String,
    },
    Think {
        think: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        encrypted: Option<String>,
    },
}

/// A message's content: a string or a list of parts.
#[derive(Serialize, Clone)]
#[serde(untagged)]
enum Content {
    Text(String),
    Parts(Vec<Part>),
}

#[derive(Serialize, Clone)]
struct Function {
    name: String,
    /// The arguments as a JSON string, as chat completions carry them.
    arguments: String,
}

#[derive(Serialize, Clone)]
struct Call {
    #[serde(rename = "type")]
    kind: &'static str,
    id: String,
    function: Function,
}

/// A context line (`model_dump_json(exclude_none=True)`: compact).
#[derive(Serialize)]
struct ContextMessage<'a> {
    role: &'static str,
    content: &'a Content,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls: Option<&'a [Call]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
}

impl<'a> ContextMessage<'a> {
    fn of(role: &'static str, content: &'a Content) -> ContextMessage<'a> {
        ContextMessage { role, content, tool_calls: None, tool_call_id: None }
    }
}

#[derive(Serialize)]
struct PseudoLine<'a> {
    role: &'static str,
    content: &'a str,
}

#[derive(Serialize)]
struct WireLine<'a, P> {
    timestamp: f64,
    message: WireMessage<'a, P>,
}

#[derive(Serialize)]
struct WireMessage<'a, P> {
    #[serde(rename = "type")]
    kind: &'a str,
    payload: P,
}

#[derive(Serialize)]
struct TurnBegin<'a> {
    user_input: &'a Content,
}

#[derive(Serialize)]
struct WireCall<'a> {
    #[serde(flatten)]
    call: &'a Call,
    extras: Option<()>,
}

#[derive(Serialize)]
struct TokenUsage {
    input_other: u64,
    output: u64,
    input_cache_read: u64,
    input_cache_creation: u64,
}

#[derive(Serialize)]
struct StatusUpdate<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    token_usage: Option<TokenUsage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message_id: Option<&'a str>,
}

#[derive(Serialize)]
struct ToolResult<'a> {
    tool_call_id: &'a str,
    return_value: ReturnValue<'a>,
}

#[derive(Serialize)]
struct ReturnValue<'a> {
    is_error: bool,
    output: &'a str,
    message: &'a str,
    display: [(); 0],
    extras: Option<()>,
}
