//! `updates.jsonl`, the ACP `session/update` journal the UI replays.
//!
//! The conversation is read from `chat_history.jsonl` (the model context);
//! the journal repeats its content as streamed chunks, so only what the
//! context lacks is taken from it: when each prompt, answer, tool call and
//! tool result happened, how a tool call ended, and each turn's token usage.
//! [`UpdatesIndex::build`] reads the journal once, before the context, and
//! keeps those facts keyed by prompt index and tool call id; memory is
//! bounded by [`MAX_ENTRIES`] small entries (no content is kept).

use std::collections::{BTreeMap, VecDeque};

use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::Usage;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::BadLine;
use trajhost_codec_sdk::jsonl::{next_side_line, open_side};
use trajhost_codec_sdk::known::report_unmapped;

use crate::records::{Handling, update_handling};
use trajhost_codec_sdk::json::{count_of, str_of};
use trajhost_codec_sdk::text::type_name;

pub const MAX_ENTRIES: usize = 200_000;

/// How a tool call ran, as the journal recorded it.
#[derive(Debug, Clone, Default)]
pub struct CallFacts {
    pub call_ts: Option<String>,
    pub result_ts: Option<String>,
    /// `Some` once a final `tool_call_update` said `completed` or `failed`.
    pub ok: Option<bool>,
}

/// One turn's `turn_completed`.
#[derive(Debug, Clone)]
pub struct TurnUsage {
    pub usage: Option<Usage>,
    /// `usage.modelCalls`: usage can go on an answer only when it is 1.
    pub model_calls: Option<u64>,
    pub stop_reason: Option<String>,
    /// The usage object as recorded, for a `turn-usage` observation.
    pub raw: String,
    pub ts: Option<String>,
    /// Where the `turn_completed` line is in the journal.
    pub offset: u64,
    pub len: u64,
}

#[derive(Debug, Default)]
pub struct PromptFacts {
    pub ts: Option<String>,
    /// Start times of the runs of `agent_message_chunk`s, in order.
    pub segments: VecDeque<String>,
    pub turn: Option<TurnUsage>,
}

#[derive(Debug, Default)]
pub struct UpdatesIndex {
    prompts: BTreeMap<u64, PromptFacts>,
    calls: BTreeMap<String, CallFacts>,
    pub first_ts: Option<String>,
    entries: usize,
}

