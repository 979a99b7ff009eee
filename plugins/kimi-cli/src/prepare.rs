//! `prepare`: the plan that installs a written session folder into a target
//! home.
//!
//! - The files go to `.kimi/sessions/<md5(cwd)>/<id>/` of the work directory
//!   the install names (`options.cwd`, else the one the export was written
//!   for): the folder is all that binds a session to its work directory.
//! - `~/.kimi/kimi.json` gets a `work_dirs` entry `{path, kaos: "local",
//!   last_session_id}` for that directory (`add-json-entry`, matched by
//!   `path`: an existing entry is left as it is). Without one, `kimi -r <id>`
//!   does not find the session and starts a new one under the same id,
//!   truncating its `context.jsonl`.
//! - The session folder must not exist in the target: a session is never
//!   merged into or overwritten.
//! - Kimi CLI records no model per session: it takes `default_model` of
//!   `~/.kimi/config.toml` (or the legacy `config.json`) or `--model
//!   <name>`, a `[models.<name>]` of that file. A requested model must be one of them and goes into the resume
//!   command; a requested provider must be the one that model (or the
//!   default) is configured with, since Kimi has no provider option.
//!   Credentials are never read or copied.
//! - `resume-command`: `cd <cwd> && HOME='<target>' kimi -w <cwd> -r <id>
//!   [-m <model>]`.

use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::writer::install::{self, ResumeCommand};
use trajhost_codec_sdk::{AddJsonEntry, ArtifactInfo, CodecError, CopyArtifact, Operation, Plan, WriteOptions};

use crate::layout::{self, CONTEXT, LOCAL_KAOS, METADATA, SESSIONS, STATE, WIRE};
use crate::write::is_session_id;

/// Kimi CLI's configuration file (TOML).
pub const CONFIG: &str = ".kimi/config.toml";
/// Its legacy JSON form.
pub const LEGACY_CONFIG: &str = ".kimi/config.json";
/// Largest config file read.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The user's choice of model and provider for the target (`--model`,
/// `--provider`; API 0.2.1), as the SDK gives it.
pub use trajhost_codec_sdk::target::{TargetChoice as Choice, choice as target_choice};

