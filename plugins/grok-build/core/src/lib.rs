//! What the Grok Build codecs share: `grok-build` reads `chat_history.jsonl`
//! (with facts from `updates.jsonl`), `grok-build-updates` reads sessions
//! kept only as `updates.jsonl`. Both read the same `summary.json`, know the
//! same `sessionUpdate` kinds and stream one JSONL file line by line.
//!
//! Module map: [`summary`] (`summary.json`), [`updates`] (the
//! `sessionUpdate` kinds both leave out), [`read`] (the line-by-line reader).

pub mod read;
pub mod summary;
pub mod updates;

pub use trajhost_codec_sdk::known::Handling;
