//! OpenClaw's transcript entries, shared by the OpenClaw codecs: the SQLite
//! store (`plugins/openclaw`, `transcript_events.event_json`) and the legacy
//! JSONL transcripts (`plugins/openclaw-jsonl`, one entry per line) hold the
//! same Pi-style entries.
//!
//! - [`events`]: entry types and message roles → canonical records, and the
//!   `KNOWN_*` lists.
//!
//! This crate exports no component: the codec crates do, so both can link it.

pub mod events;

pub use events::{Handling, KNOWN_ENTRY_TYPES, KNOWN_MESSAGE_ROLES, Mapper};
