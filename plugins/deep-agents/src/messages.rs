//! LangChain messages of the `messages` channel → canonical records, and
//! the `add_messages` reducer that builds a thread's message list.
//!
//! A message's `type` is its native record type. Every type is mapped (see
//! [`KNOWN_MESSAGE_TYPES`]) or counted in an `unknown-record-type`
//! diagnostic; content blocks likewise ([`KNOWN_BLOCKS`],
//! `unknown-content-block`).
//!
//! | `type`   | canonical                                                         |
//! |----------|-------------------------------------------------------------------|
//! | `human`  | `user` (text blocks; images as attachments)                        |
//! | `ai`     | `reasoning` (reasoning/thinking blocks), `assistant`, `tool_call` per `tool_calls` / `invalid_tool_calls` |
//! | `tool`   | `tool_result` (`status` success/error → `ok`)                      |
//! | `system` | `system`                                                           |
//! | `remove` | applied by the reducer (the message it names leaves the list)      |
//!
//! Stored twice, emitted once: with the OpenAI Responses API an AI
//! message's `content` repeats each tool call as a `function_call` block
//! next to `tool_calls`; the block is used only when `tool_calls` lacks it.
//! `usage_metadata.input_tokens` includes cache reads and writes (LangChain
//! accounting); canonical `input` excludes them.

use serde_json::Value as Json;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Reasoning, Usage};
use trajhost_codec_sdk::diag::Diagnostics;

pub use trajhost_codec_sdk::known::Handling;

/// Every message `type` (LangChain message classes, chunks included).
pub const KNOWN_MESSAGE_TYPES: &[(&str, Handling)] = &[
    ("human", Handling::Mapped("user")),
    ("ai", Handling::Mapped("reasoning, assistant, tool_call")),
    ("tool", Handling::Mapped("tool_result")),
    ("system", Handling::Mapped("system")),
    ("remove", Handling::Mapped("applied by the reducer")),
    ("HumanMessageChunk", Handling::Mapped("user")),
    ("AIMessageChunk", Handling::Mapped("reasoning, assistant, tool_call")),
    ("ToolMessageChunk", Handling::Mapped("tool_result")),
    ("SystemMessageChunk", Handling::Mapped("system")),
];

/// Every content block `type`.
pub const KNOWN_BLOCKS: &[&str] = &[
    "text",
    "image_url",
    "image",
    "reasoning",
    "thinking",
    "redacted_thinking",
    "function_call",
    "tool_use",
    "tool_call",
    "refusal",
];

/// One message of the thread's list, with where it was written.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The message's fields (`type`, `content`, `id`, …).
    pub fields: Json,
    /// `writes` rowid (or `checkpoints` rowid for a snapshot) it came from.
    pub rowid: i64,
    /// Whether `rowid` is a `checkpoints` row (a snapshot).
    pub from_snapshot: bool,
    /// The time of the checkpoint that committed it, in ms.
    pub ts_ms: Option<i64>,
    /// Position of the message within its write.
    pub index: usize,
}

impl Entry {
    pub fn kind(&self) -> &str {
        self.fields.get("type").and_then(Json::as_str).unwrap_or("")
    }
    pub fn id(&self) -> Option<&str> {
        self.fields.get("id").and_then(Json::as_str).filter(|s| !s.is_empty())
    }
}

/// The fields of a decoded message: a pydantic extension
/// (`{"__ext", "name", "value"}`), a LangChain-serialized constructor
/// (`{"lc", "id", "kwargs"}`), or a plain dict with `type`.
pub fn fields(value: &Json) -> Option<Json> {
    if value.get("__ext").is_some() {
        let mut fields = value.get("value")?.clone();
        if fields.get("type").is_none()
            && let (Some(obj), Some(name)) = (fields.as_object_mut(), value.get("name").and_then(Json::as_str))
        {
            obj.insert("type".into(), Json::String(type_of_class(name).to_string()));
        }
        return fields.is_object().then_some(fields);
    }
    if value.get("lc").is_some() {
        let mut fields = value.get("kwargs")?.clone();
        let class =
            value.get("id").and_then(Json::as_array).and_then(|a| a.last()).and_then(Json::as_str).unwrap_or("");
        if fields.get("type").is_none()
            && let Some(obj) = fields.as_object_mut()
        {
            obj.insert("type".into(), Json::String(type_of_class(class).to_string()));
        }
        return Some(fields);
    }
    value.get("type").is_some().then(|| value.clone())
}

fn type_of_class(class: &str) -> &str {
    match class {
        "HumanMessage" => "human",
        "AIMessage" => "ai",
        "ToolMessage" => "tool",
        "SystemMessage" => "system",
        "RemoveMessage" => "remove",
        other => other,
    }
}

/// The id LangGraph uses to clear the whole list.
const REMOVE_ALL: &str = "__remove_all__";

