//! Messages of `<id>.messages.json` → canonical records.
//!
//! A message's `role` and each content block's `type` are the native record
//! types. Every one is mapped (see [`KNOWN_ROLES`], [`KNOWN_BLOCKS`]) or
//! counted in a diagnostic (`unknown-record-type`, `unknown-content-block`).
//!
//! | native                              | canonical                                      |
//! |-------------------------------------|------------------------------------------------|
//! | `user` `text` blocks / string       | `user` (the `<user_input mode=…>` wrapper Cline adds around a prompt is removed; a `<task>` its inside) |
//! | `user` `text` block `[<tool> for '…'] Result:` (Cline's text protocol) | `tool_result` of the last assistant message's unanswered call (of that tool, else the oldest); `<feedback>`/`<answer>` inside it are user text |
//! | `user` `text` block `Tool [..] was not executed …` | `observation` `tool_skipped` |
//! | `user` `text` block of injected context (`<environment_details>`, `# task_progress`, `[TASK RESUMPTION]`, `[ERROR]`) | `observation` of that kind |
//! | `user` `image` block                | attachment of the `user` record                |
//! | `user` `file` block                 | `observation` `file` (path and content)        |
//! | `user` `tool_result` block          | `tool_result`, linked by `tool_use_id`          |
//! | `assistant` `thinking` / `redacted_thinking` | `reasoning`                           |
//! | `assistant` `text` blocks           | `assistant` (`modelInfo.id` → model, `metrics` → usage) |
//! | `assistant` `tool_use` block        | `tool_call` (native id, name, `input`)          |
//! | `assistant` XML tool use in text (Cline's text protocol, no `tool_use` block) | `tool_call` (the text stays the assistant's) |
//!
//! The text blocks are told apart by `trajhost_cline_core::texts`, shared
//! with the VS Code extension's codec.
//!
//! A tool result's `ok` comes from `is_error` when stored, else from the
//! `success` flags Cline stores on each operation of a result (all of them
//! true → ok); `None` when neither is there.

use std::collections::VecDeque;

use serde_json::Value as Json;
use serde_json::value::RawValue;
use trajhost_cline_core::block::{self, Block};
use trajhost_cline_core::message::{Made, unknown_block};
use trajhost_cline_core::texts::{self, UserText};
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Usage};
use trajhost_codec_sdk::diag::Diagnostics;

use crate::native::{Message, Metrics};

pub use trajhost_codec_sdk::known::Handling;

/// Every message `role` of the transcript.
pub const KNOWN_ROLES: &[(&str, Handling)] = &[
    ("user", Handling::Mapped("user, tool_result, observation file")),
    ("assistant", Handling::Mapped("reasoning, assistant, tool_call")),
];

/// Every content block `type`.
pub const KNOWN_BLOCKS: &[(&str, Handling)] = &[
    ("text", Handling::Mapped("user / assistant text")),
    ("image", Handling::Mapped("user attachment")),
    ("file", Handling::Mapped("observation file")),
    ("tool_use", Handling::Mapped("tool_call")),
    ("tool_result", Handling::Mapped("tool_result")),
    ("thinking", Handling::Mapped("reasoning")),
    ("redacted_thinking", Handling::Mapped("reasoning (encrypted)")),
];

/// The calls of the last assistant message not answered yet: (call id,
/// tool name), in call order. A result in Cline's text protocol names its
/// tool, not its call.
#[derive(Debug, Default)]
pub struct Pairing {
    pending: VecDeque<(String, String)>,
}

impl Pairing {
    /// The call a text result of `tool` answers: the oldest unanswered call
    /// of that tool, else the oldest unanswered call.
    fn answer(&mut self, tool: &str) -> Option<String> {
        let at = self.pending.iter().position(|(_, name)| name == tool).unwrap_or(0);
        self.pending.remove(at).map(|(id, _)| id)
    }
}

