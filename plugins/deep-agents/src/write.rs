//! Canonical records → this codec's export file ([`crate::export`]),
//! streamed: each LangChain message is written as soon as it is complete.
//!
//! | canonical | LangChain message |
//! |-----------|-------------------|
//! | `user` | `HumanMessage` (string content) |
//! | `reasoning`, `assistant`, `tool_call` | one `AIMessage` per assistant turn step: `thinking` / `redacted_thinking` blocks, a `text` block, `tool_calls` (arguments that are not an object: `invalid_tool_calls`), `usage_metadata`, `response_metadata.model_name` |
//! | `tool_result` | `ToolMessage` (`tool_call_id`, the call's `name`, `status`) |
//!
//! A new `AIMessage` starts at a reasoning or text that follows text or
//! tool calls, so every text stays one record when read back. Reasoning is
//! kept in the Anthropic block shapes (`thinking` with its `signature`,
//! `redacted_thinking` for opaque reasoning without text), which
//! langchain-openai leaves out of a Responses request and langchain-anthropic
//! sends as they are. Not carried (`not-carried`): `system` records
//! (dcode builds its own system prompt; a system message amid the history
//! is refused by some providers), observations, compaction summaries and
//! attachments. Every message gets a unique `id`: dcode's history replay
//! indexes messages by id.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value as Json, json};
use trajhost_codec_sdk::canonical::{Assistant, Body, Reasoning, Record, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::hash::{sha256, to_hex};
use trajhost_codec_sdk::time::parse_rfc3339;
use trajhost_codec_sdk::writer::CanonicalInput;
use trajhost_codec_sdk::{ArtifactChunk, CodecError, SessionWriter, Severity, WriteOptions, Written};

use crate::export::{self, message_line, thread_line};
use crate::time::rfc3339_utc;

pub const NOT_CARRIED: &str = "not-carried";
/// The deepagents-code version the writer's threads are tested with.
pub const TESTED_VERSION: &str = "0.1.57";
/// The agent dcode runs by default (`-a agent`), recorded per checkpoint.
pub const AGENT_NAME: &str = "agent";

pub const HUMAN: (&str, &str) = ("langchain_core.messages.human", "HumanMessage");
pub const AI: (&str, &str) = ("langchain_core.messages.ai", "AIMessage");
pub const TOOL: (&str, &str) = ("langchain_core.messages.tool", "ToolMessage");

#[derive(Default)]
struct Ai {
    id: String,
    text: Option<String>,
    reasoning: Vec<Reasoning>,
    calls: Vec<(String, String, Json)>,
    model: Option<String>,
    stop_reason: Option<String>,
    usage: Option<Usage>,
}

struct Started {
    thread_id: String,
    cwd: Option<String>,
    git_branch: Option<String>,
    source: (String, String),
}

pub struct Writer {
    options: WriteOptions,
    /// The canonical lines read.
    input: CanonicalInput,
    started: Option<Started>,
    ai: Option<Ai>,
    ids: BTreeSet<String>,
    names: BTreeMap<String, String>,
    first_ms: Option<i64>,
    last_ms: Option<i64>,
    dropped: BTreeMap<&'static str, u64>,
    diags: Diagnostics,
    out: Vec<u8>,
    finished: bool,
}

/// 16 bytes derived from `seed`: the sandbox has no randomness.
fn seeded(seed: &str) -> [u8; 16] {
    let h = sha256(seed.as_bytes());
    let mut b = [0u8; 16];
    b.copy_from_slice(&h[..16]);
    b
}

fn uuid_text(b: &[u8; 16]) -> String {
    let h = to_hex(b);
    format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
}

/// A UUIDv7 (dcode's thread ids) at `ms`, the rest from `seed`.
pub fn uuid7(ms: i64, seed: &str) -> String {
    let mut b = seeded(seed);
    b[..6].copy_from_slice(&(ms.max(0) as u64).to_be_bytes()[2..]);
    b[6] = (b[6] & 0x0f) | 0x70;
    b[8] = (b[8] & 0x3f) | 0x80;
    uuid_text(&b)
}

/// A UUIDv6 (LangGraph's checkpoint ids, time-ordered) at `ms`.
pub fn uuid6(ms: i64, seed: &str) -> String {
    let mut b = seeded(seed);
    let ticks = (ms.max(0) as u64) * 10_000 + 0x01B2_1DD2_1381_4000;
    let high = (ticks >> 28) as u32;
    let mid = ((ticks >> 12) & 0xffff) as u16;
    let low = (ticks & 0x0fff) as u16;
    b[0..4].copy_from_slice(&high.to_be_bytes());
    b[4..6].copy_from_slice(&mid.to_be_bytes());
    b[6..8].copy_from_slice(&(0x6000 | low).to_be_bytes());
    b[8] = (b[8] & 0x3f) | 0x80;
    uuid_text(&b)
}

/// Python's `isoformat()` of a UTC time, as dcode writes `updated_at`.
pub fn python_iso(ms: i64) -> String {
    let s = rfc3339_utc(ms);
    match s.strip_suffix('Z') {
        Some(head) => format!("{head}000+00:00"),
        None => s,
    }
}

impl Writer {
    pub fn new(options: WriteOptions) -> Writer {
        Writer {
            options,
            input: CanonicalInput::new(),
            started: None,
            ai: None,
            ids: BTreeSet::new(),
            names: BTreeMap::new(),
            first_ms: None,
            last_ms: None,
            dropped: BTreeMap::new(),
            diags: Diagnostics::new(),
            out: Vec::new(),
            finished: false,
        }
    }

    /// A message id not used before in this thread.
    fn unique(&mut self, wanted: &str, fallback: &str) -> String {
        let base = if wanted.is_empty() { fallback } else { wanted };
        let mut id = base.to_string();
        let mut n = 1;
        while !self.ids.insert(id.clone()) {
            n += 1;
            id = format!("{base}#{n}");
        }
        id
    }

    fn fallback_id(&self, kind: &str) -> String {
        let thread = self.started.as_ref().map(|s| s.thread_id.as_str()).unwrap_or("");
        uuid_text(&seeded(&format!("{thread}:{kind}:{}", self.ids.len())))
    }

    fn start(&mut self, record: &Record, meta: &trajhost_codec_sdk::canonical::Meta) {
        let started_ms =
            meta.started_at.as_deref().and_then(parse_rfc3339).or(record.ts.as_deref().and_then(parse_rfc3339));
        self.first_ms = started_ms;
        let source = format!("{}:{}", meta.harness, meta.native_id);
        let thread_id = self
            .options
            .native_id
            .clone()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| uuid7(started_ms.unwrap_or(0), &format!("deep-agents thread {source}")));
        let cwd = self.options.cwd.clone().filter(|c| !c.is_empty()).or_else(|| meta.cwd.clone());
        self.started = Some(Started {
            thread_id,
            cwd,
            git_branch: meta.git_branch.clone(),
            source: (meta.harness.clone(), meta.native_id.clone()),
        });
    }

    fn drop_kind(&mut self, kind: &'static str) {
        *self.dropped.entry(kind).or_insert(0) += 1;
    }

    /// The open AI message, or a new one.
    fn ai(&mut self, record: &Record, fresh: bool) -> &mut Ai {
        if fresh {
            self.flush_ai();
        }
        if self.ai.is_none() {
            let fallback = self.fallback_id("ai");
            let wanted = match &record.body {
                Body::Assistant(a) => a.message_id.clone().unwrap_or_else(|| record.id.clone()),
                _ => record.parent.clone().unwrap_or_else(|| record.id.clone()),
            };
            let id = self.unique(&wanted, &fallback);
            self.ai = Some(Ai { id, ..Ai::default() });
        }
        self.ai.as_mut().expect("just set")
    }

    fn flush_ai(&mut self) {
        let Some(ai) = self.ai.take() else { return };
        let mut content = Vec::new();
        for r in &ai.reasoning {
            match &r.text {
                Some(text) => {
                    let mut block = json!({"type": "thinking", "thinking": text});
                    if let Some(sig) = &r.opaque {
                        block["signature"] = Json::String(sig.clone());
                    }
                    content.push(block);
                }
                None => {
                    content.push(json!({"type": "redacted_thinking", "data": r.opaque.clone().unwrap_or_default()}))
                }
            }
        }
        let text = ai.text.clone().unwrap_or_default();
        let content = if content.is_empty() {
            Json::String(text)
        } else {
            if !text.is_empty() {
                content.push(json!({"type": "text", "text": text}));
            }
            Json::Array(content)
        };
        let mut tool_calls = Vec::new();
        let mut invalid = Vec::new();
        for (id, name, args) in &ai.calls {
            if args.is_object() {
                tool_calls.push(json!({"name": name, "args": args, "id": id, "type": "tool_call"}));
            } else {
                let args = match args {
                    Json::String(s) => s.clone(),
                    other => other.to_string(),
                };
                invalid.push(json!({"name": name, "args": args, "id": id, "error": null, "type": "invalid_tool_call"}));
            }
        }
        let mut response_metadata = Map::new();
        if let Some(m) = &ai.model {
            response_metadata.insert("model_name".into(), Json::String(m.clone()));
        }
        if let Some(s) = &ai.stop_reason {
            response_metadata.insert("finish_reason".into(), Json::String(s.clone()));
        }
        let fields = json!({
            "content": content,
            "additional_kwargs": {},
            "response_metadata": response_metadata,
            "type": "ai",
            "name": null,
            "id": ai.id,
            "tool_calls": tool_calls,
            "invalid_tool_calls": invalid,
            "usage_metadata": ai.usage.as_ref().map(usage_metadata),
        });
        self.out.extend_from_slice(&message_line(AI.0, AI.1, &fields));
    }

    fn record(&mut self, record: Record) -> Result<(), CodecError> {
        if let Some(ms) = record.ts.as_deref().and_then(parse_rfc3339) {
            self.first_ms = Some(self.first_ms.map_or(ms, |f| f.min(ms)));
            self.last_ms = Some(self.last_ms.map_or(ms, |l| l.max(ms)));
        }
        if self.started.is_none() {
            return match &record.body {
                Body::Meta(meta) => {
                    let meta = meta.clone();
                    self.start(&record, &meta);
                    Ok(())
                }
                _ => Err(CodecError::Malformed("the first record is not meta".into())),
            };
        }
        match &record.body {
            Body::Meta(_) => self.drop_kind("meta (a second one)"),
            Body::User { text, attachments } => {
                self.flush_ai();
                if !attachments.is_empty() {
                    self.drop_kind("attachments");
                }
                let fallback = self.fallback_id("human");
                let id = self.unique(&record.id, &fallback);
                let fields = json!({
                    "content": text, "additional_kwargs": {}, "response_metadata": {},
                    "type": "human", "name": null, "id": id,
                });
                self.out.extend_from_slice(&message_line(HUMAN.0, HUMAN.1, &fields));
            }
            Body::Reasoning(r) => {
                let fresh = self.ai.as_ref().is_some_and(|a| a.text.is_some() || !a.calls.is_empty());
                let r = r.clone();
                self.ai(&record, fresh).reasoning.push(r);
            }
            Body::Assistant(a) => {
                let fresh = self.ai.as_ref().is_some_and(|x| x.text.is_some() || !x.calls.is_empty());
                let Assistant { text, model, stop_reason, usage, .. } = a.clone();
                let ai = self.ai(&record, fresh);
                ai.text = Some(text);
                ai.model = model.or(ai.model.take());
                ai.stop_reason = stop_reason.or(ai.stop_reason.take());
                ai.usage = usage.or(ai.usage.take());
            }
            Body::ToolCall { call_id, name, arguments } => {
                self.names.insert(call_id.clone(), name.clone());
                let call = (call_id.clone(), name.clone(), arguments.clone());
                self.ai(&record, false).calls.push(call);
            }
            Body::ToolResult { call_id, content, ok } => {
                self.flush_ai();
                let fallback = self.fallback_id("tool");
                let id = self.unique(&record.id, &fallback);
                let fields = json!({
                    "content": content, "additional_kwargs": {}, "response_metadata": {},
                    "type": "tool", "name": self.names.get(call_id), "id": id,
                    "tool_call_id": call_id, "artifact": null,
                    "status": if *ok == Some(false) { "error" } else { "success" },
                });
                self.out.extend_from_slice(&message_line(TOOL.0, TOOL.1, &fields));
            }
            Body::System { .. } => self.drop_kind("system"),
            Body::Observation { .. } => self.drop_kind("observation"),
            Body::Compaction { .. } => self.drop_kind("compaction"),
        }
        Ok(())
    }

    /// The checkpoint metadata dcode filters and lists threads by.
    fn metadata(&self, started: &Started, updated_ms: i64, created_ms: i64) -> Json {
        let mut m = json!({
            "source": "update",
            "step": 0,
            "parents": {},
            "thread_id": started.thread_id,
            "agent_name": AGENT_NAME,
            "dcode_agent_name": AGENT_NAME,
            "lc_agent_name": AGENT_NAME,
            "updated_at": python_iso(updated_ms),
            "created_at": python_iso(created_ms),
            "lc_versions": {"deepagents-code": TESTED_VERSION},
            "ls_integration": "deepagents-code",
            "ls_integration_version": TESTED_VERSION,
            "trajhost_source": {"harness": started.source.0, "native_id": started.source.1},
        });
        if let Some(cwd) = &started.cwd {
            m["cwd"] = Json::String(cwd.clone());
        }
        if let Some(b) = &started.git_branch {
            m["git_branch"] = Json::String(b.clone());
        }
        m
    }
}

