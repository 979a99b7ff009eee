//! trajhost codec for GitHub Copilot CLI: discovers and reads the session
//! event logs Copilot CLI keeps under
//! `~/.copilot/session-state/<sessionId>/events.jsonl`, with the session's
//! `workspace.yaml` beside it, into canonical records.
//!
//! Each line is one session event `{type, data, id, timestamp, parentId}`
//! (the `SessionEvent` union of `github/copilot-sdk`): `session.start`
//! (with `copilotVersion`), `user.message`, `system.message`,
//! `assistant.message` (text, reasoning, `toolRequests`),
//! `session.usage_record` (the usage of one model call, joined to its
//! message by `apiCallId`), `tool.execution_start`/`complete` (the result
//! and `success`), lifecycle and UI events.
//!
//! Module map:
//! - [`layout`]: where sessions live;
//! - [`native`]: the event envelope and the `data` shapes read;
//! - [`workspace`]: the few `workspace.yaml` keys used;
//! - [`head`]: session facts from the start of the event log;
//! - [`discover`]: `discover` and `inspect`;
//! - [`read`]: the batch reader;
//! - [`records`]: events → canonical records and [`KNOWN_RECORD_TYPES`].
//!
//! Writing is not implemented.

pub mod discover;
pub mod head;
pub mod layout;
pub mod native;
pub mod read;
pub mod records;
mod time;
pub mod workspace;

use trajhost_codec_sdk::canonical::SCHEMA;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, CodecError, CodecInfo, Discovery, ReadOptions, SessionRef};

pub use records::{Handling, KNOWN_RECORD_TYPES};
pub use time::rfc3339_utc;

/// The harness id.
pub const HARNESS: &str = "copilot-cli";
/// This codec's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// `harness@version`, as `meta.codec` says it.
pub const CODEC: &str = concat!("copilot-cli@", env!("CARGO_PKG_VERSION"));
/// Copilot CLI versions whose event logs this codec reads.
pub const NATIVE_VERSIONS: &str = ">=0.0.330, <2.0.0";

/// The Copilot CLI codec.
pub struct CopilotCli;

impl Codec for CopilotCli {
    type Reader = read::Reader;

    fn info() -> CodecInfo {
        CodecInfo {
            harness: HARNESS.into(),
            codec_version: VERSION.into(),
            native_versions: NATIVE_VERSIONS.into(),
            native_version_source: "`data.copilotVersion` of the `session.start` event".into(),
            reads: vec!["copilot-cli-events-jsonl".into()],
            writes: Vec::new(),
            session_globs: vec![format!("{}/*/{}", layout::SESSION_STATE, layout::EVENTS)],
            canonical_schema: SCHEMA.into(),
        }
    }

    fn discover(home: &Dir) -> Result<Discovery, CodecError> {
        discover::discover(home)
    }

    fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
        discover::inspect(home, locator)
    }

    fn read(home: Dir, locator: &str, options: ReadOptions) -> Result<read::Reader, CodecError> {
        read::Reader::open(home, locator, &options)
    }
}

trajhost_codec_sdk::export_codec!(CopilotCli);
