//! `prepare`: the plan that installs a written session into a target home.
//!
//! Auggie reads a session from `~/.augment/sessions/<sessionId>.json` alone:
//! `auggie --resume <sessionId>` loads that file and sends its exchanges as
//! the next request's `chat_history`. So:
//!
//! - the session file is created (`create-file`); a file of the same id in
//!   the target is refused: a session is never overwritten or merged;
//! - a working directory given (`options.cwd`) other than the written one
//!   rewrites the IDE-state nodes' workspace folders;
//! - a document without a prompt is refused: there is nothing to resume.
//!
//! Nothing else is needed: `.auggie.json` (usage counters) and the task list
//! a session's `rootTaskUuid` names are made by the CLI when missing.
//! Credentials (`~/.augment/session.json`) are never written.
//!
//! Model and provider: a session does not choose its model (`agentState.
//! modelId` stays "", the tenant's default); a chosen model (`--model`)
//! goes into the command as `-m`. The provider is the tenant's: one given is
//! refused.
//!
//! `resume-command`: `cd <cwd> && HOME=<home> auggie [-m <model>] --resume
//! <sessionId>`.

use serde_json::Value;
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::CreateFile;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::paths::is_uuid;
use trajhost_codec_sdk::writer::install::{self, ResumeCommand};
use trajhost_codec_sdk::writer::json_document;
use trajhost_codec_sdk::{Artifact, CodecError, Operation, Plan, WriteOptions};

use crate::exchange::Entry;
use crate::layout;
use crate::session::Document;

/// The user's choice of model and provider for the target (`--model`,
/// `--provider`), as the SDK gives it.
pub use trajhost_codec_sdk::target::{TargetChoice as Choice, choice as target_choice};

/// Largest artifact accepted.
const MAX_ARTIFACT_BYTES: usize = 512 << 20;

/// The plan for `artifacts` (as `write` made them).
pub fn prepare(
    artifacts: Vec<Artifact>,
    target: &Dir,
    options: &WriteOptions,
    choice: &Choice,
) -> Result<Plan, CodecError> {
    if choice.provider.is_some() {
        return Err(CodecError::Other(
            "Auggie's provider is its Augment tenant, not a setting of a session: leave --provider out".into(),
        ));
    }
    let mut session = None;
    for artifact in artifacts {
        install::check_size(&artifact, MAX_ARTIFACT_BYTES)?;
        let name = artifact.path.rsplit('/').next().unwrap_or("");
        if layout::is_session_name(name) && session.is_none() {
            session = Some(artifact);
        } else {
            return Err(CodecError::Malformed(format!(
                "artifact {:?} is not an Auggie session document (<sessionId>.json), or a second one",
                artifact.path
            )));
        }
    }
    let session = session.ok_or_else(|| CodecError::Malformed("the export holds no Auggie session document".into()))?;
    let (id, written_cwd) = {
        let doc = Document::parse(&session.bytes)
            .map_err(|why| CodecError::Malformed(format!("{}: not an Auggie session document: {why}", session.path)))?;
        let id =
            doc.session_id.clone().filter(|id| is_uuid(id)).ok_or_else(|| {
                CodecError::Malformed(format!("{}: the document names no UUID sessionId", session.path))
            })?;
        let has_prompt = doc.chat_history.iter().flatten().any(|raw| {
            serde_json::from_str::<Entry>(raw.get())
                .ok()
                .and_then(|e| e.exchange)
                .is_some_and(|x| !x.prompt().is_empty())
        });
        if !has_prompt {
            return Err(CodecError::Malformed(format!(
                "{}: no exchange holds a prompt; Auggie has nothing to resume in such a session",
                session.path
            )));
        }
        (id, doc.cwd())
    };
    if session.path.rsplit('/').next() != Some(&format!("{id}{}", layout::JSON)) {
        return Err(CodecError::Malformed(format!(
            "{}: the file is not named <sessionId>.json ({id}.json), as Auggie names its session files",
            session.path
        )));
    }
    install::check_requested_id(&id, options)?;
    let cwd = install::resume_cwd(options, written_cwd.as_deref(), "the session names no workspace folder")?;
    let mut bytes = session.bytes;
    if written_cwd.as_deref() != Some(cwd.as_str()) {
        bytes = with_cwd(&bytes, &cwd).map_err(|e| CodecError::Malformed(format!("{}: {e}", session.path)))?;
    }
    let path = layout::session_path(&id);
    if install::exists(target, &path)? {
        return Err(CodecError::Other(format!(
            "~/{path} already exists in the target home: an Auggie session is never overwritten or merged"
        )));
    }
    let operations = vec![Operation::CreateFile(CreateFile { path, bytes })];
    let model = choice.model.as_deref().filter(|m| !m.is_empty());
    let command = resume_command(&cwd, options.home_path.as_deref(), model, &id);
    Ok(Plan { native_id: id, operations, resume_command: Some(command) })
}

/// The document with every IDE-state node's folders and terminal at `cwd`.
fn with_cwd(bytes: &[u8], cwd: &str) -> Result<Vec<u8>, String> {
    let mut doc: Value = serde_json::from_slice(bytes).map_err(|e| format!("not JSON ({e})"))?;
    let entries = doc.get_mut("chatHistory").and_then(Value::as_array_mut).ok_or("no `chatHistory` array")?;
    for entry in entries {
        let nodes = entry.pointer_mut("/exchange/request_nodes").and_then(Value::as_array_mut);
        for node in nodes.into_iter().flatten() {
            let Some(state) = node.get_mut("ide_state_node").and_then(Value::as_object_mut) else { continue };
            state.insert("workspace_folders".into(), serde_json::json!([{"repository_root": cwd, "folder_root": cwd}]));
            if let Some(terminal) = state.get_mut("current_terminal").and_then(Value::as_object_mut) {
                terminal.insert("current_working_directory".into(), Value::String(cwd.to_string()));
            }
        }
    }
    json_document(&doc).map_err(|e| e.to_string())
}

/// `cd <cwd> && HOME=<home> auggie [-m <model>] --resume <id>`.
pub fn resume_command(cwd: &str, home: Option<&str>, model: Option<&str>, id: &str) -> String {
    ResumeCommand::in_dir(Some(cwd))
        .env("HOME", home.map(|h| h.trim_end_matches('/')))
        .program("auggie")
        .option("-m", model)
        .arg(&format!("--resume {id}"))
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert_eq!(resume_command("/w p", Some("/h/"), None, "abc"), "cd '/w p' && HOME=/h auggie --resume abc");
        assert_eq!(resume_command("/w", None, Some("opus"), "abc"), "cd /w && auggie -m opus --resume abc");
    }
}
