//! `write`: a canonical session → a Vibe session folder
//! ([`crate::generation`]): the records become the checkpoint's items, the
//! model context Vibe resumes from.
//!
//! | record | item |
//! |---|---|
//! | `user` | `{role: "user", content: [{type: "text", text}]}`; each prompt starts a turn (`turn_index`) |
//! | `assistant` | `{role: "assistant", content: [{type: "text", text}]}` |
//! | `tool_call` | a `{type: "tool_call", id, name, arguments: {raw, type: "json", value}}` part of the assistant message just written (else a new one) |
//! | `tool_result` | `{role: "tool", tool_call_id, name, outcome: "success" / "failure", content: [{type: "text", text}]}` |
//!
//! Every item is `{message, source: "history", turn_index}`. A call not
//! answered before the next message (or the end) gets a failed result
//! (`placeholder`): the chat-completions API refuses a tool call without
//! one.
//!
//! Not carried, each named in a `not-carried` diagnostic: `reasoning`,
//! `system` (Vibe builds its own system instructions), `attachments`,
//! `observation/<subtype>`, `compaction`, `stop-reason`, `usage`, `model`
//! (all but the first model: `meta.json` names one), `subagent-transcript`,
//! `orphan-tool-result`, `duplicate-tool-result`, `unknown-kind/<kind>`.
//! The store keeps no time per message: the session's start and end are
//! `meta.json`'s.
//!
//! The session id is `options.native_id`, else a UUID (version-4 layout)
//! from the SHA-256 of the canonical `meta` line; the same document always
//! gives the same bytes.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Record};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::hash::{sha256, to_hex};
use trajhost_codec_sdk::time::parse_rfc3339;
use trajhost_codec_sdk::writer::{CanonicalInput, ids, main_content};
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WriteOptions, Written};

use crate::generation::{Contents, Store};
use crate::layout;

/// The result written for a call that never got one.
pub const NO_RESULT: &str = "[no result was recorded for this call]";

/// The writer: records are mapped as they arrive; the folder is built at
/// `finish`.
pub struct Writer {
    options: WriteOptions,
    diags: Diagnostics,
    input: CanonicalInput,
    meta: Option<Meta>,
    items: Vec<Value>,
    turn: u64,
    prompts: u64,
    /// Calls of the last assistant message not yet answered: id → name.
    open: BTreeMap<String, String>,
    /// Every call written: id → name.
    calls: BTreeMap<String, String>,
    answered: BTreeMap<String, ()>,
    model: Option<String>,
    first_prompt: Option<String>,
    last_answer: Option<String>,
    first_ms: Option<i64>,
    last_ms: Option<i64>,
}

impl Writer {
    pub fn new(options: WriteOptions) -> Writer {
        Writer {
            options,
            diags: Diagnostics::new(),
            input: CanonicalInput::new(),
            meta: None,
            items: Vec::new(),
            turn: 0,
            prompts: 0,
            open: BTreeMap::new(),
            calls: BTreeMap::new(),
            answered: BTreeMap::new(),
            model: None,
            first_prompt: None,
            last_answer: None,
            first_ms: None,
            last_ms: None,
        }
    }

    fn not_carried(&mut self, what: &str) {
        self.diags.add("not-carried", Severity::Info, what, None, None);
    }

    fn placeholder(&mut self, what: &str) {
        self.diags.add("placeholder", Severity::Info, what, None, None);
    }

    fn item(&mut self, message: Value) {
        self.items.push(json!({"message": message, "source": "history", "turn_index": self.turn}));
    }

    /// Calls left open when anything but their results comes next.
    fn close_open_calls(&mut self) {
        for (call_id, name) in std::mem::take(&mut self.open) {
            self.placeholder("tool (no result)");
            self.answered.insert(call_id.clone(), ());
            self.item(tool_message(&call_id, &name, NO_RESULT, false));
        }
    }

    fn record(&mut self, record: Record) {
        let started = !self.items.is_empty();
        let Some(record) = main_content(&mut self.meta, record, started, &mut self.diags) else { return };
        if let Some(ms) = record.ts.as_deref().and_then(parse_rfc3339) {
            self.first_ms = Some(self.first_ms.map_or(ms, |f| f.min(ms)));
            self.last_ms = Some(self.last_ms.map_or(ms, |l| l.max(ms)));
        }
        match record.body {
            Body::Meta(_) => {}
            Body::System { .. } => self.not_carried("system"),
            Body::User { text, attachments } => {
                if !attachments.is_empty() {
                    self.not_carried("attachments");
                }
                self.user(text);
            }
            Body::Observation { subtype, .. } => self.not_carried(&format!("observation/{subtype}")),
            Body::Reasoning(_) => self.not_carried("reasoning"),
            Body::Assistant(assistant) => self.assistant(assistant),
            Body::ToolCall { call_id, name, arguments } => self.tool_call(call_id, name, arguments),
            Body::ToolResult { call_id, content, ok } => self.tool_result(call_id, content, ok),
            Body::Compaction { .. } => self.not_carried("compaction"),
        }
    }

