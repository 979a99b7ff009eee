//! `message` lines: Anthropic-style content blocks.
//!
//! A user message holds the prompt (`text`, `image`, `document` blocks),
//! or `tool_result` blocks answering the assistant's calls by id, or —
//! with `visibility: "llm_only"` — context the harness injects for the
//! model (system reminders; older files put them before the prompt in the
//! same text, read as context too). An assistant message holds one model response:
//! `thinking`/`redacted_thinking`, `text` and `tool_use` blocks, with the
//! model Droid asked for (`modelId`) and the provider's response id.

use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Reasoning};

use super::{Out, Span, Transcript, type_name};
use crate::head::{is_context, split_reminders, user_text};
use crate::native::{Block, Content, Entry, Message};

/// Maps a message; false when it yields no record.
pub fn map(t: &mut Transcript, entry: &Entry, span: Span, out: &mut Out<'_>) -> bool {
    let Some(message) = &entry.message else {
        out.diags.add("missing-field", Severity::Warning, "message.message", Some(&t.file), Some(span.offset));
        return false;
    };
    if let Content::Unrecognized = message.content {
        out.diags.add("unrecognized-content", Severity::Warning, "message.content", Some(&t.file), Some(span.offset));
    }
    match message.role.as_deref() {
        Some("user") => user(t, entry, message, span, out),
        Some("assistant") => assistant(t, entry, message, span, out),
        other => {
            let detail = format!("message/{}", type_name(Some(other.unwrap_or("(no role)"))));
            out.diags.add("unknown-record-type", Severity::Warning, &detail, Some(&t.file), Some(span.offset));
            false
        }
    }
}

fn user(t: &mut Transcript, entry: &Entry, message: &Message, span: Span, out: &mut Out<'_>) -> bool {
    let parent = t.links.resolve(entry.parent_id.as_deref());
    let blocks: &[Block] = match &message.content {
        Content::Blocks(blocks) => blocks,
        _ => &[],
    };
    let mut attachments = Vec::new();
    let mut results = Vec::new();
    for block in blocks {
        match block.kind.as_deref().unwrap_or("") {
            "text" => {}
            kind @ ("image" | "document") => attachments.push(Attachment {
                kind: kind.to_string(),
                media_type: block.source.as_ref().and_then(|s| s.media_type.clone()),
            }),
            "tool_result" => results.push(block),
            other => unknown_block(t, "user", other, span, out),
        }
    }
    let text = user_text(&message.content);
    let mut index = 0;
    // Reminders written before the prompt in the same text are context.
    let (reminders, typed) = if is_context(message) { (None, text.as_str()) } else { split_reminders(&text) };
    if let Some(reminders) = reminders {
        // The prompt keeps the message's id; a message of reminders only is
        // all context.
        let alone = typed.is_empty() && attachments.is_empty();
        let id = if alone { t.line_id(entry, span, 0) } else { format!("{}#context", t.line_id(entry, span, 0)) };
        let body = Body::Observation { subtype: "context".into(), text: Some(reminders.to_string()) };
        let record = t.record(entry, id, body, parent.clone(), span);
        out.writer.push(&record);
        if alone {
            index += 1;
        }
    }
    if !typed.is_empty() || !attachments.is_empty() {
        let body = if is_context(message) {
            Body::Observation { subtype: "context".into(), text: Some(typed.to_string()) }
        } else {
            Body::User { text: typed.to_string(), attachments }
        };
        let record = t.record(entry, t.line_id(entry, span, index), body, parent.clone(), span);
        out.writer.push(&record);
        index += 1;
    }
    for block in results {
        let call_id = block.tool_use_id.clone().unwrap_or_default();
        if call_id.is_empty() {
            out.diags.add(
                "missing-field",
                Severity::Warning,
                "tool_result.tool_use_id",
                Some(&t.file),
                Some(span.offset),
            );
        }
        let body = Body::ToolResult {
            call_id: call_id.clone(),
            content: result_text(block.content.as_ref()),
            ok: block.is_error.map(|e| !e),
        };
        // A result answers its call.
        let record =
            t.record(entry, t.line_id(entry, span, index), body, Some(call_id).filter(|c| !c.is_empty()), span);
        out.writer.push(&record);
        index += 1;
    }
    index > 0
}

