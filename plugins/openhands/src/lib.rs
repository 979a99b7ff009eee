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

use trajhost_codec_sdk::canonical::SCHEMA;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{
    ArtifactInfo, Codec, CodecError, CodecInfo, Discovery, Plan, ReadOptions, SessionRef, SessionWriter, WriteOptions,
};

pub use records::{Handling, KNOWN_EVENT_KINDS};

pub const HARNESS: &str = "openhands";
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
pub const CODEC: &str = concat!("openhands@", env!("CARGO_PKG_VERSION"));
/// OpenHands CLI releases (software-agent-sdk 1.x) whose conversations this
/// codec reads; the store itself records no version.
pub const NATIVE_VERSIONS: &str = ">=1.0.0, <2.0.0";
pub const NATIVE_VERSION_SOURCE: &str = "nothing in the store records a version (events carry only `kind` discriminators, base_state.json none); sessions report none and the range names the OpenHands CLI 1.x releases (software-agent-sdk 1.x) this layout comes from";

pub struct OpenHands;

impl Codec for OpenHands {
    type Reader = read::Reader;

    fn info() -> CodecInfo {
        CodecInfo {
            harness: HARNESS.into(),
            codec_version: VERSION.into(),
            native_versions: NATIVE_VERSIONS.into(),
            native_version_source: NATIVE_VERSION_SOURCE.into(),
            reads: vec!["openhands-event-json".into()],
            writes: vec![write::FORMAT.into()],
            session_globs: vec![format!("{}/*/{}", layout::CONVERSATIONS, layout::BASE_STATE)],
            canonical_schema: SCHEMA.into(),
        }
    }

    fn discover(home: &Dir) -> Result<Discovery, CodecError> {
        discover::discover(home)
    }

    fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
        discover::inspect(home, locator)
    }

    fn read(home: Dir, locator: &str, options: ReadOptions) -> Result<read::Reader, CodecError> {
        read::Reader::open(home, locator, &options)
    }

    fn write(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
        Ok(Box::new(write::Writer::new(options)))
    }

    fn prepare(
        artifacts: Vec<ArtifactInfo>,
        export: &Dir,
        target: &Dir,
        options: WriteOptions,
    ) -> Result<Plan, CodecError> {
        // Asked first, so a choice is never ignored.
        let choice = prepare::target_choice();
        prepare::prepare(artifacts, export, target, &options, &choice)
    }
}

trajhost_codec_sdk::export_codec!(OpenHands);
