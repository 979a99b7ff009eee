//! `write`: a canonical session → one Gemini CLI single-JSON session file,
//! `.gemini/tmp/<sha256(cwd)>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.json`,
//! in the shape Gemini CLI 0.25 writes itself
//! (`fixtures/gemini-cli/0.25.0/simple`): `JSON.stringify(conversation,
//! null, 2)` of
//!
//! ```text
//! {sessionId, projectHash (SHA-256 of the cwd), startTime, lastUpdated, messages: [
//!   user          {id, timestamp, type:"user", content:"<text>"}         a prompt, or <session_context>/<hook_context>
//!   gemini        {id, timestamp, type:"gemini", content:"<text>", thoughts:[…], tokens:{…}|null, model?}
//!   gemini+calls  {id, timestamp, type:"gemini", content:"<text>", toolCalls:[…], thoughts:[…], model?, tokens?}
//!                 toolCalls[]: {id, name, args, result:[{functionResponse:{id, name, response:{output|error}}}],
//!                               status, timestamp, displayName, description, renderOutputAsMarkdown}
//!   info/warning/error  {id, timestamp, type, content:"<text>"}
//! ], summary?}
//! ```
//!
//! `summary` is the source's title (else a `summary` observation), left out
//! when it is the title the first prompt gives anyway.
//!
//! Gemini CLI 0.2x rebuilds the model's history from this file alone: each
//! `user` message becomes a text turn, each `gemini` message a model turn
//! (its text and one `functionCall` per tool call) followed by one user turn
//! with every call's `result` parts. So every tool result is written into
//! its call, wherever the call is (the whole document is assembled before
//! it is returned: a JSON document cannot be appended to), and there is no
//! separate `functionResponse` user message (0.2x would send it as empty
//! text). A call the source never answered gets the result Gemini CLI
//! records for a cancelled call (`status: "cancelled"`, an
//! `[Operation Cancelled]` error; a `placeholder` diagnostic), since a
//! `functionCall` turn without its response is refused by the Gemini API.
//! Message ids are the canonical record ids (unique in the file), so a
//! Gemini session reads back with its own ids. The file's `displayName`,
//! `description` and `renderOutputAsMarkdown` of a call are what 0.25
//! records for a tool its registry does not know (the name, `""`, `false`).
//!
//! Readable reasoning becomes the message's `thoughts` (`description`; 0.2x
//! shows them, it does not send them back). Not carried, each named in a
//! `not-carried` diagnostic: `opaque-reasoning`, `system` (Gemini CLI builds
//! its own system prompt), `attachments` (0.2x records a prompt as text),
//! `compaction`, `stop-reason`, `usage.cache_write`, `usage.cost_usd`,
//! `observation/<subtype>` (other than the Gemini kinds above and
//! `summary`, which becomes the document's `summary`; `resume` and `rewind`
//! have no record in this layout), `subagent-transcript`,
//! `orphan-tool-result`, `duplicate-tool-result`, `unknown-kind/<kind>`.
//! Arguments that are not an object are wrapped as `{"input": …}`
//! (`reshaped`); a prompt that starts with `/` or `?` is written behind a
//! zero-width space, since Gemini CLI's resume leaves such user messages out
//! as typed commands (`reshaped`, `user.text`; the reader takes it off); a
//! result without a recorded outcome is written `success` (`placeholder`).
//!
//! The export also holds `.gemini/tmp/<hash>/.project_root` with the cwd
//! (the hash cannot be turned back into it; the reader takes a project's cwd
//! from that file). `prepare` does not install it: 0.2x keeps none.
//!
//! The session id is `options.native_id` (a UUID), else a UUID (version-4
//! layout) from the SHA-256 of the canonical `meta` line: the same document
//! always gives the same bytes. File names use UTC minutes, as Gemini CLI's
//! do.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Reasoning, Record, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::time::{parse_rfc3339, rfc3339_ms};
use trajhost_codec_sdk::writer::ids::UsedIds;
use trajhost_codec_sdk::writer::{CanonicalInput, json_document, main_content};
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WriteOptions, Written};
use trajhost_gemini_cli_core::message::{guard_command, harness_context_kind};
use trajhost_gemini_cli_core::written::{self, ThoughtOut, TokensOut, function_response};

use crate::layout::{self, CHATS, JSON, PROJECT_ROOT_FILE, SESSION_PREFIX, TMP_ROOT};

/// The format this writer produces (`info().writes`).
pub const FORMAT: &str = "gemini-cli-json";
/// Observation subtypes that are Gemini message types of their own.
const NOTICE_TYPES: &[&str] = &["info", "warning", "error"];
/// What Gemini CLI records as the response of a call that never ran to the end.
pub const CANCELLED_RESULT: &str = "[Operation Cancelled] Reason: no result was recorded for this call";

