//! trajhost codec for Hermes Agent's session files (NousResearch/hermes-agent),
//! the layout beside its SQLite store: per-session JSON logs
//! `~/.hermes/sessions/session_<id>.json` (the agent's snapshot of the whole
//! session, rewritten on every save; the only store of older releases, opt-in
//! since) and the messaging gateway's JSONL transcripts
//! `~/.hermes/sessions/<id>.jsonl`; the same under each profile,
//! `~/.hermes/profiles/<name>/sessions/`.
//!
//! Module map, following the native files:
//! - [`layout`]: sessions folders, file kinds, locators;
//! - [`head`]: session facts from a file's head (discovery);
//! - [`discover`]: `discover`, `inspect`;
//! - [`messages`]: each message `role` → canonical records, [`KNOWN_ROLES`];
//! - [`read`]: the batch reader.
//!
//! **Source spans.** A log's records point at their message's bytes inside
//! the document (its `system_prompt` value for the system record, the whole
//! document for `meta`); a transcript's at their line.
//!
//! **Ids.** `meta`: the session id (`session_id`, else the file name's). A
//! message's records: `<session>:<n>` (`n` its position), `#k` for further
//! records of the message; tool calls keep their native call id.
//!
//! **Versions.** The files record no Hermes version: sessions carry none and
//! the layout decides. Writing is not implemented.

pub mod discover;
pub mod head;
pub mod layout;
pub mod messages;
pub mod read;
mod time;

use trajhost_codec_sdk::Sniffed;

pub use messages::{Handling, KNOWN_ROLES};

trajhost_codec_sdk::codec_identity! {
    /// The Hermes session-file codec.
    codec: HermesJson,
    harness: "hermes",
    /// Hermes' version scale is the state.db `schema_version` (the `hermes`
    /// codec's); session files carry none, and every release wrote them (by
    /// default before state.db, on request since): the range is wide.
    native_versions: ">=0.0.0, <1000.0.0",
    version_shows: "none recorded in session files: the layout decides",
    formats: reads(["hermes-session-json", "hermes-gateway-jsonl"]),
    globs: layout::SESSION_GLOBS.iter().copied(),
    reader: read::Reader,
    methods: { discover, inspect, read, sniff = sniff },
}

/// A log is a JSON object whose first field is `session_id` and which has
/// Hermes' `session_start` (in the head); a transcript starts with the
/// gateway's `session_meta` line.
pub fn sniff(_path: &str, head: &[u8]) -> Option<Sniffed> {
    let start = head.iter().position(|b| !b.is_ascii_whitespace())?;
    let first_line = head[start..].split(|b| *b == b'\n').next().unwrap_or(&[]);
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(first_line)
        && v.get("role").and_then(serde_json::Value::as_str) == Some("session_meta")
    {
        return Some(Sniffed { native_version: None, native_id: None });
    }
    let found = head::scan_log(head);
    let has_start = found.started_at.is_some() || memchr_str(head, b"\"session_start\"");
    (found.id.is_some() && has_start).then_some(Sniffed { native_version: None, native_id: found.id })
}

fn memchr_str(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
