//! Session-level lines that are neither said by the person nor the model,
//! each an `observation` named after the native type:
//!
//! | type | observation text |
//! |---|---|
//! | `attachment` | `attachment.content` when it is text, else `attachment.text`, else what was `rendered`; subtype `attachment/<attachment.type>` |
//! | `summary` | `summary` (legacy title / summary line) |
//! | `custom-title` | `customTitle` (`/rename`) |
//! | `ai-title` | `aiTitle` |
//! | `agent-name` | `agentName` |
//! | `queue-operation` | `content` (the queued prompt); subtype `queue-operation/<operation>` |
//! | `mode` | `mode` |
//! | `permission-mode` | `permissionMode` |
//! | `pr-link` | `prUrl`, else `#prNumber` |
//!
//! An attachment read after a tool result, before anything new starts (a
//! 2.1.33x `total_tokens_reminder`, or one flagged
//! `renderedBesideToolResult`), reached the model with that result: Claude
//! Code folds the `rendered` text of such attachments into the last
//! `tool_result` of the request, after a blank line (the `api-request-blob`
//! of the next request shows `<output>\n\n<system-reminder>…`). The codec
//! appends it to the held tool result's `content` the same way, so the
//! result reads as the model saw it; the attachment is still an
//! observation of its own. A canonical tool result has one text, so one
//! flagged `renderedBesideToolResult` (a block beside the result in the same
//! request message) is appended too.

use trajhost_codec_sdk::canonical::Body;

use super::{Out, Span, Transcript, type_name};
use crate::native::{self, Entry};

pub fn map(t: &mut Transcript, kind: &str, entry: &Entry<'_>, span: Span, out: &mut Out<'_>) {
    let (subtype, text) = match kind {
        "attachment" => {
            let body = entry.attachment.0.as_ref();
            let sub = body.and_then(|a| a.kind.get()).map(|k| type_name(Some(k)));
            let subtype = match sub {
                Some(sub) => format!("attachment/{sub}"),
                None => "attachment".to_string(),
            };
            let rendered = native::rendered_text(entry.rendered);
            if let Some(rendered) = &rendered
                && let Some(result) = t.held_result()
                && let Body::ToolResult { content, .. } = &mut result.body
            {
                if !content.is_empty() {
                    content.push_str("\n\n");
                }
                content.push_str(rendered);
            }
            let text = body.and_then(|a| a.content.owned().or_else(|| a.text.owned())).or(rendered);
            (subtype, text)
        }
        "queue-operation" => {
            let subtype = match entry.operation.get() {
                Some(op) => format!("queue-operation/{}", type_name(Some(op))),
                None => "queue-operation".to_string(),
            };
            (subtype, entry.content.owned())
        }
        "summary" => (kind.to_string(), entry.summary.owned()),
        "custom-title" => (kind.to_string(), entry.custom_title.owned()),
        "ai-title" => (kind.to_string(), entry.ai_title.owned()),
        "agent-name" => (kind.to_string(), entry.agent_name.owned()),
        "mode" => (kind.to_string(), entry.mode.owned()),
        "permission-mode" => (kind.to_string(), entry.permission_mode.owned()),
        "pr-link" => (kind.to_string(), entry.pr_url.owned().or_else(|| entry.pr_number.0.map(|n| format!("#{n}")))),
        _ => (type_name(Some(kind)), None),
    };
    let id = t.line_id(entry, span, 0);
    let parent = t.links.resolve(entry.parent_uuid.get());
    let ts = t.ts(entry);
    let record = t.record(id, Body::Observation { subtype, text }, parent, ts, span);
    t.emit(out, record);
}
