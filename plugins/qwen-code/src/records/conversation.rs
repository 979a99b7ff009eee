//! `user`, `assistant` and `tool_result` records: the conversation the model
//! saw, in Gemini `Content` form.
//!
//! An assistant record carries one model response: `thought` parts
//! (reasoning), text, and `functionCall` parts with their ids, plus the
//! served model and `usageMetadata`. A `tool_result` record answers one
//! call with a `functionResponse` part and records the call's status in
//! `toolCallResult`.

use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Body, Reasoning, Usage};

use super::{Out, Span, Transcript, type_name};
use crate::layout;
use crate::native::{Content, Entry, FunctionResponse, UsageMetadata};
use trajhost_codec_sdk::genai::attachment;

/// Largest spilled tool output read back into a record.
const MAX_SPILLED_BYTES: u64 = 16 << 20;
/// How Qwen Code marks a tool result it truncated (the full output went to
/// a file under `~/.qwen/tmp/`).
const TRUNCATED_MARK: &str = "Tool output was too large and has been truncated.";
const SAVED_AT: &str = "The full output has been saved to: ";

pub fn user(t: &mut Transcript, entry: &Entry, span: Span, out: &mut Out<'_>) -> bool {
    let Some(message) = &entry.message else {
        out.diags.add("missing-field", Severity::Warning, "user.message", Some(&t.file), Some(span.offset));
        return false;
    };
    let mut attachments = Vec::new();
    let mut responses = Vec::new();
    check_content(t, "user", &message.parts, span, out);
    for part in message.parts.parts() {
        if let Some(fr) = &part.function_response {
            responses.push(fr);
        } else if let Some(blob) = part.inline_data.as_ref().or(part.file_data.as_ref()) {
            attachments.push(attachment(blob.mime_type.as_deref()));
        }
    }
    let text = message.parts.text();
    let parent = t.parent(entry);
    let mut index = 0;
    let mut emitted = false;
    if !text.is_empty() || !attachments.is_empty() {
        // A notification the harness writes in the user's role (a
        // background task finished, …) is not a prompt.
        let body = if entry.subtype.as_deref() == Some("notification") {
            Body::Observation { subtype: "notification".into(), text: Some(text) }
        } else {
            Body::User { text, attachments }
        };
        let record = t.record(entry, t.line_id(entry, span, 0), body, parent.clone(), span);
        out.writer.push(&record);
        index += 1;
        emitted = true;
    }
    for fr in responses {
        let record = result_record(t, entry, fr, None, index, span, out);
        out.writer.push(&record);
        index += 1;
        emitted = true;
    }
    emitted
}

pub fn assistant(t: &mut Transcript, entry: &Entry, span: Span, out: &mut Out<'_>) -> bool {
    let Some(message) = &entry.message else {
        out.diags.add("missing-field", Severity::Warning, "assistant.message", Some(&t.file), Some(span.offset));
        return false;
    };
    check_content(t, "assistant", &message.parts, span, out);
    let id = t.line_id(entry, span, 0);
    let parent = t.parent(entry);
    let parts = message.parts.parts();
    // Reasoning first, as the model produced it, then the response, then its calls.
    let mut index = 1;
    for part in parts.iter().filter(|p| p.is_thought()) {
        let body = Body::Reasoning(Reasoning { text: part.text.clone(), opaque: None, encrypted: false });
        let record = t.record(entry, t.line_id(entry, span, index), body, Some(id.clone()), span);
        out.writer.push(&record);
        index += 1;
    }
    let assistant = Assistant {
        text: message.parts.text(),
        model: entry.model.clone().filter(|m| !m.is_empty()),
        message_id: entry.uuid.clone(),
        stop_reason: None,
        usage: entry.usage_metadata.as_ref().and_then(usage),
    };
    let record = t.record(entry, id.clone(), Body::Assistant(assistant), parent, span);
    out.writer.push(&record);
    for part in parts {
        let Some(fc) = &part.function_call else { continue };
        let call_id = fc.id.clone().filter(|c| !c.is_empty()).unwrap_or_else(|| t.line_id(entry, span, index));
        index += 1;
        let body = Body::ToolCall {
            call_id: call_id.clone(),
            name: fc.name.clone().unwrap_or_default(),
            arguments: fc.args.clone().unwrap_or(Value::Null),
        };
        let record = t.record(entry, call_id, body, Some(id.clone()), span);
        out.writer.push(&record);
    }
    true
}

