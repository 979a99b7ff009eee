//! `response_item` lines: the conversation as the model saw it.
//!
//! | payload `type` | canonical |
//! |---|---|
//! | `message` role `user` | `user` (text of the `input_text` parts, images as attachments) |
//! | `message` role `user`, injected context (`<environment_context>`, AGENTS.md, …) | `system` |
//! | `message` role `developer` / `system` | `system` |
//! | `message` role `assistant` | the response's `assistant` text |
//! | `reasoning` | `reasoning`: `summary` (+ raw `content`) text; `encrypted_content` → opaque, encrypted |
//! | `function_call` | `tool_call`, `arguments` parsed from its JSON string |
//! | `custom_tool_call` | `tool_call`, `arguments` = the raw `input` string |
//! | `local_shell_call` | `tool_call` `local_shell`, `arguments` = `action` |
//! | `web_search_call`, `image_generation_call` (provider-side tools) | observation of the type (the action / revised prompt) |
//! | `tool_search_call` / `tool_search_output` (the tool catalog search) | observations (the query / the tools found) |
//! | `agent_message` (between agents of a multi-agent thread) | observation `agent_message` |
//! | `function_call_output` / `custom_tool_call_output` / `local_shell_call_output` (TypeScript CLI) | `tool_result`, `ok` only from a recorded outcome |
//! | `compaction` | `compaction` with an empty summary (the summary is encrypted) |

use serde_json::Value;
use serde_json::value::RawValue;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Attachment, Body, Reasoning, Record};
use trajhost_codec_sdk::records::location_id;

use super::mirror::{Said, Source};
use super::{KNOWN_RESPONSE_ITEM_TYPES, Out, Rollout, Span, record_bytes};
use crate::native::{self, ContentItem, Output, ResponseItem, type_name};

pub fn map(t: &mut Rollout, payload: Option<&RawValue>, span: Span, out: &mut Out<'_>) {
    let Some(item) = native::payload::<ResponseItem<'_>>(payload) else {
        out.diags.add("unexpected-shape", Severity::Warning, "response_item", Some(&t.file), Some(span.offset));
        return;
    };
    let kind = item.kind.get().unwrap_or("");
    match kind {
        "message" => message(t, &item, span, out),
        "reasoning" => reasoning(t, &item, span, out),
        "function_call" | "custom_tool_call" | "local_shell_call" => tool_call(t, kind, &item, span, out),
        // Provider-side and harness-side items: no call the client ran and
        // answered, so observations of what they were.
        "web_search_call" => {
            let text = item.action.map(|a| a.get().to_string());
            provider_item(t, "web_search_call", text, &item, span, out)
        }
        "tool_search_call" => {
            let text = item.arguments.map(|a| a.get().to_string());
            provider_item(t, "tool_search_call", text, &item, span, out)
        }
        "tool_search_output" => {
            let names: Vec<&str> = item.tools.0.iter().flatten().filter_map(|tool| tool.name.as_deref()).collect();
            let text = (!names.is_empty()).then(|| names.join(", "));
            provider_item(t, "tool_search_output", text, &item, span, out)
        }
        "image_generation_call" => {
            provider_item(t, "image_generation_call", item.revised_prompt.owned(), &item, span, out)
        }
        "agent_message" => {
            // A message between agents of a multi-agent thread: neither the
            // person's prompt nor this model's answer.
            let text = native::join_text(item.content.0.as_deref().unwrap_or(&[]), "\n");
            let text = (!text.is_empty()).then_some(text);
            provider_item(t, "agent_message", text, &item, span, out)
        }
        "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
            tool_result(t, &item, span, out)
        }
        "compaction" | "compaction_summary" | "context_compaction" => {
            out.diags.add("opaque-compaction", Severity::Info, kind, Some(&t.file), Some(span.offset));
            let body = Body::Compaction { summary: String::new(), trigger: Some("remote".into()) };
            let record = t.record(own_id(&t.file, &item, span), body, None, span);
            t.emit(record, out);
        }
        other => t.report(KNOWN_RESPONSE_ITEM_TYPES, "response_item/", other, span, out),
    }
}

