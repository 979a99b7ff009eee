//! `MessageV2.Part`: what one part says, by `type`.

use serde_json::Value;
use trajhost_codec_sdk::json::str_of;

/// A text part the harness added (`synthetic: true`).
pub fn is_synthetic(part: &Value) -> bool {
    part.get("synthetic").and_then(Value::as_bool) == Some(true)
}

/// A text part marked `ignored` (left out of the prompt).
pub fn is_ignored(part: &Value) -> bool {
    part.get("ignored").and_then(Value::as_bool) == Some(true)
}

/// The trigger of a `compaction` part: `auto` or `manual`, when recorded.
pub fn compaction_trigger(part: &Value) -> Option<String> {
    match part.get("auto").and_then(Value::as_bool) {
        Some(true) => Some("auto".to_string()),
        Some(false) => Some("manual".to_string()),
        None => None,
    }
}

/// The text of a `subtask`, `agent`, `retry`, `patch` or `file` part kept as
/// an observation (`None` for other types).
pub fn observation_text(kind: &str, part: &Value) -> Option<String> {
    match kind {
        "subtask" => str_of(part, "prompt").or_else(|| str_of(part, "description")).map(str::to_string),
        "agent" => str_of(part, "name").map(str::to_string),
        "retry" => part
            .pointer("/error/data/message")
            .and_then(Value::as_str)
            .or_else(|| str_of(part, "error"))
            .map(str::to_string),
        "patch" => part
            .get("files")
            .and_then(Value::as_array)
            .map(|files| files.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("\n")),
        "file" => str_of(part, "filename").or_else(|| str_of(part, "url")).map(str::to_string),
        _ => None,
    }
}

/// `state.input` of a `tool` part: the call's arguments (`{}` when missing).
pub fn tool_arguments(state: &Value) -> Value {
    match state.get("input") {
        None | Some(Value::Null) => Value::Object(Default::default()),
        Some(v) => v.clone(),
    }
}

/// What `state` of a `tool` part says of its result.
pub enum ToolOutcome<'a> {
    /// `completed` (`ok` unless `metadata.exit` is a non-zero exit code) or
    /// `error` (`ok: false`); `truncated` when a completed call's output was
    /// cut (`metadata.truncated`).
    Result { content: String, ok: Option<bool>, truncated: bool },
    /// No result (`pending`, `running`, …): the status, when recorded.
    Unfinished(Option<&'a str>),
}

/// The result of a `tool` part's `state`.
pub fn tool_outcome(state: &Value) -> ToolOutcome<'_> {
    match str_of(state, "status") {
        Some("completed") => {
            let exit = state.pointer("/metadata/exit").and_then(Value::as_i64);
            let content = str_of(state, "output").unwrap_or("").to_string();
            let truncated = state.pointer("/metadata/truncated").and_then(Value::as_bool) == Some(true);
            ToolOutcome::Result { content, ok: Some(exit.is_none_or(|code| code == 0)), truncated }
        }
        Some("error") => {
            let content = str_of(state, "error").unwrap_or("").to_string();
            ToolOutcome::Result { content, ok: Some(false), truncated: false }
        }
        other => ToolOutcome::Unfinished(other),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn tool_outcomes() {
        let done = json!({"status": "completed", "output": "ok", "metadata": {"exit": 2, "truncated": true}});
        assert!(matches!(
            tool_outcome(&done),
            ToolOutcome::Result { content, ok: Some(false), truncated: true } if content == "ok"
        ));
        let failed = json!({"status": "error", "error": "boom", "metadata": {"truncated": true}});
        assert!(matches!(
            tool_outcome(&failed),
            ToolOutcome::Result { content, ok: Some(false), truncated: false } if content == "boom"
        ));
        assert!(matches!(tool_outcome(&json!({"status": "running"})), ToolOutcome::Unfinished(Some("running"))));
        assert!(matches!(tool_outcome(&json!({})), ToolOutcome::Unfinished(None)));
        assert_eq!(tool_arguments(&json!({"input": null})), json!({}));
    }

    #[test]
    fn observation_texts() {
        let retry = json!({"error": {"data": {"message": "rate"}}});
        assert_eq!(observation_text("retry", &retry).as_deref(), Some("rate"));
        assert_eq!(observation_text("patch", &json!({"files": ["a", "b"]})).as_deref(), Some("a\nb"));
        assert_eq!(observation_text("file", &json!({"url": "u"})).as_deref(), Some("u"));
        assert_eq!(observation_text("text", &json!({"text": "t"})), None);
        assert_eq!(compaction_trigger(&json!({"auto": false})).as_deref(), Some("manual"));
    }
}
