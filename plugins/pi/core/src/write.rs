//! `write`: a canonical session → one Pi (or Oh My Pi) session file.
//!
//! ```text
//! title slot (Oh My Pi only)  {"type":"title","v":1,"title","updatedAt","pad"}, exactly 256 bytes with its "\n"
//! session header              {"type":"session","version":3,"id","timestamp","cwd"}
//! one entry per line, each with a fresh 8-hex `id` and `parentId` = the entry before (one chain):
//!   model_change / thinking_level_change   from those observations of a session read from the same harness
//!   message user                           content [text], timestamp (ms); Oh My Pi: attribution "user"
//!   message assistant                      content [thinking…, text, toolCall…], api, provider, model, usage
//!                                          (complete, with cost: Pi's footer sums every field), stopReason,
//!                                          timestamp, responseId
//!   message toolResult                     toolCallId, toolName (from its call), content [text], isError
//!   compaction                             summary, firstKeptEntryId = its own id (nothing before it is kept)
//!   reset_boundary (Oh My Pi)              an empty compaction
//! ```
//!
//! A model response is the canonical run `reasoning* assistant? tool_call*`:
//! it becomes one assistant message. Values the file must hold but the
//! canonical session does not have are filled and named in a `defaulted`
//! diagnostic (usage without a record: zeros; a tool result without `ok`:
//! `isError: false`; a model response without a model: `unknown`). What
//! cannot be carried is named in a `not-carried` diagnostic: system prompts,
//! image attachments, opaque reasoning of another harness, observations
//! other than model and thinking-level changes, subagent transcripts,
//! results whose call is missing.
//!
//! The session id is `options.native_id`, else a UUIDv7 whose time is the
//! session start and whose random bits are a SHA-256 of the canonical
//! document; entry ids are SHA-256 of the document and the entry's index
//! (or the source's own ids, for a session read from the same harness): the
//! same document always gives the same bytes (the sandbox has no randomness
//! and no clock).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;
use trajhost_codec_sdk::canonical::{Assistant, Body, Reasoning, Record, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::writer::{CanonicalDocument, ids, join_lines, json_line};
use trajhost_codec_sdk::{Artifact, CodecError, Severity, WriteOptions, Written};

use crate::Flavor;
use crate::layout;
use crate::time::{parse_rfc3339, rfc3339_utc};

/// Largest canonical document accepted.
pub const MAX_DOCUMENT_BYTES: usize = 512 << 20;
/// The session format version written.
pub const FORMAT_VERSION: u32 = 3;
/// Bytes of Oh My Pi's title slot line, `\n` included.
pub const TITLE_SLOT_BYTES: usize = 256;
/// `api` and `provider` of assistant messages whose source did not record them.
pub const UNKNOWN: &str = "unknown";

/// Writes `session` (canonical JSON lines) as one session file.
pub fn write(flavor: &Flavor, session: &str, options: &WriteOptions) -> Result<Written, CodecError> {
    let mut diags = Diagnostics::new();
    let document = CanonicalDocument::parse(session, MAX_DOCUMENT_BYTES, &mut diags)?;
    let start_ms = document.start_ms().unwrap_or_else(|| {
        diags.add("defaulted", Severity::Warning, "session.timestamp", None, None);
        0
    });
    let same_harness = document.is_from(flavor.harness);
    let CanonicalDocument { meta, records } = document;
    let native_id = match options.native_id.as_deref() {
        Some(id) if layout::is_uuid(id) => id.to_ascii_lowercase(),
        Some(_) => {
            return Err(CodecError::Other(format!(
                "write-options.native-id must be a UUID: {} session ids are UUIDs",
                flavor.harness
            )));
        }
        None => ids::uuid_v7(start_ms, session.as_bytes(), "session"),
    };
    let cwd = options.cwd.clone().or_else(|| meta.as_ref().and_then(|m| m.cwd.clone())).unwrap_or_else(|| {
        diags.add("defaulted", Severity::Warning, "session.cwd", None, None);
        "/".to_string()
    });
    let mut file = File {
        flavor,
        seed: ids::sha256_of(&[session.as_bytes()]),
        same_harness,
        lines: Vec::new(),
        used: BTreeSet::new(),
        last_id: None,
        count: 0,
        last_ms: start_ms,
        provider: None,
        calls: BTreeMap::new(),
        response: None,
        diags,
    };
    let start = rfc3339_utc(start_ms);
    if flavor.title_slot {
        let title = meta.as_ref().and_then(|m| m.title.as_deref()).unwrap_or("");
        file.lines.push(title_slot(title, &start));
    }
    let header = out::Header { kind: "session", version: FORMAT_VERSION, id: &native_id, timestamp: &start, cwd: &cwd };
    file.lines.push(json_line(&header));
    for record in &records {
        file.record(record);
    }
    file.flush_response();
    let File { lines, mut diags, .. } = file;
    let bytes = join_lines(lines);
    let path = format!(
        "{}/{}",
        layout::session_dir(flavor, &cwd, options.home_path.as_deref()),
        layout::file_name(start_ms, &native_id)
    );
    Ok(Written { native_id, chunks: vec![Artifact { path, bytes }], diagnostics: diags.drain() })
}

/// Oh My Pi's title slot: exactly [`TITLE_SLOT_BYTES`] bytes with its `\n`
/// (the title cut at a character boundary to fit), so the harness can
/// rewrite it in place.
pub fn title_slot(title: &str, updated_at: &str) -> String {
    let line = |title: &str, pad: usize| {
        json_line(&out::TitleSlot { kind: "title", v: 1, title, updated_at, pad: &" ".repeat(pad) })
    };
    let mut title: String = title.chars().filter(|c| *c != '\n').collect();
    // The line without padding, `\n` included, must fit.
    while line(&title, 0).len() + 1 > TITLE_SLOT_BYTES {
        title.pop();
    }
    let pad = TITLE_SLOT_BYTES - (line(&title, 0).len() + 1);
    line(&title, pad)
}

/// The native line shapes written, fields in the order the harness writes them.
mod out {
    pub use crate::pi_ai::{Block, Text, Usage};
    use serde::Serialize;

    #[derive(Serialize)]
    pub struct TitleSlot<'a> {
        #[serde(rename = "type")]
        pub kind: &'a str,
        pub v: u32,
        pub title: &'a str,
        #[serde(rename = "updatedAt")]
        pub updated_at: &'a str,
        pub pad: &'a str,
    }

    #[derive(Serialize)]
    pub struct Header<'a> {
        #[serde(rename = "type")]
        pub kind: &'a str,
        pub version: u32,
        pub id: &'a str,
        pub timestamp: &'a str,
        pub cwd: &'a str,
    }

    /// An entry: the envelope, then the type's own fields.
    #[derive(Serialize)]
    pub struct Entry<'a, T: Serialize> {
        #[serde(rename = "type")]
        pub kind: &'a str,
        pub id: &'a str,
        #[serde(rename = "parentId")]
        pub parent_id: Option<&'a str>,
        pub timestamp: &'a str,
        #[serde(flatten)]
        pub fields: T,
    }

    #[derive(Serialize)]
    pub struct PiModelChange<'a> {
        pub provider: &'a str,
        #[serde(rename = "modelId")]
        pub model_id: &'a str,
    }

    #[derive(Serialize)]
    pub struct OmpModelChange<'a> {
        pub model: &'a str,
    }

    #[derive(Serialize)]
    pub struct ThinkingLevel<'a> {
        #[serde(rename = "thinkingLevel")]
        pub thinking_level: Option<&'a str>,
    }

    #[derive(Serialize)]
    pub struct Compaction<'a> {
        pub summary: &'a str,
        #[serde(rename = "firstKeptEntryId")]
        pub first_kept_entry_id: &'a str,
        #[serde(rename = "tokensBefore")]
        pub tokens_before: u64,
    }

    #[derive(Serialize)]
    pub struct Empty {}

    #[derive(Serialize)]
    pub struct Message<M: Serialize> {
        pub message: M,
    }

    #[derive(Serialize)]
    pub struct User<'a> {
        pub role: &'a str,
        pub content: [Text<'a>; 1],
        #[serde(skip_serializing_if = "Option::is_none")]
        pub attribution: Option<&'a str>,
        pub timestamp: i64,
    }

    #[derive(Serialize)]
    pub struct Assistant<'a> {
        pub role: &'a str,
        pub content: Vec<Block>,
        pub api: &'a str,
        pub provider: &'a str,
        pub model: &'a str,
        pub usage: Usage,
        #[serde(rename = "stopReason")]
        pub stop_reason: &'a str,
        pub timestamp: i64,
        #[serde(rename = "responseId", skip_serializing_if = "Option::is_none")]
        pub response_id: Option<&'a str>,
    }

    #[derive(Serialize)]
    pub struct ToolResult<'a> {
        pub role: &'a str,
        #[serde(rename = "toolCallId")]
        pub tool_call_id: &'a str,
        #[serde(rename = "toolName")]
        pub tool_name: &'a str,
        pub content: [Text<'a>; 1],
        #[serde(rename = "isError")]
        pub is_error: bool,
        pub timestamp: i64,
    }
}

