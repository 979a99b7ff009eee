//! `write`: a canonical session → one Factory Droid transcript and its
//! settings file, shaped like what Droid 0.225 writes itself
//! (`fixtures/factory-droid/0.225.1`):
//!
//! ```text
//! .factory/sessions/<cwd with "/" → "-">/<id>.jsonl
//!   session_start   {id, title, owner, version 2, cwd}
//!   message user    context-<uuid>, visibility llm_only: injected context (observation `context`)
//!   message user    the prompt: text blocks
//!   message assistant  thinking / redacted_thinking, text, tool_use blocks of one response,
//!                      openaiMessageId, modelId
//!   message user    tool_result blocks (one message for the results that answer one response)
//!   compaction_state  summaryText, anchorMessage {id, index} = the last message it replaces,
//!                     removedCount (Droid then replays only the messages after the anchor)
//! .factory/sessions/<slug>/<id>.settings.json
//!   model (a Droid source's), tokenUsage (the session's totals)
//! ```
//!
//! Every message line has `id` and `parentId` = the previous message's id,
//! the chain Droid replays on `droid exec -s <id>`. Lines are handed back
//! as they are made: memory follows one model response, not the session.
//!
//! Ids: a Droid source's message ids are kept (the record id without its
//! `#n` suffix), so a Droid session reads back with the same ids; any other
//! source gets UUIDs derived from the SHA-256 of its `meta` line and a
//! counter, and the session id is derived the same way unless
//! `options.native_id` names one. The same document always gives the same
//! bytes.
//!
//! Not carried (`not-carried`, detail = what, with a count):
//! `system-prompt` (Droid builds its own), `observation/<subtype>` (anything
//! but injected context), `attachments` (images and documents are
//! referenced, not held), `opaque-reasoning` (another harness's signature:
//! Droid sends it back to the provider that signed it only),
//! `stop-reason`, `usage-per-response` (Droid keeps session totals, which
//! the settings file gets), `usage.cost_usd`, `subagent-transcript`,
//! `parent-session`, `git-branch`, `additional-meta`, `orphan-tool-result`,
//! `empty-assistant`, `unknown-kind/<kind>`. Another harness's encrypted
//! reasoning is `untranslated-reasoning`.

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::{Value, json};
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Reasoning, Record, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::hash::sha256;
use trajhost_codec_sdk::time::{parse_rfc3339, rfc3339_ms};
use trajhost_codec_sdk::writer::{CanonicalInput, ids};
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WriteOptions, Written};

use crate::{HARNESS, layout};

/// `session_start.version`: the session format this codec writes.
pub const FORMAT_VERSION: u32 = 2;
/// The title of a session without a title or a prompt.
const UNTITLED: &str = "Untitled session";
/// Bytes of lines held back while no prompt has given the session a title.
const HOLD_FOR_TITLE_BYTES: usize = 1 << 20;

/// The prefix Droid gives the id of its injected-context message.
pub const CONTEXT_PREFIX: &str = "context-";

/// The directory of a cwd's sessions: `.factory/sessions/<cwd with "/" → "-">`.
pub fn project_dir(cwd: &str) -> String {
    format!("{}/{}", layout::SESSIONS, cwd.replace(['/', '\\'], "-"))
}

/// `session_start`, in Droid's key order.
#[derive(Debug, Serialize, serde::Deserialize)]
pub struct SessionStart {
    #[serde(rename = "type")]
    pub kind: String,
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Required: Droid 0.225 skips the history of a session whose
    /// `session_start` has no `owner` (any string, empty included, will do).
    /// `prepare` sets the target user's name.
    #[serde(default)]
    pub owner: String,
    #[serde(default)]
    pub version: Value,
    #[serde(default)]
    pub cwd: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent_id: Option<&'a str>,
    timestamp: &'a str,
    message: NativeMessage,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NativeMessage {
    role: &'static str,
    content: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    visibility: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    openai_message_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model_id: Option<String>,
}

/// `compaction_state`: Droid replays only the messages after
/// `anchorMessage` (the last one the summary covers, by index among the
/// messages), with the summary before them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CompactionLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    id: &'a str,
    timestamp: &'a str,
    summary_text: &'a str,
    summary_tokens: usize,
    summary_kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    anchor_message: Option<Anchor<'a>>,
    removed_count: usize,
}

#[derive(Serialize)]
struct Anchor<'a> {
    id: &'a str,
    index: usize,
}

/// The session totals Droid keeps in the settings file.
#[derive(Debug, Default, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_tokens: u64,
    pub cache_read_tokens: u64,
    pub thinking_tokens: u64,
}

