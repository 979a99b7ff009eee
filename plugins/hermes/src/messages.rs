//! The `messages` table: one row per conversation message, in `id` order.
//!
//! A row's `role` is its native record type. Every role is either mapped
//! (see [`KNOWN_ROLES`]) or counted in an `unknown-record-type` diagnostic.
//!
//! | role        | canonical records                                                   |
//! |-------------|---------------------------------------------------------------------|
//! | `user`      | `user` (text parts, image parts as attachments)                      |
//! | `assistant` | `reasoning` (reasoning columns), `assistant`, one `tool_call` each   |
//! | `tool`      | `tool_result` linked to its call by `tool_call_id`                   |
//! | `system`    | `system`                                                             |
//!
//! A row flagged `_compressed_summary` (newer schemas) is a `compaction`, and
//! so is a `user` or `assistant` row holding the compressor's summary (its
//! `[CONTEXT SUMMARY]:` or `[CONTEXT COMPACTION` prefix, [`summary_of`]).
//!
//! Rows leave the live transcript in two ways. Undo/rewind sets `active = 0`:
//! such rows are not part of the conversation any more and are only counted
//! (`rewound-message`). Compaction archives rows (`active = 0, compacted = 1`)
//! and re-inserts the protected tail after its summary: archived rows are
//! history and are read, and a re-inserted copy of an archived row (same
//! role, content, timestamp and tool fields — Hermes' own display identity)
//! is emitted once.
//!
//! Columns read and what they become: `content` (text; `"\0json:"` or
//! `"\x01json:"`-prefixed JSON for multi-part content), `tool_calls` (OpenAI
//! `[{id, type, function{name, arguments}}]`), `tool_call_id`, `timestamp`
//! (epoch seconds → `ts`), `finish_reason` (→ `stop_reason`), `reasoning` /
//! `reasoning_content` (→ reasoning text, once when both hold the same),
//! `reasoning_details` / `codex_reasoning_items` (→ opaque reasoning, carried
//! as stored). Not mapped: `tool_name` (the call carries the name),
//! `token_count` (Hermes' size estimate of the message, not provider usage),
//! `api_content` and `codex_message_items` (other encodings of `content`),
//! `platform_message_id`, `effect_disposition`, `display_*`, `observed`.
//! Hermes records no per-call usage: `usage` is `None`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value as Json;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Reasoning};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::hash::Fnv;

use crate::time::from_epoch_secs;
use trajhost_codec_sdk::sql::Row;

pub use trajhost_codec_sdk::known::Handling;

/// Every `messages.role` Hermes writes (OpenAI chat roles).
pub const KNOWN_ROLES: &[(&str, Handling)] = &[
    ("user", Handling::Mapped("user")),
    ("assistant", Handling::Mapped("reasoning, assistant, tool_call")),
    ("tool", Handling::Mapped("tool_result")),
    ("system", Handling::Mapped("system")),
];

/// Part types of multi-part (`"\0json:"`) content.
pub const KNOWN_PARTS: &[&str] =
    &["text", "input_text", "output_text", "image_url", "input_image", "image", "input_audio", "file"];

/// How `role` is handled; `None` for a role the codec has never seen.
pub fn handling(role: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_ROLES, role)
}

/// Columns of `messages` the reader selects (those the schema has).
pub const COLUMNS: &[&str] = &[
    "id",
    "role",
    "content",
    "tool_call_id",
    "tool_calls",
    "tool_name",
    "timestamp",
    "finish_reason",
    "reasoning",
    "reasoning_content",
    "reasoning_details",
    "codex_reasoning_items",
    "active",
    "compacted",
    "_compressed_summary",
];

/// Prefixes Hermes puts before JSON-encoded (multi-part) content: `\0json:`
/// in SQLite stores, `\x01json:` in builds that also target Postgres.
const JSON_PREFIXES: &[&str] = &["\0json:", "\u{1}json:"];

pub use trajhost_codec_sdk::records::Made;

/// What one row turned into.
pub struct Mapped {
    pub records: Vec<Made>,
    pub ts: Option<String>,
}

