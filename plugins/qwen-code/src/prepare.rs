//! `prepare`: the plan that installs a written transcript into a target
//! home. Qwen Code needs nothing but the file: no index, no database.
//!
//! - One `create-file` at `.qwen/projects/<sanitized cwd>/chats/<id>.jsonl`,
//!   where `cwd` is `options.cwd`, else the transcript's own. When
//!   `options.cwd` differs, the top-level `cwd` of every line is rewritten
//!   (Qwen Code lists a session only when its first line's cwd hashes to the
//!   project's; tool arguments keep the paths the conversation used).
//! - The target is checked first: a transcript with the same id in any
//!   project directory fails the plan (a session is never overwritten or
//!   merged), and so does `advanced.runtimeOutputDir` in the target's
//!   `~/.qwen/settings.json`, which moves session data out of `~/.qwen`.
//! - Model and provider: Qwen Code 0.15.10 records no model per session to
//!   resume with — `model` on an assistant line is the model that served that
//!   response, and a resumed session takes its model from `-m`, else the
//!   target's `model.name` in `~/.qwen/settings.json`, else the auth type's
//!   environment. So the transcript keeps the source's models, the target's
//!   configured model applies by itself, and `--model` / `--provider` go into
//!   the resume command as `-m <model>` / `--auth-type <provider>`. A
//!   provider must be one of Qwen Code's auth types (`openai`, `anthropic`,
//!   `qwen-oauth`, `gemini`, `vertex-ai`); anything else is refused.
//!   Credentials are never copied: the target's own configuration is used.
//! - `resume-command`: `cd <cwd> && [QWEN_HOME=<home>/.qwen] qwen
//!   [--auth-type P] [-m M] --resume <id>`. It must run from that cwd: Qwen
//!   Code looks sessions up in the project directory of the directory it runs
//!   in. `qwen --continue` from that cwd resumes it too: it picks the
//!   project's transcript with the newest file modification time, and the
//!   installed file is written at install time, after every session already
//!   there (until one of those is continued again).
//!
//! The guest never writes: the host validates and executes the plan.

use serde::Deserialize;
use serde_json::Value;
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::CreateFile;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::writer::install::{self, ResumeCommand};
use trajhost_codec_sdk::{Artifact, CodecError, Operation, Plan, WriteOptions};

use crate::layout::{self, CHATS, JSONL, WRITE_ROOT};

/// Largest artifact accepted.
const MAX_ARTIFACT_BYTES: usize = 512 << 20;
/// Qwen Code's settings, relative to the home.
pub const SETTINGS: &str = ".qwen/settings.json";
/// Qwen Code 0.15.10's `--auth-type` choices: the providers it can resume with.
pub const AUTH_TYPES: &[&str] = &["openai", "anthropic", "qwen-oauth", "gemini", "vertex-ai"];

/// The user's choice of model and provider for the target (`--model`,
/// `--provider`; API 0.2.1), as the SDK gives it.
pub use trajhost_codec_sdk::target::{TargetChoice as Choice, choice as target_choice};

