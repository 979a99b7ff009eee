//! trajhost codec for Letta Code's local backend, schema 2: the
//! conversations Letta Code 0.30.28 and later keep under
//! `~/.letta/lc-local-backend/conversations/<base64url(key)>/messages.jsonl`
//! in the `pi-session-entry-jsonl` format (`manifest.json` `schema_version: 2`):
//! a Pi session-entry file, `{"type":"session","version":3,"id","timestamp","cwd"}`
//! then `message` / `compaction` entries (`id` 8 hex, `parentId`,
//! `timestamp`) wrapping the pi-ai messages schema 1 kept one a line.
//!
//! It discovers the schema-2 conversations (the schema-1 codec,
//! `letta-code@0.1.0`, the others), reads either format, and writes schema 2
//! for Letta Code [`ENTRIES_WRITES_FOR`]: a new store in a fresh home, or a
//! conversation added to a store of schema-1 and schema-2 conversations
//! (which those releases load side by side). Everything is the core's
//! (`plugins/letta-code/core`), with [`Format::Entries`].

pub use trajhost_letta_code_core::{ENTRIES_WRITES_FOR, Format, HARNESS, NATIVE_VERSION_SOURCE, NATIVE_VERSIONS};
pub use trajhost_letta_code_core::{discover, head, layout, prepare, read, records, write};

use trajhost_codec_sdk::canonical::SCHEMA;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{
    ArtifactInfo, Codec, CodecError, CodecInfo, Discovery, Plan, ReadOptions, SessionRef, SessionWriter, WriteOptions,
};

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
pub const CODEC: &str = concat!("letta-code@", env!("CARGO_PKG_VERSION"));
/// The transcript format this codec discovers and writes.
pub const FORMAT: Format = Format::Entries;

pub struct LettaCodeEntries;

impl Codec for LettaCodeEntries {
    type Reader = read::Reader;

    /// From the first Letta Code release seen with schema 2
    /// ([`trajhost_letta_code_core::FIRST_ENTRIES_VERSION`], the evidence is
    /// there); `letta-code@0.1.0` writes schema 1 for the releases before.
    const WRITES_FOR: &'static str = ENTRIES_WRITES_FOR;

    fn info() -> CodecInfo {
        CodecInfo {
            harness: HARNESS.into(),
            codec_version: VERSION.into(),
            native_versions: NATIVE_VERSIONS.into(),
            native_version_source: NATIVE_VERSION_SOURCE.into(),
            // `read` reads either format; `discover` lists this one's.
            reads: Format::ALL.map(|f| f.name().into()).to_vec(),
            writes: vec![FORMAT.name().into()],
            session_globs: vec![format!("{}/*/{}", layout::CONVERSATIONS, layout::MESSAGES)],
            canonical_schema: SCHEMA.into(),
        }
    }

    fn discover(home: &Dir) -> Result<Discovery, CodecError> {
        discover::discover(home, FORMAT)
    }

    fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
        discover::inspect(home, locator, FORMAT)
    }

    fn read(home: Dir, locator: &str, options: ReadOptions) -> Result<read::Reader, CodecError> {
        read::Reader::open(home, locator, &options, CODEC)
    }

    fn write(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
        write::ConversationWriter::start(options, FORMAT)
    }

    fn prepare(
        artifacts: Vec<ArtifactInfo>,
        export: &Dir,
        target: &Dir,
        options: WriteOptions,
    ) -> Result<Plan, CodecError> {
        prepare::prepare(artifacts, export, target, &options, &trajhost_codec_sdk::target::choice(), FORMAT)
    }
}

trajhost_codec_sdk::export_codec!(LettaCodeEntries);

#[cfg(test)]
mod tests {
    #[test]
    fn the_core_names_this_codec() {
        assert_eq!(super::FORMAT.codec(), super::CODEC);
        assert_eq!(super::FORMAT.writes_for(), <super::LettaCodeEntries as trajhost_codec_sdk::Codec>::WRITES_FOR);
    }
}
