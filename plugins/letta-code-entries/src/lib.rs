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

trajhost_letta_code_core::local_backend_codec!(
    /// The schema-2 codec: from the first Letta Code release seen with
    /// schema 2 ([`trajhost_letta_code_core::FIRST_ENTRIES_VERSION`], the
    /// evidence is there); `letta-code@0.1.0` writes schema 1 for the
    /// releases before.
    LettaCodeEntries,
    Format::Entries
);
