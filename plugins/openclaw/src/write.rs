//! `write`: a canonical session → this codec's export file, the session's
//! transcript as OpenClaw stores it in `transcript_events.event_json`, one
//! Pi-style entry per line:
//!
//! ```text
//! {"type":"session","version":4,"id","timestamp","cwd"}     the header (seq 0)
//! message user / assistant / toolResult, compaction, …      one chain: each entry's parentId is the one before
//! ```
//!
//! OpenClaw's transcript entries are Pi's (`harness-lab.md` §19): the entries
//! are made by the Pi writer (`trajhost-pi-core`, one model response = one
//! assistant message with its text, thinking and `toolCall` blocks; a tool
//! result names its call's tool), with OpenClaw's header version (4). What
//! that writer cannot carry it names in `not-carried` diagnostics (system
//! prompts, image attachments, other harnesses' opaque reasoning,
//! observations, subagent transcripts).
//!
//! The guest cannot build SQLite files: the export is this JSONL file,
//! `discover`/`read` read it back ([`crate::export`]) and `prepare` turns it
//! into rows of the agent database ([`crate::prepare`]).

use std::borrow::Cow;

use serde_json::Value;
use trajhost_codec_sdk::{Artifact, CodecError, WriteOptions, Written};
use trajhost_pi_core::{DirRule, Flavor, PI_ENTRY_TYPES};

use crate::export;

/// The transcript format version OpenClaw 2026.9.6 writes in its header.
pub const TRANSCRIPT_VERSION: u64 = 4;

/// The Pi writer's settings for OpenClaw's entries (Pi's shapes; the
/// harness id decides which values count as OpenClaw's own).
static OPENCLAW_ENTRIES: Flavor = Flavor {
    harness: crate::HARNESS,
    codec: crate::CODEC,
    format: export::FORMAT,
    sessions_dir: export::EXPORT_DIR,
    dir_rule: DirRule::Pi,
    title_slot: false,
    combined_model_change: false,
    user_attribution: false,
    entry_types: PI_ENTRY_TYPES,
    program: "openclaw",
    resume_flag: "--session-id",
    native_versions: crate::NATIVE_VERSIONS,
};

/// Writes `session` (canonical JSON lines) as one export file.
pub fn write(session: &str, options: &WriteOptions) -> Result<Written, CodecError> {
    let session = own_observations(session);
    let written = trajhost_pi_core::write::write(&OPENCLAW_ENTRIES, &session, options)?;
    let Some(file) = written.chunks.into_iter().next() else {
        return Err(CodecError::Other("the entry writer returned no file".into()));
    };
    let mut bytes = Vec::with_capacity(file.bytes.len());
    for (n, line) in file.bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()).enumerate() {
        if n == 0 {
            bytes.extend_from_slice(header_v4(line)?.as_bytes());
        } else {
            bytes.extend_from_slice(line);
        }
        bytes.push(b'\n');
    }
    let path = export::file_path(&written.native_id);
    Ok(Written {
        native_id: written.native_id,
        chunks: vec![Artifact { path, bytes }],
        diagnostics: written.diagnostics,
    })
}

/// OpenClaw's own model and thinking-level changes (a session read from
/// OpenClaw) under the subtypes the entry writer writes back as
/// `model_change` / `thinking_level_change` entries.
fn own_observations(session: &str) -> Cow<'_, str> {
    let from_openclaw = session.lines().find(|l| !l.trim().is_empty()).is_some_and(|l| {
        serde_json::from_str::<Value>(l).is_ok_and(|m| {
            m.get("kind").and_then(Value::as_str) == Some("meta")
                && m.get("harness").and_then(Value::as_str) == Some(crate::HARNESS)
        })
    });
    if !from_openclaw {
        return Cow::Borrowed(session);
    }
    let mut out = String::with_capacity(session.len());
    for line in session.lines() {
        let renamed = serde_json::from_str::<Value>(line).ok().and_then(|mut v| {
            let subtype = match v.get("subtype").and_then(Value::as_str) {
                Some("model-change") => "model_change",
                Some("thinking-level-change") => "thinking_level_change",
                _ => return None,
            };
            (v.get("kind").and_then(Value::as_str) == Some("observation")).then(|| {
                v["subtype"] = Value::from(subtype);
                v.to_string()
            })
        });
        out.push_str(renamed.as_deref().unwrap_or(line));
        out.push('\n');
    }
    Cow::Owned(out)
}

/// The header line with OpenClaw's transcript version.
fn header_v4(line: &[u8]) -> Result<String, CodecError> {
    let mut header: Value = serde_json::from_slice(line)
        .map_err(|e| CodecError::Other(format!("the entry writer's header is not JSON ({e})")))?;
    match header.as_object_mut() {
        Some(map) if map.get("type").and_then(Value::as_str) == Some("session") => {
            map.insert("version".into(), Value::from(TRANSCRIPT_VERSION));
        }
        _ => return Err(CodecError::Other("the entry writer's first line is not a session header".into())),
    }
    Ok(header.to_string())
}
