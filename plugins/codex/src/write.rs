//! `write`: a canonical session → one Codex rollout.
//!
//! The rollout has the shape Codex 0.171 writes itself (key order and
//! `ordinal`s included):
//!
//! ```text
//! session_meta                      id (= file name uuid), timestamp, cwd, originator codex_cli_rs,
//!                                   cli_version 0.171.0, source cli, model_provider
//! per user turn:
//!   event_msg task_started          turn_id
//!   turn_context                    turn_id, cwd, model (the turn's first assistant's), policies
//!   response_item message developer system records of a Codex session (instructions, environment)
//!   response_item message user      the prompt (input_text)
//!   response_item reasoning         readable summary (+ encrypted_content of a Codex session)
//!   response_item message assistant output_text
//!   response_item function_call     name, arguments (a JSON string), call_id
//!   response_item custom_tool_call  when the arguments are a raw string (apply_patch)
//!   response_item *_output          call_id, output
//!   event_msg token_count           the response's usage (input including cache), where recorded
//!   event_msg task_complete         turn_id, last_agent_message
//! compacted                         a compaction's summary (Codex rebuilds history from it)
//! ```
//!
//! Observed with the real Codex 0.171 (`tests/lab`, loader check with a
//! mutated tool result): `session_meta` plus the `response_item` lines alone
//! resume; `turn_context` and the events are what Codex itself writes and
//! carry the model, usage and turn boundaries. `session_meta.model_provider`
//! must be the provider the target is configured with — `prepare` sets it.
//!
//! What cannot be carried is named in `written.diagnostics` with code
//! `not-carried` (detail = what): `opaque-reasoning` (signatures and
//! encrypted reasoning of another harness), `image-attachment`,
//! `tool-result-status` (a rollout output has no success flag),
//! `orphan-tool-result`, `stop-reason`, `usage-cost`, `partial-usage`,
//! `observation/<subtype>`, `subagent-transcript`, `parent-session`,
//! `foreign-system-prompt`, `opaque-compaction`, `unknown-kind/<kind>`.
//!
//! The thread id is `options.native_id`, else a UUIDv7 whose time is the
//! session start and whose random bits are a SHA-256 of the canonical `meta`
//! line (the source harness, session id and start): the same document always
//! gives the same rollout (the sandbox has no randomness and no clock), and
//! the writer streams (the id is known before the first record). File names
//! and day folders use UTC.

use std::collections::BTreeMap;

use serde_json::Value;
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Reasoning, Record, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::writer::{CanonicalInput, HeldRecords, JsonlAssembler, ids};
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WriteOptions, Written};

use crate::time::{parse_rfc3339, rfc3339_utc};
use crate::{HARNESS, layout};

/// The Codex version the rollout claims: the one it was verified against.
pub const CLI_VERSION: &str = "0.171.0";
/// `session_meta.originator` of the interactive CLI.
pub const ORIGINATOR: &str = "codex_cli_rs";
/// `session_meta.source`: interactive, so `codex resume` lists it.
pub const SOURCE: &str = "cli";
/// `session_meta.model_provider` when the source names none.
pub const MODEL_PROVIDER: &str = "openai";
/// `turn_context.approval_policy` / `sandbox_policy` of written turns:
/// the conservative ones (Codex tells the model when the current ones differ).
pub const APPROVAL_POLICY: &str = "on-request";
pub const SANDBOX_POLICY: &str = "read-only";
/// Writes a canonical session as a rollout, batch by batch: lines are handed
/// back as they are made, so memory follows the longest turn opening (the
/// records from a prompt to its first assistant message), not the session.
pub struct RolloutWriter {
    options: WriteOptions,
    diags: Diagnostics,
    /// The canonical lines read; its `meta` digest seeds a derived thread id.
    input: CanonicalInput,
    meta: Option<Meta>,
    /// Records that came before any record time was known (the rollout's
    /// first line needs the session start).
    early: HeldRecords,
    rollout: Option<Rollout>,
    /// A turn's opening records, held until its first assistant message
    /// names the model that `turn_context` must carry.
    pending: Vec<Record>,
    awaiting_model: bool,
    /// A model was seen: the default of later turns that name none.
    session_model_known: bool,
    first_record: bool,
}

