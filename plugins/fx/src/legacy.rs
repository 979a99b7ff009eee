//! The legacy `session.json` snapshot, schemas 1 and 2 (`parseLegacyExact`,
//! `renderSessionJson` in fx's `session_json.zig`): one JSON document holding
//! the whole history. fx parses it as a generic JSON value, so unknown keys
//! are ignored here too.
//!
//! ```text
//! {schema_version: 1|2, id, created_at_ms, updated_at_ms, workspace_root?,
//!  conversation_language, history_len, history: [HistoryTurn], total_*_tokens?}
//! HistoryTurn (by `kind`):
//!   assistant           user, assistant (final reply), execution?
//!   interrupted         user, assistant?, tool_call? (the call in flight), completed_tool_names,
//!                       terminal_reason (cancelled|failed), cancellation_origin, execution?
//!   compacted_summary   summary, removed_turn_count, compaction_count, root_user_messages, …
//!   background_command  user, assistant?, execution?, log_path, expect_url, url?
//! ExecutionMemory       schema_version (1–3), tool_steps [{assistant?, tool_calls, tool_results}],
//!                       files, steering (≤2: strings after the last step; 3: {text, after_tool_step_count})
//! ```
//!
//! Records of one turn, in order: `user`; steering given before the first
//! step (`user`: what a person typed mid-turn); per step its assistant text,
//! `tool_call`s, `tool_result`s, then the steering given after it; the final
//! reply (`assistant`). An interrupted turn adds its partial reply, the call
//! in flight (a `tool_call` without result) and an `interrupt` observation;
//! a compacted summary is a `compaction`; a background command adds a
//! `background-command` observation.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Record, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;

/// The document's top level, history turns kept raw (each is parsed when
/// the reader reaches it).
#[derive(Deserialize)]
pub struct LegacySession<'a> {
    pub schema_version: Value,
    pub id: Option<String>,
    pub created_at_ms: Option<i64>,
    pub updated_at_ms: Option<i64>,
    pub workspace_root: Option<String>,
    pub conversation_language: Option<String>,
    pub history_len: Option<u64>,
    #[serde(borrow, default)]
    pub history: Vec<&'a RawValue>,
}

/// `UserTurn`: what the person typed, with image snapshots.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct UserTurn {
    pub text: String,
    #[serde(default)]
    pub images: Vec<ImageAttachment>,
}

/// An image of a user turn (a snapshot file in the session).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ImageAttachment {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub media_type: Option<String>,
}

/// `ToolCall` of a tool step.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments_json: String,
    #[serde(default)]
    pub provider_result: Option<String>,
}

/// `PersistedToolResult`, as execution memory schema 3 writes it (schemas 1
/// and 2 lack the last fields, which default).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PersistedToolResult {
    pub tool_call_id: String,
    pub tool_name: String,
    pub status: String,
    pub output: String,
    #[serde(default)]
    pub output_handle: Option<String>,
    #[serde(default)]
    pub preview: Option<String>,
    #[serde(default)]
    pub output_bytes: u64,
    #[serde(default)]
    pub stored_output_bytes: u64,
    #[serde(default)]
    pub truncated: bool,
    #[serde(default)]
    pub provider_native: bool,
    #[serde(default)]
    pub created_at_ms: i64,
    #[serde(default)]
    pub permission_feedback: Vec<String>,
    #[serde(default)]
    pub command_output_replay: Option<Value>,
    #[serde(default)]
    pub command_process_presentation: Option<Value>,
}

/// A history turn with its parts kept raw, for their byte spans.
#[derive(Deserialize)]
struct TurnParts<'a> {
    kind: String,
    #[serde(borrow, default)]
    user: Option<&'a RawValue>,
    #[serde(borrow, default)]
    assistant: Option<&'a RawValue>,
    #[serde(borrow, default)]
    execution: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tool_call: Option<&'a RawValue>,
    #[serde(default)]
    terminal_reason: Option<String>,
    #[serde(default)]
    cancellation_origin: Option<String>,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    log_path: Option<String>,
    #[serde(default)]
    url: Option<String>,
}

#[derive(Deserialize)]
struct ExecutionParts<'a> {
    #[serde(default)]
    schema_version: Option<u64>,
    #[serde(borrow, default)]
    tool_steps: Vec<&'a RawValue>,
    #[serde(default)]
    steering: Option<Vec<Value>>,
    /// File evidence (what the turn read and changed): no canonical record.
    #[serde(default)]
    files: Vec<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
struct StepParts<'a> {
    #[serde(default)]
    assistant: Option<String>,
    #[serde(borrow, default)]
    tool_calls: Vec<&'a RawValue>,
    #[serde(borrow, default)]
    tool_results: Vec<&'a RawValue>,
}