    fn user(&mut self, text: String) {
        self.close_open_calls();
        if self.prompts > 0 {
            self.turn += 1;
        }
        self.prompts += 1;
        if self.first_prompt.is_none() {
            self.first_prompt = Some(text.clone());
        }
        self.item(json!({"role": "user", "content": [{"type": "text", "text": text}]}));
    }

    fn assistant(&mut self, assistant: Assistant) {
        if assistant.stop_reason.is_some() {
            self.not_carried("stop-reason");
        }
        if assistant.usage.is_some() {
            self.not_carried("usage");
        }
        match (&self.model, assistant.model) {
            (None, Some(model)) => self.model = Some(model),
            (Some(kept), Some(model)) if *kept != model => self.not_carried("model"),
            _ => {}
        }
        if assistant.text.is_empty() {
            return;
        }
        self.close_open_calls();
        self.last_answer = Some(assistant.text.clone());
        self.item(json!({"role": "assistant", "content": [{"type": "text", "text": assistant.text}]}));
    }

    fn tool_call(&mut self, call_id: String, name: String, arguments: Value) {
        let (raw, value) = match arguments {
            Value::Null => ("{}".to_string(), json!({})),
            Value::String(text) => {
                self.placeholder("arguments.value");
                (text, json!({}))
            }
            other => (other.to_string(), other),
        };
        let part = json!({"type": "tool_call", "id": call_id, "name": name,
            "arguments": {"raw": raw, "type": "json", "value": value}});
        // Joins the assistant message just written, unless results came after it.
        let joins = self.items.last().is_some_and(|i| i["message"]["role"] == "assistant")
            && self.open.len() == self.pending_parts();
        if joins {
            if let Some(content) = self.items.last_mut().and_then(|i| i["message"]["content"].as_array_mut()) {
                content.push(part);
            }
        } else {
            self.close_open_calls();
            self.item(json!({"role": "assistant", "content": [part]}));
        }
        self.answered.remove(&call_id);
        self.open.insert(call_id.clone(), name.clone());
        self.calls.insert(call_id, name);
    }

    /// Calls of the last item (an assistant message) still open.
    fn pending_parts(&self) -> usize {
        let Some(last) = self.items.last() else { return 0 };
        last["message"]["content"]
            .as_array()
            .map(|parts| {
                parts
                    .iter()
                    .filter(|p| p["type"] == "tool_call")
                    .filter(|p| p["id"].as_str().is_some_and(|id| self.open.contains_key(id)))
                    .count()
            })
            .unwrap_or(0)
    }

    fn tool_result(&mut self, call_id: String, content: String, ok: Option<bool>) {
        let Some(name) = self.calls.get(&call_id).cloned() else {
            self.not_carried("orphan-tool-result");
            return;
        };
        if self.answered.contains_key(&call_id) {
            self.not_carried("duplicate-tool-result");
            return;
        }
        if ok.is_none() {
            self.placeholder("outcome");
        }
        self.open.remove(&call_id);
        self.answered.insert(call_id.clone(), ());
        self.item(tool_message(&call_id, &name, &content, ok != Some(false)));
    }
}

/// A tool message.
fn tool_message(call_id: &str, name: &str, text: &str, ok: bool) -> Value {
    json!({"role": "tool", "tool_call_id": call_id, "name": name,
        "outcome": if ok { "success" } else { "failure" },
        "content": [{"type": "text", "text": text}]})
}

impl SessionWriter for Writer {
    fn push(&mut self, records: &str) -> Result<Vec<Artifact>, CodecError> {
        for record in self.input.records(records, &mut self.diags)? {
            self.record(record);
        }
        // Content-addressed files: the folder is whole or nothing, at `finish`.
        Ok(Vec::new())
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        self.close_open_calls();
        let meta = self.meta.clone().unwrap_or_default();
        let cwd = trajhost_codec_sdk::writer::required_cwd(
            &self.options,
            &meta,
            "Vibe records the working directory a session runs in",
        )?;
        let start = meta.started_at.as_deref().and_then(parse_rfc3339).or(self.first_ms).unwrap_or_else(|| {
            self.placeholder("start_time");
            0
        });
        let end = self.last_ms.unwrap_or(start).max(start);
        let digest = self.input.meta_digest().unwrap_or_else(|| sha256(start.to_string().as_bytes()));
        let id = match self.options.native_id.as_deref() {
            Some(id) if layout::is_session_id(id) => id.to_ascii_lowercase(),
            Some(id) => {
                return Err(CodecError::Other(format!(
                    "write-options.native-id {id:?} is not a Vibe session id (8-4-4-4-12 hex digits; \
                     `vibe --resume <id>` names one)"
                )));
            }
            None => ids::uuid_v4_layout(&digest),
        };
        let turn_digest = ids::sha256_of(&[&digest, id.as_bytes(), b"turn", &self.turn.to_le_bytes()]);
        let contents = Contents {
            id: id.clone(),
            cwd,
            items: std::mem::take(&mut self.items),
            turn_id: format!("turn-{}", &to_hex(&turn_digest)[..32]),
            last_answer: self.last_answer.clone(),
            first_prompt: self.first_prompt.clone(),
            start_ms: start,
            end_ms: end,
            model: self.model.clone(),
        };
        let store = Store::build(&contents);
        Ok(Written { native_id: id, chunks: store.files, diagnostics: self.diags.drain() })
    }
}
