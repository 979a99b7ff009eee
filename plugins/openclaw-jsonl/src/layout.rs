//! Where OpenClaw kept transcripts before its SQLite store, and what each
//! file in a sessions folder is.
//!
//! ```text
//! <state>/agents/<agentId>/sessions/sessions.json          the index: sessionKey → {sessionId, updatedAt, sessionFile?, …}
//! <state>/agents/<agentId>/sessions/<sessionId>.jsonl      a transcript (Pi-style entries)
//! <state>/agents/<agentId>/sessions/<sessionId>-topic-<threadId>.jsonl   a Telegram topic's transcript
//! <state>/agents/<agentId>/sessions/<sessionId>.jsonl.reset.<ts>         an archived transcript (/reset)
//! <state>/agents/<agentId>/sessions/<sessionId>.jsonl.deleted.<ts>       a soft-deleted transcript
//! <state>/agents/<agentId>/sessions/<sessionId>.checkpoint.<uuid>.jsonl  a pre-compaction copy (not a session)
//! <state>/sessions/…                                       the flat layout of early Clawdbot (no agents/)
//! ```
//!
//! `<state>` is `~/.openclaw`, or the older product names' `~/.clawdbot` and
//! `~/.moltbot` (OpenClaw docs `reference/session-management-compaction.md`,
//! `gateway/doctor.md`: doctor migrates `~/.clawdbot/sessions/` to
//! `~/.clawdbot/agents/<agentId>/sessions/`). A locator is the file's path
//! relative to the home.

use trajhost_codec_sdk::CodecError;
pub use trajhost_codec_sdk::paths::{is_uuid, join};

/// State directories, newest name first.
pub const STATE_DIRS: &[&str] = &[".openclaw", ".clawdbot", ".moltbot"];
/// The index of a sessions folder.
pub const INDEX: &str = "sessions.json";
/// Extension of transcripts.
pub const JSONL: &str = ".jsonl";

/// The `session-globs` of `info`.
pub fn session_globs() -> Vec<String> {
    let mut globs = Vec::new();
    for state in STATE_DIRS {
        for dir in [format!("{state}/agents/*/sessions"), format!("{state}/sessions")] {
            for pattern in ["*.jsonl", "*.jsonl.reset.*", "*.jsonl.deleted.*"] {
                globs.push(format!("{dir}/{pattern}"));
            }
        }
    }
    globs
}

/// What a file in a sessions folder is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `<sessionId>.jsonl` (and `-topic-<threadId>`): a live transcript.
    Transcript,
    /// `<sessionId>.jsonl.reset.<ts>` / `.deleted.<ts>`: an archived one,
    /// the only copy of that session's history.
    Archive,
    /// `<sessionId>.checkpoint.<uuid>.jsonl`: the transcript as it was before
    /// a compaction, kept beside the live one (which continues it).
    Checkpoint,
    /// `sessions.json`.
    Index,
    /// Files OpenClaw keeps beside transcripts that hold no conversation:
    /// write locks (`*.lock`), repair backups (`*.bak*`), temp files.
    Auxiliary,
    Other,
}

/// The kind of the file called `name`.
pub fn kind_of(name: &str) -> FileKind {
    if name == INDEX {
        return FileKind::Index;
    }
    if name.ends_with(".lock") || name.contains(".bak") || name.ends_with(".tmp") || name.starts_with(INDEX) {
        return FileKind::Auxiliary;
    }
    if let Some(stem) = name.strip_suffix(JSONL) {
        if stem.is_empty() {
            return FileKind::Other;
        }
        return if stem.contains(".checkpoint.") { FileKind::Checkpoint } else { FileKind::Transcript };
    }
    if [".jsonl.reset.", ".jsonl.deleted."].iter().any(|m| name.contains(m) && !name.starts_with(m)) {
        return FileKind::Archive;
    }
    FileKind::Other
}

/// The session id a transcript's name gives: `<id>.jsonl`,
/// `<id>.jsonl.reset.<ts>`, `<id>.jsonl.deleted.<ts>`.
pub fn id_of_file_name(name: &str) -> Option<&str> {
    let stem = match name.find(JSONL) {
        Some(i) => &name[..i],
        None => name,
    };
    (!stem.is_empty()).then_some(stem)
}

/// The sessions folders under one state directory: `agents/<agent>/sessions`
/// are listed by the caller; this is the flat one.
pub fn flat_sessions_dir(state: &str) -> String {
    format!("{state}/sessions")
}

/// Checks a locator: a relative `/`-separated path of a transcript.
pub fn check_locator(locator: &str) -> Result<(), CodecError> {
    let bad = |why: &str| CodecError::NotFound(format!("locator {locator:?}: {why}"));
    let name = locator.rsplit('/').next().unwrap_or(locator);
    if !matches!(kind_of(name), FileKind::Transcript | FileKind::Archive | FileKind::Checkpoint) {
        return Err(bad("not an OpenClaw transcript (.jsonl)"));
    }
    if locator.starts_with('/') || locator.split('/').any(|c| c.is_empty() || c == "." || c == "..") {
        return Err(bad("not a relative path below the home"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_kinds_follow_the_names_openclaw_gives() {
        assert_eq!(kind_of("a1b2.jsonl"), FileKind::Transcript);
        assert_eq!(kind_of("a1b2-topic-42.jsonl"), FileKind::Transcript);
        assert_eq!(kind_of("a1b2.jsonl.reset.2026-07-01T10-00-00.000Z"), FileKind::Archive);
        assert_eq!(kind_of("a1b2.jsonl.deleted.1784883610000"), FileKind::Archive);
        assert_eq!(kind_of("a1b2.checkpoint.11111111-2222-4333-8444-555555555555.jsonl"), FileKind::Checkpoint);
        assert_eq!(kind_of("sessions.json"), FileKind::Index);
        assert_eq!(kind_of("sessions.json.bak.1"), FileKind::Auxiliary);
        assert_eq!(kind_of("a1b2.jsonl.lock"), FileKind::Auxiliary);
        assert_eq!(kind_of("notes.txt"), FileKind::Other);
        assert_eq!(kind_of(".jsonl"), FileKind::Other);
        assert_eq!(id_of_file_name("a1b2.jsonl.reset.x"), Some("a1b2"));
        assert_eq!(id_of_file_name("a1b2-topic-42.jsonl"), Some("a1b2-topic-42"));
        assert!(check_locator(".openclaw/agents/main/sessions/a.jsonl").is_ok());
        assert!(check_locator(".clawdbot/sessions/a.jsonl.deleted.1").is_ok());
        assert!(check_locator(".openclaw/agents/main/sessions/sessions.json").is_err());
        assert!(check_locator("../a.jsonl").is_err());
    }
}
