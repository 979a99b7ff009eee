//! `system` lines: what the harness itself logged, by `subtype`.
//!
//! - `compact_boundary`: history before it was replaced by a summary; the
//!   summary is the next `user` line with `isCompactSummary` (a `compaction`
//!   record, which takes the boundary's `compactMetadata.trigger`).
//! - `api_error`: a failed request being retried (`error.status`,
//!   `retryAttempt`, `maxRetries`).
//! - `local_command`, `stop_hook_summary`, `turn_duration`, `agents_killed`, …:
//!   harness notes with an optional `content` text.
//!
//! All become `observation {subtype: "system/<subtype>"}`.

use trajhost_codec_sdk::canonical::Body;

use super::{Out, Span, Transcript, type_name};
use crate::native::Entry;

pub fn map(t: &mut Transcript, entry: &Entry<'_>, span: Span, out: &mut Out<'_>) {
    let subtype = entry.subtype.get();
    let mut text = entry.content.owned().filter(|s| !s.is_empty());
    match subtype {
        Some("compact_boundary") => {
            let meta = entry.compact_metadata.0.as_ref();
            t.compact_trigger = meta.and_then(|m| m.trigger.owned());
            if text.is_none() {
                text = meta.and_then(|m| m.pre_tokens.0).map(|n| format!("{n} tokens before compaction"));
            }
        }
        Some("api_error") if text.is_none() => {
            let status = entry.error.0.as_ref().and_then(|e| e.status.0);
            let mut note = match status {
                Some(status) => format!("API error {status}"),
                None => "API error".to_string(),
            };
            if let (Some(attempt), Some(max)) = (entry.retry_attempt.0, entry.max_retries.0) {
                note.push_str(&format!(", retry {attempt} of {max}"));
            }
            text = Some(note);
        }
        _ => {}
    }
    let subtype = match subtype {
        Some(s) => format!("system/{}", type_name(Some(s))),
        None => "system".to_string(),
    };
    let id = t.line_id(entry, span, 0);
    let parent = t.links.resolve(entry.parent_uuid.get());
    let ts = t.ts(entry);
    let record = t.record(id, Body::Observation { subtype, text }, parent, ts, span);
    t.emit(out, record);
}
