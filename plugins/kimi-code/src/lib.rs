//! trajhost codec for Kimi Code, the successor of Kimi CLI (harness
//! `kimi-cli`): discovers and reads the sessions it keeps under
//! `~/.kimi-code/sessions/wd_<slug>_<hash>/session_<uuid>/` into canonical
//! records.
//!
//! Kimi Code keeps one op journal per agent, `agents/<id>/wire.jsonl`: a
//! `metadata` line, then ops tagged by `type` (`turn.prompt`,
//! `context.append_message`, `context.append_loop_event`, …). The context
//! ops are the conversation; the turn and UI ops around them repeat it or
//! describe state. `state.json` names the work dir, the title, the times and
//! the agents (the main one and each subagent with its parent). Every agent
//! is a session of its own; a subagent's `meta` names its parent session.
//!
//! Module map: [`layout`], [`state`], [`discover`] (and the head scan),
//! [`journal`] (op types → canonical, [`KNOWN_OP_TYPES`]), [`loop_event`]
//! (the agent loop's events, [`KNOWN_LOOP_EVENTS`]), [`read`], [`sniff`].
//!
//! Writing (`write`, `prepare`) is not implemented.

pub mod discover;
pub mod journal;
pub mod layout;
pub mod loop_event;
pub mod read;
pub mod sniff;
pub mod state;

pub use journal::KNOWN_OP_TYPES;
pub use loop_event::KNOWN_LOOP_EVENTS;
pub use trajhost_codec_sdk::known::Handling;

pub const NATIVE_VERSION_SOURCE: &str = "`protocol_version` of the `metadata` line that opens an agent's wire.jsonl (Kimi Code's op journal protocol; no CLI version is recorded)";

trajhost_codec_sdk::codec_identity! {
    codec: KimiCode,
    harness: "kimi-cli",
    /// Journal protocol versions this codec reads (Kimi Code 0.29.1 writes 1.4;
    /// it records no CLI version in a session).
    native_versions: ">=1.0.0, <2.0.0",
    version_shows: NATIVE_VERSION_SOURCE,
    formats: reads(["kimi-code-wire-jsonl"]),
    globs: [format!("{}/*/*/{}/*/{}", layout::SESSIONS, layout::AGENTS, layout::WIRE)],
    reader: read::Reader,
    methods: { discover, inspect, read = read::open, read_from = read::resume, sniff },
}
