//! Native record types → canonical records.
//!
//! `chat_history.jsonl` lines are `ConversationItem`s tagged by `type`
//! (format 1), or role-tagged chat messages (format 0, `ChatRequestMessage`:
//! the same file and layout, so the same codec reads both, line by line);
//! `updates.jsonl` lines are ACP notifications tagged by
//! `params.update.sessionUpdate`. Every type is either mapped (see
//! [`KNOWN_ITEM_TYPES`] and [`KNOWN_UPDATE_TYPES`]) or counted in a
//! diagnostic: `unmapped-record-type` for types the codec knows and leaves
//! out on purpose, `unknown-record-type` for types it has never seen.
//! Details are `chat_history:<type>` and `updates:<sessionUpdate>`.

use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Reasoning, Record, SourceSpan};
use trajhost_codec_sdk::jsonl::Line;
use trajhost_codec_sdk::records::location_id;
use trajhost_grok_build_core::read::{Lines, Out};

use crate::layout::UPDATES;
use crate::updates::{TurnUsage, UpdatesIndex};
use trajhost_codec_sdk::json::{content_text, str_of};
use trajhost_codec_sdk::text::type_name;

pub use trajhost_codec_sdk::known::Handling;

/// Every `ConversationItem` type of `chat_history.jsonl`.
pub const KNOWN_ITEM_TYPES: &[(&str, Handling)] = &[
    ("system", Handling::Mapped("system")),
    (
        "user",
        Handling::Mapped(
            "user (prompts, <user_query> unwrapped); compaction (the summary of a compacted context); observation synthetic/<reason> and user-context (injected context)",
        ),
    ),
    ("assistant", Handling::Mapped("assistant (model_id as model), tool_call")),
    ("tool_result", Handling::Mapped("tool_result")),
    ("reasoning", Handling::Mapped("reasoning")),
    (
        "backend_tool_call",
        Handling::Mapped("observation backend-tool/<tool_type> (a provider-side tool: no client call)"),
    ),
];

/// Every `sessionUpdate` kind known to appear in `updates.jsonl`: ACP's own
/// and Grok Build's `_x.ai/session/update` extensions (the ones both codecs
/// leave out come from [`trajhost_grok_build_core::known_update_types`]).
pub const KNOWN_UPDATE_TYPES: &[(&str, Handling)] = trajhost_grok_build_core::known_update_types![
    ("user_message_chunk", Handling::Mapped("user ts (promptIndex); the text is read from chat_history.jsonl")),
    ("agent_message_chunk", Handling::Mapped("assistant ts; the text is read from chat_history.jsonl")),
    ("tool_call", Handling::Mapped("tool_call ts; the call is read from chat_history.jsonl")),
    ("tool_call_update", Handling::Mapped("tool_result ok (status, rawOutput.exit_code) and ts")),
    (
        "turn_completed",
        Handling::Mapped("assistant usage when the turn made one model call, else observation turn-usage"),
    ),
    // Streams that repeat the context, and UI/session state.
    ("agent_thought_chunk", Handling::Reported),
    ("retry_state", Handling::Reported),
];

pub fn item_handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_ITEM_TYPES, kind)
}

pub fn update_handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_UPDATE_TYPES, kind)
}

/// How Grok Build opens the summary that replaces a compacted history.
pub const COMPACTION_PREAMBLE: &str = "This session is being continued from a previous conversation";

/// The reading state of `chat_history.jsonl`.
pub struct History {
    /// The file, relative to the home.
    file: String,
    /// The journal, relative to the home (for `turn-usage` spans).
    updates_file: String,
    updates: UpdatesIndex,
    /// The prompt the items belong to (the last `user.prompt_index`).
    prompt: Option<u64>,
    /// The prompt's `turn_completed`, until an answer takes its usage or the
    /// turn ends.
    turn: Option<TurnUsage>,
}

impl History {
    pub fn new(file: String, updates_file: String, updates: UpdatesIndex) -> History {
        History { file, updates_file, updates, prompt: None, turn: None }
    }

    fn user(&mut self, value: &Value, span: (u64, u64), out: &mut Out<'_>) {
        let content = value.get("content").unwrap_or(&Value::Null);
        let text = content_text(content);
        let attachments = attachments(content);
        let prompt_index = value.get("prompt_index").and_then(Value::as_u64);
        if let Some(p) = prompt_index {
            self.end_turn(out);
            self.prompt = Some(p);
            self.turn = self.updates.take_turn(p);
        }
        let ts = prompt_index.and_then(|p| self.updates.prompt_ts(p));
        let body = match str_of(value, "synthetic_reason") {
            Some(reason) if reason == "compaction_meta" && text.starts_with(COMPACTION_PREAMBLE) => {
                Body::Compaction { summary: text, trigger: None }
            }
            Some(reason) => {
                Body::Observation { subtype: format!("synthetic/{}", type_name(Some(reason))), text: Some(text) }
            }
            None => match unwrap_query(&text) {
                Some(query) => Body::User { text: query.to_string(), attachments },
                None if prompt_index.is_some() => Body::User { text, attachments },
                // The `<user_info>` preamble and other injected context.
                None => Body::Observation { subtype: "user-context".into(), text: Some(text) },
            },
        };
        self.push(out, 0, body, ts, span);
    }

