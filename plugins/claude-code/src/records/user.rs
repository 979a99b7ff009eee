//! `user` lines: what the person typed, tool results, and harness-injected
//! text that rides in user lines.
//!
//! `message.content` is a string or a block list: `text` blocks are the
//! prompt, `image`/`document` blocks are attachments, `tool_result` blocks
//! answer the assistant's `tool_use` by id. Flags change the meaning of the
//! whole line: `isCompactSummary` is the summary that replaces the history
//! before a compact boundary; `isMeta` marks text the harness injected
//! (caveats, skill bodies) that the person did not type. The interrupt
//! marker Claude Code writes when the person stops a response is an
//! `observation {subtype: "interrupt"}`, not a prompt.

use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Attachment, Body};

use super::{Hold, Out, Span, Transcript, type_name};
use crate::layout;
use crate::native::{Block, Content, Entry, ToolUseResult};

/// Largest spilled tool output read back into a record.
const MAX_PERSISTED_BYTES: u64 = 16 << 20;
/// How Claude Code marks a tool result whose full output went to a file.
const PERSISTED_TAG: &str = "<persisted-output>";
const PERSISTED_PATH_PREFIX: &str = "Full output saved to: ";

/// What Claude Code writes as a user line's text when the person stops a
/// response (`[Request interrupted by user]`) or a tool run (`… for tool
/// use]`): a harness marker, not a prompt.
const INTERRUPT_PREFIX: &str = "[Request interrupted by user";

/// Whether a user line's text is the harness's interrupt marker.
pub fn is_interrupt_marker(text: &str) -> bool {
    let text = text.trim();
    text.starts_with(INTERRUPT_PREFIX) && text.ends_with(']') && !text.contains('\n')
}

/// One record a user line yields, in block order.
enum Part {
    /// Where the text (and attachments) record goes: at the first text or
    /// attachment block.
    Text,
    Result {
        call_id: String,
        content: String,
        ok: Option<bool>,
    },
}

pub fn map(t: &mut Transcript, entry: &Entry<'_>, span: Span, out: &mut Out<'_>) {
    let ts = t.ts(entry);
    let parent = t.links.resolve(entry.parent_uuid.get());
    let Some(message) = &entry.message.0 else {
        out.diags.add("missing-field", Severity::Warning, "user.message", Some(&t.file), Some(span.offset));
        return;
    };

    let mut text = String::new();
    let mut attachments = Vec::new();
    let mut parts = Vec::new();
    match &message.content {
        Content::Text(s) => {
            text.push_str(s);
            parts.push(Part::Text);
        }
        Content::Blocks(blocks) => {
            let results = blocks.iter().filter(|b| b.kind.get() == Some("tool_result")).count();
            for block in blocks {
                match block.kind.get().unwrap_or("") {
                    "text" => {
                        if !text.is_empty() {
                            text.push_str("\n\n");
                        }
                        text.push_str(block.text.get().unwrap_or(""));
                        if !parts.iter().any(|p| matches!(p, Part::Text)) {
                            parts.push(Part::Text);
                        }
                    }
                    kind @ ("image" | "document") => {
                        attachments.push(Attachment {
                            kind: kind.to_string(),
                            media_type: block.source.0.as_ref().and_then(|s| s.media_type.owned()),
                        });
                        if !parts.iter().any(|p| matches!(p, Part::Text)) {
                            parts.push(Part::Text);
                        }
                    }
                    "tool_result" => {
                        // `toolUseResult` describes the line's only result.
                        let detail = if results == 1 { entry.tool_use_result } else { None };
                        parts.push(tool_result(t, block, detail, span, out));
                    }
                    other => out.diags.add(
                        "unknown-content-block",
                        Severity::Warning,
                        &format!("user/{}", type_name(Some(other))),
                        Some(&t.file),
                        Some(span.offset),
                    ),
                }
            }
        }
        Content::None => {
            out.diags.add("missing-field", Severity::Warning, "user.message.content", Some(&t.file), Some(span.offset));
        }
    }

    if parts.is_empty() {
        // Nothing to emit (an empty block list): keep the chain resolvable.
        if let Some(uuid) = entry.uuid.get() {
            t.links.alias(uuid, parent);
        }
        return;
    }
    let mut text = Some(text);
    let mut attachments = Some(attachments);
    for (index, part) in parts.into_iter().enumerate() {
        let id = t.line_id(entry, span, index);
        let (record, hold) = match part {
            Part::Text => {
                let text = text.take().unwrap_or_default();
                let attachments = attachments.take().unwrap_or_default();
                let body = if entry.is_compact_summary.is_true() {
                    Body::Compaction { summary: text, trigger: t.compact_trigger.take() }
                } else if entry.is_meta.is_true() {
                    Body::Observation { subtype: "meta-user".into(), text: Some(text) }
                } else if attachments.is_empty() && is_interrupt_marker(&text) {
                    Body::Observation { subtype: "interrupt".into(), text: Some(text) }
                } else {
                    Body::User { text, attachments }
                };
                (t.record(id, body, parent.clone(), ts.clone(), span), None)
            }
            Part::Result { call_id, content, ok } => {
                // A result answers its call.
                let answers = Some(call_id.clone());
                let record = t.record(id, Body::ToolResult { call_id, content, ok }, answers, ts.clone(), span);
                // Held: an attachment rendered into it may follow.
                (record, Some(Hold::Result))
            }
        };
        match hold {
            Some(what) => t.hold(out, record, what),
            None => t.emit(out, record),
        }
    }
}

