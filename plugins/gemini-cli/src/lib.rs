//! trajhost codec for Gemini CLI: discovers and reads the JSONL session
//! files Gemini CLI keeps under
//! `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl` (subagent
//! sessions under `chats/<parentSessionId>/`) into canonical records.
//!
//! The file is an event log, not a transcript: a header line, message
//! lines (`user`, `gemini`, `info`, `error`, `warning`), `{"$set": …}`
//! patches and `{"$rewindTo": id}` truncations. A message id is written
//! again whenever the message changes (tool calls attach to a `gemini`
//! message after it was first written); `$set.messages` replaces the whole
//! list at a checkpoint (resume writes one), repeating every earlier
//! message; and each tool response is stored both in the call's
//! `toolCalls[].result` and in a `user` message (and once more, on resume,
//! in a synthetic `<id>_response` message). The reader emits every
//! message's records once, under ids derived from native ids, and counts
//! the repeats in diagnostics.
//!
//! Module map:
//! - [`layout`]: where sessions, project roots and spilled tool outputs live;
//! - [`native`]: the line shapes (header, message record, parts, tool calls);
//! - [`head`]: session facts from the start and end of a file;
//! - [`discover`]: `discover` and `inspect`;
//! - [`read`]: the batch reader over the main file and subagent files;
//! - [`records`]: native records → canonical records and
//!   [`KNOWN_RECORD_TYPES`];
//! - [`write`]: canonical records → one session file (streamed);
//! - [`prepare`]: the plan that files it under the target's project slug.
//!
//! Gemini CLI records no version of its own in session files: sessions
//! report no native version.

pub mod discover;
pub mod head;
pub mod layout;
pub mod native;
pub mod prepare;
pub mod read;
pub mod records;
mod time;
pub mod write;

pub use records::{Handling, KNOWN_RECORD_TYPES, record_types};
pub use time::rfc3339_utc;

trajhost_codec_sdk::codec_identity! {
    /// The Gemini CLI codec.
    codec: GeminiCli,
    harness: "gemini-cli",
    /// Gemini CLI versions whose JSONL session files this codec reads: the
    /// JSONL store replaced the single-JSON file in 0.39.
    native_versions: ">=0.39.0, <1.0.0",
    version_shows: "none: Gemini CLI session files record no CLI or format version",
    formats: reads(["gemini-cli-jsonl"]).writes([write::FORMAT]),
    globs: [format!(
                "{}/*/{}/{}*{}",
                layout::TMP_ROOT,
                layout::CHATS,
                layout::SESSION_PREFIX,
                layout::JSONL
            )],
    reader: read::Reader,
    methods: { discover, inspect, read, read_from, writer, prepare_with_choice },
}