    /// A format 0 line: a role-tagged chat message (`ChatRequestMessage`),
    /// what Grok Build wrote before `ConversationItem`s and still reads.
    /// It keeps no prompt index or synthetic reason, so injected context is
    /// told from a prompt by its wrapper tag.
    fn message(&mut self, role: &str, value: &Value, span: (u64, u64), out: &mut Out<'_>) {
        let content = value.get("content").unwrap_or(&Value::Null);
        match role {
            "system" => self.push(out, 0, Body::System { text: content_text(content) }, None, span),
            "user" => {
                let text = content_text(content);
                let body = match unwrap_query(&text) {
                    Some(query) => Body::User { text: query.to_string(), attachments: attachments(content) },
                    None if is_wrapped(&text) => Body::Observation { subtype: "user-context".into(), text: Some(text) },
                    None => Body::User { text, attachments: attachments(content) },
                };
                self.push(out, 0, body, None, span);
            }
            "assistant" => {
                // The reasoning folded into the message comes first, as it ran.
                if let Some(text) = str_of(value, "reasoning_content").filter(|t| !t.is_empty()) {
                    let reasoning = Reasoning { text: Some(text.to_string()), opaque: None, encrypted: false };
                    self.push(out, 0, Body::Reasoning(reasoning), None, span);
                }
                self.assistant(value, 1, span, out);
            }
            "tool" => self.tool_result(value, span, out),
            other => out.diags.add(
                "unknown-record-type",
                Severity::Warning,
                &format!("chat_history:role/{}", type_name(Some(other))),
                Some(&self.file),
                Some(span.0),
            ),
        }
    }

    /// An assistant item (or format 0 message): its record at index
    /// `first`, its tool calls after it.
    fn assistant(&mut self, value: &Value, first: usize, span: (u64, u64), out: &mut Out<'_>) {
        let text = content_text(value.get("content").unwrap_or(&Value::Null));
        let calls: &[Value] = value.get("tool_calls").and_then(Value::as_array).map_or(&[], Vec::as_slice);
        let text_ts = match (self.prompt, text.is_empty()) {
            (Some(p), false) => self.updates.take_segment(p),
            _ => None,
        };
        let call_ts = calls
            .iter()
            .find_map(|c| str_of(c, "id"))
            .and_then(|id| self.updates.call(id))
            .and_then(|f| f.call_ts.clone());
        // RFC 3339 strings of one format order as times.
        let ts = match (text_ts, call_ts) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        // A turn's usage belongs to an answer only when the turn made one model call.
        let usage = match &self.turn {
            Some(turn) if turn.model_calls == Some(1) => self.turn.take().and_then(|t| t.usage),
            _ => None,
        };
        let assistant = Assistant {
            text,
            model: str_of(value, "model_id").map(str::to_string),
            message_id: None,
            stop_reason: None,
            usage,
        };
        self.push(out, first, Body::Assistant(assistant), ts.clone(), span);
        for (i, call) in calls.iter().enumerate() {
            // Format 0 nests name and arguments in `function`.
            let function = call.get("function").unwrap_or(call);
            let arguments = match function.get("arguments") {
                Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone())),
                Some(other) => other.clone(),
                None => Value::Null,
            };
            let id = str_of(call, "id").unwrap_or("");
            let call_ts = self.updates.call(id).and_then(|f| f.call_ts.clone()).or(ts.clone());
            let body = Body::ToolCall {
                call_id: id.to_string(),
                name: str_of(function, "name").unwrap_or("").to_string(),
                arguments,
            };
            self.push(out, first + i + 1, body, call_ts, span);
        }
    }

    fn tool_result(&mut self, value: &Value, span: (u64, u64), out: &mut Out<'_>) {
        let call_id = str_of(value, "tool_call_id").unwrap_or("").to_string();
        let facts = self.updates.call(&call_id).cloned().unwrap_or_default();
        let content = content_text(value.get("content").unwrap_or(&Value::Null));
        if value.get("images").and_then(Value::as_array).is_some_and(|i| !i.is_empty()) {
            out.diags.add(
                "unmapped-content-part",
                Severity::Info,
                "tool_result:images",
                Some(&self.file),
                Some(span.0),
            );
        }
        self.push(out, 0, Body::ToolResult { call_id, content, ok: facts.ok }, facts.result_ts, span);
    }

    /// The usage of a turn no single answer could take, as an observation.
    fn end_turn(&mut self, out: &mut Out<'_>) {
        let Some(turn) = self.turn.take() else { return };
        let record = Record {
            id: location_id(UPDATES, turn.offset, 0),
            body: Body::Observation { subtype: "turn-usage".into(), text: Some(turn.raw) },
            parent: None,
            ts: turn.ts,
            agent: None,
            src: Some(SourceSpan { file: self.updates_file.clone(), offset: turn.offset, len: turn.len }),
        };
        out.writer.push(&record);
    }

    fn push(&self, out: &mut Out<'_>, index: usize, body: Body, ts: Option<String>, span: (u64, u64)) {
        out.writer.push(&Record {
            id: location_id(crate::layout::CHAT_HISTORY, span.0, index),
            body,
            parent: None,
            ts,
            agent: None,
            src: Some(SourceSpan { file: self.file.clone(), offset: span.0, len: span.1 }),
        });
    }
}

