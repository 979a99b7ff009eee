//! `prepare`: the plan that installs a written transcript into a target
//! home. Claude Code needs nothing but the file: no index, no database.
//!
//! - One `create-file` per artifact, under
//!   `.claude/projects/<project-dir-name(cwd)>/`, where `cwd` is
//!   `options.cwd`, else the transcript's own. When `options.cwd` differs
//!   from the transcript's, the file is moved to that cwd's project
//!   directory and the `cwd` field of its lines is rewritten (only the
//!   top-level field of each line; tool arguments keep the paths the
//!   conversation used).
//! - The target is checked first: a session file that exists, at the
//!   destination or with the same id in another project directory, fails
//!   the plan naming it (the host refuses to overwrite too).
//! - `resume-command`: `cd <cwd> && claude -p --resume <id> "<prompt>"`.
//!   It must run from that cwd: Claude Code looks a session up in the
//!   project directory of the directory it runs in. It assumes the target
//!   home is the user's `$HOME` (for another home, run it with
//!   `CLAUDE_CONFIG_DIR=<home>/.claude`).
//!
//! The guest never writes: the host validates and executes the plan.

use serde::Deserialize;
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::CreateFile;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::writer::install::{self, ResumeCommand};
use trajhost_codec_sdk::{Artifact, CodecError, Operation, Plan, WriteOptions};

use crate::layout::{self, JSONL, WRITE_ROOT};

/// Largest artifact accepted.
const MAX_ARTIFACT_BYTES: usize = 512 << 20;

/// The plan for `artifacts` (a transcript as `write` made it).
pub fn prepare(artifacts: Vec<Artifact>, target: &Dir, options: &WriteOptions) -> Result<Plan, CodecError> {
    let mut session: Option<(String, String)> = None;
    let mut placed = Vec::new();
    for artifact in &artifacts {
        install::check_size(artifact, MAX_ARTIFACT_BYTES)?;
        let (_, rest) = split_path(&artifact.path)?;
        if !rest.contains('/') && rest.ends_with(JSONL) {
            if session.is_some() {
                return Err(CodecError::Malformed(format!(
                    "more than one session transcript among the artifacts ({})",
                    artifact.path
                )));
            }
            let facts = Facts::of(artifact)?;
            session = Some((facts.session_id, facts.cwd));
        }
        placed.push(rest.to_string());
    }
    let Some((native_id, source_cwd)) = session else {
        return Err(CodecError::Malformed(format!(
            "no session transcript among the artifacts (expected {WRITE_ROOT}/<project>/<id>.jsonl)"
        )));
    };
    if let Some(id) = options.native_id.as_deref()
        && !id.eq_ignore_ascii_case(&native_id)
    {
        return Err(CodecError::Malformed(format!(
            "the transcript's sessionId {native_id} is not the requested native id {id}"
        )));
    }
    let cwd = options.cwd.clone().filter(|c| !c.is_empty()).unwrap_or_else(|| source_cwd.clone());
    let project = layout::project_dir(&cwd);
    let file_name = format!("{native_id}{JSONL}");
    refuse_existing_session(target, &file_name, &format!("{project}/{file_name}"))?;

    let mut operations = Vec::new();
    for (artifact, rest) in artifacts.into_iter().zip(placed) {
        let path = format!("{project}/{rest}");
        match target.stat(&path) {
            Ok(_) => {
                return Err(CodecError::Other(format!(
                    "{path} already exists in the target home; a session is never overwritten"
                )));
            }
            Err(FsError::NotFound(_)) => {}
            Err(e) => {
                return Err(CodecError::Io(format!("checking {path} in the target home: {e:?}")));
            }
        }
        let bytes = if rest.ends_with(JSONL) && cwd != source_cwd {
            rewrite_cwd(&artifact.bytes, &source_cwd, &cwd)
        } else {
            artifact.bytes
        };
        operations.push(Operation::CreateFile(CreateFile { path, bytes }));
    }
    Ok(Plan { native_id: native_id.clone(), operations, resume_command: Some(resume_command(&cwd, &native_id)) })
}

/// `cd <cwd> && claude -p --resume <id> "<prompt>"`.
pub fn resume_command(cwd: &str, id: &str) -> String {
    ResumeCommand::in_dir(Some(cwd)).program("claude").arg(&format!("-p --resume {id} \"<prompt>\"")).finish()
}

/// Splits `.claude/projects/<project>/<rest>` into its project directory
/// name and the rest, refusing anything else.
fn split_path(path: &str) -> Result<(&str, &str), CodecError> {
    let bad = || CodecError::Malformed(format!("artifact {path:?} is not a file under {WRITE_ROOT}/<project>/"));
    let rest = path.strip_prefix(WRITE_ROOT).and_then(|r| r.strip_prefix('/')).ok_or_else(bad)?;
    let (project, rest) = rest.split_once('/').ok_or_else(bad)?;
    if !layout::plain_file_name(project) || rest.split('/').any(|c| !layout::plain_file_name(c)) {
        return Err(bad());
    }
    Ok((project, rest))
}

/// What prepare needs from a transcript: the first line that names them.
struct Facts {
    session_id: String,
    cwd: String,
}