/// Session-wide state of the mapping.
pub struct Mapper {
    /// The session id: record ids are `<session>:<row id>`.
    session: String,
    /// (first seen, model) from `session_model_usage`, ascending; else the
    /// session's `model`.
    models: Vec<(f64, String)>,
    fallback_model: Option<String>,
    /// Tool call ids emitted so far (to link results and keep ids unique).
    calls: BTreeSet<String>,
    /// Display identities of compaction-archived rows.
    archived: BTreeSet<u64>,
}

impl Mapper {
    pub fn new(session: &str, models: Vec<(f64, String)>, fallback_model: Option<String>) -> Mapper {
        Mapper {
            session: session.to_string(),
            models,
            fallback_model,
            calls: BTreeSet::new(),
            archived: BTreeSet::new(),
        }
    }

    fn row_id(&self, row: &Row<'_>, index: usize) -> String {
        let id = row.int("id").unwrap_or(-1);
        if index == 0 { format!("{}:{id}", self.session) } else { format!("{}:{id}#{index}", self.session) }
    }

    /// The model in effect at `ts` (epoch seconds).
    fn model_at(&self, ts: Option<f64>) -> Option<String> {
        if self.models.is_empty() {
            return self.fallback_model.clone();
        }
        let ts = ts.unwrap_or(f64::MAX);
        let chosen = self.models.iter().rev().find(|(first, _)| *first <= ts).unwrap_or(&self.models[0]);
        Some(chosen.1.clone())
    }

    /// Maps one row. `None` when the row is left out (rewound, a duplicate
    /// of an archived row, or of an unknown role); the reason is counted.
    pub fn map(&mut self, row: &Row<'_>, file: &str, diags: &mut Diagnostics) -> Option<Mapped> {
        let offset = row.int("id").map(|i| i as u64);
        let role = row.text("role").unwrap_or("");
        let active = row.int("active").unwrap_or(1) != 0;
        let compacted = row.int("compacted").unwrap_or(0) != 0;
        if !active && !compacted {
            diags.add("rewound-message", Severity::Info, "messages.active=0", Some(file), offset);
            return None;
        }
        let identity = display_identity(row);
        if !active {
            self.archived.insert(identity);
        } else if self.archived.contains(&identity) {
            diags.add("duplicate-message", Severity::Info, "compaction copy of an archived row", Some(file), offset);
            return None;
        }
        let ts_secs = row.real("timestamp");
        let ts = ts_secs.and_then(from_epoch_secs);
        let mut records = Vec::new();
        if row.int("_compressed_summary").unwrap_or(0) != 0 {
            let content = self.content(row, role, file, diags);
            records.push(Made {
                id: self.row_id(row, 0),
                body: Body::Compaction { summary: content.text, trigger: None },
                parent: None,
            });
            return Some(Mapped { records, ts });
        }
        // Hermes' own summary message of a compaction (user or assistant).
        if let Some(summary) =
            matches!(role, "user" | "assistant").then(|| row.text("content").and_then(summary_of)).flatten()
        {
            records.push(Made {
                id: self.row_id(row, 0),
                body: Body::Compaction { summary, trigger: None },
                parent: None,
            });
            return Some(Mapped { records, ts });
        }
        match role {
            "user" => {
                let content = self.content(row, role, file, diags);
                records.push(Made {
                    id: self.row_id(row, 0),
                    body: Body::User { text: content.text, attachments: content.attachments },
                    parent: None,
                });
            }
            "system" => {
                let content = self.content(row, role, file, diags);
                records.push(Made { id: self.row_id(row, 0), body: Body::System { text: content.text }, parent: None });
            }
            "assistant" => self.assistant(row, ts_secs, file, diags, &mut records),
            "tool" => {
                let content = self.content(row, role, file, diags);
                let call_id = row.text("tool_call_id").unwrap_or("").to_string();
                let parent = if self.calls.contains(&call_id) {
                    Some(call_id.clone())
                } else {
                    diags.add("orphan-tool-result", Severity::Warning, "tool_call_id", Some(file), offset);
                    None
                };
                // Hermes stores no success flag: a tool's exit code, if any,
                // is part of its output.
                records.push(Made {
                    id: self.row_id(row, 0),
                    body: Body::ToolResult { call_id, content: content.text, ok: None },
                    parent,
                });
            }
            other => {
                diags.add("unknown-record-type", Severity::Warning, &type_name(Some(other)), Some(file), offset);
                return None;
            }
        }
        Some(Mapped { records, ts })
    }

