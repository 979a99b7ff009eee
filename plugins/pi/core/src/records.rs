//! Native entries → canonical records.
//!
//! Every entry `type` (and every message `role`) is either mapped (see
//! [`PI_ENTRY_TYPES`], [`OMP_ENTRY_TYPES`], [`KNOWN_MESSAGE_ROLES`]) or
//! counted in a diagnostic: `unmapped-record-type` for types the codec
//! knows and leaves out on purpose, `unknown-record-type` for types it has
//! never seen. Nothing is dropped silently.
//!
//! Ids: an entry's main record has the entry's own `id` (8 hex characters,
//! unique in the file); the other records of the entry are `<id>#<n>`, `n`
//! the content block index (`<id>#error` for an assistant error message).
//! Records of entries without an `id` (format v1) get their byte location,
//! and the entry before them as their parent.
//! `parent` is the entry's `parentId`, resolved past entries that produced
//! no record; the extra records of an entry name its main record.
//!
//! An assistant message becomes, in this order: a `reasoning` record per
//! thinking block, one `assistant` record (all text blocks joined by `\n`,
//! model, usage, stop reason, response id) and a `tool_call` per tool call
//! block — the order a model emits them.

use std::collections::BTreeMap;

use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Reasoning, Record, SourceSpan, Usage};
use trajhost_codec_sdk::records::location_id;

use crate::Flavor;
use crate::native::{content_text, count_of, number_of, str_of, string_of, type_name};

pub use trajhost_codec_sdk::known::Handling;
pub use trajhost_codec_sdk::records::{Out, Span};

/// Entry types Pi writes (`session-manager.ts`, format v3).
pub const PI_ENTRY_TYPES: &[(&str, Handling)] = &[
    ("session", Handling::Mapped("meta (the header line)")),
    ("message", Handling::Mapped("by role, see KNOWN_MESSAGE_ROLES")),
    ("model_change", Handling::Mapped("observation model_change")),
    ("thinking_level_change", Handling::Mapped("observation thinking_level_change")),
    ("compaction", Handling::Mapped("compaction (placed before its first kept entry)")),
    ("branch_summary", Handling::Mapped("observation branch_summary")),
    ("custom_message", Handling::Mapped("observation custom_message/<customType>")),
    ("label", Handling::Mapped("observation label")),
    ("session_info", Handling::Mapped("observation session_info")),
    // Extension state, never sent to the model.
    ("custom", Handling::Reported),
];

/// Entry types Oh My Pi 18.x writes (`session/session-entries.ts`).
pub const OMP_ENTRY_TYPES: &[(&str, Handling)] = &[
    (
        "title",
        Handling::Mapped("meta.title (the fixed-width title slot line); observation title (an entry with an id)"),
    ),
    ("session", Handling::Mapped("meta (the header line)")),
    ("message", Handling::Mapped("by role, see KNOWN_MESSAGE_ROLES")),
    ("model_change", Handling::Mapped("observation model_change")),
    ("thinking_level_change", Handling::Mapped("observation thinking_level_change")),
    ("service_tier_change", Handling::Mapped("observation service_tier_change")),
    ("mode_change", Handling::Mapped("observation mode_change")),
    ("title_change", Handling::Mapped("observation title_change")),
    ("ttsr_injection", Handling::Mapped("observation ttsr_injection")),
    ("compaction", Handling::Mapped("compaction (placed before its first kept entry)")),
    ("reset_boundary", Handling::Mapped("compaction with an empty summary, trigger reset_boundary")),
    ("branch_summary", Handling::Mapped("observation branch_summary")),
    ("custom_message", Handling::Mapped("observation custom_message/<customType>")),
    ("label", Handling::Mapped("observation label")),
    ("session_init", Handling::Mapped("system (the subagent's system prompt)")),
    ("session_info", Handling::Mapped("observation session_info")),
    // Extension state (tool_execution_start, session_exit, …), usage of side
    // calls that are not part of the transcript, a hash of the serving account.
    ("custom", Handling::Reported),
    ("model_usage", Handling::Reported),
    ("credential_pin", Handling::Reported),
];

/// `message.role` values of Pi and Oh My Pi.
pub const KNOWN_MESSAGE_ROLES: &[(&str, Handling)] = &[
    ("user", Handling::Mapped("user")),
    ("developer", Handling::Mapped("system")),
    ("assistant", Handling::Mapped("reasoning, assistant, tool_call, observation error")),
    ("toolResult", Handling::Mapped("tool_result")),
    ("bashExecution", Handling::Mapped("observation bash_execution")),
    ("pythonExecution", Handling::Mapped("observation python_execution")),
    ("custom", Handling::Mapped("observation custom_message/<customType>")),
    ("hookMessage", Handling::Mapped("observation custom_message/<customType>")),
    ("branchSummary", Handling::Mapped("observation branch_summary")),
    ("compactionSummary", Handling::Mapped("compaction")),
    ("fileMention", Handling::Mapped("observation file_mention")),
];

