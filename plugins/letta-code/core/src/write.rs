//! `write`: a canonical session → one Letta Code local-backend transcript,
//! `.letta/lc-local-backend/conversations/<base64url("conversation:<id>")>/messages.jsonl`,
//! streamed, in either format ([`Format`]):
//!
//! - `pi-ai-message-jsonl` (schema 1, Letta Code 0.25.9, `fixtures/letta-code/0.25.9`):
//!   one pi-ai message a line;
//! - `pi-session-entry-jsonl` (schema 2, Letta Code 0.30.28 and later,
//!   `fixtures/letta-code/0.32.18`): a Pi session-entry file, the same
//!   messages wrapped in entries:
//!   `{"type":"session","version":3,"id":<conversation>,"timestamp","cwd"}`, then
//!   `{"type":"message","id":<8 hex>,"parentId":<previous entry>|null,"timestamp":<metadata.created_at>,"message":{…}}`
//!   per message, and `{"type":"compaction",…,"summary","firstKeptEntryId","tokensBefore","message":{…}}`
//!   for a compaction (Letta Code's `LocalStore` entries).
//!
//! At the end comes the folder's `conversation.json` (id, agent, times,
//! `summary` = the session's title, `in_context_message_ids` = the messages
//! from the last compaction on, as Letta Code keeps them). `manifest.json`
//! and the agent are made by `prepare`, which knows the target home.
//!
//! ```text
//! user        otid (schema 2: a UUID from the message id), metadata {created_at, updated_at, agent_id,
//!             conversation_id}, content [text…], timestamp (ms); injected <system-reminder> parts
//!             (a Letta Code source's) first, as Letta Code puts them
//! assistant   one message per model response (the canonical run `reasoning* assistant? tool_call*`):
//!             content [thinking…, text, toolCall…], api, provider, model, responseId, usage (complete,
//!             zeros when the source recorded none; schema 2 with `reasoning`), stopReason, timestamp,
//!             metadata
//! toolResult  toolCallId, toolName (from its call), content [text], isError, timestamp, metadata
//! user        a compaction: metadata.compaction {summary}, content [text summary] (schema 2: wrapped
//!             in a `compaction` entry, not a `message` one)
//! ```
//!
//! Fields come in the order Letta Code writes them (0.25.9 and 0.32.18 agree
//! but for `otid` and `usage.reasoning`).
//!
//! Letta Code converts the history with pi-ai for whatever model the agent
//! runs: an assistant message of another provider/model keeps its text and
//! tool calls, and its thinking is sent as text (pi-ai's `transformMessages`).
//! So thinking is written as text; its signature only for a Letta Code
//! source (another harness's signature is meaningless to the target).
//!
//! A compaction is written as Letta Code writes its own (a user message with
//! `metadata.compaction`); the messages before it stay in the file, out of
//! `in_context_message_ids`. Letta Code itself drops them when it compacts,
//! but sends whatever the transcript holds, so a resumed model sees them too.
//!
//! What cannot be carried is named in `not-carried` diagnostics: system
//! prompts (Letta Code builds the agent's own), observations (but a Letta
//! Code source's `<system-reminder>` parts), attachments (no bytes in the
//! canonical session), reasoning with no text (opaque or encrypted only),
//! subagent transcripts, results whose call is missing or answered, usage
//! reasoning counts in schema 1 (its pi-ai usage has none; schema 2 keeps
//! them; a cost is kept as `cost.total`).
//!
//! Ids: the conversation is `options.native_id`, else `conv-<uuid>` derived
//! from the SHA-256 of the `meta` line; its agent is
//! [`agent_id_for`]`(conversation)`; message ids are `<conversation>-msg-<n>`
//! (not Letta Code's `ui-msg-<n>`, whose numbers the local backend continues
//! from across every conversation of the store); schema-2 entry ids are 8
//! hex digits of the SHA-256 of the conversation and the message's number
//! (Letta Code's are the head of a random UUID), unique in the file. The
//! same document always gives the same bytes (the sandbox has no randomness
//! and no clock).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Meta, Reasoning, Record};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::time::{parse_rfc3339, rfc3339_ms};
use trajhost_codec_sdk::writer::{CanonicalInput, JsonlAssembler, ids, json_line};
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WriteOptions, Written};