pub fn prepare(
    artifacts: Vec<ArtifactInfo>,
    target: &Dir,
    options: &WriteOptions,
    choice: &Choice,
) -> Result<Plan, CodecError> {
    // Every artifact is `.kimi/sessions/<folder>/<id>/<name>` of one session.
    let mut session: Option<(String, String)> = None;
    let mut names = Vec::new();
    for artifact in &artifacts {
        let bad = || {
            CodecError::Malformed(format!(
                "artifact {:?} is not {SESSIONS}/<work dir>/<id>/<context, wire or state file>",
                artifact.path
            ))
        };
        let rest = artifact.path.strip_prefix(SESSIONS).and_then(|r| r.strip_prefix('/')).ok_or_else(bad)?;
        let mut parts = rest.split('/');
        let (Some(folder), Some(id), Some(name), None) = (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let known = name == CONTEXT || name == WIRE || name == STATE || layout::rotation_index(name).is_some();
        if !known || !layout::plain_name(folder) || !is_session_id(id) {
            return Err(bad());
        }
        match &session {
            None => session = Some((folder.to_string(), id.to_string())),
            Some((f, i)) if f == folder && i == id => {}
            Some(_) => return Err(CodecError::Malformed("the artifacts are not of one Kimi CLI session".into())),
        }
        names.push((artifact.path.clone(), name.to_string()));
    }
    // The folder the export was written for is replaced by the install's
    // work directory's: the folder is all that binds the files to it.
    let Some((_, id)) = session else {
        return Err(CodecError::Malformed("an export of a Kimi CLI session holds its session folder".into()));
    };
    if !names.iter().any(|(_, n)| n == CONTEXT) {
        return Err(CodecError::Malformed(format!("the export has no {CONTEXT}")));
    }
    install::check_requested_id(&id, options)?;
    let cwd = options.cwd.clone().filter(|c| !c.is_empty()).ok_or_else(|| {
        CodecError::Malformed(
            "installing a Kimi CLI session needs its work directory (give --cwd): Kimi files sessions under \
             md5(work dir) and lists the directory in kimi.json"
                .into(),
        )
    })?;
    if !cwd.starts_with('/') {
        return Err(CodecError::Malformed(format!("the work directory {cwd:?} is not an absolute path")));
    }
    let target_folder = layout::work_dir_folder(&cwd, LOCAL_KAOS);
    let dir = format!("{SESSIONS}/{target_folder}/{id}");
    // The id must be new to the whole home: `kimi -r <id>` in another work
    // directory would otherwise name two sessions.
    let folders = match target.list(SESSIONS) {
        Ok(entries) => entries.into_iter().filter(|e| e.is_dir()).map(|e| e.name).collect(),
        Err(FsError::NotFound(_)) => Vec::new(),
        Err(e) => return Err(CodecError::Io(format!("listing {SESSIONS} in the target home: {e:?}"))),
    };
    for existing in folders.iter().map(|f| format!("{SESSIONS}/{f}/{id}")) {
        match target.stat(&existing) {
            Ok(_) => {
                return Err(CodecError::Other(format!(
                    "{existing} already exists in the target home; a Kimi CLI session is never overwritten or merged"
                )));
            }
            Err(FsError::NotFound(_)) => {}
            Err(e) => return Err(CodecError::Io(format!("checking {existing} in the target home: {e:?}"))),
        }
    }
    let config = read_config(target);
    let model = match &choice.model {
        Some(model) => {
            let config = config.as_ref().ok_or_else(|| {
                CodecError::Other(format!(
                    "model {model:?} cannot be used: the target has no ~/{CONFIG} (Kimi CLI takes a model by its \
                     [models.<name>] there)"
                ))
            })?;
            if !config.models.iter().any(|(name, _)| name == model) {
                return Err(CodecError::Other(format!(
                    "model {model:?} is not configured in the target's ~/{CONFIG} (configured: {}); Kimi CLI \
                     takes --model as the name of a [models.<name>] table",
                    list(config.models.iter().map(|(n, _)| n.as_str()))
                )));
            }
            Some(model.clone())
        }
        None => None,
    };
    if let Some(provider) = &choice.provider {
        let effective = model.clone().or_else(|| config.as_ref().and_then(|c| c.default_model.clone()));
        let configured = effective
            .as_deref()
            .and_then(|m| config.as_ref()?.models.iter().find(|(n, _)| n == m))
            .and_then(|(_, p)| p.clone());
        if configured.as_deref() != Some(provider.as_str()) {
            return Err(CodecError::Other(format!(
                "provider {provider:?} cannot be chosen: Kimi CLI has no provider option, it uses the provider \
                 its model is configured with in ~/{CONFIG} ({} for model {})",
                configured.as_deref().unwrap_or("none"),
                effective.as_deref().unwrap_or("(no default_model)")
            )));
        }
    }

    let mut operations: Vec<Operation> = names
        .into_iter()
        .map(|(artifact, name)| Operation::CopyArtifact(CopyArtifact { artifact, path: layout::join(&dir, &name) }))
        .collect();
    let entry = serde_json::json!({"path": cwd, "kaos": LOCAL_KAOS, "last_session_id": id});
    operations.push(Operation::AddJsonEntry(AddJsonEntry {
        path: METADATA.to_string(),
        pointer: "/work_dirs".to_string(),
        key: None,
        match_member: Some("path".to_string()),
        value: entry.to_string(),
        initial: Some(serde_json::json!({"work_dirs": []}).to_string()),
    }));
    let command = resume_command(&cwd, options.home_path.as_deref(), model.as_deref(), &id);
    Ok(Plan { native_id: id, operations, resume_command: Some(command) })
}

/// `cd <cwd> && HOME='<home>' kimi -w <cwd> -r <id> [-m <model>]`.
pub fn resume_command(cwd: &str, home: Option<&str>, model: Option<&str>, id: &str) -> String {
    ResumeCommand::in_dir(Some(cwd))
        .env("HOME", home)
        .program("kimi")
        .option("-w", Some(cwd))
        .option("-r", Some(id))
        .option("-m", model)
        .finish()
}

fn list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    if names.is_empty() { "none".to_string() } else { names.join(", ") }
}

