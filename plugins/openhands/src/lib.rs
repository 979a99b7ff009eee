//! trajhost codec for the OpenHands CLI (software-agent-sdk conversations):
//! discovers and reads the conversations it keeps under
//! `~/.openhands/conversations/<uuid hex>/` (`base_state.json` plus one JSON
//! file per event under `events/`) into canonical records.
//!
//! The event log is the conversation (every event once, in index order);
//! `base_state.json` gives the workspace (cwd) and, in its `stats`, the
//! token usage of each model response, joined to the events by
//! `llm_response_id`. Times are local without an offset; see [`clock`].
//!
//! Module map: [`layout`], [`clock`], [`store`] (event files,
//! `base_state.json`, discovery facts), [`discover`], [`records`] (event
//! kinds → canonical, [`KNOWN_EVENT_KINDS`]), [`read`].
//!
//! Writing: [`write`] (a canonical session → event files and
//! `base_state.json`, streamed) and [`prepare`] (the install plan, checks
//! of the target's store, the resume command).

pub mod clock;
pub mod discover;
pub mod layout;
pub mod prepare;
pub mod read;
pub mod records;
pub mod store;
pub mod write;

pub use records::{Handling, KNOWN_EVENT_KINDS};

pub const NATIVE_VERSION_SOURCE: &str = "nothing in the store records a version (events carry only `kind` discriminators, base_state.json none); sessions report none and the range names the OpenHands CLI 1.x releases (software-agent-sdk 1.x) this layout comes from";

trajhost_codec_sdk::codec_identity! {
    codec: OpenHands,
    harness: "openhands",
    /// OpenHands CLI releases (software-agent-sdk 1.x) whose conversations this
    /// codec reads; the store itself records no version.
    native_versions: ">=1.0.0, <2.0.0",
    version_shows: NATIVE_VERSION_SOURCE,
    formats: reads(["openhands-event-json"]).writes([write::FORMAT]),
    globs: [format!("{}/*/{}", layout::CONVERSATIONS, layout::BASE_STATE)],
    reader: read::Reader,
    methods: { discover, inspect, read, writer, prepare_from_export_with_choice },
}
