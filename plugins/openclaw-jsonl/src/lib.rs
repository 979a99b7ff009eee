//! trajhost codec for OpenClaw's legacy JSONL transcripts: the files
//! OpenClaw (and, before the renames, Clawdbot and Moltbot) wrote before its
//! SQLite store (2026.8) — `~/.openclaw/agents/<agent>/sessions/*.jsonl`
//! with their `sessions.json` index, the same under `~/.clawdbot` and
//! `~/.moltbot`, and early Clawdbot's flat `~/.clawdbot/sessions/`.
//!
//! Module map, following the native layout:
//! - [`layout`]: state directories, sessions folders, what each file name
//!   means (transcript, archive, checkpoint copy, index), locators;
//! - [`index`]: `sessions.json` (titles, last-update times);
//! - [`head`]: the header line and first prompt of a transcript;
//! - [`discover`]: `discover` and `inspect`;
//! - [`read`]: the two-pass reader over the active branch. The entries are
//!   the Pi-style entries the SQLite store holds too, mapped by the shared
//!   `trajhost-openclaw-core`.
//!
//! **Source spans.** Each record points at its whole line (`offset`, `len`
//! with the `\n`); `meta` at the header line.
//!
//! **Ids.** `meta`: the session id (the header's, else the file name's). An
//! entry's records: the entry `id` (`#n` for further records of the entry);
//! tool calls keep their native call id; lines without an id get their byte
//! location.
//!
//! **Versions.** OpenClaw wrote no version of its own into transcripts (the
//! header's `version` is Pi's session format version), so sessions carry
//! none and this layout decides; the range names the releases that wrote it.
//!
//! Writing is not implemented (`writes: []`): OpenClaw no longer reads this
//! layout except through `openclaw doctor --session-sqlite import`.

pub mod discover;
pub mod head;
pub mod index;
pub mod layout;
pub mod read;

use trajhost_codec_sdk::Sniffed;

pub use trajhost_openclaw_core::{Handling, KNOWN_ENTRY_TYPES, KNOWN_MESSAGE_ROLES};

trajhost_codec_sdk::codec_identity! {
    /// The OpenClaw JSONL codec.
    codec: OpenClawJsonl,
    harness: "openclaw",
    /// Releases that wrote JSONL transcripts: Clawdbot's first ones (2025) up
    /// to the switch to SQLite (shipped around 2026.8; later releases keep only
    /// archives in this layout).
    native_versions: ">=2025.1.0, <2026.9.0",
    version_shows: "none recorded in transcripts (the header's `version` is Pi's format version): \
                 the layout decides",
    formats: reads(["openclaw-session-jsonl"]),
    globs: layout::session_globs(),
    reader: read::Reader,
    methods: { discover, inspect, read, sniff = sniff },
}

/// A loose transcript is OpenClaw's when its path still says so (a state
/// directory's name) and its first line is a `session` header or a bare
/// message: Pi writes the same entries, so content alone cannot tell them
/// apart.
pub fn sniff(path: &str, head: &[u8]) -> Option<Sniffed> {
    let says_openclaw = path
        .split(['/', '\\'])
        .any(|c| layout::STATE_DIRS.contains(&c) || matches!(c, "openclaw" | "clawdbot" | "moltbot"));
    if !says_openclaw {
        return None;
    }
    let first = head.split(|b| *b == b'\n').find(|l| !l.iter().all(u8::is_ascii_whitespace))?;
    let v: serde_json::Value = serde_json::from_slice(first).ok()?;
    let kind = v.get("type").and_then(serde_json::Value::as_str);
    let native_id = match kind {
        Some("session") => v.get("id").and_then(serde_json::Value::as_str).map(str::to_string),
        None if v.get("role").and_then(serde_json::Value::as_str).is_some() => None,
        _ => return None,
    };
    Some(Sniffed { native_version: None, native_id })
}