use crate::discover::TITLE_CHARS;
use crate::layout::{self, AGENT_ID_PREFIX, CONVERSATION, CONVERSATION_ID_PREFIX, MESSAGES};
use crate::records::is_reminder;
use crate::{Format, HARNESS};
use trajhost_codec_sdk::text::title_of;

/// `api` of assistant messages written (the chat-completions family Letta
/// Code's connected local providers speak); pi-ai compares it only to tell
/// the agent's own responses from others.
pub const API: &str = "openai-completions";
/// `provider` / `model` of a response whose source recorded none.
pub const UNKNOWN: &str = "unknown";
/// pi-ai `stopReason` values a written response may carry (`error` and
/// `aborted` make pi-ai skip the message when it builds a request).
const STOP_REASONS: &[&str] = &["stop", "length", "toolUse"];

/// The agent a written conversation belongs to: `agent-local-<uuid>` derived
/// from the conversation id, so `prepare` finds it from the artifact alone.
pub fn agent_id_for(conversation_id: &str) -> String {
    format!("{AGENT_ID_PREFIX}{}", ids::salted_uuid_v4("agent", conversation_id.as_bytes()))
}

/// The id of the `n`th message (from 1) of conversation `id`.
pub fn message_id(id: &str, n: u64) -> String {
    format!("{id}-msg-{n}")
}

/// A conversation's `conversation.json`, as Letta Code writes it (its
/// `createLocalConversationRecord` fields, in that order).
pub struct ConversationRecord<'a> {
    pub id: &'a str,
    pub agent_id: &'a str,
    pub created_at: Option<String>,
    pub last_message_at: Option<String>,
    pub summary: Option<&'a str>,
    pub in_context_message_ids: &'a [String],
}

impl ConversationRecord<'_> {
    pub fn to_json(&self) -> Vec<u8> {
        let created_at = self.created_at.as_deref().unwrap_or("1970-01-01T00:00:00.000Z");
        let record = out::ConversationFile {
            id: self.id,
            agent_id: self.agent_id,
            archived: false,
            archived_at: None,
            created_at,
            updated_at: self.last_message_at.as_deref().unwrap_or(created_at),
            last_message_at: self.last_message_at.as_deref(),
            summary: self.summary,
            in_context_message_ids: self.in_context_message_ids,
        };
        // `JSON.stringify(value, null, 2)` and a newline; string keys only: serializes.
        let mut bytes = serde_json::to_vec_pretty(&record).expect("conversation serializes");
        bytes.push(b'\n');
        bytes
    }
}

/// Streams a canonical session into `messages.jsonl`, a message at a time:
/// memory follows the longest model response, not the session.
pub struct ConversationWriter {
    options: WriteOptions,
    format: Format,
    input: CanonicalInput,
    /// Set by the first record (`meta`, normally).
    conversation: Option<Conversation>,
    diags: Diagnostics,
}

impl ConversationWriter {
    pub fn start(options: WriteOptions, format: Format) -> Result<Box<dyn SessionWriter>, CodecError> {
        if let Some(id) = options.native_id.as_deref()
            && !layout::is_conversation_id(id)
        {
            return Err(CodecError::Other(format!(
                "the native id {id:?} cannot be a Letta Code conversation id: it must be letters, digits, `-` \
                 or `_` (at most 128), and not `default`"
            )));
        }
        Ok(Box::new(ConversationWriter {
            options,
            format,
            input: CanonicalInput::new(),
            conversation: None,
            diags: Diagnostics::new(),
        }))
    }

