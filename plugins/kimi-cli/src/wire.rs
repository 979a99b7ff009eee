//! `wire.jsonl`, the event log beside the model context.
//!
//! The conversation itself is read from `context.jsonl` (what the model
//! saw); the wire adds what the context does not record: when each turn,
//! step and tool result happened, per-step token usage and provider message
//! ids, whether a tool failed, and which parent tool call started each
//! subagent. [`WireIndex::build`] reads the wire once, before the context, and
//! keeps only those facts, keyed so the context's records can claim them:
//!
//! - a user message by the hash of its text (the `TurnBegin`/`SteerInput`
//!   input), in order;
//! - an assistant message by its first tool call id, else the hash of its
//!   text (the step's `ContentPart` text), in order;
//! - a tool result by its tool call id.
//!
//! Memory is bounded by [`MAX_ENTRIES`] small entries (no content is kept).

use std::collections::{BTreeMap, VecDeque};

use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::Usage;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::jsonl::BadLine;
use trajhost_codec_sdk::jsonl::{next_side_line, open_side};
use trajhost_codec_sdk::known::report_unmapped;

use crate::records::{Handling, wire_handling};
use trajhost_codec_sdk::hash::Fnv;
use trajhost_codec_sdk::json::{count_of, str_of};
use trajhost_codec_sdk::text::type_name;

/// Entries kept in one index; later facts are dropped with a diagnostic.
pub const MAX_ENTRIES: usize = 200_000;

/// How a tool call ended, as the wire recorded it.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub is_error: Option<bool>,
    pub ts: Option<f64>,
}

/// One step (one model call) as the wire recorded it.
#[derive(Debug, Clone, Default)]
pub struct Step {
    /// The first content or tool call of the step, else its `StepBegin`.
    pub ts: Option<f64>,
    pub usage: Option<Usage>,
    pub message_id: Option<String>,
}

/// Which parent tool call started a subagent.
#[derive(Debug, Clone, Default)]
pub struct Binding {
    pub parent_call: Option<String>,
    pub subagent_type: Option<String>,
}

/// The facts of one wire file.
#[derive(Debug, Default)]
pub struct WireIndex {
    pub protocol_version: Option<String>,
    pub first_ts: Option<f64>,
    results: BTreeMap<String, Outcome>,
    steps: BTreeMap<String, VecDeque<Step>>,
    turns: BTreeMap<u64, VecDeque<f64>>,
    /// agent id → binding, from `SubagentEvent`s.
    pub subagents: BTreeMap<String, Binding>,
    entries: usize,
}

/// `ApprovalRequest`s and their answers (`ApprovalResponse`,
/// `ApprovalRequestResolved`), matched by id where the payload carries one
/// (`id` on the request; `request_id` or `id` on the answer), else counted.
#[derive(Default)]
struct Approvals {
    /// (id, byte offset) of requests not answered yet.
    open: Vec<(Option<String>, u64)>,
}

impl Approvals {
    fn request(&mut self, payload: &Value, offset: u64) {
        let id = str_of(payload, "id").or_else(|| str_of(payload, "request_id")).map(str::to_string);
        self.open.push((id, offset));
    }

    fn answer(&mut self, payload: &Value) {
        let id = str_of(payload, "request_id").or_else(|| str_of(payload, "id"));
        let matched = match id {
            Some(id) => self.open.iter().position(|(open, _)| open.as_deref() == Some(id)),
            None => None,
        };
        // An answer without a known id settles the oldest request.
        if let Some(i) = matched.or_else(|| (!self.open.is_empty() && id.is_none()).then_some(0)) {
            self.open.remove(i);
        }
    }

    /// The offset of the first request still open.
    fn pending(&self) -> Option<u64> {
        self.open.first().map(|(_, offset)| *offset)
    }
}

/// The key of an assistant message that made tool calls.
pub fn call_key(first_call_id: &str) -> String {
    format!("c:{first_call_id}")
}

/// The key of an assistant message without tool calls.
pub fn text_key(text_hash: u64) -> String {
    format!("t:{text_hash:016x}")
}

/// The text of a content value (a string or a list of parts), text parts
/// joined with `sep`.
pub fn text_of(content: &Value, sep: &str) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let texts: Vec<&str> =
                parts.iter().filter(|p| str_of(p, "type") == Some("text")).filter_map(|p| str_of(p, "text")).collect();
            texts.join(sep)
        }
        _ => String::new(),
    }
}

/// The hash a user input is matched by: all its text, unseparated.
pub fn input_hash(content: &Value) -> u64 {
    Fnv::of(text_of(content, "").as_bytes())
}

