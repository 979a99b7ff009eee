//! `prepare`: the plan that installs a written session directory into a
//! target home: `create-file` for `.copilot/session-state/<id>/events.jsonl`
//! and its `workspace.yaml`.
//!
//! - The session directory must not exist in the target: a session is never
//!   merged into or overwritten (so a second prepare of one export is refused).
//! - No `session-store.db` row: Copilot CLI 1.0.102 resumes a session that
//!   has none and indexes it itself (lab, `--resume=<id>`, with and without
//!   a database holding other sessions); other sessions' files and rows are
//!   never touched.
//! - The model: `session.start.data.selectedModel` is the user's choice
//!   (`--model`), else the model the target's Copilot is configured with
//!   (`model` of `~/.copilot/settings.json`, else of the older
//!   `~/.copilot/config.json`), else left out (Copilot then uses its default
//!   or `COPILOT_MODEL`).
//! - A provider cannot be honoured: Copilot records none per session (its
//!   provider is GitHub's, or the `COPILOT_PROVIDER_*` environment of the
//!   shell that resumes): a `--provider` is refused.
//! - `options.cwd`, when given, replaces the working directory in
//!   `session.start` and `workspace.yaml`.
//! - `resume-command`: `cd <cwd> && HOME=<target> copilot [--model M] --resume=<id>`.
//!
//! Credentials are never read or copied: only the two session files are written.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::CreateFile;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::paths::is_uuid;
use trajhost_codec_sdk::target::TargetChoice;
use trajhost_codec_sdk::writer::install::ResumeCommand;
use trajhost_codec_sdk::{Artifact, CodecError, Operation, Plan, WriteOptions};

use crate::core::events::{self, StartLine, check_request};
use crate::core::layout::{EVENTS, SESSION_STATE, WORKSPACE};
use crate::write::{self, yaml_scalar};

/// Where Copilot keeps the user's settings (`model` among them).
pub const SETTINGS: &str = ".copilot/settings.json";
/// The older configuration file, which also held `model`.
pub const CONFIG: &str = ".copilot/config.json";

/// The plan for `artifacts` (what `write` made).
pub fn prepare(
    artifacts: Vec<Artifact>,
    target: &Dir,
    options: &WriteOptions,
    choice: &TargetChoice,
) -> Result<Plan, CodecError> {
    let mut events = None;
    let mut workspace = None;
    let mut id = None::<String>;
    for artifact in artifacts {
        let (session, file) = artifact
            .path
            .strip_prefix(SESSION_STATE)
            .and_then(|r| r.strip_prefix('/'))
            .and_then(|r| r.split_once('/'))
            .filter(|(session, file)| is_uuid(session) && (*file == EVENTS || *file == WORKSPACE))
            .ok_or_else(|| {
                CodecError::Malformed(format!(
                    "artifact {:?} is not {SESSION_STATE}/<uuid>/{EVENTS} or {WORKSPACE}",
                    artifact.path
                ))
            })?;
        let session = session.to_string();
        if id.as_ref().is_some_and(|i| *i != session) {
            return Err(CodecError::Malformed("the export holds more than one Copilot session".into()));
        }
        let is_events = file == EVENTS;
        id = Some(session);
        if is_events { events = Some(artifact) } else { workspace = Some(artifact) }
    }
    let id = id.ok_or_else(|| CodecError::Malformed("the export holds no Copilot session".into()))?;
    let events = events.ok_or_else(|| CodecError::Malformed(format!("the export has no {EVENTS} for {id}")))?;
    check_request(&id, options, choice, "the COPILOT_PROVIDER_* environment")?;

    let dir = write::session_dir(&id);
    match target.stat(&dir) {
        Ok(_) => {
            return Err(CodecError::Other(format!(
                "{dir} already exists in the target home; a Copilot session is never overwritten or merged"
            )));
        }
        Err(FsError::NotFound(_)) => {}
        Err(e) => return Err(CodecError::Io(format!("checking {dir} in the target home: {e:?}"))),
    }

    let model = choice.model.clone().filter(|m| !m.is_empty()).or_else(|| configured_model(target));
    let cwd = options.cwd.clone().filter(|c| !c.is_empty());
    let (events_bytes, written_cwd) = with_start(&events, &id, model.as_deref(), cwd.as_deref())?;
    let cwd = cwd.or(written_cwd);
    let mut operations = vec![Operation::CreateFile(CreateFile { path: events.path.clone(), bytes: events_bytes })];
    if let Some(ws) = workspace {
        let bytes = match &options.cwd {
            Some(c) if !c.is_empty() => with_workspace_cwd(&ws.bytes, c),
            _ => ws.bytes.clone(),
        };
        operations.push(Operation::CreateFile(CreateFile { path: ws.path.clone(), bytes }));
    }
    let command = resume_command(cwd.as_deref(), options.home_path.as_deref(), choice.model.as_deref(), &id);
    Ok(Plan { native_id: id, operations, resume_command: Some(command) })
}

/// The event log with `session.start` (its first line) checked and given the
/// model and working directory; every other line stays byte for byte.
/// Returns the bytes and the working directory the line names.
fn with_start(
    events: &Artifact,
    id: &str,
    model: Option<&str>,
    cwd: Option<&str>,
) -> Result<(Vec<u8>, Option<String>), CodecError> {
    let (mut start, end) = StartLine::<StartData>::first_of(events, id, "directory", |d| d.session_id.as_deref())?;
    let data = &mut start.data;
    let cwd_of = |data: &StartData| data.context.get("cwd").and_then(Value::as_str).map(str::to_string);
    if model.is_none() && cwd.is_none() {
        return Ok((events.bytes.clone(), cwd_of(data)));
    }
    if let Some(model) = model {
        data.selected_model = Some(Value::String(model.to_string()));
    }
    if let Some(cwd) = cwd {
        data.context.insert("cwd".into(), Value::String(cwd.to_string()));
    }
    let written = cwd_of(data);
    Ok((start.replacing_first(&events.bytes, end)?, written))
}

/// `session.start.data`, the keys `prepare` sets in Copilot's order.
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
    #[serde(skip_serializing_if = "Option::is_none")]
    selected_model: Option<Value>,
    #[serde(default)]
    context: Map<String, Value>,
    #[serde(flatten)]
    rest: Map<String, Value>,
}

/// `workspace.yaml` with its top-level `cwd` set to `cwd`.
fn with_workspace_cwd(bytes: &[u8], cwd: &str) -> Vec<u8> {
    let text = String::from_utf8_lossy(bytes);
    let line = format!("cwd: {}", yaml_scalar(cwd));
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    match lines.iter().position(|l| l.starts_with("cwd:")) {
        Some(at) => lines[at] = line,
        None => {
            let at = lines.iter().position(|l| l.starts_with("id:")).map_or(0, |i| i + 1);
            lines.insert(at, line);
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out.into_bytes()
}

/// The model the target's Copilot is configured with: `model` of its
/// settings, else of its older config file.
pub fn configured_model(target: &Dir) -> Option<String> {
    events::configured_model(target, &[SETTINGS, CONFIG])
}

/// `cd <cwd> && HOME=<home> copilot [--model M] --resume=<id>`.
pub fn resume_command(cwd: Option<&str>, home: Option<&str>, model: Option<&str>, id: &str) -> String {
    ResumeCommand::in_dir(cwd)
        .env("HOME", home)
        .program("copilot")
        .option("--model", model)
        .arg(&format!("--resume={id}"))
        .finish()
}
