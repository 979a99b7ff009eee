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

use trajhost_codec_sdk::{Codec, CodecInfo};

pub use trajhost_codec_sdk::known::Handling;

/// The harness id.
pub const HARNESS: &str = "auggie";
/// This codec's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// `harness@version`, as `meta.codec` says it.
pub const CODEC: &str = concat!("auggie@", env!("CARGO_PKG_VERSION"));
/// Auggie versions whose sessions this codec reads (the files record no
/// version, so this only documents it; verified with 0.36.0).
pub const NATIVE_VERSIONS: &str = ">=0.30.0, <1.0.0";
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

/// The Auggie codec.
pub struct Auggie;

impl Codec for Auggie {
    type Reader = read::Reader;

    fn info() -> CodecInfo {
        CodecInfo::of(HARNESS, VERSION, NATIVE_VERSIONS, "none: Auggie sessions record no CLI or format version")
            .reads_and_writes(FORMAT)
            .globs([format!("{}/*{}", layout::SESSIONS, layout::JSON)])
    }

    trajhost_codec_sdk::module_methods! { discover, inspect, read = read::open, sniff, writer, prepare_with_choice }
}

trajhost_codec_sdk::export_codec!(Auggie);