/// The step being assembled while scanning.
#[derive(Default)]
struct StepAcc {
    begin_ts: Option<f64>,
    first_ts: Option<f64>,
    text: Fnv,
    first_call: Option<String>,
    usage: Option<Usage>,
    message_id: Option<String>,
}

impl WireIndex {
    /// Reads `path` under `home`. A missing wire is an empty index (older
    /// sessions and fresh subagents may have none); other failures are
    /// diagnostics, never errors: the context is still readable.
    pub fn build(home: &Dir, path: &str, diags: &mut Diagnostics) -> WireIndex {
        let mut index = WireIndex::default();
        let Some(mut lines) = open_side(home, path, diags) else { return index };
        let mut step: Option<StepAcc> = None;
        let mut approvals = Approvals::default();
        while let Some(line) = next_side_line(&mut lines, path, diags) {
            let value: Value = match serde_json::from_slice(line.bytes) {
                Ok(v) => v,
                Err(_) => {
                    let bad = BadLine::of(&line);
                    diags.add(bad.code(), Severity::Warning, "wire line", Some(path), Some(line.offset));
                    continue;
                }
            };
            if str_of(&value, "type") == Some("metadata") {
                if index.protocol_version.is_none() {
                    index.protocol_version = match value.get("protocol_version") {
                        Some(Value::String(s)) => Some(s.clone()),
                        Some(Value::Number(n)) => Some(n.to_string()),
                        _ => None,
                    };
                }
                continue;
            }
            let ts = value.get("timestamp").and_then(Value::as_f64);
            if index.first_ts.is_none() {
                index.first_ts = ts;
            }
            let message = value.get("message").unwrap_or(&Value::Null);
            let kind = str_of(message, "type");
            let payload = message.get("payload").unwrap_or(&Value::Null);
            match kind {
                Some("TurnBegin" | "SteerInput") => {
                    index.finish(step.take(), path, diags);
                    if let (Some(input), Some(ts)) = (payload.get("user_input"), ts) {
                        let hash = input_hash(input);
                        if index.room(path, diags) {
                            index.turns.entry(hash).or_default().push_back(ts);
                        }
                    }
                }
                Some("StepBegin") => {
                    index.finish(step.take(), path, diags);
                    step = Some(StepAcc { begin_ts: ts, ..StepAcc::default() });
                }
                Some("TurnEnd" | "StepInterrupted") => index.finish(step.take(), path, diags),
                Some("ContentPart") => {
                    let acc = step.get_or_insert_with(StepAcc::default);
                    if str_of(payload, "type") == Some("text") {
                        acc.first_ts = acc.first_ts.or(ts);
                        acc.text.write(str_of(payload, "text").unwrap_or("").as_bytes());
                    } else if str_of(payload, "type") == Some("think") {
                        acc.first_ts = acc.first_ts.or(ts);
                    }
                }
                Some("ToolCall") => {
                    let acc = step.get_or_insert_with(StepAcc::default);
                    acc.first_ts = acc.first_ts.or(ts);
                    if acc.first_call.is_none() {
                        acc.first_call = str_of(payload, "id").map(str::to_string);
                    }
                }
                Some("ToolResult") => {
                    if let Some(id) = str_of(payload, "tool_call_id") {
                        let is_error =
                            payload.get("return_value").and_then(|r| r.get("is_error")).and_then(Value::as_bool);
                        if index.room(path, diags) {
                            index.results.insert(id.to_string(), Outcome { is_error, ts });
                        }
                    }
                }
                Some("StatusUpdate") => {
                    if let Some(acc) = step.as_mut() {
                        if let Some(u) = payload.get("token_usage").and_then(usage) {
                            acc.usage = Some(u);
                        }
                        if let Some(id) = str_of(payload, "message_id") {
                            acc.message_id = Some(id.to_string());
                        }
                    }
                }
                Some("ApprovalRequest") => approvals.request(payload, line.offset),
                Some("ApprovalResponse" | "ApprovalRequestResolved") => approvals.answer(payload),
                Some("SubagentEvent") => {
                    if let Some(agent) = str_of(payload, "agent_id") {
                        let parent =
                            str_of(payload, "parent_tool_call_id").or_else(|| str_of(payload, "task_tool_call_id"));
                        if !index.subagents.contains_key(agent) && index.room(path, diags) {
                            index.subagents.insert(
                                agent.to_string(),
                                Binding {
                                    parent_call: parent.map(str::to_string),
                                    subagent_type: str_of(payload, "subagent_type").map(str::to_string),
                                },
                            );
                        }
                    }
                }
                other => match other.and_then(wire_handling) {
                    // Mapped types are all handled above.
                    Some(Handling::Mapped(_)) => {}
                    handling => {
                        report_unmapped(diags, handling, &format!("wire:{}", type_name(other)), path, line.offset)
                    }
                },
            }
        }
        index.finish(step.take(), path, diags);
        if let Some(offset) = approvals.pending() {
            // Kimi waits for the person's decision on resume; no other
            // harness can take that decision over.
            diags.add(
                "pending-approval",
                Severity::Warning,
                "an approval request was never answered: the session waits for the user's decision",
                Some(path),
                Some(offset),
            );
        }
        index
    }

