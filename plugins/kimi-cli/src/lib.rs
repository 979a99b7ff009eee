//! trajhost codec for Kimi CLI: discovers and reads the sessions Kimi CLI
//! keeps under `~/.kimi/sessions/<md5(work dir)>/<uuid>/` into canonical
//! records.
//!
//! `context.jsonl` (what the model saw) is the conversation; `wire.jsonl`
//! (the event log, which repeats the same content) is used only for what the
//! context lacks: times, usage, provider message ids, tool failures and the
//! binding of subagents to their parent tool call. Subagents
//! (`subagents/<agent_id>/`) are read after the session, each with its own
//! `meta`, and kept out of the parent's records.
//!
//! Module map:
//! - [`layout`]: where sessions, rotations and subagents live;
//! - [`discover`]: `discover` and `inspect`;
//! - [`wire`]: the wire index (and the head scan discovery uses);
//! - [`records`]: context roles and wire types → canonical records,
//!   [`KNOWN_CONTEXT_ROLES`] and [`KNOWN_WIRE_TYPES`];
//! - [`dedup`]: lines a rotated context carries over;
//! - [`read`]: the batch reader; [`store`]: `kimi.json`, `state.json`,
//!   `meta.json`;
//! - [`write`]: canonical records → a session folder (streaming);
//!   [`prepare`]: the install plan (session folder + `kimi.json` entry).

pub mod dedup;
pub mod discover;
pub mod layout;
pub mod prepare;
pub mod read;
pub mod records;
pub mod store;
pub mod wire;
pub mod write;

use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{ArtifactInfo, CodecError, Plan, SessionWriter, WriteOptions};

pub use records::{Handling, KNOWN_CONTEXT_ROLES, KNOWN_WIRE_TYPES};

pub const NATIVE_VERSION_SOURCE: &str = "`protocol_version` of the `metadata` line that opens wire.jsonl (the wire protocol version; Kimi CLI records no CLI version in a session)";

trajhost_codec_sdk::codec_identity! {
    codec: KimiCli,
    harness: "kimi-cli",
    /// Wire protocol versions this codec reads (Kimi CLI records no CLI version
    /// in a session; 1.51.0 writes protocol 1.10, the oldest wires 1.1).
    native_versions: ">=1.0.0, <2.0.0",
    version_shows: NATIVE_VERSION_SOURCE,
    formats: reads(["kimi-cli-context-jsonl", "kimi-cli-wire-jsonl"])
        .writes(["kimi-cli-context-jsonl", "kimi-cli-wire-jsonl"]),
    globs: [format!("{}/*/*/{}", layout::SESSIONS, layout::CONTEXT)],
    reader: read::Reader,
    methods: { discover, inspect, read },
    impl {
        fn write(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
            Ok(write::writer(options))
        }

        fn prepare(
            artifacts: Vec<ArtifactInfo>,
            _export: &Dir,
            target: &Dir,
            options: WriteOptions,
        ) -> Result<Plan, CodecError> {
            // Asked first, so a choice reaches this codec even when the plan is refused.
            let choice = prepare::target_choice();
            prepare::prepare(artifacts, target, &options, &choice)
        }
    },
}
