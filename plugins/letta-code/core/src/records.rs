//! Native record types → canonical records.
//!
//! `messages.jsonl` comes in two formats (named by `manifest.json`):
//! - `pi-ai-message-jsonl` (schema 1, Letta Code 0.25): one pi-ai message per
//!   line, tagged by `role`;
//! - `pi-session-entry-jsonl` (schema 2): entries tagged by `type`
//!   (`session` header, `message` and `compaction`, each wrapping a message).
//!
//! A message can be appended again with the same `id` (a later snapshot of
//! it); the last snapshot wins and sits where the harness puts it, at its
//! last position, so earlier snapshots are skipped (counted in a
//! `superseded-snapshot` diagnostic). Every role, entry type and content
//! part is mapped or counted: `unmapped-record-type` /
//! `unknown-record-type` with details `role:<role>`, `entry:<type>`.

use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Reasoning, Record, SourceSpan, Usage};
use trajhost_codec_sdk::records::location_id;

use trajhost_codec_sdk::json::{count_of, str_of};
use trajhost_codec_sdk::text::type_name;
use trajhost_codec_sdk::time::rfc3339_ms;

pub use trajhost_codec_sdk::known::Handling;
pub use trajhost_codec_sdk::records::Out;

/// Every message `role` (pi-ai messages, in either format).
pub const KNOWN_ROLES: &[(&str, Handling)] = &[
    (
        "user",
        Handling::Mapped(
            "user; observation system-reminder (injected <system-reminder> parts); compaction (metadata.compaction)",
        ),
    ),
    (
        "assistant",
        Handling::Mapped(
            "reasoning (thinking parts), assistant (model, responseId, usage, stopReason), tool_call (toolCall parts); observation api-error (errorMessage)",
        ),
    ),
    ("toolResult", Handling::Mapped("tool_result (isError → ok)")),
];

/// Every entry `type` of the `pi-session-entry-jsonl` format.
pub const KNOWN_ENTRY_TYPES: &[(&str, Handling)] = &[
    ("session", Handling::Mapped("meta (cwd, timestamp)")),
    ("message", Handling::Mapped("the message's records (see KNOWN_ROLES)")),
    ("compaction", Handling::Mapped("compaction (summary, details.stats.trigger)")),
];

/// Every content part type of pi-ai messages.
pub const KNOWN_PARTS: &[&str] = &["text", "thinking", "toolCall", "image"];

pub fn role_handling(role: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_ROLES, role)
}

pub fn entry_handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_ENTRY_TYPES, kind)
}

