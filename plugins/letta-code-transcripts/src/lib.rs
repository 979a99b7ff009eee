//! trajhost codec for Letta Code's reflection transcripts: with the default
//! (API) backend the conversation itself lives on the Letta server, and the
//! client keeps only these lossy per-conversation summaries for memory
//! reflection, at `~/.letta/transcripts/<agent id>/<conversation id>/`
//! (`LETTA_TRANSCRIPT_ROOT`): `transcript.jsonl` (one `TranscriptEntry` a
//! line, appended per completed step) and `state.json` (reflection
//! progress).
//!
//! This is another layout of the `letta-code` harness than the local
//! backend the main codec reads (`0.1.0`), so it is its own codec,
//! `0.1.0-transcripts`. Module map: [`layout`], [`discover`], [`entries`]
//! (entry kinds → canonical, [`KNOWN_KINDS`]), [`read`], [`sniff`].
//!
//! **Source spans.** Every record carries its line's span in
//! `transcript.jsonl`; `meta` offset 0, length 0.
//!
//! **Ids.** The byte location of the line (`records::location_id`),
//! `#1` for a tool call's result; `source_line_id` "may be synthetic"
//! upstream and is kept as the tool call id only. `meta`: the conversation
//! id (the folder name).
//!
//! **Versions.** The transcript records no Letta Code version; the range
//! is wide and the layout decides. Writing is not implemented.

pub mod discover;
pub mod entries;
pub mod layout;
pub mod read;
pub mod sniff;

pub use entries::{Handling, KNOWN_KINDS};

trajhost_codec_sdk::codec_identity! {
    codec: LettaCodeTranscripts,
    harness: "letta-code",
    /// Letta Code versions that write reflection transcripts (the file carries
    /// no version; every 0.x release is covered).
    native_versions: ">=0.0.0, <1.0.0",
    version_shows: "none: reflection transcripts record no Letta Code version",
    formats: reads(["letta-code-reflection-transcript-jsonl"]),
    globs: [layout::SESSION_GLOB],
    reader: read::Reader,
    methods: { discover, inspect, read, sniff },
}
