//! Where Continue CLI keeps sessions under a home directory.
//!
//! ```text
//! ~/.continue/sessions/<sessionId>.json   one session (a JSON document)
//! ~/.continue/sessions/sessions.json      the index: [{sessionId, title, dateCreated, workspaceDirectory, messageCount}]
//! ~/.continue/config.yaml, permissions.yaml, logs/, index/   not sessions
//! ```

use serde::Deserialize;
use serde_json::Value;
use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::fs::Dir;
pub use trajhost_codec_sdk::paths::join;

/// The sessions directory, relative to the home.
pub const SESSIONS: &str = ".continue/sessions";
/// The index's file name in the sessions directory.
pub const INDEX_NAME: &str = "sessions.json";
/// The index, relative to the home.
pub const INDEX: &str = ".continue/sessions/sessions.json";
/// Extension of session files.
pub const JSON: &str = ".json";
/// The title Continue CLI gives every session it has not titled.
pub const UNTITLED: &str = "Untitled Session";

/// Largest index read.
const MAX_INDEX_BYTES: u64 = 16 << 20;

/// Whether a file name in `sessions/` is a session file (not the index).
pub fn is_session_name(name: &str) -> bool {
    name != INDEX_NAME && name.ends_with(JSON) && name.len() > JSON.len() && !name.starts_with('.')
}

/// `.continue/sessions/<id>.json`.
pub fn session_path(id: &str) -> String {
    join(SESSIONS, &format!("{id}{JSON}"))
}

/// Whether the locator is a file of the sessions directory (not a loose copy).
pub fn in_store(locator: &str) -> bool {
    locator.strip_prefix(SESSIONS).and_then(|r| r.strip_prefix('/')).is_some_and(|name| !name.contains('/'))
}

/// A locator must be a relative `.json` path below the home.
pub fn check_locator(locator: &str) -> Result<(), CodecError> {
    if locator.starts_with('/') || locator.split('/').any(|c| c.is_empty() || c == "." || c == "..") {
        return Err(CodecError::NotFound(format!("locator {locator:?}: not a relative path below the home")));
    }
    if !locator.ends_with(JSON) || locator.ends_with(&format!("/{INDEX_NAME}")) || locator == INDEX_NAME {
        return Err(CodecError::NotFound(format!("locator {locator:?}: not a session .json file")));
    }
    Ok(())
}

/// One entry of the index.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct IndexEntry {
    pub session_id: Option<String>,
    pub title: Option<String>,
    /// Epoch milliseconds, written as a string (a number is read too).
    pub date_created: Option<Value>,
    pub workspace_directory: Option<String>,
    pub message_count: Option<u64>,
}

impl IndexEntry {
    /// `dateCreated` in epoch milliseconds.
    pub fn created_ms(&self) -> Option<i64> {
        match self.date_created.as_ref()? {
            Value::String(s) => s.trim().parse::<i64>().ok(),
            Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
            _ => None,
        }
    }
}

/// The index of a home (empty when absent or not an index).
pub fn read_index(home: &Dir) -> Vec<IndexEntry> {
    home.read_to_end(INDEX, MAX_INDEX_BYTES)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Vec<Value>>(&bytes).ok())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect()
}

/// The index entry of a session id.
pub fn index_entry<'a>(index: &'a [IndexEntry], id: &str) -> Option<&'a IndexEntry> {
    index.iter().find(|e| e.session_id.as_deref() == Some(id))
}
