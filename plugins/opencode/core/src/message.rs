//! `MessageV2.Info`: what a message says besides its parts.

use serde_json::Value;
use trajhost_codec_sdk::canonical::Usage;
use trajhost_codec_sdk::json::str_of;

/// What one model step of an assistant message (`data`) says it stopped for
/// and used: the message's own `finish` and usage when it is the message's
/// only step, else its `step-finish` part's, for which the message's stand in
/// on its last step.
pub fn step_stop_and_usage(
    data: &Value,
    step_finish: Option<&Value>,
    last: bool,
    only: bool,
) -> (Option<String>, Option<Usage>) {
    let from_step = |key: &str| step_finish.and_then(|p| str_of(p, key)).map(str::to_string);
    let message_finish = str_of(data, "finish").map(str::to_string);
    let stop_reason = if only {
        message_finish.or_else(|| from_step("reason"))
    } else if last {
        from_step("reason").or(message_finish)
    } else {
        from_step("reason")
    };
    let usage =
        if only { usage(data) } else { step_finish.and_then(usage).or_else(|| if last { usage(data) } else { None }) };
    (stop_reason, usage)
}

/// Usage of an assistant message; `None` without `tokens`. `input` is
/// OpenCode's `tokens.input`, which excludes cache reads and writes.
pub fn usage(data: &Value) -> Option<Usage> {
    let tokens = data.get("tokens").filter(|t| t.is_object())?;
    let count = |ptr: &str| tokens.pointer(ptr).and_then(Value::as_u64);
    let usage = Usage {
        input: count("/input"),
        output: count("/output"),
        cache_read: count("/cache/read"),
        cache_write: count("/cache/write"),
        reasoning: count("/reasoning"),
        cost_usd: data.get("cost").and_then(Value::as_f64),
    };
    (usage != Usage::default()).then_some(usage)
}

/// A message's `error` as text (`<name>: <data.message>`); `None` without one.
pub fn error_text(data: &Value) -> Option<String> {
    let error = data.get("error").filter(|e| !e.is_null())?;
    let name = str_of(error, "name").unwrap_or("error");
    Some(match error.pointer("/data/message").and_then(Value::as_str).unwrap_or("") {
        "" => name.to_string(),
        message => format!("{name}: {message}"),
    })
}

/// Whether an assistant message is the summary a compaction asked for.
pub fn is_summary(data: &Value) -> bool {
    data.get("summary").and_then(Value::as_bool) == Some(true)
}

/// A summary message's text: its `text` parts joined by `\n`.
pub fn summary_text<'a>(parts: impl IntoIterator<Item = &'a Value>) -> String {
    let text: Vec<&str> =
        parts.into_iter().filter(|p| str_of(p, "type") == Some("text")).filter_map(|p| str_of(p, "text")).collect();
    text.join("\n")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn errors_usage_and_summaries() {
        assert_eq!(error_text(&json!({"error": {"name": "E", "data": {"message": "m"}}})).as_deref(), Some("E: m"));
        assert_eq!(error_text(&json!({"error": {}})).as_deref(), Some("error"));
        assert_eq!(error_text(&json!({"error": null})), None);
        let got = usage(&json!({"tokens": {"input": 3, "cache": {"read": 1}}, "cost": 0.5})).unwrap();
        assert_eq!((got.input, got.cache_read, got.output, got.cost_usd), (Some(3), Some(1), None, Some(0.5)));
        assert_eq!(usage(&json!({"tokens": {}})), None);
        let parts =
            [json!({"type": "text", "text": "a"}), json!({"type": "tool"}), json!({"type": "text", "text": "b"})];
        assert_eq!(summary_text(&parts), "a\nb");
    }
}
