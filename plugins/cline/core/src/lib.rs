//! Cline's messages as both Cline codecs store them: Anthropic-style
//! messages of content blocks, kept in one JSON document (the CLI's
//! `<id>.messages.json`, the extension's `api_conversation_history.json`).
//!
//! What differs between the two (the message envelope, metrics, how user
//! text is read) stays in each codec; the blocks and the mapping of an
//! assistant message's blocks are here.

pub mod block;
pub mod message;
