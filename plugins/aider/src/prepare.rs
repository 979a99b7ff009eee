//! `prepare`: the plan that puts a written block where Aider restores it,
//! `<cwd>/.aider.chat.history.md`.
//!
//! Aider keeps no store in HOME: the history lies in the workspace, and
//! `aider --restore-chat-history` run there restores every block of it as
//! one conversation. The plan's paths are relative to the target home, so
//! the working directory (`options.cwd`) must lie in it; without one, the
//! target directory itself is the workspace.
//!
//! Aider appends a block per run; installing a session beside others would
//! mean appending one to an existing history. The host's plan operations
//! (`create-file`, `copy-artifact`, `insert-rows`, `create-database`,
//! `add-json-entry`) cannot append to a file, and `create-file` never
//! replaces one: so a workspace that already holds a history is refused,
//! its bytes untouched, and the history is created where there is none.
//!
//! Model: Aider takes it from its command line, so a chosen model becomes
//! `--model` in the resume command; a provider is part of Aider's model
//! name (`openai/gpt-4o`) and is refused on its own.

use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::writer::install::{self, ResumeCommand};
use trajhost_codec_sdk::{Artifact, CodecError, Plan, WriteOptions};

use crate::history::{self, FILE};
use crate::session;

/// Largest history accepted.
const MAX_ARTIFACT_BYTES: usize = 512 << 20;

/// The user's choice of model and provider for the target (`--model`,
/// `--provider`), as the SDK gives it.
pub use trajhost_codec_sdk::target::TargetChoice as Choice;

pub fn prepare(
    artifacts: Vec<Artifact>,
    target: &Dir,
    options: &WriteOptions,
    choice: &Choice,
) -> Result<Plan, CodecError> {
    if choice.provider.is_some() {
        return Err(CodecError::Other(
            "Aider names the provider in the model (`--model openai/<name>`): leave --provider out".into(),
        ));
    }
    let [artifact] = <[Artifact; 1]>::try_from(artifacts)
        .map_err(|all| CodecError::Malformed(format!("an Aider export is one {FILE}, not {} artifacts", all.len())))?;
    install::check_size(&artifact, MAX_ARTIFACT_BYTES)?;
    if artifact.path != FILE {
        return Err(CodecError::Malformed(format!(
            "artifact {:?} is not an Aider chat history ({FILE})",
            artifact.path
        )));
    }
    let text = String::from_utf8(artifact.bytes)
        .map_err(|_| CodecError::Malformed(format!("{FILE}: the history is not UTF-8")))?;
    let blocks = history::blocks(&text);
    let [block] = blocks.as_slice() else {
        return Err(CodecError::Malformed(format!(
            "{FILE}: the export holds {} blocks, not one session",
            blocks.len()
        )));
    };
    if block.offset != 1 || !history::messages(block).iter().any(|m| m.kind == history::Kind::User) {
        return Err(CodecError::Malformed(format!(
            "{FILE}: not one written session with a user message (nothing for Aider to restore)"
        )));
    }
    let id = session::native_id(FILE, block);
    install::check_requested_id(&id, options)?;
    // No working directory: the target directory itself is the workspace.
    let home = options.home_path.as_deref().map(|h| h.trim_end_matches('/'));
    let cwd = options.cwd.as_deref().filter(|c| !c.is_empty()).or(home).ok_or_else(|| {
        CodecError::Other("Aider keeps its history in the workspace: give the working directory (--cwd)".into())
    })?;
    let cwd = if cwd.len() > 1 { cwd.trim_end_matches('/') } else { cwd };
    let path = history_path(options.home_path.as_deref(), cwd)?;
    if install::exists(target, &path)? {
        return Err(CodecError::Other(format!(
            "{cwd}/{FILE} already exists: Aider would restore this session from a new block appended to it, but the \
             host's plan operations cannot append to a file, and an existing history is never overwritten"
        )));
    }
    let command = resume_command(cwd, options.home_path.as_deref(), choice.model.as_deref());
    Ok(Plan {
        native_id: id,
        operations: vec![install::create_file(path, text.into_bytes())],
        resume_command: Some(command),
    })
}

/// `<cwd>/.aider.chat.history.md` relative to the target home, for a `cwd`
/// inside it.
pub fn history_path(home: Option<&str>, cwd: &str) -> Result<String, CodecError> {
    let home = home.map(|h| h.trim_end_matches('/')).ok_or_else(|| {
        CodecError::Other("Aider's history goes into the workspace: the target home's path is needed".into())
    })?;
    if cwd == home {
        return Ok(FILE.into());
    }
    match cwd.strip_prefix(home).and_then(|rest| rest.strip_prefix('/')) {
        Some(rel) if trajhost_codec_sdk::paths::is_relative_below(rel) => Ok(format!("{rel}/{FILE}")),
        _ => Err(CodecError::Other(format!(
            "the working directory {cwd} is not inside the target home {home}: Aider's history lies in the \
             workspace, and a plan writes only below the home"
        ))),
    }
}

/// `cd <cwd> && [HOME=<home>] aider [--model <model>] --restore-chat-history`.
pub fn resume_command(cwd: &str, home: Option<&str>, model: Option<&str>) -> String {
    ResumeCommand::in_dir(Some(cwd))
        .env("HOME", home.map(|h| h.trim_end_matches('/')))
        .program("aider")
        .option("--model", model)
        .arg("--restore-chat-history")
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_commands() {
        assert_eq!(history_path(Some("/h/"), "/h/w").unwrap(), "w/.aider.chat.history.md");
        assert_eq!(history_path(Some("/h"), "/h").unwrap(), FILE);
        assert!(history_path(Some("/h"), "/hx/w").is_err());
        assert!(history_path(Some("/h"), "/h/../etc").is_err());
        assert!(history_path(None, "/h/w").is_err());
        assert_eq!(resume_command("/w p", Some("/h/"), None), "cd '/w p' && HOME=/h aider --restore-chat-history");
        assert_eq!(
            resume_command("/w", None, Some("openai/m")),
            "cd /w && aider --model openai/m --restore-chat-history"
        );
    }
}
