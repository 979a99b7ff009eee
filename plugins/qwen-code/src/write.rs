//! `write`: a canonical session → one Qwen Code transcript,
//! `.qwen/projects/<sanitized cwd>/chats/<sessionId>.jsonl`, shaped like
//! what Qwen Code 0.15.10 writes itself (`fixtures/qwen-code/0.15.10`).
//!
//! ```text
//! user         a prompt: message {role user, parts [{text}]}
//! assistant    one model response: message {role model, parts [thought
//!              parts {text, thought: true}, the text, functionCall {id,
//!              name, args}]}, model, usageMetadata (Gemini counts)
//! tool_result  one per result: message {role user, parts [functionResponse
//!              {id, name, response {output | error}}]}, toolCallResult
//!              {callId, status, resultDisplay}
//! system       chat_compression (systemPayload.compressedHistory: the
//!              summary and the model's acknowledgement, as Qwen Code
//!              compresses), custom_title (last line, as `/rename` appends it)
//! ```
//!
//! Every line has `uuid` and `parentUuid` = the previous line's uuid (null on
//! the first), so the lines form one chain from the newest leaf: Qwen Code
//! rebuilds the history by walking `parentUuid` back from the last line, and
//! sends each record's `message` (after the last compression, the compressed
//! history and what follows it). Every line carries `sessionId` (= the file
//! stem), `timestamp`, `cwd` (Qwen Code only lists a session whose first
//! line's cwd hashes to the project's), `version` 0.15.10 and `gitBranch`
//! when the source knows it.
//!
//! The writer streams: lines are handed back as they are made, and only the
//! model response being assembled (from its reasoning to its last call) is
//! held. The session id is `options.native_id`, else a UUID derived from the
//! SHA-256 of the canonical `meta` line, so the same document always gives
//! the same bytes (the sandbox has no clock and no randomness), and line
//! uuids are derived from it and the line's index.
//!
//! What is not carried is named in `written.diagnostics` (code `not-carried`,
//! detail = what, with a count):
//! - `system-prompt`: system records (Qwen Code builds its own system prompt
//!   and keeps none in the transcript);
//! - `attachments`: images and documents are referenced by media type only
//!   in canonical records, so there are no bytes to write;
//! - `observation/<family>`: harness notes (modes, hooks, queue, …); a
//!   title is kept as the session's `custom_title`;
//! - `reasoning-signature`: signatures of readable reasoning (the text is
//!   kept as a thought part); encrypted reasoning without readable text is
//!   `untranslated-reasoning` (Qwen Code has no slot for another provider's
//!   encrypted reasoning), which makes `convert` refuse without `--lossy`;
//! - `usage.cache_write`, `usage.cost_usd`: Gemini usage has neither;
//! - `stop-reason`: Qwen Code records none;
//! - `compaction-trigger`: a compression record has no trigger field;
//! - `subagent-transcript`, `additional-meta`, `unknown-kind/<kind>`,
//!   `empty-user-turn`, `empty-assistant-turn` (a response with no text,
//!   reasoning or call: its usage goes with it), `orphan-tool-result`,
//!   `duplicate-tool-result`, `observation/custom_title` (earlier titles:
//!   only the session's title is written).
//!
//! Repaired, not lost: a call id that is empty, overlong or already used
//! gets a fresh one (`renamed` / `tool-call-id`), and its result follows
//! it; a response without a model takes the last model named.
//!
//! Model: `model` on an assistant line is the model that served that
//! response (Qwen Code resumes with the model of its own configuration, see
//! [`crate::prepare`]), so the source's model is kept there.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Reasoning, Record, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::hash::sha256;
use trajhost_codec_sdk::paths::is_uuid;
use trajhost_codec_sdk::time::{parse_rfc3339, rfc3339_ms};
use trajhost_codec_sdk::writer::CanonicalInput;
use trajhost_codec_sdk::{ArtifactChunk, CodecError, SessionWriter, Severity, WriteOptions, Written};

use crate::head::title_of;
use crate::layout;

