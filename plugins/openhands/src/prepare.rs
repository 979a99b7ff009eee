//! `prepare`: the plan that installs a written conversation into a target
//! home. OpenHands keeps no index: `openhands --resume <id>` opens
//! `~/.openhands/conversations/<id hex>/` directly, validates
//! `base_state.json` (pydantic `ConversationState`) and reads the events.
//!
//! - Every event file is a `copy-artifact` (installed unread); only
//!   `base_state.json` is rewritten: `persistence_dir` names the target's
//!   folder (`options.home_path`), `workspace.working_dir` the cwd
//!   (`options.cwd`, else the written one), `agent.llm.model` a chosen model.
//! - The store is checked first, fail closed: `.openhands/conversations`
//!   must be a directory; the conversation's folder must not exist (a
//!   conversation is never overwritten or merged); every conversation
//!   already there must be one this codec knows (a `base_state.json` with a
//!   UUID `id`, an `agent` and a `workspace` with a `kind`, event files named
//!   `event-<5 digits>-<id>.json`), else the plan is refused naming the file
//!   and what differs. The store records no version of its own.
//! - Model and provider: OpenHands takes the model from its settings
//!   (`~/.openhands/agent_settings.json`) or, with `--override-with-envs`,
//!   `LLM_MODEL`, as a LiteLLM name (`provider/model`). A chosen model goes
//!   into the resume command as `LLM_MODEL` (prefixed by a chosen provider)
//!   and into `base_state.json`; a provider without a model is refused.
//!
//! `resume-command`: `cd <cwd> && HOME=<home> [LLM_MODEL=<m>] openhands
//! --resume <id hex> --headless --json --override-with-envs
//! --exit-without-confirmation -t "<prompt>"` (the lab's resume line).

use serde_json::Value;
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::{CopyArtifact, CreateFile};
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::writer::install::ResumeCommand;
use trajhost_codec_sdk::{ArtifactInfo, CodecError, Operation, Plan, WriteOptions};

use crate::layout::{self, BASE_STATE, CONVERSATIONS, EVENTS, join};
use crate::write::{parse_uuid, persistence_dir};

pub use trajhost_codec_sdk::target::{TargetChoice as Choice, choice as target_choice};

/// Largest `base_state.json` read (the export's, or a target's).
const MAX_STATE_BYTES: u64 = 64 << 20;
/// Existing conversations whose shape is checked (newest names first is not
/// knowable without reading them; the first ones by name).
pub const MAX_CHECKED: usize = 256;

