//! `write`: a canonical session → one Cline CLI session directory,
//! `.cline/data/sessions/<id>/`, shaped like what Cline 3.0.65 writes itself
//! (`fixtures/cline/3.0.65`):
//!
//! - `<id>.messages.json`: `{version: 1, agent: "lead", sessionId, origin,
//!   messages, updated_at, system_prompt?}`. Messages are Anthropic-style:
//!
//!   ```text
//!   user       a prompt: one text block wrapped in <user_input mode="act">…</user_input>,
//!              as the CLI wraps what a person typed
//!   assistant  one model response: thinking blocks, a text block, tool_use blocks
//!              ({id, name, input}); modelInfo {id, provider}, metrics from usage
//!   user       the results that answer it: tool_result blocks
//!              ({tool_use_id, name, content (text), is_error when known})
//!   ```
//!
//!   A response ends where a prompt or a result comes, or where a new text
//!   or reasoning follows a text or a call (each canonical `assistant`
//!   record stays one message).
//! - `<id>.json`: the manifest (cwd, provider, model, times, title, the
//!   version 3.0.65), the same facts `prepare` puts in the `sessions.db` row.
//!   Its `messages_path` is absolute: `prepare` rewrites the manifest with
//!   the target home's path.
//!
//! Not carried (`not-carried`, counted): another harness's system prompt
//! (Cline builds its own), observations other than Cline's `file` blocks,
//! compaction summaries, attachments (Cline needs the image data), opaque
//! or encrypted reasoning of another harness (only Cline's own signatures
//! and redacted data go back), subagent records, `usage.reasoning`.
//!
//! The writer streams: records wait only until the start time is known
//! (`meta.started_at`, else the first record's `ts`); each message is
//! written when the next begins; the manifest comes at `finish`.
//!
//! The session id is `options.native_id`, else `<start epoch ms>_<5 chars>`
//! like Cline's, the characters derived from the source's harness, id and
//! start: the same document always gives the same bytes.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Reasoning, Record, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::hash::sha256;
use trajhost_codec_sdk::time::parse_rfc3339;
use trajhost_codec_sdk::writer::{CanonicalInput, HeldRecords};
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WriteOptions, Written};

use crate::layout::SessionPaths;
use crate::time::rfc3339_utc;
use crate::{HARNESS, discover};

/// The Cline CLI version the session claims: the one it was checked against.
pub const CLI_VERSION: &str = "3.0.65";
/// The provider a session gets when neither the source, the target's
/// settings nor `--provider` names one.
pub const DEFAULT_PROVIDER: &str = "anthropic";
/// The model when none is known.
pub const DEFAULT_MODEL: &str = "unknown";

/// The manifest `<id>.json`, in the order Cline writes its keys.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub version: u32,
    pub session_id: String,
    pub source: String,
    pub pid: i64,
    pub started_at: String,
    pub ended_at: String,
    pub exit_code: i64,
    pub status: String,
    pub interactive: bool,
    pub provider: String,
    pub model: String,
    pub cwd: String,
    pub workspace_root: String,
    pub enable_tools: bool,
    pub enable_spawn: bool,
    pub enable_teams: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    pub metadata: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages_path: Option<String>,
}

impl Manifest {
    /// The manifest as Cline writes it: pretty JSON, two-space indent.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec_pretty(self).unwrap_or_default()
    }
}

/// The streaming writer: records are buffered only until the session's
/// start time (hence its id and file path) is known; after that each
/// message is written out as soon as the next one begins.
pub struct Writer {
    options: WriteOptions,
    meta: Option<Meta>,
    pending: HeldRecords,
    agents: BTreeSet<String>,
    input: CanonicalInput,
    started: Option<Started>,
    /// Diagnostics before the document starts.
    diags: Diagnostics,
    finished: bool,
}

/// The session once its id is known.
struct Started {
    id: String,
    paths: SessionPaths,
    cwd: String,
    start_ms: i64,
    doc: Document,
    /// Messages written out so far.
    written: usize,
}

impl Writer {
    pub fn new(options: WriteOptions) -> Writer {
        Writer {
            options,
            meta: None,
            pending: HeldRecords::new(),
            agents: BTreeSet::new(),
            input: CanonicalInput::new(),
            started: None,
            diags: Diagnostics::new(),
            finished: false,
        }
    }

