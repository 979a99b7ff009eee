//! trajhost codec for Letta Code's local backend
//! (`LETTA_LOCAL_BACKEND_EXPERIMENTAL=1`): discovers and reads the
//! conversations it keeps under
//! `~/.letta/lc-local-backend/conversations/<base64url(key)>/messages.jsonl`
//! into canonical records.
//!
//! With the default (API) backend, conversations live on the Letta server
//! and only lossy reflection transcripts stay on disk; those are read by
//! the `0.1.0-transcripts` codec (`plugins/letta-code-transcripts`).
//!
//! Module map: [`layout`], [`head`] (version, cwd and first prompt from the
//! head of a transcript), [`discover`], [`records`] (roles, entry types and
//! parts → canonical, [`KNOWN_ROLES`], [`KNOWN_ENTRY_TYPES`]), [`read`],
//! [`write`] (canonical → `messages.jsonl`, streamed), [`prepare`] (the
//! conversation's folder, its agent and settings entry in a target home).

pub mod discover;
pub mod head;
pub mod layout;
pub mod prepare;
pub mod read;
pub mod records;
pub mod write;

use trajhost_codec_sdk::canonical::SCHEMA;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{
    ArtifactInfo, Codec, CodecError, CodecInfo, Discovery, Plan, ReadOptions, SessionRef, SessionWriter, WriteOptions,
};

pub use records::{Handling, KNOWN_ENTRY_TYPES, KNOWN_PARTS, KNOWN_ROLES};

pub const HARNESS: &str = "letta-code";
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
pub const CODEC: &str = concat!("letta-code@", env!("CARGO_PKG_VERSION"));
/// Letta Code versions whose local-backend transcripts this codec reads
/// (0.25 writes schema 1, later releases schema 2; both are read).
pub const NATIVE_VERSIONS: &str = ">=0.25.0, <1.0.0";
pub const NATIVE_VERSION_SOURCE: &str = "the `Letta Code version` line of the device-information <system-reminder> Letta Code puts in user messages (manifest.json records only the transcript schema_version and message_format)";

pub struct LettaCode;

impl Codec for LettaCode {
    type Reader = read::Reader;

    fn info() -> CodecInfo {
        CodecInfo {
            harness: HARNESS.into(),
            codec_version: VERSION.into(),
            native_versions: NATIVE_VERSIONS.into(),
            native_version_source: NATIVE_VERSION_SOURCE.into(),
            reads: vec!["letta-code-pi-ai-message-jsonl".into(), "letta-code-pi-session-entry-jsonl".into()],
            writes: vec!["letta-code-pi-ai-message-jsonl".into()],
            session_globs: vec![format!("{}/*/{}", layout::CONVERSATIONS, layout::MESSAGES)],
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

    fn write(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
        write::ConversationWriter::start(options)
    }

    fn prepare(
        artifacts: Vec<ArtifactInfo>,
        export: &Dir,
        target: &Dir,
        options: WriteOptions,
    ) -> Result<Plan, CodecError> {
        prepare::prepare(artifacts, export, target, &options, &trajhost_codec_sdk::target::choice())
    }
}

trajhost_codec_sdk::export_codec!(LettaCode);
