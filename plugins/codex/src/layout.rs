//! Where Codex keeps sessions under a home (`$CODEX_HOME` = `~/.codex`):
//! `.codex/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl`,
//! archived ones in `.codex/archived_sessions/`, and the state database
//! `.codex/state_<N>.sqlite` whose `threads` table indexes them. One HOME
//! can hold several Codex homes laid out the same way: sibling
//! `.codex-<name>/` directories and account homes
//! `.config/agent-accounts/codex/<account>/`.
//!
//! Not every rollout's name ends in its thread id (`rollout-…-compact-
//! codex-001.jsonl`, a renamed copy): such a rollout is read all the same
//! and identified by its content, `session_meta.id`.
//!
//! The TypeScript Codex of early 2025 kept one JSON document per session
//! directly in the sessions folder, `.codex/sessions/rollout-<YYYY-MM-DD>-
//! <uuid>.json` (see [`crate::document`]); those are read too.

use trajhost_codec_sdk::CodecError;
pub use trajhost_codec_sdk::paths::{is_uuid, join};

use crate::time;

/// The Codex home, relative to the granted home.
pub const CODEX_DIR: &str = ".codex";
/// The dated rollout tree.
pub const SESSIONS_DIR: &str = ".codex/sessions";
pub const ROLLOUT_PREFIX: &str = "rollout-";
pub const JSONL: &str = ".jsonl";
/// Compressed rollouts of newer builds (`.jsonl.zst`); not read.
pub const JSONL_ZST: &str = ".jsonl.zst";
/// Where written rollouts go (the glob of the default Codex home).
pub const SESSION_GLOB: &str = ".codex/sessions/*/*/*/rollout-*.jsonl";
/// The rollout trees of one Codex home, relative to it.
pub const ROLLOUT_TREES: [&str; 2] = ["sessions", "archived_sessions"];
/// Prefix of a sibling Codex home (`.codex-<name>`, one per profile or
/// account, each laid out like `.codex`).
pub const SIBLING_PREFIX: &str = ".codex-";
/// Where account managers keep one Codex home per account
/// (`.config/agent-accounts/codex/<account>/`, laid out like `.codex`).
pub const ACCOUNT_HOMES: &str = ".config/agent-accounts/codex";

/// A rollout document of the TypeScript CLI.
pub const JSON: &str = crate::document::JSON;

/// Every glob `info` reports: the dated tree, the archive and the
/// TypeScript CLI's documents, of the default home, of sibling homes, and
/// of account homes.
pub fn session_globs() -> Vec<String> {
    let homes = [CODEX_DIR.to_string(), format!("{SIBLING_PREFIX}*"), format!("{ACCOUNT_HOMES}/*")];
    homes
        .iter()
        .flat_map(|h| {
            [
                format!("{h}/sessions/*/*/*/rollout-*.jsonl"),
                format!("{h}/archived_sessions/rollout-*.jsonl"),
                format!("{h}/sessions/rollout-*.json"),
            ]
        })
        .collect()
}

/// The thread id in a rollout file name: the UUID before `.jsonl` (or,
/// for the TypeScript CLI's documents, before `.json`).
pub fn id_from_name(name: &str) -> Option<&str> {
    let rest = name.strip_prefix(ROLLOUT_PREFIX)?;
    let stem = rest.strip_suffix(JSONL).or_else(|| rest.strip_suffix(JSON))?;
    let id = stem.get(stem.len().checked_sub(36)?..)?;
    is_uuid(id).then_some(id)
}

/// Whether a file name is a rollout document of the TypeScript CLI
/// (`rollout-*.json`).
pub fn is_document_name(name: &str) -> bool {
    name.len() > ROLLOUT_PREFIX.len() + JSON.len() && name.starts_with(ROLLOUT_PREFIX) && name.ends_with(JSON)
}

/// Whether a locator names a JSON document (the TypeScript CLI's rollout)
/// rather than JSON lines.
pub fn is_document(locator: &str) -> bool {
    locator.ends_with(JSON)
}

/// Whether a file name in the dated tree is a rollout's: `rollout-*.jsonl`,
/// whether or not it ends in the thread id.
pub fn is_rollout_name(name: &str) -> bool {
    name.len() > ROLLOUT_PREFIX.len() + JSONL.len() && name.starts_with(ROLLOUT_PREFIX) && name.ends_with(JSONL)
}

