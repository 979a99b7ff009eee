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

use serde_json::Value;
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::CreateFile;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::sqlite::{Database, Value as Sql};
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
    if artifact.bytes.len() > MAX_ARTIFACT_BYTES {
        return Err(CodecError::LimitExceeded(format!("{}: more than {MAX_ARTIFACT_BYTES} bytes", artifact.path)));
    }
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
        return Err(CodecError::Malformed(format!("{}: info.id {id} is not the requested native id {want}", artifact.path)));
    }
    let path = format!("{IMPORT_DIR}/{id}.json");
    if path != artifact.path {
        return Err(CodecError::Malformed(format!("{}: the file name does not match info.id {id}", artifact.path)));
    }
    match target.stat(DB) {
        Ok(_) => {
            let db = Database::open(target, DB).map_err(|e| sqlite_error(DB, e))?;
            store::check(&db, DB)?;
            let rows = db.query("SELECT 1 FROM session WHERE id = ?", &[Sql::Text(id.clone())]).map_err(|e| sqlite_error(DB, e))?;
            if !rows.collect_all().map_err(|e| sqlite_error(DB, e))?.is_empty() {
                return Err(CodecError::Other(format!(
                    "{DB} already has session {id}; trajhost never overwrites a session"
                )));
            }
        }
        Err(FsError::NotFound(_)) => {}
        Err(e) => return Err(CodecError::Io(format!("{DB}: {e}"))),
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
    let resume = format!("cd {} && opencode import {file} && opencode --session {id}", shell_quote(&cwd));
    Ok(Plan {
        native_id: id,
        operations: vec![Operation::CreateFile(CreateFile { path, bytes: artifact.bytes })],
        resume_command: Some(resume),
    })
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%,=".contains(&b)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}