/// What a line of either format is.
pub enum Row<'a> {
    /// A `session` header (schema 2).
    Header(&'a Value),
    /// A message (schema 1 line, or schema 2 `message` entry); the entry's
    /// timestamp when it is one.
    Message { message: &'a Value, entry_ts: Option<&'a str> },
    /// A schema 2 `compaction` entry.
    Compaction(&'a Value),
    /// A legacy UI row (`parts`, no `content`), which the harness itself
    /// refuses until migrated.
    LegacyUi,
    /// An entry type never seen.
    UnknownEntry(Option<&'a str>),
    /// A message whose role is not one of [`KNOWN_ROLES`].
    UnknownRole(Option<&'a str>),
}

pub fn classify(value: &Value) -> Row<'_> {
    if let Some(kind) = str_of(value, "type").filter(|_| value.get("role").is_none()) {
        return match kind {
            "session" => Row::Header(value),
            "message" => match value.get("message") {
                Some(m) if role_handling(str_of(m, "role").unwrap_or("")).is_some() => {
                    Row::Message { message: m, entry_ts: str_of(value, "timestamp") }
                }
                Some(m) => Row::UnknownRole(str_of(m, "role")),
                None => Row::UnknownEntry(Some("message")),
            },
            "compaction" => Row::Compaction(value),
            other => Row::UnknownEntry(Some(other)),
        };
    }
    if value.get("parts").is_some_and(Value::is_array) && value.get("content").is_none_or(Value::is_null) {
        return Row::LegacyUi;
    }
    match str_of(value, "role") {
        Some(role) if role_handling(role).is_some() => Row::Message { message: value, entry_ts: None },
        other => Row::UnknownRole(other),
    }
}

/// The id a line's message is known by (for the last-snapshot rule).
pub fn message_id(value: &Value) -> Option<&str> {
    match classify(value) {
        Row::Message { message, .. } => str_of(message, "id"),
        Row::Compaction(entry) => entry.get("message").and_then(|m| str_of(m, "id")).or_else(|| str_of(entry, "id")),
        _ => None,
    }
}

/// Maps one line at `span` of `file`.
pub fn map_line(file: &str, value: &Value, span: (u64, u64), out: &mut Out<'_>) {
    match classify(value) {
        Row::Header(_) => {}
        Row::Message { message, entry_ts } => map_message(file, message, entry_ts, span, out),
        Row::Compaction(entry) => {
            let id = entry.get("message").and_then(|m| str_of(m, "id")).or_else(|| str_of(entry, "id"));
            let trigger = entry.get("details").and_then(|d| d.get("stats")).and_then(|s| str_of(s, "trigger"));
            let body = Body::Compaction {
                summary: str_of(entry, "summary").unwrap_or("").to_string(),
                trigger: trigger.map(str::to_string),
            };
            push(out, file, id, 0, body, str_of(entry, "timestamp").map(str::to_string), span);
        }
        Row::LegacyUi => {
            out.diags.add("unmapped-record-type", Severity::Warning, "legacy-ui-row", Some(file), Some(span.0));
        }
        Row::UnknownEntry(kind) => {
            out.diags.add(
                "unknown-record-type",
                Severity::Warning,
                &format!("entry:{}", type_name(kind)),
                Some(file),
                Some(span.0),
            );
        }
        Row::UnknownRole(role) => {
            out.diags.add(
                "unknown-record-type",
                Severity::Warning,
                &format!("role:{}", type_name(role)),
                Some(file),
                Some(span.0),
            );
        }
    }
}

fn map_message(file: &str, m: &Value, entry_ts: Option<&str>, span: (u64, u64), out: &mut Out<'_>) {
    let id = str_of(m, "id");
    let ts = m
        .get("timestamp")
        .and_then(Value::as_i64)
        .map(rfc3339_ms)
        .or_else(|| entry_ts.map(str::to_string))
        .or_else(|| m.get("metadata").and_then(|md| str_of(md, "created_at")).map(str::to_string));
    let content = m.get("content").unwrap_or(&Value::Null);
    let parts: Vec<&Value> = match content {
        Value::Array(parts) => parts.iter().collect(),
        _ => Vec::new(),
    };
    for part in &parts {
        let kind = str_of(part, "type");
        if !kind.is_some_and(|k| KNOWN_PARTS.contains(&k)) {
            out.diags.add("unmapped-content-part", Severity::Info, &type_name(kind), Some(file), Some(span.0));
        }
    }
    let texts = |keep: &dyn Fn(&str) -> bool| -> Vec<&str> {
        let mut v: Vec<&str> = match content {
            Value::String(s) => vec![s.as_str()],
            _ => parts.iter().filter(|p| str_of(p, "type") == Some("text")).filter_map(|p| str_of(p, "text")).collect(),
        };
        v.retain(|t| keep(t));
        v
    };
    match str_of(m, "role") {
        Some("user") => {
            if let Some(c) = m.get("metadata").and_then(|md| md.get("compaction")) {
                let body = Body::Compaction {
                    summary: str_of(c, "summary").unwrap_or("").to_string(),
                    trigger: c.get("stats").and_then(|s| str_of(s, "trigger")).map(str::to_string),
                };
                push(out, file, id, 0, body, ts, span);
                return;
            }
            let injected = texts(&|t| is_reminder(t));
            let said = texts(&|t| !is_reminder(t));
            let attachments: Vec<Attachment> = parts
                .iter()
                .filter(|p| str_of(p, "type") == Some("image"))
                .map(|p| Attachment { kind: "image".into(), media_type: str_of(p, "mimeType").map(str::to_string) })
                .collect();
            // The person's text keeps the message id; the injected reminders
            // (which come first in the message) are `<id>#1`.
            let has_user = !said.is_empty() || !attachments.is_empty() || injected.is_empty();
            if !injected.is_empty() {
                let body = Body::Observation { subtype: "system-reminder".into(), text: Some(injected.join("\n")) };
                push(out, file, id, usize::from(has_user), body, ts.clone(), span);
            }
            if has_user {
                push(out, file, id, 0, Body::User { text: said.join("\n"), attachments }, ts, span);
            }
        }
        Some("assistant") => {
            let mut index = 0;
            for part in parts.iter().filter(|p| str_of(p, "type") == Some("thinking")) {
                let signature = str_of(part, "thinkingSignature").filter(|s| !s.is_empty());
                let redacted = part.get("redacted").and_then(Value::as_bool).unwrap_or(false);
                let reasoning = Reasoning {
                    text: str_of(part, "thinking").filter(|t| !t.is_empty() && !redacted).map(str::to_string),
                    opaque: signature.map(str::to_string),
                    encrypted: redacted,
                };
                push(out, file, id, index, Body::Reasoning(reasoning), ts.clone(), span);
                index += 1;
            }
            let provider = m.get("metadata").and_then(|md| md.get("provider"));
            let assistant = Assistant {
                text: texts(&|_| true).join(""),
                model: str_of(m, "model").or_else(|| provider.and_then(|p| str_of(p, "model_id"))).map(str::to_string),
                message_id: str_of(m, "responseId")
                    .or_else(|| provider.and_then(|p| str_of(p, "response_id")))
                    .map(str::to_string),
                stop_reason: str_of(m, "stopReason").map(str::to_string),
                usage: m.get("usage").and_then(usage),
            };
            push(out, file, id, index, Body::Assistant(assistant), ts.clone(), span);
            index += 1;
            for part in parts.iter().filter(|p| str_of(p, "type") == Some("toolCall")) {
                let arguments = match part.get("arguments") {
                    Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone())),
                    Some(v) => v.clone(),
                    None => Value::Null,
                };
                let body = Body::ToolCall {
                    call_id: str_of(part, "id").unwrap_or("").to_string(),
                    name: str_of(part, "name").unwrap_or("").to_string(),
                    arguments,
                };
                push(out, file, id, index, body, ts.clone(), span);
                index += 1;
            }
            if let Some(error) = str_of(m, "errorMessage").filter(|e| !e.is_empty()) {
                let body = Body::Observation { subtype: "api-error".into(), text: Some(error.to_string()) };
                push(out, file, id, index, body, ts, span);
            }
        }
        Some("toolResult") => {
            let body = Body::ToolResult {
                call_id: str_of(m, "toolCallId").unwrap_or("").to_string(),
                content: texts(&|_| true).join("\n"),
                ok: m.get("isError").and_then(Value::as_bool).map(|e| !e),
            };
            push(out, file, id, 0, body, ts, span);
        }
        _ => {}
    }
}

