//! `prepare`: the plan that installs a written `session.json` into a target
//! home: one `create-file` at `.fx/sessions/<id>/session.json`. fx needs no
//! index (`.resume-catalog` is derived and re-read when stale) and imports
//! the legacy file into its schema-4 layout on the first writable open.
//!
//! - The session directory must not exist in the target: a session is never
//!   merged into or overwritten.
//! - `options.cwd`, when it differs from the file's `workspace_root`,
//!   replaces that value (only that top-level value; every other byte stays).
//! - A requested provider must be one of fx's built-ins (`gateway`, `codex`,
//!   `grok`, any case) or a connection configured in the target's
//!   `~/.fx/settings.json`; a requested model must be a name fx accepts.
//!   Schema 1 has no provider or model field: they go into the resume
//!   command as fx's global options.
//! - `resume-command`: `cd <cwd> && HOME='<target>' fx [--provider P]
//!   [--model M] resume <id>`. It runs in the session's workspace: resuming
//!   by id from another directory rebinds the session to that directory.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::CreateFile;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::shell::shell_quote;
use trajhost_codec_sdk::writer::install;
use trajhost_codec_sdk::{Artifact, CodecError, Operation, Plan, WriteOptions};

use crate::layout::{self, SESSION_JSON, SESSIONS};

/// fx's built-in providers (`provider` parsed case-insensitively).
pub const BUILTIN_PROVIDERS: &[&str] = &["gateway", "codex", "grok"];
/// Where fx keeps its settings, connections included.
pub const SETTINGS: &str = ".fx/settings.json";
/// Largest artifact accepted.
const MAX_ARTIFACT_BYTES: usize = 256 << 20;

/// The user's choice of model and provider for the target (`--model`,
/// `--provider`; API 0.2.1), as the SDK gives it.
pub use trajhost_codec_sdk::target::{TargetChoice as Choice, choice as target_choice};

/// The plan for `artifacts` (a `session.json` as `write` made it).
pub fn prepare(
    artifacts: Vec<Artifact>,
    target: &Dir,
    options: &WriteOptions,
    choice: &Choice,
) -> Result<Plan, CodecError> {
    let [artifact] = <[Artifact; 1]>::try_from(artifacts)
        .map_err(|a| CodecError::Malformed(format!("an fx export is one {SESSION_JSON}, not {} artifacts", a.len())))?;
    install::check_size(&artifact, MAX_ARTIFACT_BYTES)?;
    let id = artifact
        .path
        .strip_prefix(SESSIONS)
        .and_then(|r| r.strip_prefix('/'))
        .and_then(|r| r.strip_suffix(SESSION_JSON))
        .and_then(|r| r.strip_suffix('/'))
        .filter(|id| layout::is_session_id(id))
        .ok_or_else(|| {
            CodecError::Malformed(format!("artifact {:?} is not {SESSIONS}/<id>/{SESSION_JSON}", artifact.path))
        })?
        .to_string();

    #[derive(Deserialize)]
    struct Facts<'a> {
        schema_version: Option<u64>,
        id: Option<String>,
        #[serde(borrow)]
        workspace_root: Option<&'a RawValue>,
    }
    let facts: Facts<'_> = serde_json::from_slice(&artifact.bytes)
        .map_err(|e| CodecError::Malformed(format!("{}: not a JSON object ({e})", artifact.path)))?;
    if !matches!(facts.schema_version, Some(1 | 2)) {
        return Err(CodecError::Malformed(format!("{}: not a legacy session.json (schema 1 or 2)", artifact.path)));
    }
    if facts.id.as_deref() != Some(id.as_str()) {
        return Err(CodecError::Malformed(format!(
            "{}: its id is not the folder name {id} (fx refuses to import such a session)",
            artifact.path
        )));
    }
    install::check_requested_id(&id, options)?;
    let written_cwd =
        facts.workspace_root.and_then(|raw| serde_json::from_str::<Option<String>>(raw.get()).ok().flatten());
    let cwd = options.cwd.clone().filter(|c| !c.is_empty()).or(written_cwd.clone());
    let bytes = match (&cwd, facts.workspace_root) {
        (Some(cwd), Some(raw)) if written_cwd.as_deref() != Some(cwd.as_str()) => {
            let start = raw.get().as_ptr() as usize - artifact.bytes.as_ptr() as usize;
            let end = start + raw.get().len();
            let value = serde_json::to_string(cwd).map_err(|e| CodecError::Other(e.to_string()))?;
            [&artifact.bytes[..start], value.as_bytes(), &artifact.bytes[end..]].concat()
        }
        _ => artifact.bytes.clone(),
    };

    let dir = layout::join(SESSIONS, &id);
    match target.stat(&dir) {
        Ok(_) => {
            return Err(CodecError::Other(format!(
                "{dir} already exists in the target home; an fx session is never overwritten or merged"
            )));
        }
        Err(FsError::NotFound(_)) => {}
        Err(e) => return Err(CodecError::Io(format!("checking {dir} in the target home: {e:?}"))),
    }
    if let Some(model) = &choice.model {
        check_model(model)?;
    }
    let provider = choice.provider.as_deref().map(|p| check_provider(target, p)).transpose()?;
    let command =
        resume_command(cwd.as_deref(), options.home_path.as_deref(), provider.as_deref(), choice.model.as_deref(), &id);
    Ok(Plan {
        native_id: id.clone(),
        operations: vec![Operation::CreateFile(CreateFile { path: layout::session_json(&id), bytes })],
        resume_command: Some(command),
    })
}

