//! The GitHub Copilot CLI session event log, shared by the Copilot CLI
//! codecs: `plugins/copilot-cli` (one directory per session,
//! `~/.copilot/session-state/<sessionId>/events.jsonl` with its
//! `workspace.yaml`) and `plugins/copilot-cli-flat` (the older flat files,
//! `~/.copilot/session-state/<sessionId>.jsonl`). The events are the same in
//! both; a [`Flavor`] names the layout, and every operation takes one.
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
//! - [`layout`]: where sessions live, per layout;
//! - [`native`]: the event envelope and the `data` shapes read;
//! - [`workspace`]: the few `workspace.yaml` keys used;
//! - [`head`]: session facts from the start of the event log;
//! - [`discover`]: `discover` and `inspect`;
//! - [`read`]: the batch reader;
//! - [`records`]: events → canonical records and [`KNOWN_RECORD_TYPES`].
//!
//! This crate exports no component: the codec crates do, so both can link it.

pub mod discover;
pub mod events;
pub mod head;
pub mod layout;
pub mod native;
pub mod read;
pub mod records;
mod time;
pub mod workspace;

use trajhost_codec_sdk::CodecInfo;

#[doc(hidden)]
pub use trajhost_codec_sdk as sdk;

pub use layout::Layout;
pub use records::{Handling, KNOWN_RECORD_TYPES};
pub use time::rfc3339_utc;

/// The harness id.
pub const HARNESS: &str = "copilot-cli";

/// Copilot CLI versions whose event logs the codecs read: every 0.0.x and
/// 1.x build seen writes the same events (prereleases such as `0.0.407-1`
/// are covered); a 2.x would be another codec. Both layouts share it, so a
/// session one of them places is never handed to the other for its version.
pub const NATIVE_VERSIONS: &str = ">=0.0.1, <2.0.0";

/// What differs between the Copilot CLI codecs.
#[derive(Debug)]
pub struct Flavor {
    /// `harness@version`, as `meta.codec` says it.
    pub codec: &'static str,
    /// The codec version.
    pub version: &'static str,
    pub layout: Layout,
    /// What `info.native-versions` says.
    pub native_versions: &'static str,
}

/// `info` of a flavor's codec.
pub fn info(flavor: &Flavor) -> CodecInfo {
    CodecInfo::of(HARNESS, flavor.version, flavor.native_versions, "`data.copilotVersion` of the `session.start` event")
        .reads(["copilot-cli-events-jsonl"])
        .globs([flavor.layout.session_glob()])
}

/// Inside `impl Codec for …`, the methods that read a [`Flavor`]'s layout:
/// `info` (with the format the codec writes), `discover`, `inspect`, `read`,
/// `read_from`.
#[macro_export]
macro_rules! flavor_methods {
    ($flavor:expr, writes: $format:expr) => {
        fn info() -> $crate::sdk::CodecInfo {
            $crate::info(&$flavor).writes([$format])
        }

        fn discover(home: &$crate::sdk::fs::Dir) -> Result<$crate::sdk::Discovery, $crate::sdk::CodecError> {
            $crate::discover::discover(&$flavor, home)
        }

        fn inspect(
            home: &$crate::sdk::fs::Dir,
            locator: &str,
        ) -> Result<$crate::sdk::SessionRef, $crate::sdk::CodecError> {
            $crate::discover::inspect(&$flavor, home, locator)
        }

        fn read(
            home: $crate::sdk::fs::Dir,
            locator: &str,
            options: $crate::sdk::ReadOptions,
        ) -> Result<Self::Reader, $crate::sdk::CodecError> {
            $crate::read::open(&$flavor, home, locator, &options)
        }

        fn read_from(
            home: $crate::sdk::fs::Dir,
            locator: &str,
            start: $crate::sdk::ResumePoint,
            options: $crate::sdk::ReadOptions,
        ) -> Result<Self::Reader, $crate::sdk::CodecError> {
            $crate::read::resume(&$flavor, home, locator, &start, &options)
        }
    };
}