/// A `tool_result` block. `is_error` is passed through only when present.
fn tool_result(
    t: &Transcript,
    block: &Block<'_>,
    detail: Option<&serde_json::value::RawValue>,
    span: Span,
    out: &mut Out<'_>,
) -> Part {
    let call_id = block.tool_use_id.owned().unwrap_or_default();
    if call_id.is_empty() {
        out.diags.add("missing-field", Severity::Warning, "tool_result.tool_use_id", Some(&t.file), Some(span.offset));
    }
    let mut content = content_text(&block.content);
    if content.contains(PERSISTED_TAG)
        && let Some(full) = persisted_output(t, &content, detail, span, out)
    {
        content = full;
    }
    Part::Result { call_id, content, ok: block.is_error.0.map(|is_error| !is_error) }
}

/// The text of a tool result's content: the string, or its text blocks one
/// per line, with a note in place of each image.
pub(super) fn content_text(content: &Content<'_>) -> String {
    match content {
        Content::None => String::new(),
        Content::Text(s) => s.to_string(),
        Content::Blocks(blocks) => {
            let mut out = String::new();
            for block in blocks {
                if !out.is_empty() {
                    out.push('\n');
                }
                match block.kind.get().unwrap_or("") {
                    "text" => out.push_str(block.text.get().unwrap_or("")),
                    "image" => {
                        let media = block.source.0.as_ref().and_then(|s| s.media_type.get()).unwrap_or("unknown type");
                        out.push_str(&format!("[image: {media}]"));
                    }
                    // Server tool results (web search) list pages.
                    _ if block.url.get().is_some() => {
                        out.push_str(block.title.get().unwrap_or(""));
                        out.push_str(" <");
                        out.push_str(block.url.get().unwrap_or(""));
                        out.push('>');
                    }
                    other => out.push_str(&format!("[{}]", type_name(Some(other)))),
                }
            }
            out
        }
    }
}

/// The full output of a tool whose result Claude Code spilled to
/// `<session>/tool-results/<file>` (the transcript keeps a 2 KB preview).
/// The recorded path is absolute in the original home; only its file name
/// is used, looked up in this session's directory.
fn persisted_output(
    t: &Transcript,
    preview: &str,
    detail: Option<&serde_json::value::RawValue>,
    span: Span,
    out: &mut Out<'_>,
) -> Option<String> {
    let recorded: Option<ToolUseResult<'_>> = detail.and_then(|raw| serde_json::from_str(raw.get()).ok());
    let path = recorded.as_ref().and_then(|r| r.persisted_output_path.owned()).or_else(|| {
        let start = preview.find(PERSISTED_PATH_PREFIX)? + PERSISTED_PATH_PREFIX.len();
        let rest = &preview[start..];
        Some(rest[..rest.find('\n').unwrap_or(rest.len())].trim().to_string())
    })?;
    let name = path.rsplit('/').next().unwrap_or("");
    let diag = |out: &mut Out<'_>, code: &str, severity: Severity| {
        out.diags.add(code, severity, "tool-results", Some(&t.file), Some(span.offset));
    };
    if !layout::plain_file_name(name) {
        diag(out, "persisted-output-missing", Severity::Info);
        return None;
    }
    match out.home.read_to_end(&t.paths.tool_result(name), MAX_PERSISTED_BYTES) {
        Ok(bytes) => {
            let expected = recorded.and_then(|r| r.persisted_output_size.0);
            if expected.is_some_and(|n| n != bytes.len() as u64) {
                diag(out, "persisted-output-size-mismatch", Severity::Info);
            }
            Some(trajhost_codec_sdk::text::lossy(bytes))
        }
        Err(trajhost_codec_sdk::fs::FsError::LimitExceeded(_)) => {
            diag(out, "persisted-output-too-large", Severity::Warning);
            None
        }
        Err(_) => {
            // Cleaned up or not copied with the transcript: keep the preview.
            diag(out, "persisted-output-missing", Severity::Info);
            None
        }
    }
}
