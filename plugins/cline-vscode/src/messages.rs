//! API messages (`api_conversation_history.json`, Anthropic `MessageParam`s)
//! → canonical records.
//!
//! | native                                             | canonical                                        |
//! |----------------------------------------------------|--------------------------------------------------|
//! | user `text` block: `<task>` / typed text           | `user` (`@` mention contents after `</task>`: `observation` `mentions`) |
//! | user `text` block: `[<tool> …] Result:` (+ blocks) | `tool_result` of the next unanswered call        |
//! | user `text` block: `Tool [..] was not executed …`  | `observation` `tool_skipped` (the call stays unanswered) |
//! | user `text` block: injected context                | `observation` (`environment_details`, `task_progress`, `task_resumption`, `harness_error`) |
//! | `<feedback>` / `<answer>` / `<user_message>` inside those | also a `user` record (what the person typed) |
//! | user `image` / `document` block                    | attachment of the message's `user` record        |
//! | user `tool_result` block                           | `tool_result` by `tool_use_id` (`is_error` → ok) |
//! | assistant `thinking` / `redacted_thinking`         | `reasoning`                                      |
//! | assistant `text` blocks                            | `assistant` (`modelInfo.modelId`, `metrics`); a trailing `[Response interrupted …]` is an `observation` `interrupted` |
//! | assistant `tool_use` block                         | `tool_call` (native id)                          |
//! | assistant XML tool use in text (older builds)      | `tool_call` (the text stays the assistant's)     |
//!
//! Cline answers a message's tool calls in the next user message, in call
//! order: a text result takes the oldest unanswered call of the previous
//! assistant message. A result's `ok` is `false` when Cline wrapped it as a
//! tool error, `is_error` when the block has it, else unknown.

use std::collections::VecDeque;

use serde_json::Value as Json;
use serde_json::value::RawValue;
use trajhost_cline_core::block::{self, Block};
use trajhost_cline_core::message::unknown_block;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
pub use trajhost_codec_sdk::known::Handling;
use trajhost_codec_sdk::text::type_name;

use crate::native::{ApiMessage, Metrics};
use crate::texts::{self, UserText};

/// Every message `role`.
pub const KNOWN_ROLES: &[(&str, Handling)] = &[
    ("user", Handling::Mapped("user, tool_result, observation")),
    ("assistant", Handling::Mapped("reasoning, assistant, observation interrupted, tool_call")),
];

/// Every content block `type`.
pub const KNOWN_BLOCKS: &[(&str, Handling)] = &[
    ("text", Handling::Mapped("user / tool_result / observation / assistant text (see the module table)")),
    ("image", Handling::Mapped("user attachment")),
    ("document", Handling::Mapped("user attachment")),
    ("tool_use", Handling::Mapped("tool_call")),
    ("tool_result", Handling::Mapped("tool_result")),
    ("thinking", Handling::Mapped("reasoning")),
    ("redacted_thinking", Handling::Mapped("reasoning (encrypted)")),
];

/// What carries over from one message to the next: the calls of the last
/// assistant message not answered yet.
#[derive(Debug, Default)]
pub struct Pairing {
    pending: VecDeque<String>,
}

/// A record body and whether it belongs under the message's first record.
pub type Made = Body;

pub struct Ctx<'a> {
    pub file: &'a str,
    pub offset: u64,
    /// The id base of the message's records (its byte location).
    pub base: &'a str,
    pub diags: &'a mut Diagnostics,
}

pub fn map(message: &ApiMessage<'_>, pairing: &mut Pairing, cx: &mut Ctx<'_>) -> Vec<Made> {
    let role = message.role.as_deref().unwrap_or("");
    let Some(blocks) = block::blocks(message.content) else {
        cx.diags.add("malformed-message", Severity::Warning, "content", Some(cx.file), Some(cx.offset));
        return Vec::new();
    };
    match role {
        "user" => user(&blocks, pairing, cx),
        "assistant" => assistant(message, &blocks, pairing, cx),
        other => {
            cx.diags.add(
                "unknown-record-type",
                Severity::Warning,
                &type_name(Some(other)),
                Some(cx.file),
                Some(cx.offset),
            );
            Vec::new()
        }
    }
}