    /// Where diagnostics go: the document's once it started.
    fn diags(&mut self) -> &mut Diagnostics {
        match self.started.as_mut() {
            Some(started) => &mut started.doc.diags,
            None => &mut self.diags,
        }
    }

    /// One canonical line: the meta kept, other records queued.
    fn line(&mut self, line: &str) -> Result<(), CodecError> {
        let mut input = std::mem::take(&mut self.input);
        let parsed = input.record(line, self.diags());
        self.input = input;
        let Some(record) = parsed? else { return Ok(()) };
        if let Some(agent) = &record.agent {
            if self.agents.insert(agent.clone()) {
                self.diags().add("not-carried", Severity::Warning, "subagent-transcript", None, None);
            }
            return Ok(());
        }
        match record.body {
            Body::Meta(m) => {
                if self.meta.is_none() && self.started.is_none() {
                    self.meta = Some(m);
                }
            }
            _ => self.pending.hold(record),
        }
        Ok(())
    }

    /// Starts the document when its start time is known (or `force`d, at
    /// the end); returns its header.
    fn start(&mut self, force: bool) -> Result<Option<Vec<u8>>, CodecError> {
        if self.started.is_some() {
            return Ok(None);
        }
        let start_ms = self
            .meta
            .as_ref()
            .and_then(|m| m.started_at.as_deref())
            .and_then(parse_rfc3339)
            .or(self.pending.first_ms());
        if start_ms.is_none() && !force {
            return Ok(None);
        }
        let cwd = self
            .options
            .cwd
            .clone()
            .or_else(|| self.meta.as_ref().and_then(|m| m.cwd.clone()))
            .filter(|c| c.starts_with('/'))
            .ok_or_else(|| {
                CodecError::Malformed(
                    "a Cline session belongs to an absolute working directory: give write-options.cwd \
                     (the document's meta has none)"
                        .into(),
                )
            })?;
        if start_ms.is_none() {
            self.diags.add("no-timestamp", Severity::Warning, "started_at", None, None);
        }
        let start_ms = start_ms.unwrap_or(0);
        let id = match self.options.native_id.as_deref() {
            Some(id) if is_session_id(id) => id.to_string(),
            Some(id) => {
                return Err(CodecError::Other(format!(
                    "write-options.native-id {id:?} is not a Cline session id (letters, digits, `_`, `-`)"
                )));
            }
            None => {
                let source = match &self.meta {
                    Some(m) => format!("{}\n{}\n{start_ms}", m.harness, m.native_id),
                    None => format!("\n{}\n{start_ms}", self.pending.held().first().map_or("", |r| r.id.as_str())),
                };
                session_id(start_ms, &sha256(source.as_bytes()))
            }
        };
        let same_harness = self.meta.as_ref().is_some_and(|m| m.harness == HARNESS);
        let doc = Document::new(same_harness, start_ms, std::mem::take(&mut self.diags));
        let origin = json!({"source": "cli", "mode": "user", "sessionId": id, "version": CLI_VERSION});
        let header = format!(
            "{{\n  \"version\": 1,\n  \"agent\": \"lead\",\n  \"sessionId\": {},\n  \"origin\": {},\n  \"messages\": [",
            json!(id),
            indented(&origin, "  ")
        );
        self.started = Some(Started { paths: SessionPaths::of(&id), id, cwd, start_ms, doc, written: 0 });
        Ok(Some(header.into_bytes()))
    }

    /// Feeds the queued records and returns the messages they completed.
    fn feed(&mut self, header: Option<Vec<u8>>) -> Vec<Artifact> {
        let Some(started) = self.started.as_mut() else { return Vec::new() };
        for record in self.pending.release() {
            started.doc.record(&record);
        }
        let mut bytes = header.unwrap_or_default();
        for message in std::mem::take(&mut started.doc.messages) {
            bytes.extend_from_slice(if started.written == 0 { b"\n    " } else { b",\n    " });
            bytes.extend_from_slice(indented(&message, "    ").as_bytes());
            started.written += 1;
        }
        if bytes.is_empty() {
            return Vec::new();
        }
        vec![Artifact { path: started.paths.messages.clone(), bytes }]
    }
}

