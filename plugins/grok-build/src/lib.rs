//! trajhost codec for Grok Build (xAI's `grok` CLI): discovers and reads the
//! sessions it keeps under `~/.grok/sessions/<percent-encoded cwd>/<uuidv7>/`
//! into canonical records.
//!
//! `chat_history.jsonl` (the model context, what `--resume` replays) is the
//! conversation; `updates.jsonl` (the ACP journal for the UI, which streams
//! the same content again) is used only for times, tool outcomes and turn
//! usage; `summary.json` gives the session's id, cwd, times, title and
//! format version.
//!
//! Module map: [`layout`], [`summary`], [`discover`], [`updates`] (the
//! journal index), [`records`] (item and update types → canonical,
//! [`KNOWN_ITEM_TYPES`], [`KNOWN_UPDATE_TYPES`]), [`read`].
//!
//! Writing: [`write`] (a session folder's `chat_history.jsonl`,
//! `updates.jsonl` from [`journal`], and `summary.json`) and [`prepare`]
//! (installs them, with the chosen or the target's configured model).

pub mod discover;
pub mod journal;
pub mod layout;
pub mod prepare;
pub mod read;
pub mod records;
pub mod updates;
pub mod write;

pub use trajhost_grok_build_core::summary;

use trajhost_codec_sdk::{CodecError, SessionWriter, WriteOptions};

pub use records::{Handling, KNOWN_ITEM_TYPES, KNOWN_UPDATE_TYPES};

pub const NATIVE_VERSION_SOURCE: &str = "`chat_format_version` of summary.json (the chat_history.jsonl format; Grok Build records no CLI version in a session)";

trajhost_codec_sdk::codec_identity! {
    codec: GrokBuild,
    harness: "grok-build",
    /// `chat_format_version`s this codec reads (0 and 1; 1.0.41 writes 1).
    native_versions: ">=0.0.0, <2.0.0",
    version_shows: NATIVE_VERSION_SOURCE,
    formats: reads(["grok-build-chat-history-jsonl", "grok-build-updates-jsonl"])
        .writes(["grok-build-chat-history-jsonl"]),
    globs: [format!("{}/*/*/{}", layout::SESSIONS, layout::CHAT_HISTORY)],
    reader: read::Reader,
    methods: { discover, inspect, read = read::open, prepare_from_export },
    impl {
        fn write(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
            Ok(Box::new(write::Writer::new(options)?))
        }
    },
}
