//! `session.json` as fx ≥0.0.8 writes it: the schema-4 header
//! `SessionMetadata` (`session_codec.zig`), beside `events.jsonl`. fx parses
//! it strictly (`ignore_unknown_fields = false`: an unknown or duplicate key
//! is an error), and so does this module.
//!
//! Also here: how a `session.json` says which layout it is
//! (`isConversationMetadata` and the legacy/schema-3 checks of fx's open).

use serde::Deserialize;
use serde_json::Value;

use crate::layout;

/// The header, every key fx writes (null optionals are omitted by fx's
/// encoder, written as `null` by others; both parse).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionMetadata {
    pub schema_version: u64,
    pub id: String,
    pub origin_workspace_root: String,
    pub workspace_root: String,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    pub conversation_language: String,
    /// A built-in name (`gateway`, `codex`, `grok`) or a configured
    /// connection `{name, binding}`.
    pub provider: Value,
    pub model: String,
    pub effort: String,
    pub fast_mode: bool,
    #[serde(default)]
    pub ultrafast_mode: Option<bool>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub subagent_child: Option<bool>,
}

impl SessionMetadata {
    /// Parses and checks a header (`validateSessionMetadata`).
    pub fn parse(bytes: &[u8]) -> Result<SessionMetadata, String> {
        if bytes.len() > 64 * 1024 {
            return Err("a schema-4 header is at most 64 KiB".into());
        }
        let meta: SessionMetadata = serde_json::from_slice(bytes).map_err(|e| format!("not a schema-4 header: {e}"))?;
        if meta.schema_version != 4 {
            return Err(format!("schema_version {} is not 4", meta.schema_version));
        }
        if !layout::is_session_id(&meta.id) {
            return Err("`id` is not a valid fx session id".into());
        }
        for (name, root) in
            [("origin_workspace_root", &meta.origin_workspace_root), ("workspace_root", &meta.workspace_root)]
        {
            if !root.starts_with('/') {
                return Err(format!("`{name}` is not an absolute path"));
            }
        }
        if meta.created_at_ms < 0 || meta.updated_at_ms < meta.created_at_ms {
            return Err("`updated_at_ms` is before `created_at_ms` (or a time is negative)".into());
        }
        let lang = &meta.conversation_language;
        if lang.is_empty() || lang.len() > 24 || lang.trim() != lang || lang.chars().any(char::is_control) {
            return Err("`conversation_language` is not 1–24 bytes without surrounding space".into());
        }
        match &meta.provider {
            Value::String(name) if !name.is_empty() => {}
            Value::Object(connection)
                if connection.get("name").is_some_and(Value::is_string)
                    && connection.get("binding").is_some_and(Value::is_string) => {}
            _ => return Err("`provider` is neither a built-in name nor a {name, binding} connection".into()),
        }
        if meta.model.is_empty() || meta.model.len() > 1024 || meta.model.trim() != meta.model {
            return Err("`model` is empty, too long or padded".into());
        }
        if meta.title.as_ref().is_some_and(|t| t.is_empty() || t.len() > 240) {
            return Err("`title` is not 1–240 bytes".into());
        }
        Ok(meta)
    }
}

/// Which layout a `session.json` is, from its top-level keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Schema 1 or 2: the whole history in the file.
    Legacy(u64),
    /// Schema 3 `event_log_v1` (fx 0.0.1–0.0.7), which this codec does not read.
    EventLogV1,
    /// Schema 4: a header beside `events.jsonl`.
    Conversation,
}

/// The top-level facts discover needs from any `session.json`.
#[derive(Deserialize)]
pub struct Probe<'a> {
    #[serde(default)]
    pub schema_version: Option<Value>,
    #[serde(default)]
    pub storage_format: Option<String>,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub workspace_root: Option<String>,
    #[serde(default)]
    pub created_at_ms: Option<i64>,
    #[serde(default)]
    pub updated_at_ms: Option<i64>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(borrow, default)]
    pub history: Option<Vec<&'a serde_json::value::RawValue>>,
}

impl Probe<'_> {
    /// The layout, or why the file is none fx opens.
    pub fn layout(&self) -> Result<Layout, String> {
        match self.schema_version.as_ref().and_then(Value::as_u64) {
            Some(v @ (1 | 2)) => Ok(Layout::Legacy(v)),
            Some(3) => Ok(Layout::EventLogV1),
            Some(4) => Ok(Layout::Conversation),
            Some(v) => Err(format!("schema_version {v} is not one fx reads (1–4)")),
            None => Err("no integer schema_version".into()),
        }
    }

    /// The native version this codec reports: the schema number (fx
    /// records no application version in a session).
    pub fn version(layout: Layout) -> String {
        match layout {
            Layout::Legacy(v) => v.to_string(),
            Layout::EventLogV1 => "3".into(),
            Layout::Conversation => "4".into(),
        }
    }
}

/// The error for a schema-3 session.
pub fn event_log_v1_unsupported(locator: &str) -> String {
    format!(
        "{locator}: fx schema 3 event log (storage_format event_log_v1, fx 0.0.1–0.0.7) is not supported; \
         open it once with fx ≥0.0.8 to migrate it to schema 4"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = r#"{"schema_version":4,"id":"fx1","origin_workspace_root":"/w","workspace_root":"/w","created_at_ms":1,"updated_at_ms":2,"conversation_language":"en","provider":"gateway","model":"openai/gpt-5","effort":"auto","fast_mode":false,"subagent_child":false}"#;

    #[test]
    fn strict_header() {
        let meta = SessionMetadata::parse(HEADER.as_bytes()).unwrap();
        assert_eq!((meta.id.as_str(), meta.model.as_str()), ("fx1", "openai/gpt-5"));
        let unknown = HEADER.replace(r#""effort""#, r#""extra":1,"effort""#);
        assert!(SessionMetadata::parse(unknown.as_bytes()).is_err());
        let duplicate = HEADER.replace(r#""effort":"auto""#, r#""effort":"auto","effort":"auto""#);
        assert!(SessionMetadata::parse(duplicate.as_bytes()).is_err());
        let backwards = HEADER.replace(r#""updated_at_ms":2"#, r#""updated_at_ms":0"#);
        assert!(SessionMetadata::parse(backwards.as_bytes()).is_err());
        let titled = HEADER.replace(r#""subagent_child":false"#, r#""title":null"#);
        assert!(SessionMetadata::parse(titled.as_bytes()).unwrap().title.is_none());
    }
}