impl SessionWriter for Writer {
    fn push(&mut self, records: &str) -> Result<Vec<Artifact>, CodecError> {
        if self.finished {
            return Err(CodecError::Other("push after finish".into()));
        }
        for line in records.lines() {
            self.line(line)?;
        }
        let header = self.start(false)?;
        Ok(self.feed(header))
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        if self.finished {
            return Err(CodecError::Other("writer finished twice".into()));
        }
        self.finished = true;
        let header = self.start(true)?;
        let mut chunks = self.feed(header);
        let started = self.started.as_mut().expect("started above");
        started.doc.close();
        chunks.extend(self.feed(None));
        let Started { id, paths, cwd, start_ms, doc, written } = self.started.take().expect("started above");
        let Document { mut diags, last_ms, system_prompt, first_prompt, last_model, provider, .. } = doc;
        let updated_at = rfc3339_utc(last_ms);
        let mut tail = String::from(if written == 0 { "]" } else { "\n  ]" });
        tail.push_str(&format!(",\n  \"updated_at\": {}", json!(updated_at)));
        if let Some(prompt) = system_prompt {
            tail.push_str(&format!(",\n  \"system_prompt\": {}", json!(prompt)));
        }
        tail.push_str("\n}");
        chunks.push(Artifact { path: paths.messages.clone(), bytes: tail.into_bytes() });
        let title = self
            .meta
            .as_ref()
            .and_then(|m| m.title.clone())
            .filter(|t| !t.trim().is_empty())
            .or_else(|| first_prompt.as_deref().and_then(discover::prompt_title));
        let mut metadata = Map::new();
        metadata.insert("sessionHistoryOrigin".into(), json!({"mode": "user", "version": CLI_VERSION}));
        if let Some(title) = title {
            metadata.insert("title".into(), json!(title));
        }
        let manifest = Manifest {
            version: 1,
            session_id: id.clone(),
            source: "cli".into(),
            pid: 0,
            started_at: rfc3339_utc(start_ms),
            ended_at: updated_at,
            exit_code: 0,
            status: "completed".into(),
            interactive: false,
            provider: provider.unwrap_or_else(|| DEFAULT_PROVIDER.into()),
            model: last_model.unwrap_or_else(|| DEFAULT_MODEL.into()),
            cwd: cwd.clone(),
            workspace_root: cwd,
            enable_tools: true,
            enable_spawn: true,
            enable_teams: true,
            prompt: first_prompt,
            metadata: Value::Object(metadata),
            messages_path: self
                .options
                .home_path
                .as_deref()
                .map(|h| format!("{}/{}", h.trim_end_matches('/'), paths.messages)),
        };
        chunks.insert(0, Artifact { path: paths.manifest.clone(), bytes: manifest.to_bytes() });
        Ok(Written { native_id: id, chunks, diagnostics: diags.drain() })
    }
}

/// A Cline session id: what its directory and file names can carry.
pub fn is_session_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 128 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `<epoch ms>_<5 lowercase letters or digits>`, as Cline names sessions.
fn session_id(start_ms: i64, digest: &[u8; 32]) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let tail: String = digest[..5].iter().map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char).collect();
    format!("{}_{tail}", start_ms.max(0))
}

/// `value` pretty-printed (two-space indent), its lines after the first
/// indented by `indent`. JSON strings hold no raw newline, so every newline
/// is between tokens.
fn indented(value: &Value, indent: &str) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default().replace('\n', &format!("\n{indent}"))
}

/// The messages being built.
struct Document {
    same_harness: bool,
    messages: Vec<Value>,
    /// The assistant message being filled.
    open: Option<Open>,
    /// The tool results being gathered into one user message.
    results: Vec<Value>,
    results_ts: i64,
    /// Names of the calls so far, by call id (a result carries its call's name).
    calls: Vec<(String, String)>,
    used_ids: BTreeSet<String>,
    last_ms: i64,
    system_prompt: Option<String>,
    first_prompt: Option<String>,
    last_model: Option<String>,
    provider: Option<String>,
    diags: Diagnostics,
}

/// One assistant message under construction.
struct Open {
    id: String,
    ts: i64,
    thinking: Vec<Value>,
    text: Option<String>,
    calls: Vec<Value>,
    model: Option<String>,
    provider: Option<String>,
    usage: Option<Usage>,
}

impl Document {
    fn new(same_harness: bool, start_ms: i64, diags: Diagnostics) -> Document {
        Document {
            same_harness,
            messages: Vec::new(),
            open: None,
            results: Vec::new(),
            results_ts: start_ms,
            calls: Vec::new(),
            used_ids: BTreeSet::new(),
            last_ms: start_ms,
            system_prompt: None,
            first_prompt: None,
            last_model: None,
            provider: None,
            diags,
        }
    }

