//! pi-ai's message parts as the harnesses built on it write them (Pi and
//! OMP sessions, Letta Code's local-backend transcripts): an assistant's
//! content blocks, a text part, usage and its cost.

use serde::Serialize;
use serde_json::Value;
use trajhost_codec_sdk::canonical;

/// An assistant content block.
#[derive(Serialize, Clone)]
#[serde(untagged)]
pub enum Block {
    Text {
        #[serde(rename = "type")]
        kind: &'static str,
        text: String,
    },
    Thinking {
        #[serde(rename = "type")]
        kind: &'static str,
        thinking: String,
        #[serde(rename = "thinkingSignature", skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        redacted: bool,
    },
    ToolCall {
        #[serde(rename = "type")]
        kind: &'static str,
        id: String,
        name: String,
        arguments: Value,
    },
}

/// A text part of a user message or a tool result.
#[derive(Serialize)]
pub struct Text<'a> {
    #[serde(rename = "type")]
    pub kind: &'a str,
    pub text: &'a str,
}

/// pi-ai's usage, complete: readers sum its fields.
#[derive(Serialize)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    #[serde(rename = "cacheRead")]
    pub cache_read: u64,
    #[serde(rename = "cacheWrite")]
    pub cache_write: u64,
    /// Letta Code's schema 2 only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<u64>,
    #[serde(rename = "totalTokens")]
    pub total_tokens: u64,
    pub cost: Cost,
}

impl Usage {
    /// `with_reasoning`: the count of reasoning tokens (of the output), as
    /// Letta Code's schema 2 keeps it.
    pub fn of(usage: Option<&canonical::Usage>, with_reasoning: bool) -> Usage {
        let n = |v: Option<u64>| v.unwrap_or(0);
        let (input, output, cache_read, cache_write) =
            usage.map(|u| (n(u.input), n(u.output), n(u.cache_read), n(u.cache_write))).unwrap_or_default();
        Usage {
            input,
            output,
            cache_read,
            cache_write,
            reasoning: with_reasoning.then(|| usage.and_then(|u| u.reasoning).unwrap_or(0)),
            total_tokens: input + output + cache_read + cache_write,
            // The source's cost is a total only: the parts stay zero.
            cost: Cost { total: usage.and_then(|u| u.cost_usd).unwrap_or(0.0), ..Cost::default() },
        }
    }
}

#[derive(Serialize, Default)]
pub struct Cost {
    pub input: f64,
    pub output: f64,
    #[serde(rename = "cacheRead")]
    pub cache_read: f64,
    #[serde(rename = "cacheWrite")]
    pub cache_write: f64,
    pub total: f64,
}