pub fn tool_result(t: &mut Transcript, entry: &Entry, span: Span, out: &mut Out<'_>) -> bool {
    let responses: Vec<&FunctionResponse> = entry
        .message
        .as_ref()
        .map(|m| m.parts.parts().iter().filter_map(|p| p.function_response.as_ref()).collect())
        .unwrap_or_default();
    if let Some(message) = &entry.message {
        check_content(t, "tool_result", &message.parts, span, out);
    }
    let ok = entry.tool_call_result.as_ref().and_then(|r| status_ok(r.status.as_deref()));
    if responses.is_empty() {
        // A result without the response part: what `toolCallResult` says.
        let Some(result) = &entry.tool_call_result else {
            out.diags.add("missing-field", Severity::Warning, "tool_result.message", Some(&t.file), Some(span.offset));
            return false;
        };
        let call_id = result.call_id.clone().unwrap_or_default();
        let content = result.error.as_ref().map(error_text).unwrap_or_default();
        let body = Body::ToolResult { call_id: call_id.clone(), content, ok };
        let record = t.record(entry, t.line_id(entry, span, 0), body, Some(call_id), span);
        out.writer.push(&record);
        return true;
    }
    let several = responses.len() > 1;
    for (index, fr) in responses.into_iter().enumerate() {
        // `toolCallResult` describes the record's one call.
        let status = if several { None } else { ok };
        let record = result_record(t, entry, fr, status, index, span, out);
        out.writer.push(&record);
    }
    true
}

fn result_record(
    t: &Transcript,
    entry: &Entry,
    fr: &FunctionResponse,
    ok: Option<bool>,
    index: usize,
    span: Span,
    out: &mut Out<'_>,
) -> trajhost_codec_sdk::canonical::Record {
    let call_id = fr
        .id
        .clone()
        .filter(|c| !c.is_empty())
        .or_else(|| entry.tool_call_result.as_ref().and_then(|r| r.call_id.clone()))
        .unwrap_or_default();
    if call_id.is_empty() {
        out.diags.add("missing-field", Severity::Warning, "functionResponse.id", Some(&t.file), Some(span.offset));
    }
    let mut content = fr.text();
    if content.is_empty()
        && let Some(error) = entry.tool_call_result.as_ref().and_then(|r| r.error.as_ref())
    {
        content = error_text(error);
    }
    let content = full_output(t, content, span, out);
    // A result answers its call.
    let body = Body::ToolResult { call_id: call_id.clone(), content, ok };
    t.record(entry, t.line_id(entry, span, index), body, Some(call_id).filter(|c| !c.is_empty()), span)
}

pub use trajhost_codec_sdk::genai::status_ok;

/// Gemini usage counts: `promptTokenCount` includes cached tokens, the
/// canonical input does not.
fn usage(u: &UsageMetadata) -> Option<Usage> {
    let usage = Usage {
        input: u.prompt_token_count.map(|p| p.saturating_sub(u.cached_content_token_count.unwrap_or(0))),
        output: u.candidates_token_count,
        cache_read: u.cached_content_token_count,
        cache_write: None,
        reasoning: u.thoughts_token_count,
        cost_usd: None,
    };
    (usage.input.is_some() || usage.output.is_some() || usage.cache_read.is_some()).then_some(usage)
}

/// `toolCallResult.error`: a message string or `{message}`.
fn error_text(error: &Value) -> String {
    match error {
        Value::String(s) => s.clone(),
        Value::Object(map) => {
            map.get("message").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| error.to_string())
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The full output of a result Qwen Code truncated, from `~/.qwen/tmp/`;
/// the truncated text when the file is gone.
fn full_output(t: &Transcript, content: String, span: Span, out: &mut Out<'_>) -> String {
    if !content.starts_with(TRUNCATED_MARK) {
        return content;
    }
    let Some(at) = content.find(SAVED_AT) else { return content };
    let rest = &content[at + SAVED_AT.len()..];
    let recorded = &rest[..rest.find('\n').unwrap_or(rest.len())];
    let diag = |out: &mut Out<'_>, code: &str, severity: Severity| {
        out.diags.add(code, severity, "tool-output", Some(&t.file), Some(span.offset));
    };
    let Some(path) = layout::spilled_output(recorded) else {
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

/// Reports parts of a kind the codec does not read, and content that is
/// neither text nor parts.
fn check_content(t: &Transcript, role: &str, content: &Content, span: Span, out: &mut Out<'_>) {
    if let Content::Unrecognized = content {
        out.diags.add(
            "unrecognized-content",
            Severity::Warning,
            &format!("{role}.message.parts"),
            Some(&t.file),
            Some(span.offset),
        );
    }
    for part in content.parts() {
        if let Some(kind) = part.unknown_kind() {
            let detail = format!("{role}/{}", type_name(Some(kind)));
            out.diags.add("unknown-content-part", Severity::Warning, &detail, Some(&t.file), Some(span.offset));
        }
    }
}