impl Facts {
    fn of(artifact: &Artifact) -> Result<Facts, CodecError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Envelope {
            session_id: Option<String>,
            cwd: Option<String>,
        }
        let stem = artifact.path.rsplit('/').next().and_then(|name| name.strip_suffix(JSONL)).unwrap_or_default();
        let mut session_id = None;
        let mut cwd = None;
        for line in artifact.bytes.split(|b| *b == b'\n') {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let envelope: Envelope = serde_json::from_slice(line)
                .map_err(|e| CodecError::Malformed(format!("{}: a line is not a JSON object ({e})", artifact.path)))?;
            if let Some(id) = envelope.session_id {
                if id != stem {
                    return Err(CodecError::Malformed(format!(
                        "{}: a line's sessionId is not the file name's {stem}",
                        artifact.path
                    )));
                }
                session_id.get_or_insert(id);
            }
            if cwd.is_none() {
                cwd = envelope.cwd;
            }
        }
        let session_id = session_id
            .ok_or_else(|| CodecError::Malformed(format!("{}: no line names the sessionId", artifact.path)))?;
        if !layout::is_session_id(&session_id) {
            return Err(CodecError::Malformed(format!(
                "{}: the session id is not a UUID, so `claude --resume` cannot name it",
                artifact.path
            )));
        }
        let cwd = cwd.ok_or_else(|| CodecError::Malformed(format!("{}: no line names the cwd", artifact.path)))?;
        Ok(Facts { session_id, cwd })
    }
}

/// Fails when a session file `file_name` exists in any project directory
/// of the target (`claude --resume <id>` must find exactly one).
fn refuse_existing_session(target: &Dir, file_name: &str, destination: &str) -> Result<(), CodecError> {
    let projects = match target.list(WRITE_ROOT) {
        Ok(entries) => entries,
        Err(FsError::NotFound(_)) => return Ok(()),
        Err(e) => {
            return Err(CodecError::Io(format!("listing {WRITE_ROOT} in the target home: {e:?}")));
        }
    };
    for project in projects.iter().filter(|e| e.is_dir()) {
        let path = format!("{WRITE_ROOT}/{}/{file_name}", project.name);
        match target.stat(&path) {
            Ok(_) if path == destination => {
                return Err(CodecError::Other(format!(
                    "{path} already exists in the target home; a session is never overwritten"
                )));
            }
            Ok(_) => {
                return Err(CodecError::Other(format!(
                    "the target home already has this session at {path}; installing it again under \
                     {destination} would make `claude --resume` ambiguous"
                )));
            }
            Err(FsError::NotFound(_)) => {}
            Err(e) => {
                return Err(CodecError::Io(format!("checking {path} in the target home: {e:?}")));
            }
        }
    }
    Ok(())
}

/// Rewrites the top-level `cwd` of every line that says `from` to `to`,
/// leaving every other byte as it was.
pub fn rewrite_cwd(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
    let Ok(replacement) = serde_json::to_string(to) else {
        return bytes.to_vec();
    };
    let mut out = Vec::with_capacity(bytes.len());
    for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        match top_level_value(line, b"cwd") {
            Some((start, end)) if serde_json::from_slice::<String>(&line[start..end]).is_ok_and(|v| v == from) => {
                out.extend_from_slice(&line[..start]);
                out.extend_from_slice(replacement.as_bytes());
                out.extend_from_slice(&line[end..]);
            }
            _ => out.extend_from_slice(line),
        }
    }
    out
}

/// The byte range of the value of top-level `key` in a JSON object line
/// (keys compared as written, without unescaping).
fn top_level_value(line: &[u8], key: &[u8]) -> Option<(usize, usize)> {
    let mut i = skip_ws(line, 0);
    if line.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    loop {
        i = skip_ws(line, i);
        if line.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = skip_string(line, i)?;
        let this_key = &line[i + 1..key_end - 1];
        i = skip_ws(line, key_end);
        if line.get(i) != Some(&b':') {
            return None;
        }
        let start = skip_ws(line, i + 1);
        let end = skip_value(line, start)?;
        if this_key == key {
            return Some((start, end));
        }
        i = skip_ws(line, end);
        match line.get(i) {
            Some(b',') => i += 1,
            _ => return None,
        }
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n')) {
        i += 1;
    }
    i
}

/// The index after the string starting at `i` (a `"`).
fn skip_string(b: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    loop {
        match b.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// The index after the value starting at `i`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match b.get(j)? {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while b.get(j).is_some_and(|c| !matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n')) {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_only_the_top_level_cwd() {
        let text = concat!(
            r#"{"message":{"content":[{"input":{"cwd":"/old"}}]},"cwd":"/old","x":"\"cwd\":\"/old\""}"#,
            "\n",
            r#"{"type":"ai-title","aiTitle":"t"}"#,
            "\n",
            r#"{"cwd":"/other"}"#,
            "\n"
        );
        let out = String::from_utf8(rewrite_cwd(text.as_bytes(), "/old", "/new dir")).unwrap();
        assert_eq!(
            out,
            concat!(
                r#"{"message":{"content":[{"input":{"cwd":"/old"}}]},"cwd":"/new dir","x":"\"cwd\":\"/old\""}"#,
                "\n",
                r#"{"type":"ai-title","aiTitle":"t"}"#,
                "\n",
                r#"{"cwd":"/other"}"#,
                "\n"
            )
        );
    }

    #[test]
    fn quotes_for_the_shell() {
        assert_eq!(resume_command("/home/u/p", "id"), r#"cd /home/u/p && claude -p --resume id "<prompt>""#);
        assert_eq!(trajhost_codec_sdk::shell::shell_quote("/a b/it's"), r"'/a b/it'\''s'");
    }
}
