//! Where the Cline VS Code extension keeps tasks.
//!
//! ```text
//! <globalStorage>/saoudrizwan.claude-dev/tasks/<task id>/api_conversation_history.json  what the model saw (the locator)
//! <globalStorage>/saoudrizwan.claude-dev/tasks/<task id>/ui_messages.json               the chat as shown (times)
//! <globalStorage>/saoudrizwan.claude-dev/tasks/<task id>/task_metadata.json             files, models, environment (cline_version)
//! <globalStorage>/saoudrizwan.claude-dev/tasks/<task id>/context_history.json, settings.json,
//!                                                       focus_chain_taskid_<id>.md, checkpoints/   task state, no conversation
//! <globalStorage>/saoudrizwan.claude-dev/state/taskHistory.json                         the index: HistoryItem[]
//! ```
//! `<globalStorage>` is VS Code's (or a fork's) `User/globalStorage` under
//! the home ([`STORAGES`]); builds with the file-backed host keep the same
//! tree under `~/.cline/data` ([`FILE_HOST`]). The task id is the creation
//! time in epoch milliseconds.

use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::paths::is_relative_below;
pub use trajhost_codec_sdk::paths::join;

/// The extension's folder name inside a `globalStorage`.
pub const EXTENSION: &str = "saoudrizwan.claude-dev";
/// The file-backed host directory (`CLINE_DIR`), which holds `tasks/` and
/// `state/` itself.
pub const FILE_HOST: &str = ".cline/data";

/// `User/globalStorage` of VS Code and its forks on Linux (also Flatpak),
/// macOS and Windows (a home copied from one), plus the remote servers'
/// data dirs (SSH, Codespaces, Cursor's server).
pub const STORAGES: &[&str] = &[
    ".config/Code/User/globalStorage",
    ".config/Code - Insiders/User/globalStorage",
    ".config/Code - OSS/User/globalStorage",
    ".config/VSCodium/User/globalStorage",
    ".config/Cursor/User/globalStorage",
    ".config/Windsurf/User/globalStorage",
    ".config/Trae/User/globalStorage",
    ".config/Kiro/User/globalStorage",
    ".vscode-server/data/User/globalStorage",
    ".vscode-remote/data/User/globalStorage",
    ".cursor-server/data/User/globalStorage",
    "Library/Application Support/Code/User/globalStorage",
    "Library/Application Support/Code - Insiders/User/globalStorage",
    "Library/Application Support/VSCodium/User/globalStorage",
    "Library/Application Support/Cursor/User/globalStorage",
    "Library/Application Support/Windsurf/User/globalStorage",
    "Library/Application Support/Trae/User/globalStorage",
    "Library/Application Support/Kiro/User/globalStorage",
    ".var/app/com.visualstudio.code/config/Code/User/globalStorage",
    ".var/app/com.vscodium.codium/config/VSCodium/User/globalStorage",
    "AppData/Roaming/Code/User/globalStorage",
    "AppData/Roaming/Code - Insiders/User/globalStorage",
    "AppData/Roaming/VSCodium/User/globalStorage",
    "AppData/Roaming/Cursor/User/globalStorage",
    "AppData/Roaming/Windsurf/User/globalStorage",
];

pub const TASKS: &str = "tasks";
pub const API_HISTORY: &str = "api_conversation_history.json";
pub const UI_MESSAGES: &str = "ui_messages.json";
pub const TASK_METADATA: &str = "task_metadata.json";
/// `claude_messages.json`: what Claude Dev (Cline before its rename) called
/// `ui_messages.json`.
pub const LEGACY_UI_MESSAGES: &str = "claude_messages.json";
/// Task files that hold no conversation.
pub const STATE_FILES: &[&str] = &["context_history.json", "settings.json"];
pub const CHECKPOINTS: &str = "checkpoints";
pub const TASK_HISTORY: &str = "state/taskHistory.json";

/// Every extension root this codec looks in.
pub fn roots() -> Vec<String> {
    let mut out: Vec<String> = STORAGES.iter().map(|s| join(s, EXTENSION)).collect();
    out.push(FILE_HOST.to_string());
    out
}

/// The `session-globs` of `info`.
pub fn session_globs() -> Vec<String> {
    roots().iter().map(|r| format!("{r}/{TASKS}/*/{API_HISTORY}")).collect()
}

/// A task file that is the task's own, not a session of its own.
pub fn is_task_file(id: &str, name: &str) -> bool {
    [API_HISTORY, UI_MESSAGES, TASK_METADATA, LEGACY_UI_MESSAGES].contains(&name)
        || STATE_FILES.contains(&name)
        || name.strip_prefix("focus_chain_taskid_").and_then(|r| r.strip_suffix(".md")) == Some(id)
}

/// The files of one task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskPaths {
    pub id: String,
    /// The extension root (`…/saoudrizwan.claude-dev`, or `.cline/data`);
    /// empty for a loose task folder.
    pub root: String,
    pub dir: String,
    pub api: String,
}

impl TaskPaths {
    pub fn of(root: &str, id: &str) -> TaskPaths {
        let dir = join(&join(root, TASKS), id);
        TaskPaths { id: id.to_string(), root: root.to_string(), api: join(&dir, API_HISTORY), dir }
    }

    /// The task whose `api_conversation_history.json` is `locator` (any
    /// folder: a copied or exported task folder reads the same).
    pub fn from_locator(locator: &str) -> Result<TaskPaths, CodecError> {
        let bad = |why: &str| CodecError::NotFound(format!("{locator}: {why}"));
        if !is_relative_below(locator) {
            return Err(bad("not a relative path below the home"));
        }
        let (dir, name) = locator.rsplit_once('/').unwrap_or(("", locator));
        if name != API_HISTORY {
            return Err(bad("not a Cline api_conversation_history.json"));
        }
        let id = dir.rsplit('/').next().unwrap_or("").to_string();
        let root = dir
            .strip_suffix(&id)
            .and_then(|d| d.strip_suffix('/'))
            .and_then(|d| d.strip_suffix(TASKS))
            .map(|d| d.trim_end_matches('/').to_string())
            .unwrap_or_default();
        Ok(TaskPaths { id, root, dir: dir.to_string(), api: locator.to_string() })
    }

    pub fn file(&self, name: &str) -> String {
        join(&self.dir, name)
    }

    /// The index beside the task folder, when the task sits in a root.
    pub fn history(&self) -> Option<String> {
        (!self.root.is_empty()).then(|| join(&self.root, TASK_HISTORY))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locators() {
        let p = TaskPaths::of(".config/Code/User/globalStorage/saoudrizwan.claude-dev", "1700000000000");
        assert_eq!(
            p.api,
            ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1700000000000/api_conversation_history.json"
        );
        assert_eq!(TaskPaths::from_locator(&p.api).unwrap(), p);
        assert_eq!(
            p.history().unwrap(),
            ".config/Code/User/globalStorage/saoudrizwan.claude-dev/state/taskHistory.json"
        );
        let loose = TaskPaths::from_locator("api_conversation_history.json").unwrap();
        assert_eq!((loose.id.as_str(), loose.root.as_str(), loose.history()), ("", "", None));
        let exported = TaskPaths::from_locator("export/task_17/api_conversation_history.json").unwrap();
        assert_eq!((exported.id.as_str(), exported.root.as_str()), ("task_17", ""));
        assert!(TaskPaths::from_locator("tasks/1/ui_messages.json").is_err());
        assert!(is_task_file("17", "focus_chain_taskid_17.md") && !is_task_file("17", "focus_chain_taskid_18.md"));
    }
}
