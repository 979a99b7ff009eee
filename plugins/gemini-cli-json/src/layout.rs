//! Where Gemini CLI kept single-JSON sessions under a home directory.
//!
//! ```text
//! ~/.gemini/tmp/<project>/chats/session-<time>-<id8>.json   one session (this codec)
//! ~/.gemini/tmp/<project>/chats/session-*.jsonl             the JSONL log (the gemini-cli codec)
//! ~/.gemini/tmp/<project>/.project_root                     the project root (slug directories)
//! ~/.gemini/projects.json                                   {"projects": {<root>: <slug>}}
//! ```
//! `<project>` is the SHA-256 of the project root in the builds that wrote
//! these files (no root is recorded then), a registry slug in later ones.

use std::collections::BTreeMap;

use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::fs::Dir;
pub use trajhost_codec_sdk::paths::join;

/// Project directories, relative to the home.
pub const TMP_ROOT: &str = ".gemini/tmp";
pub use trajhost_gemini_cli_core::project::PROJECTS_JSON;
/// Sessions directory inside a project directory.
pub const CHATS: &str = "chats";
/// Marker file holding the project root inside a project directory.
pub const PROJECT_ROOT_FILE: &str = ".project_root";
/// Prefix of session file names.
pub const SESSION_PREFIX: &str = "session-";
/// Extension of the files this codec reads.
pub const JSON: &str = ".json";

/// Whether a file name in `chats/` is a legacy session file.
pub fn is_session_name(name: &str) -> bool {
    name.starts_with(SESSION_PREFIX) && name.ends_with(JSON) && name.len() > SESSION_PREFIX.len() + JSON.len()
}

/// `.gemini/tmp/<project>` of a locator `.gemini/tmp/<project>/chats/<file>.json`,
/// or `None` for a loose file (a copy the host sniffed, read where it lies).
pub fn project_dir(locator: &str) -> Option<String> {
    let rest = locator.strip_prefix(TMP_ROOT)?.strip_prefix('/')?;
    let parts: Vec<&str> = rest.split('/').collect();
    match parts.as_slice() {
        [slug, chats, file] if *chats == CHATS && file.ends_with(JSON) => Some(join(TMP_ROOT, slug)),
        _ => None,
    }
}

/// A locator must be a relative `.json` path below the home.
pub fn check_locator(locator: &str) -> Result<(), CodecError> {
    if locator.starts_with('/') || locator.split('/').any(|c| c.is_empty() || c == "." || c == "..") {
        return Err(CodecError::NotFound(format!("locator {locator:?}: not a relative path below the home")));
    }
    if !locator.ends_with(JSON) {
        return Err(CodecError::NotFound(format!("locator {locator:?}: not a .json file")));
    }
    Ok(())
}

/// The project's working directory: `.project_root`, else the registry's
/// entry for the slug (hash directories have neither).
pub fn project_root(home: &Dir, project_dir: &str, registry: &mut Option<BTreeMap<String, String>>) -> Option<String> {
    let slug = project_dir.rsplit('/').next().unwrap_or("");
    trajhost_gemini_cli_core::project::project_root(home, project_dir, slug, registry)
}
