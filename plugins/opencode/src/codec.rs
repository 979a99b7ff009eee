//! The `Codec` implementation, in terms of the crate's consts and its
//! [`flavor`](crate::flavor) (so a fork's codec that compiles these modules
//! implements it for its own type).

use trajhost_codec_sdk::canonical::SCHEMA;
use trajhost_codec_sdk::{Codec, CodecError, CodecInfo, SessionWriter, WholeDocument, WriteOptions};

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

    trajhost_codec_sdk::module_methods! { discover, inspect, read, sniff, prepare }

    fn write(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
        Ok(WholeDocument::boxed(options, write::write))
    }
}