    fn open(&mut self, meta: Option<&Meta>, seed: &[u8]) -> &mut Conversation {
        let id = match self.options.native_id.clone() {
            Some(id) => id,
            None => format!("{CONVERSATION_ID_PREFIX}{}", ids::salted_uuid_v4("conversation", seed)),
        };
        let start_ms = meta.and_then(|m| m.started_at.as_deref()).and_then(parse_rfc3339);
        let conversation = Conversation {
            format: self.format,
            cwd: self.options.cwd.clone().or_else(|| meta.and_then(|m| m.cwd.clone())),
            start_ms,
            header_ms: None,
            entry_ids: BTreeSet::new(),
            last_entry: None,
            out: JsonlAssembler::new(layout::conversation_file(&id, MESSAGES)),
            agent_id: agent_id_for(&id),
            id,
            same_harness: meta.is_some_and(|m| m.harness == HARNESS),
            count: 0,
            last_ms: start_ms,
            timed: start_ms.is_some(),
            calls: BTreeMap::new(),
            answered: BTreeSet::new(),
            response: None,
            reminders: Vec::new(),
            title: meta.and_then(|m| m.title.clone()).filter(|t| !t.trim().is_empty()),
            compacted: 0,
            prompt_title: None,
            first_ms: None,
            diags: std::mem::take(&mut self.diags),
        };
        self.conversation.insert(conversation)
    }
}

impl SessionWriter for ConversationWriter {
    fn push(&mut self, records: &str) -> Result<Vec<Artifact>, CodecError> {
        for line in records.lines() {
            let diags = match self.conversation.as_mut() {
                Some(c) => &mut c.diags,
                None => &mut self.diags,
            };
            let Some(record) = self.input.record(line, diags)? else { continue };
            if let Body::Meta(meta) = &record.body {
                match self.conversation.as_mut() {
                    None => {
                        self.open(Some(meta), line.as_bytes());
                    }
                    Some(c) => c.not_carried(Severity::Info, "additional-meta"),
                }
                continue;
            }
            let conversation = match self.conversation.as_mut() {
                Some(c) => c,
                None => self.open(None, line.as_bytes()),
            };
            conversation.record(&record);
        }
        Ok(self.conversation.as_mut().map(Conversation::take_chunk).unwrap_or_default())
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        if self.conversation.is_none() {
            self.open(None, b"");
        }
        let conversation = self.conversation.as_mut().expect("opened above");
        conversation.flush_response();
        conversation.flush_reminders();
        if !conversation.timed {
            conversation.diags.add("no-timestamp", Severity::Warning, "message.timestamp", None, None);
        }
        if conversation.format == Format::Entries {
            // An empty conversation still gets its header.
            conversation.header(conversation.start_ms.or(conversation.last_ms).unwrap_or(0));
        }
        let mut chunks = conversation.take_chunk();
        if chunks.is_empty() && conversation.count == 0 {
            // An empty conversation is still a file Letta Code can open.
            chunks.push(Artifact { path: conversation.out.path().to_string(), bytes: Vec::new() });
        }
        let c = &*conversation;
        let at = |ms: Option<i64>| ms.map(rfc3339_ms);
        let ids: Vec<String> = (c.compacted + 1..=c.count).map(|n| message_id(&c.id, n)).collect();
        // Schema 2: the header's time, as Letta Code writes the header from the record.
        let created_ms = match c.format {
            Format::Messages => c.first_ms.or(c.last_ms),
            Format::Entries => c.header_ms,
        };
        let record = ConversationRecord {
            id: &c.id,
            agent_id: &c.agent_id,
            created_at: at(created_ms),
            last_message_at: at(c.last_ms.filter(|_| c.count > 0)),
            summary: c.title.as_deref().filter(|t| c.prompt_title.as_deref() != Some(*t)),
            in_context_message_ids: &ids,
        };
        chunks.push(Artifact { path: layout::conversation_file(&c.id, CONVERSATION), bytes: record.to_json() });
        Ok(Written { native_id: conversation.id.clone(), chunks, diagnostics: conversation.diags.drain() })
    }
}

/// One model response being gathered: `reasoning* assistant? tool_call*`.
#[derive(Default)]
struct Response {
    ms: Option<i64>,
    thinking: Vec<out::Block>,
    text: Option<Assistant>,
    calls: Vec<out::Block>,
}