impl UpdatesIndex {
    /// Reads `path`; a missing journal is an empty index.
    pub fn build(home: &Dir, path: &str, diags: &mut Diagnostics) -> UpdatesIndex {
        let mut index = UpdatesIndex::default();
        let Some(mut lines) = open_side(home, path, diags) else { return index };
        let mut prompt: Option<u64> = None;
        let mut in_answer = false;
        while let Some(line) = next_side_line(&mut lines, path, diags) {
            let Ok(value) = serde_json::from_slice::<Value>(line.bytes) else {
                let bad = BadLine::of(&line);
                diags.add(bad.code(), Severity::Warning, "updates line", Some(path), Some(line.offset));
                continue;
            };
            let params = value.get("params").unwrap_or(&Value::Null);
            let update = params.get("update").unwrap_or(&Value::Null);
            let ts = trajhost_grok_build_core::updates::line_time(&value);
            if index.first_ts.is_none() {
                index.first_ts = ts.clone();
            }
            let kind = str_of(update, "sessionUpdate");
            let answer_chunk = kind == Some("agent_message_chunk");
            match kind {
                Some("user_message_chunk") => {
                    if let Some(p) = update.get("_meta").and_then(|m| m.get("promptIndex")).and_then(Value::as_u64) {
                        prompt = Some(p);
                        if index.room(path, diags) {
                            let facts = index.prompts.entry(p).or_default();
                            facts.ts = facts.ts.take().or(ts);
                        }
                    }
                }
                Some("agent_message_chunk") => {
                    if !in_answer
                        && let (Some(p), Some(ts)) = (prompt, ts)
                        && index.room(path, diags)
                    {
                        index.prompts.entry(p).or_default().segments.push_back(ts);
                    }
                }
                Some("tool_call") => {
                    if let Some(id) = str_of(update, "toolCallId") {
                        if !index.calls.contains_key(id) && !index.room(path, diags) {
                            continue;
                        }
                        let facts = index.calls.entry(id.to_string()).or_default();
                        facts.call_ts = facts.call_ts.take().or(ts);
                    }
                }
                Some("tool_call_update") => {
                    let status = str_of(update, "status");
                    if let (Some(id), Some(status @ ("completed" | "failed"))) = (str_of(update, "toolCallId"), status)
                    {
                        if !index.calls.contains_key(id) && !index.room(path, diags) {
                            continue;
                        }
                        let exit_code =
                            update.get("rawOutput").and_then(|o| o.get("exit_code")).and_then(Value::as_i64);
                        let facts = index.calls.entry(id.to_string()).or_default();
                        facts.ok = Some(status == "completed" && exit_code.is_none_or(|c| c == 0));
                        facts.result_ts = ts;
                    }
                }
                Some("turn_completed") => {
                    if let Some(p) = prompt {
                        let raw = update.get("usage").cloned().unwrap_or(Value::Null);
                        let turn = TurnUsage {
                            usage: usage(&raw),
                            model_calls: count_of(&raw, "modelCalls"),
                            stop_reason: str_of(update, "stop_reason").map(str::to_string),
                            raw: raw.to_string(),
                            ts,
                            offset: line.offset,
                            len: line.len,
                        };
                        if index.room(path, diags) {
                            index.prompts.entry(p).or_default().turn = Some(turn);
                        }
                    }
                }
                other => match other.and_then(update_handling) {
                    Some(Handling::Mapped(_)) => {}
                    handling => {
                        report_unmapped(diags, handling, &format!("updates:{}", type_name(other)), path, line.offset)
                    }
                },
            }
            in_answer = answer_chunk;
        }
        index
    }

    fn room(&mut self, path: &str, diags: &mut Diagnostics) -> bool {
        if self.entries >= MAX_ENTRIES {
            diags.add("updates-index-full", Severity::Warning, "entries", Some(path), None);
            return false;
        }
        self.entries += 1;
        true
    }

    /// The time prompt `p` was sent.
    pub fn prompt_ts(&self, p: u64) -> Option<String> {
        self.prompts.get(&p).and_then(|f| f.ts.clone())
    }

    /// The start of the next answer text of prompt `p`.
    pub fn take_segment(&mut self, p: u64) -> Option<String> {
        self.prompts.get_mut(&p)?.segments.pop_front()
    }

    /// Prompt `p`'s `turn_completed`, once.
    pub fn take_turn(&mut self, p: u64) -> Option<TurnUsage> {
        self.prompts.get_mut(&p)?.turn.take()
    }

    pub fn call(&self, id: &str) -> Option<&CallFacts> {
        self.calls.get(id)
    }
}

/// `turn_completed.usage` in canonical form: `inputTokens` counts cached
/// reads too, so `input` is what remains after them.
fn usage(u: &Value) -> Option<Usage> {
    let total_in = count_of(u, "inputTokens");
    let cache_read = count_of(u, "cachedReadTokens");
    let cache_write = count_of(u, "cacheCreationTokens");
    let usage = Usage {
        input: total_in.map(|t| t.saturating_sub(cache_read.unwrap_or(0)).saturating_sub(cache_write.unwrap_or(0))),
        output: count_of(u, "outputTokens"),
        cache_read,
        cache_write,
        reasoning: count_of(u, "reasoningTokens"),
        // USD ticks: 1e10 per USD.
        cost_usd: u.get("costUsdTicks").and_then(Value::as_i64).map(|t| t as f64 / 1e10),
    };
    (usage.input.is_some() || usage.output.is_some()).then_some(usage)
}
