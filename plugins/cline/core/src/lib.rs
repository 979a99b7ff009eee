//! Cline's messages as both Cline codecs store them: Anthropic-style
//! messages of content blocks, kept in one JSON document (the CLI's
//! `<id>.messages.json`, the extension's `api_conversation_history.json`).
//!
//! What differs between the two (the message envelope, metrics) stays in
//! each codec; the blocks, the mapping of an assistant message's blocks and
//! the texts Cline writes around what was typed and what tools returned
//! ([`texts`]: `[<tool> for '…'] Result:` blocks, XML tool uses) are here.

pub mod block;
pub mod message;
pub mod texts;
