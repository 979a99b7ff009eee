//! Letta Code's local backend (`LETTA_LOCAL_BACKEND_EXPERIMENTAL=1`,
//! `--backend local`), shared by its two codecs, one per transcript format:
//!
//! | codec | `manifest.json` | `messages.jsonl` | writes for |
//! |---|---|---|---|
//! | `letta-code@0.1.0` (`plugins/letta-code`) | schema 1, `pi-ai-message-jsonl` | one pi-ai message a line | Letta Code [`MESSAGES_WRITES_FOR`] |
//! | `letta-code@0.1.0-entries` (`plugins/letta-code-entries`) | schema 2, `pi-session-entry-jsonl` | a Pi session-entry file: a `session` header, then `message` / `compaction` entries wrapping the same messages | Letta Code [`ENTRIES_WRITES_FOR`] |
//!
//! Both read either format ([`read`]); each discovers only the conversations
//! of its own format ([`discover`]), so a conversation is listed once, by
//! the codec of its layout.
//!
//! Module map: [`layout`], [`head`] (version, cwd and first prompt from the
//! head of a transcript), [`discover`], [`records`] (roles, entry types and
//! parts → canonical), [`read`], [`write`] (canonical → `messages.jsonl` in
//! either format, streamed), [`prepare`] (the conversation's folder, its
//! agent and settings entry in a target home).

pub mod discover;
pub mod head;
pub mod layout;
pub mod prepare;
pub mod read;
pub mod records;
pub mod write;

use serde_json::Value;

#[doc(hidden)]
pub use trajhost_codec_sdk as sdk;

pub const HARNESS: &str = "letta-code";

/// The codec that writes schema 1 (`plugins/letta-code`).
pub const MESSAGES_CODEC: &str = "letta-code@0.1.0";
/// The codec that writes schema 2 (`plugins/letta-code-entries`).
pub const ENTRIES_CODEC: &str = "letta-code@0.1.0-entries";

/// The first Letta Code release known to keep schema-2 transcripts. The
/// evidence (the npm packages' bundles, `letta.js`): 0.25.9 knows only
/// schema 1; 0.30.28, 0.31.12, 0.32.8 and 0.32.18 write schema 2 and migrate
/// a schema-1 conversation in place when they first write to it. No release
/// between 0.25.9 and 0.30.28 was available to look at, so the boundary is
/// the first release seen with schema 2: a release before it gets schema 1,
/// which every schema-2 release still loads, so the choice never installs a
/// store its target cannot read.
pub const FIRST_ENTRIES_VERSION: &str = "0.30.28";
/// Letta Code versions the schema-1 writer writes for.
pub const MESSAGES_WRITES_FOR: &str = ">=0.25.0, <0.30.28";
/// Letta Code versions the schema-2 writer writes for.
pub const ENTRIES_WRITES_FOR: &str = ">=0.30.28, <1.0.0";

/// Letta Code versions whose local-backend transcripts both codecs read.
pub const NATIVE_VERSIONS: &str = ">=0.25.0, <1.0.0";
pub const NATIVE_VERSION_SOURCE: &str = "the `Letta Code version` line of the device-information <system-reminder> Letta Code puts in user messages (manifest.json records only the transcript schema_version and message_format)";

/// A transcript format of the local backend (`manifest.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Schema 1, `pi-ai-message-jsonl` (Letta Code 0.25).
    Messages,
    /// Schema 2, `pi-session-entry-jsonl` (Letta Code 0.30.28 and later).
    Entries,
}

impl Format {
    pub const ALL: [Format; 2] = [Format::Messages, Format::Entries];

    /// `manifest.json` `schema_version`.
    pub const fn schema_version(self) -> u64 {
        match self {
            Format::Messages => 1,
            Format::Entries => 2,
        }
    }

    /// `manifest.json` `message_format`.
    pub const fn message_format(self) -> &'static str {
        match self {
            Format::Messages => "pi-ai-message-jsonl",
            Format::Entries => "pi-session-entry-jsonl",
        }
    }

    /// The format's name in a codec's `info().reads` / `writes`.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Messages => "letta-code-pi-ai-message-jsonl",
            Format::Entries => "letta-code-pi-session-entry-jsonl",
        }
    }

    /// The codec that writes this format.
    pub const fn codec(self) -> &'static str {
        match self {
            Format::Messages => MESSAGES_CODEC,
            Format::Entries => ENTRIES_CODEC,
        }
    }

    /// The Letta Code versions its writer writes for.
    pub const fn writes_for(self) -> &'static str {
        match self {
            Format::Messages => MESSAGES_WRITES_FOR,
            Format::Entries => ENTRIES_WRITES_FOR,
        }
    }

    /// The format a manifest names, when it is one of these (its
    /// `schema_version` and `message_format` agree).
    pub fn of_manifest(manifest: &Value) -> Option<Format> {
        let schema = manifest.get("schema_version").and_then(Value::as_u64);
        let format = manifest.get("message_format").and_then(Value::as_str);
        Format::ALL.into_iter().find(|f| schema == Some(f.schema_version()) && format == Some(f.message_format()))
    }

    /// The layout a conversation folder is in, from its manifest (`None`:
    /// no manifest): schema 2 when it names schema 2 or its format, else
    /// schema 1 (schema 1, an unversioned legacy transcript, or a format
    /// never seen, which the schema-1 codec reports).
    pub fn layout_of(manifest: Option<&Value>) -> Format {
        let Some(manifest) = manifest else { return Format::Messages };
        let schema = manifest.get("schema_version").and_then(Value::as_u64);
        let format = manifest.get("message_format").and_then(Value::as_str);
        if schema == Some(2) || format == Some(Format::Entries.message_format()) {
            Format::Entries
        } else {
            Format::Messages
        }
    }
}

