//! Shapes both Gemini CLI writers emit (the JSONL session of 0.3x and the
//! JSON document of 0.25): a thought and a `TokensSummary`, and the names
//! they give a session.

use serde::Serialize;
use trajhost_codec_sdk::canonical::Usage;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::{CodecError, Severity, WriteOptions};

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

/// The `functionResponse` part Gemini CLI records: `{output}` for a result,
/// `{error}` for a failed call.
pub fn function_response(call_id: &str, name: &str, content: &str, ok: Option<bool>) -> serde_json::Value {
    let key = if ok == Some(false) { "error" } else { "output" };
    serde_json::json!({ "functionResponse": { "id": call_id, "name": name, "response": { key: content } } })
}

/// `<prefix><YYYY-MM-DDTHH-MM>-<first 8 of the id><extension>`: a session
/// file name, from the start (RFC 3339) and the session id.
pub fn session_file_name(prefix: &str, start: &str, id: &str, extension: &str) -> String {
    let minutes: String = start.chars().take(16).map(|c| if c == ':' { '-' } else { c }).collect();
    let short: String = id.chars().take(8).collect();
    format!("{prefix}{minutes}-{short}{extension}")
}

/// Gemini CLI's `projectHash` and project directory name: the SHA-256 of
/// the project root, in hex.
pub fn project_hash(cwd: &str) -> String {
    trajhost_codec_sdk::hash::sha256_hex(cwd.as_bytes())
}

/// The project root as Gemini CLI keys it (`path.resolve`: no trailing `/`).
pub fn normalize_cwd(cwd: &str) -> String {
    let trimmed = cwd.trim_end_matches('/');
    if trimmed.is_empty() { "/".to_string() } else { trimmed.to_string() }
}

/// The id of a written session: the one the options name, which must be a
/// UUID (Gemini CLI's session ids are), else a UUID derived from the
/// canonical `meta` line's digest, else from the session's start.
pub fn session_id(options: &WriteOptions, meta_digest: Option<[u8; 32]>, start: &str) -> Result<String, CodecError> {
    trajhost_codec_sdk::writer::ids::uuid_native_id(
        options,
        "Gemini CLI session ids are UUIDs; `gemini --resume <id>` names one",
        || uuid_from(meta_digest.unwrap_or_else(|| trajhost_codec_sdk::hash::sha256(start.as_bytes()))),
    )
}

/// A UUID in the version-4 layout from the first 16 bytes of `seed`.
pub fn uuid_from(seed: [u8; 32]) -> String {
    trajhost_codec_sdk::writer::ids::uuid_v4_layout(&seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use trajhost_codec_sdk::paths::is_uuid;

    #[test]
    fn a_derived_id_is_a_version_4_uuid() {
        let id = uuid_from([7; 32]);
        assert!(is_uuid(&id));
        assert_eq!(&id[14..15], "4");
        assert!(!is_uuid("not-a-uuid"));
    }
}
