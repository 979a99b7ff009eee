//! The first message shape (`MessageV1`, before parts had files of their
//! own): a message file holds its parts inline, in the AI SDK's UI-message
//! form, and its facts under `metadata`:
//!
//! ```text
//! {id, role, parts: [{type: "text", text} | {type: "reasoning", text}
//!                    | {type: "tool-invocation", toolInvocation: {state, toolCallId, toolName, args, result}}
//!                    | {type: "file", mediaType, filename, url} | {type: "step-start"} | …],
//!  metadata: {time: {created, completed}, sessionID, error,
//!             assistant: {modelID, providerID, path: {cwd, root}, cost, tokens}}}
//! ```
//!
//! Such a message is rewritten here into the later shape (a message info
//! and parts), so one mapping reads both. Its parts keep the message file as
//! their `src`, and get ids `<message id>#part<n>`.

use serde_json::{Map, Value, json};

use crate::message::Item;

/// Whether a message file is of the first shape.
pub fn is_v1(message: &Value) -> bool {
    message.get("parts").is_some_and(Value::is_array)
}

/// The message info and parts of a first-shape message.
pub fn split(message: &Item) -> (Item, Vec<Item>) {
    let v = &message.value;
    let meta = v.get("metadata").cloned().unwrap_or(Value::Null);
    let mut info = Map::new();
    for key in ["id", "role"] {
        if let Some(x) = v.get(key) {
            info.insert(key.into(), x.clone());
        }
    }
    if let Some(time) = meta.get("time") {
        info.insert("time".into(), time.clone());
    }
    if let Some(error) = meta.get("error") {
        info.insert("error".into(), error.clone());
    }
    if let Some(assistant) = meta.get("assistant") {
        for key in ["modelID", "providerID", "path", "cost", "tokens", "summary"] {
            if let Some(x) = assistant.get(key) {
                info.insert(key.into(), x.clone());
            }
        }
    }
    let parts = v
        .get("parts")
        .and_then(Value::as_array)
        .map(|parts| {
            parts
                .iter()
                .enumerate()
                .map(|(n, p)| Item {
                    path: message.path.clone(),
                    len: message.len,
                    id: format!("{}#part{n}", message.id),
                    stem: format!("{}#part{n}", message.stem),
                    value: part(p),
                })
                .collect()
        })
        .unwrap_or_default();
    (Item { value: Value::Object(info), ..message.clone() }, parts)
}

/// One inline part in the later shape.
fn part(p: &Value) -> Value {
    match p.get("type").and_then(Value::as_str) {
        Some("tool-invocation") => {
            let t = p.get("toolInvocation").unwrap_or(&Value::Null);
            let input = t.get("args").cloned().unwrap_or(Value::Null);
            let state = match t.get("state").and_then(Value::as_str) {
                Some("result") => {
                    let output = match t.get("result") {
                        Some(Value::String(s)) => s.clone(),
                        None | Some(Value::Null) => String::new(),
                        Some(other) => other.to_string(),
                    };
                    json!({"status": "completed", "input": input, "output": output})
                }
                other => json!({"status": other.unwrap_or("pending"), "input": input}),
            };
            json!({"type": "tool", "callID": t.get("toolCallId"), "tool": t.get("toolName"), "state": state})
        }
        Some("file") => json!({
            "type": "file",
            "mime": p.get("mediaType").or_else(|| p.get("mimeType")),
            "filename": p.get("filename"),
            "url": p.get("url"),
        }),
        // `text`, `reasoning`, `step-start` have the later shape already;
        // other types are reported by the mapping.
        _ => p.clone(),
    }
}