    fn assistant(&mut self, row: &Row<'_>, ts: Option<f64>, file: &str, diags: &mut Diagnostics, out: &mut Vec<Made>) {
        let offset = row.int("id").map(|i| i as u64);
        let id = self.row_id(row, 0);
        let mut index = 0;
        let mut next = |mapper: &Mapper| {
            index += 1;
            mapper.row_id(row, index)
        };
        // Reasoning first: it came before the text.
        let reasoning = row.text("reasoning");
        let reasoning_content = row.text("reasoning_content");
        if let Some(text) = reasoning.or(reasoning_content) {
            out.push(Made { id: next(self), body: reasoning_text(text), parent: Some(id.clone()) });
        }
        if let (Some(a), Some(b)) = (reasoning, reasoning_content)
            && a != b
        {
            out.push(Made { id: next(self), body: reasoning_text(b), parent: Some(id.clone()) });
        }
        for column in ["reasoning_details", "codex_reasoning_items"] {
            if let Some(raw) = row.text(column).filter(|r| !matches!(r.trim(), "[]" | "null" | "{}")) {
                out.push(Made {
                    id: next(self),
                    body: Body::Reasoning(Reasoning {
                        text: None,
                        opaque: Some(raw.to_string()),
                        encrypted: raw.contains("encrypted"),
                    }),
                    parent: Some(id.clone()),
                });
            }
        }
        let content = self.content(row, "assistant", file, diags);
        out.push(Made {
            id: id.clone(),
            body: Body::Assistant(Assistant {
                text: content.text,
                model: self.model_at(ts),
                message_id: None,
                stop_reason: row.text("finish_reason").map(str::to_string),
                usage: None,
            }),
            parent: None,
        });
        let Some(raw) = row.text("tool_calls") else { return };
        let calls = match serde_json::from_str::<Json>(raw) {
            Ok(Json::Array(calls)) => calls,
            Ok(Json::Null) => return,
            Ok(one @ Json::Object(_)) => vec![one],
            _ => {
                diags.add("malformed-field", Severity::Warning, "messages.tool_calls", Some(file), offset);
                return;
            }
        };
        for call in calls {
            let function = call.get("function").unwrap_or(&Json::Null);
            let name = str_of(function.get("name")).or_else(|| str_of(call.get("name"))).unwrap_or_default();
            let arguments = match function.get("arguments").or_else(|| call.get("arguments")) {
                Some(Json::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| Json::String(s.clone())),
                Some(other) => other.clone(),
                None => Json::Null,
            };
            let call_id = str_of(call.get("id")).or_else(|| str_of(call.get("call_id"))).unwrap_or_else(|| next(self));
            let record_id = if self.calls.insert(call_id.clone()) { call_id.clone() } else { next(self) };
            out.push(Made {
                id: record_id,
                body: Body::ToolCall { call_id, name, arguments },
                parent: Some(id.clone()),
            });
        }
    }

    /// `content`, decoded.
    fn content(&self, row: &Row<'_>, role: &str, file: &str, diags: &mut Diagnostics) -> Content {
        let raw = row.text("content").unwrap_or("");
        let Some(json) = JSON_PREFIXES.iter().find_map(|p| raw.strip_prefix(p)) else {
            return Content { text: raw.to_string(), attachments: Vec::new() };
        };
        let offset = row.int("id").map(|i| i as u64);
        match serde_json::from_str::<Json>(json) {
            Ok(value) => parts(&value, role, file, offset, diags),
            Err(_) => {
                diags.add("malformed-field", Severity::Warning, "messages.content", Some(file), offset);
                Content { text: raw.to_string(), attachments: Vec::new() }
            }
        }
    }
}

