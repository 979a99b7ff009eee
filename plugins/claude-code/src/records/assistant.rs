//! `assistant` lines: model responses.
//!
//! Claude Code writes one API response as several lines, one content block
//! per line, all sharing `message.id` (and repeating `usage`). Consecutive
//! lines of one response become ONE `assistant` record (the text blocks
//! joined, usage taken once, from the last line) plus a `reasoning` record
//! per `thinking`/`redacted_thinking` block and a `tool_call` per `tool_use`
//! block, in block order. The assistant record goes right after the leading
//! reasoning, before the first text or tool block, so a reader sees
//! thinking → text → calls.
//!
//! Memory stays bounded: a group is one API response, and a group that
//! grows past [`MAX_GROUP_PARTS`] records or [`MAX_GROUP_BYTES`] is emitted
//! and continued under a suffixed id.
//!
//! The assistant record's `parent` is the `model-request` observation of
//! the `api-request` line its `requestRef` names (Claude Code 2.1.33x),
//! when that line was read: the response answers the request. Otherwise it
//! is the line's `parentUuid`, resolved.

use std::collections::VecDeque;

use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Body, Reasoning, Record, Usage};

use super::user::content_text;
use super::{Hold, Out, Span, Transcript, type_name};
use crate::native::{self, Content, Entry};

/// Records buffered in one response before it is emitted early.
const MAX_GROUP_PARTS: usize = 1024;
/// Bytes of text and arguments buffered in one response before it is
/// emitted early.
const MAX_GROUP_BYTES: usize = 8 << 20;
/// Message ids of recent responses remembered, to tell a response that
/// resumes after other lines (its usage was already counted).
const RECENT_KEPT: usize = 64;

/// Per-file state of the assistant family.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct State {
    group: Option<Group>,
    /// Message ids of emitted responses, with how many records each became.
    recent: VecDeque<(String, u32)>,
}

impl State {
    /// Whether `entry` is the next line of the buffered response.
    pub fn continues(&self, entry: &Entry<'_>) -> bool {
        let Some(group) = &self.group else {
            return false;
        };
        let id = entry.message.0.as_ref().and_then(|m| m.id.get());
        group.message_id.is_some() && group.message_id.as_deref() == id && !entry.is_api_error_message.is_true()
    }

    /// The buffered response, to emit.
    pub fn take(&mut self) -> Option<Group> {
        self.group.take()
    }

    /// Takes `record` into the response being assembled, after what it
    /// holds so far: the record of a bookkeeping line read while the
    /// response is open (see `keeps_response_open`). Gives it back when no
    /// response is open.
    pub fn trail(&mut self, record: Record) -> Option<Record> {
        match self.group.as_mut() {
            Some(group) => {
                group.bytes += super::record_bytes(&record);
                group.parts.push(record);
                None
            }
            None => Some(record),
        }
    }

    /// The open response, when its record id is `id` and its usage counts.
    pub fn open_usage(&mut self, id: &str) -> Option<&mut Option<Usage>> {
        self.group.as_mut().filter(|g| g.id == id && g.counts_usage).map(|g| &mut g.usage)
    }

    /// The record id, model and usage of the open response whose usage counts.
    pub fn open_response(&self) -> Option<(String, Option<String>, Option<Usage>)> {
        self.group.as_ref().filter(|g| g.counts_usage).map(|g| (g.id.clone(), g.model.clone(), g.usage.clone()))
    }

    /// Records made from `message_id` so far.
    fn seen(&self, message_id: &str) -> u32 {
        self.recent.iter().find(|(id, _)| id == message_id).map_or(0, |(_, n)| *n)
    }

    fn remember(&mut self, message_id: &str) {
        if let Some(entry) = self.recent.iter_mut().find(|(id, _)| id == message_id) {
            entry.1 += 1;
            return;
        }
        self.recent.push_back((message_id.to_string(), 1));
        if self.recent.len() > RECENT_KEPT {
            self.recent.pop_front();
        }
    }
}

/// One API response being assembled.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Group {
    message_id: Option<String>,
    id: String,
    parent: Option<String>,
    ts: Option<String>,
    span: Span,
    text: String,
    model: Option<String>,
    stop_reason: Option<String>,
    usage: Option<Usage>,
    /// False for a response resumed after other lines: its usage was counted.
    counts_usage: bool,
    /// Reasoning and tool records in block order.
    parts: Vec<Record>,
    /// Index in `parts` before which the assistant record goes.
    assistant_at: Option<usize>,
    bytes: usize,
}