impl TokenUsage {
    fn add(&mut self, u: &Usage) {
        self.input_tokens += u.input.unwrap_or(0);
        self.output_tokens += u.output.unwrap_or(0);
        self.cache_creation_tokens += u.cache_write.unwrap_or(0);
        self.cache_read_tokens += u.cache_read.unwrap_or(0);
        self.thinking_tokens += u.reasoning.unwrap_or(0);
    }
}

/// One message being put together.
enum Pending {
    /// A model response: its blocks so far.
    Assistant {
        hint: Option<String>,
        ts: String,
        thinking: Vec<Value>,
        text: Option<String>,
        calls: Vec<Value>,
        model: Option<String>,
        message_id: Option<String>,
    },
    /// Tool results answering one response.
    Results { hint: Option<String>, ts: String, blocks: Vec<Value> },
}

/// The open transcript.
struct Session {
    id: String,
    dir: String,
    same_harness: bool,
    seed: [u8; 32],
    counter: u64,
    used: BTreeSet<String>,
    last_id: Option<String>,
    /// Message lines written (the index Droid's compaction anchors count).
    messages: usize,
    last_ts: String,
    calls: BTreeSet<String>,
    model: Option<String>,
    usage: Option<TokenUsage>,
    /// `session_start`, held back until its title is known: Droid 0.225
    /// skips the history of a session whose `session_start` has no title,
    /// so a source without one gets its first prompt, as Droid titles its own.
    start: Option<SessionStart>,
    lines: Vec<u8>,
}

/// The streaming writer.
pub struct Writer {
    options: WriteOptions,
    diags: Diagnostics,
    input: CanonicalInput,
    session: Option<Session>,
    pending: Option<Pending>,
}

impl Writer {
    pub fn start(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
        if let Some(id) = options.native_id.as_deref()
            && !trajhost_codec_sdk::paths::is_uuid(id)
        {
            return Err(CodecError::Other(
                "write-options.native-id must be a UUID: Droid names a session file by it and `droid exec -s` \
                 looks it up"
                    .into(),
            ));
        }
        Ok(Box::new(Writer {
            options,
            diags: Diagnostics::new(),
            input: CanonicalInput::new(),
            session: None,
            pending: None,
        }))
    }

    /// Opens the transcript: `meta` (if any) is known.
    fn open(&mut self, meta: Option<&Meta>, meta_line: &[u8]) -> Result<(), CodecError> {
        let cwd = self.options.cwd.clone().or_else(|| meta.and_then(|m| m.cwd.clone())).filter(|c| !c.is_empty());
        let Some(cwd) = cwd else {
            return Err(CodecError::Malformed(
                "a Droid session belongs to a working directory: give write-options.cwd (the document's meta \
                 has no cwd)"
                    .into(),
            ));
        };
        let seed = sha256(meta_line);
        let id = match self.options.native_id.as_deref() {
            Some(id) => id.to_ascii_lowercase(),
            None => uuid_of(&seed, "session", 0),
        };
        let start = meta.and_then(|m| m.started_at.as_deref()).and_then(parse_rfc3339);
        let last_ts = start.map(rfc3339_ms).unwrap_or_default();
        let mut session = Session {
            id: id.clone(),
            dir: project_dir(&cwd),
            same_harness: meta.is_some_and(|m| m.harness == HARNESS),
            seed,
            counter: 0,
            used: BTreeSet::new(),
            last_id: None,
            messages: 0,
            last_ts,
            calls: BTreeSet::new(),
            model: None,
            usage: None,
            start: None,
            lines: Vec::new(),
        };
        let title = meta.and_then(|m| m.title.clone()).filter(|t| !t.trim().is_empty());
        let start_line = SessionStart {
            kind: "session_start".into(),
            id,
            title,
            owner: String::new(),
            version: json!(FORMAT_VERSION),
            cwd,
        };
        session.start = Some(start_line);
        if let Some(m) = meta {
            if m.parent_session.is_some() || m.parent_call.is_some() {
                self.diags.not_carried("parent-session");
            }
            if m.git_branch.is_some() {
                self.diags.not_carried("git-branch");
            }
        }
        self.session = Some(session);
        Ok(())
    }

