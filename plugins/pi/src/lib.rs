//! trajhost codec for Pi (`@mariozechner/pi-coding-agent`): discovers and
//! reads the session files Pi keeps under
//! `~/.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl` into canonical
//! records, writes canonical sessions as Pi session files, and plans their
//! installation into a target home.
//!
//! The format lives in `trajhost-pi-core` (`plugins/pi/core`), shared with
//! the Oh My Pi codec: this crate picks [`trajhost_pi_core::PI`] and exports
//! the component. See that crate for the reading rules (the active branch of
//! the entry tree, compactions, record ids) and the written layout.
//!
//! Natively (tests, benchmarks) the codec runs without the sandbox:
//! `trajhost_codec_sdk::read_all::<Pi>(Dir::native(home), locator, options, sink)`.

use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{
    ArtifactInfo, Codec, CodecError, CodecInfo, Discovery, Plan, ReadOptions, SessionRef, SessionWriter, WholeDocument,
    WriteOptions,
};

pub use trajhost_pi_core::{self as core, Handling, KNOWN_MESSAGE_ROLES, PI, PI_ENTRY_TYPES as KNOWN_RECORD_TYPES};

/// The Pi codec.
pub struct Pi;

impl Codec for Pi {
    type Reader = core::read::Reader;

    fn info() -> CodecInfo {
        core::info(&PI)
    }

    fn discover(home: &Dir) -> Result<Discovery, CodecError> {
        core::discover::discover(&PI, home)
    }

    fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
        core::discover::inspect(home, locator)
    }

    fn read(home: Dir, locator: &str, options: ReadOptions) -> Result<Self::Reader, CodecError> {
        core::read::Reader::open(&PI, home, locator, &options)
    }

    fn write(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
        Ok(WholeDocument::boxed(options, |session, options| core::write::write(&PI, session, options)))
    }

    fn prepare(
        artifacts: Vec<ArtifactInfo>,
        export: &Dir,
        target: &Dir,
        options: WriteOptions,
    ) -> Result<Plan, CodecError> {
        let artifacts = trajhost_codec_sdk::load_artifacts(export, &artifacts)?;
        core::prepare::prepare(&PI, artifacts, target, &options)
    }
}

trajhost_codec_sdk::export_codec!(Pi);
