//! The native shapes: the manifest `<id>.json`, the transcript
//! `<id>.messages.json` and its Anthropic-style messages and content blocks.
//! Unknown fields are ignored; tool inputs and result contents stay raw JSON
//! (their key order as stored).

use serde::Deserialize;
use serde_json::value::RawValue;

/// `<id>.json` (also `sessions.metadata_json` of the index for `metadata`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Manifest {
    pub session_id: Option<String>,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    pub model: Option<String>,
    pub provider: Option<String>,
    pub cwd: Option<String>,
    pub workspace_root: Option<String>,
    pub prompt: Option<String>,
    pub parent_session_id: Option<String>,
    pub metadata: Metadata,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Metadata {
    pub title: Option<String>,
    pub session_history_origin: Origin,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Origin {
    pub version: Option<String>,
}

/// `<id>.messages.json`, with each message and the system prompt kept as
/// raw JSON borrowed from the file's bytes.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessagesFile<'a> {
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default, rename = "updated_at")]
    pub updated_at: Option<String>,
    #[serde(default)]
    pub origin: Origin,
    #[serde(default, borrow, rename = "system_prompt")]
    pub system_prompt: Option<&'a RawValue>,
    #[serde(borrow)]
    pub messages: Vec<&'a RawValue>,
}

/// One message.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message<'a> {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub role: Option<String>,
    /// A string or an array of blocks.
    #[serde(default, borrow)]
    pub content: Option<&'a RawValue>,
    #[serde(default)]
    pub ts: Option<i64>,
    #[serde(default)]
    pub model_info: Option<ModelInfo>,
    #[serde(default)]
    pub metrics: Option<Metrics>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ModelInfo {
    pub id: Option<String>,
    pub provider: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Metrics {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cache_read_tokens: Option<u64>,
    pub cache_write_tokens: Option<u64>,
    pub cost: Option<f64>,
}

pub use trajhost_cline_core::block::{Block, ImageSource};
