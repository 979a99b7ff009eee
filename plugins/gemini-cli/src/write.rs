//! `write`: a canonical session → one Gemini CLI session file,
//! `.gemini/tmp/<slug>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl`, in the
//! shape Gemini CLI 0.61 writes itself (`fixtures/gemini-cli/0.61.0`), plus
//! the project's `.project_root` marker (the file records no working
//! directory of its own; `prepare` files both under the target's slug).
//!
//! ```text
//! header     {sessionId, projectHash (SHA-256 of the cwd), startTime, lastUpdated, kind:"main", summary?}
//! user       {id, timestamp, type:"user", content:[{text}]}   a prompt, or <session_context>/<hook_context>
//! gemini     {id, timestamp, type:"gemini", content:"<text>", thoughts?, tokens?, model?, toolCalls?}
//!            toolCalls[]: {id, name, args, result:[{functionResponse:{id, name, response:{output|error}}}],
//!                          status, timestamp}
//! info/warning/error  {id, timestamp, type, content:"<text>"}
//! header     again where the source recorded a resume
//! $set       {summary} where the source recorded one; {lastUpdated} last
//! $rewindTo  where the source recorded a rewind
//! ```
//!
//! Each message is written once, in its final form (Gemini CLI appends a
//! message again when its tool calls attach; its loader keeps the last
//! version of an id, so one line per id is the same session). A tool
//! result is written in its call's `result`, which is where the resume
//! rebuilds the function response from (`<id>_response`); the separate
//! `user` copy Gemini CLI also appends is left out, so the resumed request
//! holds each response once. Message ids are the canonical record ids
//! (unique in the file), so a Gemini session reads back with its own ids.
//!
//! Readable reasoning becomes the message's `thoughts` (`description`; Gemini
//! CLI sends them back as `thought` parts). Not carried, each named in a
//! `not-carried` diagnostic: `opaque-reasoning` (signatures, encrypted
//! reasoning), `system` (Gemini CLI builds its own system prompt),
//! `attachments`, `compaction`, `stop-reason`, `usage.cache_write`,
//! `usage.cost_usd`, `observation/<subtype>` (other than the Gemini kinds
//! above), `subagent-transcript`, `orphan-tool-result`,
//! `duplicate-tool-result`, `unknown-kind/<kind>`. Arguments that are not
//! an object are wrapped as `{"input": …}` (`reshaped`); a prompt that
//! Gemini CLI would take for a command (it starts with `/` or `?`, which the
//! resume leaves out of the history) is written behind a zero-width space
//! (`reshaped`, `user.text`; the reader takes it off); a result without
//! a recorded outcome is written `success` (`placeholder`).
//!
//! The session id is `options.native_id` (a UUID), else a UUID (version-4
//! layout) from the SHA-256 of the canonical `meta` line: the same document
//! always gives the same bytes, and the writer streams (the id is known at
//! the first record). File names use UTC minutes, as Gemini CLI's do.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Reasoning, Record, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::time::{parse_rfc3339, rfc3339_ms};
use trajhost_codec_sdk::writer::ids::UsedIds;
use trajhost_codec_sdk::writer::{CanonicalInput, main_content};
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WriteOptions, Written};
use trajhost_gemini_cli_core::message::guard_command;
use trajhost_gemini_cli_core::written::{self, ThoughtOut, TokensOut, function_response};

use crate::head::harness_context_kind;
use crate::layout::{self, CHATS, JSONL, PROJECT_ROOT_FILE, SESSION_PREFIX, TMP_ROOT};

/// The format this writer produces (`info().writes`).
pub const FORMAT: &str = "gemini-cli-jsonl";
/// Observation subtypes that are Gemini message types of their own.
const NOTICE_TYPES: &[&str] = &["info", "warning", "error"];