/// Checks a locator `read` and `inspect` take: a relative path below the
/// home (a rollout of the dated tree, a TypeScript CLI document, or a loose
/// copy the host recognized by its content). Returns the thread id its file
/// name carries, if any.
pub fn readable_locator(locator: &str) -> Result<Option<&str>, CodecError> {
    let suffix_ok = locator.ends_with(JSONL) || is_document(locator);
    if !trajhost_codec_sdk::paths::is_relative_below(locator) || !suffix_ok {
        return Err(CodecError::NotFound(format!(
            "{locator}: not a relative path to a .jsonl rollout (or a .json rollout document) below the home"
        )));
    }
    Ok(id_from_name(locator.rsplit('/').next().unwrap_or(locator)))
}

/// The file name of a rollout started at `ms` (UTC) with thread id `id`.
pub fn rollout_name(ms: i64, id: &str) -> String {
    format!("{ROLLOUT_PREFIX}{}-{id}{JSONL}", time::file_stamp(ms))
}

/// The rollout's path relative to the home: `.codex/sessions/YYYY/MM/DD/<name>`.
pub fn rollout_path(ms: i64, id: &str) -> String {
    let (y, m, d) = time::ymd(ms);
    format!("{SESSIONS_DIR}/{y:04}/{m:02}/{d:02}/{}", rollout_name(ms, id))
}

/// Checks a locator names a rollout file under the sessions tree whose name
/// ends in its thread id (as written rollouts do); returns that id.
pub fn check_locator(locator: &str) -> Result<&str, CodecError> {
    let bad = || CodecError::NotFound(format!("{locator}: not a Codex rollout path ({SESSION_GLOB})"));
    let rest = locator.strip_prefix(SESSIONS_DIR).and_then(|r| r.strip_prefix('/')).ok_or_else(bad)?;
    let parts: Vec<&str> = rest.split('/').collect();
    if parts.len() != 4 || parts.iter().any(|p| p.is_empty() || *p == "." || *p == "..") {
        return Err(bad());
    }
    id_from_name(parts[3]).filter(|_| parts[3].ends_with(JSONL)).ok_or_else(bad)
}

/// The state database files (`state_<N>.sqlite`) among `.codex` entries,
/// highest `N` (the one the installed Codex uses) first.
pub fn state_databases<'a>(names: impl Iterator<Item = &'a str>) -> Vec<(u32, String)> {
    let mut found: Vec<(u32, String)> = names
        .filter_map(|name| {
            let n = name.strip_prefix("state_")?.strip_suffix(".sqlite")?;
            if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            Some((n.parse::<u32>().ok()?, name.to_string()))
        })
        .collect();
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_paths() {
        let name = "rollout-2026-11-30T04-10-39-01a22aa5-cfcc-7311-a9b5-d6de00c468b2.jsonl";
        assert_eq!(id_from_name(name), Some("01a22aa5-cfcc-7311-a9b5-d6de00c468b2"));
        assert_eq!(id_from_name("rollout-x.jsonl"), None);
        assert_eq!(
            rollout_path(1_796_011_839_446, "01a22aa5-cfcc-7311-a9b5-d6de00c468b2"),
            format!(".codex/sessions/2026/11/30/{name}")
        );
        assert!(check_locator(&format!(".codex/sessions/2026/11/30/{name}")).is_ok());
        assert!(check_locator(&format!(".codex/sessions/2026/../30/{name}")).is_err());
        assert!(check_locator(name).is_err());
        let odd = "rollout-2025-10-28T04-00-00-compact-codex-001.jsonl";
        assert!(is_rollout_name(odd) && is_rollout_name(name));
        assert!(
            !is_rollout_name("rollout-.jsonl") && !is_rollout_name("notes.jsonl") && !is_rollout_name("rollout-x.json")
        );
        assert_eq!(id_from_name(odd), None);
        assert_eq!(readable_locator(&format!(".codex/sessions/2025/10/28/{odd}")).unwrap(), None);
        assert_eq!(readable_locator(name).unwrap(), Some("01a22aa5-cfcc-7311-a9b5-d6de00c468b2"));
        assert!(readable_locator("../x.jsonl").is_err() && readable_locator("/x.jsonl").is_err());
        assert!(readable_locator(".codex/config.toml").is_err());
        let doc = "rollout-2025-04-20-7f1d2c3b-0000-4000-8000-0000000000aa.json";
        assert!(is_document_name(doc) && !is_document_name(name) && !is_document_name("rollout-.json"));
        assert_eq!(id_from_name(doc), Some("7f1d2c3b-0000-4000-8000-0000000000aa"));
        assert_eq!(readable_locator(&format!(".codex/sessions/{doc}")).unwrap(), id_from_name(doc));
        assert!(is_document(doc) && !is_document(name));
        let dbs = state_databases(["state_4.sqlite", "logs_2.sqlite", "state_5.sqlite", "state_x.sqlite"].into_iter());
        assert_eq!(dbs, vec![(5, "state_5.sqlite".to_string()), (4, "state_4.sqlite".to_string())]);
    }
}
