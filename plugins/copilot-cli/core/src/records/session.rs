//! Session events that become observations, and compactions.

use serde_json::Value;
use trajhost_codec_sdk::canonical::Body;

use super::{Out, Span, Transcript};
use crate::native::{CompactionComplete, Event};

/// The `data` field that says what each observed event is about.
fn text_field(kind: &str) -> &'static [&'static str] {
    match kind {
        "abort" => &["reason"],
        "session.error" | "session.info" | "session.warning" => &["message"],
        "session.model_change" => &["newModel"],
        "session.mode_changed" => &["newMode"],
        "session.title_changed" => &["title"],
        "session.snapshot_rewind" => &["upToEventId"],
        "session.task_complete" => &["summary", "reason"],
        "subagent.started" | "subagent.completed" | "subagent.failed" => &["agentName", "agentDisplayName"],
        "skill.invoked" => &["content", "name"],
        "system.notification" => &["content"],
        "session.truncation" => &["messagesRemovedDuringTruncation"],
        _ => &["message", "summary", "content"],
    }
}

pub fn observation(t: &mut Transcript, kind: &str, event: &Event<'_>, span: Span, out: &mut Out<'_>) -> Option<String> {
    let data: Option<Value> = event.data();
    let text = data.as_ref().and_then(|d| {
        text_field(kind).iter().find_map(|key| match d.get(*key)? {
            Value::String(s) if !s.is_empty() => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
    });
    let id = t.event_id(event, span);
    let body = Body::Observation { subtype: kind.to_string(), text };
    let record = t.record(event, id.clone(), body, t.links.resolve(event.parent_id.as_deref()), span);
    out.writer.push(&record);
    Some(id)
}

pub fn compaction(t: &mut Transcript, event: &Event<'_>, span: Span, out: &mut Out<'_>) -> Option<String> {
    let done = event.data::<CompactionComplete>().unwrap_or_default();
    let id = t.event_id(event, span);
    let body = match done.summary_content.filter(|s| !s.is_empty()) {
        Some(summary) if done.success != Some(false) => Body::Compaction { summary, trigger: done.trigger },
        _ => Body::Observation { subtype: "session.compaction_complete".into(), text: done.error },
    };
    let record = t.record(event, id.clone(), body, t.links.resolve(event.parent_id.as_deref()), span);
    out.writer.push(&record);
    Some(id)
}

/// `hook.start`: a hook the CLI ran. The `userPromptSubmitted` hook's input
/// carries the prompt (some logs hold no `user.message` beside it); it stays
/// the hook's observation, not a second prompt.
pub fn hook(t: &mut Transcript, event: &Event<'_>, span: Span, out: &mut Out<'_>) -> Option<String> {
    let data: Option<Value> = event.data();
    let kind = data.as_ref().and_then(|d| d.get("hookType")).and_then(Value::as_str).unwrap_or("hook");
    let text = data
        .as_ref()
        .and_then(|d| d.pointer("/input/prompt"))
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
        .map(str::to_string);
    let id = t.event_id(event, span);
    let subtype = format!("hook.start/{}", super::type_name(Some(kind)));
    let body = Body::Observation { subtype, text };
    let record = t.record(event, id.clone(), body, t.links.resolve(event.parent_id.as_deref()), span);
    out.writer.push(&record);
    Some(id)
}