struct Conversation {
    format: Format,
    /// The `session` header's `cwd` (schema 2).
    cwd: Option<String>,
    /// The session's start (`meta.started_at`).
    start_ms: Option<i64>,
    /// The `session` header's time, once written (schema 2).
    header_ms: Option<i64>,
    /// Entry ids written (schema 2): each is new in the file.
    entry_ids: BTreeSet<String>,
    /// The last entry's id: the next one's `parentId`.
    last_entry: Option<String>,
    id: String,
    agent_id: String,
    /// `messages.jsonl`.
    out: JsonlAssembler,
    same_harness: bool,
    /// Messages written.
    count: u64,
    last_ms: Option<i64>,
    /// Some record carried a time.
    timed: bool,
    /// Call id → tool name.
    calls: BTreeMap<String, String>,
    answered: BTreeSet<String>,
    response: Option<Response>,
    /// `<system-reminder>` parts (a Letta Code source's) waiting for the
    /// user message they were part of.
    reminders: Vec<String>,
    /// The session's title: the conversation's `summary`.
    title: Option<String>,
    /// The title the reader derives from the first prompt (a title equal to
    /// it is not written: Letta Code leaves `summary` null until one is set).
    prompt_title: Option<String>,
    /// Messages before the last compaction (out of Letta Code's context).
    compacted: u64,
    first_ms: Option<i64>,
    diags: Diagnostics,
}

impl Conversation {
    fn not_carried(&mut self, severity: Severity, what: &str) {
        self.diags.add("not-carried", severity, what, None, None);
    }

    fn record(&mut self, record: &Record) {
        if record.agent.is_some() {
            self.not_carried(Severity::Warning, "subagent-transcript");
            return;
        }
        let ms = record.ts.as_deref().and_then(parse_rfc3339);
        if ms.is_some() {
            self.timed = true;
        }
        match &record.body {
            Body::Meta(_) => {}
            Body::System { .. } => self.not_carried(Severity::Info, "system-prompt"),
            Body::Observation { subtype, text } => {
                match text.as_deref().filter(|t| self.same_harness && subtype == "system-reminder" && is_reminder(t)) {
                    Some(text) => {
                        self.flush_response();
                        self.reminders.push(text.to_string());
                    }
                    None => self.not_carried(Severity::Info, &format!("observation/{subtype}")),
                }
            }
            Body::User { text, attachments } => {
                self.flush_response();
                self.user(text, attachments, ms);
            }
            Body::Reasoning(reasoning) => {
                self.response_for(ms, |r| r.text.is_none() && r.calls.is_empty());
                self.reasoning(reasoning);
            }
            Body::Assistant(assistant) => {
                self.response_for(ms, |r| r.text.is_none() && r.calls.is_empty()).text = Some(assistant.clone());
            }
            Body::ToolCall { call_id, name, arguments } => {
                let arguments = match arguments {
                    Value::Object(_) => arguments.clone(),
                    other => {
                        self.diags.add("reshaped", Severity::Info, "tool-call-arguments", None, None);
                        serde_json::json!({ "input": other })
                    }
                };
                self.calls.insert(call_id.clone(), name.clone());
                self.response_for(ms, |_| true).calls.push(out::Block::ToolCall {
                    kind: "toolCall",
                    id: call_id.clone(),
                    name: name.clone(),
                    arguments,
                });
            }
            Body::ToolResult { call_id, content, ok } => {
                self.flush_response();
                self.tool_result(call_id, content, *ok, ms);
            }
            Body::Compaction { summary, .. } => {
                self.flush_response();
                self.flush_reminders();
                let ms = self.stamp(ms);
                self.compacted = self.count;
                let id = self.next_id();
                let message = out::Compaction {
                    id: &id,
                    role: "user",
                    metadata: out::CompactionMetadata {
                        common: self.metadata(ms),
                        compaction: out::CompactionSummary { summary },
                    },
                    content: vec![out::Text { kind: "text", text: summary }],
                    timestamp: ms,
                };
                match self.format {
                    Format::Messages => self.push_line(&message),
                    Format::Entries => {
                        let line = self.entry(ms, |id, parent, timestamp| {
                            json_line(&out::CompactionEntry {
                                kind: "compaction",
                                id,
                                parent_id: parent,
                                timestamp,
                                summary,
                                // Nothing before the compaction stays in context.
                                first_kept_entry_id: None,
                                tokens_before: 0,
                                message: &message,
                            })
                        });
                        self.out.push_line(&line);
                    }
                }
            }
        }
    }

