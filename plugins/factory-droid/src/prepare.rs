//! `prepare`: the plan that installs a written transcript and its settings
//! file into a target home. Droid needs nothing else: `droid exec -s <id>`
//! finds the transcript by id under `~/.factory/sessions/` (with
//! `FACTORY_API_BASE_URL` reachable; the lab points it at loopback).
//!
//! - Two `create-file`s: `.factory/sessions/<slug(cwd)>/<id>.jsonl` and
//!   `<id>.settings.json`, where `cwd` is `options.cwd`, else the
//!   transcript's own; a different `options.cwd` moves the files to that
//!   cwd's directory and rewrites the `cwd` of `session_start` (the only
//!   line that has one); an empty `session_start.owner` becomes the target
//!   user's name (the last component of `options.home_path`, `/home/<user>`).
//! - A session with the same id anywhere under `.factory/sessions/` fails
//!   the plan: a session is never overwritten or installed twice.
//! - The session's model (`settings.json` `model`, and `providerLock` for a
//!   custom model) is the target's: `--model` (a custom model configured in
//!   the target's `~/.factory/settings.json`, by id `custom:<name>-<n>`,
//!   model name or display name, or a Factory model name), else the
//!   target's default model (`model` / `sessionDefaultSettings.model`),
//!   else its first custom model, else the one a Droid source recorded.
//!   The settings file may carry `//` and `/* */` comments.
//!   `--provider` must be the provider of that custom model (Droid selects
//!   providers through custom models only). Credentials (`apiKey`) are
//!   never copied: only the model id and provider name are.
//! - `resume-command`: `cd <cwd> && droid exec [-m <model>] -s <id> "<prompt>"`.

use serde_json::Value;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::target::TargetChoice;
use trajhost_codec_sdk::writer::install::{self, ResumeCommand};
use trajhost_codec_sdk::{Artifact, CodecError, CreateFile, Operation, Plan, WriteOptions};

use crate::layout::{JSONL, SESSIONS, SETTINGS};
use crate::write::{SessionStart, project_dir};

/// The target's Droid settings.
pub const TARGET_SETTINGS: &str = ".factory/settings.json";
/// Largest artifact accepted.
const MAX_ARTIFACT_BYTES: usize = 512 << 20;

/// A custom model the target configures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomModel {
    /// The id Droid selects it by: `custom:<displayName, spaces → "-">-<index>`.
    pub id: String,
    pub model: Option<String>,
    pub display_name: Option<String>,
    pub provider: Option<String>,
}

/// What the target home is configured with.
#[derive(Debug, Default, Clone)]
pub struct TargetConfig {
    pub default_model: Option<String>,
    pub custom_models: Vec<CustomModel>,
}

impl TargetConfig {
    /// Reads `~/.factory/settings.json` of the target (absent or unreadable:
    /// nothing configured).
    pub fn read(target: &Dir) -> TargetConfig {
        let value = match target.read_to_end(TARGET_SETTINGS, 4 << 20) {
            Ok(bytes) => serde_json::from_slice::<Value>(&bytes)
                .or_else(|_| serde_json::from_slice::<Value>(&strip_comments(&bytes)))
                .ok(),
            Err(_) => None,
        };
        value.map(|v| TargetConfig::of(&v)).unwrap_or_default()
    }

    pub fn of(settings: &Value) -> TargetConfig {
        let str_at =
            |v: &Value, k: &str| v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
        let default_model = str_at(settings, "model")
            .or_else(|| settings.get("sessionDefaultSettings").and_then(|s| str_at(s, "model")));
        let custom_models = settings
            .get("customModels")
            .and_then(Value::as_array)
            .map(|models| {
                models
                    .iter()
                    .enumerate()
                    .map(|(i, m)| {
                        let display_name = str_at(m, "displayName");
                        let model = str_at(m, "model");
                        let name = display_name.clone().or_else(|| model.clone()).unwrap_or_default();
                        let id = str_at(m, "id").unwrap_or_else(|| {
                            format!("custom:{}-{i}", name.split_whitespace().collect::<Vec<_>>().join("-"))
                        });
                        CustomModel { id, model, display_name, provider: str_at(m, "provider") }
                    })
                    .collect()
            })
            .unwrap_or_default();
        TargetConfig { default_model, custom_models }
    }

