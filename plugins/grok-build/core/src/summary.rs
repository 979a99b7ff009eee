//! `summary.json`: the session's id, cwd, times, title, model and format
//! version.

use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, FsError};

use trajhost_codec_sdk::errors::fs_kind;
use trajhost_codec_sdk::json::str_of;

/// Largest `summary.json` read.
pub const MAX_SUMMARY_BYTES: u64 = 4 << 20;

#[derive(Debug, Default, Clone)]
pub struct Summary {
    pub id: Option<String>,
    pub cwd: Option<String>,
    pub created_at: Option<String>,
    /// `last_active_at`, else `updated_at`.
    pub updated_at: Option<String>,
    /// `generated_title`, else `session_summary`.
    pub title: Option<String>,
    pub model: Option<String>,
    pub chat_format_version: Option<String>,
    pub parent_session_id: Option<String>,
    pub git_branch: Option<String>,
}

impl Summary {
    /// Reads `path`; an absent file is an empty summary, an unreadable or
    /// malformed one too (with a diagnostic naming it).
    pub fn read(home: &Dir, path: &str, diags: &mut Diagnostics) -> Summary {
        let bytes = match home.read_to_end(path, MAX_SUMMARY_BYTES) {
            Ok(bytes) => bytes,
            Err(FsError::NotFound(_)) => return Summary::default(),
            Err(e) => {
                diags.add("unreadable-file", Severity::Warning, fs_kind(&e), Some(path), None);
                return Summary::default();
            }
        };
        let Ok(v) = serde_json::from_slice::<Value>(&bytes) else {
            diags.add("malformed-file", Severity::Warning, "summary.json", Some(path), None);
            return Summary::default();
        };
        let text = |key: &str| str_of(&v, key).filter(|s| !s.trim().is_empty()).map(str::to_string);
        let info = v.get("info").unwrap_or(&Value::Null);
        Summary {
            id: str_of(info, "id").map(str::to_string),
            cwd: str_of(info, "cwd").map(str::to_string),
            created_at: text("created_at"),
            updated_at: text("last_active_at").or_else(|| text("updated_at")),
            title: text("generated_title").or_else(|| text("session_summary")),
            model: text("current_model_id"),
            chat_format_version: match v.get("chat_format_version") {
                Some(Value::Number(n)) => Some(n.to_string()),
                Some(Value::String(s)) => Some(s.clone()),
                _ => None,
            },
            parent_session_id: text("parent_session_id"),
            git_branch: text("head_branch").or_else(|| text("git_branch")),
        }
    }
}