/// Applies one write of the `messages` channel (a message or a list) the
/// way LangGraph's `add_messages` does: same id replaces, `remove` deletes,
/// anything else appends.
pub fn reduce(list: &mut Vec<Entry>, written: Vec<Entry>, file: &str, diags: &mut Diagnostics) {
    for entry in written {
        let id = entry.id().map(str::to_string);
        if entry.kind() == "remove" {
            match id.as_deref() {
                Some(REMOVE_ALL) => list.clear(),
                Some(id) => {
                    let before = list.len();
                    list.retain(|e| e.id() != Some(id));
                    if list.len() == before {
                        diags.add(
                            "remove-of-unknown-message",
                            Severity::Info,
                            "RemoveMessage",
                            Some(file),
                            Some(entry.rowid as u64),
                        );
                    }
                }
                None => diags.add(
                    "malformed-message",
                    Severity::Warning,
                    "RemoveMessage without id",
                    Some(file),
                    Some(entry.rowid as u64),
                ),
            }
            continue;
        }
        match id.as_deref().and_then(|id| list.iter().position(|e| e.id() == Some(id))) {
            Some(at) => {
                diags.add(
                    "replaced-message",
                    Severity::Info,
                    "same message id written again",
                    Some(file),
                    Some(entry.rowid as u64),
                );
                list[at] = entry;
            }
            None => list.push(entry),
        }
    }
}

pub use trajhost_codec_sdk::records::Made;

/// Maps one message of the final list; `id` is its record id.
pub fn map(entry: &Entry, id: &str, file: &str, diags: &mut Diagnostics) -> Vec<Made> {
    let f = &entry.fields;
    let offset = Some(entry.rowid as u64);
    let kind = entry.kind();
    let mut out = Vec::new();
    let mut n = 0;
    let mut next = || {
        n += 1;
        format!("{id}#{n}")
    };
    match kind {
        "human" | "HumanMessageChunk" => {
            let c = content(f.get("content"), "human", file, offset, diags);
            out.push(Made {
                id: id.to_string(),
                body: Body::User { text: c.text, attachments: c.attachments },
                parent: None,
            });
        }
        "system" | "SystemMessageChunk" => {
            let c = content(f.get("content"), "system", file, offset, diags);
            out.push(Made { id: id.to_string(), body: Body::System { text: c.text }, parent: None });
        }
        "tool" | "ToolMessageChunk" => {
            let c = content(f.get("content"), "tool", file, offset, diags);
            let call_id = str_at(f, "tool_call_id").unwrap_or("").to_string();
            let ok = match str_at(f, "status") {
                Some("success") => Some(true),
                Some("error") => Some(false),
                _ => None,
            };
            out.push(Made {
                id: id.to_string(),
                body: Body::ToolResult { call_id: call_id.clone(), content: c.text, ok },
                parent: Some(call_id).filter(|c| !c.is_empty()),
            });
        }
        "ai" | "AIMessageChunk" => {
            let mut text = String::new();
            let mut reasoning = Vec::new();
            let mut calls: Vec<(String, String, Json)> = Vec::new();
            for call in f.get("tool_calls").and_then(Json::as_array).into_iter().flatten() {
                calls.push((
                    str_at(call, "id").unwrap_or("").to_string(),
                    str_at(call, "name").unwrap_or("").to_string(),
                    call.get("args").cloned().unwrap_or(Json::Null),
                ));
            }
            for call in f.get("invalid_tool_calls").and_then(Json::as_array).into_iter().flatten() {
                // Arguments the model sent that did not parse: kept as the string.
                let args = call.get("args").cloned().unwrap_or(Json::Null);
                calls.push((
                    str_at(call, "id").unwrap_or("").to_string(),
                    str_at(call, "name").unwrap_or("").to_string(),
                    args,
                ));
            }
            match f.get("content") {
                Some(Json::String(s)) => text.push_str(s),
                Some(Json::Array(blocks)) => {
                    for block in blocks {
                        let btype = block.get("type").and_then(Json::as_str).unwrap_or("");
                        match btype {
                            "text" => text.push_str(str_at(block, "text").unwrap_or("")),
                            "refusal" => text.push_str(str_at(block, "refusal").unwrap_or("")),
                            "reasoning" => {
                                let summary: Vec<&str> = block
                                    .get("summary")
                                    .and_then(Json::as_array)
                                    .into_iter()
                                    .flatten()
                                    .filter_map(|s| str_at(s, "text"))
                                    .collect();
                                let text = str_at(block, "reasoning")
                                    .map(str::to_string)
                                    .or_else(|| (!summary.is_empty()).then(|| summary.join("\n")));
                                let opaque = str_at(block, "encrypted_content").map(str::to_string);
                                if text.is_some() || opaque.is_some() {
                                    reasoning.push(Reasoning { encrypted: opaque.is_some(), text, opaque });
                                }
                            }
                            "thinking" => reasoning.push(Reasoning {
                                text: str_at(block, "thinking").map(str::to_string),
                                opaque: str_at(block, "signature").map(str::to_string),
                                encrypted: false,
                            }),
                            "redacted_thinking" => reasoning.push(Reasoning {
                                text: None,
                                opaque: str_at(block, "data").map(str::to_string),
                                encrypted: true,
                            }),
                            "function_call" | "tool_use" | "tool_call" => {
                                let call_id =
                                    str_at(block, "call_id").or_else(|| str_at(block, "id")).unwrap_or("").to_string();
                                if calls.iter().any(|(id, _, _)| *id == call_id) {
                                    continue; // the same call as in `tool_calls`
                                }
                                let args = match block
                                    .get("arguments")
                                    .or_else(|| block.get("input"))
                                    .or_else(|| block.get("args"))
                                {
                                    Some(Json::String(s)) => {
                                        serde_json::from_str(s).unwrap_or_else(|_| Json::String(s.clone()))
                                    }
                                    Some(v) => v.clone(),
                                    None => Json::Null,
                                };
                                calls.push((call_id, str_at(block, "name").unwrap_or("").to_string(), args));
                            }
                            "image_url" | "image" => {}
                            other => diags.add(
                                "unknown-content-block",
                                Severity::Warning,
                                &format!("ai/{}", type_name(Some(other))),
                                Some(file),
                                offset,
                            ),
                        }
                    }
                }
                _ => {}
            }
            for r in reasoning {
                out.push(Made { id: next(), body: Body::Reasoning(r), parent: Some(id.to_string()) });
            }
            let meta = f.get("response_metadata").unwrap_or(&Json::Null);
            out.push(Made {
                id: id.to_string(),
                body: Body::Assistant(Assistant {
                    text,
                    model: str_at(meta, "model_name").or_else(|| str_at(meta, "model")).map(str::to_string),
                    message_id: entry.id().map(str::to_string),
                    stop_reason: str_at(meta, "finish_reason")
                        .or_else(|| str_at(meta, "stop_reason"))
                        .map(str::to_string),
                    usage: f.get("usage_metadata").and_then(usage),
                }),
                parent: None,
            });
            for (call_id, name, arguments) in calls {
                let call_id = if call_id.is_empty() { next() } else { call_id };
                out.push(Made {
                    id: call_id.clone(),
                    body: Body::ToolCall { call_id, name, arguments },
                    parent: Some(id.to_string()),
                });
            }
        }
        other => diags.add("unknown-record-type", Severity::Warning, &type_name(Some(other)), Some(file), offset),
    }
    out
}