/// The plan for `artifacts` (a transcript as `write` made it).
pub fn prepare(
    artifacts: Vec<Artifact>,
    target: &Dir,
    options: &WriteOptions,
    choice: &Choice,
) -> Result<Plan, CodecError> {
    let [artifact] = <[Artifact; 1]>::try_from(artifacts).map_err(|a| {
        CodecError::Malformed(format!("a Qwen Code export is one transcript, not {} artifacts", a.len()))
    })?;
    install::check_size(&artifact, MAX_ARTIFACT_BYTES)?;
    let stem = transcript_stem(&artifact.path)?;
    let facts = Facts::of(&artifact, &stem)?;
    if let Some(id) = options.native_id.as_deref()
        && !id.eq_ignore_ascii_case(&facts.session_id)
    {
        return Err(CodecError::Malformed(format!(
            "the transcript's sessionId {} is not the requested native id {id}",
            facts.session_id
        )));
    }
    let cwd = options.cwd.clone().filter(|c| !c.is_empty()).unwrap_or_else(|| facts.cwd.clone());
    if !layout::is_absolute(&cwd) {
        return Err(CodecError::Malformed(format!("the working directory {cwd:?} is not an absolute path")));
    }
    let settings = read_settings(target)?;
    if let Some(dir) = settings.as_ref().and_then(|s| s.pointer("/advanced/runtimeOutputDir")).and_then(Value::as_str) {
        return Err(CodecError::Other(format!(
            "the target's ~/{SETTINGS} sets advanced.runtimeOutputDir ({dir:?}): Qwen Code keeps sessions there, \
             outside the home this plan installs into"
        )));
    }
    let file_name = format!("{}{JSONL}", facts.session_id);
    refuse_existing_session(target, &file_name)?;
    let path = layout::session_path(&cwd, &facts.session_id);
    match target.stat(&path) {
        Ok(_) => {
            return Err(CodecError::Other(format!(
                "{path} already exists in the target home; a session is never overwritten"
            )));
        }
        Err(FsError::NotFound(_)) => {}
        Err(e) => return Err(CodecError::Io(format!("checking {path} in the target home: {e:?}"))),
    }
    if let Some(model) = &choice.model {
        check_model(model)?;
    }
    let provider = choice.provider.as_deref().map(check_provider).transpose()?;
    let bytes = if cwd != facts.cwd { rewrite_cwd(&artifact.bytes, &cwd)? } else { artifact.bytes };
    let command =
        resume_command(&cwd, options.home_path.as_deref(), provider, choice.model.as_deref(), &facts.session_id);
    Ok(Plan {
        native_id: facts.session_id.clone(),
        operations: vec![Operation::CreateFile(CreateFile { path, bytes })],
        resume_command: Some(command),
    })
}

/// The session id a transcript's path names:
/// `.qwen/projects/<project>/chats/<uuid>.jsonl`.
fn transcript_stem(path: &str) -> Result<String, CodecError> {
    let bad = || CodecError::Malformed(format!("artifact {path:?} is not {WRITE_ROOT}/<project>/{CHATS}/<uuid>.jsonl"));
    let rest = path.strip_prefix(WRITE_ROOT).and_then(|r| r.strip_prefix('/')).ok_or_else(bad)?;
    let parts: Vec<&str> = rest.split('/').collect();
    let [project, chats, file] = parts.as_slice() else { return Err(bad()) };
    let stem = file.strip_suffix(JSONL).ok_or_else(bad)?;
    if !layout::plain_file_name(project) || *chats != CHATS || !trajhost_codec_sdk::paths::is_uuid(stem) {
        return Err(bad());
    }
    Ok(stem.to_string())
}

/// What prepare needs from a transcript: its session id and cwd, which
/// every line must agree on.
struct Facts {
    session_id: String,
    cwd: String,
}

impl Facts {
    fn of(artifact: &Artifact, stem: &str) -> Result<Facts, CodecError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Envelope {
            session_id: Option<String>,
            cwd: Option<String>,
        }
        let mut cwd: Option<String> = None;
        for line in artifact.bytes.split(|b| *b == b'\n') {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let envelope: Envelope = serde_json::from_slice(line)
                .map_err(|e| CodecError::Malformed(format!("{}: a line is not a JSON object ({e})", artifact.path)))?;
            if envelope.session_id.as_deref() != Some(stem) {
                return Err(CodecError::Malformed(format!(
                    "{}: a line's sessionId is not the file name's {stem}",
                    artifact.path
                )));
            }
            match (&cwd, envelope.cwd) {
                (None, Some(c)) => cwd = Some(c),
                (Some(first), Some(c)) if *first != c => {
                    return Err(CodecError::Malformed(format!("{}: its lines name different cwds", artifact.path)));
                }
                (_, None) => {
                    return Err(CodecError::Malformed(format!("{}: a line has no cwd", artifact.path)));
                }
                _ => {}
            }
        }
        let cwd = cwd.ok_or_else(|| CodecError::Malformed(format!("{}: no lines", artifact.path)))?;
        Ok(Facts { session_id: stem.to_string(), cwd })
    }
}