    /// The record's time in epoch ms; never before the previous one.
    fn ts(&mut self, record: &Record) -> i64 {
        if let Some(ms) = record.ts.as_deref().and_then(parse_rfc3339) {
            self.last_ms = self.last_ms.max(ms);
        }
        self.last_ms
    }

    /// A message id not used yet in this document.
    fn unique_id(&mut self, wanted: &str) -> String {
        let base = if wanted.is_empty() { format!("msg_{}", self.messages.len()) } else { wanted.to_string() };
        let mut id = base.clone();
        let mut n = 1;
        while !self.used_ids.insert(id.clone()) {
            n += 1;
            id = format!("{base}#{n}");
        }
        id
    }

    fn record(&mut self, record: &Record) {
        match &record.body {
            Body::Meta(_) => {}
            Body::System { text } => {
                if self.same_harness && self.system_prompt.is_none() {
                    self.system_prompt = Some(text.clone());
                } else {
                    self.diags.not_carried("system-prompt");
                }
            }
            Body::User { text, attachments } => {
                let ts = self.ts(record);
                if !attachments.is_empty() {
                    self.diags.not_carried("attachments");
                }
                if text.trim().is_empty() {
                    return;
                }
                self.close();
                if self.first_prompt.is_none() {
                    self.first_prompt = Some(text.clone());
                }
                let id = self.unique_id(&record.id);
                let wrapped = format!("<user_input mode=\"act\">{text}</user_input>");
                self.messages.push(json!({
                    "id": id,
                    "role": "user",
                    "content": [{"type": "text", "text": wrapped}],
                    "ts": ts,
                }));
            }
            Body::Observation { subtype, text } if subtype == "file" && self.same_harness => {
                // A Cline `file` block (path, newline, content), read back as
                // the observation it came from.
                let ts = self.ts(record);
                self.close();
                let text = text.clone().unwrap_or_default();
                let (path, content) = text.split_once('\n').unwrap_or((&text, ""));
                let id = self.unique_id(&record.id);
                self.messages.push(json!({
                    "id": id,
                    "role": "user",
                    "content": [{"type": "file", "path": path, "content": content}],
                    "ts": ts,
                }));
            }
            Body::Observation { subtype, .. } => {
                let family = subtype.split('/').next().unwrap_or(subtype).to_string();
                self.diags.not_carried(&format!("observation/{family}"));
            }
            Body::Compaction { .. } => self.diags.not_carried("compaction"),
            Body::Reasoning(r) => {
                let ts = self.ts(record);
                let Some(block) = self.thinking_block(r) else { return };
                if self.open.as_ref().is_some_and(|o| o.text.is_some() || !o.calls.is_empty()) {
                    self.close();
                }
                self.open_message(record, ts).thinking.push(block);
            }
            Body::Assistant(a) => {
                let ts = self.ts(record);
                if self.open.as_ref().is_some_and(|o| o.text.is_some() || !o.calls.is_empty()) {
                    self.close();
                }
                self.assistant(record, a, ts);
            }
            Body::ToolCall { call_id, name, arguments } => {
                let ts = self.ts(record);
                self.flush_results();
                self.calls.push((call_id.clone(), name.clone()));
                let input = if arguments.is_null() { json!({}) } else { arguments.clone() };
                self.open_message(record, ts).calls.push(json!({
                    "type": "tool_use",
                    "id": call_id,
                    "name": name,
                    "input": input,
                }));
            }
            Body::ToolResult { call_id, content, ok } => {
                let ts = self.ts(record);
                self.close_assistant();
                let name = self.calls.iter().rev().find(|(id, _)| id == call_id).map(|(_, n)| n.clone());
                let mut block = Map::new();
                block.insert("type".into(), json!("tool_result"));
                block.insert("tool_use_id".into(), json!(call_id));
                if let Some(name) = name {
                    block.insert("name".into(), json!(name));
                }
                block.insert("content".into(), json!(content));
                if let Some(ok) = ok {
                    block.insert("is_error".into(), json!(!ok));
                }
                if self.results.is_empty() {
                    self.results_ts = ts;
                }
                self.results.push(Value::Object(block));
            }
        }
    }