/// The writer: records are mapped as they arrive; the document is
/// serialized at `finish`.
pub struct Writer {
    options: WriteOptions,
    diags: Diagnostics,
    input: CanonicalInput,
    meta: Option<Meta>,
    first_ts: Option<String>,
    last_ts: Option<String>,
    summary: Option<String>,
    messages: Vec<MessageOut>,
    /// The `gemini` message that still takes calls and thoughts.
    current: Option<usize>,
    /// Reasoning waiting for the message it belongs to, and the id of the
    /// first such record.
    thoughts: Vec<ThoughtOut>,
    thoughts_id: Option<String>,
    /// Message ids used so far.
    ids: UsedIds,
    /// Every call written: id → (message, call).
    calls: BTreeMap<String, (usize, usize)>,
}

/// The document, in Gemini CLI's key order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Document<'a> {
    session_id: &'a str,
    project_hash: &'a str,
    start_time: &'a str,
    last_updated: &'a str,
    messages: &'a [MessageOut],
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a str>,
}

/// One `MessageRecord`: `user` and notices have the first four keys only.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageOut {
    id: String,
    timestamp: String,
    #[serde(rename = "type")]
    kind: String,
    content: String,
    #[serde(flatten)]
    model: Option<ModelFields>,
}

/// The keys of a `gemini` message, in the order 0.25 writes them: a message
/// recorded from text has `thoughts, tokens, model`; one created for tool
/// calls `toolCalls, thoughts, model, tokens?`.
#[derive(Serialize)]
#[serde(untagged)]
enum ModelFields {
    Text {
        thoughts: Vec<ThoughtOut>,
        tokens: Option<TokensOut>,
        #[serde(skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    Calls {
        tool_calls: Vec<ToolCallOut>,
        thoughts: Vec<ThoughtOut>,
        #[serde(skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        tokens: Option<TokensOut>,
    },
}

impl ModelFields {
    fn new(thoughts: Vec<ThoughtOut>, tokens: Option<TokensOut>, model: Option<String>) -> ModelFields {
        ModelFields::Text { thoughts, tokens, model }
    }

    fn has_calls(&self) -> bool {
        matches!(self, ModelFields::Calls { .. })
    }

    fn calls_mut(&mut self) -> &mut Vec<ToolCallOut> {
        if let ModelFields::Text { thoughts, tokens, model } = self {
            *self = ModelFields::Calls {
                tool_calls: Vec::new(),
                thoughts: std::mem::take(thoughts),
                model: model.take(),
                tokens: tokens.take(),
            };
        }
        match self {
            ModelFields::Calls { tool_calls, .. } => tool_calls,
            ModelFields::Text { .. } => unreachable!("made a Calls above"),
        }
    }

    fn thoughts_mut(&mut self) -> &mut Vec<ThoughtOut> {
        match self {
            ModelFields::Text { thoughts, .. } | ModelFields::Calls { thoughts, .. } => thoughts,
        }
    }
}

/// `ToolCallRecord`, as 0.25 enriches it for a tool its registry lacks.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolCallOut {
    id: String,
    name: String,
    args: Value,
    result: Option<Value>,
    status: &'static str,
    timestamp: String,
    display_name: String,
    description: &'static str,
    render_output_as_markdown: bool,
}

impl Writer {
    pub fn new(options: WriteOptions) -> Writer {
        Writer {
            options,
            diags: Diagnostics::new(),
            input: CanonicalInput::new(),
            meta: None,
            first_ts: None,
            last_ts: None,
            summary: None,
            messages: Vec::new(),
            current: None,
            thoughts: Vec::new(),
            thoughts_id: None,
            ids: UsedIds::new(),
            calls: BTreeMap::new(),
        }
    }

