//! OpenCode's messages and parts (`packages/opencode/src/session/message-v2.ts`)
//! as both OpenCode codecs find them: rows of `opencode.db` and files of the
//! legacy `storage/` tree hold the same JSON. Where the records live (rows or
//! files), their ids and spans stay in each codec; what a message or a part
//! says is read here, with the model steps of a message ([`step`]) and
//! OpenCode's id forms for writers ([`ids`]) and what both writers write alike
//! ([`written`]).

pub mod ids;
pub mod message;
pub mod part;
pub mod session;
pub mod step;
pub mod written;

pub use trajhost_codec_sdk::known::Handling;

/// The harness id of both codecs.
pub const HARNESS: &str = "opencode";

/// Every record type OpenCode is known to write: message roles
/// (`message/<role>`) and part types (`part/<type>`), per
/// `packages/opencode/src/session/message-v2.ts`.
pub const KNOWN_RECORD_TYPES: &[(&str, Handling)] = &[
    ("message/user", Handling::Mapped("user")),
    ("message/assistant", Handling::Mapped("assistant (compaction when summary)")),
    ("part/text", Handling::Mapped("user or assistant text; system when synthetic")),
    ("part/reasoning", Handling::Mapped("reasoning")),
    ("part/tool", Handling::Mapped("tool_call, tool_result")),
    ("part/step-finish", Handling::Mapped("assistant.stop_reason")),
    ("part/file", Handling::Mapped("user attachment; observation file on assistant messages")),
    ("part/compaction", Handling::Mapped("compaction (summary = the next summary message)")),
    ("part/subtask", Handling::Mapped("observation subtask")),
    ("part/agent", Handling::Mapped("observation agent")),
    ("part/retry", Handling::Mapped("observation retry")),
    ("part/patch", Handling::Mapped("observation patch")),
    // Step boundaries and file-system snapshot hashes.
    ("part/step-start", Handling::Reported),
    ("part/snapshot", Handling::Reported),
];

/// How `kind` is handled; `None` for a type never seen.
pub fn handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_RECORD_TYPES, kind)
}

/// A type name safe for a diagnostic detail (no content).
pub fn type_name(kind: &str) -> String {
    let clean: String =
        kind.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')).take(64).collect();
    if clean.is_empty() { "<odd>".to_string() } else { clean }
}
