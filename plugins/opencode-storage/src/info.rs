//! The files of the tree as JSON values: `Session.Info`, message infos and
//! parts, each read whole (they are small: a part holds one text or one tool
//! call).

use serde_json::Value;
use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::json::str_of;

/// Largest file of the tree read (a tool part holds the call's output).
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// A file of the tree: its JSON and its size.
pub fn load(home: &Dir, path: &str) -> Result<(Value, u64), CodecError> {
    let bytes = home.read_to_end(path, MAX_FILE_BYTES).map_err(|e| match e {
        FsError::NotFound(_) => CodecError::NotFound(path.to_string()),
        other => trajhost_codec_sdk::errors::fs_error(path, other),
    })?;
    let value: Value =
        serde_json::from_slice(&bytes).map_err(|e| CodecError::Malformed(format!("{path}: not JSON ({e})")))?;
    if !value.is_object() {
        return Err(CodecError::Malformed(format!("{path}: not a JSON object")));
    }
    Ok((value, bytes.len() as u64))
}

/// `Session.Info`: `{id, version, projectID, directory, parentID, title,
/// time{created, updated}, …}`.
#[derive(Debug, Clone, Default)]
pub struct Session {
    pub id: String,
    pub version: Option<String>,
    pub project_id: Option<String>,
    pub directory: Option<String>,
    pub parent: Option<String>,
    pub title: Option<String>,
    pub created: Option<i64>,
    pub updated: Option<i64>,
    /// Whether the id came from the content (else the file name).
    pub id_from_content: bool,
}

impl Session {
    /// The session of a session file's JSON; `stem` is its file name.
    pub fn of(value: &Value, stem: &str) -> Session {
        let text = |k: &str| str_of(value, k).filter(|s| !s.is_empty()).map(str::to_string);
        let content_id = text("id");
        Session {
            id_from_content: content_id.is_some(),
            id: content_id.unwrap_or_else(|| stem.to_string()),
            version: text("version"),
            project_id: text("projectID"),
            directory: text("directory"),
            parent: text("parentID"),
            title: text("title"),
            created: time(value, "created"),
            updated: time(value, "updated"),
        }
    }
}

/// `time.<key>` in ms (a number, or a numeric string).
pub fn time(value: &Value, key: &str) -> Option<i64> {
    match value.get("time")?.get(key)? {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// `worktree` of a project file.
pub fn worktree(home: &Dir, path: &str) -> Option<String> {
    let (value, _) = load(home, path).ok()?;
    str_of(&value, "worktree").filter(|s| !s.is_empty() && *s != "/").map(str::to_string)
}
