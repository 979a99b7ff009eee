//! Canonical records → this codec's export file (see [`crate::export`]),
//! streamed: every blob is written as soon as it is complete, the root and
//! `meta['0']` last. Per user turn: a `UserMessage` blob (the bare text), one
//! `ConversationStep` blob per assistant text, thinking text and completed
//! tool call (as `McpToolCall` with `google.protobuf.Value` arguments and
//! `McpSuccess{content:[text], is_error}`), then the turn blob. Alongside, the
//! model-visible JSON messages of root field 1: a system message, each user
//! text wrapped in `<user_query>`, assistant messages with text / reasoning /
//! tool-call parts, one `tool` message per result. What AgentKv cannot hold
//! is reported as `not-carried` (system, observation, compaction records,
//! attachments, usage, reasoning signatures) or `untranslated-reasoning`
//! (reasoning without text).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::{Value as Json, json};
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::hash::{md5_hex, sha256, to_hex};
use trajhost_codec_sdk::time::parse_rfc3339;
use trajhost_codec_sdk::writer::CanonicalInput;
use trajhost_codec_sdk::{ArtifactChunk, CodecError, SessionWriter, Severity, WriteOptions, Written};

use crate::conversation::{encode_root, encode_user_message, file_uri};
use crate::export::{self, blob_line, meta_line};
use crate::messages::{message, reasoning_part, text_part, tool_call_part, tool_result_message, wrap_user_query};
use crate::session::{CHATS, META_JSON};
use crate::steps::{McpResult, McpToolCall, encode_assistant, encode_mcp_step, encode_thinking};
use crate::target;

pub const NOT_CARRIED: &str = "not-carried";
pub const UNTRANSLATED_REASONING: &str = "untranslated-reasoning";

/// The system message written first into root field 1.
pub const SYSTEM_MESSAGE: &str =
    "This conversation was imported into Cursor by trajhost from another coding agent's session.";

enum Pending {
    Ready(Vec<u8>),
    Call(Box<McpToolCall>, bool),
}

struct Started {
    native_id: String,
    cwd: String,
    dir: String,
    title: Option<String>,
}

pub struct Writer {
    options: WriteOptions,
    /// The canonical lines read.
    input: CanonicalInput,
    started: Option<Started>,
    model: Option<String>,
    created_ms: Option<i64>,
    updated_ms: Option<i64>,
    first_user: Option<String>,
    diags: Diagnostics,
    out: Vec<u8>,
    emitted: BTreeSet<[u8; 32]>,
    messages: Vec<[u8; 32]>,
    turns: Vec<[u8; 32]>,
    /// Per turn, the time of its first record (root field 14).
    turn_times: Vec<Option<i64>>,
    turn_time: Option<i64>,
    turn_open: bool,
    user: Option<[u8; 32]>,
    steps: Vec<[u8; 32]>,
    pending: VecDeque<Pending>,
    parts: Vec<Json>,
    names: BTreeMap<String, String>,
    finished: bool,
}

/// A UUID (v4 layout) derived from `seed`: the sandbox has no randomness.
pub fn uuid_from(seed: &str) -> String {
    trajhost_codec_sdk::writer::ids::uuid_v4_of(seed.as_bytes())
}

/// `.cursor/chats/<md5(cwd)>/<id>`.
pub fn chat_dir(cwd: &str, id: &str) -> String {
    format!("{CHATS}/{}/{id}", md5_hex(cwd.as_bytes()))
}

/// Refuses a provider: the Cursor CLI selects models, not providers.
pub fn refuse_provider() -> Result<(), CodecError> {
    if let Some(p) = target::choice().provider {
        return Err(CodecError::Unsupported(format!(
            "the Cursor CLI has no provider selection (only a model); --provider {p} cannot be honoured"
        )));
    }
    Ok(())
}