    fn custom(&self, name: &str) -> Option<&CustomModel> {
        self.custom_models.iter().find(|m| m.id == name).or_else(|| {
            self.custom_models
                .iter()
                .find(|m| m.model.as_deref() == Some(name) || m.display_name.as_deref() == Some(name))
        })
    }
}

/// `bytes` without `//` and `/* */` comments outside strings (a settings
/// file edited by hand may have them).
fn strip_comments(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let (mut i, mut in_string) = (0, false);
    while i < bytes.len() {
        let c = bytes[i];
        if in_string {
            out.push(c);
            if c == b'\\' && i + 1 < bytes.len() {
                out.push(bytes[i + 1]);
                i += 1;
            } else if c == b'"' {
                in_string = false;
            }
        } else if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        } else if c == b'/' && bytes.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i += 2;
            continue;
        } else {
            in_string = c == b'"';
            out.push(c);
        }
        i += 1;
    }
    out
}

/// The session's model and provider lock in the target.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    pub model: Option<String>,
    pub provider: Option<String>,
}

/// Decides the session's model: the user's choice, else the target's.
pub fn select(config: &TargetConfig, choice: &TargetChoice, recorded: Option<&str>) -> Result<Selection, CodecError> {
    let custom = |m: &CustomModel| Selection { model: Some(m.id.clone()), provider: m.provider.clone() };
    let selection = match (&choice.model, &choice.provider) {
        (Some(model), _) => match config.custom(model) {
            Some(m) => custom(m),
            None if model.starts_with("custom:") => {
                return Err(CodecError::Other(format!(
                    "model {model:?} is not a custom model configured in the target's ~/{TARGET_SETTINGS} \
                     (configured: {})",
                    names(config)
                )));
            }
            None if model.is_empty() || model.trim() != model || model.chars().any(char::is_control) => {
                return Err(CodecError::Other(format!("model {model:?} is not a name Droid accepts")));
            }
            None => Selection { model: Some(model.clone()), provider: None },
        },
        (None, Some(provider)) => match config.custom_models.iter().find(|m| m.provider.as_deref() == Some(provider)) {
            Some(m) => custom(m),
            None => {
                return Err(CodecError::Other(format!(
                    "provider {provider:?} is not the provider of a custom model configured in the target's \
                     ~/{TARGET_SETTINGS} (Droid selects a provider through a custom model; configured: {})",
                    names(config)
                )));
            }
        },
        (None, None) => {
            if let Some(model) = &config.default_model {
                config.custom(model).map(custom).unwrap_or(Selection { model: Some(model.clone()), provider: None })
            } else if let Some(m) = config.custom_models.first() {
                custom(m)
            } else {
                Selection { model: recorded.map(str::to_string), provider: None }
            }
        }
    };
    if let Some(provider) = &choice.provider
        && selection.provider.as_deref() != Some(provider.as_str())
    {
        return Err(CodecError::Other(format!(
            "provider {provider:?} is not the provider of model {:?} in the target (Droid selects a provider \
             through a custom model in ~/{TARGET_SETTINGS}; configured: {})",
            selection.model.as_deref().unwrap_or("(none)"),
            names(config)
        )));
    }
    Ok(selection)
}

