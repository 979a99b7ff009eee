//! Message records: `user`, `gemini` and the `info`/`warning`/`error`
//! notices.
//!
//! A `gemini` message carries the model's text (`content`), its thought
//! summaries (`thoughts`, or `thought` parts in checkpoints), the served
//! model, token counts, and its tool calls with their results and status
//! (`toolCalls`). A `user` message carries the prompt, harness context
//! (`<session_context>`), and `functionResponse` parts that repeat the
//! results already read from the calls.

use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Body, Reasoning};

use super::{Out, Span, Transcript, type_name};
use crate::head::harness_context_kind;
use crate::native::{Content, Line};
use trajhost_codec_sdk::genai::attachment;

/// Largest spilled tool output read back into a record.
const MAX_SPILLED_BYTES: u64 = 16 << 20;
/// How Gemini CLI starts a tool result it truncated (the full output went
/// to a file under `tool-outputs/`).
const TRUNCATED_PREFIX: &str = "Output too large. Showing first ";
const FULL_OUTPUT_AT: &str = "For full output see: ";

pub use trajhost_gemini_cli_core::message::result_id;
use trajhost_gemini_cli_core::message::{no_result, part_calls, result_text, thoughts, unguard_command, usage};

pub fn user(t: &mut Transcript, message: &Line, span: Span, out: &mut Out<'_>) {
    let id = message.id.clone().unwrap_or_default();
    let ts = message.timestamp.clone().or_else(|| t.last_ts.clone());
    let mut attachments = Vec::new();
    let mut responses = Vec::new();
    match &message.content {
        Content::Parts(parts) => {
            for part in parts {
                if let Some(fr) = &part.function_response {
                    responses.push(fr);
                } else if let Some(blob) = part.inline_data.as_ref().or(part.file_data.as_ref()) {
                    attachments.push(attachment(blob.mime_type.as_deref()));
                } else if let Some(kind) = part.unknown_kind() {
                    unknown_part(t, "user", kind, span, out);
                }
            }
        }
        Content::Unrecognized => unrecognized(t, "user.content", span, out),
        Content::Text(_) | Content::None => {}
    }
    let text = message.content.text();
    if !text.is_empty() || !attachments.is_empty() {
        let body = match harness_context_kind(&text) {
            Some(subtype) => Body::Observation { subtype: subtype.into(), text: Some(text) },
            None => Body::User { text: unguard_command(text), attachments },
        };
        let record = t.record(id, body, None, ts.clone(), span);
        t.push(record, out);
    }
    // Tool responses: already read from the call's `result`, unless the call
    // recorded none.
    for fr in responses {
        let call_id = fr.id.clone().unwrap_or_default();
        let rid = result_id(&call_id);
        if t.was_emitted(&rid) {
            out.diags.add(
                "duplicate-tool-response",
                Severity::Info,
                "user/functionResponse",
                Some(&t.file),
                Some(span.offset),
            );
            continue;
        }
        let content = fr.text();
        let content = full_output(t, content, span, out);
        let record = t.record(
            rid,
            Body::ToolResult { call_id: call_id.clone(), content, ok: None },
            Some(call_id),
            ts.clone(),
            span,
        );
        t.push(record, out);
    }
}

