//! trajhost codec for GitHub Copilot CLI event logs kept as flat files,
//! `~/.copilot/session-state/<sessionId>.jsonl`, as older Copilot CLI builds
//! wrote them (current builds keep `<sessionId>/events.jsonl` with a
//! `workspace.yaml` beside it: `plugins/copilot-cli`). The events are the
//! same; they are read by `trajhost-copilot-cli-core`, shared with that codec.
//! A flat file has no `workspace.yaml`: the cwd and branch come from
//! `session.start`, the title from the first prompt.
//!
//! Discovery looks only at the `*.jsonl` files of `session-state/`; its
//! directories are the other layout's. Writing is not implemented.

use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, CodecError, CodecInfo, Discovery, ReadOptions, SessionRef};

pub use trajhost_copilot_cli_core::{self as core, Flavor, KNOWN_RECORD_TYPES, Layout, read};

/// This codec's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// `harness@version`, as `meta.codec` says it.
pub const CODEC: &str = concat!("copilot-cli@", env!("CARGO_PKG_VERSION"));
/// Which Copilot CLI versions wrote flat files is not pinned down: the same
/// range as the session-directory codec's.
pub const NATIVE_VERSIONS: &str = core::NATIVE_VERSIONS;

/// Flat files (`session-state/<sessionId>.jsonl`).
pub static FLAT: Flavor =
    Flavor { codec: CODEC, version: VERSION, layout: Layout::Flat, native_versions: NATIVE_VERSIONS };

/// The Copilot CLI flat-file codec.
pub struct CopilotCliFlat;

impl Codec for CopilotCliFlat {
    type Reader = read::Reader;

    fn info() -> CodecInfo {
        core::info(&FLAT)
    }

    fn discover(home: &Dir) -> Result<Discovery, CodecError> {
        core::discover::discover(&FLAT, home)
    }

    fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
        core::discover::inspect(&FLAT, home, locator)
    }

    fn read(home: Dir, locator: &str, options: ReadOptions) -> Result<read::Reader, CodecError> {
        read::Reader::open(&FLAT, home, locator, &options)
    }
}

trajhost_codec_sdk::export_codec!(CopilotCliFlat);
