//! `prepare`: the plan that installs a written session folder into a
//! target home.
//!
//! `vibe --resume <id>` loads `~/.vibe/logs/session/unified/<id>/` alone
//! (measured: neither `.session-index.json`, a cache Vibe rebuilds, nor a
//! plugin package is needed when the session's plugin lock pins none, as a
//! written one does). So:
//!
//! - every file of the folder is created (`create-file`); a folder of the
//!   same id in the target is refused: a session is never overwritten or
//!   merged, and nothing outside the new folder changes;
//! - the files' digests are checked first (each chunk its name, each part
//!   the manifest's, the manifest `CURRENT`'s): Vibe refuses a store whose
//!   digests do not hold;
//! - a working directory given (`options.cwd`) other than the written one
//!   rewrites the runtime state's `session_metadata.cwd` and `meta.json`,
//!   and re-derives the runtime state's digest, the manifest and `CURRENT`;
//! - a model given (`--model`) is pinned as the session's model alias
//!   (`session_metadata.active_model`: an alias of `~/.vibe/config.toml`'s
//!   `[[models]]`); a provider is refused (a provider belongs to the
//!   config's `[[providers]]`, not to a session).
//!
//! `resume-command`: `cd <cwd> && HOME=<home> vibe --resume <id>`.

use serde_json::Value;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::writer::install::{self, ResumeCommand};
use trajhost_codec_sdk::{Artifact, CodecError, Plan, WriteOptions};

use crate::generation::{self, Store};
use crate::layout::{self, CURRENT};
use crate::store;

/// The user's choice of model and provider for the target.
pub use trajhost_codec_sdk::target::{TargetChoice as Choice, choice as target_choice};

/// Largest artifact accepted.
const MAX_ARTIFACT_BYTES: usize = 512 << 20;
/// Longest model alias accepted.
const MAX_MODEL_BYTES: usize = 256;

/// The plan for `artifacts` (as `write` made them).
pub fn prepare(
    artifacts: Vec<Artifact>,
    target: &Dir,
    options: &WriteOptions,
    choice: &Choice,
) -> Result<Plan, CodecError> {
    if choice.provider.is_some() {
        return Err(CodecError::Other(
            "a Vibe provider is a [[providers]] entry of ~/.vibe/config.toml, not a setting of a session: \
             leave --provider out"
                .into(),
        ));
    }
    for artifact in &artifacts {
        install::check_size(artifact, MAX_ARTIFACT_BYTES)?;
    }
    let current = artifacts
        .iter()
        .find(|a| a.path.rsplit('/').next() == Some(CURRENT))
        .ok_or_else(|| CodecError::Malformed("the export holds no Vibe session folder (no CURRENT)".into()))?;
    let id = store::parse_current(&current.bytes)
        .map_err(|why| CodecError::Malformed(format!("{}: {why}", current.path)))?
        .session_id;
    let folder = layout::session_dir(&id);
    if !layout::is_session_id(&id) || current.path != layout::current_path(&id) {
        return Err(CodecError::Malformed(format!(
            "{}: not {}, where Vibe keeps session {id:?}",
            current.path,
            layout::current_path(&id)
        )));
    }
    if let Some(stray) = artifacts.iter().find(|a| !a.path.starts_with(&format!("{folder}/"))) {
        return Err(CodecError::Malformed(format!(
            "artifact {:?} lies outside the session folder {folder}",
            stray.path
        )));
    }
    generation::verify(&artifacts)?;
    install::check_requested_id(&id, options)?;
    let runtime = artifacts
        .iter()
        .find(|a| a.path.ends_with("/runtime-state.json"))
        .and_then(|a| serde_json::from_slice::<Value>(store::body(&a.bytes)).ok());
    let written_cwd = runtime.as_ref().and_then(|r| r.pointer("/session_metadata/cwd")?.as_str().map(str::to_string));
    let cwd = install::resume_cwd(options, written_cwd.as_deref(), "the session names no working directory")?;
    let model = choice.model.as_deref().filter(|m| !m.is_empty());
    if let Some(model) = model {
        install::check_model_name(model, MAX_MODEL_BYTES, "Vibe")?;
    }
    let mut store = Store { id: id.clone(), files: artifacts };
    if written_cwd.as_deref() != Some(cwd.as_str()) || model.is_some() {
        let (cwd_value, model_value) = (Value::String(cwd.clone()), model.map(|m| Value::String(m.to_string())));
        let meta_cwd = cwd_value.clone();
        store = store.with_runtime(
            |runtime| {
                if let Some(metadata) = runtime.get_mut("session_metadata").and_then(Value::as_object_mut) {
                    metadata.insert("cwd".into(), cwd_value);
                    if let Some(model) = model_value {
                        metadata.insert("active_model".into(), model);
                    }
                }
            },
            |meta| {
                meta["environment"]["working_directory"] = meta_cwd.clone();
                meta["origin_directory"] = meta_cwd;
            },
        )?;
        generation::verify(&store.files)?;
    }
    if install::exists(target, &folder)? {
        return Err(CodecError::Other(format!(
            "~/{folder} already exists in the target home: a Vibe session is never overwritten or merged"
        )));
    }
    let operations = store.files.into_iter().map(|f| install::create_file(f.path, f.bytes)).collect();
    let command = resume_command(&cwd, options.home_path.as_deref(), &id);
    Ok(Plan { native_id: id, operations, resume_command: Some(command) })
}

/// `cd <cwd> && HOME=<home> vibe --resume <id>`.
pub fn resume_command(cwd: &str, home: Option<&str>, id: &str) -> String {
    ResumeCommand::in_dir(Some(cwd))
        .env("HOME", home.map(|h| h.trim_end_matches('/')))
        .program("vibe")
        .arg(&format!("--resume {id}"))
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert_eq!(resume_command("/w p", Some("/h/"), "abc"), "cd '/w p' && HOME=/h vibe --resume abc");
        assert_eq!(resume_command("/w", None, "abc"), "cd /w && vibe --resume abc");
    }
}
