//! `prepare`: the written files into the target's per-project tree (OpenCode
//! before 0.6, [`crate::write`]), each a `copy-artifact` to its place, and the
//! command that resumes the session: `cd <cwd> && opencode run --session <id>`
//! (0.5 has no `import` and no `--format json`; `run` takes the message as
//! arguments or, piped, on stdin: `echo 'go on' | opencode run --session <id>`).
//!
//! Where the files go: OpenCode 0.5 keeps each project's sessions under
//! `.local/share/opencode/project/<project>/storage/`, with `<project>` the
//! git root of the directory it runs in, its path's components joined by `-`
//! (`/home/u/shop` → `home-u-shop`, other characters than `[A-Za-z0-9_]` also
//! `-`), or `global` outside a git repository (`app.ts`). A session in another
//! project's tree is not found: `run --session` fails with ENOENT on
//! `storage/session/info/<id>.json`. So the git root of the cwd is looked
//! for as OpenCode does (the nearest directory holding `.git`), through the
//! target home where the cwd lies under it (`home-path`); above the home, or
//! for a cwd outside it, the project trees the home already has stand in
//! (OpenCode made one for that git root); else `global`.
//!
//! Fails closed, nothing planned, when the home holds a store of another
//! layout: `opencode.db` (OpenCode ≥ 1.0, written by the `opencode` codec),
//! the global `storage/` tree of 0.6–1.x (whose first migration moved every
//! per-project tree once: files added later are never seen), or a project
//! tree this codec does not know (a `migration` marker past 0.5's, a session
//! file of another shape or a newer version). The error names the file and
//! what differs. Never overwrites: a session with the same id is refused.

use serde_json::Value;
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::{CopyArtifact, CreateFile};
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::writer::install::ResumeCommand;
use trajhost_codec_sdk::{ArtifactInfo, CodecError, Operation, Plan, WriteOptions};
use trajhost_opencode_core::ids;

use crate::layout::{self, INFO, JSON, MESSAGE, PART, PROJECT_STORAGE, PROJECTS, SESSION};
use crate::write::export_root;

/// OpenCode ≥ 1.0's store, relative to the home.
pub const DB: &str = ".local/share/opencode/opencode.db";
/// The global tree of 0.6–1.x, relative to the home.
pub const GLOBAL_TREE: &str = ".local/share/opencode/storage";
/// The storage migrations 0.5.29 knows (its `storage/migration` marker
/// holds how many ran, `3` in the trees it writes): a marker past it was
/// written by a newer layout. A tree without one is migrated on first use
/// (the migrations leave files of this shape alone).
pub const KNOWN_MIGRATIONS: u32 = 3;
/// Largest session or message file read while planning.
const MAX_INFO_BYTES: u64 = 1 << 20;

/// One file of the export, placed in the tree.
struct File<'a> {
    artifact: &'a ArtifactInfo,
    /// Path below `…/storage/session/`.
    rel: String,
}

