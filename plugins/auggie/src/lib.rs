//! trajhost codec for Auggie (npm `@augmentcode/auggie`, Augment's CLI)
//! sessions: one JSON document per session,
//! `~/.augment/sessions/<sessionId>.json`, rewritten whole after each model
//! call (`--augment-cache-dir` replaces `~/.augment`).
//!
//! The document: `{sessionId, created, modified, chatHistory[], agentState
//! {userGuidelines, workspaceGuidelines, modelId, userEmail}, rootTaskUuid,
//! terminalId, subAgentCreditsUsed, subAgentCostUsd}`. A `chatHistory` entry
//! is `{exchange: {request_message, response_text, request_id,
//! request_nodes[], response_nodes[]}, completed, sequenceId, finishedAt,
//! changedFiles, …, source}`: **one exchange per model call**. A tool call
//! is a type-5 response node; its result is a type-1 request node of the
//! *next* exchange, whose `request_message` is "".
//!
//! Module map:
//! - [`layout`]: where the files live;
//! - [`session`]: the document (exchanges kept raw, with their byte spans);
//! - [`exchange`]: an exchange → canonical records;
//! - [`discover`]: `discover` and `inspect`; [`read`]: the batch reader;
//! - [`sniff`]: a loose file that is such a document;
//! - [`write`]: canonical records → one such document;
//! - [`prepare`]: the plan that files it under `~/.augment/sessions/`.
//!
//! No CLI version is recorded in the store: sessions report none.

pub mod discover;
pub mod exchange;
pub mod layout;
pub mod prepare;
pub mod read;
pub mod session;
pub mod sniff;
pub mod write;

pub use trajhost_codec_sdk::known::Handling;

/// The format read and written.
pub const FORMAT: &str = "auggie-session-json";

/// Every node type of an exchange this codec knows, as `request/<type>` and
/// `response/<type>` (the node's numeric `type`, named).
pub const KNOWN_NODES: &[(&str, Handling)] = &[
    ("request/text", Handling::Mapped("user (type 0, `text_node.content`)")),
    ("request/tool_result", Handling::Mapped("tool_result (type 1, `tool_result_node`)")),
    ("request/ide_state", Handling::Mapped("meta.cwd (type 4, `ide_state_node.workspace_folders`)")),
    ("response/text", Handling::Mapped("assistant (type 0, `content`)")),
    ("response/tool_use", Handling::Mapped("tool_call (type 5, `tool_use`)")),
];

/// How a node type is handled; `None` for a type never seen.
pub fn handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_NODES, kind)
}

trajhost_codec_sdk::codec_identity! {
    /// The Auggie codec.
    codec: Auggie,
    harness: "auggie",
    /// Auggie versions whose sessions this codec reads (the files record no
    /// version, so this only documents it; verified with 0.36.0).
    native_versions: ">=0.30.0, <1.0.0",
    version_shows: "none: Auggie sessions record no CLI or format version",
    formats: reads_and_writes(FORMAT),
    globs: [format!("{}/*{}", layout::SESSIONS, layout::JSON)],
    reader: read::Reader,
    methods: { discover, inspect, read = read::open, sniff, writer, prepare_with_choice },
}
