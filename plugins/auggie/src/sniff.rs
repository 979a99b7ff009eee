//! `sniff`: a loose file that is an Auggie session document.
//!
//! `JSON.stringify(session, null, 2)` puts `sessionId`, `created` and
//! `modified` before `chatHistory`, so the head shows them. A JSON object
//! with a `sessionId` string and a `chatHistory` array whose entries hold an
//! `exchange` (or no entry yet) is claimed.

use trajhost_codec_sdk::{Sniffed, json};

pub fn sniff(_path: &str, head: &[u8]) -> Option<Sniffed> {
    let id = json::document_id_in_head(head, "sessionId", "chatHistory", "exchange")?;
    Some(Sniffed { native_version: None, native_id: Some(id) })
}