    fn record(&mut self, record: Record) {
        let ts = self.ts_of(&record);
        match record.body {
            Body::Meta(_) => self.diags.not_carried("additional-meta"),
            Body::System { .. } => self.diags.not_carried("system-prompt"),
            Body::User { text, attachments } => {
                self.flush();
                if !attachments.is_empty() {
                    for _ in &attachments {
                        self.diags.not_carried("attachments");
                    }
                }
                if text.is_empty() {
                    return;
                }
                if let Some(session) = self.session.as_mut()
                    && let Some(start) = session.start.as_mut()
                {
                    if start.title.is_none() {
                        start.title = Some(crate::head::title_of(&text)).filter(|t| !t.is_empty());
                    }
                    session.put_start();
                }
                let content = vec![json!({"type": "text", "text": text})];
                self.message("user", Some(&record.id), &ts, content, None, None, None);
            }
            Body::Observation { subtype, text } if subtype == "context" => {
                self.flush();
                let Some(text) = text.filter(|t| !t.is_empty()) else { return };
                let content = vec![json!({"type": "text", "text": text})];
                self.message("user", Some(&record.id), &ts, content, Some("llm_only"), None, None);
            }
            Body::Observation { subtype, .. } => {
                let what = format!("observation/{}", trajhost_codec_sdk::text::type_name(Some(&subtype)));
                self.diags.not_carried(&what);
            }
            Body::Reasoning(reasoning) => self.reasoning(&record.id, record.parent.as_deref(), &ts, reasoning),
            Body::Assistant(assistant) => self.assistant(&record.id, &ts, assistant),
            Body::ToolCall { call_id, name, arguments } => {
                let arguments = match arguments {
                    Value::Object(_) => arguments,
                    other => {
                        self.diags.add("reshaped", Severity::Info, "tool-arguments", None, None);
                        json!({ "arguments": other })
                    }
                };
                let call_id = if call_id.is_empty() { record.id.clone() } else { call_id };
                if let Some(session) = self.session.as_mut() {
                    session.calls.insert(call_id.clone());
                }
                let block = json!({"type": "tool_use", "id": call_id, "name": name, "input": arguments});
                let same = self.session.as_ref().is_some_and(|s| s.same_harness);
                match &mut self.pending {
                    // A Droid source's calls name their response.
                    Some(Pending::Assistant { calls, hint, .. })
                        if !same || record.parent.is_none() || *hint == record.parent =>
                    {
                        calls.push(block)
                    }
                    _ => {
                        self.flush();
                        self.pending = Some(Pending::Assistant {
                            hint: record.parent.clone(),
                            ts,
                            thinking: Vec::new(),
                            text: None,
                            calls: vec![block],
                            model: None,
                            message_id: None,
                        });
                    }
                }
            }
            Body::ToolResult { call_id, content, ok } => {
                if !self.session.as_ref().is_some_and(|s| s.calls.contains(&call_id)) {
                    self.diags.not_carried("orphan-tool-result");
                    return;
                }
                let mut block = serde_json::Map::new();
                block.insert("type".into(), json!("tool_result"));
                block.insert("tool_use_id".into(), json!(call_id));
                if let Some(ok) = ok {
                    block.insert("is_error".into(), json!(!ok));
                }
                block.insert("content".into(), json!(content));
                let same = self.session.as_ref().is_some_and(|s| s.same_harness);
                if let Some(Pending::Results { blocks, hint, .. }) = &mut self.pending
                    && (!same || hint.as_deref() == Some(base_id(&record.id)))
                {
                    blocks.push(Value::Object(block));
                    return;
                }
                self.flush();
                let hint = Some(base_id(&record.id).to_string());
                self.pending = Some(Pending::Results { hint, ts, blocks: vec![Value::Object(block)] });
            }
            Body::Compaction { summary, .. } => {
                self.flush();
                let Some(session) = self.session.as_mut() else { return };
                let id = session.line_id(Some(&record.id), "");
                let anchor = session.last_id.as_deref().map(|id| Anchor { id, index: session.messages - 1 });
                let line = CompactionLine {
                    kind: "compaction_state",
                    id: &id,
                    timestamp: &ts,
                    summary_text: &summary,
                    // Droid's own estimate: a token per four characters.
                    summary_tokens: summary.chars().count().div_ceil(4),
                    summary_kind: "llm_summary",
                    anchor_message: anchor,
                    removed_count: session.messages,
                };
                push_line(&mut session.lines, &line);
            }
        }
    }

