//! trajhost codec for the Cline VS Code extension's task folders
//! (`<VS Code globalStorage>/saoudrizwan.claude-dev/tasks/<id>/`, and the
//! same tree under `~/.cline/data` for builds with the file-backed host).
//! The Cline CLI / SDK sessions (`~/.cline/data/sessions/`) are the main
//! `cline` codec's; this layout is its own codec, `0.1.0-vscode`.
//!
//! Module map, following the native store:
//! - [`layout`]: the extension roots, a task's files and the index;
//! - [`native`]: `HistoryItem`, `TaskMetadata`, `ClineMessage` (times),
//!   API messages and blocks;
//! - [`discover`]: `discover` and `inspect`;
//! - [`texts`]: what Cline writes around typed text and tool output;
//! - [`messages`]: API messages → canonical records, [`KNOWN_ROLES`],
//!   [`KNOWN_BLOCKS`];
//! - [`read`]: the batch reader; [`sniff`]: loose copies.
//!
//! **Source spans.** A message's records carry its exact byte span in
//! `api_conversation_history.json`; `meta` offset 0, length 0.
//!
//! **Ids.** API messages have no ids: each record's id is its message's
//! byte location (`records::location_id`, `#n` for further records). Tool
//! calls keep their native `tool_use` id as `call_id`. `meta`: the task id.
//!
//! **Versions.** `native_version` is the last `cline_version` of
//! `task_metadata.json`'s `environment_history` (recorded since Cline
//! 3.1x); older tasks have none and the layout decides.
//!
//! Writing is not implemented: a task is only visible to the extension
//! once its `HistoryItem` is in `taskHistory.json`, which it rewrites whole.

pub mod discover;
pub mod layout;
pub mod messages;
pub mod native;
pub mod read;
pub mod sniff;
/// The texts Cline writes around typed text and tool output (shared with the CLI codec).
pub use trajhost_cline_core::texts;

pub use messages::{Handling, KNOWN_BLOCKS, KNOWN_ROLES};

trajhost_codec_sdk::codec_identity! {
    codec: ClineVscode,
    harness: "cline",
    /// Cline (and Claude Dev) extension versions that keep tasks in this
    /// layout: every release so far.
    native_versions: ">=0.0.0, <4.0.0",
    version_shows: "the last `environment_history[].cline_version` of task_metadata.json",
    formats: reads(["cline-vscode-task"]),
    globs: layout::session_globs(),
    reader: read::Reader,
    methods: { discover, inspect, read = read::open, sniff },
}