/// A tool result whose content may go on in the following text blocks.
struct Open {
    call_id: String,
    content: String,
}

fn user(blocks: &[Block<'_>], pairing: &mut Pairing, cx: &mut Ctx<'_>) -> Vec<Made> {
    let mut out = Vec::new();
    let mut open: Option<Open> = None;
    let mut attachments = Vec::new();
    let next_call = |pairing: &mut Pairing, cx: &mut Ctx<'_>, n: usize| {
        pairing.pending.pop_front().unwrap_or_else(|| {
            cx.diags.add("result-without-call", Severity::Info, "tool result", Some(cx.file), Some(cx.offset));
            format!("{}#result{n}", cx.base)
        })
    };
    for (n, block) in blocks.iter().enumerate() {
        match block.kind.as_deref().unwrap_or("") {
            "text" => {
                let text = block.text.as_deref().unwrap_or("");
                match texts::classify(text) {
                    UserText::Typed(t) if open.is_some() => {
                        let o = open.as_mut().expect("checked");
                        o.content.push('\n');
                        o.content.push_str(t);
                    }
                    kind => {
                        close(&mut open, &mut out);
                        match kind {
                            UserText::Task(t, mentions) => {
                                out.push(typed(t));
                                if let Some(m) = mentions {
                                    out.push(Body::Observation { subtype: "mentions".into(), text: Some(m.into()) });
                                }
                            }
                            UserText::Typed(t) => out.extend(typed_text(t)),
                            // The header stays: it is what the model reads.
                            UserText::ToolResult { .. } => {
                                open = Some(Open { call_id: next_call(pairing, cx, n), content: text.to_string() })
                            }
                            UserText::Skipped => {
                                pairing.pending.pop_front();
                                out.push(Body::Observation { subtype: "tool_skipped".into(), text: Some(text.into()) });
                            }
                            UserText::Injected(subtype) => {
                                out.push(Body::Observation { subtype: subtype.into(), text: Some(text.into()) });
                                if subtype == "task_resumption" {
                                    out.extend(texts::typed_inside(text).into_iter().map(typed));
                                }
                            }
                        }
                    }
                }
            }
            "image" | "document" => attachments.push(Attachment {
                kind: block.kind.clone().unwrap_or_default(),
                media_type: block.source.as_ref().and_then(|s| s.media_type.clone()),
            }),
            "tool_result" => {
                close(&mut open, &mut out);
                let call_id = match block.tool_use_id.clone() {
                    Some(id) => {
                        pairing.pending.retain(|p| *p != id);
                        id
                    }
                    None => next_call(pairing, cx, n),
                };
                let content = block.content.map(result_text).unwrap_or_default();
                let ok = block.is_error.map(|e| !e).or_else(|| texts::is_tool_error(&content).then_some(false));
                let inside: Vec<Made> = texts::typed_inside(&content).into_iter().map(typed).collect();
                out.push(Body::ToolResult { call_id, content, ok });
                out.extend(inside);
            }
            other => unknown_block(cx.diags, "user", other, cx.file, cx.offset),
        }
    }
    close(&mut open, &mut out);
    if !attachments.is_empty() {
        match out.iter_mut().find(|b| matches!(b, Body::User { .. })) {
            Some(Body::User { attachments: a, .. }) => a.append(&mut attachments),
            _ => out.push(Body::User { text: String::new(), attachments }),
        }
    }
    out
}

/// A text that is not a known harness wrapper: what the person typed. When
/// it holds `<feedback>`-style tags (Cline's `tooManyMistakes` and similar
/// prompts around typed text), only their inside was typed.
fn typed_text(text: &str) -> Vec<Made> {
    let inside = texts::typed_inside(text);
    if inside.is_empty() {
        return vec![typed(text)];
    }
    let mut out = Vec::new();
    if !texts::outside_typed(text).trim().is_empty() {
        out.push(Body::Observation { subtype: "feedback_prompt".into(), text: Some(text.into()) });
    }
    out.extend(inside.into_iter().map(typed));
    out
}

