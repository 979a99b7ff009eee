//! trajhost codec for Gemini CLI's legacy session files: one JSON document
//! per session, `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.json`
//! (`<project>` is the SHA-256 of the project root in those builds, a slug in
//! later ones). Gemini CLI wrote the whole `ConversationRecord` again on
//! every change until the JSONL event log replaced it (0.39); later builds
//! still migrate such files on load, so they linger in homes.
//!
//! The document: `{sessionId, projectHash, startTime, lastUpdated,
//! messages: MessageRecord[], summary?, directories?, kind?}`, where a
//! `MessageRecord` has the same shape as a line of the JSONL log
//! (`chatRecordingTypes.ts`). The JSONL codec (`plugins/gemini-cli`, codec
//! `0.1.0`) reads the event log; this one reads only `session-*.json`.
//!
//! Module map:
//! - [`layout`]: where the files live, the project root of a project directory;
//! - [`conversation`]: the document and its messages (kept raw, with their byte spans);
//! - [`message`]: `MessageRecord` → canonical records;
//! - [`discover`]: `discover` and `inspect`; [`read`]: the batch reader;
//! - [`sniff`]: a loose file that is such a document;
//! - [`write`]: canonical records → one such document, as Gemini CLI 0.25
//!   writes it;
//! - [`prepare`]: the plan that files it under `tmp/<sha256(cwd)>/chats/`.
//!
//! No CLI version is recorded in the file: sessions report none (the
//! layout selects this codec). The writer writes for Gemini CLI before 0.39
//! ([`WRITES_FOR`]); the JSONL codec writes for 0.39 and later.

pub mod conversation;
pub mod discover;
pub mod layout;
pub mod message;
pub mod prepare;
pub mod read;
pub mod sniff;
pub mod write;

pub use trajhost_codec_sdk::known::Handling;

/// Gemini CLI versions this codec's writer writes for: every build that
/// kept single-JSON session files (0.2x looks only in
/// `tmp/<sha256(cwd)>/chats/`; `--resume` exists from 0.18).
pub const WRITES_FOR: &str = ">=0.1.0, <0.39.0";
/// The format read.
pub const READS: &str = "gemini-cli-json";

/// Every `MessageRecord.type` this codec knows, and the document's keys
/// other than `messages`.
pub const KNOWN_RECORD_TYPES: &[(&str, Handling)] = &[
    ("user", Handling::Mapped("user, tool_result (when the call recorded none), observation session_context")),
    ("gemini", Handling::Mapped("assistant, reasoning, tool_call, tool_result")),
    // The API's role name, written by some third-party tools for `gemini`.
    ("model", Handling::Mapped("as gemini")),
    ("info", Handling::Mapped("observation info")),
    ("warning", Handling::Mapped("observation warning")),
    ("error", Handling::Mapped("observation error")),
    ("summary", Handling::Mapped("meta title")),
];

/// How `kind` is handled; `None` for a type never seen.
pub fn handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_RECORD_TYPES, kind)
}

trajhost_codec_sdk::codec_identity! {
    /// The Gemini CLI legacy JSON codec.
    codec: GeminiCliJson,
    harness: "gemini-cli",
    /// Gemini CLI versions that wrote single-JSON session files (before the
    /// JSONL log of 0.39; the files record no version, so this only documents it).
    native_versions: ">=0.1.0, <0.39.0",
    version_shows: "none: Gemini CLI session files record no CLI or format version",
    formats: reads([READS]).writes([write::FORMAT]),
    globs: [format!("{}/*/{}/{}*{}", layout::TMP_ROOT, layout::CHATS, layout::SESSION_PREFIX, layout::JSON)],
    writes_for: WRITES_FOR,
    reader: read::Reader,
    methods: { discover, inspect, read = read::open, sniff, writer, prepare_with_choice },
}