/// The Qwen Code version the transcript claims: the one it was checked
/// against.
pub const CLI_VERSION: &str = "0.15.10";
/// What Qwen Code's compression puts after the summary in the compressed
/// history (the model's turn acknowledging it).
pub const COMPRESSION_ACK: &str = "Got it. Thanks for the additional context!";
/// `titleSource` of a title carried from the source: not a rename made in
/// Qwen Code, so its own auto-title may still replace it.
pub const TITLE_SOURCE: &str = "auto";

// ---------------------------------------------------------------- line shapes

/// One transcript line (`ChatRecord`), in the key order Qwen Code writes.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Line<'a> {
    uuid: &'a str,
    parent_uuid: Option<&'a str>,
    session_id: &'a str,
    timestamp: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    subtype: Option<&'static str>,
    cwd: &'a str,
    version: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    git_branch: Option<&'a str>,
    #[serde(flatten)]
    body: LineBody<'a>,
}

/// What a line carries besides its envelope.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct LineBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Content<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage_metadata: Option<&'a UsageMetadata>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_result: Option<ToolCallResult<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_payload: Option<Value>,
}

/// A Gemini `Content`.
#[derive(Serialize)]
struct Content<'a> {
    role: &'static str,
    parts: Vec<Part<'a>>,
}

/// A Gemini `Part`.
#[derive(Serialize)]
#[serde(untagged)]
enum Part<'a> {
    Text {
        text: &'a str,
    },
    Thought {
        text: &'a str,
        thought: bool,
    },
    Call {
        #[serde(rename = "functionCall")]
        function_call: FunctionCall<'a>,
    },
    Response {
        #[serde(rename = "functionResponse")]
        function_response: FunctionResponse<'a>,
    },
}

#[derive(Serialize)]
struct FunctionCall<'a> {
    id: &'a str,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<&'a Value>,
}

#[derive(Serialize)]
struct FunctionResponse<'a> {
    id: &'a str,
    name: &'a str,
    response: ResponseBody<'a>,
}

