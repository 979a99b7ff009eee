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

/// `tool.execution_complete`. Every field but the id is read leniently:
/// the result's shape changed between releases.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolComplete {
    pub tool_call_id: Option<String>,
    /// Absent in some 1.0.x builds, which say `result.result_type` instead.
    pub success: Option<Value>,
    /// `{content, detailedContent, contents[]}`; in 1.0.4x builds the
    /// runtime's tool result object, `{result_type, text_result_for_llm}`
    /// (`resultType`, `textResultForLlm` in camelCase).
    pub result: Option<Value>,
    /// `{message, code}`, or a string.
    pub error: Option<Value>,
}

impl ToolComplete {
    /// What the model saw: `result.content`, else the runtime's
    /// `textResultForLlm`, else the text items of `result.contents`, else
    /// the error message.
    pub fn content(&self) -> Option<String> {
        let result = self.result.as_ref();
        let text = |v: Option<&Value>| v.and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
        text(result.and_then(|r| r.get("content")))
            .or_else(|| text(result.and_then(|r| r.get("textResultForLlm"))))
            .or_else(|| text(result.and_then(|r| r.get("text_result_for_llm"))))
            .or_else(|| {
                let items = result?.get("contents")?.as_array()?;
                let texts: Vec<&str> = items
                    .iter()
                    .filter(|i| i.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|i| i.get("text").and_then(Value::as_str))
                    .collect();
                (!texts.is_empty()).then(|| texts.join("\n"))
            })
            .or_else(|| match self.error.as_ref()? {
                Value::String(s) if !s.is_empty() => Some(s.clone()),
                error => text(error.get("message")),
            })
    }

    /// `success`, else what the result's type says.
    pub fn ok(&self) -> Option<bool> {
        if let Some(success) = self.success.as_ref().and_then(Value::as_bool) {
            return Some(success);
        }
        let result = self.result.as_ref()?;
        let kind = result.get("resultType").or_else(|| result.get("result_type")).and_then(Value::as_str)?;
        match kind {
            "success" => Some(true),
            "failure" | "rejected" | "denied" => Some(false),
            _ => None,
        }
    }
}

/// Tool arguments: an object, or (older builds) the object as JSON text,
/// which is read as the object it holds.
pub fn arguments(value: Option<Value>) -> Value {
    match value {
        Some(Value::String(text)) => match serde_json::from_str::<Value>(&text) {
            Ok(object @ Value::Object(_)) => object,
            _ => Value::String(text),
        },
        Some(value) => value,
        None => Value::Null,
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CompactionComplete {
    pub success: Option<bool>,
    pub summary_content: Option<String>,
    pub trigger: Option<String>,
    pub error: Option<String>,
}