/// What both codecs' `info()` say; only the format they discover and write
/// differs. `read` reads either format.
pub fn codec_info(format: Format, codec_version: &str) -> sdk::CodecInfo {
    sdk::CodecInfo {
        harness: HARNESS.into(),
        codec_version: codec_version.into(),
        native_versions: NATIVE_VERSIONS.into(),
        native_version_source: NATIVE_VERSION_SOURCE.into(),
        reads: Format::ALL.map(|f| f.name().into()).to_vec(),
        writes: vec![format.name().into()],
        session_globs: vec![format!("{}/*/{}", layout::CONVERSATIONS, layout::MESSAGES)],
        canonical_schema: sdk::canonical::SCHEMA.into(),
    }
}

/// Defines and exports the codec of one transcript format, `$codec`: it
/// discovers and writes `$format` (for [`Format::writes_for`]) and reads
/// either. Expanded in the codec crate, so its version is that crate's.
#[macro_export]
macro_rules! local_backend_codec {
    ($(#[$attr:meta])* $codec:ident, $format:expr) => {
        /// This codec's version.
        pub const VERSION: &str = env!("CARGO_PKG_VERSION");
        /// `harness@version`, as `meta.codec` says it.
        pub const CODEC: &str = concat!("letta-code@", env!("CARGO_PKG_VERSION"));
        /// The transcript format this codec discovers and writes.
        pub const FORMAT: $crate::Format = $format;

        $(#[$attr])*
        pub struct $codec;

        impl $crate::sdk::Codec for $codec {
            type Reader = $crate::read::Reader;

            const WRITES_FOR: &'static str = FORMAT.writes_for();

            fn info() -> $crate::sdk::CodecInfo {
                $crate::codec_info(FORMAT, VERSION)
            }

            fn discover(home: &$crate::sdk::fs::Dir) -> Result<$crate::sdk::Discovery, $crate::sdk::CodecError> {
                $crate::discover::discover(home, FORMAT)
            }

            fn inspect(
                home: &$crate::sdk::fs::Dir,
                locator: &str,
            ) -> Result<$crate::sdk::SessionRef, $crate::sdk::CodecError> {
                $crate::discover::inspect(home, locator, FORMAT)
            }

            fn read(
                home: $crate::sdk::fs::Dir,
                locator: &str,
                options: $crate::sdk::ReadOptions,
            ) -> Result<$crate::read::Reader, $crate::sdk::CodecError> {
                $crate::read::Reader::open(home, locator, &options, CODEC)
            }

            fn write(
                options: $crate::sdk::WriteOptions,
            ) -> Result<Box<dyn $crate::sdk::SessionWriter>, $crate::sdk::CodecError> {
                $crate::write::ConversationWriter::start(options, FORMAT)
            }

            fn prepare(
                artifacts: Vec<$crate::sdk::ArtifactInfo>,
                export: &$crate::sdk::fs::Dir,
                target: &$crate::sdk::fs::Dir,
                options: $crate::sdk::WriteOptions,
            ) -> Result<$crate::sdk::Plan, $crate::sdk::CodecError> {
                let choice = $crate::sdk::target::choice();
                $crate::prepare::prepare(artifacts, export, target, &options, &choice, FORMAT)
            }
        }

        $crate::sdk::export_codec!($codec);

        #[cfg(test)]
        #[test]
        fn the_core_names_this_codec() {
            assert_eq!(FORMAT.codec(), CODEC);
            assert_eq!(FORMAT.writes_for(), <$codec as $crate::sdk::Codec>::WRITES_FOR);
        }
    };
}

#[cfg(test)]
mod tests {
    use super::Format;
    use serde_json::json;

    #[test]
    fn formats_of_manifests() {
        let v1 = json!({"schema_version": 1, "message_format": "pi-ai-message-jsonl", "provider_stack": "pi-ai"});
        let v2 = json!({"schema_version": 2, "message_format": "pi-session-entry-jsonl", "provider_stack": "pi-ai",
            "migrated_from": "versioned-pi-ai-message-jsonl"});
        assert_eq!(Format::of_manifest(&v1), Some(Format::Messages));
        assert_eq!(Format::of_manifest(&v2), Some(Format::Entries));
        assert_eq!(Format::of_manifest(&json!({"schema_version": 3})), None);
        assert_eq!(Format::layout_of(Some(&v2)), Format::Entries);
        assert_eq!(Format::layout_of(Some(&json!({"schema_version": 2, "message_format": "x"}))), Format::Entries);
        assert_eq!(Format::layout_of(Some(&json!({"schema_version": 3}))), Format::Messages);
        assert_eq!(Format::layout_of(None), Format::Messages);
    }
}