/// Text and attachments of a message.
pub struct Content {
    pub text: String,
    pub attachments: Vec<Attachment>,
}

fn reasoning_text(text: &str) -> Body {
    Body::Reasoning(Reasoning { text: Some(text.to_string()), opaque: None, encrypted: false })
}

fn str_of(v: Option<&Json>) -> Option<String> {
    v.and_then(Json::as_str).filter(|s| !s.is_empty()).map(str::to_string)
}

/// Multi-part content: text parts joined by newlines, other parts as
/// attachments.
fn parts(value: &Json, role: &str, file: &str, offset: Option<u64>, diags: &mut Diagnostics) -> Content {
    let mut content = Content { text: String::new(), attachments: Vec::new() };
    let items: Vec<&Json> = match value {
        Json::Array(items) => items.iter().collect(),
        Json::String(s) => {
            content.text = s.clone();
            return content;
        }
        other => vec![other],
    };
    for item in items {
        let kind = item.get("type").and_then(Json::as_str).unwrap_or("");
        match kind {
            "text" | "input_text" | "output_text" => {
                if !content.text.is_empty() {
                    content.text.push('\n');
                }
                content.text.push_str(item.get("text").and_then(Json::as_str).unwrap_or(""));
            }
            "image_url" | "input_image" | "image" => {
                content.attachments.push(Attachment { kind: "image".into(), media_type: media_type(item) })
            }
            "input_audio" => content.attachments.push(Attachment { kind: "audio".into(), media_type: None }),
            "file" => content.attachments.push(Attachment { kind: "file".into(), media_type: None }),
            other => diags.add(
                "unknown-content-part",
                Severity::Warning,
                &format!("{role}/{}", type_name(Some(other))),
                Some(file),
                offset,
            ),
        }
    }
    content
}

/// The media type of a `data:` URL image part.
fn media_type(item: &Json) -> Option<String> {
    let url = item
        .get("image_url")
        .and_then(|u| u.get("url").or(Some(u)))
        .and_then(Json::as_str)
        .or_else(|| item.get("url").and_then(Json::as_str))?;
    let rest = url.strip_prefix("data:")?;
    let end = rest.find([';', ','])?;
    Some(rest[..end].to_string()).filter(|m| m.contains('/') && m.len() < 100)
}

/// Hermes' display identity of a row (role, content, timestamp, tool
/// fields), hashed: a compaction re-inserts its protected tail with the same
/// identity.
fn display_identity(row: &Row<'_>) -> u64 {
    let mut h = Fnv::new();
    for name in ["role", "content", "tool_call_id", "tool_calls", "tool_name"] {
        h.write(row.text(name).unwrap_or("").as_bytes());
        h.write(&[0xff]);
    }
    h.write(&row.real("timestamp").unwrap_or(0.0).to_bits().to_le_bytes());
    h.finish()
}

pub use trajhost_codec_sdk::text::type_name;

/// The summary of a message Hermes' context compressor wrote: one that opens
/// with its legacy prefix `[CONTEXT SUMMARY]:` (the prefix is cut off) or
/// with its current `[CONTEXT COMPACTION` note (kept whole: the note is
/// Hermes' text, not part of the summary it cannot be told apart from).
pub fn summary_of(content: &str) -> Option<String> {
    if let Some(rest) = content.strip_prefix("[CONTEXT SUMMARY]:") {
        return Some(rest.strip_prefix(' ').unwrap_or(rest).to_string());
    }
    content.starts_with("[CONTEXT COMPACTION").then(|| content.to_string())
}

/// Models by first use, from `session_model_usage` rows.
pub fn models_by_first_use(rows: &[(Option<f64>, String)]) -> Vec<(f64, String)> {
    let mut models: Vec<(f64, String)> = rows.iter().map(|(t, m)| (t.unwrap_or(0.0), m.clone())).collect();
    models.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut seen = BTreeMap::new();
    models.retain(|(t, m)| seen.insert((t.to_bits(), m.clone()), ()).is_none());
    models
}