pub fn prepare(
    artifacts: Vec<ArtifactInfo>,
    export: &Dir,
    target: &Dir,
    options: &WriteOptions,
    choice: &Choice,
) -> Result<Plan, CodecError> {
    let model = chosen_model(choice)?;
    let mut folder: Option<String> = None;
    let mut state_artifact = None;
    let mut events = Vec::new();
    for artifact in &artifacts {
        let bad = || {
            CodecError::Malformed(format!(
                "artifact {:?} is not a file of an OpenHands conversation ({CONVERSATIONS}/<id>/…)",
                artifact.path
            ))
        };
        let rest = artifact.path.strip_prefix(CONVERSATIONS).and_then(|r| r.strip_prefix('/')).ok_or_else(bad)?;
        let (dir, file) = rest.split_once('/').ok_or_else(bad)?;
        if !layout::plain_name(dir) || folder.as_deref().is_some_and(|f| f != dir) {
            return Err(bad());
        }
        folder = Some(dir.to_string());
        if file == BASE_STATE {
            state_artifact = Some(artifact.clone());
        } else if let Some(name) = file.strip_prefix(&format!("{EVENTS}/"))
            && layout::event_file(name).is_some()
            && layout::plain_name(name)
        {
            events.push(artifact.clone());
        } else {
            return Err(bad());
        }
    }
    let folder = folder.ok_or_else(|| CodecError::Malformed("the export holds no OpenHands conversation".into()))?;
    let state_artifact = state_artifact
        .ok_or_else(|| CodecError::Malformed(format!("the export holds no {CONVERSATIONS}/{folder}/{BASE_STATE}")))?;
    let uuid = parse_uuid(&folder).filter(|u| u.replace('-', "") == folder).ok_or_else(|| {
        CodecError::Malformed(format!(
            "the conversation folder {folder:?} is not a UUID in hex, as OpenHands names them"
        ))
    })?;
    if let Some(wanted) = options.native_id.as_deref()
        && parse_uuid(wanted).as_deref() != Some(uuid.as_str())
    {
        return Err(CodecError::Malformed(format!(
            "the export's conversation {folder} is not the requested native id {wanted}"
        )));
    }

    let bytes = export.read_to_end(&state_artifact.path, MAX_STATE_BYTES)?;
    let mut state: Value = serde_json::from_slice(&bytes)
        .map_err(|e| CodecError::Malformed(format!("{}: not JSON ({e})", state_artifact.path)))?;
    if state.get("id").and_then(Value::as_str).and_then(parse_uuid).as_deref() != Some(uuid.as_str()) {
        return Err(CodecError::Malformed(format!(
            "{}: its id is not the folder's conversation id",
            state_artifact.path
        )));
    }
    let dir = join(CONVERSATIONS, &folder);
    let cwd =
        match options.cwd.clone().filter(|c| !c.is_empty()) {
            Some(cwd) => cwd,
            None => state.pointer("/workspace/working_dir").and_then(Value::as_str).map(str::to_string).ok_or_else(
                || CodecError::Malformed("the export names no working directory; give one with --cwd".into()),
            )?,
        };
    if !cwd.starts_with('/') {
        return Err(CodecError::Other(format!("working directory {cwd:?} is not an absolute path")));
    }
    state["workspace"] = serde_json::json!({"working_dir": cwd, "kind": "LocalWorkspace"});
    if let Some(home) = options.home_path.as_deref() {
        state["persistence_dir"] = Value::String(persistence_dir(home, &dir));
    }
    if let Some(model) = &model
        && let Some(llm) = state.pointer_mut("/agent/llm")
    {
        llm["model"] = Value::String(model.clone());
    }

    check_store(target, &dir)?;

    let mut operations = Vec::new();
    for event in events {
        operations.push(Operation::CopyArtifact(CopyArtifact { artifact: event.path.clone(), path: event.path }));
    }
    let state_bytes =
        serde_json::to_vec(&state).map_err(|e| CodecError::Other(format!("serializing {BASE_STATE}: {e}")))?;
    operations.push(Operation::CreateFile(CreateFile { path: join(&dir, BASE_STATE), bytes: state_bytes }));
    let command = resume_command(&cwd, options.home_path.as_deref(), model.as_deref(), &folder);
    Ok(Plan { native_id: folder, operations, resume_command: Some(command) })
}

/// The LiteLLM model name a choice gives, if any.
fn chosen_model(choice: &Choice) -> Result<Option<String>, CodecError> {
    let check = |what: &str, v: &str| {
        if v.is_empty() || v.len() > 256 || v.trim() != v || v.chars().any(char::is_control) {
            return Err(CodecError::Other(format!("{what} {v:?} is not a name OpenHands accepts")));
        }
        Ok(())
    };
    match (&choice.model, &choice.provider) {
        (None, None) => Ok(None),
        (None, Some(provider)) => Err(CodecError::Other(format!(
            "provider {provider:?} alone cannot be given to OpenHands: it picks the provider from the model's LiteLLM \
             name (`provider/model`); give --model too"
        ))),
        (Some(model), None) => {
            check("model", model)?;
            Ok(Some(model.clone()))
        }
        (Some(model), Some(provider)) => {
            check("model", model)?;
            check("provider", provider)?;
            if model.starts_with(&format!("{provider}/")) {
                Ok(Some(model.clone()))
            } else {
                Ok(Some(format!("{provider}/{model}")))
            }
        }
    }
}