impl Writer {
    pub fn new(options: WriteOptions) -> Result<Writer, CodecError> {
        refuse_provider()?;
        Ok(Writer {
            options,
            input: CanonicalInput::new(),
            started: None,
            model: target::choice().model,
            created_ms: None,
            updated_ms: None,
            first_user: None,
            diags: Diagnostics::new(),
            out: Vec::new(),
            emitted: BTreeSet::new(),
            messages: Vec::new(),
            turns: Vec::new(),
            turn_times: Vec::new(),
            turn_time: None,
            turn_open: false,
            user: None,
            steps: Vec::new(),
            pending: VecDeque::new(),
            parts: Vec::new(),
            names: BTreeMap::new(),
            finished: false,
        })
    }

    fn not_carried(&mut self, detail: &str) {
        self.diags.add(NOT_CARRIED, Severity::Warning, detail, None, None);
    }

    fn emit(&mut self, data: &[u8]) -> [u8; 32] {
        let id = sha256(data);
        if self.emitted.insert(id) {
            self.out.extend_from_slice(&blob_line(&to_hex(&id), data));
        }
        id
    }

    fn emit_message(&mut self, data: &[u8]) {
        let id = self.emit(data);
        self.messages.push(id);
    }

    fn flush_assistant_message(&mut self) {
        if !self.parts.is_empty() {
            let parts = std::mem::take(&mut self.parts);
            self.emit_message(&message("assistant", Json::Array(parts)));
        }
    }

    /// Writes the steps at the head of the queue that are complete.
    fn drain_steps(&mut self) {
        while let Some(head) = self.pending.front() {
            let bytes = match head {
                Pending::Ready(b) => b.clone(),
                Pending::Call(call, true) => encode_mcp_step(call),
                Pending::Call(_, false) => break,
            };
            self.pending.pop_front();
            let id = self.emit(&bytes);
            self.steps.push(id);
        }
    }

    fn close_turn(&mut self) -> Result<(), CodecError> {
        if !self.turn_open {
            return Ok(());
        }
        self.drain_steps();
        if let Some(Pending::Call(call, _)) = self.pending.front() {
            return Err(CodecError::Unsupported(format!(
                "tool call {} ({}) has no result: Cursor's store keeps only completed tool calls",
                call.tool_call_id.as_deref().unwrap_or(""),
                call.name
            )));
        }
        let mut a = crate::wire::Writer::new();
        if let Some(u) = &self.user {
            a.bytes(1, u);
        }
        for s in &self.steps {
            a.bytes(2, s);
        }
        let turn = crate::wire::Writer::new().bytes(1, &a.into_bytes()).finish();
        let id = self.emit(&turn);
        self.turns.push(id);
        self.turn_times.push(self.turn_time.take());
        self.turn_open = false;
        self.user = None;
        self.steps.clear();
        Ok(())
    }

    fn open_turn(&mut self, ts: Option<i64>) {
        if !self.turn_open {
            self.turn_open = true;
            self.turn_time = ts;
        }
    }

    fn start(&mut self, record: &Record) -> Result<(), CodecError> {
        let meta = match &record.body {
            Body::Meta(m) => Some(m),
            _ => None,
        };
        let native_id = match (&self.options.native_id, meta) {
            (Some(id), _) => id.clone(),
            (None, Some(m)) if trajhost_codec_sdk::paths::is_uuid(&m.native_id) && m.harness == crate::HARNESS => {
                m.native_id.to_ascii_lowercase()
            }
            (None, Some(m)) => uuid_from(&format!("{}:{}", m.harness, m.native_id)),
            (None, None) => uuid_from("trajhost:cursor"),
        };
        let cwd = match self.options.cwd.clone().or_else(|| meta.and_then(|m| m.cwd.clone())) {
            Some(c) => c,
            None => {
                self.diags.add("no-cwd", Severity::Warning, "the session records no cwd: / is used", None, None);
                "/".to_string()
            }
        };
        self.created_ms = meta.and_then(|m| m.started_at.as_deref()).and_then(parse_rfc3339);
        let dir = chat_dir(&cwd, &native_id);
        self.started = Some(Started { native_id, cwd, dir, title: meta.and_then(|m| m.title.clone()) });
        self.emit_message(&message("system", Json::String(SYSTEM_MESSAGE.into())));
        Ok(())
    }

