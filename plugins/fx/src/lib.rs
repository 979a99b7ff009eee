//! trajhost codec for fx (vercel-labs/fx, checked against 0.0.13 @4d966e27):
//! reads the sessions fx keeps under `~/.fx/sessions/<id>/` and writes
//! canonical sessions back as legacy `session.json` files fx imports on
//! resume.
//!
//! Module map, following fx's own record families:
//! - [`layout`]: paths, session ids, result handles;
//! - [`legacy`]: the schema 1/2 `session.json` snapshot (`HistoryTurn`
//!   kinds, `UserTurn`, `ExecutionMemory`, `ToolCall`,
//!   `PersistedToolResult`);
//! - [`metadata`]: the schema-4 `SessionMetadata` header, and which layout a
//!   `session.json` is;
//! - [`events`]: `ConversationEnvelope` frames of `events.jsonl` and fx's
//!   replay rules;
//! - [`tool_results`]: stored result bodies (`tool-results/<artifact_ref>`);
//! - [`discover`], [`read`], [`write`], [`prepare`].
//!
//! Native version: fx records no application version in a session, so the
//! schema decides: `1`, `2` (legacy), `3` (event_log_v1, listed but not
//! read), `4` (header + events).

pub mod discover;
pub mod events;
pub mod layout;
pub mod legacy;
pub mod metadata;
pub mod prepare;
pub mod read;
pub mod tool_results;
pub mod write;

use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{ArtifactInfo, CodecError, Plan, Sniffed, WriteOptions};

trajhost_codec_sdk::codec_identity! {
    /// The fx codec.
    codec: Fx,
    harness: "fx",
    /// `session.json` schemas this codec knows (the native version is the
    /// schema number): 1 and 2 (legacy), 3 (listed, refused by `read`), 4.
    native_versions: ">=1.0.0, <5.0.0",
    version_shows: "`schema_version` of session.json (fx records no app version)",
    formats: reads(["fx-session-json-legacy", "fx-conversation-v4"]).writes(["fx-session-json-legacy"]),
    globs: [format!("{}/*/{}", layout::SESSIONS, layout::SESSION_JSON)],
    reader: read::Reader,
    methods: { discover, inspect, read, sniff = sniff, writer },
    impl {
        fn prepare(
            artifacts: Vec<ArtifactInfo>,
            export: &Dir,
            target: &Dir,
            options: WriteOptions,
        ) -> Result<Plan, CodecError> {
            let artifacts = trajhost_codec_sdk::load_artifacts(export, &artifacts)?;
            prepare::prepare(artifacts, target, &options, &prepare::target_choice())
        }
    },
}

/// A loose `session.json` of fx: its first key is `schema_version` 1, 2 or
/// 4 (what `read` reads) and the head has fx's own keys. The reader needs the
/// file's name to be `session.json` (a schema-4 header reads its
/// `events.jsonl` beside it).
pub fn sniff(path: &str, head: &[u8]) -> Option<Sniffed> {
    let name = path.rsplit('/').next().unwrap_or(path);
    if name != layout::SESSION_JSON {
        return None;
    }
    let text = std::str::from_utf8(head).ok().or_else(|| {
        let cut = (0..4).map(|k| head.len().saturating_sub(k)).find(|&n| std::str::from_utf8(&head[..n]).is_ok())?;
        std::str::from_utf8(&head[..cut]).ok()
    })?;
    let rest = text.trim_start().strip_prefix('{')?.trim_start().strip_prefix("\"schema_version\"")?;
    let version = rest.trim_start().strip_prefix(':')?.trim_start();
    let version: String = version.chars().take_while(char::is_ascii_digit).collect();
    let fx_keys = match version.as_str() {
        "1" | "2" => text.contains("\"conversation_language\"") && text.contains("\"history"),
        "4" => text.contains("\"origin_workspace_root\"") && text.contains("\"fast_mode\""),
        _ => false,
    };
    if !fx_keys {
        return None;
    }
    let id = text.split_once("\"id\"").and_then(|(_, r)| {
        let r = r.trim_start().strip_prefix(':')?.trim_start().strip_prefix('"')?;
        let id = &r[..r.find('"')?];
        layout::is_session_id(id).then(|| id.to_string())
    });
    Some(Sniffed { native_version: Some(version), native_id: id })
}
