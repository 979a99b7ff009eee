//! trajhost codec for GitHub Copilot CLI: discovers and reads the session
//! event logs Copilot CLI keeps under
//! `~/.copilot/session-state/<sessionId>/events.jsonl`, with the session's
//! `workspace.yaml` beside it, into canonical records.
//!
//! The event log lives in `trajhost-copilot-cli-core` (`plugins/copilot-cli/core`),
//! shared with the codec of the older flat files (`plugins/copilot-cli-flat`):
//! this crate picks the session-directory layout and exports the component.
//! See that crate for the events and how they map.
//!
//! It also writes canonical sessions as Copilot session directories
//! ([`write`]) and plans their install into a target home ([`prepare`]).

pub mod prepare;
pub mod write;

use trajhost_codec_sdk::Codec;

pub use trajhost_copilot_cli_core::{
    self as core, Flavor, HARNESS, Handling, KNOWN_RECORD_TYPES, Layout, discover, head, layout, native, read, records,
    rfc3339_utc, workspace,
};

/// This codec's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// `harness@version`, as `meta.codec` says it.
pub const CODEC: &str = concat!("copilot-cli@", env!("CARGO_PKG_VERSION"));
/// Copilot CLI versions whose event logs this codec reads.
pub const NATIVE_VERSIONS: &str = core::NATIVE_VERSIONS;

/// The format read and written: the session event log.
pub const FORMAT: &str = "copilot-cli-events-jsonl";

/// Session directories (`session-state/<sessionId>/events.jsonl`).
pub static DIRS: Flavor =
    Flavor { codec: CODEC, version: VERSION, layout: Layout::Dirs, native_versions: NATIVE_VERSIONS };

/// The Copilot CLI codec.
pub struct CopilotCli;

impl Codec for CopilotCli {
    type Reader = read::Reader;

    /// The per-session-folder layout, first written by Copilot CLI 0.0.380
    /// (the npm bundles of 0.0.376 and earlier keep flat
    /// `session-state/<id>.jsonl` files, which `plugins/copilot-cli-flat`
    /// writes for `>=0.0.1, <0.0.380`): the two writers do not overlap.
    const WRITES_FOR: &'static str = ">=0.0.380, <2.0.0";

    trajhost_copilot_cli_core::flavor_methods!(DIRS, writes: FORMAT);

    trajhost_codec_sdk::module_methods! { writer, prepare_with_choice }
}

trajhost_codec_sdk::export_codec!(CopilotCli);