/// Checks the target's store before anything is added to it.
fn check_store(target: &Dir, dir: &str) -> Result<(), CodecError> {
    let entries = match target.list(CONVERSATIONS) {
        Ok(entries) => entries,
        Err(FsError::NotFound(_)) => {
            return match target.stat(CONVERSATIONS) {
                Ok(_) => Err(CodecError::Other(format!("~/{CONVERSATIONS} in the target home is not a directory"))),
                Err(_) => Ok(()),
            };
        }
        Err(e) => return Err(CodecError::Io(format!("listing ~/{CONVERSATIONS} in the target home: {e:?}"))),
    };
    let name = dir.rsplit('/').next().unwrap_or_default();
    if entries.iter().any(|e| e.name.eq_ignore_ascii_case(name)) {
        return Err(CodecError::Other(format!(
            "~/{dir} already exists in the target home; an OpenHands conversation is never overwritten or merged"
        )));
    }
    let mut folders: Vec<&str> = entries.iter().filter(|e| e.is_dir()).map(|e| e.name.as_str()).collect();
    folders.sort_unstable();
    for folder in folders.into_iter().take(MAX_CHECKED) {
        check_conversation(target, &join(CONVERSATIONS, folder))?;
    }
    Ok(())
}

/// Refuses a conversation folder whose shape is not the one this codec
/// knows, naming the file and what differs.
pub fn check_conversation(target: &Dir, dir: &str) -> Result<(), CodecError> {
    let refuse = |file: &str, what: &str| {
        CodecError::Other(format!(
            "~/{file} in the target home is not in the OpenHands 1.x conversation format this codec knows ({what}); \
             nothing is added to ~/{CONVERSATIONS}"
        ))
    };
    let state_path = join(dir, BASE_STATE);
    let bytes = match target.read_to_end(&state_path, MAX_STATE_BYTES) {
        Ok(bytes) => bytes,
        Err(FsError::NotFound(_)) => return Err(refuse(&state_path, "no base_state.json")),
        Err(e) => return Err(CodecError::Io(format!("reading ~/{state_path} in the target home: {e:?}"))),
    };
    let state: Value = serde_json::from_slice(&bytes).map_err(|_| refuse(&state_path, "not JSON"))?;
    if state.get("id").and_then(Value::as_str).and_then(parse_uuid).is_none() {
        return Err(refuse(&state_path, "`id` is not a UUID"));
    }
    for (pointer, what) in [("/agent/kind", "`agent.kind`"), ("/workspace/kind", "`workspace.kind`")] {
        if state.pointer(pointer).and_then(Value::as_str).is_none() {
            return Err(refuse(&state_path, &format!("{what} is missing")));
        }
    }
    let events = join(dir, EVENTS);
    match target.list(&events) {
        Ok(entries) => {
            for entry in entries.iter().filter(|e| e.is_file() && !e.name.starts_with('.')) {
                if layout::event_file(&entry.name).is_none() {
                    return Err(refuse(&join(&events, &entry.name), "not an event-<index>-<id>.json file"));
                }
            }
        }
        Err(FsError::NotFound(_)) => {}
        Err(e) => return Err(CodecError::Io(format!("listing ~/{events} in the target home: {e:?}"))),
    }
    Ok(())
}

/// The lab's resume line, run from the cwd with the target home.
pub fn resume_command(cwd: &str, home: Option<&str>, model: Option<&str>, id: &str) -> String {
    ResumeCommand::in_dir(Some(cwd))
        .env("HOME", home.map(|h| h.trim_end_matches('/')))
        .env("LLM_MODEL", model)
        .program("openhands")
        .arg(&format!(
            "--resume {id} --headless --json --override-with-envs --exit-without-confirmation -t \"<prompt>\""
        ))
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert_eq!(
            resume_command("/w p", Some("/h/"), Some("openai/gpt-x"), "abc"),
            "cd '/w p' && HOME=/h LLM_MODEL=openai/gpt-x openhands --resume abc --headless --json \
             --override-with-envs --exit-without-confirmation -t \"<prompt>\""
        );
        let choice = |m: Option<&str>, p: Option<&str>| Choice {
            model: m.map(str::to_string),
            provider: p.map(str::to_string),
            allow_untested: false,
        };
        assert_eq!(chosen_model(&choice(Some("m"), Some("openai"))).unwrap().as_deref(), Some("openai/m"));
        assert_eq!(chosen_model(&choice(Some("openai/m"), Some("openai"))).unwrap().as_deref(), Some("openai/m"));
        assert!(chosen_model(&choice(None, Some("openai"))).is_err());
        assert_eq!(chosen_model(&choice(None, None)).unwrap(), None);
    }
}