/// `response`: `{output}`, or `{error}` for a call that failed (what Qwen
/// Code sends the model either way is the string).
#[derive(Serialize)]
#[serde(untagged)]
enum ResponseBody<'a> {
    Output { output: &'a str },
    Error { error: &'a str },
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolCallResult<'a> {
    call_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'static str>,
    result_display: &'a str,
}

/// Gemini usage: `promptTokenCount` includes the cached tokens.
#[derive(Serialize, Default, Clone)]
#[serde(rename_all = "camelCase")]
struct UsageMetadata {
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_token_count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    candidates_token_count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thoughts_token_count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_token_count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cached_content_token_count: Option<u64>,
}

// ---------------------------------------------------------------- the writer

/// A model response being assembled: written once the next user-side
/// record (or the end) shows it is complete.
#[derive(Default)]
struct Response {
    /// The canonical assistant record it came from.
    canonical_id: Option<String>,
    ts: String,
    model: Option<String>,
    usage: Option<UsageMetadata>,
    thoughts: Vec<String>,
    text: String,
    /// (written call id, name, arguments)
    calls: Vec<(String, String, Value)>,
}

impl Response {
    fn is_empty(&self) -> bool {
        self.thoughts.is_empty() && self.text.is_empty() && self.calls.is_empty()
    }
}

/// The session being written, once its `meta` is known.
struct Session {
    seed: [u8; 32],
    session_id: String,
    cwd: String,
    git_branch: Option<String>,
    path: String,
    title: Option<String>,
    lines: u64,
    last_uuid: Option<String>,
    /// The time of the newest record seen: the time of records without one.
    now: String,
    out: Vec<u8>,
    open: Option<Response>,
    /// Reasoning read before the response it belongs to.
    leading: Vec<String>,
    /// Canonical call id → (written id, name).
    calls: BTreeMap<String, (String, String)>,
    used_call_ids: BTreeSet<String>,
    answered: BTreeSet<String>,
    last_model: Option<String>,
    first_prompt_title: Option<String>,
    /// `custom_title` observations whose text is not the final title.
    titles_seen: Vec<String>,
}

/// Writes a canonical session as a Qwen Code transcript, batch by batch.
pub struct TranscriptWriter {
    options: WriteOptions,
    diags: Diagnostics,
    input: CanonicalInput,
    session: Option<Session>,
    agents: BTreeSet<String>,
}

impl TranscriptWriter {
    pub fn start(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
        if let Some(id) = options.native_id.as_deref()
            && !is_uuid(id)
        {
            return Err(CodecError::Other(
                "write-options.native-id must be a UUID: Qwen Code only lists transcripts named <uuid>.jsonl".into(),
            ));
        }
        Ok(Box::new(TranscriptWriter {
            options,
            diags: Diagnostics::new(),
            input: CanonicalInput::new(),
            session: None,
            agents: BTreeSet::new(),
        }))
    }

    fn not_carried(&mut self, detail: &str, severity: Severity) {
        self.diags.add("not-carried", severity, detail, None, None);
    }

    fn line(&mut self, line: &str) -> Result<(), CodecError> {
        let Some(record) = self.input.record(line, &mut self.diags)? else { return Ok(()) };
        if let Some(agent) = &record.agent {
            if self.agents.insert(agent.clone()) {
                self.not_carried("subagent-transcript", Severity::Warning);
            }
            return Ok(());
        }
        match (&record.body, self.session.is_some()) {
            (Body::Meta(meta), false) => {
                self.open(meta, line)?;
                Ok(())
            }
            (Body::Meta(_), true) => {
                self.not_carried("additional-meta", Severity::Info);
                Ok(())
            }
            (_, false) => Err(CodecError::Malformed(format!(
                "canonical document line {}: the first record must be the session's meta",
                self.input.line_no()
            ))),
            (_, true) => {
                if let Some(session) = self.session.as_mut() {
                    session.record(&record, &mut self.diags);
                }
                Ok(())
            }
        }
    }

    /// Opens the transcript once the session's `meta` is known.
    fn open(&mut self, meta: &Meta, meta_line: &str) -> Result<(), CodecError> {
        let cwd = self.options.cwd.clone().or_else(|| meta.cwd.clone()).filter(|c| !c.is_empty()).ok_or_else(|| {
            CodecError::Malformed(
                "a Qwen Code session belongs to a working directory: give write-options.cwd (the document's \
                     meta has no cwd)"
                    .into(),
            )
        })?;
        if !layout::is_absolute(&cwd) {
            return Err(CodecError::Malformed(
                "the working directory must be an absolute path (Qwen Code keys sessions by it)".into(),
            ));
        }
        let seed = sha256(meta_line.trim().as_bytes());
        let session_id = match self.options.native_id.as_deref() {
            Some(id) => id.to_ascii_lowercase(),
            None => uuid(&seed, "session", 0),
        };
        let now = match meta.started_at.as_deref().filter(|t| parse_rfc3339(t).is_some()) {
            Some(t) => t.to_string(),
            None => {
                self.diags.add("no-timestamp", Severity::Warning, "meta.started_at", None, None);
                rfc3339_ms(0)
            }
        };
        let path = layout::session_path(&cwd, &session_id);
        self.session = Some(Session {
            seed,
            session_id,
            cwd,
            git_branch: meta.git_branch.clone().filter(|b| !b.is_empty()),
            path,
            title: meta.title.clone().filter(|t| !t.trim().is_empty()),
            lines: 0,
            last_uuid: None,
            now,
            out: Vec::new(),
            open: None,
            leading: Vec::new(),
            calls: BTreeMap::new(),
            used_call_ids: BTreeSet::new(),
            answered: BTreeSet::new(),
            last_model: None,
            first_prompt_title: None,
            titles_seen: Vec::new(),
        });
        Ok(())
    }

    /// The bytes made so far, as a piece of the transcript.
    fn take_chunk(&mut self) -> Vec<ArtifactChunk> {
        match self.session.as_mut() {
            Some(s) if !s.out.is_empty() => {
                vec![ArtifactChunk { path: s.path.clone(), bytes: std::mem::take(&mut s.out) }]
            }
            _ => Vec::new(),
        }
    }
}

impl SessionWriter for TranscriptWriter {
    fn push(&mut self, records: &str) -> Result<Vec<ArtifactChunk>, CodecError> {
        for line in records.lines() {
            self.line(line)?;
        }
        Ok(self.take_chunk())
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        let Some(mut session) = self.session.take() else {
            return Err(CodecError::Malformed("the canonical document has no meta record".into()));
        };
        session.finish(&mut self.diags);
        let native_id = session.session_id.clone();
        self.session = Some(session);
        let chunks = self.take_chunk();
        Ok(Written { native_id, chunks, diagnostics: self.diags.drain() })
    }
}

impl Session {
    fn record(&mut self, record: &Record, diags: &mut Diagnostics) {
        let nc = |diags: &mut Diagnostics, detail: &str, severity: Severity| {
            diags.add("not-carried", severity, detail, None, None);
        };
        match &record.body {
            Body::Meta(_) => {}
            Body::System { .. } => nc(diags, "system-prompt", Severity::Info),
            Body::User { text, attachments } => {
                self.clock(record.ts.as_deref());
                self.flush(diags);
                for _ in attachments {
                    nc(diags, "attachments", Severity::Warning);
                }
                if text.is_empty() {
                    if attachments.is_empty() {
                        nc(diags, "empty-user-turn", Severity::Info);
                    }
                    return;
                }
                if self.first_prompt_title.is_none() && !text.trim().is_empty() {
                    self.first_prompt_title = Some(title_of(text.trim()));
                }
                let message = Content { role: "user", parts: vec![Part::Text { text }] };
                self.push("user", None, LineBody { message: Some(message), ..LineBody::default() });
            }
            Body::Assistant(a) => {
                self.clock(record.ts.as_deref());
                self.flush_open(diags);
                self.open_response(Some(record.id.as_str()), Some(a), diags);
                if let Some(open) = self.open.as_mut() {
                    open.text = a.text.clone();
                }
            }
            Body::Reasoning(r) => self.reasoning(record, r, diags),
            Body::ToolCall { call_id, name, arguments } => {
                self.clock(record.ts.as_deref());
                if self.open.as_ref().is_none() {
                    // Calls without a response record: a response of their own.
                    self.open_response(None, None, diags);
                }
                let id = self.call_id(call_id, diags);
                self.calls.insert(call_id.clone(), (id.clone(), name.clone()));
                if let Some(open) = self.open.as_mut() {
                    open.calls.push((id, name.clone(), arguments.clone()));
                }
            }
            Body::ToolResult { call_id, content, ok } => {
                self.clock(record.ts.as_deref());
                self.flush(diags);
                let Some((id, name)) = self.calls.get(call_id).cloned() else {
                    nc(diags, "orphan-tool-result", Severity::Warning);
                    return;
                };
                if !self.answered.insert(id.clone()) {
                    nc(diags, "duplicate-tool-result", Severity::Warning);
                    return;
                }
                let response = match ok {
                    Some(false) => ResponseBody::Error { error: content },
                    _ => ResponseBody::Output { output: content },
                };
                let status = ok.map(|ok| if ok { "success" } else { "error" });
                let message = Content {
                    role: "user",
                    parts: vec![Part::Response {
                        function_response: FunctionResponse { id: &id, name: &name, response },
                    }],
                };
                let result = ToolCallResult { call_id: &id, status, result_display: content };
                let body = LineBody { message: Some(message), tool_call_result: Some(result), ..LineBody::default() };
                self.push("tool_result", None, body);
            }
            Body::Observation { subtype, text } => {
                if subtype == "custom_title" {
                    if let Some(text) = text.as_deref().filter(|t| !t.trim().is_empty()) {
                        self.titles_seen.push(text.to_string());
                    }
                    return;
                }
                let family = subtype.split('/').next().unwrap_or(subtype);
                nc(diags, &format!("observation/{}", crate::records::type_name(Some(family))), Severity::Info);
            }
            Body::Compaction { summary, trigger } => {
                self.clock(record.ts.as_deref());
                self.flush(diags);
                if trigger.is_some() {
                    nc(diags, "compaction-trigger", Severity::Info);
                }
                let payload = serde_json::json!({
                    "compressedHistory": [
                        {"role": "user", "parts": [{"text": summary}]},
                        {"role": "model", "parts": [{"text": COMPRESSION_ACK}]},
                    ]
                });
                self.push(
                    "system",
                    Some("chat_compression"),
                    LineBody { system_payload: Some(payload), ..LineBody::default() },
                );
            }
        }
    }

    /// Readable reasoning becomes a thought part of its response; reasoning
    /// with nothing readable cannot be held.
    fn reasoning(&mut self, record: &Record, r: &Reasoning, diags: &mut Diagnostics) {
        let text = r.text.as_deref().filter(|t| !t.is_empty());
        let Some(text) = text else {
            if r.opaque.as_deref().is_some_and(|o| !o.is_empty()) || r.encrypted {
                diags.add(
                    "untranslated-reasoning",
                    Severity::Warning,
                    "encrypted or signed reasoning without readable text: Qwen Code has no slot for it",
                    None,
                    None,
                );
            }
            return;
        };
        if r.opaque.as_deref().is_some_and(|o| !o.is_empty()) {
            diags.add("not-carried", Severity::Info, "reasoning-signature", None, None);
        }
        self.clock(record.ts.as_deref());
        let belongs = self.open.as_ref().is_some_and(|open| {
            open.canonical_id.is_some() && open.canonical_id.as_deref() == record.parent.as_deref()
        });
        match self.open.as_mut() {
            Some(open) if belongs || (open.text.is_empty() && open.calls.is_empty()) => {
                open.thoughts.push(text.to_string());
            }
            _ => {
                // Leading reasoning: its response record comes next.
                self.flush_open(diags);
                self.leading.push(text.to_string());
            }
        }
    }

    /// Starts a response; the reasoning read before it goes first.
    fn open_response(&mut self, canonical_id: Option<&str>, a: Option<&Assistant>, diags: &mut Diagnostics) {
        let model = a.and_then(|a| a.model.clone()).filter(|m| !m.is_empty());
        if model.is_some() {
            self.last_model = model.clone();
        }
        if a.is_some_and(|a| a.stop_reason.is_some()) {
            diags.add("not-carried", Severity::Info, "stop-reason", None, None);
        }
        let usage = a.and_then(|a| a.usage.as_ref()).map(|u| usage(u, diags));
        let thoughts = std::mem::take(&mut self.leading);
        self.open = Some(Response {
            canonical_id: canonical_id.map(str::to_string),
            ts: self.now.clone(),
            // A response whose source names no model keeps the last one
            // named (Qwen Code records the serving model on every response).
            model: model.or_else(|| self.last_model.clone()),
            usage,
            thoughts,
            text: String::new(),
            calls: Vec::new(),
        });
    }

    /// Writes the open response as one assistant line; reasoning that never
    /// got its response is written as a response of its own.
    fn flush(&mut self, diags: &mut Diagnostics) {
        if self.open.is_none() && !self.leading.is_empty() {
            self.open_response(None, None, diags);
        }
        self.flush_open(diags);
    }

    /// Writes the open response, if any, as one assistant line.
    fn flush_open(&mut self, diags: &mut Diagnostics) {
        let Some(response) = self.open.take() else { return };
        if response.is_empty() {
            diags.add("not-carried", Severity::Info, "empty-assistant-turn", None, None);
            return;
        }
        let mut parts = Vec::new();
        for thought in &response.thoughts {
            parts.push(Part::Thought { text: thought, thought: true });
        }
        if !response.text.is_empty() {
            parts.push(Part::Text { text: &response.text });
        }
        for (id, name, args) in &response.calls {
            let args = (!args.is_null()).then_some(args);
            parts.push(Part::Call { function_call: FunctionCall { id, name, args } });
        }
        let saved = std::mem::replace(&mut self.now, response.ts.clone());
        let body = LineBody {
            model: response.model.as_deref(),
            message: Some(Content { role: "model", parts }),
            usage_metadata: response.usage.as_ref(),
            ..LineBody::default()
        };
        self.push("assistant", None, body);
        self.now = saved;
    }

    fn line_uuid(&self) -> String {
        uuid(&self.seed, "line", self.lines)
    }

    /// Appends one line of `kind`.
    fn push(&mut self, kind: &'static str, subtype: Option<&'static str>, body: LineBody<'_>) {
        let uuid = self.line_uuid();
        let line = Line {
            uuid: &uuid,
            parent_uuid: self.last_uuid.as_deref(),
            session_id: &self.session_id,
            timestamp: &self.now,
            kind,
            subtype,
            cwd: &self.cwd,
            version: CLI_VERSION,
            git_branch: self.git_branch.as_deref(),
            body,
        };
        // Serializing plain strings, numbers and JSON values cannot fail.
        let bytes = serde_json::to_vec(&line).unwrap_or_default();
        self.out.extend_from_slice(&bytes);
        self.out.push(b'\n');
        self.lines += 1;
        self.last_uuid = Some(uuid);
    }

    /// Advances the clock to a record's time, when it has a valid one.
    fn clock(&mut self, ts: Option<&str>) {
        if let Some(ts) = ts.filter(|t| parse_rfc3339(t).is_some()) {
            self.now = ts.to_string();
        }
    }

    /// The call id written for a canonical call id: the same when it is
    /// usable and not taken, else a fresh one.
    fn call_id(&mut self, call_id: &str, diags: &mut Diagnostics) -> String {
        let usable = !call_id.is_empty() && call_id.len() <= 256 && !call_id.chars().any(char::is_control);
        let id = if usable && !self.used_call_ids.contains(call_id) {
            call_id.to_string()
        } else {
            diags.add("renamed", Severity::Info, "tool-call-id", None, None);
            let mut n = self.used_call_ids.len() as u64;
            loop {
                let id = format!("call_{}", &uuid(&self.seed, "call", n).replace('-', "")[..24]);
                if !self.used_call_ids.contains(&id) {
                    break id;
                }
                n += 1;
            }
        };
        self.used_call_ids.insert(id.clone());
        id
    }

    /// Ends the document: the open response, then the title when it is not
    /// the first prompt's (which Qwen Code shows without one).
    fn finish(&mut self, diags: &mut Diagnostics) {
        self.flush(diags);
        let title = self.title.clone().or_else(|| self.titles_seen.last().cloned());
        for seen in std::mem::take(&mut self.titles_seen) {
            if Some(&seen) != title.as_ref() {
                diags.add("not-carried", Severity::Info, "observation/custom_title", None, None);
            }
        }
        let Some(title) = title else { return };
        if self.first_prompt_title.as_deref() == Some(title_of(title.trim()).as_str()) {
            return;
        }
        let payload = serde_json::json!({"customTitle": title, "titleSource": TITLE_SOURCE});
        self.push("system", Some("custom_title"), LineBody { system_payload: Some(payload), ..LineBody::default() });
    }
}

/// Canonical usage as Gemini counts: the prompt count includes the cache.
fn usage(u: &Usage, diags: &mut Diagnostics) -> UsageMetadata {
    if u.cache_write.is_some_and(|n| n > 0) {
        diags.add("not-carried", Severity::Info, "usage.cache_write", None, None);
    }
    if u.cost_usd.is_some_and(|c| c > 0.0) {
        diags.add("not-carried", Severity::Info, "usage.cost_usd", None, None);
    }
    let prompt = u.input.map(|i| i + u.cache_read.unwrap_or(0));
    let total = [prompt, u.output, u.reasoning].iter().flatten().sum::<u64>();
    UsageMetadata {
        prompt_token_count: prompt,
        candidates_token_count: u.output,
        thoughts_token_count: u.reasoning,
        total_token_count: Some(total),
        cached_content_token_count: u.cache_read,
    }
}

/// A UUID in the version-4 layout from `seed`, `label` and `index`.
pub fn uuid(seed: &[u8; 32], label: &str, index: u64) -> String {
    let mut input = Vec::with_capacity(seed.len() + label.len() + 9);
    input.extend_from_slice(seed);
    input.extend_from_slice(label.as_bytes());
    input.push(0);
    input.extend_from_slice(&index.to_be_bytes());
    let h = sha256(&input);
    let mut b = [0u8; 16];
    b.copy_from_slice(&h[..16]);
    b[6] = 0x40 | (b[6] & 0x0f);
    b[8] = 0x80 | (b[8] & 0x3f);
    let hex = trajhost_codec_sdk::hash::to_hex(&b);
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}