/// Maps one message; `id` is its record id (the native id, else its byte
/// location).
pub fn map(
    message: &Message<'_>,
    id: &str,
    file: &str,
    offset: u64,
    pairing: &mut Pairing,
    diags: &mut Diagnostics,
) -> Vec<Made> {
    let role = message.role.as_deref().unwrap_or("");
    let blocks = match block::blocks(message.content) {
        Some(blocks) => blocks,
        None => {
            diags.add("malformed-message", Severity::Warning, "content", Some(file), Some(offset));
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    let mut n = 0usize;
    let mut next = || {
        n += 1;
        format!("{id}#{n}")
    };
    match role {
        "user" => {
            let mut text = String::new();
            let mut attachments = Vec::new();
            let mut files = Vec::new();
            for (n, block) in blocks.iter().enumerate() {
                match block.kind.as_deref().unwrap_or("") {
                    "text" => {
                        let raw = block.text.as_deref().unwrap_or("");
                        match texts::classify(raw) {
                            UserText::Typed(t) => push_line(&mut text, unwrap_user_input(t)),
                            UserText::Task(t, mentions) => {
                                push_line(&mut text, t);
                                if let Some(m) = mentions {
                                    out.push(observation("mentions", m));
                                }
                            }
                            UserText::ToolResult { label, .. } => {
                                let call_id = pairing.answer(texts::label_tool(label)).unwrap_or_else(|| {
                                    diags.add(
                                        "result-without-call",
                                        Severity::Info,
                                        "tool result",
                                        Some(file),
                                        Some(offset),
                                    );
                                    format!("{id}#result{n}")
                                });
                                // The header stays: it is what the model read.
                                let ok = texts::is_tool_error(texts::result_body(raw)).then_some(false);
                                out.push(Made {
                                    id: String::new(),
                                    body: Body::ToolResult { call_id: call_id.clone(), content: raw.to_string(), ok },
                                    parent: Some(call_id),
                                });
                                for typed in texts::typed_inside(raw) {
                                    push_line(&mut text, typed);
                                }
                            }
                            UserText::Skipped => {
                                pairing.pending.pop_front();
                                out.push(observation("tool_skipped", raw));
                            }
                            UserText::Injected(subtype) => {
                                out.push(observation(subtype, raw));
                                if subtype == "task_resumption" {
                                    for typed in texts::typed_inside(raw) {
                                        push_line(&mut text, typed);
                                    }
                                }
                            }
                        }
                    }
                    "image" => attachments.push(Attachment {
                        kind: "image".into(),
                        media_type: block
                            .media_type
                            .clone()
                            .or_else(|| block.source.as_ref().and_then(|s| s.media_type.clone())),
                    }),
                    "file" => files.push(format!(
                        "{}\n{}",
                        block.path.as_deref().unwrap_or(""),
                        block.content.map(raw_text).unwrap_or_default()
                    )),
                    "tool_result" => {
                        let call_id = block.tool_use_id.clone().unwrap_or_default();
                        pairing.pending.retain(|(pending, _)| *pending != call_id);
                        out.push(Made {
                            id: String::new(),
                            body: Body::ToolResult {
                                call_id: call_id.clone(),
                                content: block.content.map(raw_text).unwrap_or_default(),
                                ok: block.is_error.map(|e| !e).or_else(|| block.content.and_then(operations_ok)),
                            },
                            parent: Some(call_id).filter(|c| !c.is_empty()),
                        });
                    }
                    other => unknown_block(diags, role, other, file, offset),
                }
            }
            if !text.is_empty() || !attachments.is_empty() {
                out.push(Made { id: String::new(), body: Body::User { text, attachments }, parent: None });
            }
            for f in files {
                out.push(Made {
                    id: String::new(),
                    body: Body::Observation { subtype: "file".into(), text: Some(f) },
                    parent: None,
                });
            }
            // The first record has the message id.
            for (i, made) in out.iter_mut().enumerate() {
                made.id = if i == 0 { id.to_string() } else { next() };
            }
        }
        "assistant" => {
            let said = block::assistant(&blocks);
            for kind in &said.unknown {
                unknown_block(diags, role, kind, file, offset);
            }
            // Calls without an id are named first, then the reasoning.
            let mut calls: Vec<Made> = said
                .calls
                .into_iter()
                .map(|call| {
                    let call_id = call.id.unwrap_or_else(&mut next);
                    Made {
                        id: call_id.clone(),
                        body: Body::ToolCall { call_id, name: call.name, arguments: call.arguments },
                        parent: Some(id.to_string()),
                    }
                })
                .collect();
            let text = said.text;
            if calls.is_empty() {
                // Cline's text protocol: the calls are XML in the text.
                for (n, use_) in texts::xml_tool_uses(&text).into_iter().enumerate() {
                    let arguments = Json::Object(use_.params.into_iter().map(|(k, v)| (k, Json::String(v))).collect());
                    let call_id = format!("{id}#xml{n}");
                    calls.push(Made {
                        id: call_id.clone(),
                        body: Body::ToolCall { call_id, name: use_.name, arguments },
                        parent: Some(id.to_string()),
                    });
                }
            }
            // Calls of an earlier message not answered by now never will be.
            pairing.pending = calls
                .iter()
                .filter_map(|c| match &c.body {
                    Body::ToolCall { call_id, name, .. } => Some((call_id.clone(), name.clone())),
                    _ => None,
                })
                .collect();
            for r in said.reasoning {
                out.push(Made { id: next(), body: Body::Reasoning(r), parent: Some(id.to_string()) });
            }
            out.push(Made {
                id: id.to_string(),
                body: Body::Assistant(Assistant {
                    text,
                    model: message.model_info.as_ref().and_then(|m| m.id.clone()),
                    message_id: message.id.clone(),
                    stop_reason: None,
                    usage: message.metrics.as_ref().and_then(usage),
                }),
                parent: None,
            });
            out.extend(calls);
        }
        other => {
            diags.add("unknown-record-type", Severity::Warning, &type_name(Some(other)), Some(file), Some(offset));
        }
    }
    out
}

fn observation(subtype: &str, text: &str) -> Made {
    Made {
        id: String::new(),
        body: Body::Observation { subtype: subtype.to_string(), text: Some(text.to_string()) },
        parent: None,
    }
}

fn push_line(out: &mut String, line: &str) {
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(line);
}

/// A prompt without the `<user_input mode="…">…</user_input>` wrapper the
/// Cline CLI puts around what the user typed.
pub fn unwrap_user_input(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("<user_input") else { return text };
    let Some(open_end) = rest.find('>') else { return text };
    if rest[..open_end].contains('<') {
        return text;
    }
    rest[open_end + 1..].strip_suffix("</user_input>").unwrap_or(text)
}

/// Result content as text: a string as is, text blocks joined, anything
/// else (Cline's structured operation results) as the stored JSON, compact
/// (keys in their stored order: what Cline serializes for the model).
fn raw_text(raw: &RawValue) -> String {
    let text = raw.get();
    if text.starts_with('"') {
        return serde_json::from_str(text).unwrap_or_else(|_| text.to_string());
    }
    if let Ok(blocks) = serde_json::from_str::<Vec<Block<'_>>>(text)
        && !blocks.is_empty()
        && blocks.iter().all(|b| b.kind.as_deref() == Some("text"))
    {
        return blocks.iter().map(|b| b.text.as_deref().unwrap_or("")).collect::<Vec<_>>().join("\n");
    }
    compact(text)
}

/// JSON text without the whitespace between tokens (strings untouched).
pub fn compact(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_ascii_whitespace() {
            out.push(c);
        }
    }
    out
}

/// `success` of every operation of a structured result, when each has one.
fn operations_ok(raw: &RawValue) -> Option<bool> {
    let items: Vec<Json> = serde_json::from_str(raw.get()).ok()?;
    if items.is_empty() {
        return None;
    }
    let flags: Option<Vec<bool>> = items.iter().map(|i| i.get("success").and_then(Json::as_bool)).collect();
    flags.map(|f| f.iter().all(|ok| *ok))
}

/// `metrics` as usage; `None` when no count is recorded. Cline's
/// `inputTokens` excludes cache reads and writes (Anthropic accounting).
fn usage(m: &Metrics) -> Option<Usage> {
    let usage = Usage {
        input: m.input_tokens,
        output: m.output_tokens,
        cache_read: m.cache_read_tokens,
        cache_write: m.cache_write_tokens,
        reasoning: None,
        cost_usd: m.cost,
    };
    let any =
        usage.input.is_some() || usage.output.is_some() || usage.cache_read.is_some() || usage.cache_write.is_some();
    any.then_some(usage)
}

pub use trajhost_codec_sdk::text::type_name;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compacts_json_outside_strings() {
        assert_eq!(compact("[\n  {\"a\": \"x y\\\" z\",\n   \"b\": [1, 2]}\n]"), r#"[{"a":"x y\" z","b":[1,2]}]"#);
    }

    #[test]
    fn unwraps_user_input() {
        assert_eq!(unwrap_user_input("<user_input mode=\"act\">hi — ✓</user_input>"), "hi — ✓");
        assert_eq!(unwrap_user_input("plain"), "plain");
        assert_eq!(unwrap_user_input("<user_input mode=\"act\">unterminated"), "<user_input mode=\"act\">unterminated");
    }
}
