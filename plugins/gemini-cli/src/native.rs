//! The shapes of Gemini CLI session lines (`chatRecordingTypes.ts`).
//!
//! One struct, [`Line`], covers every line: the header
//! (`{sessionId, projectHash, startTime, lastUpdated, kind, summary?}`),
//! a message record (`{id, timestamp, type, content, …}`), a `$set` patch
//! and a `$rewindTo` truncation. `$set.messages` holds message records of
//! the same shape.

use std::collections::BTreeMap;

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

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

/// `PartListUnion`: a string, one part, or a list of parts.
#[derive(Debug, Clone, Default)]
pub enum Content {
    #[default]
    None,
    Text(String),
    Parts(Vec<Part>),
    /// Neither a string nor parts (reported, not read).
    Unrecognized,
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Text(String),
            Parts(Vec<Part>),
            One(Box<Part>),
            Other(IgnoredAny),
        }
        Ok(match Option::<Raw>::deserialize(deserializer)? {
            None => Content::None,
            Some(Raw::Text(s)) => Content::Text(s),
            Some(Raw::Parts(p)) => Content::Parts(p),
            Some(Raw::One(p)) => Content::Parts(vec![*p]),
            Some(Raw::Other(_)) => Content::Unrecognized,
        })
    }
}

impl Content {
    pub fn parts(&self) -> &[Part] {
        match self {
            Content::Parts(p) => p,
            _ => &[],
        }
    }
}

/// One Gemini `Part`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Part {
    pub text: Option<String>,
    pub thought: Option<bool>,
    pub function_call: Option<FunctionCall>,
    pub function_response: Option<FunctionResponse>,
    pub inline_data: Option<Blob>,
    pub file_data: Option<Blob>,
    pub executable_code: Option<Value>,
    pub code_execution_result: Option<Value>,
    /// Other keys (`thoughtSignature`, `videoMetadata`, new part kinds).
    #[serde(flatten)]
    pub other: BTreeMap<String, IgnoredAny>,
}

/// Part keys that carry no content of their own.
pub const PART_ANNOTATIONS: &[&str] = &["thoughtSignature", "videoMetadata", "partMetadata", "mediaResolution"];

impl Part {
    pub fn is_thought(&self) -> bool {
        self.thought == Some(true)
    }

    /// The name of a part that is none of the kinds the codec reads.
    pub fn unknown_kind(&self) -> Option<&str> {
        let known = self.text.is_some()
            || self.function_call.is_some()
            || self.function_response.is_some()
            || self.inline_data.is_some()
            || self.file_data.is_some()
            || self.executable_code.is_some()
            || self.code_execution_result.is_some();
        if known {
            return None;
        }
        Some(self.other.keys().map(String::as_str).find(|k| !PART_ANNOTATIONS.contains(k)).unwrap_or("(empty part)"))
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct FunctionCall {
    pub id: Option<String>,
    pub name: Option<String>,
    pub args: Option<Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct FunctionResponse {
    pub id: Option<String>,
    pub name: Option<String>,
    pub response: Option<Value>,
}

/// `inlineData` / `fileData`: only the media type is kept.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Blob {
    pub mime_type: Option<String>,
}

/// `ToolCallRecord`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolCall {
    pub id: Option<String>,
    pub name: Option<String>,
    pub args: Option<Value>,
    pub result: Content,
    pub status: Option<String>,
    pub timestamp: Option<String>,
    pub agent_id: Option<String>,
}

/// A thought summary of a `gemini` message.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Thought {
    pub subject: Option<String>,
    pub description: Option<String>,
    pub timestamp: Option<String>,
}

/// `TokensSummary`: `input` is the prompt count including cached tokens.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Tokens {
    pub input: Option<u64>,
    pub output: Option<u64>,
    pub cached: Option<u64>,
    pub thoughts: Option<u64>,
    pub tool: Option<u64>,
    pub total: Option<u64>,
}

/// Parses one line.
pub fn parse(bytes: &[u8]) -> serde_json::Result<Line> {
    serde_json::from_slice(bytes)
}
