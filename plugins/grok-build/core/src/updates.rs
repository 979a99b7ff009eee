//! `updates.jsonl` lines are ACP notifications tagged by
//! `params.update.sessionUpdate`. Each codec maps the kinds it reads; the
//! streams that repeat the context and the UI/session state, listed here,
//! both leave out (reported as `unmapped-record-type`).

use serde_json::Value;
use trajhost_codec_sdk::time::rfc3339_ms;

/// When an `updates.jsonl` line happened: `params._meta.agentTimestampMs`,
/// else the line's `timestamp` (seconds).
pub fn line_time(line: &Value) -> Option<String> {
    line.get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get("agentTimestampMs"))
        .and_then(Value::as_i64)
        .map(rfc3339_ms)
        .or_else(|| line.get("timestamp").and_then(Value::as_f64).map(|s| rfc3339_ms((s * 1000.0) as i64)))
}

/// A codec's table of every known `sessionUpdate` kind: its own entries
/// (`(kind, Handling)`), then the kinds both codecs leave out.
#[macro_export]
macro_rules! known_update_types {
    ($($entry:expr),* $(,)?) => {
        &[
            $($entry,)*
            ("plan", $crate::Handling::Reported),
            ("available_commands_update", $crate::Handling::Reported),
            ("current_mode_update", $crate::Handling::Reported),
            ("config_option_update", $crate::Handling::Reported),
            ("session_info_update", $crate::Handling::Reported),
            ("background_tasks", $crate::Handling::Reported),
            ("git_branch_update", $crate::Handling::Reported),
            ("diff_review", $crate::Handling::Reported),
            ("auto_compact_started", $crate::Handling::Reported),
            ("auto_compact_completed", $crate::Handling::Reported),
            ("auto_compact_failed", $crate::Handling::Reported),
            ("auto_compact_cancelled", $crate::Handling::Reported),
            ("memory_flush_started", $crate::Handling::Reported),
            ("memory_flush_completed", $crate::Handling::Reported),
            ("memory_dream_completed", $crate::Handling::Reported),
            ("memory_session_saved", $crate::Handling::Reported),
            ("auto_continue_completed", $crate::Handling::Reported),
            ("feedback_request", $crate::Handling::Reported),
            ("relay_sync_status", $crate::Handling::Reported),
            ("auto_recovery_started", $crate::Handling::Reported),
            ("auto_recovery_exhausted", $crate::Handling::Reported),
            ("hook_annotation", $crate::Handling::Reported),
            ("hook_execution", $crate::Handling::Reported),
            ("hooks_changed", $crate::Handling::Reported),
            ("plugins_changed", $crate::Handling::Reported),
            ("plugin_updates_installed", $crate::Handling::Reported),
            ("session_status", $crate::Handling::Reported),
            ("session_summary_generated", $crate::Handling::Reported),
            ("session_recap", $crate::Handling::Reported),
            ("session_recap_unavailable", $crate::Handling::Reported),
            ("last_turn_summary", $crate::Handling::Reported),
            ("compaction_checkpoint", $crate::Handling::Reported),
            ("rewind_marker", $crate::Handling::Reported),
            ("task_completed", $crate::Handling::Reported),
            ("subagent_spawned", $crate::Handling::Reported),
            ("subagent_progress", $crate::Handling::Reported),
            ("subagent_finished", $crate::Handling::Reported),
            ("task_backgrounded", $crate::Handling::Reported),
            ("scheduled_task_created", $crate::Handling::Reported),
            ("scheduled_task_fired", $crate::Handling::Reported),
            ("scheduled_task_deleted", $crate::Handling::Reported),
            ("monitor_event", $crate::Handling::Reported),
            ("model_auto_switched", $crate::Handling::Reported),
            ("model_changed", $crate::Handling::Reported),
            ("tool_call_delta_chunk", $crate::Handling::Reported),
            ("image_compressed", $crate::Handling::Reported),
            ("image_dropped", $crate::Handling::Reported),
            ("memory_files", $crate::Handling::Reported),
            ("workflow_updated", $crate::Handling::Reported),
            ("goal_updated", $crate::Handling::Reported),
            ("pending_interaction", $crate::Handling::Reported),
            ("interaction_resolved", $crate::Handling::Reported),
            ("response_started", $crate::Handling::Reported),
            ("reasoning_completed", $crate::Handling::Reported),
            ("response_completed", $crate::Handling::Reported),
        ]
    };
}
