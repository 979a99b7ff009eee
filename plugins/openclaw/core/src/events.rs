//! Pi-style session entries: one per `transcript_events` row of the SQLite
//! store (JSON in `event_json`, or zstd-compressed in `event_zstd`), one per
//! line of a legacy JSONL transcript.
//!
//! An entry's `type` is its native record type; for `message` entries the
//! message `role` refines it. Every type and role is either mapped (see
//! [`KNOWN_ENTRY_TYPES`], [`KNOWN_MESSAGE_ROLES`]) or counted in a
//! diagnostic: `unmapped-record-type` for known types left out on purpose,
//! `unknown-record-type` for types never seen.
//!
//! Stored twice, emitted once: a tool result's text is also in
//! `details.aggregated` (only `content` is read). Usage maps Pi's counts
//! (`input` excludes cache reads and writes) and `cost.total`.

use std::collections::BTreeMap;

use serde_json::Value as Json;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Reasoning, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::known::report_unmapped;

pub use trajhost_codec_sdk::known::Handling;

/// Every entry `type` OpenClaw's Pi-style transcript is known to hold.
pub const KNOWN_ENTRY_TYPES: &[(&str, Handling)] = &[
    ("session", Handling::Mapped("meta (the transcript header)")),
    ("message", Handling::Mapped("by role, see KNOWN_MESSAGE_ROLES")),
    ("model_change", Handling::Mapped("observation model-change")),
    ("thinking_level_change", Handling::Mapped("observation thinking-level-change")),
    ("compaction", Handling::Mapped("compaction")),
    ("branch_summary", Handling::Mapped("observation branch-summary")),
    ("custom_message", Handling::Mapped("observation custom-message/<customType>")),
    ("session_info", Handling::Mapped("observation session-info")),
    // Extension and runtime state that is never sent to the model
    // (model snapshots, cache-TTL bookkeeping, bootstrap-context markers).
    ("custom", Handling::Reported),
    // A user's bookmark on another entry.
    ("label", Handling::Reported),
];

/// Every `message.role`.
pub const KNOWN_MESSAGE_ROLES: &[(&str, Handling)] = &[
    ("user", Handling::Mapped("user")),
    ("assistant", Handling::Mapped("reasoning, assistant, tool_call")),
    ("toolResult", Handling::Mapped("tool_result")),
    ("bashExecution", Handling::Mapped("observation bash-execution")),
    ("custom", Handling::Mapped("observation custom/<customType>")),
    ("branchSummary", Handling::Mapped("observation branch-summary")),
    ("compactionSummary", Handling::Mapped("compaction")),
];

pub fn entry_handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_ENTRY_TYPES, kind)
}

pub fn role_handling(role: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_MESSAGE_ROLES, role)
}

pub use trajhost_codec_sdk::records::Made;

/// Session-wide state of the mapping.
#[derive(Default)]
pub struct Mapper {
    /// Entry ids that produced no record → the record their chain resolves
    /// to, so `parent` links point at records.
    aliases: BTreeMap<String, Option<String>>,
}

impl Mapper {
    fn resolve(&self, parent: Option<&str>) -> Option<String> {
        let mut id = parent?.to_string();
        for _ in 0..64 {
            match self.aliases.get(&id) {
                Some(Some(next)) if *next != id => id = next.clone(),
                Some(_) => return None,
                None => return Some(id),
            }
        }
        Some(id)
    }