/// `usage_metadata` in canonical form; `None` without counts.
fn usage(u: &Json) -> Option<Usage> {
    let count = |v: Option<&Json>| v.and_then(Json::as_u64);
    let input = count(u.get("input_tokens"));
    let output = count(u.get("output_tokens"));
    let details = u.get("input_token_details");
    let cache_read = count(details.and_then(|d| d.get("cache_read")));
    let cache_write = count(details.and_then(|d| d.get("cache_creation")));
    let reasoning = count(u.get("output_token_details").and_then(|d| d.get("reasoning")));
    if input.is_none() && output.is_none() {
        return None;
    }
    Some(Usage {
        input: input.map(|i| i.saturating_sub(cache_read.unwrap_or(0)).saturating_sub(cache_write.unwrap_or(0))),
        output,
        cache_read,
        cache_write,
        reasoning,
        cost_usd: None,
    })
}

struct Content {
    text: String,
    attachments: Vec<Attachment>,
}

fn content(value: Option<&Json>, role: &str, file: &str, offset: Option<u64>, diags: &mut Diagnostics) -> Content {
    let mut c = Content { text: String::new(), attachments: Vec::new() };
    match value {
        Some(Json::String(s)) => c.text = s.clone(),
        Some(Json::Array(blocks)) => {
            for block in blocks {
                if let Json::String(s) = block {
                    push_line(&mut c.text, s);
                    continue;
                }
                match block.get("type").and_then(Json::as_str).unwrap_or("") {
                    "text" => push_line(&mut c.text, str_at(block, "text").unwrap_or("")),
                    "image_url" | "image" => c.attachments.push(Attachment {
                        kind: "image".into(),
                        media_type: str_at(block, "mime_type").map(str::to_string),
                    }),
                    other => diags.add(
                        "unknown-content-block",
                        Severity::Warning,
                        &format!("{role}/{}", type_name(Some(other))),
                        Some(file),
                        offset,
                    ),
                }
            }
        }
        _ => {}
    }
    c
}

fn push_line(out: &mut String, s: &str) {
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(s);
}

fn str_at<'a>(v: &'a Json, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Json::as_str).filter(|s| !s.is_empty())
}

pub use trajhost_codec_sdk::text::type_name;