fn names(config: &TargetConfig) -> String {
    if config.custom_models.is_empty() {
        return "none".into();
    }
    config
        .custom_models
        .iter()
        .map(|m| format!("{} ({})", m.id, m.provider.as_deref().unwrap_or("no provider")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The plan for `artifacts` (a transcript and its settings, as `write` made them).
pub fn prepare(
    artifacts: Vec<Artifact>,
    target: &Dir,
    options: &WriteOptions,
    choice: &TargetChoice,
) -> Result<Plan, CodecError> {
    let mut transcript = None;
    let mut settings = None;
    for artifact in artifacts {
        install::check_size(&artifact, MAX_ARTIFACT_BYTES)?;
        let name = split_path(&artifact.path)?;
        let slot = if name.ends_with(SETTINGS) {
            &mut settings
        } else if name.ends_with(JSONL) {
            &mut transcript
        } else {
            return Err(CodecError::Malformed(format!(
                "artifact {:?} is neither a transcript nor its settings",
                artifact.path
            )));
        };
        if slot.is_some() {
            return Err(CodecError::Malformed(format!(
                "more than one session among the artifacts ({})",
                artifact.path
            )));
        }
        *slot = Some(artifact);
    }
    let transcript = transcript.ok_or_else(|| {
        CodecError::Malformed(format!(
            "no session transcript among the artifacts (expected {SESSIONS}/<project>/<id>.jsonl)"
        ))
    })?;
    let (first, rest) = match transcript.bytes.iter().position(|b| *b == b'\n') {
        Some(i) => transcript.bytes.split_at(i),
        None => (&transcript.bytes[..], &[][..]),
    };
    let mut start: SessionStart = serde_json::from_slice(first)
        .ok()
        .filter(|s: &SessionStart| s.kind == "session_start")
        .ok_or_else(|| CodecError::Malformed(format!("{}: the first line is not a session_start", transcript.path)))?;
    let id = start.id.clone();
    let stem = transcript.path.rsplit('/').next().and_then(|n| n.strip_suffix(JSONL)).unwrap_or_default();
    if id != stem || !trajhost_codec_sdk::paths::is_uuid(&id) {
        return Err(CodecError::Malformed(format!(
            "{}: session_start.id {id:?} is not the file's UUID name",
            transcript.path
        )));
    }
    if let Some(wanted) = options.native_id.as_deref().filter(|w| !w.eq_ignore_ascii_case(&id)) {
        return Err(CodecError::Malformed(format!(
            "the transcript's session id {id} is not the requested native id {wanted}"
        )));
    }
    if let Some(settings) = &settings
        && settings.path != format!("{}{SETTINGS}", transcript.path.strip_suffix(JSONL).unwrap_or_default())
    {
        return Err(CodecError::Malformed(format!("{}: not the settings of {}", settings.path, transcript.path)));
    }
    refuse_existing(target, &id)?;

    let cwd = options.cwd.clone().filter(|c| !c.is_empty()).unwrap_or_else(|| start.cwd.clone());
    let owner = options
        .home_path
        .as_deref()
        .and_then(|h| h.trim_end_matches('/').rsplit('/').next())
        .filter(|o| !o.is_empty() && start.owner.is_empty())
        .map(str::to_string);
    let bytes = if cwd != start.cwd || owner.is_some() {
        start.cwd = cwd.clone();
        if let Some(owner) = owner {
            start.owner = owner;
        }
        let mut bytes = serde_json::to_vec(&start).map_err(|e| CodecError::Other(e.to_string()))?;
        bytes.extend_from_slice(rest);
        bytes
    } else {
        transcript.bytes
    };
    let mut session_settings = match &settings {
        Some(s) => match serde_json::from_slice::<Value>(&s.bytes) {
            Ok(Value::Object(map)) => map,
            _ => return Err(CodecError::Malformed(format!("{}: not a JSON object", s.path))),
        },
        None => serde_json::Map::new(),
    };
    let recorded = session_settings.get("model").and_then(Value::as_str).map(str::to_string);
    let selection = select(&TargetConfig::read(target), choice, recorded.as_deref())?;
    session_settings.remove("model");
    session_settings.remove("providerLock");
    if let Some(model) = &selection.model {
        session_settings.insert("model".into(), Value::String(model.clone()));
    }
    if let Some(provider) = &selection.provider {
        session_settings.insert("providerLock".into(), Value::String(provider.clone()));
    }
    let mut settings_bytes =
        serde_json::to_vec_pretty(&Value::Object(session_settings)).map_err(|e| CodecError::Other(e.to_string()))?;
    settings_bytes.push(b'\n');

    let dir = project_dir(&cwd);
    let operations = vec![
        Operation::CreateFile(CreateFile { path: format!("{dir}/{id}{JSONL}"), bytes }),
        Operation::CreateFile(CreateFile { path: format!("{dir}/{id}{SETTINGS}"), bytes: settings_bytes }),
    ];
    Ok(Plan {
        native_id: id.clone(),
        operations,
        resume_command: Some(resume_command(&cwd, selection.model.as_deref(), &id)),
    })
}

/// `cd <cwd> && droid exec [-m <model>] -s <id> "<prompt>"`.
pub fn resume_command(cwd: &str, model: Option<&str>, id: &str) -> String {
    ResumeCommand::in_dir(Some(cwd))
        .program("droid exec")
        .option("-m", model)
        .arg(&format!("-s {id} \"<prompt>\""))
        .finish()
}

/// The file name of `.factory/sessions/<project>/<name>`, refusing anything else.
fn split_path(path: &str) -> Result<&str, CodecError> {
    let bad = || CodecError::Malformed(format!("artifact {path:?} is not a file under {SESSIONS}/<project>/"));
    let rest = path.strip_prefix(SESSIONS).and_then(|r| r.strip_prefix('/')).ok_or_else(bad)?;
    let (project, name) = rest.split_once('/').ok_or_else(bad)?;
    if !trajhost_codec_sdk::paths::plain_name(project) || !trajhost_codec_sdk::paths::plain_name(name) {
        return Err(bad());
    }
    Ok(name)
}

/// Fails when a session `<id>.jsonl` exists in any project directory.
fn refuse_existing(target: &Dir, id: &str) -> Result<(), CodecError> {
    let projects = match target.list(SESSIONS) {
        Ok(entries) => entries,
        Err(FsError::NotFound(_)) => return Ok(()),
        Err(e) => return Err(CodecError::Io(format!("listing {SESSIONS} in the target home: {e:?}"))),
    };
    for project in projects.iter().filter(|e| e.is_dir()) {
        for name in [format!("{id}{JSONL}"), format!("{id}{SETTINGS}")] {
            let path = format!("{SESSIONS}/{}/{name}", project.name);
            match target.stat(&path) {
                Ok(_) => {
                    return Err(CodecError::Other(format!(
                        "the target home already has this session at {path}; a Droid session is never \
                         overwritten or installed twice"
                    )));
                }
                Err(FsError::NotFound(_)) => {}
                Err(e) => return Err(CodecError::Io(format!("checking {path} in the target home: {e:?}"))),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_model_ids_and_commands() {
        let config = TargetConfig::of(&serde_json::json!({"customModels": [
            {"model": "fake-model", "displayName": "Fake", "provider": "generic-chat-completion-api", "apiKey": "k"},
            {"model": "gpt-5-mini", "displayName": "BYOK GPT-5 MINI", "provider": "openai"}]}));
        assert_eq!(config.custom_models[0].id, "custom:Fake-0");
        assert_eq!(config.custom_models[1].id, "custom:BYOK-GPT-5-MINI-1");
        assert_eq!(
            resume_command("/a b", Some("custom:Fake-0"), "id"),
            r#"cd '/a b' && droid exec -m custom:Fake-0 -s id "<prompt>""#
        );
        assert_eq!(resume_command("/p", None, "id"), r#"cd /p && droid exec -s id "<prompt>""#);
        let text = br#"{ // models
          "customModels": [/* one */ {"displayName": "A // B", "provider": "p"}]}"#;
        let value: Value = serde_json::from_slice(&strip_comments(text)).unwrap();
        assert_eq!(TargetConfig::of(&value).custom_models[0].id, "custom:A-//-B-0");
    }
}