/// The target's settings, when it has a readable file.
fn read_settings(target: &Dir) -> Result<Option<Value>, CodecError> {
    match target.read_to_end(SETTINGS, 4 << 20) {
        // Qwen Code reads its settings as JSON with comments; a file this
        // parser cannot read sets nothing this plan depends on.
        Ok(bytes) => Ok(serde_json::from_slice::<Value>(&bytes).ok()),
        Err(FsError::NotFound(_)) => Ok(None),
        Err(e) => Err(CodecError::Io(format!("reading ~/{SETTINGS} in the target home: {e:?}"))),
    }
}

/// A transcript with this file name in any project directory of the
/// target fails the plan.
fn refuse_existing_session(target: &Dir, file_name: &str) -> Result<(), CodecError> {
    let projects = match target.list(WRITE_ROOT) {
        Ok(entries) => entries,
        Err(FsError::NotFound(_)) => return Ok(()),
        Err(e) => return Err(CodecError::Io(format!("listing {WRITE_ROOT} in the target home: {e:?}"))),
    };
    for project in projects.iter().filter(|e| e.is_dir()) {
        let path = layout::join(&layout::join(&layout::join(WRITE_ROOT, &project.name), CHATS), file_name);
        match target.stat(&path) {
            Ok(_) => {
                return Err(CodecError::Other(format!(
                    "{path} already exists in the target home: this session is already installed (a session is \
                     never overwritten or merged)"
                )));
            }
            Err(FsError::NotFound(_)) => {}
            Err(e) => return Err(CodecError::Io(format!("checking {path} in the target home: {e:?}"))),
        }
    }
    Ok(())
}

/// Every line with its top-level `cwd` set to `cwd`.
fn rewrite_cwd(bytes: &[u8], cwd: &str) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::with_capacity(bytes.len());
    for line in bytes.split(|b| *b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let mut value: serde_json::Map<String, Value> = serde_json::from_slice(line)
            .map_err(|e| CodecError::Malformed(format!("a transcript line is not a JSON object ({e})")))?;
        value.insert("cwd".into(), Value::String(cwd.to_string()));
        out.extend_from_slice(&serde_json::to_vec(&value).map_err(|e| CodecError::Other(e.to_string()))?);
        out.push(b'\n');
    }
    Ok(out)
}

/// A model name Qwen Code accepts for `-m`: 1–1024 bytes, no surrounding
/// whitespace, no control characters.
fn check_model(model: &str) -> Result<(), CodecError> {
    install::check_model_name(model, 1024, "Qwen Code")
}

/// The provider as Qwen Code's `--auth-type` spells it.
pub fn check_provider(provider: &str) -> Result<&'static str, CodecError> {
    AUTH_TYPES.iter().find(|a| a.eq_ignore_ascii_case(provider)).copied().ok_or_else(|| {
        CodecError::Other(format!(
            "provider {provider:?} is not one Qwen Code can resume with: its --auth-type takes {}",
            AUTH_TYPES.join(", ")
        ))
    })
}

/// `cd <cwd> && [QWEN_HOME=<home>/.qwen] qwen [--auth-type P] [-m M] --resume <id>`.
pub fn resume_command(cwd: &str, home: Option<&str>, provider: Option<&str>, model: Option<&str>, id: &str) -> String {
    let qwen_home = home.map(|home| format!("{}/{}", home.trim_end_matches('/'), layout::QWEN_DIR));
    ResumeCommand::in_dir(Some(cwd))
        .env("QWEN_HOME", qwen_home.as_deref())
        .program("qwen")
        .option("--auth-type", provider)
        .option("-m", model)
        .arg(&format!("--resume {id}"))
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_providers() {
        assert_eq!(
            resume_command("/w p", Some("/h/"), Some("openai"), Some("qwen3-coder-plus"), "abc"),
            "cd '/w p' && QWEN_HOME=/h/.qwen qwen --auth-type openai -m qwen3-coder-plus --resume abc"
        );
        assert_eq!(resume_command("/w", None, None, None, "abc"), "cd /w && qwen --resume abc");
        assert_eq!(check_provider("OpenAI").unwrap(), "openai");
        assert!(check_provider("bedrock").is_err());
        assert!(check_model(" x").is_err());
    }
}