/// A text part Letta Code injected into a user message.
pub fn is_reminder(text: &str) -> bool {
    text.trim_start().starts_with("<system-reminder>")
}

/// pi-ai `Usage{input, output, cacheRead, cacheWrite, totalTokens, cost}`
/// in canonical form (`input` excludes cache reads). All-zero counts are the
/// harness's placeholder for "no usage reported", not a measurement: `None`.
/// A zero cost is an unpriced model: left out.
fn usage(u: &Value) -> Option<Usage> {
    let usage = Usage {
        input: count_of(u, "input"),
        output: count_of(u, "output"),
        cache_read: count_of(u, "cacheRead"),
        cache_write: count_of(u, "cacheWrite"),
        reasoning: None,
        cost_usd: u.get("cost").and_then(|c| c.get("total")).and_then(Value::as_f64).filter(|c| *c > 0.0),
    };
    let counts = [usage.input, usage.output, usage.cache_read, usage.cache_write];
    (counts.iter().any(|c| c.is_some_and(|n| n > 0)) || usage.cost_usd.is_some()).then_some(usage)
}

fn push(
    out: &mut Out<'_>,
    file: &str,
    id: Option<&str>,
    index: usize,
    body: Body,
    ts: Option<String>,
    span: (u64, u64),
) {
    let id = match id.filter(|i| !i.is_empty()) {
        Some(id) if index == 0 => id.to_string(),
        Some(id) => format!("{id}#{index}"),
        None => location_id(crate::layout::MESSAGES, span.0, index),
    };
    out.writer.push(&Record {
        id,
        body,
        parent: None,
        ts,
        agent: None,
        src: Some(SourceSpan { file: file.to_string(), offset: span.0, len: span.1 }),
    });
}