/// History turn kinds and what becomes of them.
pub const TURN_KINDS: &[(&str, trajhost_codec_sdk::known::Handling)] = {
    use trajhost_codec_sdk::known::Handling::Mapped;
    &[
        ("assistant", Mapped("user, tool steps, final assistant")),
        ("interrupted", Mapped("user, tool steps, partial assistant, call in flight, observation interrupt")),
        ("compacted_summary", Mapped("compaction")),
        ("background_command", Mapped("as assistant, plus observation background-command")),
    ]
};

/// Maps history turns to canonical records. Legacy turns carry no times
/// of their own; results keep their `created_at_ms`.
pub struct TurnMapper<'f> {
    /// The `session.json` locator records point into.
    pub file: &'f str,
    pub diags: &'f mut Diagnostics,
}

impl TurnMapper<'_> {
    /// The records of the turn `bytes` (found at `base` in the file), the
    /// `index`-th of `history`.
    pub fn map(&mut self, bytes: &[u8], base: u64, index: usize, out: &mut Vec<Record>) {
        let at = |raw: &RawValue| SourceSpan {
            file: self.file.to_string(),
            offset: base + (raw.get().as_ptr() as usize - bytes.as_ptr() as usize) as u64,
            len: raw.get().len() as u64,
        };
        let whole = SourceSpan { file: self.file.to_string(), offset: base, len: bytes.len() as u64 };
        let turn: TurnParts<'_> = match serde_json::from_slice(bytes) {
            Ok(turn) => turn,
            Err(_) => {
                self.diags.add("malformed-record", Severity::Error, "history turn", Some(self.file), Some(base));
                return;
            }
        };
        let id = |suffix: &str| format!("h{index}:{suffix}");
        let record = |id: String, body: Body, src: SourceSpan, ts: Option<String>| Record {
            id,
            body,
            parent: None,
            ts,
            agent: None,
            src: Some(src),
        };
        match turn.kind.as_str() {
            "compacted_summary" => {
                let Some(summary) = turn.summary else {
                    self.diags.add(
                        "malformed-record",
                        Severity::Error,
                        "compacted_summary.summary",
                        Some(self.file),
                        Some(base),
                    );
                    return;
                };
                out.push(record(id("compaction"), Body::Compaction { summary, trigger: None }, whole, None));
                return;
            }
            "assistant" | "interrupted" | "background_command" => {}
            other => {
                self.diags.add(
                    "unknown-record-type",
                    Severity::Warning,
                    &format!("history kind {other}"),
                    Some(self.file),
                    Some(base),
                );
                return;
            }
        }
        // The user turn.
        let user = turn.user.and_then(|raw| serde_json::from_str::<UserTurn>(raw.get()).ok().map(|u| (u, at(raw))));
        let Some((user, user_src)) = user else {
            self.diags.add(
                "malformed-record",
                Severity::Error,
                &format!("{}.user", turn.kind),
                Some(self.file),
                Some(base),
            );
            return;
        };
        let attachments = user
            .images
            .iter()
            .map(|image| Attachment { kind: "image".into(), media_type: image.media_type.clone() })
            .collect();
        out.push(record(id("user"), Body::User { text: user.text, attachments }, user_src, None));

        // Execution memory: steps and steering.
        let execution = turn.execution.and_then(|raw| {
            let parsed = serde_json::from_str::<ExecutionParts<'_>>(raw.get());
            if parsed.is_err() {
                self.diags.add("malformed-record", Severity::Error, "execution", Some(self.file), Some(base));
            }
            parsed.ok().map(|e| (e, at(raw)))
        });
        let (steps, steering, execution_src) = match execution {
            Some((e, src)) => {
                if e.schema_version.is_some_and(|v| !(1..=3).contains(&v)) {
                    self.diags.add(
                        "unsupported-schema",
                        Severity::Warning,
                        "execution schema_version",
                        Some(self.file),
                        Some(base),
                    );
                }
                if !e.files.is_empty() {
                    self.diags.add(
                        "unmapped-record-type",
                        Severity::Info,
                        "execution.files",
                        Some(self.file),
                        Some(src.offset),
                    );
                }
                let steering =
                    steering_of(e.schema_version.unwrap_or(1), e.steering.unwrap_or_default(), e.tool_steps.len());
                (e.tool_steps, steering, src)
            }
            None => (Vec::new(), Vec::new(), whole.clone()),
        };
        let steer = |after: usize, out: &mut Vec<Record>| {
            for (k, (_, text)) in steering.iter().enumerate().filter(|(_, (n, _))| *n == after) {
                out.push(record(
                    id(&format!("steer{k}")),
                    Body::User { text: text.clone(), attachments: Vec::new() },
                    execution_src.clone(),
                    None,
                ));
            }
        };
        steer(0, out);
        for (s, raw_step) in steps.iter().enumerate() {
            let step_src = at(raw_step);
            let Ok(step) = serde_json::from_str::<StepParts<'_>>(raw_step.get()) else {
                self.diags.add(
                    "malformed-record",
                    Severity::Error,
                    "tool step",
                    Some(self.file),
                    Some(step_src.offset),
                );
                continue;
            };
            if let Some(text) = step.assistant.filter(|t| !t.is_empty()) {
                out.push(record(
                    id(&format!("s{s}")),
                    Body::Assistant(Assistant { text, ..Default::default() }),
                    step_src.clone(),
                    None,
                ));
            }
            for (j, raw) in step.tool_calls.iter().enumerate() {
                match serde_json::from_str::<ToolCall>(raw.get()) {
                    Ok(call) => out.push(record(id(&format!("s{s}:c{j}")), call_body(call), at(raw), None)),
                    Err(_) => self.diags.add(
                        "malformed-record",
                        Severity::Error,
                        "tool call",
                        Some(self.file),
                        Some(at(raw).offset),
                    ),
                }
            }
            for (j, raw) in step.tool_results.iter().enumerate() {
                match serde_json::from_str::<PersistedToolResult>(raw.get()) {
                    Ok(result) => {
                        if result.truncated || result.output_bytes > result.output.len() as u64 {
                            self.diags.add(
                                "truncated-tool-output",
                                Severity::Info,
                                "tool result",
                                Some(self.file),
                                Some(at(raw).offset),
                            );
                        }
                        let ts = (result.created_at_ms > 0)
                            .then(|| trajhost_codec_sdk::time::rfc3339_ms(result.created_at_ms));
                        let body = Body::ToolResult {
                            call_id: result.tool_call_id,
                            content: result.output,
                            ok: status_ok(&result.status),
                        };
                        out.push(record(id(&format!("s{s}:r{j}")), body, at(raw), ts));
                    }
                    Err(_) => self.diags.add(
                        "malformed-record",
                        Severity::Error,
                        "tool result",
                        Some(self.file),
                        Some(at(raw).offset),
                    ),
                }
            }
            steer(s + 1, out);
        }

        let assistant_src = turn.assistant.map(at).unwrap_or_else(|| whole.clone());
        let text = turn.assistant.and_then(|raw| serde_json::from_str::<Option<String>>(raw.get()).ok().flatten());
        if let Some(text) = text.filter(|t| !t.is_empty()) {
            out.push(record(
                id("assistant"),
                Body::Assistant(Assistant { text, ..Default::default() }),
                assistant_src,
                None,
            ));
        }
        match turn.kind.as_str() {
            "interrupted" => {
                if let Some(raw) = turn.tool_call {
                    match serde_json::from_str::<ToolCall>(raw.get()) {
                        Ok(call) => out.push(record(id("in-flight"), call_body(call), at(raw), None)),
                        Err(_) => self.diags.add(
                            "malformed-record",
                            Severity::Error,
                            "interrupted.tool_call",
                            Some(self.file),
                            Some(base),
                        ),
                    }
                }
                let reason = turn.terminal_reason.unwrap_or_else(|| "cancelled".into());
                let text = match turn.cancellation_origin.as_deref() {
                    Some(origin) if origin != "turn" => format!("{reason} ({origin})"),
                    _ => reason,
                };
                out.push(record(
                    id("interrupt"),
                    Body::Observation { subtype: "interrupt".into(), text: Some(text) },
                    whole,
                    None,
                ));
            }
            "background_command" => {
                let mut text = format!("log={}", turn.log_path.unwrap_or_default());
                if let Some(url) = turn.url {
                    text.push_str(&format!("; url={url}"));
                }
                out.push(record(
                    id("background"),
                    Body::Observation { subtype: "background-command".into(), text: Some(text) },
                    whole,
                    None,
                ));
            }
            _ => {}
        }
    }
}

