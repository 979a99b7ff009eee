//! `event_msg` lines: what the UI was told. Most repeat `response_item`
//! lines (double logging) and are only counted; the rest add what the
//! response items lack.
//!
//! | payload `type` | canonical |
//! |---|---|
//! | `token_count` | `usage` of the held-back response (`info.last_token_usage`) |
//! | `exec_command_end`, `patch_apply_end`, `mcp_tool_call_end`, `item_completed` (CommandExecution) | `ok` of the matching `tool_result` |
//! | `error`, `stream_error`, `warning` | observation with the message |
//! | `task_started` / `task_complete` (`turn_*`), `turn_aborted` | observations (turn boundaries, aborts with the reason) |
//! | `thread_rolled_back`, `entered_review_mode`, `exited_review_mode`, `thread_name_updated` | observations |

use serde::Deserialize;
use serde_json::value::RawValue;
use trajhost_codec_sdk::Severity;

use super::{KNOWN_EVENT_TYPES, Out, Rollout, Span};
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
