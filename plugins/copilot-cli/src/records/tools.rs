//! Tool events: `tool.execution_start` and `tool.user_requested` (a call,
//! when no assistant message requested it), `tool.execution_complete` (the
//! result the model saw and `success`).

use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::Body;

use super::{Out, Span, Transcript};
use crate::native::{Event, ToolComplete, ToolStart};

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
    t.calls.insert(call_id.clone());
    let body = Body::ToolCall {
        call_id: call_id.clone(),
        name: start.tool_name.unwrap_or_default(),
        arguments: start.arguments.unwrap_or(Value::Null),
    };
    let record = t.record(event, call_id.clone(), body, t.resolve(event.parent_id.as_deref()), span);
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
    let call_id = done.tool_call_id.unwrap_or_default();
    if call_id.is_empty() {
        out.diags.add("missing-field", Severity::Warning, "toolCallId", Some(&t.file), Some(span.offset));
    }
    // `result.content` is what the model saw (`detailedContent` is the UI's).
    let content = done
        .result
        .and_then(|r| r.content)
        .filter(|c| !c.is_empty())
        .or_else(|| done.error.and_then(|e| e.message))
        .unwrap_or_default();
    let id = t.event_id(event, span);
    let body = Body::ToolResult { call_id: call_id.clone(), content, ok: done.success };
    let record = t.record(event, id.clone(), body, Some(call_id).filter(|c| !c.is_empty()), span);
    out.writer.push(&record);
    Some(id)
}
