//! The `messages` of a session: OpenAI chat messages as Hermes keeps them
//! in memory and writes them to its logs (the same fields as the state.db
//! `messages` columns, as JSON values).
//!
//! A message's `role` is its native record type. Every role is mapped (see
//! [`KNOWN_ROLES`]), reported, or counted as unknown:
//!
//! | role           | canonical records                                                 |
//! |----------------|-------------------------------------------------------------------|
//! | `user`         | `user` (text parts; image, audio, file parts as attachments)      |
//! | `assistant`    | `reasoning` (`reasoning` / `reasoning_content`, then `reasoning_details` / `codex_reasoning_items` as opaque), `assistant`, one `tool_call` each |
//! | `tool`         | `tool_result` linked to its call by `tool_call_id`                |
//! | `system`       | `system`                                                          |
//! | `session_meta` | reported: the gateway's header (tools, model, platform)           |
//!
//! A message flagged `_compressed_summary` is a `compaction`, whatever its
//! role. `content` is kept as written: Hermes' log writer turns its reasoning
//! scratchpad into `<think>` tags inside assistant text. Hermes records no
//! success flag for tools (`ok` is absent) and no per-message usage.

use std::collections::BTreeSet;

use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Reasoning};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::json::str_of;
pub use trajhost_codec_sdk::known::Handling;
pub use trajhost_codec_sdk::text::type_name;

/// Every `role` Hermes writes into a log or transcript.
pub const KNOWN_ROLES: &[(&str, Handling)] = &[
    ("user", Handling::Mapped("user")),
    ("assistant", Handling::Mapped("reasoning, assistant, tool_call")),
    ("tool", Handling::Mapped("tool_result")),
    ("system", Handling::Mapped("system")),
    // The gateway's first transcript line (tools, model, platform, time):
    // the session's `meta`, not a message.
    ("session_meta", Handling::Reported),
];

pub use trajhost_codec_sdk::records::Made;

/// Session-wide state of the mapping.
pub struct Mapper {
    session: String,
    /// The session's model (Hermes logs it once, per session).
    model: Option<String>,
    /// Tool call ids emitted so far.
    calls: BTreeSet<String>,
}

impl Mapper {
    pub fn new(session: &str, model: Option<String>) -> Mapper {
        Mapper { session: session.to_string(), model, calls: BTreeSet::new() }
    }

    fn id(&self, n: usize, index: usize) -> String {
        if index == 0 { format!("{}:{n}", self.session) } else { format!("{}:{n}#{index}", self.session) }
    }

    /// Maps message number `n` (0-based, in file order); `file` and
    /// `offset` locate it for diagnostics.
    pub fn map(&mut self, n: usize, m: &Value, file: &str, offset: u64, diags: &mut Diagnostics) -> Vec<Made> {
        let role = str_of(m, "role").unwrap_or("");
        let mut out = Vec::new();
        // Exported state.db rows carry `active`: 0 is a turn undone by a
        // rewind (not compaction-archived history), as the state.db codec reads it.
        let flag = |k: &str| m.get(k).and_then(|v| v.as_i64().or_else(|| v.as_bool().map(i64::from)));
        if flag("active") == Some(0) && flag("compacted").unwrap_or(0) == 0 {
            diags.add("rewound-message", Severity::Info, "active=0", Some(file), Some(offset));
            return out;
        }
        // Newer Hermes flags the summary a context compression leaves
        // (state.db's `_compressed_summary` column, the same key here).
        if m.get("_compressed_summary").is_some_and(|f| f.as_bool() == Some(true) || f.as_i64().is_some_and(|n| n != 0))
        {
            let c = content(m.get("content"), role, file, offset, diags);
            out.push(Made {
                id: self.id(n, 0),
                body: Body::Compaction { summary: c.text, trigger: None },
                parent: None,
            });
            return out;
        }
        match role {
            "user" => {
                let c = content(m.get("content"), role, file, offset, diags);
                out.push(Made {
                    id: self.id(n, 0),
                    body: Body::User { text: c.text, attachments: c.attachments },
                    parent: None,
                });
            }
            "system" => {
                let c = content(m.get("content"), role, file, offset, diags);
                out.push(Made { id: self.id(n, 0), body: Body::System { text: c.text }, parent: None });
            }
            "assistant" => self.assistant(n, m, file, offset, diags, &mut out),
            "tool" => {
                let c = content(m.get("content"), role, file, offset, diags);
                let call_id = str_of(m, "tool_call_id").unwrap_or("").to_string();
                let parent = if self.calls.contains(&call_id) {
                    Some(call_id.clone())
                } else {
                    diags.add("orphan-tool-result", Severity::Warning, "tool_call_id", Some(file), Some(offset));
                    None
                };
                out.push(Made {
                    id: self.id(n, 0),
                    body: Body::ToolResult { call_id, content: c.text, ok: None },
                    parent,
                });
            }
            "session_meta" => diags.add("unmapped-record-type", Severity::Info, role, Some(file), Some(offset)),
            other => {
                diags.add("unknown-record-type", Severity::Warning, &type_name(Some(other)), Some(file), Some(offset))
            }
        }
        out
    }

