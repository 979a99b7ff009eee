//! The shape of a Qwen Code transcript line: one `ChatRecord`
//! (`chatRecordingService.ts`).
//!
//! `message` is a Gemini `Content` (`{role, parts}`); parts are `text`
//! (`thought: true` for reasoning), `functionCall`, `functionResponse` and
//! media.

use std::collections::BTreeMap;

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};
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


/// Parses one line.
pub fn parse(bytes: &[u8]) -> serde_json::Result<Entry> {
    serde_json::from_slice(bytes)
}
