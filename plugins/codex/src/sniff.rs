//! `sniff`: is a loose file a Codex rollout?
//!
//! Yes when its first line is a `session_meta` line with a payload id, as
//! Codex writes every rollout (Codex itself refuses one that does not start
//! so). The native version is `payload.cli_version`. A `.json` file is a
//! TypeScript CLI rollout document when it opens with a `session` object
//! that has an id and goes on to `items` ([`crate::document`]); it records
//! no version.

use serde_json::Value;
use trajhost_codec_sdk::Sniffed;

pub fn sniff(path: &str, head: &[u8]) -> Option<Sniffed> {
    if crate::layout::is_document(path) {
        let id = crate::document::is_document(head)?;
        return Some(Sniffed { native_version: None, native_id: Some(id) });
    }
    let end = memchr::memchr(b'\n', head)?;
    let first: Value = serde_json::from_slice(&head[..end]).ok()?;
    if first.get("type").and_then(Value::as_str) != Some("session_meta") {
        return None;
    }
    let payload = first.get("payload")?;
    let id = payload.get("id").and_then(Value::as_str)?;
    let version = payload.get("cli_version").and_then(Value::as_str).map(str::to_string);
    Some(Sniffed { native_version: version, native_id: Some(id.to_string()) })
}
