//! The `Codec` implementation, in terms of the crate's consts and its
//! [`flavor`](crate::flavor) (so a fork's codec that compiles these modules
//! implements it for its own type).

use trajhost_codec_sdk::canonical::SCHEMA;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{
    ArtifactInfo, Codec, CodecError, CodecInfo, Discovery, Plan, ReadOptions, SessionRef, SessionWriter, WholeDocument,
    WriteOptions,
};

use crate::{HARNESS, NATIVE_VERSIONS, READS, VERSION, WRITES, discover, layout, prepare, read, sniff, write};

impl Codec for crate::flavor::This {
    type Reader = read::Reader;

    fn info() -> CodecInfo {
        CodecInfo {
            harness: HARNESS.into(),
            codec_version: VERSION.into(),
            native_versions: NATIVE_VERSIONS.into(),
            native_version_source: crate::flavor::VERSION_SOURCE.into(),
            reads: vec![READS.into()],
            writes: vec![WRITES.into()],
            // The import folder holds the documents `prepare` installs (the CLI's
            // `import` reads them); discovery lists them beside the database.
            session_globs: vec![layout::DB.into(), format!("{}/*.json", layout::IMPORT_DIR)],
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
        Ok(WholeDocument::boxed(options, write::write))
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