/// `success` / `failure` as `ok`; anything else unknown.
pub fn status_ok(status: &str) -> Option<bool> {
    match status {
        "success" => Some(true),
        "failure" => Some(false),
        _ => None,
    }
}

/// A tool call's record body: the arguments parsed (kept as a string when
/// they are not JSON, as fx marks them `malformed_json`).
pub fn call_body(call: ToolCall) -> Body {
    let arguments = serde_json::from_str::<Value>(&call.arguments_json).unwrap_or(Value::String(call.arguments_json));
    Body::ToolCall { call_id: call.id, name: call.name, arguments }
}

/// Steering as (steps completed before it, text): schema ≤2 holds strings
/// given after the last step; schema 3 objects say after which step.
fn steering_of(schema: u64, steering: Vec<Value>, steps: usize) -> Vec<(usize, String)> {
    steering
        .into_iter()
        .filter_map(|entry| match entry {
            Value::String(text) if schema <= 2 => Some((steps, text)),
            Value::Object(map) => {
                let text = map.get("text")?.as_str()?.to_string();
                let after = map.get("after_tool_step_count").and_then(Value::as_u64).unwrap_or(steps as u64);
                Some(((after as usize).min(steps), text))
            }
            Value::String(text) => Some((steps, text)),
            _ => None,
        })
        .filter(|(_, text)| !text.is_empty())
        .collect()
}