/// How `kind` is handled in `flavor`; `None` for a type never seen.
pub fn handling(flavor: &Flavor, kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(flavor.entry_types, kind)
}

/// The mapping state of one session file.
pub struct Mapper<'f> {
    pub flavor: &'f Flavor,
    /// The file, relative to the home: what `src.file` says.
    pub file: String,
    /// Entry ids of entries that produced no record → the parent to use instead.
    pub skipped: BTreeMap<String, Option<String>>,
}

impl<'f> Mapper<'f> {
    pub fn new(flavor: &'f Flavor, file: String) -> Mapper<'f> {
        Mapper { flavor, file, skipped: BTreeMap::new() }
    }

    fn src(&self, span: Span) -> Option<SourceSpan> {
        Some(SourceSpan { file: self.file.clone(), offset: span.offset, len: span.len })
    }

    /// The record `parentId` points at.
    fn resolve(&self, parent: Option<&str>) -> Option<String> {
        let mut current = parent?.to_string();
        // Skipped entries form chains at most as long as the file.
        for _ in 0..self.skipped.len() + 1 {
            match self.skipped.get(&current) {
                Some(Some(up)) => current = up.clone(),
                Some(None) => return None,
                None => return Some(current),
            }
        }
        Some(current)
    }

    /// Reports an entry (or role) type, as `unmapped-record-type` or `unknown-record-type`.
    fn report(&self, out: &mut Out<'_>, known: bool, detail: &str, span: Span) {
        let (code, severity) =
            if known { ("unmapped-record-type", Severity::Info) } else { ("unknown-record-type", Severity::Warning) };
        out.diags.add(code, severity, detail, Some(&self.file), Some(span.offset));
    }

    /// Maps one entry (not the header or title slot). `implicit_parent`:
    /// the entry before an entry without an id (format v1, a list).
    pub fn entry(&mut self, v: &Value, span: Span, implicit_parent: Option<&str>, out: &mut Out<'_>) {
        let kind = str_of(v, "type").unwrap_or("");
        let native_id = string_of(v, "id");
        let eid = native_id.clone().unwrap_or_else(|| location_id(&self.file, span.offset, 0));
        let parent_raw = match native_id {
            Some(_) => str_of(v, "parentId"),
            None => str_of(v, "parentId").or(implicit_parent),
        };
        let parent = self.resolve(parent_raw);
        let ts = string_of(v, "timestamp");
        let observation =
            |subtype: &str, text: Option<String>| Body::Observation { subtype: subtype.to_string(), text };
        let mut emitted = 0usize;
        let body = match handling(self.flavor, kind) {
            None => {
                self.report(out, false, &type_name(Some(kind)), span);
                None
            }
            Some(Handling::Reported) => {
                let detail = match str_of(v, "customType") {
                    Some(custom) => format!("{}/{}", type_name(Some(kind)), type_name(Some(custom))),
                    None => type_name(Some(kind)),
                };
                self.report(out, true, &detail, span);
                None
            }
            Some(Handling::Mapped(_)) => match kind {
                "message" => {
                    let message = v.get("message").unwrap_or(&Value::Null);
                    emitted += self.message(&eid, parent.clone(), ts.clone(), message, span, out);
                    None
                }
                "model_change" => {
                    let model = if let Some(m) = string_of(v, "model") {
                        Some(m)
                    } else {
                        match (str_of(v, "provider"), str_of(v, "modelId")) {
                            (Some(p), Some(m)) => Some(format!("{p}/{m}")),
                            (None, Some(m)) => Some(m.to_string()),
                            _ => None,
                        }
                    };
                    Some(observation("model_change", model))
                }
                "thinking_level_change" => Some(observation("thinking_level_change", string_of(v, "thinkingLevel"))),
                "service_tier_change" => {
                    let tier = v.get("serviceTier").filter(|t| !t.is_null()).map(Value::to_string);
                    Some(observation("service_tier_change", tier))
                }
                "mode_change" => Some(observation("mode_change", string_of(v, "mode"))),
                "title_change" => Some(observation("title_change", string_of(v, "title"))),
                // A title written as an entry of the chain (the slot is read by the head).
                "title" => Some(observation("title", string_of(v, "title"))),
                "session_info" => Some(observation("session_info", string_of(v, "name"))),
                "label" => Some(observation("label", string_of(v, "label"))),
                "ttsr_injection" => {
                    let rules = v
                        .get("injectedRules")
                        .and_then(Value::as_array)
                        .map(|rules| rules.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", "));
                    Some(observation("ttsr_injection", rules))
                }
                "branch_summary" => Some(observation("branch_summary", string_of(v, "summary"))),
                "custom_message" => {
                    let subtype = format!("custom_message/{}", type_name(str_of(v, "customType")));
                    Some(observation(&subtype, Some(content_text(v.get("content"), |_, _| {}))))
                }
                "compaction" => {
                    let trigger = if v.get("fromHook").and_then(Value::as_bool) == Some(true)
                        || v.get("fromExtension").and_then(Value::as_bool) == Some(true)
                    {
                        Some("extension".to_string())
                    } else {
                        string_of(v, "method")
                    };
                    let summary = str_of(v, "summary").unwrap_or("").to_string();
                    Some(Body::Compaction { summary, trigger })
                }
                "reset_boundary" => {
                    Some(Body::Compaction { summary: String::new(), trigger: Some("reset_boundary".into()) })
                }
                "session_init" => Some(Body::System { text: str_of(v, "systemPrompt").unwrap_or("").to_string() }),
                // `session` and `title` lines are read by the head.
                _ => None,
            },
        };
        if let Some(body) = body {
            out.writer.push(&Record { id: eid.clone(), body, parent, ts, agent: None, src: self.src(span) });
            emitted += 1;
        }
        if emitted == 0 {
            let up = self.resolve(parent_raw);
            self.skipped.insert(eid, up);
        }
    }