/// Canonical usage as LangChain's `usage_metadata` (whose `input_tokens`
/// include cache reads and writes).
fn usage_metadata(u: &Usage) -> Json {
    let input = u.input.unwrap_or(0) + u.cache_read.unwrap_or(0) + u.cache_write.unwrap_or(0);
    let output = u.output.unwrap_or(0);
    let mut details = Map::new();
    if let Some(r) = u.cache_read {
        details.insert("cache_read".into(), json!(r));
    }
    if let Some(w) = u.cache_write {
        details.insert("cache_creation".into(), json!(w));
    }
    let mut m = json!({"input_tokens": input, "output_tokens": output, "total_tokens": input + output});
    if !details.is_empty() {
        m["input_token_details"] = Json::Object(details);
    }
    if let Some(r) = u.reasoning {
        m["output_token_details"] = json!({"reasoning": r});
    }
    m
}

impl SessionWriter for Writer {
    fn push(&mut self, records: &str) -> Result<Vec<ArtifactChunk>, CodecError> {
        if self.finished {
            return Err(CodecError::Other("push after finish".into()));
        }
        for line in records.lines() {
            let Some(record) = self.input.strict_record(line)? else { continue };
            self.record(record)?;
        }
        Ok(self.take())
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        if self.finished {
            return Err(CodecError::Other("finish called twice".into()));
        }
        self.finished = true;
        if self.started.is_none() {
            return Err(CodecError::Malformed("no meta record".into()));
        }
        self.flush_ai();
        let started = self.started.as_ref().expect("checked above");
        let created = self.first_ms.unwrap_or(0);
        let updated = self.last_ms.unwrap_or(created).max(created);
        let checkpoint_id = uuid6(updated, &format!("deep-agents checkpoint {}", started.thread_id));
        let metadata = self.metadata(started, updated, created);
        let thread_id = started.thread_id.clone();
        self.out.extend_from_slice(&thread_line(&thread_id, &checkpoint_id, &metadata));
        for (kind, n) in std::mem::take(&mut self.dropped) {
            self.diags.add(
                NOT_CARRIED,
                Severity::Warning,
                &format!("{kind}: {n} record(s); a LangGraph thread of dcode has no place for them"),
                None,
                None,
            );
        }
        Ok(Written { native_id: thread_id, chunks: self.take(), diagnostics: self.diags.drain() })
    }
}

impl Writer {
    fn take(&mut self) -> Vec<ArtifactChunk> {
        if self.out.is_empty() {
            return Vec::new();
        }
        vec![ArtifactChunk { path: export::FILE.into(), bytes: std::mem::take(&mut self.out) }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::uuid6_ms;

    #[test]
    fn ids_carry_their_time() {
        let ms = 1_796_011_554_384;
        assert_eq!(uuid6_ms(&uuid6(ms, "x")), Some(ms));
        let v7 = uuid7(ms, "x");
        assert_eq!(&v7[14..15], "7");
        assert_eq!(i64::from_str_radix(&v7[..13].replace('-', ""), 16).unwrap(), ms);
        assert_eq!(python_iso(0), "1970-01-01T00:00:00.000000+00:00");
    }
}