/// The streaming writer.
pub struct Writer {
    options: WriteOptions,
    diags: Diagnostics,
    input: CanonicalInput,
    meta: Option<Meta>,
    /// Set once the header is known (id, cwd, start).
    session: Option<Session>,
    /// Lines serialized but not returned yet (the header goes first).
    out: Vec<u8>,
    /// The `gemini` message being built: its calls wait for their results.
    current: Option<ModelMessage>,
    /// Reasoning waiting for the message it belongs to.
    thoughts: Vec<ThoughtOut>,
    /// Message ids written so far.
    ids: UsedIds,
    /// Calls written without a result: id → name.
    unanswered: BTreeMap<String, String>,
    /// Calls that got their result.
    answered: BTreeSet<String>,
    last_ts: Option<String>,
}

/// What the header says.
struct Session {
    id: String,
    project_hash: String,
    path: String,
    root_marker: String,
    cwd: String,
    header_sent: bool,
}

/// A `gemini` message in the making.
struct ModelMessage {
    id: String,
    ts: Option<String>,
    text: String,
    model: Option<String>,
    tokens: Option<TokensOut>,
    thoughts: Vec<ThoughtOut>,
    calls: Vec<ToolCallOut>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Header<'a> {
    session_id: &'a str,
    project_hash: &'a str,
    start_time: &'a str,
    last_updated: &'a str,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageOut<'a> {
    id: &'a str,
    timestamp: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    content: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    thoughts: Option<&'a [ThoughtOut]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tokens: Option<&'a TokensOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls: Option<&'a [ToolCallOut]>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolCallOut {
    id: String,
    name: String,
    args: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Value>,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<String>,
}

impl Writer {
    pub fn new(options: WriteOptions) -> Writer {
        Writer {
            options,
            diags: Diagnostics::new(),
            input: CanonicalInput::new(),
            meta: None,
            session: None,
            out: Vec::new(),
            current: None,
            thoughts: Vec::new(),
            ids: UsedIds::new(),
            unanswered: BTreeMap::new(),
            answered: BTreeSet::new(),
            last_ts: None,
        }
    }

    /// Fixes the session id, project and start, once: at the first record
    /// after `meta` (or at `finish`).
    fn open(&mut self, first_ts: Option<&str>) -> Result<(), CodecError> {
        if self.session.is_some() {
            return Ok(());
        }
        let meta = self.meta.clone().unwrap_or_default();
        let cwd = self.options.cwd.clone().or(meta.cwd.clone()).filter(|c| !c.is_empty()).ok_or_else(|| {
            CodecError::Other(
                "Gemini CLI files every session under its project directory, and this session names no working \
                 directory: give one with --cwd"
                    .into(),
            )
        })?;
        let cwd = normalize_cwd(&cwd);
        let start =
            meta.started_at.as_deref().or(first_ts).and_then(parse_rfc3339).map(rfc3339_ms).unwrap_or_else(|| {
                self.diags.add("placeholder", Severity::Info, "startTime", None, None);
                rfc3339_ms(0)
            });
        let id = written::session_id(&self.options, self.input.meta_digest(), &start)?;
        let slug = slugify(basename(&cwd));
        let project_dir = layout::join(TMP_ROOT, &slug);
        let path = layout::join(&layout::join(&project_dir, CHATS), &session_file_name(&start, &id));
        let title = meta.title.clone().filter(|t| !t.trim().is_empty());
        let session = Session {
            project_hash: project_hash(&cwd),
            path,
            root_marker: layout::join(&project_dir, PROJECT_ROOT_FILE),
            cwd,
            header_sent: false,
            id,
        };
        let header = Header {
            session_id: &session.id,
            project_hash: &session.project_hash,
            start_time: &start,
            last_updated: &start,
            kind: "main",
            summary: None,
        };
        // The title as the session's `summary` (what Gemini CLI lists).
        let header = Header { summary: title.as_deref(), ..header };
        let mut out = to_line(&header)?;
        out.append(&mut self.out);
        self.out = out;
        self.session = Some(session);
        self.last_ts.get_or_insert(start);
        Ok(())
    }

