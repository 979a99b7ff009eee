//! `state.json`: the session's work dir, title, times and agents.

use std::collections::BTreeMap;

use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::errors::fs_kind;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::json::str_of;

/// Largest `state.json` read.
pub const MAX_STATE_BYTES: u64 = 4 << 20;

#[derive(Debug, Clone, Default)]
pub struct Agent {
    /// `main` or `sub`.
    pub kind: Option<String>,
    pub parent: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct State {
    pub work_dir: Option<String>,
    pub title: Option<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    pub agents: BTreeMap<String, Agent>,
}

impl State {
    /// Reads `path`; an absent file is an empty state, an unreadable or
    /// malformed one too (with a diagnostic naming it).
    pub fn read(home: &Dir, path: &str, diags: &mut Diagnostics) -> State {
        let bytes = match home.read_to_end(path, MAX_STATE_BYTES) {
            Ok(bytes) => bytes,
            Err(FsError::NotFound(_)) => return State::default(),
            Err(e) => {
                diags.add("unreadable-file", Severity::Warning, fs_kind(&e), Some(path), None);
                return State::default();
            }
        };
        let Ok(v) = serde_json::from_slice::<Value>(&bytes) else {
            diags.add("malformed-file", Severity::Warning, "state.json", Some(path), None);
            return State::default();
        };
        let text = |key: &str| str_of(&v, key).filter(|s| !s.trim().is_empty()).map(str::to_string);
        let agents = v
            .get("agents")
            .and_then(Value::as_object)
            .map(|agents| {
                agents
                    .iter()
                    .map(|(id, a)| {
                        let agent = Agent {
                            kind: str_of(a, "type").map(str::to_string),
                            parent: str_of(a, "parentAgentId").map(str::to_string),
                        };
                        (id.clone(), agent)
                    })
                    .collect()
            })
            .unwrap_or_default();
        State {
            work_dir: text("workDir"),
            title: text("title"),
            created_at: text("createdAt"),
            updated_at: text("updatedAt"),
            agents,
        }
    }

    /// The agent that spawned `agent`: as recorded, else `main` for any
    /// agent that is not the main one.
    pub fn parent_of(&self, agent: &str) -> Option<String> {
        match self.agents.get(agent) {
            Some(a) if a.kind.as_deref() == Some("main") => None,
            Some(a) if a.parent.is_some() => a.parent.clone(),
            _ if agent == crate::layout::MAIN_AGENT => None,
            _ => Some(crate::layout::MAIN_AGENT.to_string()),
        }
    }
}