    fn record(&mut self, record: Record) {
        let started = !self.messages.is_empty();
        let Some(record) = main_content(&mut self.meta, record, started, &mut self.diags) else { return };
        if self.first_ts.is_none() {
            self.first_ts = record.ts.clone();
        }
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
                    self.diags.not_carried("attachments");
                }
                if !text.is_empty() {
                    let text = match guard_command(&text) {
                        Some(guarded) => {
                            self.diags.add("reshaped", Severity::Info, "user.text", None, None);
                            guarded
                        }
                        None => text,
                    };
                    self.simple_message(&record.id, &ts, "user", text);
                }
            }
            Body::Observation { subtype, text } => self.observation(&record.id, &ts, &subtype, text),
            Body::Reasoning(reasoning) => self.reasoning(&record.id, &reasoning, &ts),
            Body::Assistant(assistant) => self.start_message(&record.id, &ts, assistant),
            Body::ToolCall { call_id, name, arguments } => self.tool_call(call_id, name, arguments, &ts),
            Body::ToolResult { call_id, content, ok } => self.tool_result(&call_id, content, ok, record.ts),
            Body::Compaction { .. } => self.diags.not_carried("compaction"),
        }
    }

    fn observation(&mut self, id: &str, ts: &str, subtype: &str, text: Option<String>) {
        let text_str = text.clone().unwrap_or_default();
        match subtype {
            // Harness context Gemini CLI itself puts in user messages.
            "session_context" | "hook_context" if harness_context_kind(&text_str).is_some() => {
                self.simple_message(id, ts, "user", text_str)
            }
            kind if NOTICE_TYPES.contains(&kind) => self.simple_message(id, ts, kind, text_str),
            "summary" if text.is_some() => self.summary = text,
            other => self.diags.not_carried(&format!("observation/{other}")),
        }
    }

    fn reasoning(&mut self, id: &str, reasoning: &Reasoning, ts: &str) {
        if reasoning.opaque.is_some() || reasoning.encrypted {
            self.diags.not_carried("opaque-reasoning");
        }
        let Some(text) = reasoning.text.clone().filter(|t| !t.is_empty()) else { return };
        // Reasoning precedes the response it belongs to: a message that has
        // said or called something is complete.
        if let Some(i) = self.current
            && (!self.messages[i].content.is_empty() || self.model_fields(i).has_calls())
        {
            self.current = None;
        }
        let timestamp = (!ts.is_empty()).then(|| ts.to_string());
        let thought = ThoughtOut { subject: String::new(), description: text, timestamp };
        match self.current {
            Some(i) => self.model_fields(i).thoughts_mut().push(thought),
            None => {
                self.thoughts_id.get_or_insert_with(|| id.to_string());
                self.thoughts.push(thought);
            }
        }
    }

    /// Reasoning no response followed (a prompt or the end came first): a
    /// `gemini` message of its own, with nothing to say (0.2x sends none).
    fn flush_thoughts(&mut self) {
        if self.thoughts.is_empty() {
            return;
        }
        let id = self.thoughts_id.take().unwrap_or_default();
        let ts = self.thoughts[0].timestamp.clone().or_else(|| self.last_ts.clone()).unwrap_or_default();
        self.start_message(&id, &ts, Assistant::default());
        self.current = None;
    }

    fn model_fields(&mut self, index: usize) -> &mut ModelFields {
        self.messages[index].model.as_mut().expect("`current` is a gemini message")
    }

    fn start_message(&mut self, id: &str, ts: &str, assistant: Assistant) {
        if assistant.stop_reason.is_some() {
            self.diags.not_carried("stop-reason");
        }
        let tokens = assistant.usage.as_ref().map(|u| self.tokens(u));
        let id = self.unique_id(id);
        self.thoughts_id = None;
        let fields =
            ModelFields::new(std::mem::take(&mut self.thoughts), tokens, assistant.model.filter(|m| !m.is_empty()));
        self.messages.push(MessageOut {
            id,
            timestamp: ts.to_string(),
            kind: "gemini".into(),
            content: assistant.text,
            model: Some(fields),
        });
        self.current = Some(self.messages.len() - 1);
    }

    fn tool_call(&mut self, call_id: String, name: String, arguments: Value, ts: &str) {
        // A call after an answered one starts the next model turn.
        let starts_new = match self.current {
            None => true,
            Some(i) => match self.model_fields(i) {
                ModelFields::Calls { tool_calls, .. } => tool_calls.iter().any(|c| c.result.is_some()),
                ModelFields::Text { .. } => false,
            },
        };
        if starts_new {
            self.start_message(&format!("{call_id}#message"), ts, Assistant::default());
        }
        let args = match arguments {
            Value::Object(_) => arguments,
            Value::Null => Value::Object(Default::default()),
            other => {
                self.diags.add("reshaped", Severity::Info, "tool_call.arguments", None, None);
                serde_json::json!({ "input": other })
            }
        };
        let index = self.current.expect("started above");
        let calls = self.model_fields(index).calls_mut();
        calls.push(ToolCallOut {
            id: call_id.clone(),
            display_name: name.clone(),
            name,
            args,
            result: None,
            status: "cancelled",
            timestamp: ts.to_string(),
            description: "",
            render_output_as_markdown: false,
        });
        let at = (index, calls.len() - 1);
        // A repeated call id: the later call takes the results from here on.
        self.calls.insert(call_id, at);
    }

    fn tool_result(&mut self, call_id: &str, content: String, ok: Option<bool>, ts: Option<String>) {
        let Some(&(m, c)) = self.calls.get(call_id) else {
            self.diags.not_carried("orphan-tool-result");
            return;
        };
        let status = match ok {
            Some(true) => "success",
            Some(false) => "error",
            None => "success",
        };
        let call = match self.model_fields(m) {
            ModelFields::Calls { tool_calls, .. } => &mut tool_calls[c],
            ModelFields::Text { .. } => unreachable!("a call's message has calls"),
        };
        if call.result.is_some() {
            self.diags.not_carried("duplicate-tool-result");
            return;
        }
        call.result = Some(Value::Array(vec![function_response(call_id, &call.name, &content, ok)]));
        call.status = status;
        if let Some(ts) = ts {
            call.timestamp = ts;
        }
        if ok.is_none() {
            self.diags.add("placeholder", Severity::Info, "toolCalls.status", None, None);
        }
    }

    fn simple_message(&mut self, id: &str, ts: &str, kind: &str, content: String) {
        self.flush_thoughts();
        self.current = None;
        let id = self.unique_id(id);
        self.messages.push(MessageOut { id, timestamp: ts.to_string(), kind: kind.to_string(), content, model: None });
    }

    fn tokens(&mut self, usage: &Usage) -> TokensOut {
        TokensOut::of(usage, &mut self.diags)
    }

    /// `id`, or `id-<n>` when a message of the file has it already.
    fn unique_id(&mut self, id: &str) -> String {
        let base = if id.is_empty() { "message" } else { id };
        let candidate = self.ids.claim(base, |base, n| format!("{base}-{n}"));
        if candidate != base {
            self.diags.add("renamed", Severity::Info, "message.id", None, None);
        }
        candidate
    }

    /// Calls never answered get the response of a cancelled call.
    fn answer_the_unanswered(&mut self) {
        let mut placeholders = 0;
        for message in &mut self.messages {
            let Some(ModelFields::Calls { tool_calls, .. }) = message.model.as_mut() else { continue };
            for call in tool_calls.iter_mut().filter(|c| c.result.is_none()) {
                let part = function_response(&call.id, &call.name, CANCELLED_RESULT, Some(false));
                call.result = Some(Value::Array(vec![part]));
                placeholders += 1;
            }
        }
        for _ in 0..placeholders {
            self.diags.add("placeholder", Severity::Info, "toolCalls.result (cancelled)", None, None);
        }
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
            "Gemini CLI files every session under the SHA-256 of its project directory",
        )?;
        let cwd = normalize_cwd(&cwd);
        let start = meta
            .started_at
            .as_deref()
            .or(self.first_ts.as_deref())
            .and_then(parse_rfc3339)
            .map(rfc3339_ms)
            .unwrap_or_else(|| {
                self.diags.add("placeholder", Severity::Info, "startTime", None, None);
                rfc3339_ms(0)
            });
        let id = written::session_id(&self.options, self.input.meta_digest(), &start)?;
        self.flush_thoughts();
        self.answer_the_unanswered();
        let last = self.last_ts.as_deref().and_then(parse_rfc3339).map(rfc3339_ms).unwrap_or_else(|| start.clone());
        let hash = project_hash(&cwd);
        // The title as the session's `summary` (what Gemini CLI lists), unless
        // it is the one the first prompt gives anyway.
        let first_prompt = self
            .messages
            .iter()
            .filter(|m| m.kind == "user")
            .find_map(|m| crate::conversation::prompt_title(&m.content));
        let title = meta.title.clone().filter(|t| !t.trim().is_empty() && Some(t) != first_prompt.as_ref());
        let summary = self.summary.clone().or(title);
        let document = Document {
            session_id: &id,
            project_hash: &hash,
            start_time: &start,
            last_updated: &last,
            messages: &self.messages,
            summary: summary.as_deref(),
        };
        let bytes = json_document(&document)?;
        let project_dir = layout::join(TMP_ROOT, &hash);
        let chunks = vec![
            Artifact { path: layout::join(&project_dir, PROJECT_ROOT_FILE), bytes: cwd.into_bytes() },
            Artifact { path: layout::join(&layout::join(&project_dir, CHATS), &session_file_name(&start, &id)), bytes },
        ];
        Ok(Written { native_id: id, chunks, diagnostics: self.diags.drain() })
    }
}

/// `session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.json`.
pub fn session_file_name(start: &str, id: &str) -> String {
    written::session_file_name(SESSION_PREFIX, start, id, JSON)
}

pub use trajhost_gemini_cli_core::written::{normalize_cwd, project_hash};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_hashes() {
        assert_eq!(
            session_file_name("2026-12-06T03:56:47.215Z", "f4a10c33-aac8-4841-91b2-87e99e2e6dcd"),
            "session-2026-12-06T03-56-f4a10c33.json"
        );
        assert_eq!(
            project_hash("/home/user/project"),
            "9dad1e4e08b0b11cbcd860257e8bdfa6b8e5f01790e10a6a0b1f4870c13e686b"
        );
        assert_eq!(normalize_cwd("/w/"), "/w");
        assert_eq!(normalize_cwd("/"), "/");
    }
}
