//! trajhost codec for the Codex CLI: discovers and reads the rollout JSONL
//! files Codex keeps under `~/.codex/sessions/YYYY/MM/DD/` (and the single
//! JSON rollout documents of the early TypeScript CLI) into canonical
//! records, writes canonical sessions as rollouts, and plans their
//! installation into a target home (the rollout file, and the `threads`
//! row of the state database when the target has one).
//!
//! Module map, following the native format:
//! - [`layout`]: where rollouts and the state database live, file names;
//! - [`native`]: the line shapes (envelope, payloads);
//! - [`head`]: session facts from the head of a rollout;
//! - [`document`]: the TypeScript CLI's rollout document (`rollout-*.json`);
//! - [`discover`]: `discover` and `inspect`;
//! - [`read`]: the batch reader;
//! - [`records`]: native types → canonical records, one module per family,
//!   and the `KNOWN_*` type lists;
//! - [`write`]: canonical records → a rollout;
//! - [`prepare`]: the installation plan and the `threads` schema check.
//!
//! Natively (tests, benchmarks) the codec runs without the sandbox:
//! `trajhost_codec_sdk::read_all::<Codex>(Dir::native(home), locator, options, sink)`.

pub mod discover;
pub mod document;
pub mod head;
pub mod layout;
pub mod native;
pub mod prepare;
pub mod read;
pub mod records;
pub mod sniff;
pub mod time;
pub mod write;

use trajhost_codec_sdk::canonical::SCHEMA;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{
    ArtifactInfo, Codec, CodecError, CodecInfo, Discovery, Plan, ReadOptions, SessionRef, SessionWriter, WriteOptions,
};

pub use records::{Handling, KNOWN_EVENT_TYPES, KNOWN_LINE_TYPES, KNOWN_RESPONSE_ITEM_TYPES};

/// The harness id.
pub const HARNESS: &str = "codex";
/// This codec's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// `harness@version`, as `meta.codec` says it.
pub const CODEC: &str = concat!("codex@", env!("CARGO_PKG_VERSION"));
/// Codex CLI versions whose rollouts this codec reads.
pub const NATIVE_VERSIONS: &str = ">=0.1.0, <1.0.0";
/// The rollout format read and written.
pub const FORMAT: &str = "codex-rollout-jsonl";
/// The TypeScript CLI's rollout document, read only.
pub const DOCUMENT_FORMAT: &str = "codex-rollout-json";

/// The Codex codec.
pub struct Codex;

impl Codec for Codex {
    type Reader = read::Reader;

    fn info() -> CodecInfo {
        CodecInfo {
            harness: HARNESS.into(),
            codec_version: VERSION.into(),
            native_versions: NATIVE_VERSIONS.into(),
            native_version_source: "`session_meta.payload.cli_version` (rollout documents record none)".into(),
            reads: vec![FORMAT.into(), DOCUMENT_FORMAT.into()],
            writes: vec![FORMAT.into()],
            session_globs: layout::session_globs(),
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

    fn sniff(path: &str, head: &[u8]) -> Option<trajhost_codec_sdk::Sniffed> {
        sniff::sniff(path, head)
    }

    fn write(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
        write::RolloutWriter::start(options)
    }

    fn prepare(
        artifacts: Vec<ArtifactInfo>,
        export: &Dir,
        target: &Dir,
        options: WriteOptions,
    ) -> Result<Plan, CodecError> {
        let artifacts = trajhost_codec_sdk::load_artifacts(export, &artifacts)?;
        prepare::prepare(artifacts, target, &options)
    }
}

trajhost_codec_sdk::export_codec!(Codex);
