//! `events.jsonl` of a schema-4 session: one `ConversationEnvelope` per line
//! (`session_event.zig`), `{"schema_version":1..3,"seq","timestamp_ms",
//! "event":{"<kind>":{…}}}`, and the rules fx checks while replaying them
//! (`validateConversationTransition`, `ConversationTurnBuilder`).
//!
//! fx parses frames strictly: an unknown or duplicate field, or two event
//! keys, make the frame invalid. Missing optional fields take their
//! defaults.

use serde::Deserialize;
use serde_json::Value;

fn three() -> u64 {
    3
}

/// One line of `events.jsonl`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConversationEnvelope {
    #[serde(default = "three")]
    pub schema_version: u64,
    pub seq: u64,
    pub timestamp_ms: i64,
    pub event: Event,
}

/// The event, externally tagged by its kind.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    User(UserEvent),
    Assistant(AssistantEvent),
    ToolCall(ToolCallEvent),
    ToolResult(ToolResultEvent),
    Steering(SteeringEvent),
    TurnCompleted(TurnCompleted),
    Interrupted(Interrupted),
    ContextCheckpoint(ContextCheckpoint),
}

impl Event {
    pub fn kind(&self) -> &'static str {
        match self {
            Event::User(_) => "user",
            Event::Assistant(_) => "assistant",
            Event::ToolCall(_) => "tool_call",
            Event::ToolResult(_) => "tool_result",
            Event::Steering(_) => "steering",
            Event::TurnCompleted(_) => "turn_completed",
            Event::Interrupted(_) => "interrupted",
            Event::ContextCheckpoint(_) => "context_checkpoint",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserEvent {
    pub text: String,
    #[serde(default)]
    pub images: Vec<ImageAttachment>,
    #[serde(default)]
    pub work_id: Option<String>,
}

/// `ImageAttachment` (paths relative to the session).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageAttachment {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub media_type: Option<String>,
    #[serde(default)]
    pub snapshot_path: Option<String>,
    #[serde(default)]
    pub snapshot_sha256: Option<String>,
    #[serde(default)]
    pub source_ref: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssistantEvent {
    pub text: String,
    #[serde(default)]
    pub provider_replay: Option<Value>,
    #[serde(default)]
    pub standalone_response: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCallEvent {
    pub call_id: String,
    pub tool_name: String,
    pub arguments_json: String,
    #[serde(default)]
    pub argument_integrity: Option<String>,
    #[serde(default)]
    pub provisional_id: Option<Value>,
    #[serde(default)]
    pub provider_result: Option<String>,
    #[serde(default)]
    pub final_identity: Option<String>,
    #[serde(default)]
    pub provenance: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolResultEvent {
    pub call_id: String,
    pub tool_name: String,
    pub status: String,
    /// The stored body in `tool-results/` (required since 0.0.8).
    pub artifact_ref: String,
    #[serde(default)]
    pub tool_image_handle: Option<Value>,
    /// Size of the original output (`None`: the stored body's).
    #[serde(default)]
    pub output_bytes: Option<u64>,
    /// Byte length of the artifact body.
    pub stored_bytes: u64,
    /// `complete` when the artifact is the whole result.
    pub completeness: String,
    /// The first ≤4 KiB, for display only; never the result.
    #[serde(default)]
    pub preview: Option<String>,
    #[serde(default)]
    pub provider_native: bool,
    #[serde(default)]
    pub review_feedback: Option<bool>,
    #[serde(default)]
    pub created_at_ms: i64,
    #[serde(default)]
    pub permission_feedback: Vec<String>,
    #[serde(default)]
    pub committed_file_presentation: Option<Value>,
    #[serde(default)]
    pub command_replay_ref: Option<String>,
    #[serde(default)]
    pub command_replay_bytes: Option<u64>,
    #[serde(default)]
    pub command_process_presentation: Option<Value>,
    #[serde(default)]
    pub terminal_action_presentation: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SteeringEvent {
    pub text: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnCompleted {
    #[serde(default)]
    pub files: Vec<Value>,
    #[serde(default)]
    pub turn_summary: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interrupted {
    pub reason: String,
    #[serde(default)]
    pub partial_text: Option<String>,
    #[serde(default)]
    pub command_replay_ref: Option<String>,
    #[serde(default)]
    pub command_replay_bytes: Option<u64>,
    #[serde(default)]
    pub command_artifact_ref: Option<String>,
    #[serde(default)]
    pub files: Vec<Value>,
    #[serde(default)]
    pub turn_summary: Option<Value>,
    #[serde(default)]
    pub cancellation_origin: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextCheckpoint {
    pub covers_through_seq: u64,
    pub summary: String,
}

/// The replay state fx checks frame by frame.
#[derive(Debug, Default)]
pub struct Conversation {
    last_seq: u64,
    open_turn: bool,
    /// Calls of the open batch without a result: (call_id, tool_name).
    pending: Vec<(String, String)>,
    coverage: u64,
}

impl Conversation {
    /// Checks that `frame` may follow the frames so far and takes it in;
    /// the error says which rule it breaks.
    pub fn apply(&mut self, frame: &ConversationEnvelope) -> Result<(), String> {
        if frame.seq != self.last_seq + 1 {
            return Err(format!("seq {} follows seq {} (seq must be contiguous from 1)", frame.seq, self.last_seq));
        }
        if !(1..=3).contains(&frame.schema_version) {
            return Err(format!("frame schema_version {} is not 1–3", frame.schema_version));
        }
        if frame.timestamp_ms < 0 {
            return Err("negative timestamp_ms".into());
        }
        let in_turn = |this: &Self, kind: &str| {
            if this.open_turn { Ok(()) } else { Err(format!("{kind} outside a turn (no user frame opened one)")) }
        };
        match &frame.event {
            Event::User(user) => {
                if self.open_turn {
                    return Err("user frame inside an open turn".into());
                }
                if user.text.is_empty() {
                    return Err("user text is empty".into());
                }
                self.open_turn = true;
            }
            Event::Assistant(assistant) => {
                in_turn(self, "assistant")?;
                if frame.schema_version == 1 && (assistant.text.is_empty() || assistant.provider_replay.is_some()) {
                    return Err("a schema-1 assistant frame needs text and no provider_replay".into());
                }
            }
            Event::Steering(steering) => {
                in_turn(self, "steering")?;
                if steering.text.is_empty() {
                    return Err("steering text is empty".into());
                }
            }
            Event::ToolCall(call) => {
                in_turn(self, "tool_call")?;
                if call.arguments_json.is_empty() {
                    return Err("tool_call arguments_json is empty".into());
                }
                if self.pending.iter().any(|(id, _)| *id == call.call_id) {
                    return Err(format!("duplicate pending call_id {}", call.call_id));
                }
                self.pending.push((call.call_id.clone(), call.tool_name.clone()));
            }
            Event::ToolResult(result) => {
                in_turn(self, "tool_result")?;
                let Some(at) =
                    self.pending.iter().position(|(id, name)| *id == result.call_id && *name == result.tool_name)
                else {
                    return Err(format!(
                        "tool_result {} matches no pending tool_call (call_id and tool_name)",
                        result.call_id
                    ));
                };
                if !matches!(result.status.as_str(), "success" | "failure") {
                    return Err("tool_result status is neither success nor failure".into());
                }
                if result.review_feedback == Some(true) && result.status != "failure" {
                    return Err("review_feedback on a successful result".into());
                }
                if result.command_replay_ref.is_some() != result.command_replay_bytes.is_some() {
                    return Err("command_replay_ref and command_replay_bytes come together".into());
                }
                self.pending.remove(at);
            }
            Event::TurnCompleted(_) => {
                in_turn(self, "turn_completed")?;
                if !self.pending.is_empty() {
                    return Err(format!("turn_completed with {} tool call(s) without a result", self.pending.len()));
                }
                self.open_turn = false;
            }
            Event::Interrupted(interrupted) => {
                in_turn(self, "interrupted")?;
                if self.pending.len() > 1 {
                    return Err(format!("interrupted with {} calls open (at most one)", self.pending.len()));
                }
                if !matches!(interrupted.reason.as_str(), "cancelled" | "failed") {
                    return Err("interrupted reason is neither cancelled nor failed".into());
                }
                self.pending.clear();
                self.open_turn = false;
            }
            Event::ContextCheckpoint(checkpoint) => {
                if checkpoint.summary.is_empty() {
                    return Err("context_checkpoint summary is empty".into());
                }
                if checkpoint.covers_through_seq < self.coverage || checkpoint.covers_through_seq > frame.seq {
                    return Err("context_checkpoint coverage goes back or past the log".into());
                }
                if !self.pending.is_empty() {
                    return Err("context_checkpoint inside a tool batch".into());
                }
                self.coverage = checkpoint.covers_through_seq;
            }
        }
        self.last_seq = frame.seq;
        Ok(())
    }

    /// A turn is still open (its closing frame not written yet).
    pub fn turn_open(&self) -> bool {
        self.open_turn
    }
}

/// Frame kinds and what becomes of them.
pub const EVENT_KINDS: &[(&str, trajhost_codec_sdk::known::Handling)] = {
    use trajhost_codec_sdk::known::Handling::Mapped;
    &[
        ("user", Mapped("user (images as attachments)")),
        ("assistant", Mapped("assistant (when it has text)")),
        ("tool_call", Mapped("tool_call")),
        ("tool_result", Mapped("tool_result, body from tool-results/<artifact_ref>")),
        ("steering", Mapped("user: what the person typed mid-turn")),
        ("turn_completed", Mapped("closes the turn (file evidence not mapped)")),
        ("interrupted", Mapped("partial assistant text, observation interrupt")),
        ("context_checkpoint", Mapped("compaction")),
    ]
};

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(seq: u64, event: &str) -> ConversationEnvelope {
        serde_json::from_str(&format!(r#"{{"schema_version":3,"seq":{seq},"timestamp_ms":1,"event":{event}}}"#))
            .unwrap()
    }

    #[test]
    fn transitions() {
        let mut c = Conversation::default();
        c.apply(&frame(1, r#"{"user":{"text":"hi"}}"#)).unwrap();
        c.apply(&frame(2, r#"{"tool_call":{"call_id":"a","tool_name":"t","arguments_json":"{}"}}"#)).unwrap();
        assert!(c.apply(&frame(3, r#"{"turn_completed":{}}"#)).unwrap_err().contains("without a result"));
        let wrong_name = r#"{"tool_result":{"call_id":"a","tool_name":"u","status":"success","artifact_ref":"x","stored_bytes":0,"completeness":"complete"}}"#;
        assert!(c.apply(&frame(3, wrong_name)).is_err());
        let right = wrong_name.replace(r#""u""#, r#""t""#);
        c.apply(&frame(3, &right)).unwrap();
        assert!(c.apply(&frame(5, r#"{"turn_completed":{}}"#)).unwrap_err().contains("contiguous"));
        c.apply(&frame(4, r#"{"turn_completed":{}}"#)).unwrap();
        assert!(c.apply(&frame(5, r#"{"assistant":{"text":"x"}}"#)).is_err());
    }

    #[test]
    fn strict_frames() {
        let parse = |line: &str| serde_json::from_str::<ConversationEnvelope>(line);
        assert!(parse(r#"{"seq":1,"timestamp_ms":1,"event":{"user":{"text":"hi"}}}"#).unwrap().schema_version == 3);
        assert!(parse(r#"{"seq":1,"timestamp_ms":1,"x":0,"event":{"user":{"text":"hi"}}}"#).is_err());
        assert!(parse(r#"{"seq":1,"timestamp_ms":1,"event":{"user":{"text":"hi","x":0}}}"#).is_err());
        assert!(parse(r#"{"seq":1,"timestamp_ms":1,"event":{"user":{"text":"hi"},"steering":{"text":"x"}}}"#).is_err());
    }
}
