//! `event_msg` lines: what the UI was told. Most repeat `response_item`
//! lines (double logging) and are only counted; the rest add what the
//! response items lack.
//!
//! | payload `type` | canonical |
//! |---|---|
//! | `user_message` | `user`, unless its `response_item` copy came first (then counted as a mirror) |
//! | `agent_message` | the response's `assistant` text, unless its `response_item` copy came first |
//! | `token_count` | `usage` of the held-back response (`info.last_token_usage`) |
//! | `exec_command_end`, `patch_apply_end`, `mcp_tool_call_end`, `item_completed` (CommandExecution) | `ok` of the matching `tool_result` |
//! | `error`, `stream_error`, `warning` | observation with the message |
//! | `task_started` / `task_complete` (`turn_*`), `turn_aborted` | observations (turn boundaries, aborts with the reason) |
//! | `thread_rolled_back`, `entered_review_mode`, `exited_review_mode`, `thread_name_updated` | observations |

use serde::Deserialize;
use serde_json::value::RawValue;
use trajhost_codec_sdk::Severity;

use trajhost_codec_sdk::canonical::{Attachment, Body};
use trajhost_codec_sdk::records::location_id;

use super::mirror::{Said, Source};
use super::{KNOWN_EVENT_TYPES, Out, Rollout, Span, response};
use crate::native::{self, Event};

pub fn map(t: &mut Rollout, payload: Option<&RawValue>, span: Span, out: &mut Out<'_>) {
    let Some(event) = native::payload::<Event<'_>>(payload) else {
        out.diags.add("unexpected-shape", Severity::Warning, "event_msg", Some(&t.file), Some(span.offset));
        return;
    };
    let kind = event.kind.get().unwrap_or("");
    let observe = |t: &mut Rollout, subtype: &str, text: Option<String>, out: &mut Out<'_>| {
        let record = t.observation(subtype, text, span);
        t.emit(record, out);
    };
    match kind {
        "token_count" => {
            if let Some(usage) = event.info.0.as_ref().and_then(|i| i.last_token_usage.0) {
                t.usage(&usage, out);
            }
        }
        "user_message" => user_message(t, &event, span, out),
        "agent_message" => {
            let text = event.message.get().unwrap_or("");
            if text.trim().is_empty() || t.mirrors.is_mirror(Said::Assistant, Source::Event, text) {
                // The response item said it (double logging).
                t.report(KNOWN_EVENT_TYPES, "event_msg/", kind, span, out);
            } else {
                response::assistant_text(t, text, None, None, span, out);
            }
        }
        "error" | "stream_error" | "warning" => observe(t, kind, event.message.owned(), out),
        "task_started" | "turn_started" => observe(t, "task_started", None, out),
        "task_complete" | "turn_complete" => observe(t, "task_complete", None, out),
        "turn_aborted" => observe(t, kind, event.reason.owned(), out),
        "thread_rolled_back" => observe(t, kind, event.num_turns.0.map(|n| n.to_string()), out),
        "entered_review_mode" | "exited_review_mode" => observe(t, kind, None, out),
        "thread_name_updated" => observe(t, "thread_name", event.thread_name.owned(), out),
        "exec_command_end" => {
            if let (Some(id), Some(code)) = (event.call_id.get(), event.exit_code.0) {
                t.outcome(id, code == 0);
            }
        }
        "patch_apply_end" => {
            if let (Some(id), Some(ok)) = (event.call_id.get(), event.success.0) {
                t.outcome(id, ok);
            }
        }
        "mcp_tool_call_end" => {
            if let (Some(id), Some(ok)) = (event.call_id.get(), mcp_ok(event.result)) {
                t.outcome(id, ok);
            }
        }
        "item_completed" => {
            let item = event.item.0.unwrap_or_default();
            match (item.kind.as_deref(), item.id.as_deref(), item.exit_code.0) {
                (Some("CommandExecution"), Some(id), Some(code)) => t.outcome(id, code == 0),
                (kind, ..) => {
                    let sub = native::type_name(kind);
                    let detail = format!("event_msg/item_completed/{sub}");
                    out.diags.add("unmapped-record-type", Severity::Info, &detail, Some(&t.file), Some(span.offset));
                }
            }
        }
        other => t.report(KNOWN_EVENT_TYPES, "event_msg/", other, span, out),
    }
}

/// `user_message`: the prompt as the UI showed it. A record when no
/// response item carried it (see [`super::mirror`]); context the harness
/// injected (older builds flag it with `kind`) is never a prompt.
fn user_message(t: &mut Rollout, event: &Event<'_>, span: Span, out: &mut Out<'_>) {
    let text = event.message.get().unwrap_or("");
    let injected = matches!(event.message_kind.get(), Some("user_instructions" | "environment_context"))
        || native::is_context_text(text);
    if injected || text.trim().is_empty() || t.mirrors.is_mirror(Said::User, Source::Event, text) {
        t.report(KNOWN_EVENT_TYPES, "event_msg/", "user_message", span, out);
        return;
    }
    let images = event.images.0.as_ref().map_or(0, Vec::len) + event.local_images.0.as_ref().map_or(0, Vec::len);
    let attachments = (0..images).map(|_| Attachment { kind: "image".into(), media_type: None }).collect();
    let record =
        t.record(location_id(&t.file, span.offset, 0), Body::User { text: text.to_string(), attachments }, None, span);
    t.emit(record, out);
}

/// Success of an MCP call: `result` is `{"Ok": CallToolResult}` (failed when
/// its `isError` is true) or `{"Err": message}`.
fn mcp_ok(result: Option<&RawValue>) -> Option<bool> {
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Result {
        #[serde(rename = "Ok")]
        ok: Option<CallResult>,
        #[serde(rename = "Err")]
        err: Option<serde::de::IgnoredAny>,
    }
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct CallResult {
        #[serde(rename = "isError")]
        is_error: Option<bool>,
    }
    let r: Result = native::payload(result)?;
    match (r.ok, r.err) {
        (Some(call), _) => Some(!call.is_error.unwrap_or(false)),
        (None, Some(_)) => Some(false),
        (None, None) => None,
    }
}
