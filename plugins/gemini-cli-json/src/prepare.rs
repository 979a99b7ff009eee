//! `prepare`: the plan that installs a written single-JSON session into a
//! target home.
//!
//! Gemini CLI 0.2x finds a project's sessions in
//! `~/.gemini/tmp/<sha256(cwd)>/chats/session-*.json` and nowhere else (no
//! registry, no `.project_root`), and `--resume <id>` picks one by its
//! `sessionId`. So:
//!
//! - the working directory is `options.cwd`, else the one `write` recorded
//!   (the export's `.project_root`); a cwd that differs from the written one
//!   rewrites the document's `projectHash` and nothing else;
//! - the session file is created in `tmp/<sha256(cwd)>/chats/`: one
//!   `create-file`, nothing else is added or changed (the export's
//!   `.project_root` is not installed: 0.2x keeps none);
//! - a home whose project registry (`~/.gemini/projects.json`, Gemini CLI
//!   0.29–0.38, still single-JSON files) maps the cwd to a slug directory
//!   already in use gets the file in `tmp/<slug>/chats/` instead: those
//!   builds copy a hash directory into the slug only while the slug holds
//!   nothing but its `.project_root`;
//! - a home holding Gemini CLI's JSONL layout (any `chats/*.jsonl`: 0.39
//!   and later) is refused, naming the file and the codec that writes that
//!   layout (`gemini-cli@0.1.0`); so is a registry that does not parse;
//! - a session file of the same short id in the chats directory (what
//!   `--resume` would confuse) is refused: nothing is overwritten or merged;
//! - a document without a `user` or `gemini` message is refused: Gemini CLI
//!   does not list such a session.
//!
//! Model and provider: as the JSONL codec, a chosen model goes into the
//! resume command (`-m`), a provider other than `google`/`gemini` is
//! refused. Credentials and settings are never written.
//!
//! `resume-command`: `cd <cwd> && GEMINI_CLI_HOME=<home> gemini [-m M]
//! --resume <sessionId>` (Gemini CLI 0.18 and later take a session id;
//! `--resume latest` picks the newest `startTime` of the project instead).

use std::collections::BTreeMap;

use serde::Deserialize;
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::CreateFile;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::paths::{is_uuid, plain_name};
use trajhost_codec_sdk::writer::install::list;
use trajhost_codec_sdk::{Artifact, CodecError, Operation, Plan, WriteOptions};
pub use trajhost_gemini_cli_core::install::{PROVIDERS, resume_command};
use trajhost_gemini_cli_core::install::{check_choice, check_session_id, session_and_marker, session_cwd};

use crate::conversation::Document;
use crate::layout::{self, CHATS, JSON, PROJECT_ROOT_FILE, PROJECTS_JSON, SESSION_PREFIX, TMP_ROOT};
use crate::write::project_hash;

/// The codec that writes Gemini CLI's JSONL layout (0.39 and later).
pub const JSONL_CODEC: &str = "gemini-cli@0.1.0";
/// Extension of the JSONL layout's session files.
const JSONL: &str = ".jsonl";
/// Largest registry read.
const MAX_SMALL_FILE: u64 = 4 << 20;

/// The user's choice of model and provider for the target (`--model`,
/// `--provider`; API 0.2.1), as the SDK gives it.
pub use trajhost_codec_sdk::target::{TargetChoice as Choice, choice as target_choice};

/// The plan for `artifacts` (as `write` made them).
pub fn prepare(
    artifacts: Vec<Artifact>,
    target: &Dir,
    options: &WriteOptions,
    choice: &Choice,
) -> Result<Plan, CodecError> {
    check_choice(choice)?;
    let (session, marker) =
        session_and_marker(artifacts, layout::is_session_name, "session document (session-*.json)")?;
    let file_name = session.path.rsplit('/').next().unwrap_or("").to_string();

    let (id, written_hash) = {
        let doc = Document::parse(&session.bytes).map_err(|why| {
            CodecError::Malformed(format!("{}: not a Gemini CLI session document: {why}", session.path))
        })?;
        let id =
            doc.session_id.clone().filter(|id| is_uuid(id)).ok_or_else(|| {
                CodecError::Malformed(format!("{}: the document names no UUID sessionId", session.path))
            })?;
        if !doc.messages.iter().flatten().any(|raw| is_conversation(raw.get())) {
            return Err(CodecError::Malformed(format!(
                "{}: no user or gemini message; Gemini CLI does not list or resume such a session",
                session.path
            )));
        }
        (id, doc.project_hash.clone())
    };
    check_session_id(&session, &id, JSON, "as Gemini CLI names its session files", options)?;
    let short: String = id.chars().take(8).collect();
    let cwd = session_cwd(options, marker.as_ref())?;

    // The document's projectHash follows the cwd.
    let hash = project_hash(&cwd);
    let mut bytes = session.bytes;
    if let Some(old) = written_hash.filter(|old| *old != hash) {
        bytes = replace_first(&bytes, &project_hash_field(&old), &project_hash_field(&hash)).ok_or_else(|| {
            CodecError::Malformed(format!("{}: no `\"projectHash\": …` key to point at {cwd}", session.path))
        })?;
    }

    refuse_jsonl_layout(target)?;
    let hash_dir = layout::join(TMP_ROOT, &hash);
    let project_dir = match registered_slug(target, &cwd)? {
        Some(slug) if in_use(target, &layout::join(TMP_ROOT, &slug))? => layout::join(TMP_ROOT, &slug),
        _ => hash_dir.clone(),
    };
    let chats = layout::join(&project_dir, CHATS);
    for dir in [chats.clone(), layout::join(&hash_dir, CHATS)] {
        refuse_clash(target, &dir, &short)?;
    }
    let operations = vec![Operation::CreateFile(CreateFile { path: layout::join(&chats, &file_name), bytes })];
    let command = resume_command(&cwd, options.home_path.as_deref(), choice.model.as_deref(), &id);
    Ok(Plan { native_id: id, operations, resume_command: Some(command) })
}

