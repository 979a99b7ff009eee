//! trajhost codec for Oh My Pi (`@oh-my-pi/pi-coding-agent`, a fork of Pi):
//! discovers and reads the session files Oh My Pi keeps under
//! `~/.omp/agent/sessions/<dir>/<ts>_<uuid>.jsonl` into canonical records,
//! writes canonical sessions as Oh My Pi session files, and plans their
//! installation into a target home.
//!
//! Oh My Pi keeps Pi's JSONL tree (format version 3). What differs is one
//! [`trajhost_pi_core::Flavor`], [`trajhost_pi_core::OMP`]:
//! - the fixed-width title slot line before the header (read as the title,
//!   written as Oh My Pi 18 writes it: 256 bytes with its newline);
//! - the folder rule (`-<home-relative cwd>`, `-tmp-…`, else Pi's `--<abs>--`);
//! - `model_change` as `model: "provider/modelId"`, `attribution` on user
//!   messages, and the extra entry types of [`KNOWN_RECORD_TYPES`];
//! - `omp --resume <file>` to resume.
//!
//! Everything else (the active branch, compactions, ids, the written chain)
//! is `trajhost-pi-core`, shared with the Pi codec.

use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{
    ArtifactInfo, Codec, CodecError, CodecInfo, Discovery, Plan, ReadOptions, SessionRef, SessionWriter, WholeDocument,
    WriteOptions,
};

pub use trajhost_pi_core::{self as core, Handling, KNOWN_MESSAGE_ROLES, OMP, OMP_ENTRY_TYPES as KNOWN_RECORD_TYPES};

/// The Oh My Pi codec.
pub struct Omp;

impl Codec for Omp {
    type Reader = core::read::Reader;

    fn info() -> CodecInfo {
        core::info(&OMP)
    }

    fn discover(home: &Dir) -> Result<Discovery, CodecError> {
        core::discover::discover(&OMP, home)
    }

    fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
        core::discover::inspect(home, locator)
    }

    fn read(home: Dir, locator: &str, options: ReadOptions) -> Result<Self::Reader, CodecError> {
        core::read::Reader::open(&OMP, home, locator, &options)
    }

    fn write(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
        Ok(WholeDocument::boxed(options, |session, options| core::write::write(&OMP, session, options)))
    }

    fn prepare(
        artifacts: Vec<ArtifactInfo>,
        export: &Dir,
        target: &Dir,
        options: WriteOptions,
    ) -> Result<Plan, CodecError> {
        let artifacts = trajhost_codec_sdk::load_artifacts(export, &artifacts)?;
        core::prepare::prepare(&OMP, artifacts, target, &options)
    }
}

trajhost_codec_sdk::export_codec!(Omp);