impl Lines for History {
    fn line(&mut self, line: &Line<'_>, out: &mut Out<'_>) {
        let value: Value = match serde_json::from_slice(line.bytes) {
            Ok(v) => v,
            Err(_) => return out.bad_line(line, "chat_history line", &self.file),
        };
        let span = (line.offset, line.len);
        let kind = str_of(&value, "type");
        if kind.is_none()
            && let Some(role) = str_of(&value, "role")
        {
            return self.message(role, &value, span, out);
        }
        match kind {
            Some("system") => {
                let text = content_text(value.get("content").unwrap_or(&Value::Null));
                self.push(out, 0, Body::System { text }, None, span);
            }
            Some("user") => self.user(&value, span, out),
            Some("assistant") => self.assistant(&value, 0, span, out),
            Some("tool_result") => self.tool_result(&value, span, out),
            Some("reasoning") => {
                let summary = parts_text(value.get("summary"));
                let content = parts_text(value.get("content"));
                let encrypted = str_of(&value, "encrypted_content").filter(|e| !e.is_empty());
                let reasoning = Reasoning {
                    text: content.or(summary),
                    opaque: encrypted.map(str::to_string),
                    encrypted: encrypted.is_some(),
                };
                let ts = self.prompt.and_then(|p| self.updates.prompt_ts(p));
                self.push(out, 0, Body::Reasoning(reasoning), ts, span);
            }
            // A tool the provider ran server-side (a web search): no client
            // call, no result of its own. What it did is an observation.
            Some("backend_tool_call") => {
                let kind = value.get("kind").unwrap_or(&Value::Null);
                let tool = str_of(kind, "tool_type").or_else(|| str_of(kind, "name")).unwrap_or("backend_tool");
                let body = Body::Observation {
                    subtype: format!("backend-tool/{}", type_name(Some(tool))),
                    text: Some(kind.to_string()),
                };
                self.push(out, 0, body, None, span);
            }
            other => {
                let detail = format!("chat_history:{}", type_name(other));
                out.unmapped(other.and_then(item_handling), &detail, &self.file, line.offset);
            }
        }
    }

    /// Ends the file: the last turn's usage, if no answer took it.
    fn finish(&mut self, out: &mut Out<'_>) {
        self.end_turn(out);
    }
}

/// Image parts of a user message (format 0: `image_url{url}`).
fn attachments(content: &Value) -> Vec<Attachment> {
    let Value::Array(parts) = content else { return Vec::new() };
    parts
        .iter()
        .filter(|p| matches!(str_of(p, "type"), Some("image" | "image_url")))
        .map(|p| Attachment {
            kind: "image".into(),
            media_type: str_of(p, "url")
                .or_else(|| p.get("image_url").and_then(|u| str_of(u, "url")))
                .and_then(|u| u.strip_prefix("data:"))
                .and_then(|r| r.split([';', ',']).next())
                .filter(|m| !m.is_empty() && m.len() <= 100)
                .map(str::to_string),
        })
        .collect()
}

/// The texts of a list of `{type, text}` parts (reasoning summary/content).
fn parts_text(parts: Option<&Value>) -> Option<String> {
    let texts: Vec<&str> = parts?.as_array()?.iter().filter_map(|p| str_of(p, "text")).collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// Injected context: one block wrapped in a tag (`<user_info>…</user_info>`).
fn is_wrapped(text: &str) -> bool {
    let t = text.trim();
    let Some(name) = t.strip_prefix('<').and_then(|r| r.split(['>', ' ']).next()) else { return false };
    !name.is_empty() && t.ends_with(&format!("</{name}>"))
}

/// The prompt inside `<user_query>…</user_query>`, as typed.
fn unwrap_query(text: &str) -> Option<&str> {
    let inner = text.trim().strip_prefix("<user_query>")?.strip_suffix("</user_query>")?;
    let inner = inner.strip_prefix('\n').unwrap_or(inner);
    Some(inner.strip_suffix('\n').unwrap_or(inner))
}

#[cfg(test)]
mod tests {
    #[test]
    fn unwraps_user_queries() {
        assert_eq!(super::unwrap_query("<user_query>\nHi\n</user_query>"), Some("Hi"));
        assert_eq!(super::unwrap_query("<user_query>Hi</user_query>"), Some("Hi"));
        assert_eq!(super::unwrap_query("<user_info>x</user_info>"), None);
        assert!(super::is_wrapped("<user_info>\nOS: linux\n</user_info>"));
        assert!(!super::is_wrapped("<b>bold</b> is a tag"));
    }
}