/// A model name fx accepts: 1–1024 bytes, no surrounding whitespace, no
/// control characters.
fn check_model(model: &str) -> Result<(), CodecError> {
    install::check_model_name(model, 1024, "fx")
}

/// The provider as fx spells it: a built-in (lowercased) or a connection
/// configured in the target's settings. Anything else is refused.
pub fn check_provider(target: &Dir, provider: &str) -> Result<String, CodecError> {
    if let Some(builtin) = BUILTIN_PROVIDERS.iter().find(|b| b.eq_ignore_ascii_case(provider)) {
        return Ok(builtin.to_string());
    }
    let settings = match target.read_to_end(SETTINGS, 4 << 20) {
        Ok(bytes) => serde_json::from_slice::<Value>(&bytes).ok(),
        Err(_) => None,
    };
    if settings.as_ref().is_some_and(|s| names_connection(s, provider, false)) {
        return Ok(provider.to_string());
    }
    Err(CodecError::Other(format!(
        "provider {provider:?} is neither one of fx's built-in providers ({}) nor a connection configured in the \
         target's ~/{SETTINGS}",
        BUILTIN_PROVIDERS.join(", ")
    )))
}

/// Whether a settings value configures a connection named `name`: under a
/// key mentioning connections or providers, an object member of that name or
/// an object whose `name` is it.
fn names_connection(value: &Value, name: &str, inside: bool) -> bool {
    match value {
        Value::Object(map) => {
            if inside && (map.contains_key(name) || map.get("name").and_then(Value::as_str) == Some(name)) {
                return true;
            }
            map.iter().any(|(key, v)| {
                let key = key.to_ascii_lowercase();
                names_connection(v, name, inside || key.contains("connection") || key.contains("provider"))
            })
        }
        Value::Array(items) => items.iter().any(|v| names_connection(v, name, inside)),
        _ => false,
    }
}

/// `cd <cwd> && HOME='<target>' fx [--provider P] [--model M] resume <id>`.
pub fn resume_command(
    cwd: Option<&str>,
    home: Option<&str>,
    provider: Option<&str>,
    model: Option<&str>,
    id: &str,
) -> String {
    let mut command = String::new();
    if let Some(cwd) = cwd {
        command.push_str(&format!("cd {} && ", shell_quote(cwd)));
    }
    if let Some(home) = home {
        command.push_str(&format!("HOME='{}' ", home.replace('\'', r"'\''")));
    }
    command.push_str("fx");
    if let Some(provider) = provider {
        command.push_str(&format!(" --provider {}", shell_quote(provider)));
    }
    if let Some(model) = model {
        command.push_str(&format!(" --model {}", shell_quote(model)));
    }
    command.push_str(&format!(" resume {id}"));
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_connections() {
        assert_eq!(
            resume_command(Some("/w p"), Some("/h"), Some("gateway"), Some("openai/gpt-5"), "abc"),
            "cd '/w p' && HOME='/h' fx --provider gateway --model openai/gpt-5 resume abc"
        );
        assert_eq!(resume_command(None, None, None, None, "abc"), "fx resume abc");
        let settings = serde_json::json!({"connections": [{"name": "work", "binding": "ab"}], "model": "x"});
        assert!(names_connection(&settings, "work", false));
        assert!(!names_connection(&settings, "x", false));
        assert!(!names_connection(&serde_json::json!({"work": 1}), "work", false));
    }
}