impl RolloutWriter {
    pub fn start(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
        if let Some(id) = options.native_id.as_deref()
            && !layout::is_uuid(id)
        {
            return Err(CodecError::Other("the native id must be a UUID: Codex thread ids are UUIDs".into()));
        }
        Ok(Box::new(RolloutWriter {
            options,
            diags: Diagnostics::new(),
            input: CanonicalInput::new(),
            meta: None,
            early: HeldRecords::new(),
            rollout: None,
            pending: Vec::new(),
            awaiting_model: false,
            session_model_known: false,
            first_record: true,
        }))
    }

    /// Opens the rollout once the session start is known.
    fn open(&mut self, start_ms: Option<i64>) {
        let start_ms = start_ms.unwrap_or_else(|| {
            self.diags.add("no-timestamp", Severity::Warning, "meta.started_at", None, None);
            0
        });
        let native_id = match self.options.native_id.as_deref() {
            Some(id) => id.to_ascii_lowercase(),
            None => ids::uuid_v7(start_ms, self.input.meta_digest().as_ref().map_or(&[][..], |d| &d[..]), "thread"),
        };
        let meta = self.meta.as_ref();
        let cwd = self.options.cwd.clone().or_else(|| meta.and_then(|m| m.cwd.clone())).unwrap_or_else(|| {
            self.diags.add("no-cwd", Severity::Warning, "cwd", None, None);
            "/".to_string()
        });
        let same_harness = meta.is_some_and(|m| m.harness == HARNESS);
        let mut rollout = Rollout {
            out: JsonlAssembler::new(layout::rollout_path(start_ms, &native_id)),
            ordinal: 0,
            last_ms: start_ms,
            native_id: native_id.clone(),
            cwd,
            same_harness,
            model: "unknown".to_string(),
            upcoming_model: None,
            turn: None,
            turns: 0,
            calls: BTreeMap::new(),
            pending_usage: None,
            totals: out::TokenUsage::default(),
            diags: std::mem::take(&mut self.diags),
        };
        rollout.session_meta(self.meta.as_ref(), start_ms);
        self.rollout = Some(rollout);
        for record in self.early.release() {
            self.feed(record);
        }
    }

    /// One record, in order. A turn's opening is held until its first
    /// assistant message names the model (and, until the session's first
    /// model is known, everything is held: it is the default of turns that
    /// name none).
    fn feed(&mut self, record: Record) {
        let opens_turn = matches!(record.body, Body::User { .. }) || self.first_record;
        if opens_turn {
            self.first_record = false;
            if self.session_model_known {
                self.flush_pending();
            }
            self.awaiting_model = true;
        }
        if !self.awaiting_model {
            if let Some(rollout) = self.rollout.as_mut() {
                rollout.record(&record);
            }
            return;
        }
        let model = match &record.body {
            Body::Assistant(a) => a.model.clone().filter(|m| !m.is_empty()),
            _ => None,
        };
        self.pending.push(record);
        if let Some(model) = model {
            if !self.session_model_known {
                self.session_model_known = true;
                if let Some(rollout) = self.rollout.as_mut() {
                    rollout.model = model;
                }
            }
            self.flush_pending();
        }
    }

    /// Writes the held records; each turn opening gets the model of its
    /// first assistant message, when the held records show it.
    fn flush_pending(&mut self) {
        self.awaiting_model = false;
        let Some(rollout) = self.rollout.as_mut() else { return };
        let pending = std::mem::take(&mut self.pending);
        for (i, record) in pending.iter().enumerate() {
            if i == 0 || matches!(record.body, Body::User { .. }) {
                rollout.upcoming_model = pending[i..]
                    .iter()
                    .enumerate()
                    .take_while(|(j, r)| *j == 0 || !matches!(r.body, Body::User { .. }))
                    .find_map(|(_, r)| match &r.body {
                        Body::Assistant(a) => a.model.clone().filter(|m| !m.is_empty()),
                        _ => None,
                    });
            }
            rollout.record(record);
        }
    }

    /// The lines made so far, as one piece of the rollout.
    fn take_chunk(&mut self) -> Vec<Artifact> {
        self.rollout.as_mut().map(|r| r.out.take_chunks()).unwrap_or_default()
    }

