//! trajhost codec for Letta Code's local backend
//! (`LETTA_LOCAL_BACKEND_EXPERIMENTAL=1`), schema 1: discovers and reads the
//! conversations it keeps under
//! `~/.letta/lc-local-backend/conversations/<base64url(key)>/messages.jsonl`
//! in the `pi-ai-message-jsonl` format (schema 1, Letta Code 0.25) into
//! canonical records, and writes that format for Letta Code
//! [`MESSAGES_WRITES_FOR`].
//!
//! Schema 2 (`pi-session-entry-jsonl`, Letta Code 0.30.28 and later) is the
//! `0.1.0-entries` codec's (`plugins/letta-code-entries`): it discovers those
//! conversations and writes that format. Both codecs are this crate's core,
//! `plugins/letta-code/core` (`trajhost-letta-code-core`), parameterized by
//! the format; this one's `read` still reads either format when asked.
//!
//! With the default (API) backend, conversations live on the Letta server
//! and only lossy reflection transcripts stay on disk; those are read by
//! the `0.1.0-transcripts` codec (`plugins/letta-code-transcripts`).
//!
//! Module map (the core's): [`layout`], [`head`] (version, cwd and first
//! prompt from the head of a transcript), [`discover`], [`records`] (roles,
//! entry types and parts → canonical, [`KNOWN_ROLES`], [`KNOWN_ENTRY_TYPES`]),
//! [`read`], [`write`] (canonical → `messages.jsonl`, streamed), [`prepare`]
//! (the conversation's folder, its agent and settings entry in a target home).

pub use trajhost_letta_code_core::{Format, HARNESS, MESSAGES_WRITES_FOR, NATIVE_VERSION_SOURCE, NATIVE_VERSIONS};
pub use trajhost_letta_code_core::{discover, head, layout, prepare, read, records, write};

use trajhost_codec_sdk::canonical::SCHEMA;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{
    ArtifactInfo, Codec, CodecError, CodecInfo, Discovery, Plan, ReadOptions, SessionRef, SessionWriter, WriteOptions,
};

pub use records::{Handling, KNOWN_ENTRY_TYPES, KNOWN_PARTS, KNOWN_ROLES};

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
pub const CODEC: &str = concat!("letta-code@", env!("CARGO_PKG_VERSION"));
/// The transcript format this codec discovers and writes.
pub const FORMAT: Format = Format::Messages;

pub struct LettaCode;

impl Codec for LettaCode {
    type Reader = read::Reader;

    /// Letta Code 0.25 up to the first release with schema 2
    /// ([`trajhost_letta_code_core::FIRST_ENTRIES_VERSION`]); the
    /// `0.1.0-entries` codec writes for the releases from there.
    const WRITES_FOR: &'static str = MESSAGES_WRITES_FOR;

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

trajhost_codec_sdk::export_codec!(LettaCode);

#[cfg(test)]
mod tests {
    #[test]
    fn the_core_names_this_codec() {
        assert_eq!(super::FORMAT.codec(), super::CODEC);
        assert_eq!(super::FORMAT.writes_for(), <super::LettaCode as trajhost_codec_sdk::Codec>::WRITES_FOR);
    }
}
