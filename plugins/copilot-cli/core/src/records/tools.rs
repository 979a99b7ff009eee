//! Tool events: `tool.execution_start` and `tool.user_requested` (a call,
//! when no assistant message requested it: such calls are tool calls all the
//! same; one an earlier request announced, by its `toolCallId` or, for a
//! request without one, by its tool, is that request's call),
//! `tool.execution_complete` (the result the model saw and `success`).

use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::Body;

use super::{Out, Span, Transcript};
use crate::native::{self, Event, ToolComplete, ToolStart};

pub fn start(t: &mut Transcript, event: &Event<'_>, span: Span, out: &mut Out<'_>) -> Option<String> {
    let Some(start) = event.data::<ToolStart>() else {
        out.diags.add("missing-field", Severity::Warning, "tool.data", Some(&t.file), Some(span.offset));
        return None;
    };
    let call_id = start.tool_call_id.filter(|c| !c.is_empty())?;
    if t.calls.contains(&call_id) {
        // Already read from the assistant message's tool requests.
        return Some(call_id);
    }
    if let Some(named) = t.aliases.get(&call_id) {
        return Some(named.clone());
    }
    let name = start.tool_name.unwrap_or_default();
    // A request without a `toolCallId` announced it: the oldest of that tool.
    if let Some(at) = t.unstarted.iter().position(|(_, n)| *n == name) {
        let (named, _) = t.unstarted.remove(at).expect("found");
        t.aliases.insert(call_id, named.clone());
        if t.aliases.len() > super::UNSTARTED_KEPT
            && let Some(oldest) = t.aliases.keys().next().cloned()
        {
            t.aliases.remove(&oldest);
        }
        return Some(named);
    }
    t.calls.insert(call_id.clone());
    t.started.push_back((call_id.clone(), name.clone()));
    let body = Body::ToolCall { call_id: call_id.clone(), name, arguments: native::arguments(start.arguments) };
    let record = t.record(event, call_id.clone(), body, t.links.resolve(event.parent_id.as_deref()), span);
    out.writer.push(&record);
    Some(call_id)
}

pub fn complete(t: &mut Transcript, event: &Event<'_>, span: Span, out: &mut Out<'_>) -> Option<String> {
    let Some(done) = event.data::<ToolComplete>() else {
        out.diags.add(
            "missing-field",
            Severity::Warning,
            "tool.execution_complete.data",
            Some(&t.file),
            Some(span.offset),
        );
        return None;
    };
    let content = done.content().unwrap_or_default();
    let ok = done.ok();
    let call_id = done.tool_call_id.unwrap_or_default();
    // The result of a request that had no id goes to that request's call.
    let call_id = t.aliases.get(&call_id).cloned().unwrap_or(call_id);
    if call_id.is_empty() {
        out.diags.add("missing-field", Severity::Warning, "toolCallId", Some(&t.file), Some(span.offset));
    }
    let id = t.event_id(event, span);
    let body = Body::ToolResult { call_id: call_id.clone(), content, ok };
    let record = t.record(event, id.clone(), body, Some(call_id).filter(|c| !c.is_empty()), span);
    out.writer.push(&record);
    Some(id)
}