pub fn prepare(
    artifacts: Vec<ArtifactInfo>,
    export: &Dir,
    target: &Dir,
    options: &WriteOptions,
) -> Result<Plan, CodecError> {
    let prefix = format!("{}/", export_root());
    let mut info = None;
    let mut files = Vec::new();
    for artifact in &artifacts {
        let bad = |why: &str| {
            CodecError::Malformed(format!(
                "{}: not a file of the per-project tree this codec writes ({why})",
                artifact.path
            ))
        };
        let rel = artifact.path.strip_prefix(&prefix).ok_or_else(|| bad(&format!("not under {prefix}")))?;
        let segments: Vec<&str> = rel.split('/').collect();
        let stem = |s: &str| s.strip_suffix(JSON).unwrap_or("").to_string();
        match segments.as_slice() {
            [INFO, name] if ids::is_id(&stem(name), "ses") => {
                if info.replace((artifact, stem(name))).is_some() {
                    return Err(CodecError::Malformed("the export holds more than one OpenCode session file".into()));
                }
            }
            [MESSAGE, ses, name] if ids::is_id(ses, "ses") && ids::is_id(&stem(name), "msg") => {}
            [PART, ses, msg, name]
                if ids::is_id(ses, "ses") && ids::is_id(msg, "msg") && ids::is_id(&stem(name), "prt") => {}
            _ => return Err(bad("info/<ses>.json, message/<ses>/<msg>.json or part/<ses>/<msg>/<prt>.json")),
        }
        files.push(File { artifact, rel: rel.to_string() });
    }
    let (info_artifact, id) = info
        .ok_or_else(|| CodecError::Malformed("the export holds no OpenCode session file (info/<ses>.json)".into()))?;
    let session = load(export, &info_artifact.path)?;
    if session.get("id").and_then(Value::as_str) != Some(id.as_str())
        || !session.get("time").is_some_and(Value::is_object)
    {
        return Err(CodecError::Malformed(format!("{}: no id {id} and time", info_artifact.path)));
    }
    if let Some(other) = files.iter().find(|f| !f.rel.starts_with(INFO) && f.rel.split('/').nth(1) != Some(id.as_str()))
    {
        return Err(CodecError::Malformed(format!("{}: of another session than {id}", other.artifact.path)));
    }
    if let Some(want) = options.native_id.as_deref().filter(|w| *w != id) {
        return Err(CodecError::Malformed(format!(
            "the export's session id {id} is not the requested native id {want}"
        )));
    }
    let cwd = match options.cwd.clone().filter(|c| c.starts_with('/')) {
        Some(cwd) => cwd,
        None => recorded_cwd(export, &files).unwrap_or_else(|| "/".to_string()),
    };
    check_home(target)?;
    let project = project_of(target, options.home_path.as_deref(), &cwd);
    let tree = format!("{PROJECTS}/{project}/{PROJECT_STORAGE}");
    let fresh = !exists(target, &tree)?;
    check_tree(target, &tree, &id)?;
    let mut operations: Vec<Operation> = files
        .iter()
        .map(|f| {
            Operation::CopyArtifact(CopyArtifact {
                artifact: f.artifact.path.clone(),
                path: format!("{tree}/{SESSION}/{}", f.rel),
            })
        })
        .collect();
    if fresh {
        // A new tree as 0.5.29 leaves it: its migrations marked as run, so
        // none rewrites the files on first use.
        let marker = KNOWN_MIGRATIONS.to_string().into_bytes();
        operations.push(Operation::CreateFile(CreateFile { path: format!("{tree}/migration"), bytes: marker }));
    }
    Ok(Plan { native_id: id.clone(), operations, resume_command: Some(resume_command(&cwd, options, &id)) })
}

/// `cd <cwd> && [XDG_DATA_HOME=<home>/.local/share] opencode run --session <id>`.
pub fn resume_command(cwd: &str, options: &WriteOptions, id: &str) -> String {
    let data = options.home_path.as_deref().map(|home| format!("{}/.local/share", home.trim_end_matches('/')));
    ResumeCommand::in_dir(Some(cwd))
        .env("XDG_DATA_HOME", data.as_deref())
        .program("opencode run")
        .arg(&format!("--session {id}"))
        .finish()
}

fn load(dir: &Dir, path: &str) -> Result<Value, CodecError> {
    let bytes = dir.read_to_end(path, MAX_INFO_BYTES).map_err(|e| trajhost_codec_sdk::errors::fs_error(path, e))?;
    let value: Value =
        serde_json::from_slice(&bytes).map_err(|e| CodecError::Malformed(format!("{path}: not JSON ({e})")))?;
    if value.is_object() { Ok(value) } else { Err(CodecError::Malformed(format!("{path}: not a JSON object"))) }
}

/// The `path.cwd` the first assistant message recorded (0.5's session file has no directory).
fn recorded_cwd(export: &Dir, files: &[File]) -> Option<String> {
    let mut messages: Vec<&File> = files.iter().filter(|f| f.rel.starts_with(&format!("{MESSAGE}/"))).collect();
    messages.sort_by(|a, b| a.rel.cmp(&b.rel));
    messages.iter().find_map(|f| {
        let value = load(export, &f.artifact.path).ok()?;
        value.pointer("/path/cwd").and_then(Value::as_str).filter(|c| c.starts_with('/')).map(str::to_string)
    })
}

fn exists(target: &Dir, path: &str) -> Result<bool, CodecError> {
    match target.stat(path) {
        Ok(_) => Ok(true),
        Err(FsError::NotFound(_)) => Ok(false),
        Err(e) => Err(trajhost_codec_sdk::errors::fs_error(path, e)),
    }
}

/// Refuses a home whose OpenCode store is of a later layout.
fn check_home(target: &Dir) -> Result<(), CodecError> {
    if exists(target, DB)? {
        return Err(CodecError::Unsupported(format!(
            "{DB}: the SQLite store of OpenCode 1.x, which never reads the per-project JSON tree of OpenCode < 0.6 \
             this codec writes; the opencode@0.1.0 codec writes for 1.x"
        )));
    }
    if exists(target, GLOBAL_TREE)? {
        return Err(CodecError::Unsupported(format!(
            "{GLOBAL_TREE}: the global JSON tree of OpenCode 0.6 or later, which moved the per-project trees this \
             codec writes (OpenCode < 0.6) into it once and never looks at them again; no trajhost codec writes \
             that layout"
        )));
    }
    Ok(())
}