    /// Maps a `message` entry by role; returns the records emitted.
    fn message(
        &mut self,
        eid: &str,
        parent: Option<String>,
        ts: Option<String>,
        message: &Value,
        span: Span,
        out: &mut Out<'_>,
    ) -> usize {
        let role = str_of(message, "role");
        let mut records: Vec<(String, Body, Option<String>)> = Vec::new();
        let main = |body: Body| (eid.to_string(), body, parent.clone());
        let observation =
            |subtype: &str, text: String| Body::Observation { subtype: subtype.to_string(), text: Some(text) };
        match role.unwrap_or("") {
            "user" => {
                let mut attachments = Vec::new();
                let text = content_text(message.get("content"), |kind, mime| {
                    attachments.push(Attachment { kind: type_name(Some(kind)), media_type: mime.map(str::to_string) })
                });
                records.push(main(Body::User { text, attachments }));
            }
            "developer" => records.push(main(Body::System { text: content_text(message.get("content"), |_, _| {}) })),
            "assistant" => return self.assistant(eid, parent.clone(), ts.clone(), message, span, out),
            "toolResult" => {
                // The content is what the model saw. When the harness cut a
                // long output (Pi: `details.truncation`, its full output in a
                // temp file; Oh My Pi: `details.meta.truncation`, the full
                // output in the session's artifacts folder), that is said.
                let truncated = message.pointer("/details/truncation/truncated").and_then(Value::as_bool) == Some(true)
                    || message.pointer("/details/meta/truncation").is_some_and(Value::is_object);
                if truncated {
                    let detail = format!("tool/{}", type_name(str_of(message, "toolName")));
                    out.diags.add(
                        "tool-output-truncated",
                        Severity::Info,
                        &detail,
                        Some(&self.file),
                        Some(span.offset),
                    );
                }
                let content = content_text(message.get("content"), |_, _| {});
                let ok = message.get("isError").and_then(Value::as_bool).map(|e| !e);
                let call_id = str_of(message, "toolCallId").unwrap_or("").to_string();
                records.push(main(Body::ToolResult { call_id, content, ok }));
            }
            "bashExecution" => {
                let text = format!(
                    "$ {}\n{}",
                    str_of(message, "command").unwrap_or(""),
                    str_of(message, "output").unwrap_or("")
                );
                records.push(main(observation("bash_execution", text)));
            }
            "pythonExecution" => {
                let text =
                    format!("{}\n{}", str_of(message, "code").unwrap_or(""), str_of(message, "output").unwrap_or(""));
                records.push(main(observation("python_execution", text)));
            }
            "custom" | "hookMessage" => {
                let subtype = format!("custom_message/{}", type_name(str_of(message, "customType")));
                records.push(main(observation(&subtype, content_text(message.get("content"), |_, _| {}))));
            }
            "branchSummary" => {
                records.push(main(observation("branch_summary", str_of(message, "summary").unwrap_or("").to_string())))
            }
            "compactionSummary" => records.push(main(Body::Compaction {
                summary: str_of(message, "summary").unwrap_or("").to_string(),
                trigger: None,
            })),
            "fileMention" => {
                let mut text = String::new();
                for file in message.get("files").and_then(Value::as_array).into_iter().flatten() {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(&format!(
                        "{}:\n{}",
                        str_of(file, "path").unwrap_or(""),
                        str_of(file, "content").unwrap_or("")
                    ));
                }
                records.push(main(observation("file_mention", text)));
            }
            other => {
                let _ = other;
                let detail = format!("message/{}", type_name(role));
                self.report(out, false, &detail, span);
            }
        }
        let n = records.len();
        for (id, body, parent) in records {
            out.writer.push(&Record { id, body, parent, ts: ts.clone(), agent: None, src: self.src(span) });
        }
        n
    }