    fn assistant(
        &mut self,
        n: usize,
        m: &Value,
        file: &str,
        offset: u64,
        diags: &mut Diagnostics,
        out: &mut Vec<Made>,
    ) {
        let id = self.id(n, 0);
        let mut index = 0;
        let mut next = |mapper: &Mapper| {
            index += 1;
            mapper.id(n, index)
        };
        // Reasoning first: it came before the text. Both fields often hold
        // the same text; it is emitted once.
        let reasoning = str_of(m, "reasoning").filter(|s| !s.is_empty());
        let reasoning_content = str_of(m, "reasoning_content").filter(|s| !s.is_empty());
        for text in [reasoning, reasoning_content.filter(|b| Some(*b) != reasoning)].into_iter().flatten() {
            out.push(Made {
                id: next(self),
                body: Body::Reasoning(Reasoning { text: Some(text.to_string()), opaque: None, encrypted: false }),
                parent: Some(id.clone()),
            });
        }
        for field in ["reasoning_details", "codex_reasoning_items"] {
            let raw = match m.get(field) {
                None | Some(Value::Null) => continue,
                Some(Value::Array(a)) if a.is_empty() => continue,
                Some(Value::Object(o)) if o.is_empty() => continue,
                Some(Value::String(s)) if matches!(s.trim(), "" | "[]" | "{}" | "null") => continue,
                Some(Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
            };
            out.push(Made {
                id: next(self),
                body: Body::Reasoning(Reasoning {
                    text: None,
                    encrypted: raw.contains("encrypted"),
                    opaque: Some(raw),
                }),
                parent: Some(id.clone()),
            });
        }
        let c = content(m.get("content"), "assistant", file, offset, diags);
        out.push(Made {
            id: id.clone(),
            body: Body::Assistant(Assistant {
                text: c.text,
                model: str_of(m, "model").filter(|s| !s.is_empty()).map(str::to_string).or_else(|| self.model.clone()),
                message_id: None,
                stop_reason: str_of(m, "finish_reason").filter(|s| !s.is_empty()).map(str::to_string),
                usage: None,
            }),
            parent: None,
        });
        let calls = match m.get("tool_calls") {
            None | Some(Value::Null) => return,
            Some(Value::Array(calls)) => calls.clone(),
            Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
                Ok(Value::Array(calls)) => calls,
                Ok(one @ Value::Object(_)) => vec![one],
                _ => {
                    diags.add("malformed-field", Severity::Warning, "tool_calls", Some(file), Some(offset));
                    return;
                }
            },
            Some(one @ Value::Object(_)) => vec![one.clone()],
            Some(_) => {
                diags.add("malformed-field", Severity::Warning, "tool_calls", Some(file), Some(offset));
                return;
            }
        };
        for call in calls {
            let function = call.get("function").unwrap_or(&Value::Null);
            let name = nonempty(function, "name").or_else(|| nonempty(&call, "name")).unwrap_or_default();
            let arguments = match function.get("arguments").or_else(|| call.get("arguments")) {
                Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone())),
                Some(other) => other.clone(),
                None => Value::Null,
            };
            let call_id = nonempty(&call, "id").or_else(|| nonempty(&call, "call_id")).unwrap_or_else(|| next(self));
            let record_id = if self.calls.insert(call_id.clone()) { call_id.clone() } else { next(self) };
            out.push(Made {
                id: record_id,
                body: Body::ToolCall { call_id, name, arguments },
                parent: Some(id.clone()),
            });
        }
    }
}

fn nonempty(v: &Value, key: &str) -> Option<String> {
    str_of(v, key).filter(|s| !s.is_empty()).map(str::to_string)
}

/// Text and attachments of a message.
pub struct Content {
    pub text: String,
    pub attachments: Vec<Attachment>,
}

/// `content`: a string, or OpenAI parts (text parts joined by newlines,
/// media parts as attachments).
pub fn content(value: Option<&Value>, role: &str, file: &str, offset: u64, diags: &mut Diagnostics) -> Content {
    let mut c = Content { text: String::new(), attachments: Vec::new() };
    let decoded;
    let parts: Vec<&Value> = match value {
        None | Some(Value::Null) => return c,
        // state.db's encoding of multi-part content, kept by row exports.
        Some(Value::String(s)) if s.starts_with("\0json:") || s.starts_with("\u{1}json:") => {
            match serde_json::from_str::<Value>(&s[6..]) {
                Ok(v) => {
                    decoded = v;
                    return content(Some(&decoded), role, file, offset, diags);
                }
                Err(_) => {
                    diags.add("malformed-field", Severity::Warning, "content", Some(file), Some(offset));
                    c.text = s.clone();
                    return c;
                }
            }
        }
        Some(Value::String(s)) => {
            c.text = s.clone();
            return c;
        }
        Some(Value::Array(parts)) => parts.iter().collect(),
        Some(other) => vec![other],
    };
    for part in parts {
        if let Value::String(s) = part {
            push_text(&mut c.text, s);
            continue;
        }
        match str_of(part, "type").unwrap_or("") {
            "text" | "input_text" | "output_text" => push_text(&mut c.text, str_of(part, "text").unwrap_or("")),
            "image_url" | "input_image" | "image" => {
                c.attachments.push(Attachment { kind: "image".into(), media_type: media_type(part) })
            }
            "input_audio" => c.attachments.push(Attachment { kind: "audio".into(), media_type: None }),
            "file" => c.attachments.push(Attachment { kind: "file".into(), media_type: None }),
            other => diags.add(
                "unknown-content-part",
                Severity::Warning,
                &format!("{role}/{}", type_name(Some(other))),
                Some(file),
                Some(offset),
            ),
        }
    }
    c
}

fn push_text(text: &mut String, piece: &str) {
    if !text.is_empty() {
        text.push('\n');
    }
    text.push_str(piece);
}

/// The media type of a `data:` URL image part.
fn media_type(part: &Value) -> Option<String> {
    let url = part
        .get("image_url")
        .and_then(|u| u.get("url").or(Some(u)))
        .and_then(Value::as_str)
        .or_else(|| str_of(part, "url"))?;
    let rest = url.strip_prefix("data:")?;
    let end = rest.find([';', ','])?;
    Some(rest[..end].to_string()).filter(|m| m.contains('/') && m.len() < 100)
}
