//! Where Hermes keeps session files, and what each name in a sessions
//! folder is.
//!
//! ```text
//! ~/.hermes/sessions/session_<id>.json         a session log: the whole session as one JSON document
//! ~/.hermes/sessions/<id>.jsonl                a gateway transcript: a `session_meta` line, then messages
//! ~/.hermes/sessions/sessions.json             the gateway's routing index (no conversation)
//! ~/.hermes/profiles/<name>/sessions/…         the same, per profile
//! ```
//!
//! hermes-agent `run_agent.py` (`_save_session_log`: `logs_dir /
//! f"session_{session_id}.json"`, written by default in older releases,
//! behind `sessions.write_json_snapshots` since state.db became the store)
//! and `gateway/session.py` (`append_to_transcript`). A locator is the
//! file's path relative to the home.

use trajhost_codec_sdk::CodecError;
pub use trajhost_codec_sdk::paths::join;

/// The default profile's sessions folder.
pub const SESSIONS_DIR: &str = ".hermes/sessions";
/// Named profiles, each with its own `sessions/`.
pub const PROFILES_DIR: &str = ".hermes/profiles";
/// The gateway's routing index.
pub const INDEX: &str = "sessions.json";

/// The `session-globs` of `info`.
pub const SESSION_GLOBS: &[&str] = &[
    ".hermes/sessions/session_*.json",
    ".hermes/sessions/*.jsonl",
    ".hermes/profiles/*/sessions/session_*.json",
    ".hermes/profiles/*/sessions/*.jsonl",
];

/// What a file in a sessions folder is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `session_<id>.json`.
    Log,
    /// `<id>.jsonl`.
    Transcript,
    /// The routing index, temp files of an atomic write, request dumps:
    /// Hermes' own files that hold no session of their own.
    Auxiliary,
    Other,
}

pub fn kind_of(name: &str) -> FileKind {
    if name == INDEX
        || name.ends_with(".tmp")
        || name.starts_with('.')
        || name.starts_with("request_dump_")
        || name.ends_with(".lock")
    {
        return FileKind::Auxiliary;
    }
    if name.strip_prefix("session_").and_then(|r| r.strip_suffix(".json")).is_some_and(|id| !id.is_empty()) {
        return FileKind::Log;
    }
    if name.strip_suffix(".jsonl").is_some_and(|id| !id.is_empty()) {
        return FileKind::Transcript;
    }
    FileKind::Other
}

/// The session id a file name gives.
pub fn id_of_file_name(name: &str) -> Option<&str> {
    let id = match kind_of(name) {
        FileKind::Log => name.strip_prefix("session_")?.strip_suffix(".json")?,
        FileKind::Transcript => name.strip_suffix(".jsonl")?,
        _ => return None,
    };
    (!id.is_empty()).then_some(id)
}

/// Checks a locator: a relative `/`-separated path of a session file.
pub fn check_locator(locator: &str) -> Result<FileKind, CodecError> {
    let bad = |why: &str| CodecError::NotFound(format!("locator {locator:?}: {why}"));
    let name = locator.rsplit('/').next().unwrap_or(locator);
    let kind = kind_of(name);
    if !matches!(kind, FileKind::Log | FileKind::Transcript) {
        return Err(bad("not a Hermes session file (session_<id>.json or <id>.jsonl)"));
    }
    if locator.starts_with('/') || locator.split('/').any(|c| c.is_empty() || c == "." || c == "..") {
        return Err(bad("not a relative path below the home"));
    }
    Ok(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_what_a_file_is() {
        assert_eq!(kind_of("session_20260429_200500_ab12cd.json"), FileKind::Log);
        assert_eq!(kind_of("20260511_203108_ab12cd34.jsonl"), FileKind::Transcript);
        assert_eq!(kind_of("sessions.json"), FileKind::Auxiliary);
        assert_eq!(kind_of("session_x.json.tmp"), FileKind::Auxiliary);
        assert_eq!(kind_of("session_.json"), FileKind::Other);
        assert_eq!(kind_of("notes.md"), FileKind::Other);
        assert_eq!(id_of_file_name("session_abc.json"), Some("abc"));
        assert_eq!(id_of_file_name("abc.jsonl"), Some("abc"));
        assert!(check_locator(".hermes/sessions/session_a.json").is_ok());
        assert!(check_locator(".hermes/profiles/p/sessions/a.jsonl").is_ok());
        assert!(check_locator(".hermes/sessions/sessions.json").is_err());
        assert!(check_locator("../session_a.json").is_err());
    }
}