fn assistant(t: &mut Transcript, entry: &Entry, message: &Message, span: Span, out: &mut Out<'_>) -> bool {
    let id = t.line_id(entry, span, 0);
    let parent = t.links.resolve(entry.parent_id.as_deref());
    let blocks: &[Block] = match &message.content {
        Content::Blocks(blocks) => blocks,
        _ => &[],
    };
    let mut text = match &message.content {
        Content::Text(s) => s.clone(),
        _ => String::new(),
    };
    // Reasoning first, then the response, then its calls: the order the
    // model produced them in.
    let mut index = 1;
    for block in blocks {
        let body = match block.kind.as_deref().unwrap_or("") {
            "thinking" => Body::Reasoning(Reasoning {
                text: block.thinking.clone(),
                opaque: block.signature.clone().filter(|s| !s.is_empty()),
                encrypted: false,
            }),
            "redacted_thinking" => {
                Body::Reasoning(Reasoning { text: None, opaque: block.data.clone(), encrypted: true })
            }
            _ => continue,
        };
        let record = t.record(entry, t.line_id(entry, span, index), body, Some(id.clone()), span);
        out.writer.push(&record);
        index += 1;
    }
    for block in blocks {
        match block.kind.as_deref().unwrap_or("") {
            "text" => text.push_str(block.text.as_deref().unwrap_or("")),
            "thinking" | "redacted_thinking" | "tool_use" => {}
            other => unknown_block(t, "assistant", other, span, out),
        }
    }
    let assistant = Assistant {
        text,
        model: message.model_id.clone().filter(|m| !m.is_empty()),
        message_id: message.openai_message_id.clone().or_else(|| entry.id.clone()),
        stop_reason: None,
        // Droid keeps token counts per session only (in the settings file).
        usage: None,
    };
    let record = t.record(entry, id.clone(), Body::Assistant(assistant), parent, span);
    out.writer.push(&record);
    for block in blocks.iter().filter(|b| b.kind.as_deref() == Some("tool_use")) {
        let call_id = block.id.clone().filter(|c| !c.is_empty()).unwrap_or_else(|| t.line_id(entry, span, index));
        index += 1;
        let body = Body::ToolCall {
            call_id: call_id.clone(),
            name: block.name.clone().unwrap_or_default(),
            arguments: block.input.clone().unwrap_or(Value::Null),
        };
        let record = t.record(entry, call_id, body, Some(id.clone()), span);
        out.writer.push(&record);
    }
    true
}

/// A `tool_result`'s content: the string, or its text blocks one per line
/// with a note in place of each image.
fn result_text(content: Option<&Value>) -> String {
    match content {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            let mut out = String::new();
            for block in blocks {
                if !out.is_empty() {
                    out.push('\n');
                }
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => out.push_str(block.get("text").and_then(Value::as_str).unwrap_or("")),
                    Some("image") => {
                        let media =
                            block.pointer("/source/media_type").and_then(Value::as_str).unwrap_or("unknown type");
                        out.push_str(&format!("[image: {media}]"));
                    }
                    Some(other) => out.push_str(&format!("[{}]", type_name(Some(other)))),
                    None => out.push_str(&block.to_string()),
                }
            }
            out
        }
        Some(other) => other.to_string(),
    }
}

fn unknown_block(t: &Transcript, role: &str, kind: &str, span: Span, out: &mut Out<'_>) {
    let detail = format!("{role}/{}", type_name(Some(kind)));
    out.diags.add("unknown-content-block", Severity::Warning, &detail, Some(&t.file), Some(span.offset));
}