    /// The response a record of a model response belongs to: the open one
    /// when `continues` says the record can extend it, else a new one.
    fn response_for(&mut self, ms: Option<i64>, continues: impl Fn(&Response) -> bool) -> &mut Response {
        if self.response.as_ref().is_some_and(|r| !continues(r)) {
            self.flush_response();
        }
        if self.response.is_none() {
            self.flush_reminders();
        }
        let response = self.response.get_or_insert_with(Response::default);
        if response.ms.is_none() {
            response.ms = ms;
        }
        response
    }

    fn reasoning(&mut self, reasoning: &Reasoning) {
        let text = reasoning.text.as_deref().filter(|t| !t.is_empty());
        let signature = reasoning.opaque.as_deref().filter(|_| self.same_harness);
        let block = match (text, signature, reasoning.encrypted) {
            (Some(text), _, false) => {
                if reasoning.opaque.is_some() && !self.same_harness {
                    self.not_carried(Severity::Info, "opaque-reasoning");
                }
                out::Block::Thinking {
                    kind: "thinking",
                    thinking: text.to_string(),
                    signature: signature.map(str::to_string),
                    redacted: false,
                }
            }
            // Redacted thinking of a Letta Code source: pi-ai keeps it for the same model only.
            (_, Some(signature), true) => out::Block::Thinking {
                kind: "thinking",
                thinking: String::new(),
                signature: Some(signature.to_string()),
                redacted: true,
            },
            _ => {
                self.not_carried(Severity::Warning, "opaque-reasoning");
                return;
            }
        };
        if let Some(response) = self.response.as_mut() {
            response.thinking.push(block);
        }
    }

    fn user(&mut self, text: &str, attachments: &[Attachment], ms: Option<i64>) {
        if !attachments.is_empty() {
            self.diags.add("not-carried", Severity::Warning, "attachments", None, None);
        }
        if self.prompt_title.is_none() {
            self.prompt_title = title_of(text, TITLE_CHARS);
        }
        let mut parts: Vec<String> = std::mem::take(&mut self.reminders);
        if !text.is_empty() || parts.is_empty() {
            parts.push(text.to_string());
        }
        self.user_message(parts, ms);
    }

    fn flush_reminders(&mut self) {
        if !self.reminders.is_empty() {
            let parts = std::mem::take(&mut self.reminders);
            self.user_message(parts, None);
        }
    }

    fn user_message(&mut self, parts: Vec<String>, ms: Option<i64>) {
        let ms = self.stamp(ms);
        let id = self.next_id();
        // Schema 2 keeps the client's id of a message the person sent (`otid`).
        let otid = (self.format == Format::Entries).then(|| ids::salted_uuid_v4("otid", id.as_bytes()));
        let message = out::User {
            id: &id,
            role: "user",
            otid: otid.as_deref(),
            metadata: self.metadata(ms),
            content: parts.iter().map(|t| out::Text { kind: "text", text: t }).collect(),
            timestamp: ms,
        };
        self.push_message(&message, ms);
    }

    fn tool_result(&mut self, call_id: &str, content: &str, ok: Option<bool>, ms: Option<i64>) {
        let Some(name) = self.calls.get(call_id).cloned() else {
            self.not_carried(Severity::Warning, "orphan-tool-result");
            return;
        };
        if !self.answered.insert(call_id.to_string()) {
            self.not_carried(Severity::Warning, "duplicate-tool-result");
            return;
        }
        if ok.is_none() {
            self.diags.add("defaulted", Severity::Info, "toolResult.isError", None, None);
        }
        self.flush_reminders();
        let ms = self.stamp(ms);
        let id = self.next_id();
        let message = out::ToolResult {
            id: &id,
            role: "toolResult",
            tool_call_id: call_id,
            tool_name: &name,
            content: [out::Text { kind: "text", text: content }],
            is_error: ok == Some(false),
            timestamp: ms,
            metadata: self.metadata(ms),
        };
        self.push_message(&message, ms);
    }

