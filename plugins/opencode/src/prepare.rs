//! `prepare`: one `create-file` of the import document at
//! `.local/share/trajhost/opencode-import/<session id>.json`, and the
//! command that imports it and resumes the session:
//! `cd <cwd> && opencode import <file> && opencode --session <id>`.
//! `opencode import` writes the `session`, `message` and `part` rows itself
//! (assigning the project and directory of the cwd it runs in), creating
//! and migrating the database first when the home has none.
//!
//! When the target already has a database, it is checked (read-only) for a
//! session with the same id: a second import would overwrite the session's
//! project and directory and keep the old messages, so the plan refuses.
//!
//! The model: OpenCode continues a session with the model of its last user
//! message, and fails ("Unexpected server error") when that names a provider
//! it does not know — which a converted session's messages do (canonical
//! records carry no provider: `write` says `unknown`). So when the target has
//! a default model (`model` in `.config/opencode/opencode.json`), the user
//! messages are set to it; otherwise the resume command passes
//! `-m <provider>/<model>` for the user to fill in. Observed with OpenCode
//! 1.18.33: `providerID: "unknown"` → the resume fails; the configured
//! provider → it resumes with the history; no `model` → `import` refuses.

use serde_json::Value;
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::CreateFile;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::shell::shell_quote;
use trajhost_codec_sdk::sqlite::{Database, Value as Sql};
use trajhost_codec_sdk::writer::install;
use trajhost_codec_sdk::{Artifact, CodecError, Operation, Plan, WriteOptions};

use crate::layout::{DB, IMPORT_DIR};
use crate::store::{self, sqlite_error};

/// Largest document accepted.
const MAX_ARTIFACT_BYTES: usize = 512 << 20;

pub fn prepare(artifacts: Vec<Artifact>, target: &Dir, options: &WriteOptions) -> Result<Plan, CodecError> {
    let prefix = format!("{IMPORT_DIR}/");
    let mut docs = artifacts.into_iter().filter(|a| a.path.starts_with(&prefix) && a.path.ends_with(".json"));
    let (Some(artifact), None) = (docs.next(), docs.next()) else {
        return Err(CodecError::Malformed(format!("expected exactly one import document under {IMPORT_DIR}/")));
    };
    install::check_size(&artifact, MAX_ARTIFACT_BYTES)?;
    let doc: Value = serde_json::from_slice(&artifact.bytes)
        .map_err(|e| CodecError::Malformed(format!("{}: not JSON ({e})", artifact.path)))?;
    let id = doc
        .pointer("/info/id")
        .and_then(Value::as_str)
        .filter(|id| id.starts_with("ses_"))
        .ok_or_else(|| CodecError::Malformed(format!("{}: no info.id (ses_…)", artifact.path)))?
        .to_string();
    if !doc.get("messages").is_some_and(Value::is_array) {
        return Err(CodecError::Malformed(format!("{}: no messages array", artifact.path)));
    }
    if let Some(want) = options.native_id.as_deref()
        && want != id
    {
        return Err(CodecError::Malformed(format!(
            "{}: info.id {id} is not the requested native id {want}",
            artifact.path
        )));
    }
    let path = format!("{IMPORT_DIR}/{id}.json");
    if path != artifact.path {
        return Err(CodecError::Malformed(format!("{}: the file name does not match info.id {id}", artifact.path)));
    }
    if install::exists(target, &path)? {
        return Err(CodecError::Other(format!("{path} already exists; trajhost never overwrites a session")));
    }
    match target.stat(DB) {
        Ok(_) => {
            let db = Database::open(target, DB).map_err(|e| sqlite_error(DB, e))?;
            store::check(&db, DB)?;
            let rows = db
                .query("SELECT 1 FROM session WHERE id = ?", &[Sql::Text(id.clone())])
                .map_err(|e| sqlite_error(DB, e))?;
            if !rows.collect_all().map_err(|e| sqlite_error(DB, e))?.is_empty() {
                return Err(CodecError::Other(format!(
                    "{DB} already has session {id}; trajhost never overwrites a session"
                )));
            }
        }
        Err(FsError::NotFound(_)) => {}
        Err(e) => return Err(CodecError::Io(format!("{DB}: {e}"))),
    }
    let mut bytes = artifact.bytes;
    let default_model = configured_model(target);
    if let Some((provider, model)) = &default_model {
        bytes = with_user_model(doc.clone(), provider, model);
    }
    let cwd = options
        .cwd
        .clone()
        .or_else(|| doc.pointer("/info/directory").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| "/".to_string());
    let file = match options.home_path.as_deref() {
        Some(home) => shell_quote(&format!("{}/{path}", home.trim_end_matches('/'))),
        None => format!("\"$HOME\"/{}", shell_quote(&path)),
    };
    let cli = crate::flavor::CLI;
    let mut resume = format!("cd {} && {cli} import {file} && {cli} --session {id}", shell_quote(&cwd));
    if default_model.is_none() {
        resume.push_str(" -m '<provider>/<model>'");
    }
    Ok(Plan {
        native_id: id,
        operations: vec![Operation::CreateFile(CreateFile { path, bytes })],
        resume_command: Some(resume),
    })
}

/// The global config, relative to the home.
pub use crate::flavor::CONFIG;

/// `(provider, model)` of the target's default `model` ("provider/model").
fn configured_model(target: &Dir) -> Option<(String, String)> {
    let bytes = target.read_to_end(CONFIG, 1 << 20).ok()?;
    let config: Value = serde_json::from_slice(&bytes).ok()?;
    let (provider, model) = config.get("model")?.as_str()?.split_once('/')?;
    (!provider.is_empty() && !model.is_empty()).then(|| (provider.to_string(), model.to_string()))
}

/// The document with every user message's `model` set to the target's default.
fn with_user_model(mut doc: Value, provider: &str, model: &str) -> Vec<u8> {
    for message in doc.get_mut("messages").and_then(Value::as_array_mut).into_iter().flatten() {
        if let Some(info) = message.get_mut("info")
            && info.get("role").and_then(Value::as_str) == Some("user")
        {
            info["model"] = serde_json::json!({"providerID": provider, "modelID": model});
        }
    }
    let mut bytes = serde_json::to_vec_pretty(&doc).expect("document serializes");
    bytes.push(b'\n');
    bytes
}