    fn diags(&mut self) -> &mut Diagnostics {
        match self.rollout.as_mut() {
            Some(rollout) => &mut rollout.diags,
            None => &mut self.diags,
        }
    }
}

impl SessionWriter for RolloutWriter {
    fn push(&mut self, records: &str) -> Result<Vec<Artifact>, CodecError> {
        for line in records.lines() {
            let mut input = std::mem::take(&mut self.input);
            let record = input.own_record(line, self.diags());
            self.input = input;
            let Some(record) = record? else { continue };
            if let Body::Meta(m) = &record.body {
                if self.meta.is_none() && self.rollout.is_none() {
                    self.meta = Some(m.clone());
                } else {
                    self.diags().add("not-carried", Severity::Info, "additional-meta", None, None);
                }
                continue;
            }
            if self.rollout.is_some() {
                self.feed(record);
                continue;
            }
            let meta_start = self.meta.as_ref().and_then(|m| m.started_at.as_deref()).and_then(parse_rfc3339);
            self.early.hold(record);
            if let Some(start) = meta_start.or(self.early.first_ms()) {
                self.open(Some(start));
            }
        }
        Ok(self.take_chunk())
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        if self.rollout.is_none() {
            let start = self.meta.as_ref().and_then(|m| m.started_at.as_deref()).and_then(parse_rfc3339);
            self.open(start);
        }
        self.flush_pending();
        let chunks = {
            let rollout = self.rollout.as_mut().expect("opened above");
            rollout.end_turn();
            self.take_chunk()
        };
        let rollout = self.rollout.as_mut().expect("opened above");
        Ok(Written { native_id: rollout.native_id.clone(), chunks, diagnostics: rollout.diags.drain() })
    }
}

/// How a call was written, for its output line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CallKind {
    Function,
    Custom,
}

/// The turn being written.
struct Turn {
    id: String,
    /// The turn's prompt was written (records before the first prompt,
    /// such as injected context, open the turn without one).
    has_user: bool,
    last_agent_message: Option<String>,
}

struct Rollout {
    out: JsonlAssembler,
    ordinal: u64,
    /// The last line time, for records without one.
    last_ms: i64,
    native_id: String,
    cwd: String,
    /// The session was read from Codex: its ids, system messages and
    /// encrypted reasoning belong here.
    same_harness: bool,
    /// The model of the turn being written: its first assistant record's,
    /// else the one before.
    model: String,
    /// The model of the next turn's first assistant record.
    upcoming_model: Option<String>,
    turn: Option<Turn>,
    turns: u64,
    calls: BTreeMap<String, CallKind>,
    /// Usage of the last response, written once its tool calls are.
    pending_usage: Option<Usage>,
    /// Running totals, for `token_count.info.total_token_usage`.
    totals: out::TokenUsage,
    diags: Diagnostics,
}

/// The native line shapes written, fields in the order Codex writes them.
mod out {
    use serde::Serialize;