/// Refuses a project tree this codec does not know, or one holding the session.
fn check_tree(target: &Dir, tree: &str, id: &str) -> Result<(), CodecError> {
    let marker = format!("{tree}/migration");
    if exists(target, &marker)? {
        let text = target.read_to_end(&marker, 64).map_err(|e| trajhost_codec_sdk::errors::fs_error(&marker, e))?;
        let text = String::from_utf8_lossy(&text);
        match text.trim().parse::<u32>() {
            Ok(n) if n <= KNOWN_MIGRATIONS => {}
            _ => {
                return Err(CodecError::Unsupported(format!(
                    "{marker}: {:?}, not a storage migration of OpenCode 0.5 (0 to {KNOWN_MIGRATIONS}): a tree of a \
                     layout this codec does not write",
                    text.trim()
                )));
            }
        }
    }
    let info_dir = format!("{tree}/{SESSION}/{INFO}");
    for path in [format!("{info_dir}/{id}{JSON}"), format!("{tree}/{SESSION}/{MESSAGE}/{id}")] {
        if exists(target, &path)? {
            return Err(CodecError::Other(format!("{path} exists: trajhost never overwrites a session")));
        }
    }
    let mut names: Vec<String> = match target.list(&info_dir) {
        Ok(entries) => entries.into_iter().filter(|e| e.is_file() && e.name.ends_with(JSON)).map(|e| e.name).collect(),
        Err(FsError::NotFound(_)) => return Ok(()),
        Err(e) => return Err(trajhost_codec_sdk::errors::fs_error(&info_dir, e)),
    };
    // Session ids descend: the newest session sorts first.
    names.sort();
    if let Some(name) = names.first() {
        let path = format!("{info_dir}/{name}");
        let value = load(target, &path)?;
        let differs =
            if !value.get("id").is_some_and(Value::is_string) || !value.get("time").is_some_and(Value::is_object) {
                Some("no id and time".to_string())
            } else if let Some(key) = ["projectID", "directory"].into_iter().find(|k| value.get(*k).is_some()) {
                Some(format!("has {key} (a session of the global tree of OpenCode 0.6 or later)"))
            } else {
                value
                    .get("version")
                    .and_then(Value::as_str)
                    .filter(|v| !crate::writes_for(v) && layout::version_at_least(v, (0, 6, 0)))
                    .map(|v| format!("version {v}: written by OpenCode 0.6 or later"))
            };
        if let Some(what) = differs {
            return Err(CodecError::Unsupported(format!(
                "{path}: {what}; not a session of the per-project tree of OpenCode < 0.6 this codec writes"
            )));
        }
    }
    Ok(())
}

/// The project directory OpenCode 0.5 would use for `cwd` (see the module).
pub fn project_of(target: &Dir, home: Option<&str>, cwd: &str) -> String {
    let home = home.map(|h| h.trim_end_matches('/')).filter(|h| h.starts_with('/'));
    let existing: Vec<String> = target
        .list(PROJECTS)
        .map(|entries| entries.into_iter().filter(|e| e.is_dir()).map(|e| e.name).collect())
        .unwrap_or_default();
    let mut dir = cwd.trim_end_matches('/');
    while !dir.is_empty() {
        let below_home = home.and_then(|h| {
            if dir == h {
                Some(String::new())
            } else {
                dir.strip_prefix(h).and_then(|r| r.strip_prefix('/')).map(str::to_string)
            }
        });
        match below_home {
            Some(rel) => {
                let git = if rel.is_empty() { ".git".to_string() } else { format!("{rel}/.git") };
                if target.stat(&git).is_ok() {
                    return slug(dir);
                }
            }
            None => {
                let name = slug(dir);
                if name != "global" && existing.contains(&name) {
                    return name;
                }
            }
        }
        dir = match dir.rfind('/') {
            Some(i) => &dir[..i],
            None => "",
        };
    }
    "global".to_string()
}

/// OpenCode 0.5's name of a git root's project (`app.ts` `directory()`):
/// the path's components joined by `-`, every UTF-16 unit outside
/// `[A-Za-z0-9_]` a `-`.
pub fn slug(path: &str) -> String {
    let joined = path.split('/').filter(|c| !c.is_empty()).collect::<Vec<_>>().join("-");
    let mut out = String::with_capacity(joined.len());
    for c in joined.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else {
            out.push_str(if (c as u32) > 0xffff { "--" } else { "-" });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::slug;

    #[test]
    fn slugs_as_opencode_names_projects() {
        assert_eq!(slug("/home/user/project"), "home-user-project");
        assert_eq!(slug("/srv/my repo.v2/"), "srv-my-repo-v2");
        assert_eq!(slug("/a/é😀"), "a----", "one per UTF-16 unit");
    }
}
