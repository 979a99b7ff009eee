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

pub use records::{Handling, KNOWN_ENTRY_TYPES, KNOWN_PARTS, KNOWN_ROLES};

trajhost_letta_code_core::local_backend_codec!(
    /// The schema-1 codec: Letta Code 0.25 up to the first release with
    /// schema 2 ([`trajhost_letta_code_core::FIRST_ENTRIES_VERSION`]); the
    /// `0.1.0-entries` codec writes for the releases from there.
    LettaCode,
    Format::Messages
);