/// The item's own id, else its location.
fn own_id(file: &str, item: &ResponseItem<'_>, span: Span) -> String {
    item.id.non_empty().map(str::to_string).unwrap_or_else(|| location_id(file, span.offset, 0))
}

fn message(t: &mut Rollout, item: &ResponseItem<'_>, span: Span, out: &mut Out<'_>) {
    let items: &[ContentItem<'_>] = item.content.0.as_deref().unwrap_or(&[]);
    let text = native::join_text(items, "\n");
    let id = own_id(&t.file, item, span);
    match item.role.get().unwrap_or("") {
        "assistant" => {
            if !text.is_empty() && t.mirrors.is_mirror(Said::Assistant, Source::Item, &text) {
                // Its `agent_message` event came first and made the record;
                // the item still names it, while it is held back.
                out.diags.add(
                    "mirrored-message",
                    Severity::Info,
                    "response_item/message/assistant",
                    Some(&t.file),
                    Some(span.offset),
                );
                if let Some(group) = t.group.as_mut()
                    && group.has_message
                    && group.message_id.is_none()
                    && let Some(message_id) = item.id.non_empty()
                {
                    group.id = message_id.to_string();
                    group.message_id = Some(message_id.to_string());
                }
                return;
            }
            assistant_text(t, &text, Some(id), item.id.non_empty(), span, out);
        }
        "user" if !item.is_injected_context() => {
            if !text.is_empty() && t.mirrors.is_mirror(Said::User, Source::Item, &text) {
                // Its `user_message` event came first and made the record.
                out.diags.add(
                    "mirrored-message",
                    Severity::Info,
                    "response_item/message/user",
                    Some(&t.file),
                    Some(span.offset),
                );
                return;
            }
            let attachments = items
                .iter()
                .filter(|i| i.kind.get().is_some_and(|k| k.contains("image")))
                .map(|i| Attachment { kind: "image".into(), media_type: media_type(i.image_url.get()) })
                .collect();
            let record = t.record(id, Body::User { text, attachments }, None, span);
            t.emit(record, out);
        }
        "user" | "developer" | "system" => {
            let record = t.record(id, Body::System { text }, None, span);
            t.emit(record, out);
        }
        other => {
            let detail = format!("message/{}", type_name(Some(other)));
            out.diags.add("unknown-message-role", Severity::Warning, &detail, Some(&t.file), Some(span.offset));
        }
    }
}

/// Assistant text of the current response (from a `message`, or from an
/// `agent_message` event that has no response item): the first message
/// names the record.
pub(super) fn assistant_text(
    t: &mut Rollout,
    text: &str,
    id: Option<String>,
    message_id: Option<&str>,
    span: Span,
    out: &mut Out<'_>,
) {
    let ts = t.ts();
    let group = t.group(span, out);
    if !group.has_message {
        group.has_message = true;
        if let Some(id) = id {
            group.id = id;
        }
        group.message_id = message_id.map(str::to_string);
        group.span = span;
        group.ts = ts;
    }
    if group.assistant_at.is_none() {
        group.assistant_at = Some(group.parts.len());
    }
    if !group.text.is_empty() && !text.is_empty() {
        group.text.push_str("\n\n");
    }
    group.text.push_str(text);
    t.pending_bytes += text.len();
    t.check_pending(out);
}

/// `image/png` of a `data:image/png;base64,…` URL.
fn media_type(url: Option<&str>) -> Option<String> {
    let rest = url?.strip_prefix("data:")?;
    let end = rest.find([';', ','])?;
    Some(rest[..end].to_string()).filter(|m| !m.is_empty())
}

fn reasoning(t: &mut Rollout, item: &ResponseItem<'_>, span: Span, out: &mut Out<'_>) {
    let summary = item.summary.0.as_deref().map(|s| native::join_text(s, "\n\n")).unwrap_or_default();
    let raw = item.content.0.as_deref().map(|c| native::join_text(c, "\n\n")).unwrap_or_default();
    let text = match (summary.is_empty(), raw.is_empty()) {
        (true, true) => None,
        (false, true) => Some(summary),
        (true, false) => Some(raw),
        (false, false) => Some(format!("{summary}\n\n{raw}")),
    };
    let opaque = item.encrypted_content.non_empty().map(str::to_string);
    let encrypted = opaque.is_some();
    let body = Body::Reasoning(Reasoning { text, opaque, encrypted });
    let record = t.record(own_id(&t.file, item, span), body, None, span);
    add_part(t, record, false, span, out);
}

fn tool_call(t: &mut Rollout, kind: &str, item: &ResponseItem<'_>, span: Span, out: &mut Out<'_>) {
    let call_id = item
        .call_id
        .non_empty()
        .or(item.id.non_empty())
        .map(str::to_string)
        .unwrap_or_else(|| location_id(&t.file, span.offset, 0));
    let raw_value =
        |raw: Option<&RawValue>| raw.and_then(|r| serde_json::from_str::<Value>(r.get()).ok()).unwrap_or(Value::Null);
    let (name, arguments) = match kind {
        "function_call" => (item.name.owned().unwrap_or_default(), arguments(item.arguments_text().as_deref())),
        "custom_tool_call" => {
            (item.name.owned().unwrap_or_default(), Value::String(item.input.owned().unwrap_or_default()))
        }
        _ => ("local_shell".to_string(), raw_value(item.action)),
    };
    let record = t.record(call_id.clone(), Body::ToolCall { call_id, name, arguments }, None, span);
    add_part(t, record, true, span, out);
}

/// An item that becomes an observation named after its type; it goes with
/// the current response, in order.
fn provider_item(
    t: &mut Rollout,
    subtype: &str,
    text: Option<String>,
    item: &ResponseItem<'_>,
    span: Span,
    out: &mut Out<'_>,
) {
    let body = Body::Observation { subtype: subtype.to_string(), text };
    let record = t.record(own_id(&t.file, item, span), body, None, span);
    t.follow(record, out);
}

/// A function call's `arguments` string as the JSON it holds; the string
/// itself when it is not JSON.
fn arguments(raw: Option<&str>) -> Value {
    let Some(raw) = raw else { return Value::Object(Default::default()) };
    serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string()))
}

