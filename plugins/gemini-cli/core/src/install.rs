//! What both Gemini CLI `prepare`s check and build the same way: the
//! target choice, the export's artifacts (one session file and the
//! project's `.project_root`), the resume command.

use trajhost_codec_sdk::target::TargetChoice;
use trajhost_codec_sdk::writer::install::{self, ResumeCommand};
use trajhost_codec_sdk::{Artifact, CodecError, WriteOptions};

use crate::written::normalize_cwd;

/// Providers Gemini CLI can honour: the Gemini API is the only one.
pub const PROVIDERS: &[&str] = &["google", "gemini"];
/// The marker file Gemini CLI keeps in a project directory: its cwd.
pub const PROJECT_ROOT_FILE: &str = ".project_root";
/// Largest artifact accepted.
const MAX_ARTIFACT_BYTES: usize = 512 << 20;

/// A model Gemini CLI's `-m` takes (1–256 bytes, no surrounding space, no
/// control characters) and a provider it can use.
pub fn check_choice(choice: &TargetChoice) -> Result<(), CodecError> {
    if let Some(model) = &choice.model {
        install::check_model_name(model, 256, "Gemini CLI")?;
    }
    if let Some(provider) = &choice.provider
        && !PROVIDERS.iter().any(|p| p.eq_ignore_ascii_case(provider))
    {
        return Err(CodecError::Other(format!(
            "provider {provider:?} cannot be used by Gemini CLI: it talks only to Google's Gemini API (its \
             authentication is chosen in ~/.gemini/settings.json, not per session); leave --provider out or give \
             `google`"
        )));
    }
    Ok(())
}

/// The export's session file (the first whose name `is_session`) and its
/// `.project_root`, if any; `what` names a session file in the errors
/// (`"session file"`, `"session document (session-*.json)"`).
pub fn session_and_marker(
    artifacts: Vec<Artifact>,
    is_session: impl Fn(&str) -> bool,
    what: &str,
) -> Result<(Artifact, Option<Artifact>), CodecError> {
    let mut session = None;
    let mut marker = None;
    for artifact in artifacts {
        install::check_size(&artifact, MAX_ARTIFACT_BYTES)?;
        let name = artifact.path.rsplit('/').next().unwrap_or("");
        if name == PROJECT_ROOT_FILE {
            marker = Some(artifact);
        } else if is_session(name) && session.is_none() {
            session = Some(artifact);
        } else {
            return Err(CodecError::Malformed(format!(
                "artifact {:?} is neither a Gemini CLI {what} nor a .project_root",
                artifact.path
            )));
        }
    }
    let what = what.split(" (").next().unwrap_or(what);
    let session = session.ok_or_else(|| CodecError::Malformed(format!("the export holds no Gemini CLI {what}")))?;
    Ok((session, marker))
}

/// The session `id` the export's file `session` holds is the one asked
/// for, and the file's name ends in `-<its first 8 characters><extension>`
/// (`why` says what Gemini CLI uses that for, for the error).
pub fn check_session_id(
    session: &Artifact,
    id: &str,
    extension: &str,
    why: &str,
    options: &WriteOptions,
) -> Result<(), CodecError> {
    let file_name = session.path.rsplit('/').next().unwrap_or("");
    let short: String = id.chars().take(8).collect();
    if !file_name.ends_with(&format!("-{short}{extension}")) {
        return Err(CodecError::Malformed(format!(
            "{}: the file name does not end in the session id's first 8 characters ({short}), {why}",
            session.path
        )));
    }
    if let Some(wanted) = options.native_id.as_deref().filter(|w| *w != id) {
        return Err(CodecError::Malformed(format!(
            "the export's session id {id} is not the requested native id {wanted}"
        )));
    }
    Ok(())
}

/// The working directory the session resumes in: `--cwd`, else the one the
/// export's `.project_root` names; normalized as Gemini CLI does, absolute.
pub fn session_cwd(options: &WriteOptions, marker: Option<&Artifact>) -> Result<String, CodecError> {
    let written_cwd = marker.map(|m| String::from_utf8_lossy(&m.bytes).trim().to_string()).filter(|c| !c.is_empty());
    let cwd = options.cwd.clone().filter(|c| !c.is_empty()).or(written_cwd).ok_or_else(|| {
        CodecError::Malformed("the export names no working directory (.project_root); give one with --cwd".into())
    })?;
    let cwd = normalize_cwd(&cwd);
    if !cwd.starts_with('/') {
        return Err(CodecError::Other(format!("working directory {cwd:?} is not an absolute path")));
    }
    Ok(cwd)
}

/// `cd <cwd> && GEMINI_CLI_HOME=<home> gemini [-m M] --resume <id>`.
pub fn resume_command(cwd: &str, home: Option<&str>, model: Option<&str>, id: &str) -> String {
    ResumeCommand::in_dir(Some(cwd))
        .env("GEMINI_CLI_HOME", home.map(|h| h.trim_end_matches('/')))
        .program("gemini")
        .option("-m", model)
        .arg(&format!("--resume {id}"))
        .finish()
}

#[cfg(test)]
mod tests {
    use super::resume_command;

    #[test]
    fn commands() {
        assert_eq!(
            resume_command("/w p", Some("/h/"), Some("gemini-2.5-flash"), "abc"),
            "cd '/w p' && GEMINI_CLI_HOME=/h gemini -m gemini-2.5-flash --resume abc"
        );
        assert_eq!(resume_command("/w", None, None, "abc"), "cd /w && gemini --resume abc");
    }
}