pub fn gemini(t: &mut Transcript, message: &Line, span: Span, out: &mut Out<'_>) {
    let id = message.id.clone().unwrap_or_default();
    let ts = message.timestamp.clone().or_else(|| t.last_ts.clone());

    // Thought summaries, numbered alike in both forms so a repeat is recognized.
    let thoughts = thoughts(message.thoughts.as_deref(), &message.content);
    for (n, (text, thought_ts)) in thoughts.into_iter().enumerate() {
        let body = Body::Reasoning(Reasoning { text: Some(text), opaque: None, encrypted: false });
        let record = t.record(format!("{id}#thought{n}"), body, Some(id.clone()), thought_ts.or(ts.clone()), span);
        t.push(record, out);
    }

    if let Content::Unrecognized = message.content {
        unrecognized(t, "gemini.content", span, out);
    }
    for part in message.content.parts() {
        if let Some(kind) = part.unknown_kind() {
            unknown_part(t, "gemini", kind, span, out);
        }
    }
    let assistant = Assistant {
        text: message.content.text(),
        model: message.model.clone().filter(|m| !m.is_empty()),
        message_id: Some(id.clone()),
        stop_reason: None,
        usage: message.tokens.as_ref().and_then(usage),
    };
    let record = t.record(id.clone(), Body::Assistant(assistant), None, ts.clone(), span);
    t.push(record, out);

    // Calls: the tool call records, then calls only in the content parts.
    let calls = message.tool_calls.as_deref().unwrap_or(&[]);
    let mut call_ids = Vec::new();
    for (n, call) in calls.iter().enumerate() {
        let call_id = call.id.clone().unwrap_or_else(|| format!("{id}#call{n}"));
        if let Some(agent) = call.agent_id.as_deref().filter(|a| !a.is_empty()) {
            t.agent_calls.insert(agent.to_string(), call_id.clone());
        }
        let record = t.record(call_id.clone(), call.body(&call_id), Some(id.clone()), ts.clone(), span);
        t.push(record, out);
        call_ids.push(call_id);
    }
    for (call_id, body) in part_calls(&message.content, &id, &call_ids) {
        let record = t.record(call_id, body, Some(id.clone()), ts.clone(), span);
        t.push(record, out);
    }

    // Results, with the status the call recorded.
    for (call, call_id) in calls.iter().zip(&call_ids) {
        if no_result(&call.result) {
            continue;
        }
        let rid = result_id(call_id);
        if t.was_emitted(&rid) {
            continue;
        }
        let content = result_text(&call.result);
        let content = full_output(t, content, span, out);
        let ok = status_ok(call.status.as_deref());
        let result_ts = call.timestamp.clone().or(ts.clone());
        let record = t.record(
            rid,
            Body::ToolResult { call_id: call_id.clone(), content, ok },
            Some(call_id.clone()),
            result_ts,
            span,
        );
        t.push(record, out);
    }
}

/// `info`, `warning` and `error` messages: the harness talking to the person.
pub fn notice(t: &mut Transcript, kind: &str, message: &Line, span: Span, out: &mut Out<'_>) {
    let ts = message.timestamp.clone().or_else(|| t.last_ts.clone());
    let body = Body::Observation { subtype: kind.to_string(), text: Some(message.content.text()) };
    let record = t.record(message.id.clone().unwrap_or_default(), body, None, ts, span);
    t.push(record, out);
}

pub use trajhost_codec_sdk::genai::status_ok;

/// The full output of a result Gemini CLI truncated, from
/// `<project>/tool-outputs/`; the truncated text when the file is gone.
fn full_output(t: &Transcript, content: String, span: Span, out: &mut Out<'_>) -> String {
    if !content.starts_with(TRUNCATED_PREFIX) {
        return content;
    }
    let Some(at) = content.find(FULL_OUTPUT_AT) else { return content };
    let rest = &content[at + FULL_OUTPUT_AT.len()..];
    let recorded = &rest[..rest.find('\n').unwrap_or(rest.len())];
    let diag = |out: &mut Out<'_>, code: &str, severity: Severity| {
        out.diags.add(code, severity, "tool-outputs", Some(&t.file), Some(span.offset));
    };
    let Some(path) = t.paths.spilled_output(recorded) else {
        diag(out, "persisted-output-missing", Severity::Info);
        return content;
    };
    match out.home.read_to_end(&path, MAX_SPILLED_BYTES) {
        Ok(bytes) => trajhost_codec_sdk::text::lossy(bytes),
        Err(trajhost_codec_sdk::fs::FsError::LimitExceeded(_)) => {
            diag(out, "persisted-output-too-large", Severity::Warning);
            content
        }
        Err(_) => {
            diag(out, "persisted-output-missing", Severity::Info);
            content
        }
    }
}

fn unknown_part(t: &Transcript, role: &str, kind: &str, span: Span, out: &mut Out<'_>) {
    let detail = format!("{role}/{}", type_name(Some(kind)));
    out.diags.add("unknown-content-part", Severity::Warning, &detail, Some(&t.file), Some(span.offset));
}

fn unrecognized(t: &Transcript, field: &str, span: Span, out: &mut Out<'_>) {
    out.diags.add("unrecognized-content", Severity::Warning, field, Some(&t.file), Some(span.offset));
}
