//! What was said: `user.message`, `system.message`, `assistant.message`
//! (with its reasoning and tool requests), `assistant.reasoning`, and the
//! usage records that belong to assistant messages.

use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Reasoning, Usage};

use super::{Out, PENDING_REASONING_KEPT, PENDING_USAGE_KEPT, Span, Transcript};
use crate::native::{self, AssistantMessage, CallUsage, Event, SystemMessage, UsageRecord, UserMessage};

pub fn user(t: &mut Transcript, event: &Event<'_>, span: Span, out: &mut Out<'_>) -> Option<String> {
    let Some(message) = event.data::<UserMessage>() else {
        return missing(t, "user.message.data", span, out);
    };
    let attachments = message
        .attachments
        .unwrap_or_default()
        .into_iter()
        .map(|a| Attachment { kind: a.kind.unwrap_or_else(|| "attachment".into()), media_type: a.mime_type })
        .collect();
    // `content` is what the person typed; `transformedContent` adds the
    // harness's date header.
    let text = message.content.or(message.transformed_content).unwrap_or_default();
    // A message the runtime sent in the person's place (`source: "system"`)
    // is context, not a prompt.
    let body = if message.source.as_deref() == Some("system") {
        Body::Observation { subtype: "user.message/system".into(), text: Some(text) }
    } else {
        Body::User { text, attachments }
    };
    let id = t.event_id(event, span);
    let record = t.record(event, id.clone(), body, t.links.resolve(event.parent_id.as_deref()), span);
    out.writer.push(&record);
    Some(id)
}

pub fn system(t: &mut Transcript, event: &Event<'_>, span: Span, out: &mut Out<'_>) -> Option<String> {
    let Some(message) = event.data::<SystemMessage>() else {
        return missing(t, "system.message.data", span, out);
    };
    let id = t.event_id(event, span);
    let body = Body::System { text: message.content.unwrap_or_default() };
    let record = t.record(event, id.clone(), body, t.links.resolve(event.parent_id.as_deref()), span);
    out.writer.push(&record);
    Some(id)
}

pub fn reasoning(t: &mut Transcript, event: &Event<'_>, span: Span, out: &mut Out<'_>) -> Option<String> {
    let Some(reasoning) = event.data::<native::Reasoning>() else {
        return missing(t, "assistant.reasoning.data", span, out);
    };
    let text = reasoning.content.unwrap_or_default();
    t.reasoning.push_back(text.clone());
    if t.reasoning.len() > PENDING_REASONING_KEPT {
        t.reasoning.pop_front();
    }
    let id = t.event_id(event, span);
    let body = Body::Reasoning(Reasoning { text: Some(text), opaque: None, encrypted: false });
    let record = t.record(event, id.clone(), body, t.links.resolve(event.parent_id.as_deref()), span);
    out.writer.push(&record);
    Some(id)
}