pub fn map(t: &mut Transcript, entry: &Entry<'_>, span: Span, out: &mut Out<'_>) {
    let ts = t.ts(entry);
    let Some(message) = &entry.message.0 else {
        out.diags.add("missing-field", Severity::Warning, "assistant.message", Some(&t.file), Some(span.offset));
        if let Some(uuid) = entry.uuid.get() {
            let parent = t.links.resolve(entry.parent_uuid.get());
            t.links.alias(uuid, parent);
        }
        return;
    };

    if entry.is_api_error_message.is_true() {
        // A synthetic turn the harness wrote for a failed request: the model
        // never said it.
        let text = match &message.content {
            Content::Blocks(blocks) => blocks.iter().filter_map(|b| b.text.get()).collect::<Vec<_>>().join("\n"),
            other => content_text(other),
        };
        let parent = t.links.resolve(entry.parent_uuid.get());
        let id = t.line_id(entry, span, 0);
        let body = Body::Observation { subtype: "api-error-message".into(), text: Some(text) };
        let record = t.record(id, body, parent, ts, span);
        t.emit(out, record);
        return;
    }

    let message_id = message.id.get().filter(|id| !id.is_empty());
    let too_big =
        t.assistant.group.as_ref().is_some_and(|g| g.parts.len() >= MAX_GROUP_PARTS || g.bytes >= MAX_GROUP_BYTES);
    if too_big {
        out.diags.add("assistant-message-split", Severity::Info, "size", Some(&t.file), Some(span.offset));
        t.flush_assistant(out);
    }
    if t.assistant.group.is_none() {
        let seen = message_id.map_or(0, |id| t.assistant.seen(id));
        let id = match message_id {
            Some(mid) if seen == 0 => mid.to_string(),
            Some(mid) => {
                // The response resumed after other lines.
                if !too_big {
                    out.diags.add(
                        "assistant-message-split",
                        Severity::Info,
                        "interleaved",
                        Some(&t.file),
                        Some(span.offset),
                    );
                }
                format!("{mid}#{}", seen + 1)
            }
            None => format!("{}#assistant", t.line_id(entry, span, 0)),
        };
        let parent = match entry.request_ref.non_empty() {
            Some(request) if t.requests.knows(request) => Some(request.to_string()),
            _ => t.links.resolve(entry.parent_uuid.get()),
        };
        t.assistant.group = Some(Group {
            message_id: message_id.map(str::to_string),
            id,
            parent,
            ts: ts.clone(),
            span,
            text: String::new(),
            model: None,
            stop_reason: None,
            usage: None,
            counts_usage: seen == 0,
            parts: Vec::new(),
            assistant_at: None,
            bytes: 0,
        });
    }

    // Fields of the line, then its blocks.
    let group_id = {
        let Some(group) = t.assistant.group.as_mut() else {
            return;
        };
        group.span.len = span.offset + span.len - group.span.offset;
        if group.model.is_none() {
            // `<synthetic>` marks a response no model served.
            group.model = message.model.owned().filter(|m| m != crate::write::SYNTHETIC_MODEL);
        }
        if let Some(reason) = message.stop_reason.owned() {
            group.stop_reason = Some(reason);
        }
        if let Some(usage) = message.usage.0.as_ref().and_then(usage) {
            // Repeated on every line of a response; the last line's is final.
            group.usage = Some(usage);
        }
        group.id.clone()
    };
    if let Some(uuid) = entry.uuid.get() {
        t.links.alias(uuid, Some(group_id.clone()));
    }

    let blocks = match &message.content {
        Content::Blocks(blocks) => blocks.as_slice(),
        Content::Text(s) => {
            push_text(t, s);
            &[]
        }
        Content::None => &[],
    };
    let several = blocks.len() > 1;
    for (index, block) in blocks.iter().enumerate() {
        let id = || {
            if several { t.line_id(entry, span, index) } else { t.line_id(entry, span, 0) }
        };
        let kind = block.kind.get().unwrap_or("");
        let body = match kind {
            "text" => {
                push_text(t, block.text.get().unwrap_or(""));
                continue;
            }
            "thinking" => Body::Reasoning(Reasoning {
                text: block.thinking.owned(),
                opaque: block.signature.owned().filter(|s| !s.is_empty()),
                encrypted: false,
            }),
            "redacted_thinking" => {
                Body::Reasoning(Reasoning { text: None, opaque: block.data.owned(), encrypted: true })
            }
            "tool_use" | "server_tool_use" | "mcp_tool_use" => Body::ToolCall {
                call_id: block.id.owned().unwrap_or_else(id),
                name: block.name.owned().unwrap_or_default(),
                arguments: arguments(block.input),
            },
            // Results of server-side tools come back inside the response.
            k if k.ends_with("_tool_result") => Body::ToolResult {
                call_id: block.tool_use_id.owned().unwrap_or_default(),
                content: content_text(&block.content),
                ok: block.is_error.0.map(|e| !e),
            },
            other => {
                out.diags.add(
                    "unknown-content-block",
                    Severity::Warning,
                    &format!("assistant/{}", type_name(Some(other))),
                    Some(&t.file),
                    Some(span.offset),
                );
                continue;
            }
        };
        let id = match &body {
            Body::ToolCall { call_id, .. } => call_id.clone(),
            _ => id(),
        };
        let is_reasoning = matches!(body, Body::Reasoning(_));
        let record = t.record(id, body, Some(group_id.clone()), ts.clone(), span);
        let Some(group) = t.assistant.group.as_mut() else {
            return;
        };
        if !is_reasoning && group.assistant_at.is_none() {
            group.assistant_at = Some(group.parts.len());
        }
        group.bytes += block_bytes(block) + record.id.len();
        group.parts.push(record);
    }
}

