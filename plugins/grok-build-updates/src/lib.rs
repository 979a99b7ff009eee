//! trajhost codec for Grok Build sessions that hold only the ACP journal:
//! `~/.grok/sessions/<percent-encoded cwd>/<uuidv7>/{updates.jsonl,
//! summary.json}` without `chat_history.jsonl` (what `/resume` and the
//! session list read; sessions written by other tools, and some captured
//! from grok 0.2.x, have nothing else).
//!
//! The main `grok-build` codec reads the model context (`chat_history.jsonl`)
//! and takes only times and outcomes from this journal; here the journal is
//! the conversation, rebuilt from its streamed chunks.
//!
//! Module map: [`layout`], [`summary`], [`discover`], [`updates`] (the
//! `sessionUpdate` kinds → canonical, [`KNOWN_UPDATE_TYPES`]), [`read`],
//! [`sniff`].
//!
//! Writing (`write`, `prepare`) is not implemented.

pub mod discover;
pub mod layout;
pub mod read;
pub mod sniff;
pub mod updates;

pub use trajhost_grok_build_core::summary;

pub use trajhost_codec_sdk::known::Handling;
pub use updates::KNOWN_UPDATE_TYPES;

pub const NATIVE_VERSION_SOURCE: &str =
    "`chat_format_version` of summary.json (Grok Build records no CLI version in a session)";

trajhost_codec_sdk::codec_identity! {
    codec: GrokBuildUpdates,
    harness: "grok-build",
    /// `chat_format_version`s of the sessions this layout holds (the journal's
    /// shape did not change with them).
    native_versions: ">=0.0.0, <2.0.0",
    version_shows: NATIVE_VERSION_SOURCE,
    formats: reads(["grok-build-updates-jsonl"]),
    globs: [format!("{}/*/*/{}", layout::SESSIONS, layout::UPDATES)],
    reader: read::Reader,
    methods: { discover, inspect, read = read::open, sniff },
}