    #[derive(Serialize)]
    pub struct Line<'a, P: Serialize> {
        pub timestamp: String,
        pub ordinal: u64,
        #[serde(rename = "type")]
        pub kind: &'a str,
        pub payload: P,
    }

    #[derive(Serialize)]
    pub struct SessionMeta<'a> {
        pub id: &'a str,
        pub session_id: &'a str,
        pub timestamp: String,
        pub cwd: &'a str,
        pub originator: &'a str,
        pub cli_version: &'a str,
        pub source: &'a str,
        pub thread_source: &'a str,
        pub model_provider: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub git: Option<Git<'a>>,
    }

    #[derive(Serialize)]
    pub struct Git<'a> {
        pub branch: &'a str,
    }

    #[derive(Serialize)]
    pub struct TurnContext<'a> {
        pub turn_id: &'a str,
        pub cwd: &'a str,
        pub approval_policy: &'a str,
        pub sandbox_policy: Tagged<'a>,
        pub model: &'a str,
        pub summary: &'a str,
    }

    #[derive(Serialize)]
    pub struct Tagged<'a> {
        #[serde(rename = "type")]
        pub kind: &'a str,
    }

    #[derive(Serialize)]
    pub struct Text<'a> {
        #[serde(rename = "type")]
        pub kind: &'a str,
        pub text: &'a str,
    }

    #[derive(Serialize)]
    pub struct Message<'a> {
        #[serde(rename = "type")]
        pub kind: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub id: Option<&'a str>,
        pub role: &'a str,
        pub content: [Text<'a>; 1],
    }

    #[derive(Serialize)]
    pub struct Reasoning<'a> {
        #[serde(rename = "type")]
        pub kind: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub id: Option<&'a str>,
        pub summary: Vec<Text<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub encrypted_content: Option<&'a str>,
    }

    #[derive(Serialize)]
    pub struct FunctionCall<'a> {
        #[serde(rename = "type")]
        pub kind: &'a str,
        pub name: &'a str,
        pub arguments: String,
        pub call_id: &'a str,
    }

    #[derive(Serialize)]
    pub struct CustomToolCall<'a> {
        #[serde(rename = "type")]
        pub kind: &'a str,
        pub status: &'a str,
        pub call_id: &'a str,
        pub name: &'a str,
        pub input: &'a str,
    }

    #[derive(Serialize)]
    pub struct Output<'a> {
        #[serde(rename = "type")]
        pub kind: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub id: Option<&'a str>,
        pub call_id: &'a str,
        pub output: &'a str,
    }

    #[derive(Serialize)]
    pub struct TaskStarted<'a> {
        #[serde(rename = "type")]
        pub kind: &'a str,
        pub turn_id: &'a str,
        pub model_context_window: Option<u64>,
    }

    #[derive(Serialize)]
    pub struct TaskComplete<'a> {
        #[serde(rename = "type")]
        pub kind: &'a str,
        pub turn_id: &'a str,
        pub last_agent_message: Option<&'a str>,
    }

    #[derive(Serialize)]
    pub struct TokenCount<'a> {
        #[serde(rename = "type")]
        pub kind: &'a str,
        pub info: TokenInfo,
        pub rate_limits: Option<()>,
    }

    #[derive(Serialize)]
    pub struct TokenInfo {
        pub total_token_usage: TokenUsage,
        pub last_token_usage: TokenUsage,
        pub model_context_window: Option<u64>,
    }

    #[derive(Serialize, Default, Clone, Copy)]
    pub struct TokenUsage {
        pub input_tokens: u64,
        pub cached_input_tokens: u64,
        pub cache_write_input_tokens: u64,
        pub output_tokens: u64,
        pub reasoning_output_tokens: u64,
        pub total_tokens: u64,
    }

    impl TokenUsage {
        pub fn add(&mut self, other: &TokenUsage) {
            self.input_tokens += other.input_tokens;
            self.cached_input_tokens += other.cached_input_tokens;
            self.cache_write_input_tokens += other.cache_write_input_tokens;
            self.output_tokens += other.output_tokens;
            self.reasoning_output_tokens += other.reasoning_output_tokens;
            self.total_tokens += other.total_tokens;
        }
    }

    #[derive(Serialize)]
    pub struct Compacted<'a> {
        pub message: &'a str,
    }
}

impl Rollout {
    fn line<P: serde::Serialize>(&mut self, ms: i64, kind: &str, payload: P) {
        let line = out::Line { timestamp: rfc3339_utc(ms), ordinal: self.ordinal, kind, payload };
        self.ordinal += 1;
        self.out.push(&line);
    }

    fn session_meta(&mut self, meta: Option<&Meta>, start_ms: i64) {
        if meta.is_some_and(|m| m.parent_session.is_some()) {
            // A subagent's or fork's parent is another thread of the source
            // store; the written thread stands alone.
            self.diags.not_carried("parent-session");
        }
        let id = self.native_id.clone();
        let cwd = self.cwd.clone();
        let payload = out::SessionMeta {
            id: &id,
            session_id: &id,
            timestamp: rfc3339_utc(start_ms),
            cwd: &cwd,
            originator: ORIGINATOR,
            cli_version: CLI_VERSION,
            source: SOURCE,
            thread_source: "user",
            model_provider: MODEL_PROVIDER,
            git: meta.and_then(|m| m.git_branch.as_deref()).map(|branch| out::Git { branch }),
        };
        self.line(start_ms, "session_meta", payload);
    }

