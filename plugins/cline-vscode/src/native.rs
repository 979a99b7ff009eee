//! The native shapes (cline/cline `src/shared/HistoryItem.ts`,
//! `ExtensionMessage.ts` `ClineMessage`, `ContextTrackerTypes.ts`
//! `TaskMetadata`, and the Anthropic `MessageParam` of the API history).
//! Unknown fields are ignored; contents and tool inputs stay raw JSON.

use serde::Deserialize;
use serde_json::value::RawValue;
use trajhost_codec_sdk::lenient;

/// One entry of `state/taskHistory.json`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct HistoryItem {
    pub id: Option<String>,
    /// Last activity, epoch ms.
    pub ts: lenient::Int,
    /// The first prompt.
    pub task: Option<String>,
    pub cwd_on_task_initialization: Option<String>,
    pub model_id: Option<String>,
}

/// `task_metadata.json`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct TaskMetadata {
    pub environment_history: Vec<Environment>,
    pub model_usage: Vec<ModelUsage>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Environment {
    pub cline_version: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ModelUsage {
    pub model_id: Option<String>,
}

/// One `ClineMessage` of `ui_messages.json` (only what the reader uses).
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct UiMessage {
    pub ts: lenient::Int,
    pub conversation_history_index: lenient::Int,
}

/// One API message.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiMessage<'a> {
    #[serde(default)]
    pub role: Option<String>,
    /// A string or an array of blocks.
    #[serde(default, borrow)]
    pub content: Option<&'a RawValue>,
    /// Epoch ms (newer builds).
    #[serde(default)]
    pub ts: lenient::Int,
    #[serde(default)]
    pub model_info: Option<ModelInfo>,
    #[serde(default)]
    pub metrics: Option<Metrics>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ModelInfo {
    pub model_id: Option<String>,
    pub provider_id: Option<String>,
    pub mode: Option<String>,
}

/// `metrics` of an assistant message: `{tokens: {prompt, completion,
/// cached}, cost}`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Metrics {
    pub tokens: Option<Tokens>,
    pub cost: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Tokens {
    pub prompt: lenient::Count,
    pub completion: lenient::Count,
    /// Cache reads and writes together.
    pub cached: lenient::Count,
}

pub use trajhost_cline_core::block::{Block, ImageSource};