    fn room(&mut self, path: &str, diags: &mut Diagnostics) -> bool {
        if self.entries >= MAX_ENTRIES {
            diags.add("wire-index-full", Severity::Warning, "entries", Some(path), None);
            return false;
        }
        self.entries += 1;
        true
    }

    fn finish(&mut self, step: Option<StepAcc>, path: &str, diags: &mut Diagnostics) {
        let Some(acc) = step else { return };
        let key = match &acc.first_call {
            Some(id) => call_key(id),
            None => text_key(acc.text.finish()),
        };
        if self.room(path, diags) {
            self.steps.entry(key).or_default().push_back(Step {
                ts: acc.first_ts.or(acc.begin_ts),
                usage: acc.usage,
                message_id: acc.message_id,
            });
        }
    }

    /// The time of the next turn whose input hashes to `hash`.
    pub fn take_turn(&mut self, hash: u64) -> Option<f64> {
        let queue = self.turns.get_mut(&hash)?;
        let ts = queue.pop_front();
        if queue.is_empty() {
            self.turns.remove(&hash);
        }
        ts
    }

    /// The next step recorded under `key`.
    pub fn take_step(&mut self, key: &str) -> Option<Step> {
        let queue = self.steps.get_mut(key)?;
        let step = queue.pop_front();
        if queue.is_empty() {
            self.steps.remove(key);
        }
        step
    }

    /// Turns, steps and tool results no context record claimed.
    pub fn unclaimed(&self) -> (usize, usize, usize) {
        (self.turns.values().map(VecDeque::len).sum(), self.steps.values().map(VecDeque::len).sum(), self.results.len())
    }

    /// The outcome of tool call `id`.
    pub fn take_result(&mut self, id: &str) -> Option<Outcome> {
        self.results.remove(id)
    }
}

/// Kimi's `TokenUsage{input_other, output, input_cache_read, input_cache_creation}`
/// in canonical form (`input_other` already excludes cache reads and writes).
fn usage(u: &Value) -> Option<Usage> {
    let usage = Usage {
        input: count_of(u, "input_other"),
        output: count_of(u, "output"),
        cache_read: count_of(u, "input_cache_read"),
        cache_write: count_of(u, "input_cache_creation"),
        reasoning: None,
        cost_usd: None,
    };
    (usage.input.is_some() || usage.output.is_some() || usage.cache_read.is_some() || usage.cache_write.is_some())
        .then_some(usage)
}

/// What discovery needs from the head of a wire file.
#[derive(Debug, Default)]
pub struct WireHead {
    pub protocol_version: Option<String>,
    pub first_ts: Option<f64>,
    /// The first `TurnBegin` input, for a title.
    pub first_input: Option<String>,
    /// True when any message record was seen.
    pub has_records: bool,
}

/// Bytes read from the head of a wire file by discovery.
pub const HEAD_BYTES: u32 = 64 * 1024;

impl WireHead {
    pub fn scan(home: &Dir, path: &str) -> Result<WireHead, FsError> {
        let file = home.open(path)?;
        let bytes = file.read_at(0, HEAD_BYTES)?;
        let mut head = WireHead::default();
        for line in bytes.split(|b| *b == b'\n') {
            let Ok(value) = serde_json::from_slice::<Value>(line) else { continue };
            if str_of(&value, "type") == Some("metadata") {
                if head.protocol_version.is_none() {
                    head.protocol_version = str_of(&value, "protocol_version").map(str::to_string);
                }
                continue;
            }
            let Some(message) = value.get("message") else { continue };
            head.has_records = true;
            if head.first_ts.is_none() {
                head.first_ts = value.get("timestamp").and_then(Value::as_f64);
            }
            if head.first_input.is_none() && str_of(message, "type") == Some("TurnBegin") {
                let input = message.get("payload").and_then(|p| p.get("user_input")).map(|c| text_of(c, " "));
                head.first_input = input.filter(|t| !t.trim().is_empty());
            }
            if head.first_input.is_some() && head.first_ts.is_some() {
                break;
            }
        }
        Ok(head)
    }
}