/// Adds reasoning or a tool call to the current response.
fn add_part(t: &mut Rollout, record: Record, is_call: bool, span: Span, out: &mut Out<'_>) {
    let bytes = record_bytes(&record);
    let group = t.group(span, out);
    if is_call && group.assistant_at.is_none() {
        group.assistant_at = Some(group.parts.len());
    }
    group.parts.push(record);
    t.pending_bytes += bytes;
    t.check_pending(out);
}

fn tool_result(t: &mut Rollout, item: &ResponseItem<'_>, span: Span, out: &mut Out<'_>) {
    let call_id = item.call_id.owned().unwrap_or_default();
    let (content, success) = match Output::parse(item.output) {
        Output::Text(text) => (text.into_owned(), None),
        Output::Items(items) => (output_items_text(&items), None),
        Output::Object { content, success } => (content.unwrap_or_default(), success),
        Output::None => (String::new(), None),
    };
    let ok = t.take_outcome(&call_id).or(success);
    let record = t.record(
        own_id(&t.file, item, span),
        Body::ToolResult { call_id: call_id.clone(), content, ok },
        Some(call_id),
        span,
    );
    t.follow(record, out);
}

/// Text of an output given as content items; images as `[image]`.
fn output_items_text(items: &[ContentItem<'_>]) -> String {
    let mut out = String::new();
    for item in items {
        let part = match item.text.get() {
            Some(text) => text,
            None if item.kind.get().is_some_and(|k| k.contains("image")) => "[image]",
            None => continue,
        };
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(part);
    }
    out
}