    fn reasoning(&mut self, id: &str, parent: Option<&str>, ts: &str, reasoning: Reasoning) {
        let same = self.session.as_ref().is_some_and(|s| s.same_harness);
        let block = match (reasoning.encrypted, reasoning.text, reasoning.opaque) {
            (true, _, Some(data)) if same => json!({"type": "redacted_thinking", "data": data}),
            (true, _, _) => {
                self.diags.add("untranslated-reasoning", Severity::Warning, "encrypted reasoning", None, None);
                return;
            }
            (false, text, opaque) => {
                let mut block = serde_json::Map::new();
                block.insert("type".into(), json!("thinking"));
                if let Some(text) = &text {
                    block.insert("thinking".into(), json!(text));
                }
                match opaque {
                    Some(sig) if same => {
                        block.insert("signature".into(), json!(sig));
                    }
                    Some(_) => {
                        self.diags.not_carried("opaque-reasoning");
                        if text.is_none() {
                            return;
                        }
                    }
                    None if text.is_none() => return,
                    None => {}
                }
                Value::Object(block)
            }
        };
        // A response's reasoning comes first; reasoning after text or calls
        // opens the next response.
        if let Some(Pending::Assistant { thinking, text: None, calls, .. }) = &mut self.pending
            && calls.is_empty()
        {
            thinking.push(block);
            return;
        }
        self.flush();
        let hint = parent.map(str::to_string).or_else(|| Some(base_id(id).to_string()));
        self.pending = Some(Pending::Assistant {
            hint,
            ts: ts.to_string(),
            thinking: vec![block],
            text: None,
            calls: Vec::new(),
            model: None,
            message_id: None,
        });
    }

    fn assistant(&mut self, id: &str, ts: &str, assistant: Assistant) {
        if assistant.stop_reason.is_some() {
            self.diags.not_carried("stop-reason");
        }
        if let Some(usage) = &assistant.usage {
            self.diags.not_carried("usage-per-response");
            if usage.cost_usd.is_some() {
                self.diags.not_carried("usage.cost_usd");
            }
            if let Some(session) = self.session.as_mut() {
                session.usage.get_or_insert_with(TokenUsage::default).add(usage);
            }
        }
        let same = self.session.as_ref().is_some_and(|s| s.same_harness);
        let model = assistant.model.clone().filter(|m| !m.is_empty());
        if same && let (Some(session), Some(m)) = (self.session.as_mut(), &model) {
            session.model = Some(m.clone());
        }
        if let Some(Pending::Assistant { hint, text: t @ None, calls, model: m, message_id, .. }) = &mut self.pending
            && calls.is_empty()
        {
            *t = Some(assistant.text);
            *m = model;
            *message_id = assistant.message_id;
            if hint.is_none() {
                *hint = Some(id.to_string());
            }
            return;
        }
        self.flush();
        self.pending = Some(Pending::Assistant {
            hint: Some(id.to_string()),
            ts: ts.to_string(),
            thinking: Vec::new(),
            text: Some(assistant.text),
            calls: Vec::new(),
            model,
            message_id: assistant.message_id,
        });
    }

