//! `prepare`: the plan that installs a written session folder into a target
//! home. Grok Build needs the folder's files and nothing else: the search
//! index (`session_search.sqlite`) and the prompt history are the CLI's own
//! and are not needed to resume by id.
//!
//! - `chat_history.jsonl` and `updates.jsonl` are installed unread
//!   (`copy-artifact`): they name no path or model that depends on the target.
//! - `summary.json` is rewritten: `info.cwd` is `options.cwd` (the folder
//!   moves to that cwd's encoded name), `current_model_id` is the chosen
//!   model (`--model`), else the target's configured default
//!   (`[models] default` in `~/.grok/config.toml`), else what `write`
//!   recorded. A `--provider` is refused: Grok records none per session.
//! - Refused: a session with this id in any cwd folder of the target (`grok
//!   -r <id>` must find one), anything among the artifacts that is not one of
//!   the folder's three files.
//! - Credentials (`~/.grok/auth.json`, API keys) are never read or copied.
//! - `resume-command`: `cd <cwd> && [GROK_HOME=<home>/.grok] grok -r <id>`.

use serde_json::Value;
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::{CopyArtifact, CreateFile};
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::paths::is_uuid;
use trajhost_codec_sdk::writer::install::ResumeCommand;
use trajhost_codec_sdk::{ArtifactInfo, CodecError, Operation, Plan, WriteOptions};

use crate::layout::{CHAT_HISTORY, SESSIONS, SUMMARY, UPDATES, plain_name};
use crate::write::{check_model, check_provider, cwd_folder};

/// Grok Build's own settings (the model default lives here).
pub const CONFIG: &str = ".grok/config.toml";
/// Largest `summary.json` or `config.toml` read.
const MAX_SMALL_FILE: u64 = 4 << 20;

/// The plan for `artifacts` (a session folder as `write` made it).
pub fn prepare(
    artifacts: Vec<ArtifactInfo>,
    export: &Dir,
    target: &Dir,
    options: &WriteOptions,
) -> Result<Plan, CodecError> {
    let choice = trajhost_codec_sdk::target::choice();
    check_provider(choice.provider.as_deref())?;
    if let Some(model) = &choice.model {
        check_model(model)?;
    }
    let mut history = None;
    let mut journal = None;
    let mut summary = None;
    let mut id: Option<String> = None;
    for artifact in &artifacts {
        let (folder_id, name) = split_path(&artifact.path)?;
        if id.as_deref().is_some_and(|i| i != folder_id) {
            return Err(CodecError::Malformed(format!("{}: a second session folder in one export", artifact.path)));
        }
        id = Some(folder_id.to_string());
        match name {
            CHAT_HISTORY => history = Some(artifact),
            UPDATES => journal = Some(artifact),
            SUMMARY => summary = Some(artifact),
            other => {
                return Err(CodecError::Malformed(format!(
                    "{}: {other} is not a file this codec writes ({CHAT_HISTORY}, {UPDATES}, {SUMMARY})",
                    artifact.path
                )));
            }
        }
    }
    let (Some(history), Some(summary), Some(id)) = (history, summary, id) else {
        return Err(CodecError::Malformed(format!(
            "the export must hold {SESSIONS}/<cwd>/<id>/{CHAT_HISTORY} and {SUMMARY}"
        )));
    };
    if let Some(wanted) = options.native_id.as_deref().filter(|w| !w.eq_ignore_ascii_case(&id)) {
        return Err(CodecError::Malformed(format!(
            "the export's session id {id} is not the requested native id {wanted}"
        )));
    }
    let bytes = export.read_to_end(&summary.path, MAX_SMALL_FILE)?;
    let mut doc: Value = serde_json::from_slice(&bytes)
        .map_err(|e| CodecError::Malformed(format!("{}: not JSON ({e})", summary.path)))?;
    if doc.pointer("/info/id").and_then(Value::as_str) != Some(id.as_str()) {
        return Err(CodecError::Malformed(format!("{}: info.id is not the folder's {id}", summary.path)));
    }
    let written_cwd = doc.pointer("/info/cwd").and_then(Value::as_str).map(str::to_string);
    let cwd = options
        .cwd
        .clone()
        .filter(|c| !c.is_empty())
        .or(written_cwd)
        .ok_or_else(|| CodecError::Malformed(format!("{}: no info.cwd (pass --cwd)", summary.path)))?;
    let folder = cwd_folder(&cwd)?;
    refuse_existing(target, &id)?;
    let model = match choice.model {
        Some(m) => Some(m),
        None => configured_model(target)?,
    };
    doc["info"]["cwd"] = cwd.clone().into();
    if let Some(m) = model {
        doc["current_model_id"] = m.into();
    }
    let mut summary_bytes = serde_json::to_vec_pretty(&doc).map_err(|e| CodecError::Other(e.to_string()))?;
    summary_bytes.push(b'\n');
    let dir = format!("{SESSIONS}/{folder}/{id}");
    let mut operations = vec![Operation::CopyArtifact(CopyArtifact {
        artifact: history.path.clone(),
        path: format!("{dir}/{CHAT_HISTORY}"),
    })];
    if let Some(journal) = journal {
        operations.push(Operation::CopyArtifact(CopyArtifact {
            artifact: journal.path.clone(),
            path: format!("{dir}/{UPDATES}"),
        }));
    }
    operations.push(Operation::CreateFile(CreateFile { path: format!("{dir}/{SUMMARY}"), bytes: summary_bytes }));
    Ok(Plan {
        native_id: id.clone(),
        operations,
        resume_command: Some(resume_command(&cwd, options.home_path.as_deref(), &id)),
    })
}