/// Whether a raw message is one Gemini CLI counts as conversation.
fn is_conversation(raw: &str) -> bool {
    #[derive(Deserialize)]
    struct Kind<'a> {
        #[serde(rename = "type", borrow)]
        kind: Option<&'a str>,
    }
    serde_json::from_str::<Kind>(raw).is_ok_and(|k| matches!(k.kind, Some("user" | "gemini")))
}

/// `"projectHash": "<hash>"`, as `JSON.stringify(…, null, 2)` writes it.
fn project_hash_field(hash: &str) -> Vec<u8> {
    format!("\"projectHash\": {}", serde_json::to_string(hash).unwrap_or_default()).into_bytes()
}

/// Fails when any project of the home keeps JSONL session files: that home
/// is used by Gemini CLI 0.39 or later, which another codec writes for.
fn refuse_jsonl_layout(target: &Dir) -> Result<(), CodecError> {
    let Some(mut projects) = list(target, TMP_ROOT)? else { return Ok(()) };
    projects.sort_by(|a, b| a.name.cmp(&b.name));
    for project in projects.iter().filter(|e| e.is_dir() && plain_name(&e.name)) {
        let chats = layout::join(&layout::join(TMP_ROOT, &project.name), CHATS);
        let Some(mut entries) = list(target, &chats)? else { continue };
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        if let Some(jsonl) = entries.iter().find(|e| e.is_file() && e.name.ends_with(JSONL)) {
            return Err(CodecError::Other(format!(
                "~/{chats}/{} in the target home is a session in Gemini CLI's JSONL layout (0.39 and later), which \
                 this writer ({}: single-JSON session files for Gemini CLI before 0.39) does not write: the {JSONL_CODEC} \
                 codec writes it (prepare with --codec {JSONL_CODEC}, or --target-version <the Gemini CLI version \
                 that home runs>); nothing was changed",
                jsonl.name,
                crate::CODEC
            )));
        }
    }
    Ok(())
}

/// The registry's slug for `cwd` (Gemini CLI 0.29–0.38 homes), if any.
fn registered_slug(target: &Dir, cwd: &str) -> Result<Option<String>, CodecError> {
    #[derive(Deserialize)]
    struct Registry {
        projects: BTreeMap<String, String>,
    }
    let registry = match target.read_to_end(PROJECTS_JSON, MAX_SMALL_FILE) {
        Ok(bytes) => serde_json::from_slice::<Registry>(&bytes).map_err(|e| {
            CodecError::Malformed(format!(
                "~/{PROJECTS_JSON} in the target home is not a Gemini CLI project registry ({e}), so where Gemini \
                 CLI keeps this project's sessions is unknown; nothing was changed"
            ))
        })?,
        Err(FsError::NotFound(_)) => return Ok(None),
        Err(e) => return Err(CodecError::Io(format!("reading ~/{PROJECTS_JSON}: {e:?}"))),
    };
    Ok(registry.projects.get(cwd).filter(|slug| plain_name(slug)).cloned())
}

/// Whether a project directory holds anything but its `.project_root`.
fn in_use(target: &Dir, dir: &str) -> Result<bool, CodecError> {
    Ok(list(target, dir)?.is_some_and(|entries| entries.iter().any(|e| e.name != PROJECT_ROOT_FILE)))
}

/// Refuses a session file of the same short id in `chats`.
fn refuse_clash(target: &Dir, chats: &str, short: &str) -> Result<(), CodecError> {
    let Some(entries) = list(target, chats)? else { return Ok(()) };
    let clash = entries.iter().find(|e| {
        e.name.starts_with(SESSION_PREFIX)
            && (e.name.ends_with(&format!("-{short}{JSON}")) || e.name.ends_with(&format!("-{short}{JSONL}")))
    });
    match clash {
        Some(clash) => Err(CodecError::Other(format!(
            "~/{chats}/{} already exists in the target home with this session's short id {short}: a Gemini CLI \
             session is never overwritten or merged",
            clash.name
        ))),
        None => Ok(()),
    }
}

/// `haystack` with the first `from` replaced by `to`; `None` without one.
fn replace_first(haystack: &[u8], from: &[u8], to: &[u8]) -> Option<Vec<u8>> {
    let at = haystack.windows(from.len()).position(|w| w == from)?;
    let mut out = Vec::with_capacity(haystack.len() - from.len() + to.len());
    out.extend_from_slice(&haystack[..at]);
    out.extend_from_slice(to);
    out.extend_from_slice(&haystack[at + from.len()..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_replacements() {
        assert_eq!(replace_first(b"a-xx-b-xx", b"xx", b"y").unwrap(), b"a-y-b-xx");
        assert!(replace_first(b"abc", b"x", b"y").is_none());
        assert!(is_conversation(r#"{"id":"1","type":"gemini","content":""}"#));
        assert!(!is_conversation(r#"{"id":"1","type":"info","content":"x"}"#));
    }
}
