//! `read`: one trajectory as canonical records.
//!
//! The document is one JSON value, so it is parsed whole (mini writes it
//! whole at the end of a run); the records are then handed out in batches.
//! Order: `meta`, then each message's records in the document's order.
//!
//! mini's messages carry no ids: a record's id is its message's byte
//! location (`records::location_id`, the index telling the records of one
//! message apart), stable across re-reads of the same bytes. Tool calls keep
//! the call ids the model gave (`tool_calls[].id`), which the `tool`
//! messages answer by `tool_call_id`.

use std::collections::BTreeMap;

use serde_json::Value;
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Record, SourceSpan, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::json::str_of;
use trajhost_codec_sdk::records::{self, WholeSessionReader, location_id};
use trajhost_codec_sdk::text::type_name;
use trajhost_codec_sdk::{CodecError, ReadOptions, Severity};

use crate::document::{self, Document, content_text, timestamp_of};
use crate::{CODEC, HARNESS, handling};

/// A session being read: its records, made at once, handed out in batches.
pub type Reader = WholeSessionReader;

/// Reads the session at `locator` whole.
pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
    document::check_locator(locator)?;
    let bytes = document::load(&home, locator)?;
    let doc = Document::parse(&bytes)
        .map_err(|why| CodecError::Malformed(format!("{locator}: not a mini-swe-agent trajectory: {why}")))?;
    let native_id = doc.native_id();
    let started_at = doc.started_at();
    let meta = Meta {
        native_version: doc.native_version(),
        cwd: doc.cwd(),
        title: doc.title(),
        started_at,
        ..records::meta(HARNESS, CODEC, &native_id)
    };
    let meta = records::meta_record(meta, Some(SourceSpan { file: locator.to_string(), offset: 0, len: 0 }));
    let mut mapper = Mapper::new(locator, doc.configured_model());
    for (raw, offset, len) in doc.messages(&bytes) {
        mapper.message(raw.get(), offset, len);
    }
    Ok(WholeSessionReader::new(std::iter::once(meta).chain(mapper.records), mapper.diags, options))
}

/// Messages → records.
pub struct Mapper {
    file: String,
    configured_model: Option<String>,
    /// Call id → the record id of its tool call.
    calls: BTreeMap<String, String>,
    /// The time of the last message that had one (for messages without).
    last_ts: Option<String>,
    pub diags: Diagnostics,
    pub records: Vec<Record>,
}

impl Mapper {
    pub fn new(file: &str, configured_model: Option<String>) -> Mapper {
        Mapper {
            file: file.to_string(),
            configured_model,
            calls: BTreeMap::new(),
            last_ts: None,
            diags: Diagnostics::new(),
            records: Vec::new(),
        }
    }

    fn push(&mut self, offset: u64, len: u64, index: usize, body: Body, parent: Option<String>) -> String {
        let id = location_id(&self.file, offset, index);
        self.records.push(Record {
            id: id.clone(),
            body,
            parent,
            ts: self.last_ts.clone(),
            agent: None,
            src: Some(SourceSpan { file: self.file.clone(), offset, len }),
        });
        id
    }

    /// One raw message at `offset` (`len` bytes).
    pub fn message(&mut self, raw: &str, offset: u64, len: u64) {
        let message: Value = match serde_json::from_str(raw) {
            Ok(m @ Value::Object(_)) => m,
            _ => {
                self.diags.add("malformed-message", Severity::Error, "messages[]", Some(&self.file), Some(offset));
                return;
            }
        };
        if let Some(ts) = timestamp_of(&message) {
            self.last_ts = Some(ts);
        }
        let role = str_of(&message, "role").unwrap_or("");
        let text = content_text(message.get("content").unwrap_or(&Value::Null));
        match role {
            "system" => {
                self.push(offset, len, 0, Body::System { text }, None);
            }
            "user" => {
                self.push(offset, len, 0, Body::User { text, attachments: Vec::new() }, None);
            }
            "assistant" => self.assistant(&message, text, offset, len),
            "tool" => self.tool(&message, text, offset, len),
            "exit" => {
                let extra = message.get("extra").unwrap_or(&Value::Null);
                let status = str_of(extra, "exit_status").filter(|s| !s.is_empty());
                let subtype = format!("exit/{}", type_name(status));
                let submission = str_of(extra, "submission").filter(|s| !s.is_empty()).map(str::to_string);
                let text = submission.or_else(|| (!text.is_empty()).then_some(text));
                self.push(offset, len, 0, Body::Observation { subtype, text }, None);
            }
            other => {
                let detail = if other.is_empty() { "(no role)".to_string() } else { type_name(Some(other)) };
                let code = if handling(other).is_some() { "unmapped-record-type" } else { "unknown-record-type" };
                self.diags.add(code, Severity::Warning, &detail, Some(&self.file), Some(offset));
            }
        }
    }