/// What prepare needs from `config.toml`: `default_model` and each
/// `[models.<name>]` with its `provider`. Nothing else is read or kept (the
/// providers' keys stay where they are).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Config {
    pub default_model: Option<String>,
    pub models: Vec<(String, Option<String>)>,
}

/// `config.toml`, else the legacy `config.json` (which Kimi CLI migrates to
/// TOML at its next start).
fn read_config(target: &Dir) -> Option<Config> {
    if let Ok(bytes) = target.read_to_end(CONFIG, MAX_CONFIG_BYTES) {
        return Some(parse_config(&String::from_utf8_lossy(&bytes)));
    }
    let bytes = target.read_to_end(LEGACY_CONFIG, MAX_CONFIG_BYTES).ok()?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    Some(config_of_json(&value))
}

/// The same facts from a legacy `config.json`.
pub fn config_of_json(value: &serde_json::Value) -> Config {
    let text = |v: &serde_json::Value, key: &str| v.get(key).and_then(serde_json::Value::as_str).map(str::to_string);
    Config {
        default_model: text(value, "default_model"),
        models: value
            .get("models")
            .and_then(serde_json::Value::as_object)
            .map(|models| models.iter().map(|(name, m)| (name.clone(), text(m, "provider"))).collect())
            .unwrap_or_default(),
    }
}

/// A line-level reading of the top-level `default_model` and the
/// `[models.<name>]` tables' `provider`.
pub fn parse_config(toml: &str) -> Config {
    let mut config = Config::default();
    let mut table: Option<String> = None;
    let mut in_model = false;
    for line in toml.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            let name = line.trim_start_matches('[').trim_end_matches(']').trim();
            table = Some(name.to_string());
            in_model = false;
            if let Some(model) = name.strip_prefix("models.") {
                let model = unquote(model.trim()).unwrap_or_else(|| model.trim().to_string());
                config.models.push((model, None));
                in_model = true;
            }
            continue;
        }
        let Some((key, value)) = line.split_once('=') else { continue };
        let (key, value) = (key.trim(), value.trim());
        match (table.as_deref(), key) {
            (None, "default_model") => config.default_model = unquote(value),
            (Some(_), "provider") if in_model => {
                if let Some(last) = config.models.last_mut() {
                    last.1 = unquote(value);
                }
            }
            _ => {}
        }
    }
    config
}

/// A TOML basic or literal string (a trailing comment allowed).
fn unquote(value: &str) -> Option<String> {
    let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let rest = &value[1..];
    let end = rest.find(quote)?;
    Some(rest[..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_and_command() {
        let c = parse_config(
            "default_model = \"fake\"\n[providers.fake]\ntype = \"openai_legacy\"\napi_key = \"k\"\n\
             [models.fake]\nprovider = \"fake\"\nmodel = \"fake-model\"\n[models.\"k2\"]\nprovider = 'moon'\n",
        );
        assert_eq!(c.default_model.as_deref(), Some("fake"));
        assert_eq!(c.models, vec![("fake".into(), Some("fake".into())), ("k2".into(), Some("moon".into()))]);
        let legacy =
            config_of_json(&serde_json::json!({"default_model": "k2", "models": {"k2": {"provider": "moon"}}}));
        assert_eq!(
            legacy,
            Config { default_model: Some("k2".into()), models: vec![("k2".into(), Some("moon".into()))] }
        );
        assert_eq!(
            resume_command("/w p", Some("/h"), Some("k2"), "abc"),
            "cd '/w p' && HOME=/h kimi -w '/w p' -r abc -m k2"
        );
    }
}
