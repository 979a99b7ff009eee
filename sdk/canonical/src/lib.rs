//! The canonical session record: the one shape every codec reads native
//! sessions into and writes native sessions from.
//!
//! Records travel between codec and host as a versioned JSON document (one
//! record per line), not as WIT types: the record vocabulary grows faster
//! than the ABI, unknown fields survive a round trip through older hosts,
//! and the archive and search index store the same JSON. ARCHITECTURE.md
//! explains the choice.

pub mod time;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Version of the document every record line belongs to.
pub const SCHEMA: &str = "trajhost.canonical/0.1";

/// One canonical record. Field order is the serialization order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Stable across re-reads of the same bytes: the native id, else the
    /// byte location, else a content hash.
    pub id: String,
    #[serde(flatten)]
    pub body: Body,
    /// The record this one follows or answers, when the native store says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// RFC 3339 timestamp as recorded natively.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts: Option<String>,
    /// Set on records of a subagent (child) transcript: the child's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Where the record's raw bytes are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<SourceSpan>,
}

/// The raw native bytes a record came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceSpan {
    /// Path relative to the granted home (or the session's directory).
    pub file: String,
    pub offset: u64,
    pub len: u64,
}

/// The kind-specific part of a record, tagged by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Body {
    Meta(Meta),
    System {
        text: String,
    },
    User {
        text: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        attachments: Vec<Attachment>,
    },
    Assistant(Assistant),
    Reasoning(Reasoning),
    ToolCall {
        call_id: String,
        name: String,
        /// The arguments object; a string when the native store holds
        /// arguments that are not valid JSON.
        arguments: Value,
    },
    ToolResult {
        call_id: String,
        content: String,
        /// `Some` only when the native store records success or failure.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ok: Option<bool>,
    },
    /// Something the harness recorded that is neither said by the user nor
    /// the model: hook output, mode changes, API errors, progress.
    Observation {
        subtype: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// A summary that replaces the history before it.
    Compaction {
        summary: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        trigger: Option<String>,
    },
}

impl Body {
    /// The `kind` tag as serialized.
    pub fn kind(&self) -> &'static str {
        match self {
            Body::Meta(_) => "meta",
            Body::System { .. } => "system",
            Body::User { .. } => "user",
            Body::Assistant(_) => "assistant",
            Body::Reasoning(_) => "reasoning",
            Body::ToolCall { .. } => "tool_call",
            Body::ToolResult { .. } => "tool_result",
            Body::Observation { .. } => "observation",
            Body::Compaction { .. } => "compaction",
        }
    }
}

/// Session-level facts; the first record of every session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    pub schema: String,
    pub harness: String,
    pub native_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// For a subagent transcript: the session it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session: Option<String>,
    /// For a subagent transcript: the parent's tool call that started it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_call: Option<String>,
    /// The codec that produced the records, `harness@version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codec: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Assistant {
    pub text: String,
    /// The model that served the response, as the provider reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// `None` when the store recorded no usage (never zeros in its place).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// Token counts of one model call. `input` excludes cache reads and writes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

/// Model reasoning: readable text, or an opaque blob carried as it was.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reasoning {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Opaque or encrypted reasoning (a signature, redacted data).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opaque: Option<String>,
    #[serde(default)]
    pub encrypted: bool,
}

/// A non-text part of a user message, carried by reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attachment {
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_round_trips_through_json() {
        let record = Record {
            id: "r1".into(),
            body: Body::ToolCall {
                call_id: "c1".into(),
                name: "Bash".into(),
                arguments: serde_json::json!({"command": "ls"}),
            },
            parent: Some("r0".into()),
            ts: None,
            agent: None,
            src: Some(SourceSpan { file: "a.jsonl".into(), offset: 10, len: 5 }),
        };
        let line = serde_json::to_string(&record).unwrap();
        assert!(line.starts_with(r#"{"id":"r1","kind":"tool_call""#), "{line}");
        let back: Record = serde_json::from_str(&line).unwrap();
        assert_eq!(back, record);
    }
}