    /// The thinking block of `r`, or `None` (reported) when Cline cannot
    /// send it back.
    fn thinking_block(&mut self, r: &Reasoning) -> Option<Value> {
        let text = r.text.as_deref().filter(|t| !t.is_empty());
        if self.same_harness {
            return match (text, r.encrypted, r.opaque.as_deref()) {
                (None, true, Some(data)) => Some(json!({"type": "redacted_thinking", "data": data})),
                (Some(t), _, sig) => Some(json!({"type": "thinking", "thinking": t, "signature": sig.unwrap_or("")})),
                _ => None,
            };
        }
        if r.opaque.is_some() || r.encrypted {
            self.diags.not_carried("opaque-reasoning");
        }
        text.map(|t| json!({"type": "thinking", "thinking": t, "signature": ""}))
    }

    fn open_message(&mut self, record: &Record, ts: i64) -> &mut Open {
        self.flush_results();
        if self.open.is_none() {
            let id = self.unique_id(&record.parent.clone().unwrap_or_else(|| record.id.clone()));
            self.open = Some(Open {
                id,
                ts,
                thinking: Vec::new(),
                text: None,
                calls: Vec::new(),
                model: None,
                provider: None,
                usage: None,
            });
        }
        self.open.as_mut().expect("opened above")
    }

    fn assistant(&mut self, record: &Record, a: &Assistant, ts: i64) {
        if a.usage.as_ref().is_some_and(|u| u.reasoning.is_some()) {
            self.diags.not_carried("usage.reasoning");
        }
        let wanted = a.message_id.clone().unwrap_or_else(|| record.id.clone());
        self.flush_results();
        if self.open.is_none() {
            let id = self.unique_id(&wanted);
            self.open = Some(Open {
                id,
                ts,
                thinking: Vec::new(),
                text: None,
                calls: Vec::new(),
                model: None,
                provider: None,
                usage: None,
            });
        }
        let model = a.model.clone().filter(|m| !m.is_empty());
        if model.is_some() {
            self.last_model = model.clone();
        }
        let open = self.open.as_mut().expect("opened above");
        open.text = Some(a.text.clone());
        open.model = model;
        open.usage = a.usage.clone();
        open.provider = None;
    }

    fn flush_results(&mut self) {
        if self.results.is_empty() {
            return;
        }
        let id = self.unique_id(&format!("msg_results_{}", self.messages.len()));
        let content = std::mem::take(&mut self.results);
        self.messages.push(json!({"id": id, "role": "user", "content": content, "ts": self.results_ts}));
    }

    fn close_assistant(&mut self) {
        let Some(open) = self.open.take() else { return };
        let mut content = open.thinking;
        if let Some(text) = open.text.filter(|t| !t.is_empty()) {
            content.push(json!({"type": "text", "text": text}));
        }
        content.extend(open.calls);
        if content.is_empty() {
            return;
        }
        let mut message = Map::new();
        message.insert("id".into(), json!(open.id));
        message.insert("role".into(), json!("assistant"));
        message.insert("content".into(), Value::Array(content));
        message.insert("ts".into(), json!(open.ts));
        let model = open.model.or_else(|| self.last_model.clone());
        if let Some(model) = model {
            let mut info = Map::new();
            info.insert("id".into(), json!(model));
            if let Some(provider) = open.provider.or_else(|| self.provider.clone()) {
                info.insert("provider".into(), json!(provider));
            }
            message.insert("modelInfo".into(), Value::Object(info));
        }
        if let Some(u) = open.usage {
            let mut metrics = Map::new();
            for (key, value) in [
                ("inputTokens", u.input),
                ("outputTokens", u.output),
                ("cacheReadTokens", u.cache_read),
                ("cacheWriteTokens", u.cache_write),
            ] {
                if let Some(v) = value {
                    metrics.insert(key.into(), json!(v));
                }
            }
            if let Some(cost) = u.cost_usd {
                metrics.insert("cost".into(), json!(cost));
            }
            message.insert("metrics".into(), Value::Object(metrics));
        }
        self.messages.push(Value::Object(message));
    }

    /// Ends the open assistant message and the gathered results.
    fn close(&mut self) {
        self.close_assistant();
        self.flush_results();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_look_like_clines() {
        let id = session_id(1_796_013_198_212, &[7; 32]);
        assert!(id.starts_with("1796013198212_") && id.len() == 19, "{id}");
        assert!(is_session_id(&id));
        assert!(!is_session_id("a/b") && !is_session_id(""));
    }
}
