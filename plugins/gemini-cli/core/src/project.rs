//! A project directory's working directory, as both layouts' readers find
//! it: its `.project_root` marker, else the registry's entry for its slug.

use std::collections::BTreeMap;

use serde::Deserialize;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::paths::join;

use crate::install::PROJECT_ROOT_FILE;

/// The registry of projects: `{"projects": {<root>: <slug>}}`.
pub const PROJECTS_JSON: &str = ".gemini/projects.json";
/// Largest marker or registry read.
const MAX_SMALL_FILE: u64 = 1 << 20;

/// The working directory of the project in `project_dir` (slug `slug`):
/// its `.project_root`, else the registry's entry for the slug (hash
/// directories have neither). `registry` is read once, when first needed.
pub fn project_root(
    home: &Dir,
    project_dir: &str,
    slug: &str,
    registry: &mut Option<BTreeMap<String, String>>,
) -> Option<String> {
    if let Ok(bytes) = home.read_to_end(&join(project_dir, PROJECT_ROOT_FILE), MAX_SMALL_FILE) {
        let text = String::from_utf8_lossy(&bytes).trim().to_string();
        if !text.is_empty() {
            return Some(text);
        }
    }
    let registry = registry.get_or_insert_with(|| read_registry(home));
    registry.iter().find(|(_, s)| s.as_str() == slug).map(|(root, _)| root.clone())
}

/// `projects.json`; empty when missing or unreadable.
fn read_registry(home: &Dir) -> BTreeMap<String, String> {
    #[derive(Deserialize, Default)]
    struct Registry {
        #[serde(default)]
        projects: BTreeMap<String, String>,
    }
    home.read_to_end(PROJECTS_JSON, MAX_SMALL_FILE)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Registry>(&bytes).ok())
        .unwrap_or_default()
        .projects
}
