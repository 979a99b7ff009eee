//! Where Mistral Vibe keeps sessions under a home directory (`VIBE_HOME`
//! replaces `~/.vibe`).
//!
//! ```text
//! ~/.vibe/logs/session/unified/<id>/            one session (store format
//!                                               mistral.vibe.unified-session-store/v1)
//!   CURRENT                                     the pointer: {generation, manifest_sha256, session_id,
//!                                               snapshot_sequence, store_format, store_format_minor}
//!   generations/<16-digit seq>/manifest.json    the parts and their chunks, with digests
//!   generations/<seq>/checkpoint.json           the model context's envelope (its messages in chunks)
//!   generations/<seq>/projection-state.json     the UI's state (its history entries in chunks)
//!   generations/<seq>/runtime-state.json        actions, plugin lock, session metadata (cwd, model)
//!   chunks/<sha256>.json                        content-addressed arrays that fill the parts
//!   journal/<16-digit first seq>.jsonl          the hash-chained recovery journal since the generation
//!   meta.json                                   start/end time, working directory, title, model
//! ~/.vibe/logs/session/unified/.session-index.json   a cache of the sessions' metadata: not a session
//! ~/.vibe/logs/session/plugins/                 plugin packages pinned by sessions' plugin locks
//! ```
//!
//! A session's locator is its `CURRENT` file.

use trajhost_codec_sdk::CodecError;
pub use trajhost_codec_sdk::paths::join;

/// The sessions directory, relative to the home.
pub const SESSIONS: &str = ".vibe/logs/session/unified";
/// The pointer file of a session folder.
pub const CURRENT: &str = "CURRENT";
/// The store format `CURRENT` names.
pub const STORE_FORMAT: &str = "mistral.vibe.unified-session-store/v1";
/// The minor version of the store format this codec writes (Vibe 3.0.3's).
pub const STORE_FORMAT_MINOR: u64 = 10;
/// Folder of the content-addressed chunks, in a session folder.
pub const CHUNKS: &str = "chunks";
/// Folder of the generations, in a session folder.
pub const GENERATIONS: &str = "generations";
/// Folder of the recovery journal, in a session folder.
pub const JOURNAL: &str = "journal";
/// The session's metadata file, in a session folder.
pub const META: &str = "meta.json";

/// `.vibe/logs/session/unified/<id>`.
pub fn session_dir(id: &str) -> String {
    join(SESSIONS, id)
}

/// `.vibe/logs/session/unified/<id>/CURRENT`.
pub fn current_path(id: &str) -> String {
    join(&session_dir(id), CURRENT)
}

/// A session folder's name: Vibe's ids look like UUIDs (8-4-4-4-12 hex)
/// whose version and variant nibbles vary.
pub fn is_session_id(name: &str) -> bool {
    let groups: Vec<&str> = name.split('-').collect();
    groups.len() == 5
        && groups.iter().zip([8, 4, 4, 4, 12]).all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// A generation's folder name: the sequence, 16 digits.
pub fn generation_name(sequence: u64) -> String {
    format!("{sequence:016}")
}

/// The session folder of a locator (`<folder>/CURRENT`; "" for a loose
/// `CURRENT` at the home's root).
pub fn folder_of(locator: &str) -> Result<&str, CodecError> {
    if locator.starts_with('/') || locator.split('/').any(|c| c.is_empty() || c == "." || c == "..") {
        return Err(CodecError::NotFound(format!("locator {locator:?}: not a relative path below the home")));
    }
    match locator.rsplit_once('/') {
        Some((folder, CURRENT)) => Ok(folder),
        None if locator == CURRENT => Ok(""),
        _ => Err(CodecError::NotFound(format!("locator {locator:?}: not a session's CURRENT file"))),
    }
}
