//! The shape of a Qwen Code transcript line: one `ChatRecord`
//! (`chatRecordingService.ts`).
//!
//! `message` is a Gemini `Content` (`{role, parts}`); parts are `text`
//! (`thought: true` for reasoning), `functionCall`, `functionResponse` and
//! media.

use serde::Deserialize;
use serde_json::Value;

/// One line.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Entry {
    pub uuid: Option<String>,
    pub parent_uuid: Option<String>,
    pub session_id: Option<String>,
    pub timestamp: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub subtype: Option<String>,
    pub cwd: Option<String>,
    pub version: Option<String>,
    pub git_branch: Option<String>,
    pub message: Option<Message>,
    pub usage_metadata: Option<UsageMetadata>,
    pub model: Option<String>,
    pub tool_call_result: Option<ToolCallResult>,
    pub system_payload: Option<Value>,
    pub agent_id: Option<String>,
    pub is_sidechain: Option<bool>,
}

impl Entry {
    /// The record kind as [`crate::KNOWN_RECORD_TYPES`] names it:
    /// `system/<subtype>` for system records, else the `type`.
    pub fn record_type(&self) -> String {
        match (self.kind.as_deref(), self.subtype.as_deref()) {
            (Some("system"), Some(subtype)) => format!("system/{subtype}"),
            (Some(kind), _) => kind.to_string(),
            (None, _) => "(no type)".to_string(),
        }
    }
}

/// A Gemini `Content`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Message {
    pub role: Option<String>,
    pub parts: Content,
}

/// Gemini usage counts; `promptTokenCount` includes cached tokens.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct UsageMetadata {
    pub prompt_token_count: Option<u64>,
    pub candidates_token_count: Option<u64>,
    pub thoughts_token_count: Option<u64>,
    pub cached_content_token_count: Option<u64>,
    pub total_token_count: Option<u64>,
}

/// `toolCallResult`: UI facts about a tool call, with its status.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolCallResult {
    pub call_id: Option<String>,
    pub status: Option<String>,
    pub error: Option<Value>,
}

/// The GenAI content shapes Qwen Code inherited from Gemini CLI.
pub use trajhost_codec_sdk::genai::{Blob, Content, FunctionCall, FunctionResponse, PART_ANNOTATIONS, Part};

/// Parses one line.
pub fn parse(bytes: &[u8]) -> serde_json::Result<Entry> {
    serde_json::from_slice(bytes)
}

/// A line that holds two or more records written without the newline
/// between them (`{…}{…}`): the byte range of each, or `None` when the line
/// is anything else (one record, or not JSON).
pub fn glued(bytes: &[u8]) -> Option<Vec<(usize, usize)>> {
    let mut stream = serde_json::Deserializer::from_slice(bytes).into_iter::<serde::de::IgnoredAny>();
    let mut ranges = Vec::new();
    let mut start = 0;
    while let Some(item) = stream.next() {
        item.ok()?;
        let end = stream.byte_offset();
        let first = bytes[start..end].iter().position(|b| !b.is_ascii_whitespace())? + start;
        if bytes[first] != b'{' {
            return None;
        }
        ranges.push((first, end));
        start = end;
    }
    (ranges.len() > 1).then_some(ranges)
}