    fn record(&mut self, record: Record) -> Result<(), CodecError> {
        if self.started.is_none() {
            self.start(&record)?;
            if matches!(record.body, Body::Meta(_)) {
                return Ok(());
            }
        }
        let ts = record.ts.as_deref().and_then(parse_rfc3339);
        if let Some(ts) = ts {
            self.created_ms.get_or_insert(ts);
            self.updated_ms = Some(self.updated_ms.map_or(ts, |u| u.max(ts)));
        }
        if record.agent.is_some() {
            self.not_carried("subagent records (a Cursor subagent lives in its own archive-only store)");
            return Ok(());
        }
        match record.body {
            Body::Meta(_) => self.not_carried("a second meta record"),
            Body::System { .. } => self.not_carried("system record (AgentKv has no equivalent)"),
            Body::Observation { subtype, .. } => {
                self.not_carried(&format!("observation record ({subtype}): AgentKv has no equivalent"))
            }
            Body::Compaction { .. } => self.not_carried("compaction summary (a compacted Cursor chat is archive-only)"),
            Body::User { text, attachments } => {
                if !attachments.is_empty() {
                    self.not_carried("user attachments");
                }
                self.close_turn()?;
                self.flush_assistant_message();
                let seed = format!("{}:{}", self.started.as_ref().map_or("", |s| &s.native_id), record.id);
                let message_id =
                    if trajhost_codec_sdk::paths::is_uuid(&record.id) { record.id.clone() } else { uuid_from(&seed) };
                let id = self.emit(&encode_user_message(&text, &message_id));
                self.open_turn(ts);
                self.user = Some(id);
                self.emit_message(&message("user", Json::Array(vec![text_part(&wrap_user_query(&text))])));
                if self.first_user.is_none() {
                    self.first_user = Some(text);
                }
            }
            Body::Assistant(a) => {
                if a.usage.is_some() {
                    self.diags.add(NOT_CARRIED, Severity::Info, "assistant usage", None, None);
                }
                if self.model.is_none() {
                    self.model = a.model.clone();
                }
                if a.text.is_empty() {
                    return Ok(());
                }
                self.open_turn(ts);
                self.pending.push_back(Pending::Ready(encode_assistant(&a.text)));
                self.parts.push(text_part(&a.text));
            }
            Body::Reasoning(r) => match r.text.filter(|t| !t.is_empty()) {
                Some(text) => {
                    if r.opaque.is_some() {
                        self.diags.add(NOT_CARRIED, Severity::Info, "reasoning signature", None, None);
                    }
                    self.open_turn(ts);
                    self.pending.push_back(Pending::Ready(encode_thinking(&text)));
                    self.parts.push(reasoning_part(&text));
                }
                None => self.diags.add(
                    UNTRANSLATED_REASONING,
                    Severity::Warning,
                    "reasoning without text (opaque or encrypted): ThinkingMessage holds text only",
                    None,
                    None,
                ),
            },
            Body::ToolCall { call_id, name, arguments } => {
                let args = match arguments {
                    Json::Object(m) => m,
                    Json::Null => serde_json::Map::new(),
                    other => {
                        self.not_carried("tool arguments that are not a JSON object (kept under \"value\")");
                        let mut m = serde_json::Map::new();
                        m.insert("value".into(), other);
                        m
                    }
                };
                self.open_turn(ts);
                self.parts.push(tool_call_part(&call_id, &name, &Json::Object(args.clone())));
                self.names.insert(call_id.clone(), name.clone());
                let call = McpToolCall {
                    name: name.clone(),
                    args,
                    tool_call_id: Some(call_id),
                    provider_identifier: None,
                    tool_name: Some(name),
                    server_identifier: None,
                    result: None,
                };
                self.pending.push_back(Pending::Call(Box::new(call), false));
            }
            Body::ToolResult { call_id, content, ok } => {
                let slot = self.pending.iter_mut().find_map(|p| match p {
                    Pending::Call(c, false) if c.tool_call_id.as_deref() == Some(call_id.as_str()) => Some(c),
                    _ => None,
                });
                let Some(call) = slot else {
                    self.not_carried("tool result without a pending tool call");
                    return Ok(());
                };
                let is_error = ok == Some(false);
                call.result = Some(McpResult::Success { texts: vec![content.clone()], images: 0, is_error });
                for p in self.pending.iter_mut() {
                    if let Pending::Call(c, done) = p
                        && c.tool_call_id.as_deref() == Some(call_id.as_str())
                    {
                        *done = true;
                    }
                }
                self.flush_assistant_message();
                let name = self.names.get(&call_id).cloned().unwrap_or_default();
                self.emit_message(&tool_result_message(&call_id, &name, &content, is_error));
            }
        }
        self.drain_steps();
        Ok(())
    }