    fn record(&mut self, record: &Record) {
        let ms = record.ts.as_deref().and_then(parse_rfc3339).unwrap_or(self.last_ms);
        if !matches!(record.body, Body::ToolCall { .. }) {
            self.flush_usage(self.last_ms);
        }
        match &record.body {
            Body::User { text, attachments } => {
                match self.turn.as_mut() {
                    Some(turn) if !turn.has_user => turn.has_user = true,
                    _ => {
                        self.end_turn();
                        self.start_turn(ms);
                        if let Some(turn) = self.turn.as_mut() {
                            turn.has_user = true;
                        }
                    }
                }
                for _ in attachments {
                    self.diags.not_carried("image-attachment");
                }
                let id = self.own_id(&record.id, "msg_");
                let content = [out::Text { kind: "input_text", text }];
                self.line(
                    ms,
                    "response_item",
                    out::Message { kind: "message", id: id.as_deref(), role: "user", content },
                );
            }
            Body::System { text } => {
                if !self.same_harness {
                    // Another harness's system prompt describes its tools and
                    // rules, not Codex's.
                    self.diags.not_carried("foreign-system-prompt");
                } else {
                    self.ensure_turn(ms);
                    let id = self.own_id(&record.id, "msg_");
                    let content = [out::Text { kind: "input_text", text }];
                    let message = out::Message { kind: "message", id: id.as_deref(), role: "developer", content };
                    self.line(ms, "response_item", message);
                }
            }
            Body::Assistant(assistant) => self.assistant(record, assistant, ms),
            Body::Reasoning(reasoning) => self.reasoning(record, reasoning, ms),
            Body::ToolCall { call_id, name, arguments } => {
                self.ensure_turn(ms);
                match arguments {
                    Value::String(input) => {
                        self.calls.insert(call_id.clone(), CallKind::Custom);
                        let call =
                            out::CustomToolCall { kind: "custom_tool_call", status: "completed", call_id, name, input };
                        self.line(ms, "response_item", call);
                    }
                    other => {
                        self.calls.insert(call_id.clone(), CallKind::Function);
                        let call =
                            out::FunctionCall { kind: "function_call", name, arguments: other.to_string(), call_id };
                        self.line(ms, "response_item", call);
                    }
                }
            }
            Body::ToolResult { call_id, content, ok } => match self.calls.get(call_id).copied() {
                // An output without its call is refused by the model API.
                None => self.diags.not_carried("orphan-tool-result"),
                Some(kind) => {
                    if ok.is_some() {
                        // A rollout output has no success flag.
                        self.diags.not_carried("tool-result-status");
                    }
                    let kind = match kind {
                        CallKind::Function => "function_call_output",
                        CallKind::Custom => "custom_tool_call_output",
                    };
                    let id = self.own_id(&record.id, "fco_");
                    self.line(ms, "response_item", out::Output { kind, id: id.as_deref(), call_id, output: content });
                }
            },
            Body::Compaction { summary, .. } => {
                if summary.is_empty() {
                    self.diags.not_carried("opaque-compaction");
                } else {
                    self.line(ms, "compacted", out::Compacted { message: summary });
                }
            }
            Body::Observation { subtype, .. } => {
                // Turn boundaries and turn contexts are written anew.
                if !matches!(subtype.as_str(), "task_started" | "task_complete" | "turn_context") {
                    let what = format!("observation/{}", crate::native::type_name(Some(subtype)));
                    self.diags.not_carried(&what);
                }
            }
            Body::Meta(_) => {}
        }
        self.last_ms = ms;
    }

    /// A Codex item id (`msg_…`, `fco_…`) of a session read from Codex, to
    /// keep; ids of other harnesses would name items the model API does not
    /// know.
    fn own_id(&self, id: &str, prefix: &str) -> Option<String> {
        (self.same_harness && id.starts_with(prefix)).then(|| id.to_string())
    }

