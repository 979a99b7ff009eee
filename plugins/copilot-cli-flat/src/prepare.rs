//! `prepare`: the plan that installs a written flat event log into a
//! target home: one `create-file` for `.copilot/session-state/<id>.jsonl`.
//!
//! - The session must not exist in the target in either layout
//!   (`<id>.jsonl`, `<id>/`): a session is never merged into or overwritten,
//!   so a second prepare of one export is refused.
//! - The target's store must be in the flat layout, or empty. A home whose
//!   `session-state/` holds session folders (`<id>/events.jsonl`), or that
//!   has the CLI's `session-store.db`, belongs to Copilot CLI 0.0.380 or
//!   later, which writes (and lists) sessions as folders: the plan is
//!   refused naming the file, and the codec that writes that layout.
//!   Nothing beside the new file is read or touched.
//! - The model: `session.start.data.selectedModel` is the user's choice
//!   (`--model`), else `model` of the target's `~/.copilot/config.json`, else
//!   left out (0.0.354 then takes `COPILOT_MODEL`, the config, its default).
//! - A provider cannot be honoured: Copilot records none per session.
//! - `resume-command`: `cd <cwd> && HOME=<target> copilot [--model M] --resume <id>`
//!   (`cd` only with `options.cwd`: the flat log records no working directory).
//!
//! 0.0.354 keeps its sessions under `$XDG_STATE_HOME/.copilot/` when that
//! variable is set (else `~/.copilot/`); the plan writes the default place.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::CreateFile;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::paths::is_uuid;
use trajhost_codec_sdk::target::TargetChoice;
use trajhost_codec_sdk::writer::install::{ResumeCommand, exists};
use trajhost_codec_sdk::{Artifact, CodecError, Operation, Plan, WriteOptions};

use crate::core::events::{self, StartLine, check_request};
use crate::core::layout::{self, EVENTS, JSONL, SESSION_STATE};

/// The CLI's configuration (`model` among its keys).
pub const CONFIG: &str = ".copilot/config.json";
/// The session index Copilot CLI 1.x keeps beside the session folders.
pub const SESSION_STORE: &str = ".copilot/session-store.db";
/// The codec that writes the per-session-folder layout.
pub const FOLDER_CODEC: &str = "copilot-cli@0.1.0";

/// The plan for `artifacts` (what `write` made).
pub fn prepare(
    artifacts: Vec<Artifact>,
    target: &Dir,
    options: &WriteOptions,
    choice: &TargetChoice,
) -> Result<Plan, CodecError> {
    let mut events = None;
    for artifact in artifacts {
        let id = artifact
            .path
            .strip_prefix(SESSION_STATE)
            .and_then(|r| r.strip_prefix('/'))
            .and_then(|r| r.strip_suffix(JSONL))
            .filter(|id| is_uuid(id))
            .ok_or_else(|| {
                CodecError::Malformed(format!("artifact {:?} is not {SESSION_STATE}/<uuid>{JSONL}", artifact.path))
            })?
            .to_string();
        if events.is_some() {
            return Err(CodecError::Malformed("the export holds more than one Copilot session".into()));
        }
        events = Some((id, artifact));
    }
    let (id, events) = events.ok_or_else(|| CodecError::Malformed("the export holds no Copilot session".into()))?;
    check_request(&id, options, choice, "the OpenAI environment")?;
    check_store(target, &id)?;

    let model = choice.model.clone().filter(|m| !m.is_empty()).or_else(|| configured_model(target));
    let bytes = with_model(&events, &id, model.as_deref())?;
    let operations = vec![Operation::CreateFile(CreateFile { path: events.path.clone(), bytes })];
    let cwd = options.cwd.as_deref().filter(|c| !c.is_empty());
    let command = resume_command(cwd, options.home_path.as_deref(), choice.model.as_deref(), &id);
    Ok(Plan { native_id: id, operations, resume_command: Some(command) })
}

/// The session is new, and the store is the flat layout (or none yet).
fn check_store(target: &Dir, id: &str) -> Result<(), CodecError> {
    let file = layout::join(SESSION_STATE, &format!("{id}{JSONL}"));
    if exists(target, &file)? {
        return Err(CodecError::Other(format!(
            "{file} already exists in the target home; a Copilot session is never overwritten or merged"
        )));
    }
    let folder = layout::join(SESSION_STATE, id);
    if exists(target, &folder)? {
        return Err(CodecError::Other(format!(
            "{folder} already holds this session in the target home (the per-session-folder layout); a Copilot \
             session is never overwritten or merged"
        )));
    }
    let entries = match target.list(SESSION_STATE) {
        Ok(entries) => entries,
        Err(FsError::NotFound(_)) => Vec::new(),
        Err(e) => return Err(CodecError::Io(format!("listing {SESSION_STATE} in the target home: {e:?}"))),
    };
    let mut folders: Vec<String> = entries
        .iter()
        .filter(|e| e.is_dir() && layout::is_session_dir(&e.name))
        .map(|e| layout::join(SESSION_STATE, &e.name))
        .collect();
    folders.sort();
    if let Some(folder) = folders.first() {
        let events = layout::join(folder, EVENTS);
        let what = if exists(target, &events)? { events } else { format!("{folder}/") };
        return Err(other_layout(&format!("{what} is a session folder")));
    }
    if exists(target, SESSION_STORE)? {
        return Err(other_layout(&format!("{SESSION_STORE} is the session index of Copilot CLI 1.x")));
    }
    Ok(())
}

fn other_layout(what: &str) -> CodecError {
    CodecError::Unsupported(format!(
        "{what}: the target's session store is in the per-session-folder layout \
         (session-state/<id>/events.jsonl) of Copilot CLI 0.0.380 and later, not the flat layout \
         (session-state/<id>.jsonl) of Copilot CLI < 0.0.380 this codec writes, and it does not add to a store it \
         does not know; {FOLDER_CODEC} writes that layout (prepare --codec {FOLDER_CODEC}, or --target-version \
         with the target's Copilot CLI version)"
    ))
}

/// The event log with `session.start` (its first line) checked and given the
/// model; every other line stays byte for byte.
fn with_model(events: &Artifact, id: &str, model: Option<&str>) -> Result<Vec<u8>, CodecError> {
    let (mut start, end) = StartLine::<StartData>::first_of(events, id, "file", |d| d.session_id.as_deref())?;
    let Some(model) = model else { return Ok(events.bytes.clone()) };
    start.data.selected_model = Some(Value::String(model.to_string()));
    start.replacing_first(&events.bytes, end)
}

/// `session.start.data` in 0.0.354's key order (`selectedModel` last).
#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct StartData {
    session_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    producer: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    copilot_version: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_time: Option<Value>,
    #[serde(flatten)]
    rest: Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    selected_model: Option<Value>,
}

/// `model` of the target's `~/.copilot/config.json` (which may hold `//` comments).
pub fn configured_model(target: &Dir) -> Option<String> {
    events::configured_model(target, &[CONFIG])
}

/// `cd <cwd> && HOME=<home> copilot [--model M] --resume <id>`.
pub fn resume_command(cwd: Option<&str>, home: Option<&str>, model: Option<&str>, id: &str) -> String {
    ResumeCommand::in_dir(cwd)
        .env("HOME", home)
        .program("copilot")
        .option("--model", model)
        .arg(&format!("--resume {id}"))
        .finish()
}
