//! What both OpenCode writers (database rows, `storage/` files) write alike.

use serde_json::{Value, json};

/// A tool call being written: (call id, tool name, input, start ms, outcome).
pub type Tool = (String, String, Value, i64, Option<ToolOutcome>);
/// A tool call's result: (content, ok, ms).
pub type ToolOutcome = (String, Option<bool>, i64);

/// A tool part's `state`: `completed` with its output (a result without an
/// outcome counts as a success), `error` with its content, or `error` for a
/// call left without a result. Also what was defaulted, for a `defaulted`
/// diagnostic.
pub fn tool_state(input: &Value, ms: i64, result: Option<&ToolOutcome>) -> (Value, Option<&'static str>) {
    match result {
        Some((content, ok, end)) if *ok != Some(false) => {
            let state = json!({"status": "completed", "input": input, "output": content, "title": "", "metadata": {},
                               "time": {"start": ms, "end": end}});
            (state, ok.is_none().then_some("tool.state.status (no ok: completed)"))
        }
        Some((content, _, end)) => {
            (json!({"status": "error", "input": input, "error": content, "time": {"start": ms, "end": end}}), None)
        }
        None => {
            let state = json!({"status": "error", "input": input, "error": "Tool execution was interrupted",
                               "time": {"start": ms, "end": ms}});
            (state, Some("tool.state (no result: error)"))
        }
    }
}