    /// Writes the message being put together.
    fn flush(&mut self) {
        match self.pending.take() {
            None => {}
            Some(Pending::Assistant { hint, ts, thinking, text, calls, model, message_id }) => {
                let mut content = thinking;
                if let Some(text) = text.filter(|t| !t.is_empty()) {
                    content.push(json!({"type": "text", "text": text}));
                }
                content.extend(calls);
                if content.is_empty() {
                    self.diags.not_carried("empty-assistant");
                    return;
                }
                self.message("assistant", hint.as_deref(), &ts, content, None, message_id, model);
            }
            Some(Pending::Results { hint, ts, blocks }) => {
                self.message("user", hint.as_deref(), &ts, blocks, None, None, None);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn message(
        &mut self,
        role: &'static str,
        hint: Option<&str>,
        ts: &str,
        content: Vec<Value>,
        visibility: Option<&'static str>,
        message_id: Option<String>,
        model: Option<String>,
    ) {
        let Some(session) = self.session.as_mut() else { return };
        let prefix = if visibility.is_some() { CONTEXT_PREFIX } else { "" };
        let id = session.line_id(hint, prefix);
        let line = MessageLine {
            kind: "message",
            id: &id,
            parent_id: session.last_id.as_deref(),
            timestamp: ts,
            message: NativeMessage { role, content, visibility, openai_message_id: message_id, model_id: model },
        };
        push_line(&mut session.lines, &line);
        session.last_id = Some(id);
        session.messages += 1;
    }

    /// The line time of a record: its own, else the last one.
    fn ts_of(&mut self, record: &Record) -> String {
        let same = self.session.as_ref().is_some_and(|s| s.same_harness);
        let Some(session) = self.session.as_mut() else { return String::new() };
        let ts = match record.ts.as_deref() {
            Some(ts) if same && parse_rfc3339(ts).is_some() => Some(ts.to_string()),
            Some(ts) => parse_rfc3339(ts).map(rfc3339_ms),
            None => None,
        };
        match ts {
            Some(ts) => {
                session.last_ts = ts.clone();
                ts
            }
            None if session.last_ts.is_empty() => {
                self.diags.add("no-timestamp", Severity::Warning, "record.ts", None, None);
                session.last_ts = rfc3339_ms(0);
                session.last_ts.clone()
            }
            None => session.last_ts.clone(),
        }
    }

    fn take_chunks(&mut self) -> Vec<Artifact> {
        let Some(session) = self.session.as_mut() else { return Vec::new() };
        // Lines wait for the title (the first prompt), a bounded while.
        if session.start.is_some() {
            if session.lines.len() < HOLD_FOR_TITLE_BYTES {
                return Vec::new();
            }
            session.put_start();
        }
        if session.lines.is_empty() {
            return Vec::new();
        }
        let path = format!("{}/{}{}", session.dir, session.id, layout::JSONL);
        vec![Artifact { path, bytes: std::mem::take(&mut session.lines) }]
    }
}

impl Session {
    /// Puts the held-back `session_start` in front of the lines written
    /// since; a session without a title or any prompt is "Untitled session".
    fn put_start(&mut self) {
        if let Some(mut start) = self.start.take() {
            start.title.get_or_insert_with(|| UNTITLED.to_string());
            let mut head = Vec::with_capacity(self.lines.len() + 256);
            push_line(&mut head, &start);
            head.append(&mut self.lines);
            self.lines = head;
        }
    }

    /// A message id: a Droid source's own (without the `#n` of a record
    /// that is not the first of its line) when unused, else a derived UUID.
    fn line_id(&mut self, hint: Option<&str>, prefix: &str) -> String {
        if self.same_harness
            && let Some(hint) = hint.map(base_id).filter(|h| !h.is_empty())
            && (prefix.is_empty() || hint.starts_with(prefix))
            && !self.used.contains(hint)
        {
            self.used.insert(hint.to_string());
            return hint.to_string();
        }
        loop {
            self.counter += 1;
            let id = format!("{prefix}{}", uuid_of(&self.seed, "message", self.counter));
            if self.used.insert(id.clone()) {
                return id;
            }
        }
    }
}

/// Appends one JSON line. Serializing these shapes cannot fail (string
/// keys only).
fn push_line<T: Serialize>(lines: &mut Vec<u8>, line: &T) {
    if let Ok(bytes) = serde_json::to_vec(line) {
        lines.extend_from_slice(&bytes);
        lines.push(b'\n');
    }
}

/// A record id without the `#n` (or `#context`) a reader adds for the
/// further records of one line.
fn base_id(id: &str) -> &str {
    id.split_once('#').map_or(id, |(base, _)| base)
}

/// A UUID (version-4 layout) from SHA-256 of `seed`, `salt` and `n`.
pub fn uuid_of(seed: &[u8], salt: &str, n: u64) -> String {
    ids::uuid_v4_layout(&ids::sha256_of(&[salt.as_bytes(), &[0], &n.to_be_bytes(), seed]))
}

impl SessionWriter for Writer {
    fn push(&mut self, records: &str) -> Result<Vec<Artifact>, CodecError> {
        for line in records.lines() {
            let Some(record) = self.input.record(line, &mut self.diags)? else { continue };
            if self.session.is_none() {
                match &record.body {
                    Body::Meta(meta) => {
                        let meta = meta.clone();
                        self.open(Some(&meta), line.as_bytes())?;
                        continue;
                    }
                    _ => self.open(None, b"")?,
                }
            }
            if record.agent.is_some() {
                self.diags.not_carried("subagent-transcript");
                continue;
            }
            self.record(record);
        }
        Ok(self.take_chunks())
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        if self.session.is_none() {
            self.open(None, b"")?;
        }
        self.flush();
        if let Some(session) = self.session.as_mut() {
            session.put_start();
        }
        let mut chunks = self.take_chunks();
        let session = self.session.as_ref().expect("opened above");
        let mut settings = serde_json::Map::new();
        if let Some(model) = &session.model {
            settings.insert("model".into(), json!(model));
        }
        if let Some(usage) = &session.usage {
            settings.insert("tokenUsage".into(), json!(usage));
        }
        let mut bytes = serde_json::to_vec_pretty(&Value::Object(settings)).unwrap_or_default();
        bytes.push(b'\n');
        chunks.push(Artifact { path: format!("{}/{}{}", session.dir, session.id, layout::SETTINGS), bytes });
        Ok(Written { native_id: session.id.clone(), chunks, diagnostics: self.diags.drain() })
    }
}
