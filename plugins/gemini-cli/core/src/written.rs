//! Shapes both Gemini CLI writers emit (the JSONL session of 0.3x and the
//! JSON document of 0.25): a thought and a `TokensSummary`.

use serde::Serialize;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::Usage;
use trajhost_codec_sdk::diag::Diagnostics;

/// One entry of a message's `thoughts`.
#[derive(Serialize, Clone)]
pub struct ThoughtOut {
    pub subject: String,
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

/// `TokensSummary`: `input` includes cached tokens.
#[derive(Serialize, Clone)]
pub struct TokensOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thoughts: Option<u64>,
    pub tool: u64,
    pub total: u64,
}

impl TokensOut {
    /// The summary of a canonical usage; what Gemini CLI has no field for
    /// (cache writes, cost) is reported as `not-carried`.
    pub fn of(usage: &Usage, diags: &mut Diagnostics) -> TokensOut {
        if usage.cache_write.is_some() {
            diags.add("not-carried", Severity::Info, "usage.cache_write", None, None);
        }
        if usage.cost_usd.is_some() {
            diags.add("not-carried", Severity::Info, "usage.cost_usd", None, None);
        }
        let input = match (usage.input, usage.cache_read) {
            (None, None) => None,
            (i, c) => Some(i.unwrap_or(0) + c.unwrap_or(0)),
        };
        let total = input.unwrap_or(0) + usage.output.unwrap_or(0) + usage.reasoning.unwrap_or(0);
        TokensOut { input, output: usage.output, cached: usage.cache_read, thoughts: usage.reasoning, tool: 0, total }
    }
}
