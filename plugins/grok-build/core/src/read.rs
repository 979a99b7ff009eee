//! `read`: one session as canonical records, streamed in batches: its `meta`
//! record, then one JSONL file (`chat_history.jsonl` or `updates.jsonl`) in
//! file order, each line handed to the codec's [`Lines`]. The reader is the
//! SDK's line reader.

pub use trajhost_codec_sdk::records::{LineReader as Reader, Lines, Out};
