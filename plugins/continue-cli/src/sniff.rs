//! `sniff`: a loose file that is a Continue CLI session document.
//!
//! `JSON.stringify(session, null, 2)` puts `sessionId`, `title` and
//! `workspaceDirectory` before `history`, so the head shows them. A JSON
//! object with a `sessionId` string and a `history` array whose items hold
//! a `message` (or no item yet) is claimed.

use trajhost_codec_sdk::{Sniffed, json};

pub fn sniff(_path: &str, head: &[u8]) -> Option<Sniffed> {
    let id = json::document_id_in_head(head, "sessionId", "history", "message")?;
    Some(Sniffed { native_version: None, native_id: Some(id) })
}
