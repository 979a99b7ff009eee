//! Where Auggie keeps sessions under a home directory.
//!
//! ```text
//! ~/.augment/sessions/<sessionId>.json          one session (a JSON document)
//! ~/.augment/.auggie.json                       lastUsed, sessionCount, anonId: not a session
//! ~/.augment/task-storage/{manifest/manifest, tasks/<uuid>}   task lists (a session's rootTaskUuid)
//! ~/.augment/session.json                       credentials: never read
//! ```

use trajhost_codec_sdk::CodecError;
pub use trajhost_codec_sdk::paths::join;

/// The sessions directory, relative to the home.
pub const SESSIONS: &str = ".augment/sessions";
/// Extension of session files.
pub const JSON: &str = ".json";

/// Whether a file name in `sessions/` is a session file.
pub fn is_session_name(name: &str) -> bool {
    name.ends_with(JSON) && name.len() > JSON.len() && !name.starts_with('.')
}

/// `.augment/sessions/<id>.json`.
pub fn session_path(id: &str) -> String {
    join(SESSIONS, &format!("{id}{JSON}"))
}

/// A locator must be a relative `.json` path below the home.
pub fn check_locator(locator: &str) -> Result<(), CodecError> {
    if locator.starts_with('/') || locator.split('/').any(|c| c.is_empty() || c == "." || c == "..") {
        return Err(CodecError::NotFound(format!("locator {locator:?}: not a relative path below the home")));
    }
    if !locator.ends_with(JSON) {
        return Err(CodecError::NotFound(format!("locator {locator:?}: not a session .json file")));
    }
    Ok(())
}