    /// Writes the gathered model response as one assistant message.
    fn flush_response(&mut self) {
        let Some(response) = self.response.take() else { return };
        let ms = self.stamp(response.ms);
        let text = response.text.as_ref();
        let mut content = response.thinking;
        if let Some(t) = text.map(|a| a.text.as_str()).filter(|t| !t.is_empty()) {
            content.push(out::Block::Text { kind: "text", text: t.to_string() });
        }
        let has_calls = !response.calls.is_empty();
        content.extend(response.calls);
        let usage = text.and_then(|a| a.usage.as_ref());
        // Schema 2's pi-ai usage has a reasoning count; schema 1's has none.
        let with_reasoning = self.format == Format::Entries;
        if usage.is_some_and(|u| u.reasoning.is_some()) && !with_reasoning {
            self.not_carried(Severity::Info, "usage.reasoning");
        }
        if usage.is_none() {
            self.diags.add("defaulted", Severity::Info, "usage", None, None);
        }
        let model = text.and_then(|a| a.model.as_deref()).filter(|m| !m.is_empty()).unwrap_or(UNKNOWN);
        let stop_reason = match text.and_then(|a| a.stop_reason.as_deref()) {
            Some(s) if STOP_REASONS.contains(&s) => s,
            _ if has_calls => "toolUse",
            _ => "stop",
        };
        let id = self.next_id();
        let message = out::AssistantMessage {
            id: &id,
            role: "assistant",
            content,
            api: API,
            provider: UNKNOWN,
            model,
            response_id: text.and_then(|a| a.message_id.as_deref()),
            usage: out::Usage::of(usage, with_reasoning),
            stop_reason,
            timestamp: ms,
            metadata: self.metadata(ms),
        };
        self.push_message(&message, ms);
    }

    /// The message's time: its own, else the previous message's.
    fn stamp(&mut self, ms: Option<i64>) -> i64 {
        let ms = ms.or(self.last_ms).unwrap_or(0);
        self.last_ms = Some(ms);
        self.first_ms.get_or_insert(ms);
        ms
    }

    fn next_id(&mut self) -> String {
        self.count += 1;
        message_id(&self.id, self.count)
    }

    fn metadata(&self, ms: i64) -> out::Metadata {
        let at = rfc3339_ms(ms);
        out::Metadata {
            created_at: at.clone(),
            updated_at: at,
            agent_id: self.agent_id.clone(),
            conversation_id: self.id.clone(),
        }
    }

    /// A message of time `ms`: its line (schema 1), or a `message` entry
    /// wrapping it (schema 2).
    fn push_message<T: Serialize>(&mut self, message: &T, ms: i64) {
        match self.format {
            Format::Messages => self.push_line(message),
            Format::Entries => {
                let line = self.entry(ms, |id, parent, timestamp| {
                    json_line(&out::MessageEntry { kind: "message", id, parent_id: parent, timestamp, message })
                });
                self.out.push_line(&line);
            }
        }
    }

    fn push_line<T: Serialize>(&mut self, value: &T) {
        self.out.push(value);
    }

    /// The line of the next entry (after the `session` header, written
    /// first): `make` serializes it from the entry's id, its parent (the
    /// previous entry) and its time.
    fn entry(&mut self, ms: i64, make: impl FnOnce(&str, Option<&str>, &str) -> String) -> String {
        self.header(self.start_ms.unwrap_or(ms));
        let id = self.next_entry_id();
        let line = make(&id, self.last_entry.as_deref(), &rfc3339_ms(ms));
        self.last_entry = Some(id);
        line
    }

    /// Writes the `session` header, once, at `ms` when not written yet.
    fn header(&mut self, ms: i64) {
        if self.header_ms.is_some() {
            return;
        }
        self.header_ms = Some(ms);
        let header = out::SessionHeader {
            kind: "session",
            version: SESSION_VERSION,
            id: &self.id,
            timestamp: &rfc3339_ms(ms),
            cwd: self.cwd.as_deref(),
        };
        self.out.push(&header);
    }

    /// 8 hex digits, new in the file, from the conversation and the number
    /// of the message the entry wraps.
    fn next_entry_id(&mut self) -> String {
        for attempt in 0u32.. {
            let digest =
                ids::sha256_of(&[b"entry\0", self.id.as_bytes(), &self.count.to_le_bytes(), &attempt.to_le_bytes()]);
            let id = ids::hex_prefix(&digest, 8);
            if self.entry_ids.insert(id.clone()) {
                return id;
            }
        }
        unreachable!("a new id within 2^32 attempts")
    }