/// One model response being gathered: `reasoning* assistant? tool_call*`.
struct Response {
    ms: i64,
    id_hint: Option<String>,
    thinking: Vec<out::Block>,
    assistant: Option<Assistant>,
    calls: Vec<out::Block>,
}

struct File<'f> {
    flavor: &'f Flavor,
    seed: [u8; 32],
    same_harness: bool,
    lines: Vec<String>,
    used: BTreeSet<String>,
    last_id: Option<String>,
    /// Entries written.
    count: u64,
    last_ms: i64,
    /// The provider of the last `model_change` (`provider/modelId`).
    provider: Option<(String, String)>,
    /// Call id → tool name.
    calls: BTreeMap<String, String>,
    response: Option<Response>,
    diags: Diagnostics,
}

impl File<'_> {
    fn defaulted(&mut self, what: &str) {
        self.diags.add("defaulted", Severity::Info, what, None, None);
    }

    /// A fresh entry id: the source's own for a session read from the same
    /// harness, else 8 hex characters of SHA-256(document, index).
    fn next_id(&mut self, hint: Option<&str>) -> String {
        if self.same_harness
            && let Some(hint) = hint
            && hint.len() == 8
            && hint.bytes().all(|b| b.is_ascii_hexdigit())
            && !self.used.contains(hint)
        {
            self.used.insert(hint.to_string());
            return hint.to_string();
        }
        let mut attempt = 0u32;
        loop {
            let h = ids::sha256_of(&[&self.seed, &self.count.to_be_bytes(), &attempt.to_be_bytes()]);
            let id = ids::hex_prefix(&h, 8);
            if self.used.insert(id.clone()) {
                return id;
            }
            attempt += 1;
        }
    }

    /// Appends one entry to the chain.
    fn entry<T: Serialize>(&mut self, kind: &str, ms: i64, hint: Option<&str>, fields: T) -> String {
        let id = self.next_id(hint);
        self.entry_with_id(id, kind, ms, fields)
    }

    fn entry_with_id<T: Serialize>(&mut self, id: String, kind: &str, ms: i64, fields: T) -> String {
        let timestamp = rfc3339_utc(ms);
        let line =
            json_line(&out::Entry { kind, id: &id, parent_id: self.last_id.as_deref(), timestamp: &timestamp, fields });
        self.lines.push(line);
        self.last_id = Some(id.clone());
        self.count += 1;
        id
    }

    fn record(&mut self, record: &Record) {
        let ms = record.ts.as_deref().and_then(parse_rfc3339).unwrap_or(self.last_ms);
        match &record.body {
            Body::Reasoning(reasoning) => {
                if self.response.as_ref().is_some_and(|r| r.assistant.is_some() || !r.calls.is_empty()) {
                    self.flush_response();
                }
                if let Some(block) = self.thinking(reasoning) {
                    self.response_at(ms).thinking.push(block);
                }
            }
            Body::Assistant(assistant) => {
                if self.response.as_ref().is_some_and(|r| r.assistant.is_some() || !r.calls.is_empty()) {
                    self.flush_response();
                }
                let hint = record.id.clone();
                let response = self.response_at(ms);
                response.assistant = Some(assistant.clone());
                response.id_hint = Some(hint);
            }
            Body::ToolCall { call_id, name, arguments } => {
                let arguments = match arguments {
                    Value::Object(_) => arguments.clone(),
                    Value::String(s) => {
                        self.defaulted("toolCall.arguments (a string, wrapped as {\"input\": …})");
                        serde_json::json!({ "input": s })
                    }
                    other => {
                        self.defaulted("toolCall.arguments (not an object, wrapped as {\"value\": …})");
                        serde_json::json!({ "value": other })
                    }
                };
                self.calls.insert(call_id.clone(), name.clone());
                let block =
                    out::Block::ToolCall { kind: "toolCall", id: call_id.clone(), name: name.clone(), arguments };
                self.response_at(ms).calls.push(block);
            }
            _ => {
                self.flush_response();
                self.other(record, ms);
            }
        }
        self.last_ms = ms;
    }

    fn response_at(&mut self, ms: i64) -> &mut Response {
        self.response.get_or_insert_with(|| Response {
            ms,
            id_hint: None,
            thinking: Vec::new(),
            assistant: None,
            calls: Vec::new(),
        })
    }

    /// A thinking block, or `None` (reported) when nothing readable or
    /// replayable is left.
    fn thinking(&mut self, reasoning: &Reasoning) -> Option<out::Block> {
        let text = reasoning.text.as_deref().filter(|t| !t.is_empty());
        // A signature is only valid for the provider account of the session
        // it came from: kept only from a session of the same harness.
        let signature = reasoning.opaque.clone().filter(|_| self.same_harness);
        if reasoning.opaque.is_some() && signature.is_none() {
            self.diags.not_carried("opaque-reasoning");
        }
        if reasoning.encrypted {
            let signature = signature?;
            return Some(out::Block::Thinking {
                kind: "thinking",
                thinking: String::new(),
                signature: Some(signature),
                redacted: true,
            });
        }
        Some(out::Block::Thinking { kind: "thinking", thinking: text?.to_string(), signature, redacted: false })
    }

    /// Writes the gathered model response as one assistant message.
    fn flush_response(&mut self) {
        let Some(response) = self.response.take() else { return };
        let assistant = response.assistant.clone().unwrap_or_default();
        let mut content = response.thinking;
        if !assistant.text.is_empty() {
            content.push(out::Block::Text { kind: "text", text: assistant.text.clone() });
        }
        let has_calls = !response.calls.is_empty();
        content.extend(response.calls);
        if content.is_empty() {
            content.push(out::Block::Text { kind: "text", text: String::new() });
        }
        let model = match assistant.model.clone().filter(|m| !m.is_empty()) {
            Some(m) => m,
            None => {
                self.defaulted("assistant.model");
                UNKNOWN.to_string()
            }
        };
        let provider = match &self.provider {
            Some((provider, model_id)) if self.same_harness && *model_id == model => provider.clone(),
            _ => UNKNOWN.to_string(),
        };
        let usage = match &assistant.usage {
            Some(u) => {
                if u.cost_usd.is_none() {
                    self.defaulted("usage.cost");
                }
                u.clone()
            }
            None => {
                self.defaulted("usage");
                Usage::default()
            }
        };
        let usage = out::Usage::of(Some(&usage), false);
        let stop_reason = stop_reason(assistant.stop_reason.as_deref(), has_calls);
        let message = out::Assistant {
            role: "assistant",
            content,
            api: UNKNOWN,
            provider: &provider,
            model: &model,
            usage,
            stop_reason,
            timestamp: response.ms,
            response_id: assistant.message_id.as_deref(),
        };
        let hint = response.id_hint.clone();
        self.entry("message", response.ms, hint.as_deref(), out::Message { message });
    }

    fn other(&mut self, record: &Record, ms: i64) {
        let hint = Some(record.id.as_str());
        match &record.body {
            Body::User { text, attachments } => {
                for _ in attachments {
                    self.diags.not_carried("image-attachment");
                }
                let attribution = self.flavor.user_attribution.then_some("user");
                let message =
                    out::User { role: "user", content: [out::Text { kind: "text", text }], attribution, timestamp: ms };
                self.entry("message", ms, hint, out::Message { message });
            }
            Body::ToolResult { call_id, content, ok } => {
                let Some(name) = self.calls.get(call_id).cloned() else {
                    // A result without its call is refused by the model APIs.
                    self.diags.not_carried("orphan-tool-result");
                    return;
                };
                if ok.is_none() {
                    self.defaulted("toolResult.isError");
                }
                let message = out::ToolResult {
                    role: "toolResult",
                    tool_call_id: call_id,
                    tool_name: &name,
                    content: [out::Text { kind: "text", text: content }],
                    is_error: *ok == Some(false),
                    timestamp: ms,
                };
                self.entry("message", ms, hint, out::Message { message });
            }
            Body::Observation { subtype, text } => match (subtype.as_str(), self.same_harness) {
                ("model_change", true) => {
                    let Some(text) = text.as_deref() else { return self.diags.not_carried("observation/model_change") };
                    let (provider, model_id) = text.split_once('/').unwrap_or((UNKNOWN, text));
                    self.provider = Some((provider.to_string(), model_id.to_string()));
                    if self.flavor.combined_model_change {
                        self.entry("model_change", ms, hint, out::OmpModelChange { model: text });
                    } else {
                        self.entry("model_change", ms, hint, out::PiModelChange { provider, model_id });
                    }
                }
                ("thinking_level_change", true) => {
                    let fields = out::ThinkingLevel { thinking_level: text.as_deref() };
                    self.entry("thinking_level_change", ms, hint, fields);
                }
                _ => {
                    let what = format!("observation/{}", crate::native::type_name(Some(subtype)));
                    self.diags.not_carried(&what);
                }
            },
            Body::Compaction { summary, .. } => {
                if summary.is_empty() {
                    if self.flavor.harness == crate::OMP.harness {
                        self.entry("reset_boundary", ms, hint, out::Empty {});
                    } else {
                        self.diags.not_carried("opaque-compaction");
                    }
                    return;
                }
                // The entry's own id as the first kept entry: the summary
                // replaces everything before it, as a canonical compaction does.
                let id = self.next_id(hint);
                let fields = out::Compaction { summary, first_kept_entry_id: &id, tokens_before: 0 };
                self.entry_with_id(id.clone(), "compaction", ms, fields);
            }
            Body::System { .. } => self.diags.not_carried("system"),
            Body::Meta(_) | Body::Assistant(_) | Body::Reasoning(_) | Body::ToolCall { .. } => {}
        }
    }
}

/// Pi's stop reasons (`stop`, `length`, `toolUse`, `error`, `aborted`) from
/// a canonical one; the calls decide when it is absent or foreign.
fn stop_reason(reason: Option<&str>, has_calls: bool) -> &'static str {
    match reason {
        Some("stop" | "end_turn" | "stop_sequence" | "completed") if !has_calls => "stop",
        Some("length" | "max_tokens" | "max_output_tokens") => "length",
        Some("error") => "error",
        Some("aborted" | "cancelled" | "canceled") => "aborted",
        _ if has_calls => "toolUse",
        _ => "stop",
    }
}