fn push_text(t: &mut Transcript, text: &str) {
    let Some(group) = t.assistant.group.as_mut() else {
        return;
    };
    if group.assistant_at.is_none() {
        group.assistant_at = Some(group.parts.len());
    }
    group.text.push_str(text);
    group.bytes += text.len();
}

/// Emits a response: the assistant record, its reasoning and tool records.
/// The assistant record is held (a `cost-state` may still price it).
pub fn emit(t: &mut Transcript, group: Group, out: &mut Out<'_>) {
    if let Some(mid) = &group.message_id {
        t.assistant.remember(mid);
    }
    if group.counts_usage {
        t.costs.response(&group.id, group.model.as_deref(), group.usage.as_ref());
    }
    let assistant = Assistant {
        text: group.text,
        model: group.model,
        message_id: group.message_id,
        stop_reason: group.stop_reason,
        usage: if group.counts_usage { group.usage } else { None },
    };
    let record = t.record(group.id, Body::Assistant(assistant), group.parent, group.ts, group.span);
    let at = group.assistant_at.unwrap_or(group.parts.len());
    let mut record = Some(record);
    for (index, part) in group.parts.into_iter().enumerate() {
        if index == at
            && let Some(r) = record.take()
        {
            t.hold(out, r, Hold::Answer);
        }
        t.emit(out, part);
    }
    if let Some(r) = record {
        t.hold(out, r, Hold::Answer);
    }
}

/// `message.usage` in canonical form. Anthropic's `input_tokens` already
/// excludes cache reads and writes. `None` when no count is recorded, or
/// every count is zero: no model call costs nothing, and zeros are what
/// Claude Code (and trajhost's writer) put where no usage was recorded.
fn usage(u: &native::Usage) -> Option<Usage> {
    let usage = Usage {
        input: u.input_tokens.0,
        output: u.output_tokens.0,
        cache_read: u.cache_read_input_tokens.0,
        cache_write: u.cache_creation_input_tokens.0,
        reasoning: None,
        cost_usd: None,
    };
    let any = [usage.input, usage.output, usage.cache_read, usage.cache_write].iter().any(|n| n.is_some_and(|n| n > 0));
    any.then_some(usage)
}

/// `tool_use.input` as the call's arguments (an object, as recorded).
fn arguments(input: Option<&serde_json::value::RawValue>) -> serde_json::Value {
    input.and_then(|raw| serde_json::from_str(raw.get()).ok()).unwrap_or(serde_json::Value::Null)
}

/// Roughly what a buffered block's record holds.
fn block_bytes(block: &native::Block<'_>) -> usize {
    let len = |t: &native::Text<'_>| t.get().map_or(0, str::len);
    len(&block.text)
        + len(&block.thinking)
        + len(&block.signature)
        + len(&block.data)
        + block.input.map_or(0, |r| r.get().len())
        + 64
}
