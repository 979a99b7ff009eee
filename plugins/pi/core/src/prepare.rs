//! `prepare`: the plan that installs a written session file into a target
//! home: one `create-file` at `<sessions>/<folder of the cwd>/<ts>_<id>.jsonl`,
//! the folder derived for `options.cwd` (else the header's cwd) and, for Oh
//! My Pi, the target's `home-path`. When `options.cwd` differs from the
//! header's, the header line is rewritten to name it (the harness takes a
//! session's cwd from its header only). Nothing else is needed: Pi and Oh My
//! Pi keep no index of sessions, and resume a file given by path.
//!
//! The guest never writes: the host validates and executes the plan.

use serde_json::Value;
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::CreateFile;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::{Artifact, CodecError, Operation, Plan, WriteOptions};

use trajhost_codec_sdk::writer::install;

use crate::Flavor;
use crate::layout;
use crate::native::{str_of, string_of};

/// Largest session artifact accepted.
const MAX_ARTIFACT_BYTES: usize = 512 << 20;

/// The plan for `artifacts` (one session file, as `write` made it).
pub fn prepare(
    flavor: &Flavor,
    artifacts: Vec<Artifact>,
    target: &Dir,
    options: &WriteOptions,
) -> Result<Plan, CodecError> {
    let prefix = format!("{}/", flavor.sessions_dir);
    let mut files =
        artifacts.into_iter().filter(|a| a.path.starts_with(&prefix) && layout::check_locator(&a.path).is_ok());
    let (Some(artifact), None) = (files.next(), files.next()) else {
        return Err(CodecError::Malformed(format!(
            "expected exactly one session file under {}/*/",
            flavor.sessions_dir
        )));
    };
    install::check_size(&artifact, MAX_ARTIFACT_BYTES)?;
    let (header_at, header) = header(&artifact)?;
    let id = string_of(&header, "id")
        .ok_or_else(|| CodecError::Malformed(format!("{}: the session header has no id", artifact.path)))?;
    if let Some(want) = options.native_id.as_deref()
        && !want.eq_ignore_ascii_case(&id)
    {
        return Err(CodecError::Malformed(format!(
            "{}: the session header id {id} is not the requested native id {want}",
            artifact.path
        )));
    }
    let name = install::file_name(&artifact.path).to_string();
    if layout::id_of_file_name(&name) != Some(id.as_str()) {
        return Err(CodecError::Malformed(format!(
            "{}: the file name does not end in the header id {id}",
            artifact.path
        )));
    }
    let header_cwd = str_of(&header, "cwd").map(str::to_string);
    let cwd = options.cwd.clone().or(header_cwd.clone()).ok_or_else(|| {
        CodecError::Malformed(format!("{}: no cwd in the header and none in the options", artifact.path))
    })?;
    let mut bytes = artifact.bytes;
    if header_cwd.as_deref() != Some(cwd.as_str()) {
        bytes = with_cwd(&bytes, header_at, header, &cwd);
    }
    let path = format!("{}/{name}", layout::session_dir(flavor, &cwd, options.home_path.as_deref()));
    match target.stat(&path) {
        Ok(_) => {
            return Err(CodecError::Other(format!(
                "{path} already exists in the target; trajhost never overwrites a session"
            )));
        }
        Err(FsError::NotFound(_)) => {}
        Err(e) => return Err(CodecError::Io(format!("{path}: {e}"))),
    }
    let resume = resume_command(flavor, &path, &cwd, options.home_path.as_deref());
    Ok(Plan {
        native_id: id,
        operations: vec![Operation::CreateFile(CreateFile { path, bytes })],
        resume_command: Some(resume),
    })
}

/// The `session` header line: its byte range and its JSON.
fn header(artifact: &Artifact) -> Result<((usize, usize), Value), CodecError> {
    let mut start = 0;
    for line in artifact.bytes.split(|&b| b == b'\n') {
        let end = start + line.len();
        if let Ok(v) = serde_json::from_slice::<Value>(line)
            && str_of(&v, "type") == Some("session")
        {
            return Ok(((start, end), v));
        }
        if str_of(&serde_json::from_slice::<Value>(line).unwrap_or(Value::Null), "type") != Some("title") {
            break;
        }
        start = end + 1;
    }
    Err(CodecError::Malformed(format!("{}: no `session` header line at the start", artifact.path)))
}

/// The file with its header's `cwd` replaced.
fn with_cwd(bytes: &[u8], (start, end): (usize, usize), mut header: Value, cwd: &str) -> Vec<u8> {
    if let Value::Object(map) = &mut header {
        map.insert("cwd".into(), Value::from(cwd));
    }
    let line = header.to_string();
    let mut out = Vec::with_capacity(bytes.len() + line.len());
    out.extend_from_slice(&bytes[..start]);
    out.extend_from_slice(line.as_bytes());
    out.extend_from_slice(&bytes[end..]);
    out
}

/// `cd <cwd> && pi --session <file>` (`omp --resume <file>`): the harness
/// resumes a session file given by path (`harness-lab.md` §6, §7).
pub fn resume_command(flavor: &Flavor, path: &str, cwd: &str, home: Option<&str>) -> String {
    let file = match home {
        Some(home) => shell_quote(&format!("{}/{path}", home.trim_end_matches('/'))),
        None => format!("\"$HOME\"/{}", shell_quote(path)),
    };
    format!("cd {} && {} {} {file}", shell_quote(cwd), flavor.program, flavor.resume_flag)
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%,=".contains(&b)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}
