//! `system` records with a mapped `subtype`: compression checkpoints become
//! compactions, a user message typed mid-turn is a user record, the rest
//! (titles, slash and @ commands, notifications, rewinds, model and
//! approval-mode changes, the parent session) become observations.

use serde_json::Value;
use trajhost_codec_sdk::canonical::Body;

use super::{Out, Span, Transcript};
use crate::head::payload_str;
use crate::native::{Content, Entry};

pub fn map(t: &mut Transcript, entry: &Entry, span: Span, out: &mut Out<'_>) -> bool {
    let subtype = entry.subtype.as_deref().unwrap_or("");
    let message_text = entry.message.as_ref().map(|m| m.parts.text()).filter(|s| !s.is_empty());
    let payload = |key: &str| payload_str(entry, key);
    let body = match subtype {
        "chat_compression" => match compression_summary(entry) {
            Some(summary) => Body::Compaction { summary, trigger: None },
            None => Body::Observation { subtype: "chat_compression".into(), text: None },
        },
        "mid_turn_user_message" => Body::User {
            text: message_text.or_else(|| payload("displayText")).unwrap_or_default(),
            attachments: Vec::new(),
        },
        "custom_title" => Body::Observation { subtype: subtype.into(), text: payload("customTitle") },
        "slash_command" => {
            let phase = payload("phase").unwrap_or_else(|| "invocation".into());
            Body::Observation { subtype: format!("slash_command/{phase}"), text: payload("rawCommand") }
        }
        "at_command" => Body::Observation { subtype: subtype.into(), text: payload("userText").or(message_text) },
        "notification" | "background_task_completed" | "cron" | "realtime_message" => {
            Body::Observation { subtype: subtype.into(), text: message_text.or_else(|| payload("displayText")) }
        }
        "rewind" => {
            let count = entry.system_payload.as_ref().and_then(|p| p.get("truncatedCount")).and_then(Value::as_u64);
            Body::Observation { subtype: subtype.into(), text: count.map(|n| format!("{n} history items removed")) }
        }
        "parent_session" => Body::Observation { subtype: subtype.into(), text: payload("parentSessionId") },
        "session_model" => Body::Observation { subtype: subtype.into(), text: payload("modelId") },
        "session_approval_mode" => Body::Observation { subtype: subtype.into(), text: payload("mode") },
        _ => Body::Observation {
            subtype: if subtype.is_empty() { "system".into() } else { subtype.into() },
            text: message_text,
        },
    };
    let record = t.record(entry, t.line_id(entry, span, 0), body, t.parent(entry), span);
    out.writer.push(&record);
    true
}

/// The summary of a compression checkpoint: the text of the first user
/// turn of `compressedHistory` (the summary the model continues from).
fn compression_summary(entry: &Entry) -> Option<String> {
    let history = entry.system_payload.as_ref()?.get("compressedHistory")?.as_array()?;
    history.iter().find_map(|content| {
        if content.get("role").and_then(Value::as_str) != Some("user") {
            return None;
        }
        let parts: Content = serde_json::from_value(content.get("parts")?.clone()).ok()?;
        Some(parts.text()).filter(|s| !s.is_empty())
    })
}
