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
    pub fn schema_version(self) -> u64 {
        match self {
            Format::Messages => 1,
            Format::Entries => 2,
        }
    }

    /// `manifest.json` `message_format`.
    pub fn message_format(self) -> &'static str {
        match self {
            Format::Messages => "pi-ai-message-jsonl",
            Format::Entries => "pi-session-entry-jsonl",
        }
    }

    /// The format's name in a codec's `info().reads` / `writes`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Messages => "letta-code-pi-ai-message-jsonl",
            Format::Entries => "letta-code-pi-session-entry-jsonl",
        }
    }

    /// The codec that writes this format.
    pub fn codec(self) -> &'static str {
        match self {
            Format::Messages => MESSAGES_CODEC,
            Format::Entries => ENTRIES_CODEC,
        }
    }

    /// The Letta Code versions its writer writes for.
    pub fn writes_for(self) -> &'static str {
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
