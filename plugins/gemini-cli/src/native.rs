//! The shapes of Gemini CLI session lines (`chatRecordingTypes.ts`).
//!
//! One struct, [`Line`], covers every line: the header
//! (`{sessionId, projectHash, startTime, lastUpdated, kind, summary?}`),
//! a message record (`{id, timestamp, type, content, …}`), a `$set` patch
//! and a `$rewindTo` truncation. `$set.messages` holds message records of
//! the same shape.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::IgnoredAny;

/// One line (or one entry of `$set.messages`).
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Line {
    #[serde(rename = "$set")]
    pub set: Option<Set>,
    #[serde(rename = "$rewindTo")]
    pub rewind_to: Option<String>,

    // Message records.
    pub id: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub timestamp: Option<String>,
    pub content: Content,
    pub tool_calls: Option<Vec<ToolCall>>,
    pub thoughts: Option<Vec<Thought>>,
    pub tokens: Option<Tokens>,
    pub model: Option<String>,

    // The header (and `$set` patches of the same fields).
    pub session_id: Option<String>,
    pub project_hash: Option<String>,
    pub start_time: Option<String>,
    pub last_updated: Option<String>,
    /// `main` or `subagent` (the header's, not a message's `type`).
    #[serde(rename = "kind")]
    pub session_kind: Option<String>,
    pub summary: Option<String>,
}

/// What a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind<'a> {
    Header,
    /// A message record of this `type`.
    Message(&'a str),
    Set,
    Rewind,
    /// None of the above.
    Unrecognized,
}

impl Line {
    pub fn kind(&self) -> LineKind<'_> {
        if self.set.is_some() {
            LineKind::Set
        } else if self.rewind_to.is_some() {
            LineKind::Rewind
        } else if let (Some(_), Some(kind)) = (&self.id, &self.kind) {
            LineKind::Message(kind)
        } else if self.session_id.is_some() && self.id.is_none() {
            LineKind::Header
        } else {
            LineKind::Unrecognized
        }
    }
}

/// A `$set` patch: metadata fields, or the whole message list.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Set {
    pub messages: Option<Vec<Line>>,
    pub summary: Option<String>,
    /// The other keys, by name.
    #[serde(flatten)]
    pub other: BTreeMap<String, IgnoredAny>,
}

/// The GenAI content shapes of message records.
pub use trajhost_codec_sdk::genai::{Blob, Content, FunctionCall, FunctionResponse, PART_ANNOTATIONS, Part};

/// The shapes inside a message, shared with the JSON layout.
pub use trajhost_gemini_cli_core::message::{Thought, Tokens, ToolCall};

/// Parses one line.
pub fn parse(bytes: &[u8]) -> serde_json::Result<Line> {
    serde_json::from_slice(bytes)
}