pub fn assistant(t: &mut Transcript, event: &Event<'_>, span: Span, out: &mut Out<'_>) -> Option<String> {
    let Some(message) = event.data::<AssistantMessage>() else {
        return missing(t, "assistant.message.data", span, out);
    };
    let id = t.event_id(event, span);
    let parent = t.links.resolve(event.parent_id.as_deref());

    // Reasoning, unless `assistant.reasoning` events carried it already.
    let logged = std::mem::take(&mut t.reasoning);
    let text = message.reasoning_text.filter(|r| !r.is_empty() && !logged.iter().any(|l| l == r));
    let opaque = message.reasoning_opaque.or(message.encrypted_content).filter(|o| !o.is_empty());
    if text.is_some() || opaque.is_some() {
        let encrypted = text.is_none();
        let body = Body::Reasoning(Reasoning { text, opaque, encrypted });
        let record = t.record(event, format!("{id}#reasoning"), body, Some(id.clone()), span);
        out.writer.push(&record);
    }

    let call_usage = message.api_call_id.as_deref().and_then(|call| take_usage(t, call));
    let model = message
        .model
        .filter(|m| !m.is_empty())
        .or_else(|| call_usage.as_ref().and_then(|(_, m)| m.clone()).filter(|m| !m.is_empty()));
    let usage = match call_usage {
        Some((usage, _)) => Some(usage),
        // Only the output count, when no usage record names this call.
        None => message.output_tokens.map(|n| Usage { output: Some(n), ..Usage::default() }),
    };
    let assistant = Assistant {
        text: message.content.unwrap_or_default(),
        model,
        message_id: message.message_id,
        stop_reason: None,
        usage,
    };
    let record = t.record(event, id.clone(), Body::Assistant(assistant), parent, span);
    out.writer.push(&record);

    for (n, request) in message.tool_requests.unwrap_or_default().into_iter().enumerate() {
        let name = request.name.unwrap_or_default();
        let call_id = match request.tool_call_id.filter(|c| !c.is_empty()) {
            Some(call_id) => {
                if let Some(at) = t.started.iter().position(|(c, _)| *c == call_id) {
                    // A `tool.execution_start` logged before this message made it a call already.
                    t.started.remove(at);
                    continue;
                }
                if t.calls.contains(&call_id) {
                    // A request repeated by a later message: the same call.
                    continue;
                }
                call_id
            }
            None => {
                if let Some(at) = t.started.iter().position(|(_, started)| *started == name) {
                    // Without an id, the execution of that tool logged before it.
                    t.started.remove(at);
                    continue;
                }
                let named = format!("{id}#call{n}");
                t.unstarted.push_back((named.clone(), name.clone()));
                if t.unstarted.len() > super::UNSTARTED_KEPT {
                    t.unstarted.pop_front();
                }
                named
            }
        };
        t.calls.insert(call_id.clone());
        let body = Body::ToolCall { call_id: call_id.clone(), name, arguments: native::arguments(request.arguments) };
        let record = t.record(event, call_id, body, Some(id.clone()), span);
        out.writer.push(&record);
    }
    Some(id)
}

/// A usage record: kept until the assistant message of its `apiCallId`.
pub fn usage_record(t: &mut Transcript, kind: &str, event: &Event<'_>, span: Span, out: &mut Out<'_>) {
    let usage = if kind == "session.usage_record" {
        event.data::<UsageRecord>().and_then(|r| r.usage)
    } else {
        event.data::<CallUsage>()
    };
    let Some(usage) = usage else {
        missing(t, "usage.data", span, out);
        return;
    };
    let Some(call) = usage.api_call_id.clone().filter(|c| !c.is_empty()) else {
        out.diags.add("unmatched-usage-record", Severity::Info, "apiCallId", Some(&t.file), Some(span.offset));
        return;
    };
    t.usage.push_back((call, canonical_usage(&usage), usage.model.clone()));
    if t.usage.len() > PENDING_USAGE_KEPT {
        t.usage.pop_front();
        out.diags.add("unmatched-usage-record", Severity::Info, "apiCallId", Some(&t.file), Some(span.offset));
    }
}

fn take_usage(t: &mut Transcript, call: &str) -> Option<(Usage, Option<String>)> {
    let at = t.usage.iter().position(|(c, _, _)| c == call)?;
    t.usage.remove(at).map(|(_, usage, model)| (usage, model))
}

/// Copilot's `inputTokens` counts the whole prompt, cached tokens included
/// (OpenAI-style `prompt_tokens`): the canonical input excludes cache reads
/// and writes.
fn canonical_usage(u: &CallUsage) -> Usage {
    let cached = u.cache_read_tokens.unwrap_or(0).saturating_add(u.cache_write_tokens.unwrap_or(0));
    Usage {
        input: u.input_tokens.map(|i| i.saturating_sub(cached)),
        output: u.output_tokens,
        cache_read: u.cache_read_tokens,
        cache_write: u.cache_write_tokens,
        reasoning: None,
        cost_usd: None,
    }
}

fn missing(t: &Transcript, field: &str, span: Span, out: &mut Out<'_>) -> Option<String> {
    out.diags.add("missing-field", Severity::Warning, field, Some(&t.file), Some(span.offset));
    None
}
