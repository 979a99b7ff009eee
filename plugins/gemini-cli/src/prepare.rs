//! `prepare`: the plan that installs a written session into a target home.
//!
//! Gemini CLI finds a project's sessions through its registry,
//! `~/.gemini/projects.json` (`{"projects": {<root>: <slug>}}`), then lists
//! `~/.gemini/tmp/<slug>/chats/session-*.jsonl`. So:
//!
//! - the working directory is `options.cwd`, else the one `write` recorded
//!   (the export's `.project_root`); a cwd that differs from the written one
//!   rewrites the header's `projectHash` (its SHA-256) and nothing else;
//! - its slug is the registry's entry for it (kept as it is) when the slug's
//!   `.project_root` markers agree; else a directory whose marker names the
//!   cwd; else a new slug claimed the way Gemini CLI claims one (the
//!   slugified basename, `-1`, `-2`, … past slugs the registry or another
//!   project's marker holds). A new mapping is one `add-json-entry` on
//!   `/projects` (existing entries never change), plus the `.project_root`
//!   markers Gemini CLI writes (`tmp/<slug>`, `history/<slug>`) where missing;
//! - the session file is created in `tmp/<slug>/chats/`; a session file of
//!   the same short id there (what `gemini --resume` matches) is refused.
//!
//! Gemini CLI records the model per response, not per session, and has no
//! provider selector (it talks to the Gemini API only): a chosen model goes
//! into the resume command (`-m`), a provider other than `google`/`gemini`
//! is refused. Without a chosen model, Gemini CLI uses the target's own
//! settings (`model.name` in `~/.gemini/settings.json`). Credentials and
//! settings are never written.
//!
//! `resume-command`: `cd <cwd> && GEMINI_CLI_HOME=<home> gemini [-m M]
//! --resume <sessionId>`.

use std::collections::BTreeMap;

use serde::Deserialize;
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::{AddJsonEntry, CreateFile};
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::writer::install::exists;
use trajhost_codec_sdk::{Artifact, CodecError, Operation, Plan, WriteOptions};
pub use trajhost_gemini_cli_core::install::{PROVIDERS, resume_command};
use trajhost_gemini_cli_core::install::{check_choice, check_session_id, session_and_marker, session_cwd};

use crate::layout::{self, CHATS, JSONL, LEGACY_JSON, PROJECT_ROOT_FILE, PROJECTS_JSON, SESSION_PREFIX, TMP_ROOT};
use crate::write::{basename, is_uuid, normalize_cwd, project_hash, slugify};

/// Where Gemini CLI keeps the second set of ownership markers.
pub const HISTORY_ROOT: &str = ".gemini/history";
/// Largest registry or marker read.
const MAX_SMALL_FILE: u64 = 4 << 20;

/// The user's choice of model and provider for the target (`--model`,
/// `--provider`; API 0.2.1), as the SDK gives it.
pub use trajhost_codec_sdk::target::{TargetChoice as Choice, choice as target_choice};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeaderFacts {
    session_id: Option<String>,
    project_hash: Option<String>,
}

/// The plan for `artifacts` (as `write` made them).
pub fn prepare(
    artifacts: Vec<Artifact>,
    target: &Dir,
    options: &WriteOptions,
    choice: &Choice,
) -> Result<Plan, CodecError> {
    check_choice(choice)?;
    let (session, marker) = session_and_marker(
        artifacts,
        |name| name.starts_with(SESSION_PREFIX) && name.ends_with(JSONL),
        "session file",
    )?;
    let file_name = session.path.rsplit('/').next().unwrap_or("").to_string();

    let first = session.bytes.split(|b| *b == b'\n').next().unwrap_or(&[]);
    let facts: HeaderFacts = serde_json::from_slice(first).map_err(|e| {
        CodecError::Malformed(format!("{}: the first line is not a session header ({e})", session.path))
    })?;
    let id = facts
        .session_id
        .filter(|id| is_uuid(id))
        .ok_or_else(|| CodecError::Malformed(format!("{}: the header names no UUID sessionId", session.path)))?;
    check_session_id(&session, &id, JSONL, "which is how Gemini CLI finds a session", options)?;
    let short: String = id.chars().take(8).collect();
    let cwd = session_cwd(options, marker.as_ref())?;

    // The header's projectHash follows the cwd.
    let mut bytes = session.bytes;
    let hash = project_hash(&cwd);
    if let Some(old) = facts.project_hash.filter(|old| *old != hash) {
        let from = format!("\"projectHash\":{}", serde_json::to_string(&old).unwrap_or_default());
        let to = format!("\"projectHash\":\"{hash}\"");
        bytes = replace_all(&bytes, from.as_bytes(), to.as_bytes());
    }

    let registry = read_registry(target)?;
    let mut operations = Vec::new();
    let slug = match registry.get(&cwd) {
        Some(slug) if owns(target, slug, &cwd)? => slug.clone(),
        Some(slug) => {
            return Err(CodecError::Other(format!(
                "~/{PROJECTS_JSON} maps {cwd} to {slug}, but that project directory's .project_root names another \
                 project; Gemini CLI would not use it, and an existing entry is never changed"
            )));
        }
        None => {
            let slug = match existing_slug(target, &cwd)? {
                Some(slug) => slug,
                None => claim_slug(target, &cwd, &registry)?,
            };
            operations.push(Operation::AddJsonEntry(AddJsonEntry {
                path: PROJECTS_JSON.into(),
                pointer: "/projects".into(),
                key: Some(cwd.clone()),
                match_member: None,
                value: serde_json::to_string(&slug).map_err(|e| CodecError::Other(e.to_string()))?,
                initial: Some("{\"projects\":{}}".into()),
            }));
            slug
        }
    };
    for base in [TMP_ROOT, HISTORY_ROOT] {
        let path = layout::join(&layout::join(base, &slug), PROJECT_ROOT_FILE);
        if !exists(target, &path)? {
            operations.push(Operation::CreateFile(CreateFile { path, bytes: cwd.as_bytes().to_vec() }));
        }
    }

    let chats = layout::join(&layout::join(TMP_ROOT, &slug), CHATS);
    match target.list(&chats) {
        Ok(entries) => {
            let clash = entries.iter().find(|e| {
                e.name.starts_with(SESSION_PREFIX)
                    && (e.name.ends_with(&format!("-{short}{JSONL}"))
                        || e.name.ends_with(&format!("-{short}{LEGACY_JSON}")))
            });
            if let Some(clash) = clash {
                return Err(CodecError::Other(format!(
                    "{chats}/{} already exists in the target home with this session's short id {short}: a Gemini CLI \
                     session is never overwritten or merged",
                    clash.name
                )));
            }
        }
        Err(FsError::NotFound(_)) => {}
        Err(e) => return Err(CodecError::Io(format!("listing {chats} in the target home: {e:?}"))),
    }
    operations.push(Operation::CreateFile(CreateFile { path: layout::join(&chats, &file_name), bytes }));

    let command = resume_command(&cwd, options.home_path.as_deref(), choice.model.as_deref(), &id);
    Ok(Plan { native_id: id, operations, resume_command: Some(command) })
}