    fn record(&mut self, record: Record) -> Result<(), CodecError> {
        let started = self.session.is_some();
        let Some(record) = main_content(&mut self.meta, record, started, &mut self.diags) else { return Ok(()) };
        self.open(record.ts.as_deref())?;
        let ts = record.ts.clone().or_else(|| self.last_ts.clone());
        if let Some(t) = &record.ts {
            self.last_ts = Some(t.clone());
        }
        let ts = ts.unwrap_or_default();
        match record.body {
            Body::Meta(_) => {}
            Body::System { .. } => self.diags.not_carried("system"),
            Body::User { text, attachments } => {
                if !attachments.is_empty() {
                    self.diags.add("not-carried", Severity::Info, "attachments", None, None);
                }
                if text.is_empty() {
                    return Ok(());
                }
                self.flush()?;
                let text = match guard_command(&text) {
                    Some(guarded) => {
                        self.diags.add("reshaped", Severity::Info, "user.text", None, None);
                        guarded
                    }
                    None => text,
                };
                self.simple_message(&record.id, &ts, "user", Value::Array(vec![text_part(&text)]))?;
            }
            Body::Observation { subtype, text } => self.observation(&record.id, &ts, &subtype, text)?,
            Body::Reasoning(reasoning) => self.reasoning(&reasoning, &ts)?,
            Body::Assistant(assistant) => {
                self.flush()?;
                self.start_message(&record.id, &ts, assistant);
            }
            Body::ToolCall { call_id, name, arguments } => {
                let starts_new = match &self.current {
                    None => true,
                    Some(m) => m.calls.iter().any(|c| c.result.is_some()),
                };
                if starts_new {
                    self.flush()?;
                    let id = format!("{call_id}#message");
                    self.start_message(&id, &ts, Assistant::default());
                }
                let args = match arguments {
                    Value::Object(_) => arguments,
                    Value::Null => Value::Object(Default::default()),
                    other => {
                        self.diags.add("reshaped", Severity::Info, "tool_call.arguments", None, None);
                        serde_json::json!({ "input": other })
                    }
                };
                let current = self.current.as_mut().expect("started above");
                current.calls.push(ToolCallOut {
                    id: call_id,
                    name,
                    args,
                    result: None,
                    status: "cancelled",
                    timestamp: None,
                });
            }
            Body::ToolResult { call_id, content, ok } => self.tool_result(call_id, content, ok, record.ts)?,
            Body::Compaction { .. } => self.diags.not_carried("compaction"),
        }
        Ok(())
    }

    fn observation(&mut self, id: &str, ts: &str, subtype: &str, text: Option<String>) -> Result<(), CodecError> {
        let text_str = text.clone().unwrap_or_default();
        match subtype {
            // Harness context Gemini CLI itself puts in user messages.
            "session_context" | "hook_context" if harness_context_kind(&text_str).is_some() => {
                self.flush()?;
                self.simple_message(id, ts, "user", Value::Array(vec![text_part(&text_str)]))
            }
            kind if NOTICE_TYPES.contains(&kind) => {
                self.flush()?;
                self.simple_message(id, ts, kind, Value::String(text_str))
            }
            "resume" => {
                self.flush()?;
                let session = self.session.as_ref().expect("opened");
                let header = Header {
                    session_id: &session.id,
                    project_hash: &session.project_hash,
                    start_time: ts,
                    last_updated: ts,
                    kind: "main",
                    summary: None,
                };
                let line = to_line(&header)?;
                self.out.extend_from_slice(&line);
                Ok(())
            }
            "summary" if text.is_some() => {
                self.flush()?;
                let line = to_line(&serde_json::json!({ "$set": { "summary": text_str } }))?;
                self.out.extend_from_slice(&line);
                Ok(())
            }
            "rewind" if text.is_some() => {
                self.flush()?;
                let line = to_line(&serde_json::json!({ "$rewindTo": text_str }))?;
                self.out.extend_from_slice(&line);
                Ok(())
            }
            other => {
                self.diags.not_carried(&format!("observation/{other}"));
                Ok(())
            }
        }
    }