    fn assistant(&mut self, record: &Record, assistant: &Assistant, ms: i64) {
        self.ensure_turn(ms);
        if !assistant.text.is_empty() {
            let id = self.own_id(assistant.message_id.as_deref().unwrap_or(&record.id), "msg_");
            let content = [out::Text { kind: "output_text", text: &assistant.text }];
            let message = out::Message { kind: "message", id: id.as_deref(), role: "assistant", content };
            self.line(ms, "response_item", message);
            if let Some(turn) = self.turn.as_mut() {
                turn.last_agent_message = Some(assistant.text.clone());
            }
        }
        if assistant.stop_reason.is_some() {
            self.diags.not_carried("stop-reason");
        }
        if assistant.usage.as_ref().is_some_and(|u| u.cost_usd.is_some()) {
            self.diags.not_carried("usage-cost");
        }
        self.pending_usage = assistant.usage.clone();
    }

    fn reasoning(&mut self, record: &Record, reasoning: &Reasoning, ms: i64) {
        let text = reasoning.text.as_deref().filter(|t| !t.is_empty());
        // Encrypted reasoning is only readable by the provider account of the
        // session it came from: carried only from a Codex session.
        let encrypted = reasoning.opaque.as_deref().filter(|_| self.same_harness && reasoning.encrypted);
        if reasoning.opaque.is_some() && encrypted.is_none() {
            self.diags.not_carried("opaque-reasoning");
        }
        if text.is_none() && encrypted.is_none() {
            return;
        }
        self.ensure_turn(ms);
        let id = self.own_id(&record.id, "rs_");
        let summary = text.map(|text| vec![out::Text { kind: "summary_text", text }]).unwrap_or_default();
        let item = out::Reasoning { kind: "reasoning", id: id.as_deref(), summary, encrypted_content: encrypted };
        self.line(ms, "response_item", item);
    }

    /// Writes the last response's usage as a `token_count` event.
    fn flush_usage(&mut self, ms: i64) {
        let Some(u) = self.pending_usage.take() else { return };
        if u.input.is_none() || u.output.is_none() {
            self.diags.not_carried("partial-usage");
        }
        let cached = u.cache_read.unwrap_or(0);
        let cache_write = u.cache_write.unwrap_or(0);
        let input = u.input.unwrap_or(0) + cached + cache_write;
        let output = u.output.unwrap_or(0);
        let last = out::TokenUsage {
            input_tokens: input,
            cached_input_tokens: cached,
            cache_write_input_tokens: cache_write,
            output_tokens: output,
            reasoning_output_tokens: u.reasoning.unwrap_or(0),
            total_tokens: input + output,
        };
        self.totals.add(&last);
        let info =
            out::TokenInfo { total_token_usage: self.totals, last_token_usage: last, model_context_window: None };
        self.line(ms, "event_msg", out::TokenCount { kind: "token_count", info, rate_limits: None });
    }

    /// Opens a turn for records that come before any user message.
    fn ensure_turn(&mut self, ms: i64) {
        if self.turn.is_none() {
            self.start_turn(ms);
        }
    }

    fn start_turn(&mut self, ms: i64) {
        self.turns += 1;
        if let Some(model) = self.upcoming_model.take() {
            self.model = model;
        }
        let turn_id = ids::uuid_v7(ms, self.native_id.as_bytes(), &format!("turn {}", self.turns));
        self.line(
            ms,
            "event_msg",
            out::TaskStarted { kind: "task_started", turn_id: &turn_id, model_context_window: None },
        );
        let cwd = self.cwd.clone();
        let model = self.model.clone();
        let context = out::TurnContext {
            turn_id: &turn_id,
            cwd: &cwd,
            approval_policy: APPROVAL_POLICY,
            sandbox_policy: out::Tagged { kind: SANDBOX_POLICY },
            model: &model,
            summary: "auto",
        };
        self.line(ms, "turn_context", context);
        self.turn = Some(Turn { id: turn_id, has_user: false, last_agent_message: None });
    }

    fn end_turn(&mut self) {
        let ms = self.last_ms;
        self.flush_usage(ms);
        let Some(turn) = self.turn.take() else { return };
        let complete = out::TaskComplete {
            kind: "task_complete",
            turn_id: &turn.id,
            last_agent_message: turn.last_agent_message.as_deref(),
        };
        self.line(ms, "event_msg", complete);
    }
}
