//! Where Pi and Oh My Pi keep sessions, and how folder and file names are
//! derived.
//!
//! ```text
//! Pi:        ~/.pi/agent/sessions/--<cwd without its leading "/", "/" "\" ":" → "-">--/<ts>_<uuid>.jsonl
//! Oh My Pi:  ~/.omp/agent/sessions/<dir>/<ts>_<uuid>.jsonl
//!              <dir> = "-" + home-relative cwd ("/" "\" ":" → "-"); the home itself is "-"
//!                      "-tmp-" + tmp-relative cwd for a cwd under /tmp ("-tmp" for /tmp)
//!                      else Pi's "--<abs>--"
//! <ts> = the header's ISO time with ":" and "." → "-" (2026-11-30T04-10-51-921Z)
//! ```
//!
//! Pi: `packages/coding-agent/src/core/session-manager.ts`
//! (`getDefaultSessionDir`); Oh My Pi 18.2.3:
//! `packages/coding-agent/src/session/session-paths.ts`
//! (`getDefaultSessionDirName`). The fixtures agree: Pi's
//! `--home-user-project--`, Oh My Pi's `-project` for `/home/user/project`
//! with `HOME=/home/user`.

use trajhost_codec_sdk::CodecError;
pub use trajhost_codec_sdk::paths::{is_uuid, join};

use crate::{DirRule, Flavor};

/// Extension of session files.
pub const JSONL: &str = ".jsonl";

/// Pi's folder name for `cwd`: `--<cwd>--`.
pub fn legacy_dir_name(cwd: &str) -> String {
    let trimmed = cwd.strip_prefix(['/', '\\']).unwrap_or(cwd);
    format!("--{}--", trimmed.replace(['/', '\\', ':'], "-"))
}

/// `cwd` relative to `root`: `Some("")` for the root itself, `None` when
/// outside it.
fn relative<'a>(root: &str, cwd: &'a str) -> Option<&'a str> {
    let root = root.trim_end_matches('/');
    let cwd = if cwd.len() > 1 { cwd.trim_end_matches('/') } else { cwd };
    if root.is_empty() {
        return None;
    }
    if cwd == root {
        return Some("");
    }
    cwd.strip_prefix(root)?.strip_prefix('/')
}

fn relative_dir_name(prefix: &str, relative: &str) -> String {
    let encoded = relative.replace(['/', '\\', ':'], "-");
    if encoded.is_empty() {
        prefix.to_string()
    } else if prefix.ends_with('-') {
        format!("{prefix}{encoded}")
    } else {
        format!("{prefix}-{encoded}")
    }
}

/// Oh My Pi's folder name for `cwd` when the home is `home` (unknown home:
/// the `/tmp` and absolute rules only).
pub fn omp_dir_name(cwd: &str, home: Option<&str>) -> String {
    if let Some(rel) = home.and_then(|h| relative(h, cwd)) {
        return relative_dir_name("-", rel);
    }
    if let Some(rel) = relative("/tmp", cwd) {
        return relative_dir_name("-tmp", rel);
    }
    legacy_dir_name(cwd)
}

/// The session folder (relative to the home) for `cwd`.
pub fn session_dir(flavor: &Flavor, cwd: &str, home: Option<&str>) -> String {
    let name = match flavor.dir_rule {
        DirRule::Pi => legacy_dir_name(cwd),
        DirRule::Omp => omp_dir_name(cwd, home),
    };
    format!("{}/{name}", flavor.sessions_dir)
}

/// `<ts>_<id>.jsonl`.
pub fn file_name(start_ms: i64, id: &str) -> String {
    format!("{}_{id}{JSONL}", crate::time::file_safe(start_ms))
}

/// The session id in a file name `<ts>_<id>.jsonl`.
pub fn id_of_file_name(name: &str) -> Option<&str> {
    let stem = name.strip_suffix(JSONL)?;
    let id = stem.rsplit_once('_').map_or(stem, |(_, id)| id);
    (!id.is_empty()).then_some(id)
}

/// Checks a locator: a relative `/`-separated path of a `.jsonl` file.
pub fn check_locator(locator: &str) -> Result<(), CodecError> {
    let bad = |why: &str| CodecError::NotFound(format!("locator {locator:?}: {why}"));
    if !locator.ends_with(JSONL) || locator.len() == JSONL.len() {
        return Err(bad("not a .jsonl file"));
    }
    if locator.starts_with('/') || locator.split('/').any(|c| c.is_empty() || c == "." || c == "..") {
        return Err(bad("not a relative path below the home"));
    }
    Ok(())
}

/// `<dir>/<file stem>`: the folder beside a session file that holds its
/// artifacts (Oh My Pi: full tool outputs, subagent transcripts).
pub fn artifacts_dir(locator: &str) -> &str {
    locator.strip_suffix(JSONL).unwrap_or(locator)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_follow_each_harness() {
        assert_eq!(legacy_dir_name("/home/user/project"), "--home-user-project--");
        assert_eq!(legacy_dir_name("C:\\work\\x"), "--C--work-x--");
        assert_eq!(omp_dir_name("/home/user/project", Some("/home/user")), "-project");
        assert_eq!(omp_dir_name("/home/user/a/b", Some("/home/user/")), "-a-b");
        assert_eq!(omp_dir_name("/home/user", Some("/home/user")), "-");
        assert_eq!(omp_dir_name("/tmp/x/y", Some("/home/user")), "-tmp-x-y");
        assert_eq!(omp_dir_name("/tmp", None), "-tmp");
        assert_eq!(omp_dir_name("/home/userx", Some("/home/user")), "--home-userx--");
        assert_eq!(omp_dir_name("/srv/p", None), "--srv-p--");
    }

    #[test]
    fn file_names_carry_time_and_id() {
        let name = file_name(1_796_011_851_921, "01a22aa6-008b-76c9-a11d-d83500852399");
        assert_eq!(name, "2026-11-30T04-10-51-921Z_01a22aa6-008b-76c9-a11d-d83500852399.jsonl");
        assert_eq!(id_of_file_name(&name), Some("01a22aa6-008b-76c9-a11d-d83500852399"));
        assert!(check_locator(".pi/agent/sessions/x/a.jsonl").is_ok());
        assert!(check_locator("../a.jsonl").is_err());
        assert!(check_locator("/a.jsonl").is_err());
    }
}