    fn take_chunk(&mut self) -> Vec<Artifact> {
        self.out.take_chunks()
    }
}

/// `version` of the `session` header Letta Code writes (Pi's session format 3).
pub const SESSION_VERSION: u32 = 3;

/// The native message shapes, fields in the order Letta Code writes them.
mod out {
    use serde::Serialize;
    pub use trajhost_pi_core::pi_ai::{Block, Text, Usage};

    #[derive(Serialize)]
    pub struct ConversationFile<'a> {
        pub id: &'a str,
        pub agent_id: &'a str,
        pub archived: bool,
        pub archived_at: Option<&'a str>,
        pub created_at: &'a str,
        pub updated_at: &'a str,
        pub last_message_at: Option<&'a str>,
        pub summary: Option<&'a str>,
        pub in_context_message_ids: &'a [String],
    }

    /// The first line of a schema-2 transcript (`createLocalTranscriptSessionHeader`).
    #[derive(Serialize)]
    pub struct SessionHeader<'a> {
        #[serde(rename = "type")]
        pub kind: &'a str,
        pub version: u32,
        pub id: &'a str,
        pub timestamp: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub cwd: Option<&'a str>,
    }

    /// A schema-2 `message` entry.
    #[derive(Serialize)]
    pub struct MessageEntry<'a, M> {
        #[serde(rename = "type")]
        pub kind: &'a str,
        pub id: &'a str,
        #[serde(rename = "parentId")]
        pub parent_id: Option<&'a str>,
        pub timestamp: &'a str,
        pub message: &'a M,
    }

    /// A schema-2 `compaction` entry (`appendConversationSessionCompactionEntry`).
    #[derive(Serialize)]
    pub struct CompactionEntry<'a, M> {
        #[serde(rename = "type")]
        pub kind: &'a str,
        pub id: &'a str,
        #[serde(rename = "parentId")]
        pub parent_id: Option<&'a str>,
        pub timestamp: &'a str,
        pub summary: &'a str,
        #[serde(rename = "firstKeptEntryId")]
        pub first_kept_entry_id: Option<&'a str>,
        #[serde(rename = "tokensBefore")]
        pub tokens_before: u64,
        pub message: &'a M,
    }

    #[derive(Serialize)]
    pub struct Metadata {
        pub created_at: String,
        pub updated_at: String,
        pub agent_id: String,
        pub conversation_id: String,
    }

    #[derive(Serialize)]
    pub struct User<'a> {
        pub id: &'a str,
        pub role: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub otid: Option<&'a str>,
        pub metadata: Metadata,
        pub content: Vec<Text<'a>>,
        pub timestamp: i64,
    }

    #[derive(Serialize)]
    pub struct CompactionSummary<'a> {
        pub summary: &'a str,
    }

    #[derive(Serialize)]
    pub struct CompactionMetadata<'a> {
        #[serde(flatten)]
        pub common: Metadata,
        pub compaction: CompactionSummary<'a>,
    }

    #[derive(Serialize)]
    pub struct Compaction<'a> {
        pub id: &'a str,
        pub role: &'a str,
        pub metadata: CompactionMetadata<'a>,
        pub content: Vec<Text<'a>>,
        pub timestamp: i64,
    }

    #[derive(Serialize)]
    pub struct AssistantMessage<'a> {
        pub id: &'a str,
        pub role: &'a str,
        pub content: Vec<Block>,
        pub api: &'a str,
        pub provider: &'a str,
        pub model: &'a str,
        #[serde(rename = "responseId", skip_serializing_if = "Option::is_none")]
        pub response_id: Option<&'a str>,
        pub usage: Usage,
        #[serde(rename = "stopReason")]
        pub stop_reason: &'a str,
        pub timestamp: i64,
        pub metadata: Metadata,
    }

    #[derive(Serialize)]
    pub struct ToolResult<'a> {
        pub id: &'a str,
        pub role: &'a str,
        #[serde(rename = "toolCallId")]
        pub tool_call_id: &'a str,
        #[serde(rename = "toolName")]
        pub tool_name: &'a str,
        pub content: [Text<'a>; 1],
        #[serde(rename = "isError")]
        pub is_error: bool,
        pub timestamp: i64,
        pub metadata: Metadata,
    }
}