    fn chunk(&mut self) -> Vec<ArtifactChunk> {
        let Some(s) = &self.started else { return Vec::new() };
        if self.out.is_empty() {
            return Vec::new();
        }
        vec![ArtifactChunk { path: format!("{}/{}", s.dir, export::FILE_NAME), bytes: std::mem::take(&mut self.out) }]
    }
}

impl SessionWriter for Writer {
    fn push(&mut self, records: &str) -> Result<Vec<ArtifactChunk>, CodecError> {
        for line in records.lines() {
            let Some(record) = self.input.strict_record(line)? else { continue };
            self.record(record)?;
        }
        Ok(self.chunk())
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        if self.finished {
            return Err(CodecError::Other("writer finished twice".into()));
        }
        self.finished = true;
        let Some(_) = &self.started else {
            return Err(CodecError::Malformed("no records to write (no meta record)".into()));
        };
        self.close_turn()?;
        self.flush_assistant_message();
        let s = self.started.as_ref().expect("started");
        let (native_id, cwd, dir) = (s.native_id.clone(), s.cwd.clone(), s.dir.clone());
        let title = s
            .title
            .clone()
            .or_else(|| self.first_user.as_deref().and_then(|t| trajhost_codec_sdk::text::title_of(t, 80)))
            .unwrap_or_else(|| "New Agent".into());
        // Turn timings only when every turn has a time (the reader pairs them by position).
        let times: Option<Vec<i64>> = self.turn_times.iter().copied().collect();
        let times = times.filter(|t| !t.is_empty()).unwrap_or_default();
        let root = encode_root(&self.messages, &self.turns, &file_uri(&cwd), &times);
        let root_id = self.emit(&root);
        let created = match self.created_ms {
            Some(c) => c,
            None => {
                self.diags.add("no-timestamp", Severity::Warning, "the session records no time: 0 is used", None, None);
                0
            }
        };
        let updated = self.updated_ms.unwrap_or(created).max(created);
        let mut meta0 = json!({
            "agentId": native_id,
            "latestRootBlobId": to_hex(&root_id),
            "name": title,
            "mode": "default",
            "createdAt": created,
        });
        if let Some(m) = &self.model {
            meta0["lastUsedModel"] = Json::String(m.clone());
        }
        self.out.extend_from_slice(&meta_line(&meta0));
        let mut chunks = self.chunk();
        let meta_json = json!({
            "schemaVersion": 1,
            "title": title,
            "createdAtMs": created,
            "updatedAtMs": updated,
            "hasConversation": true,
            "cwd": cwd,
        });
        chunks.push(ArtifactChunk {
            path: format!("{dir}/{META_JSON}"),
            bytes: serde_json::to_vec_pretty(&meta_json).expect("JSON serializes"),
        });
        Ok(Written { native_id, chunks, diagnostics: self.diags.drain() })
    }
}
