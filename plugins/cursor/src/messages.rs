//! The JSON message blobs of root field 1: AI-SDK `ModelMessage`s
//! (`system`, `user`, `assistant` with text / reasoning / tool-call parts,
//! `tool` with tool-result parts), and the prompt wrappers the CLI puts
//! around user text (`<user_query>`, injected `<user_info>` context).

use serde_json::{Value as Json, json};
use trajhost_codec_sdk::CodecError;

/// One canonical item of a message.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    System(String),
    User(String),
    /// Injected context (`<user_info>`, `<system_reminder>`, attached files).
    Context(String),
    Assistant(String),
    Reasoning(String),
    /// `redacted-reasoning`: opaque data.
    RedactedReasoning(String),
    ToolCall {
        id: String,
        name: String,
        args: Json,
    },
    ToolResult {
        id: String,
        content: String,
        ok: Option<bool>,
    },
    /// A part type this codec does not know (its `type`).
    Unknown(String),
}

/// Tags of context the CLI injects as user messages.
const CONTEXT_TAGS: &[&str] = &[
    "<user_info>",
    "<system_reminder>",
    "<timestamp>",
    "<attached_files>",
    "<additional_data>",
    "<rules>",
    "<project_layout>",
    "<git_status>",
];

/// Splits a user text into what the person typed (inside `<user_query>`, or
/// the bare text) and injected context around it.
pub fn split_user_text(text: &str) -> (Option<String>, Option<String>) {
    const OPEN: &str = "<user_query>";
    const CLOSE: &str = "</user_query>";
    if let Some(start) = text.find(OPEN)
        && let Some(end_rel) = text[start + OPEN.len()..].find(CLOSE)
    {
        let inner = &text[start + OPEN.len()..start + OPEN.len() + end_rel];
        let inner = inner.strip_prefix('\n').unwrap_or(inner);
        let inner = inner.strip_suffix('\n').unwrap_or(inner);
        let rest = format!("{}{}", &text[..start], &text[start + OPEN.len() + end_rel + CLOSE.len()..]);
        let rest = rest.trim();
        return (Some(inner.to_string()), (!rest.is_empty()).then(|| rest.to_string()));
    }
    let trimmed = text.trim_start();
    if CONTEXT_TAGS.iter().any(|t| trimmed.starts_with(t)) {
        return (None, Some(text.to_string()));
    }
    (Some(text.to_string()), None)
}

/// The `<user_query>` wrapper the CLI sends the model.
pub fn wrap_user_query(text: &str) -> String {
    format!("<user_query>\n{text}\n</user_query>")
}

/// `Workspace Path: /abs` from injected `<user_info>`.
pub fn workspace_path(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("Workspace Path:"))
        .map(|p| p.trim().to_string())
        .filter(|p| p.starts_with('/'))
}

fn text_of(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The items of one message blob.
pub fn parse_message(bytes: &[u8], file: &str, blob: &str) -> Result<Vec<Item>, CodecError> {
    let bad = |what: &str| CodecError::Malformed(format!("{file}: JSON message blob {blob}: {what}"));
    let v: Json = serde_json::from_slice(bytes).map_err(|e| bad(&format!("not JSON ({e})")))?;
    let role = v.get("role").and_then(Json::as_str).ok_or_else(|| bad("no role"))?;
    let content = v.get("content").cloned().unwrap_or(Json::Null);
    let parts: Vec<Json> = match content {
        Json::String(s) => vec![json!({"type": "text", "text": s})],
        Json::Array(a) => a,
        Json::Null => Vec::new(),
        _ => return Err(bad("content is neither a string nor an array")),
    };
    let mut items = Vec::new();
    for part in &parts {
        let kind = part.get("type").and_then(Json::as_str).unwrap_or("");
        let text = || part.get("text").map(text_of).unwrap_or_default();
        match (role, kind) {
            ("system", "text") => items.push(Item::System(text())),
            ("user", "text") => {
                let (user, context) = split_user_text(&text());
                if let Some(c) = context {
                    items.push(Item::Context(c));
                }
                if let Some(u) = user {
                    items.push(Item::User(u));
                }
            }
            ("assistant", "text") => items.push(Item::Assistant(text())),
            ("assistant", "reasoning") => items.push(Item::Reasoning(text())),
            ("assistant", "redacted-reasoning") => {
                items.push(Item::RedactedReasoning(part.get("data").map(text_of).unwrap_or_default()))
            }
            ("assistant", "tool-call") => items.push(Item::ToolCall {
                id: part.get("toolCallId").map(text_of).unwrap_or_default(),
                name: part.get("toolName").map(text_of).unwrap_or_default(),
                args: part.get("args").or_else(|| part.get("input")).cloned().unwrap_or(json!({})),
            }),
            ("tool", "tool-result") => {
                let result = part.get("result").or_else(|| part.get("output")).cloned().unwrap_or(Json::Null);
                let is_error = part.get("isError").or_else(|| v.get("isError")).and_then(Json::as_bool);
                items.push(Item::ToolResult {
                    id: part.get("toolCallId").map(text_of).unwrap_or_default(),
                    content: text_of(&result),
                    ok: is_error.map(|e| !e),
                });
            }
            (_, k) => items.push(Item::Unknown(format!("{role}/{k}"))),
        }
    }
    Ok(items)
}

/// One JSON message part of an assistant message the writer builds.
pub fn text_part(text: &str) -> Json {
    json!({"type": "text", "text": text})
}

pub fn reasoning_part(text: &str) -> Json {
    json!({"type": "reasoning", "text": text})
}

pub fn tool_call_part(id: &str, name: &str, args: &Json) -> Json {
    json!({"type": "tool-call", "toolCallId": id, "toolName": name, "args": args})
}

/// Compact JSON of one message.
pub fn message(role: &str, content: Json) -> Vec<u8> {
    serde_json::to_vec(&json!({"role": role, "content": content})).expect("JSON serializes")
}

/// A `tool` message with one result.
pub fn tool_result_message(id: &str, name: &str, content: &str, is_error: bool) -> Vec<u8> {
    let mut part = json!({"type": "tool-result", "toolCallId": id, "toolName": name, "result": content});
    if is_error {
        part["isError"] = Json::Bool(true);
    }
    message("tool", Json::Array(vec![part]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_query_and_context() {
        assert_eq!(split_user_text("<user_query>\nrun ls\n</user_query>"), (Some("run ls".into()), None));
        let (u, c) = split_user_text("<user_info>\nWorkspace Path: /w\n</user_info>\n<user_query>\nhi\n</user_query>");
        assert_eq!(u.as_deref(), Some("hi"));
        assert_eq!(workspace_path(c.as_deref().unwrap()).as_deref(), Some("/w"));
        assert_eq!(split_user_text("<system_reminder>x</system_reminder>").0, None);
        assert_eq!(split_user_text("plain"), (Some("plain".into()), None));
    }

    #[test]
    fn parts() {
        let m = br#"{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"tool-call","toolCallId":"c","toolName":"T","args":{"x":1}}]}"#;
        let items = parse_message(m, "f", "b").unwrap();
        assert_eq!(items.len(), 2);
        assert!(parse_message(b"nope", "f", "b").is_err());
    }
}