    fn assistant(
        &mut self,
        eid: &str,
        parent: Option<String>,
        ts: Option<String>,
        message: &Value,
        span: Span,
        out: &mut Out<'_>,
    ) -> usize {
        let mut reasoning = Vec::new();
        let mut calls = Vec::new();
        let mut text = String::new();
        let blocks: Vec<Value> = match message.get("content") {
            Some(Value::Array(blocks)) => blocks.clone(),
            Some(Value::String(s)) => vec![serde_json::json!({"type": "text", "text": s})],
            _ => Vec::new(),
        };
        for (n, block) in blocks.iter().enumerate() {
            let id = format!("{eid}#{n}");
            match str_of(block, "type").unwrap_or("") {
                "text" => {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(str_of(block, "text").unwrap_or(""));
                }
                "thinking" => {
                    let redacted = block.get("redacted").and_then(Value::as_bool) == Some(true);
                    let body = Body::Reasoning(Reasoning {
                        text: if redacted { None } else { string_of(block, "thinking") },
                        opaque: string_of(block, "thinkingSignature"),
                        encrypted: redacted,
                    });
                    reasoning.push((id, body));
                }
                "redactedThinking" => {
                    let opaque = string_of(block, "data").or_else(|| string_of(block, "thinkingSignature"));
                    reasoning.push((id, Body::Reasoning(Reasoning { text: None, opaque, encrypted: true })));
                }
                "toolCall" => {
                    let arguments = match block.get("arguments") {
                        None | Some(Value::Null) => Value::Object(Default::default()),
                        Some(v) => v.clone(),
                    };
                    let body = Body::ToolCall {
                        call_id: str_of(block, "id").unwrap_or("").to_string(),
                        name: str_of(block, "name").unwrap_or("").to_string(),
                        arguments,
                    };
                    calls.push((id, body));
                }
                other => {
                    let detail = format!("assistant/{}", type_name(Some(other)));
                    out.diags.add(
                        "unknown-content-block",
                        Severity::Warning,
                        &detail,
                        Some(&self.file),
                        Some(span.offset),
                    );
                }
            }
        }
        let assistant = Assistant {
            text,
            model: string_of(message, "model"),
            message_id: string_of(message, "responseId"),
            stop_reason: string_of(message, "stopReason"),
            usage: usage(message.get("usage")),
        };
        let mut n = 0;
        let mut push = |out: &mut Out<'_>, id: String, body: Body, parent: Option<String>| {
            out.writer.push(&Record { id, body, parent, ts: ts.clone(), agent: None, src: self.src(span) });
            n += 1;
        };
        for (id, body) in reasoning {
            push(out, id, body, Some(eid.to_string()));
        }
        push(out, eid.to_string(), Body::Assistant(assistant), parent);
        for (id, body) in calls {
            push(out, id, body, Some(eid.to_string()));
        }
        if let Some(error) = string_of(message, "errorMessage") {
            let body = Body::Observation { subtype: "error".into(), text: Some(error) };
            push(out, format!("{eid}#error"), body, Some(eid.to_string()));
        }
        n
    }
}

/// Pi's `usage` (`input` already excludes cache reads and writes); `None`
/// when absent or when no field is a number.
fn usage(v: Option<&Value>) -> Option<Usage> {
    let v = v.filter(|v| v.is_object())?;
    let usage = Usage {
        input: count_of(v, "input"),
        output: count_of(v, "output"),
        cache_read: count_of(v, "cacheRead"),
        cache_write: count_of(v, "cacheWrite"),
        reasoning: None,
        cost_usd: v.get("cost").and_then(|c| number_of(c, "total")),
    };
    (usage != Usage::default()).then_some(usage)
}