fn typed(text: &str) -> Made {
    Body::User { text: text.to_string(), attachments: Vec::new() }
}

fn close(open: &mut Option<Open>, out: &mut Vec<Made>) {
    let Some(o) = open.take() else { return };
    let ok = texts::is_tool_error(texts::result_body(&o.content)).then_some(false);
    let inside: Vec<Made> = texts::typed_inside(&o.content).into_iter().map(typed).collect();
    out.push(Body::ToolResult { call_id: o.call_id, content: o.content, ok });
    out.extend(inside);
}

fn assistant(message: &ApiMessage<'_>, blocks: &[Block<'_>], pairing: &mut Pairing, cx: &mut Ctx<'_>) -> Vec<Made> {
    // Calls of an earlier message not answered by now never will be.
    pairing.pending.clear();
    let said = block::assistant(blocks);
    for kind in &said.unknown {
        unknown_block(cx.diags, "assistant", kind, cx.file, cx.offset);
    }
    let reasoning: Vec<Made> = said.reasoning.into_iter().map(Body::Reasoning).collect();
    let mut calls: Vec<Made> = said
        .calls
        .into_iter()
        .enumerate()
        .map(|(n, call)| Body::ToolCall {
            call_id: call.id.unwrap_or_else(|| format!("{}#call{n}", cx.base)),
            name: call.name,
            arguments: call.arguments,
        })
        .collect();
    let text = said.text;
    if calls.is_empty() {
        for (n, use_) in texts::xml_tool_uses(&text).into_iter().enumerate() {
            let arguments = Json::Object(use_.params.into_iter().map(|(k, v)| (k, Json::String(v))).collect());
            calls.push(Body::ToolCall { call_id: format!("{}#xml{n}", cx.base), name: use_.name, arguments });
        }
    }
    let (said, marker) = texts::split_interruption(&text);
    let mut out = reasoning;
    let usage = message.metrics.as_ref().and_then(usage);
    // A message of tool calls only has no text; it still carries the usage.
    if !said.trim().is_empty() || usage.is_some() {
        out.push(Body::Assistant(Assistant {
            text: said.to_string(),
            model: message.model_info.as_ref().and_then(|m| m.model_id.clone()),
            message_id: None,
            stop_reason: None,
            usage,
        }));
    }
    if let Some(marker) = marker {
        out.push(Body::Observation { subtype: "interrupted".into(), text: Some(marker.to_string()) });
    }
    for call in &calls {
        if let Body::ToolCall { call_id, .. } = call {
            pairing.pending.push_back(call_id.clone());
        }
    }
    out.extend(calls);
    out
}

/// A `tool_result` block's content as text: a string, or its text blocks
/// joined (images are not text).
fn result_text(raw: &RawValue) -> String {
    let text = raw.get();
    if text.starts_with('"') {
        return serde_json::from_str(text).unwrap_or_default();
    }
    match serde_json::from_str::<Vec<Block<'_>>>(text) {
        Ok(blocks) => blocks.iter().filter_map(|b| b.text.as_deref()).collect::<Vec<_>>().join("\n"),
        Err(_) => text.to_string(),
    }
}

/// `metrics` as usage; `None` when no count is recorded. Cline sums cache
/// reads and writes into `cached`; it is carried as `cache_read`.
fn usage(m: &Metrics) -> Option<Usage> {
    let t = m.tokens.as_ref()?;
    let usage = Usage {
        input: t.prompt.0,
        output: t.completion.0,
        cache_read: t.cached.0,
        cache_write: None,
        reasoning: None,
        cost_usd: m.cost,
    };
    (usage.input.is_some() || usage.output.is_some() || usage.cache_read.is_some()).then_some(usage)
}