    fn reasoning(&mut self, reasoning: &Reasoning, ts: &str) -> Result<(), CodecError> {
        if reasoning.opaque.is_some() || reasoning.encrypted {
            self.diags.not_carried("opaque-reasoning");
        }
        let Some(text) = reasoning.text.clone().filter(|t| !t.is_empty()) else { return Ok(()) };
        // Reasoning precedes the response it belongs to: a message that has
        // said or called something is complete.
        if self.current.as_ref().is_some_and(|m| !m.text.is_empty() || !m.calls.is_empty()) {
            self.flush()?;
        }
        let timestamp = (!ts.is_empty()).then(|| ts.to_string());
        let thought = ThoughtOut { subject: String::new(), description: text, timestamp };
        match self.current.as_mut() {
            Some(m) => m.thoughts.push(thought),
            None => self.thoughts.push(thought),
        }
        Ok(())
    }

    fn start_message(&mut self, id: &str, ts: &str, assistant: Assistant) {
        if assistant.stop_reason.is_some() {
            self.diags.not_carried("stop-reason");
        }
        let tokens = assistant.usage.as_ref().map(|u| self.tokens(u));
        let id = self.unique_id(id);
        self.current = Some(ModelMessage {
            id,
            ts: Some(ts.to_string()),
            text: assistant.text,
            model: assistant.model.filter(|m| !m.is_empty()),
            tokens,
            thoughts: std::mem::take(&mut self.thoughts),
            calls: Vec::new(),
        });
    }

    fn tokens(&mut self, usage: &Usage) -> TokensOut {
        TokensOut::of(usage, &mut self.diags)
    }

    fn tool_result(
        &mut self,
        call_id: String,
        content: String,
        ok: Option<bool>,
        ts: Option<String>,
    ) -> Result<(), CodecError> {
        if self.answered.contains(&call_id) {
            self.diags.not_carried("duplicate-tool-result");
            return Ok(());
        }
        let status = match ok {
            Some(true) => "success",
            Some(false) => "error",
            None => {
                self.diags.add("placeholder", Severity::Info, "toolCalls.status", None, None);
                "success"
            }
        };
        if let Some(call) =
            self.current.as_mut().and_then(|m| m.calls.iter_mut().find(|c| c.id == call_id && c.result.is_none()))
        {
            call.result = Some(Value::Array(vec![function_response(&call_id, &call.name, &content, ok)]));
            call.status = status;
            call.timestamp = ts;
            self.answered.insert(call_id);
            return Ok(());
        }
        let Some(name) = self.unanswered.remove(&call_id) else {
            self.diags.not_carried("orphan-tool-result");
            return Ok(());
        };
        // The call's message was written already: the response goes in a
        // user message of its own, as Gemini CLI records responses too.
        self.flush()?;
        self.answered.insert(call_id.clone());
        let ts = ts.or_else(|| self.last_ts.clone()).unwrap_or_default();
        let id = format!("{call_id}#response");
        let part = function_response(&call_id, &name, &content, ok);
        self.simple_message(&id, &ts, "user", Value::Array(vec![part]))
    }

    /// Writes the pending `gemini` message.
    fn flush(&mut self) -> Result<(), CodecError> {
        let Some(m) = self.current.take() else { return Ok(()) };
        for call in &m.calls {
            if call.result.is_none() {
                self.unanswered.insert(call.id.clone(), call.name.clone());
            }
        }
        let ts = m.ts.clone().or_else(|| self.last_ts.clone()).unwrap_or_default();
        let line = to_line(&MessageOut {
            id: &m.id,
            timestamp: &ts,
            kind: "gemini",
            content: Value::String(m.text.clone()),
            thoughts: (!m.thoughts.is_empty()).then_some(m.thoughts.as_slice()),
            tokens: m.tokens.as_ref(),
            model: m.model.as_deref(),
            tool_calls: (!m.calls.is_empty()).then_some(m.calls.as_slice()),
        })?;
        self.out.extend_from_slice(&line);
        Ok(())
    }

