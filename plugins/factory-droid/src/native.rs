//! The shapes of Factory Droid session lines.
//!
//! One struct covers every line: `session_start` fields, `message` fields
//! and the few fields of the bookkeeping lines that are read.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// One line.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Entry {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub id: Option<String>,
    pub parent_id: Option<String>,
    pub timestamp: Option<String>,
    pub message: Option<Message>,

    // `session_start`.
    pub title: Option<String>,
    pub session_title: Option<String>,
    pub owner: Option<String>,
    /// The session format version (a number), or the CLI version (a
    /// string) in older builds.
    pub version: Option<Value>,
    pub cwd: Option<String>,

    // `compaction_state`.
    pub summary_text: Option<String>,
    pub summary: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Message {
    pub role: Option<String>,
    pub content: Content,
    /// `llm_only` on context the harness injects for the model.
    pub visibility: Option<String>,
    /// The provider's response id.
    pub openai_message_id: Option<String>,
    /// The model Droid asked for (`custom:<name>` for custom models).
    pub model_id: Option<String>,
}

/// A message's content: a string or a block list.
#[derive(Debug, Default)]
pub enum Content {
    #[default]
    None,
    Text(String),
    Blocks(Vec<Block>),
    /// Neither (reported, not read).
    Unrecognized,
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Text(String),
            Blocks(Vec<Block>),
            Other(serde::de::IgnoredAny),
        }
        Ok(match Option::<Raw>::deserialize(deserializer)? {
            None => Content::None,
            Some(Raw::Text(s)) => Content::Text(s),
            Some(Raw::Blocks(b)) => Content::Blocks(b),
            Some(Raw::Other(_)) => Content::Unrecognized,
        })
    }
}

/// One Anthropic-style content block.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Block {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub text: Option<String>,
    pub thinking: Option<String>,
    pub signature: Option<String>,
    pub data: Option<String>,
    pub id: Option<String>,
    pub name: Option<String>,
    pub input: Option<Value>,
    pub tool_use_id: Option<String>,
    pub content: Option<Value>,
    pub is_error: Option<bool>,
    pub source: Option<Source>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Source {
    pub media_type: Option<String>,
}

impl Entry {
    /// `session_start.version` as text (`2`, `0.81.0`).
    pub fn format_version(&self) -> Option<String> {
        match self.version.as_ref()? {
            Value::Number(n) => Some(n.to_string()),
            Value::String(s) if !s.is_empty() => Some(s.clone()),
            _ => None,
        }
    }
}

/// Parses one line.
pub fn parse(bytes: &[u8]) -> serde_json::Result<Entry> {
    serde_json::from_slice(bytes)
}
