//! The shapes of Copilot CLI session events (`session-events.schema.json`
//! of `github/copilot-sdk`), only the fields the codec reads.
//!
//! The envelope is parsed first with `data` left raw; `data` is parsed into
//! the struct of its event type when the type is mapped.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

/// One line: `{type, data, id, timestamp, parentId, ephemeral?, agentId?}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event<'a> {
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    #[serde(borrow, default)]
    pub data: Option<&'a RawValue>,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub timestamp: Option<String>,
    #[serde(default)]
    pub parent_id: Option<String>,
    #[serde(default)]
    pub agent_id: Option<String>,
}

impl Event<'_> {
    /// `data` as `T`; `None` when absent or of another shape.
    pub fn data<T: DeserializeOwned>(&self) -> Option<T> {
        serde_json::from_str(self.data?.get()).ok()
    }
}

/// Parses one line's envelope.
pub fn parse(bytes: &[u8]) -> serde_json::Result<Event<'_>> {
    serde_json::from_slice(bytes)
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SessionStart {
    pub session_id: Option<String>,
    pub copilot_version: Option<String>,
    pub start_time: Option<String>,
    pub selected_model: Option<String>,
    pub context: Option<Context>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Context {
    pub cwd: Option<String>,
    pub git_root: Option<String>,
    pub branch: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct UserMessage {
    pub content: Option<String>,
    pub transformed_content: Option<String>,
    pub attachments: Option<Vec<Attachment>>,
    pub source: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Attachment {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub mime_type: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct SystemMessage {
    pub content: Option<String>,
    pub role: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AssistantMessage {
    pub message_id: Option<String>,
    pub content: Option<String>,
    pub tool_requests: Option<Vec<ToolRequest>>,
    pub reasoning_text: Option<String>,
    pub reasoning_opaque: Option<String>,
    pub encrypted_content: Option<String>,
    pub model: Option<String>,
    pub output_tokens: Option<u64>,
    pub api_call_id: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolRequest {
    pub tool_call_id: Option<String>,
    pub name: Option<String>,
    pub arguments: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Reasoning {
    pub reasoning_id: Option<String>,
    pub content: Option<String>,
}

/// `session.usage_record` wraps one call's usage in `usage`;
/// `assistant.usage` carries the same fields at the top.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct UsageRecord {
    pub usage: Option<CallUsage>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CallUsage {
    pub model: Option<String>,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cache_read_tokens: Option<u64>,
    pub cache_write_tokens: Option<u64>,
    pub api_call_id: Option<String>,
}

/// `tool.execution_start` and `tool.user_requested`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolStart {
    pub tool_call_id: Option<String>,
    pub tool_name: Option<String>,
    pub arguments: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolComplete {
    pub tool_call_id: Option<String>,
    pub success: Option<bool>,
    pub result: Option<ToolResult>,
    pub error: Option<ToolError>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolResult {
    pub content: Option<String>,
    pub detailed_content: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ToolError {
    pub message: Option<String>,
    pub code: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CompactionComplete {
    pub success: Option<bool>,
    pub summary_content: Option<String>,
    pub trigger: Option<String>,
    pub error: Option<String>,
}