    fn simple_message(&mut self, id: &str, ts: &str, kind: &str, content: Value) -> Result<(), CodecError> {
        let id = self.unique_id(id);
        let line = to_line(&MessageOut {
            id: &id,
            timestamp: ts,
            kind,
            content,
            thoughts: None,
            tokens: None,
            model: None,
            tool_calls: None,
        })?;
        self.out.extend_from_slice(&line);
        Ok(())
    }

    /// `id`, or `id-<n>` when a message of the file has it already (Gemini
    /// CLI keeps one message per id).
    fn unique_id(&mut self, id: &str) -> String {
        let base = if id.is_empty() { "message" } else { id };
        let candidate = self.ids.claim(base, |base, n| format!("{base}-{n}"));
        if candidate != base {
            self.diags.add("renamed", Severity::Info, "message.id", None, None);
        }
        candidate
    }

    fn take_chunks(&mut self) -> Vec<Artifact> {
        let Some(session) = self.session.as_mut() else { return Vec::new() };
        let mut chunks = Vec::new();
        if !session.header_sent {
            session.header_sent = true;
            chunks.push(Artifact { path: session.root_marker.clone(), bytes: session.cwd.as_bytes().to_vec() });
        }
        if !self.out.is_empty() {
            chunks.push(Artifact { path: session.path.clone(), bytes: std::mem::take(&mut self.out) });
        }
        chunks
    }
}

impl SessionWriter for Writer {
    fn push(&mut self, records: &str) -> Result<Vec<Artifact>, CodecError> {
        for line in records.lines() {
            if let Some(record) = self.input.record(line, &mut self.diags)? {
                self.record(record)?;
            }
        }
        Ok(self.take_chunks())
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        self.open(None)?;
        self.flush()?;
        if let Some(last) = self.last_ts.clone() {
            let line = to_line(&serde_json::json!({ "$set": { "lastUpdated": last } }))?;
            self.out.extend_from_slice(&line);
        }
        let chunks = self.take_chunks();
        let native_id = self.session.as_ref().map(|s| s.id.clone()).unwrap_or_default();
        Ok(Written { native_id, chunks, diagnostics: self.diags.drain() })
    }
}

/// A JSON line.
fn to_line(value: &impl Serialize) -> Result<Vec<u8>, CodecError> {
    let mut line = serde_json::to_vec(value).map_err(|e| CodecError::Other(format!("serializing a line: {e}")))?;
    line.push(b'\n');
    Ok(line)
}

fn text_part(text: &str) -> Value {
    serde_json::json!({ "text": text })
}

/// `session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.jsonl`.
pub fn session_file_name(start: &str, id: &str) -> String {
    written::session_file_name(SESSION_PREFIX, start, id, JSONL)
}

pub use trajhost_gemini_cli_core::written::{normalize_cwd, project_hash};

/// The last path component.
pub fn basename(path: &str) -> &str {
    path.trim_end_matches('/').rsplit('/').next().unwrap_or("")
}

/// Gemini CLI's project slug of a name: lowercase, runs of other characters
/// as one `-`, no `-` at either end, `project` when nothing is left.
pub fn slugify(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            slug.push(c);
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_matches('-');
    if slug.is_empty() { "project".to_string() } else { slug.to_string() }
}

pub use trajhost_codec_sdk::paths::is_uuid;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_slugs() {
        assert_eq!(
            session_file_name("2026-11-30T04:15:48.630Z", "d6e3a419-2521-468c-85a2-92b3b324d649"),
            "session-2026-11-30T04-15-d6e3a419.jsonl"
        );
        assert_eq!(slugify("My Project_2"), "my-project-2");
        assert_eq!(slugify("--"), "project");
        assert_eq!(slugify("Ünï"), "n");
        assert_eq!(basename("/home/user/project/"), "project");
        assert_eq!(
            project_hash("/home/user/project"),
            "9dad1e4e08b0b11cbcd860257e8bdfa6b8e5f01790e10a6a0b1f4870c13e686b"
        );
    }
}