/// `cd <cwd> && [GROK_HOME=<home>/.grok] grok -r <id>`: Grok files the
/// session under the cwd, and reads `GROK_HOME` (default `~/.grok`).
pub fn resume_command(cwd: &str, home: Option<&str>, id: &str) -> String {
    let grok_home = home.map(|home| format!("{}/.grok", home.trim_end_matches('/')));
    ResumeCommand::in_dir(Some(cwd))
        .env("GROK_HOME", grok_home.as_deref())
        .program("grok")
        .arg(&format!("-r {id}"))
        .finish()
}

/// `.grok/sessions/<folder>/<id>/<name>` → (id, name).
fn split_path(path: &str) -> Result<(&str, &str), CodecError> {
    let bad = || CodecError::Malformed(format!("artifact {path:?} is not {SESSIONS}/<cwd>/<id>/<file>"));
    let rest = path.strip_prefix(SESSIONS).and_then(|r| r.strip_prefix('/')).ok_or_else(bad)?;
    let mut parts = rest.split('/');
    let (Some(folder), Some(id), Some(name), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return Err(bad());
    };
    if !plain_name(folder) || !is_uuid(id) {
        return Err(bad());
    }
    Ok((id, name))
}

/// Refuses when any cwd folder of the target holds a session `id`.
fn refuse_existing(target: &Dir, id: &str) -> Result<(), CodecError> {
    let folders = match target.list(SESSIONS) {
        Ok(entries) => entries,
        Err(FsError::NotFound(_)) => return Ok(()),
        Err(e) => return Err(CodecError::Io(format!("listing {SESSIONS} in the target home: {e:?}"))),
    };
    for folder in folders.iter().filter(|e| e.is_dir()) {
        let path = format!("{SESSIONS}/{}/{id}", folder.name);
        match target.stat(&path) {
            Ok(_) => {
                return Err(CodecError::Other(format!(
                    "the target home already has session {id} at {path}; a session is never overwritten or merged"
                )));
            }
            Err(FsError::NotFound(_)) => {}
            Err(e) => return Err(CodecError::Io(format!("checking {path} in the target home: {e:?}"))),
        }
    }
    Ok(())
}

/// `[models] default` (or `models.default`) of the target's config.toml.
pub fn configured_model(target: &Dir) -> Result<Option<String>, CodecError> {
    let bytes = match target.read_to_end(CONFIG, MAX_SMALL_FILE) {
        Ok(b) => b,
        Err(FsError::NotFound(_)) => return Ok(None),
        Err(e) => return Err(CodecError::Io(format!("reading {CONFIG} in the target home: {e:?}"))),
    };
    Ok(models_default(&String::from_utf8_lossy(&bytes)))
}

/// The `default` key of the `[models]` table, in the subset of TOML a
/// config file uses for it: a basic or literal string on one line.
pub fn models_default(toml: &str) -> Option<String> {
    let mut table = String::new();
    for line in toml.lines() {
        let line = line.trim();
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.split(']').next()) {
            table = name.trim().to_string();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else { continue };
        let key: String = key.split('.').map(|k| k.trim().trim_matches('"')).collect::<Vec<_>>().join(".");
        let full = if table.is_empty() { key } else { format!("{table}.{key}") };
        if full == "models.default" {
            return toml_string(value.trim()).filter(|m| check_model(m).is_ok());
        }
    }
    None
}

fn toml_string(value: &str) -> Option<String> {
    if let Some(rest) = value.strip_prefix('\'') {
        return rest.split('\'').next().map(str::to_string);
    }
    if value.starts_with('"') {
        let mut end = None;
        let mut escaped = false;
        for (i, c) in value.char_indices().skip(1) {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => {
                    end = Some(i);
                    break;
                }
                _ => escaped = false,
            }
        }
        return serde_json::from_str(&value[..=end?]).ok();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_models_default() {
        assert_eq!(models_default("[models]\ndefault = \"grok-4.6\"  # x\n"), Some("grok-4.6".into()));
        assert_eq!(models_default("models.default = 'my-model'\n"), Some("my-model".into()));
        assert_eq!(models_default("[model.x]\ndefault = \"no\"\n[marketplace]\na = 1\n"), None);
        assert_eq!(models_default("[models]\nweb_search = \"a\"\n"), None);
    }

    #[test]
    fn quotes_the_command() {
        assert_eq!(resume_command("/home/u/p", None, "id"), "cd /home/u/p && grok -r id");
        assert_eq!(resume_command("/a b", Some("/h/"), "id"), "cd '/a b' && GROK_HOME=/h/.grok grok -r id");
    }
}
