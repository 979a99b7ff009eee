//! The small JSON files beside the transcripts: `kimi.json` (work
//! directories), a session's `state.json` (title) and a subagent's
//! `meta.json`.

use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, FsError};

use crate::layout::{self, LOCAL_KAOS};
use trajhost_codec_sdk::errors::fs_kind;
use trajhost_codec_sdk::json::str_of;

/// Largest JSON side file read.
pub const MAX_JSON_BYTES: u64 = 4 << 20;

/// A small JSON file; `None` (with a diagnostic unless it is absent) when it
/// cannot be read or parsed.
pub fn read_json(home: &Dir, path: &str, diags: &mut Diagnostics) -> Option<Value> {
    match home.read_to_end(path, MAX_JSON_BYTES) {
        Ok(bytes) => match serde_json::from_slice(&bytes) {
            Ok(v) => Some(v),
            Err(_) => {
                diags.add("malformed-file", Severity::Warning, "json", Some(path), None);
                None
            }
        },
        Err(FsError::NotFound(_)) => None,
        Err(e) => {
            diags.add("unreadable-file", Severity::Warning, fs_kind(&e), Some(path), None);
            None
        }
    }
}

/// Work directories from `kimi.json`: (session folder name, path).
pub fn work_dirs(home: &Dir, diags: &mut Diagnostics) -> Vec<(String, String)> {
    let Some(meta) = read_json(home, layout::METADATA, diags) else { return Vec::new() };
    meta.get("work_dirs")
        .and_then(Value::as_array)
        .map(|dirs| {
            dirs.iter()
                .filter_map(|wd| {
                    let path = str_of(wd, "path")?;
                    let kaos = str_of(wd, "kaos").unwrap_or(LOCAL_KAOS);
                    Some((layout::work_dir_folder(path, kaos), path.to_string()))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The work directory whose session folder is `folder`.
pub fn cwd_of(work_dirs: &[(String, String)], folder: &str) -> Option<String> {
    work_dirs.iter().find(|(f, _)| f == folder).map(|(_, p)| p.clone())
}

/// `custom_title` of a session's `state.json`.
pub fn custom_title(home: &Dir, state_path: &str, diags: &mut Diagnostics) -> Option<String> {
    let state = read_json(home, state_path, diags)?;
    str_of(&state, "custom_title").filter(|t| !t.trim().is_empty()).map(str::to_string)
}

/// What a subagent's `meta.json` says.
#[derive(Debug, Default, Clone)]
pub struct AgentMeta {
    pub subagent_type: Option<String>,
    pub description: Option<String>,
    pub created_at: Option<f64>,
}

pub fn agent_meta(home: &Dir, path: &str, diags: &mut Diagnostics) -> AgentMeta {
    let Some(meta) = read_json(home, path, diags) else { return AgentMeta::default() };
    AgentMeta {
        subagent_type: str_of(&meta, "subagent_type").map(str::to_string),
        description: str_of(&meta, "description").filter(|d| !d.trim().is_empty()).map(str::to_string),
        created_at: meta.get("created_at").and_then(Value::as_f64),
    }
}
