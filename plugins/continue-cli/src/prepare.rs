//! `prepare`: the plan that installs a written session into a target home.
//!
//! Continue CLI reads a session from `~/.continue/sessions/<sessionId>.json`
//! alone: `cn --resume` takes the most recently modified session file,
//! `cn --fork <sessionId>` copies the history of the session of that id into
//! a new one. The index (`sessions.json`) is what `cn ls` lists. So:
//!
//! - the session file is created (`create-file`); a file of the same id in
//!   the target is refused: a session is never overwritten or merged;
//! - its entry is added to the index (`add-json-entry`, appended to the
//!   array, matched by `sessionId`; the index is created when absent);
//!   existing entries are left as they are;
//! - a working directory given (`options.cwd`) other than the written one
//!   rewrites the document's `workspaceDirectory` and the entry's;
//! - a document without a `user` item is refused: there is nothing to
//!   resume.
//!
//! Model and provider: the CLI's model comes from its `config.yaml`, not
//! from a session: a chosen model is refused (nothing in the command can
//! carry it), and so is a provider. Credentials and config are never
//! written.
//!
//! `resume-command`: `cd <cwd> && HOME=<home> cn --fork <sessionId>` (the
//! session by its id, in any home; `cn --resume` resumes the newest session
//! file, which this one is right after `prepare`).

use serde_json::Value;
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::CreateFile;
use trajhost_codec_sdk::paths::is_uuid;
use trajhost_codec_sdk::writer::install::{self, IndexEntry, ResumeCommand};
use trajhost_codec_sdk::{Artifact, CodecError, Operation, Plan, WriteOptions};

use crate::history::Item;
use crate::layout::{self, INDEX, INDEX_NAME};
use crate::session::Document;

/// Largest artifact accepted.
const MAX_ARTIFACT_BYTES: usize = 512 << 20;

/// The user's choice of model and provider for the target (`--model`,
/// `--provider`), as the SDK gives it.
pub use trajhost_codec_sdk::target::{TargetChoice as Choice, choice as target_choice};

/// The plan for `artifacts` (as `write` made them).
pub fn prepare(
    artifacts: Vec<Artifact>,
    target: &Dir,
    options: &WriteOptions,
    choice: &Choice,
) -> Result<Plan, CodecError> {
    if choice.model.is_some() || choice.provider.is_some() {
        return Err(CodecError::Other(
            "Continue CLI takes its model and provider from its config.yaml (`cn --config`), not from a session: \
             leave --model and --provider out"
                .into(),
        ));
    }
    let mut session = None;
    let mut index = None;
    for artifact in artifacts {
        install::check_size(&artifact, MAX_ARTIFACT_BYTES)?;
        let name = artifact.path.rsplit('/').next().unwrap_or("");
        if name == INDEX_NAME {
            index = Some(artifact);
        } else if layout::is_session_name(name) && session.is_none() {
            session = Some(artifact);
        } else {
            return Err(CodecError::Malformed(format!(
                "artifact {:?} is neither a Continue CLI session document (<sessionId>.json) nor its index entry",
                artifact.path
            )));
        }
    }
    let session =
        session.ok_or_else(|| CodecError::Malformed("the export holds no Continue CLI session document".into()))?;
    let (id, written_cwd, title, items) = {
        let doc = Document::parse(&session.bytes).map_err(|why| {
            CodecError::Malformed(format!("{}: not a Continue CLI session document: {why}", session.path))
        })?;
        let id =
            doc.session_id.clone().filter(|id| is_uuid(id)).ok_or_else(|| {
                CodecError::Malformed(format!("{}: the document names no UUID sessionId", session.path))
            })?;
        let has_user = doc.history.iter().flatten().any(|raw| {
            serde_json::from_str::<Item>(raw.get())
                .ok()
                .and_then(|i| i.message)
                .is_some_and(|m| m.role.as_deref() == Some("user"))
        });
        if !has_user {
            return Err(CodecError::Malformed(format!(
                "{}: no user item; Continue CLI has nothing to resume in such a session",
                session.path
            )));
        }
        (id, doc.cwd(), doc.title.clone(), doc.history.as_ref().map_or(0, Vec::len))
    };
    if session.path.rsplit('/').next() != Some(&format!("{id}{}", layout::JSON)) {
        return Err(CodecError::Malformed(format!(
            "{}: the file is not named <sessionId>.json ({id}.json), as Continue CLI names its session files",
            session.path
        )));
    }
    install::check_requested_id(&id, options)?;
    let cwd = install::resume_cwd(options, written_cwd.as_deref(), "the session names no workspaceDirectory")?;
    let mut bytes = session.bytes;
    if let Some(old) = written_cwd.filter(|old| *old != cwd) {
        bytes = replace_first(&bytes, &cwd_field(&old), &cwd_field(&cwd)).ok_or_else(|| {
            CodecError::Malformed(format!("{}: no `\"workspaceDirectory\": …` key to point at {cwd}", session.path))
        })?;
    }

    let path = layout::session_path(&id);
    if install::exists(target, &path)? {
        return Err(CodecError::Other(format!(
            "~/{path} already exists in the target home: a Continue CLI session is never overwritten or merged"
        )));
    }
    // The entry: the export's (its dateCreated), else one made from the document.
    let mut entry = index
        .and_then(|a| serde_json::from_slice::<Vec<Value>>(&a.bytes).ok())
        .and_then(|entries| entries.into_iter().find(|e| e.get("sessionId").and_then(Value::as_str) == Some(&id)))
        .unwrap_or_else(|| {
            serde_json::json!({
                "sessionId": id,
                "title": title.clone().unwrap_or_else(|| layout::UNTITLED.to_string()),
                "dateCreated": "0",
                "workspaceDirectory": cwd,
                "messageCount": items,
            })
        });
    entry["workspaceDirectory"] = Value::String(cwd.clone());
    let operations = vec![
        Operation::CreateFile(CreateFile { path, bytes }),
        IndexEntry::appended(INDEX, "", Some("sessionId"), &entry).initial(&Value::Array(Vec::new())).operation(),
    ];
    let command = resume_command(&cwd, options.home_path.as_deref(), &id);
    Ok(Plan { native_id: id, operations, resume_command: Some(command) })
}

use trajhost_codec_sdk::fs::Dir;

/// `"workspaceDirectory": "<cwd>"`, as `JSON.stringify(…, null, 2)` writes it.
fn cwd_field(cwd: &str) -> Vec<u8> {
    format!("\"workspaceDirectory\": {}", serde_json::to_string(cwd).unwrap_or_default()).into_bytes()
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

/// `cd <cwd> && HOME=<home> cn --fork <id>`.
pub fn resume_command(cwd: &str, home: Option<&str>, id: &str) -> String {
    ResumeCommand::in_dir(Some(cwd))
        .env("HOME", home.map(|h| h.trim_end_matches('/')))
        .program("cn")
        .arg(&format!("--fork {id}"))
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_replacements() {
        assert_eq!(resume_command("/w p", Some("/h/"), "abc"), "cd '/w p' && HOME=/h cn --fork abc");
        assert_eq!(resume_command("/w", None, "abc"), "cd /w && cn --fork abc");
        assert_eq!(replace_first(b"a-xx-b-xx", b"xx", b"y").unwrap(), b"a-y-b-xx");
    }
}