/// The target's registry; empty when it has none. One Gemini CLI cannot
/// parse would be reset by it, so it is refused rather than added to.
fn read_registry(target: &Dir) -> Result<BTreeMap<String, String>, CodecError> {
    #[derive(Deserialize)]
    struct Registry {
        projects: BTreeMap<String, String>,
    }
    match target.read_to_end(PROJECTS_JSON, MAX_SMALL_FILE) {
        Ok(bytes) => serde_json::from_slice::<Registry>(&bytes).map(|r| r.projects).map_err(|e| {
            CodecError::Malformed(format!(
                "~/{PROJECTS_JSON} in the target home is not a Gemini CLI project registry ({e}); it is not changed"
            ))
        }),
        Err(FsError::NotFound(_)) => Ok(BTreeMap::new()),
        Err(e) => Err(CodecError::Io(format!("reading ~/{PROJECTS_JSON}: {e:?}"))),
    }
}

/// The project a slug's marker names, per base directory (`None`: no marker).
fn marker_owners(target: &Dir, slug: &str) -> Result<Vec<String>, CodecError> {
    let mut owners = Vec::new();
    for base in [TMP_ROOT, HISTORY_ROOT] {
        let path = layout::join(&layout::join(base, slug), PROJECT_ROOT_FILE);
        match target.read_to_end(&path, MAX_SMALL_FILE) {
            Ok(bytes) => owners.push(normalize_cwd(String::from_utf8_lossy(&bytes).trim())),
            Err(FsError::NotFound(_)) => {}
            Err(e) => return Err(CodecError::Io(format!("reading {path} in the target home: {e:?}"))),
        }
    }
    Ok(owners)
}

/// Whether every marker of `slug` names `cwd` (none at all counts, as in
/// Gemini CLI's `verifySlugOwnership`).
fn owns(target: &Dir, slug: &str, cwd: &str) -> Result<bool, CodecError> {
    Ok(marker_owners(target, slug)?.iter().all(|o| o == cwd))
}

/// A project directory under `tmp/` whose marker names `cwd`.
fn existing_slug(target: &Dir, cwd: &str) -> Result<Option<String>, CodecError> {
    let entries = match target.list(TMP_ROOT) {
        Ok(entries) => entries,
        Err(FsError::NotFound(_)) => return Ok(None),
        Err(e) => return Err(CodecError::Io(format!("listing {TMP_ROOT} in the target home: {e:?}"))),
    };
    let mut names: Vec<&str> = entries.iter().filter(|e| e.is_dir()).map(|e| e.name.as_str()).collect();
    names.sort();
    for name in names {
        if layout::plain_file_name(name)
            && marker_owners(target, name)?.iter().any(|o| o == cwd)
            && owns(target, name, cwd)?
        {
            return Ok(Some(name.to_string()));
        }
    }
    Ok(None)
}

/// A new slug, as Gemini CLI's `claimNewSlug` picks one.
fn claim_slug(target: &Dir, cwd: &str, registry: &BTreeMap<String, String>) -> Result<String, CodecError> {
    let base = slugify(basename(cwd));
    for counter in 0..10_000 {
        let candidate = if counter == 0 { base.clone() } else { format!("{base}-{counter}") };
        if registry.values().any(|s| *s == candidate) {
            continue;
        }
        if owns(target, &candidate, cwd)? {
            return Ok(candidate);
        }
    }
    Err(CodecError::Other(format!("no free project slug for {cwd} in the target home")))
}

fn replace_all(haystack: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut rest = haystack;
    while let Some(at) = memchr::memmem::find(rest, from) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(to);
        rest = &rest[at + from.len()..];
    }
    out.extend_from_slice(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert_eq!(replace_all(b"a-xx-b-xx", b"xx", b"y"), b"a-y-b-y");
    }
}