    fn assistant(&mut self, message: &Value, text: String, offset: u64, len: u64) {
        let extra = message.get("extra").unwrap_or(&Value::Null);
        let response = extra.get("response").unwrap_or(&Value::Null);
        let model = str_of(response, "model").map(str::to_string).or_else(|| self.configured_model.clone());
        let stop_reason = response.pointer("/choices/0/finish_reason").and_then(Value::as_str).map(str::to_string);
        let usage = usage_of(response.get("usage"), extra.get("cost"));
        let body = Body::Assistant(Assistant {
            text,
            model,
            message_id: str_of(response, "id").map(str::to_string),
            stop_reason,
            usage,
        });
        let assistant_id = self.push(offset, len, 0, body, None);
        let calls = message.get("tool_calls").and_then(Value::as_array).cloned().unwrap_or_default();
        for (k, call) in calls.iter().enumerate() {
            let function = call.get("function").unwrap_or(&Value::Null);
            let name = str_of(function, "name").unwrap_or("").to_string();
            let arguments = match function.get("arguments") {
                Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone())),
                Some(other) => other.clone(),
                None => Value::Object(Default::default()),
            };
            let call_id = str_of(call, "id")
                .filter(|i| !i.is_empty())
                .map_or_else(|| location_id(&self.file, offset, k + 1), str::to_string);
            let body = Body::ToolCall { call_id: call_id.clone(), name, arguments };
            let id = self.push(offset, len, k + 1, body, Some(assistant_id.clone()));
            self.calls.insert(call_id, id);
        }
    }

    fn tool(&mut self, message: &Value, text: String, offset: u64, len: u64) {
        let extra = message.get("extra").unwrap_or(&Value::Null);
        let rendered: Option<Value> = serde_json::from_str(&text).ok();
        let content = rendered.as_ref().and_then(observation_text).unwrap_or(text);
        let returncode = extra
            .get("returncode")
            .and_then(Value::as_i64)
            .or_else(|| rendered.as_ref().and_then(|r| r.get("returncode")).and_then(Value::as_i64));
        let failed = extra.get("exception_info").is_some_and(|e| !e.is_null() && e.as_str() != Some(""));
        let ok = if failed { Some(false) } else { returncode.map(|c| c == 0) };
        let call_id = str_of(message, "tool_call_id").unwrap_or("").to_string();
        let parent = self.calls.get(&call_id).cloned();
        if parent.is_none() {
            self.diags.add("orphan-tool-result", Severity::Warning, "tool", Some(&self.file), Some(offset));
        }
        self.push(offset, len, 0, Body::ToolResult { call_id, content, ok }, parent);
    }
}

/// What the model was shown of a command, out of the observation template's
/// JSON (`{returncode, output, exception_info?}`, or for long output
/// `{returncode, output_head, output_tail, elided_chars, warning}`): the
/// output, the elision marked, the exception (the submit command's "action
/// was not executed") after it. `None` for another shape (a custom
/// template): the content is then taken as it is.
fn observation_text(rendered: &Value) -> Option<String> {
    let mut text = match (str_of(rendered, "output"), str_of(rendered, "output_head")) {
        (Some(output), _) => output.to_string(),
        (None, Some(head)) => {
            let elided = rendered.get("elided_chars").and_then(Value::as_u64).unwrap_or(0);
            let tail = str_of(rendered, "output_tail").unwrap_or("");
            format!("{head}\n[… {elided} characters elided …]\n{tail}")
        }
        (None, None) => return None,
    };
    if let Some(exception) = str_of(rendered, "exception_info").filter(|e| !e.is_empty()) {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(exception);
    }
    Some(text)
}

/// The usage of a chat completion (`prompt_tokens` counts cache reads,
/// which canonical `input` does not) and its cost; `None` when the response
/// recorded none.
fn usage_of(usage: Option<&Value>, cost: Option<&Value>) -> Option<Usage> {
    let usage = usage.filter(|u| u.is_object())?;
    let count = |p: &str| usage.pointer(p).and_then(Value::as_u64);
    let cache_read = count("/prompt_tokens_details/cached_tokens");
    Some(Usage {
        input: count("/prompt_tokens").map(|p| p.saturating_sub(cache_read.unwrap_or(0))),
        output: count("/completion_tokens"),
        cache_read,
        cache_write: count("/prompt_tokens_details/cache_creation_tokens"),
        reasoning: count("/completion_tokens_details/reasoning_tokens"),
        cost_usd: cost.and_then(Value::as_f64).filter(|c| *c > 0.0),
    })
}