    /// Maps one entry; the records come out in reading order.
    pub fn map(&mut self, entry: &Json, file: &str, offset: u64, diags: &mut Diagnostics) -> Vec<Made> {
        let kind = entry.get("type").and_then(Json::as_str).unwrap_or("");
        let id = entry.get("id").and_then(Json::as_str).filter(|s| !s.is_empty()).map(str::to_string);
        let id = id.unwrap_or_else(|| format!("{file}@{offset}"));
        let parent = self.resolve(entry.get("parentId").and_then(Json::as_str));
        let mut out = Vec::new();
        let observation = |subtype: String, text: Option<String>| Body::Observation { subtype, text };
        match kind {
            "message" => self.message(entry, &id, parent.clone(), file, offset, diags, &mut out),
            "model_change" => out.push(Made {
                id: id.clone(),
                body: observation(
                    "model-change".into(),
                    Some(join(&[str_at(entry, "provider"), str_at(entry, "modelId")])),
                ),
                parent: parent.clone(),
            }),
            "thinking_level_change" => out.push(Made {
                id: id.clone(),
                body: observation("thinking-level-change".into(), str_at(entry, "thinkingLevel").map(str::to_string)),
                parent: parent.clone(),
            }),
            "compaction" => out.push(Made {
                id: id.clone(),
                body: Body::Compaction {
                    summary: str_at(entry, "summary").unwrap_or("").to_string(),
                    trigger: entry.get("fromHook").and_then(Json::as_bool).filter(|h| *h).map(|_| "hook".to_string()),
                },
                parent: parent.clone(),
            }),
            "branch_summary" => out.push(Made {
                id: id.clone(),
                body: observation("branch-summary".into(), str_at(entry, "summary").map(str::to_string)),
                parent: parent.clone(),
            }),
            "custom_message" => out.push(Made {
                id: id.clone(),
                body: observation(
                    format!("custom-message/{}", type_name(str_at(entry, "customType"))),
                    Some(content(entry.get("content"), "custom_message", file, offset, diags).text),
                ),
                parent: parent.clone(),
            }),
            "session_info" => out.push(Made {
                id: id.clone(),
                body: observation("session-info".into(), str_at(entry, "name").map(str::to_string)),
                parent: parent.clone(),
            }),
            _ => match entry_handling(kind) {
                Some(known) => report_unmapped(diags, Some(known), kind, file, offset),
                None => report_unmapped(diags, None, &type_name(Some(kind)), file, offset),
            },
        }
        if out.is_empty() {
            self.aliases.insert(id, parent);
        } else if let Some(first) = out.first()
            && first.id != id
        {
            // The entry's own id stands for its first record.
            self.aliases.insert(id, Some(first.id.clone()));
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn message(
        &mut self,
        entry: &Json,
        id: &str,
        parent: Option<String>,
        file: &str,
        offset: u64,
        diags: &mut Diagnostics,
        out: &mut Vec<Made>,
    ) {
        let Some(message) = entry.get("message") else {
            diags.add("malformed-entry", Severity::Warning, "message without message", Some(file), Some(offset));
            return;
        };
        let role = message.get("role").and_then(Json::as_str).unwrap_or("");
        match role {
            "user" => {
                let c = content(message.get("content"), "user", file, offset, diags);
                out.push(Made {
                    id: id.to_string(),
                    body: Body::User { text: c.text, attachments: c.attachments },
                    parent,
                });
            }
            "assistant" => assistant(message, id, parent, file, offset, diags, out),
            "toolResult" => {
                let c = content(message.get("content"), "toolResult", file, offset, diags);
                let call_id = str_at(message, "toolCallId").unwrap_or("").to_string();
                out.push(Made {
                    id: id.to_string(),
                    body: Body::ToolResult {
                        call_id: call_id.clone(),
                        content: c.text,
                        ok: message.get("isError").and_then(Json::as_bool).map(|e| !e),
                    },
                    parent: Some(call_id).filter(|c| !c.is_empty()).or(parent),
                });
            }
            "bashExecution" => {
                let mut text = str_at(message, "command").map(|c| format!("$ {c}\n")).unwrap_or_default();
                text.push_str(str_at(message, "output").unwrap_or(""));
                out.push(Made {
                    id: id.to_string(),
                    body: Body::Observation { subtype: "bash-execution".into(), text: Some(text) },
                    parent,
                });
            }
            "custom" => {
                let c = content(message.get("content"), "custom", file, offset, diags);
                out.push(Made {
                    id: id.to_string(),
                    body: Body::Observation {
                        subtype: format!("custom/{}", type_name(str_at(message, "customType"))),
                        text: Some(c.text),
                    },
                    parent,
                });
            }
            "branchSummary" => out.push(Made {
                id: id.to_string(),
                body: Body::Observation {
                    subtype: "branch-summary".into(),
                    text: str_at(message, "summary").map(str::to_string),
                },
                parent,
            }),
            "compactionSummary" => out.push(Made {
                id: id.to_string(),
                body: Body::Compaction { summary: str_at(message, "summary").unwrap_or("").to_string(), trigger: None },
                parent,
            }),
            other => diags.add(
                "unknown-record-type",
                Severity::Warning,
                &format!("message/{}", type_name(Some(other))),
                Some(file),
                Some(offset),
            ),
        }
    }
}

/// An assistant message: its thinking blocks, the assistant record, then
/// one tool call per `toolCall` block.
fn assistant(
    message: &Json,
    id: &str,
    parent: Option<String>,
    file: &str,
    offset: u64,
    diags: &mut Diagnostics,
    out: &mut Vec<Made>,
) {
    let mut text = String::new();
    let mut calls = Vec::new();
    let mut n = 0;
    let mut next = || {
        n += 1;
        format!("{id}#{n}")
    };
    let blocks: Vec<&Json> = match message.get("content") {
        Some(Json::Array(blocks)) => blocks.iter().collect(),
        Some(Json::String(s)) => {
            text.push_str(s);
            Vec::new()
        }
        _ => Vec::new(),
    };
    for block in blocks {
        match block.get("type").and_then(Json::as_str).unwrap_or("") {
            "text" => text.push_str(str_at(block, "text").unwrap_or("")),
            "thinking" => {
                let redacted = block.get("redacted").and_then(Json::as_bool).unwrap_or(false);
                out.push(Made {
                    id: next(),
                    body: Body::Reasoning(Reasoning {
                        text: (!redacted).then(|| str_at(block, "thinking").unwrap_or("").to_string()),
                        opaque: str_at(block, "thinkingSignature")
                            .map(str::to_string)
                            .or_else(|| redacted.then(|| str_at(block, "thinking").unwrap_or("").to_string())),
                        encrypted: redacted,
                    }),
                    parent: Some(id.to_string()),
                });
            }
            "toolCall" => {
                let call_id = str_at(block, "id").map(str::to_string).unwrap_or_else(&mut next);
                calls.push(Made {
                    id: call_id.clone(),
                    body: Body::ToolCall {
                        call_id,
                        name: str_at(block, "name").unwrap_or("").to_string(),
                        arguments: match block.get("arguments") {
                            Some(Json::String(s)) => {
                                serde_json::from_str(s).unwrap_or_else(|_| Json::String(s.clone()))
                            }
                            Some(v) => v.clone(),
                            None => Json::Null,
                        },
                    },
                    parent: Some(id.to_string()),
                });
            }
            other => diags.add(
                "unknown-content-block",
                Severity::Warning,
                &format!("assistant/{}", type_name(Some(other))),
                Some(file),
                Some(offset),
            ),
        }
    }
    let stop_reason = str_at(message, "stopReason").map(str::to_string);
    out.push(Made {
        id: id.to_string(),
        body: Body::Assistant(Assistant {
            text,
            model: str_at(message, "model").map(str::to_string),
            message_id: str_at(message, "responseId").map(str::to_string),
            stop_reason,
            usage: message.get("usage").and_then(usage),
        }),
        parent,
    });
    if let Some(error) = str_at(message, "errorMessage") {
        out.push(Made {
            id: next(),
            body: Body::Observation { subtype: "api-error".into(), text: Some(error.to_string()) },
            parent: Some(id.to_string()),
        });
    }
    out.extend(calls);
}

/// Pi's `usage`: `input` already excludes cache reads and writes. `None`
/// when no count is recorded.
fn usage(u: &Json) -> Option<Usage> {
    let count = |k: &str| u.get(k).and_then(Json::as_u64);
    let usage = Usage {
        input: count("input"),
        output: count("output"),
        cache_read: count("cacheRead"),
        cache_write: count("cacheWrite"),
        reasoning: None,
        cost_usd: u.get("cost").and_then(|c| c.get("total")).and_then(Json::as_f64),
    };
    let any =
        usage.input.is_some() || usage.output.is_some() || usage.cache_read.is_some() || usage.cache_write.is_some();
    any.then_some(usage)
}

/// Text and attachments of message content (a string or blocks).
pub struct Content {
    pub text: String,
    pub attachments: Vec<Attachment>,
}

fn content(value: Option<&Json>, role: &str, file: &str, offset: u64, diags: &mut Diagnostics) -> Content {
    let mut c = Content { text: String::new(), attachments: Vec::new() };
    let blocks = match value {
        Some(Json::String(s)) => {
            c.text = s.clone();
            return c;
        }
        Some(Json::Array(blocks)) => blocks,
        _ => return c,
    };
    for block in blocks {
        match block.get("type").and_then(Json::as_str).unwrap_or("") {
            "text" => {
                if !c.text.is_empty() {
                    c.text.push('\n');
                }
                c.text.push_str(str_at(block, "text").unwrap_or(""));
            }
            "image" => c
                .attachments
                .push(Attachment { kind: "image".into(), media_type: str_at(block, "mimeType").map(str::to_string) }),
            other => diags.add(
                "unknown-content-block",
                Severity::Warning,
                &format!("{role}/{}", type_name(Some(other))),
                Some(file),
                Some(offset),
            ),
        }
    }
    c
}

fn str_at<'a>(v: &'a Json, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Json::as_str).filter(|s| !s.is_empty())
}

fn join(parts: &[Option<&str>]) -> String {
    parts.iter().flatten().copied().collect::<Vec<_>>().join("/")
}

pub use trajhost_codec_sdk::text::type_name;
