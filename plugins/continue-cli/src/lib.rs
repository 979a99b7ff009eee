//! trajhost codec for Continue CLI (`cn`, npm `@continuedev/cli`) sessions:
//! one JSON document per session, `~/.continue/sessions/<sessionId>.json`,
//! rewritten whole after each turn, beside an index
//! `~/.continue/sessions/sessions.json` (`CONTINUE_GLOBAL_DIR` replaces
//! `~/.continue`).
//!
//! The document: `{sessionId, title, workspaceDirectory, history:
//! ChatHistoryItem[], usage}`, where a `ChatHistoryItem` is `{message:
//! {role, content, toolCalls?, usage?}, contextItems, editorState?,
//! toolCallStates?}`. A tool's result has no message of its own: it sits in
//! the `toolCallStates[].output` of the assistant item that made the call.
//! The index is `[{sessionId, title, dateCreated (epoch ms, a string),
//! workspaceDirectory, messageCount}]`; a resume does not update it.
//!
//! Module map:
//! - [`layout`]: where the files live, the index;
//! - [`session`]: the document (history items kept raw, with their byte spans);
//! - [`history`]: `ChatHistoryItem` → canonical records;
//! - [`discover`]: `discover` and `inspect`; [`read`]: the batch reader;
//! - [`sniff`]: a loose file that is such a document;
//! - [`write`]: canonical records → one such document (and its index entry);
//! - [`prepare`]: the plan that files it under `~/.continue/sessions/`.
//!
//! No CLI version is recorded in the store: sessions report none.

pub mod discover;
pub mod history;
pub mod layout;
pub mod prepare;
pub mod read;
pub mod session;
pub mod sniff;
pub mod write;

pub use trajhost_codec_sdk::known::Handling;

/// The format read and written.
pub const FORMAT: &str = "continue-cli-session-json";

/// Every `message.role` of a history item this codec knows.
pub const KNOWN_ROLES: &[(&str, Handling)] = &[
    ("user", Handling::Mapped("user (text, images as attachments), observation context_item per contextItems entry")),
    ("assistant", Handling::Mapped("assistant, tool_call per toolCalls entry, tool_result per toolCallStates output")),
    ("thinking", Handling::Mapped("reasoning")),
    ("system", Handling::Mapped("system")),
    ("tool", Handling::Mapped("tool_result (a result sent as a message of its own)")),
];

/// How `role` is handled; `None` for a role never seen.
pub fn handling(role: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_ROLES, role)
}

trajhost_codec_sdk::codec_identity! {
    /// The Continue CLI codec.
    codec: ContinueCli,
    harness: "continue-cli",
    /// Continue CLI versions whose sessions this codec reads (the files record
    /// no version, so this only documents it: the 1.x `cn` releases).
    native_versions: ">=1.0.0, <2.0.0",
    version_shows: "none: Continue CLI sessions record no CLI or format version",
    formats: reads_and_writes(FORMAT),
    globs: [format!("{}/*{}", layout::SESSIONS, layout::JSON)],
    reader: read::Reader,
    methods: { discover, inspect, read = read::open, sniff, writer, prepare_with_choice },
}
