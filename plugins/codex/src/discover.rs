//! `discover`: the rollouts under a home, from directory listings and the
//! head of each rollout.
//!
//! Each Codex home under the granted home (`.codex`, every sibling
//! `.codex-<name>`, every account home `.config/agent-accounts/codex/<a>`)
//! is searched: its dated tree `sessions/` and its `archived_sessions/`,
//! walked to any depth. Each file is stat'ed once, by the host's listing;
//! only the head of a rollout is read (see [`crate::head`]). Every `.jsonl`
//! file there is read as a rollout whatever its name (the content names
//! the session); every other entry is a per-file diagnostic naming it:
//! Codex keeps nothing else there, so there are no auxiliary files to pass
//! over.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::fs::{Dir, Metadata};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

pub use trajhost_codec_sdk::errors::{fs_error, fs_kind};

use crate::head::Head;
use crate::layout::{self, JSONL, JSONL_ZST};
use crate::time::rfc3339_utc;

/// Directory levels walked below a rollout tree (the dated tree has 3).
const MAX_DEPTH: usize = 8;

/// Every rollout under `home`'s Codex homes.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut problems = FileProblems::new();
    for codex_home in codex_homes(home, &mut problems) {
        for tree in layout::ROLLOUT_TREES {
            walk(home, &layout::join(&codex_home, tree), 0, &mut sessions, &mut problems);
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The Codex homes under `home`, relative to it: `.codex`, the sibling
/// `.codex-<name>` directories, the account homes.
pub fn codex_homes(home: &Dir, problems: &mut FileProblems) -> Vec<String> {
    let mut homes = Vec::new();
    for entry in discovery::list(home, "", problems).unwrap_or_default() {
        let sibling = entry.name.strip_prefix(layout::SIBLING_PREFIX).is_some_and(|n| !n.is_empty());
        if entry.is_dir() && (entry.name == layout::CODEX_DIR || sibling) {
            homes.push(entry.name);
        }
    }
    for entry in discovery::list(home, layout::ACCOUNT_HOMES, problems).unwrap_or_default() {
        let path = layout::join(layout::ACCOUNT_HOMES, &entry.name);
        if entry.is_dir() {
            homes.push(path);
        } else {
            problems.unrecognized(&path, "an account's Codex home (a directory)");
        }
    }
    homes
}

/// One directory of a rollout tree: `.jsonl` files are rollouts,
/// directories are walked, anything else is named.
fn walk(home: &Dir, dir: &str, depth: usize, sessions: &mut Vec<SessionRef>, problems: &mut FileProblems) {
    for entry in discovery::list(home, dir, problems).unwrap_or_default() {
        let locator = layout::join(dir, &entry.name);
        if entry.is_dir() && !entry.name.ends_with(JSONL) {
            if depth < MAX_DEPTH {
                walk(home, &locator, depth + 1, sessions, problems);
            } else {
                problems.unrecognized(&locator, "a directory deeper than a rollout tree goes");
            }
        } else if !entry.is_file() {
            problems.unrecognized(&locator, "not a rollout file (rollout-*.jsonl)");
        } else if entry.name.ends_with(JSONL_ZST) {
            // Newer builds compress old rollouts; no decoder here.
            problems.add("compressed-rollout", Severity::Info, &locator, "jsonl.zst");
        } else if !entry.name.ends_with(JSONL) {
            problems.unrecognized(&locator, "not a rollout file name (rollout-*.jsonl)");
        } else if let Some(session) = session_ref(home, &locator, &entry.meta, problems) {
            sessions.push(session);
        }
    }
}

/// The session-ref of one rollout, as `discover` reports it (one stat, one
/// head read). Any relative `.jsonl` path is accepted: a loose copy the
/// host recognized by its content is read like a rollout of the tree.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    layout::readable_locator(locator)?;
    let meta = home.stat(locator).map_err(|e| fs_error(locator, e))?;
    let mut problems = FileProblems::new();
    session_ref(home, locator, &meta, &mut problems).ok_or_else(|| {
        let why = problems.drain().into_iter().next().map(|d| d.detail).unwrap_or_default();
        CodecError::Malformed(format!("{locator}: not a Codex rollout: {why}"))
    })
}

fn session_ref(home: &Dir, locator: &str, meta: &Metadata, problems: &mut FileProblems) -> Option<SessionRef> {
    let name_id = layout::readable_locator(locator).ok()?;
    if meta.size == 0 {
        problems.empty(locator, "jsonl");
        return None;
    }
    let head = match home.open(locator).and_then(|file| Head::scan(&file)) {
        Ok(head) => head,
        Err(e) => {
            problems.unreadable(locator, &e);
            return None;
        }
    };
    if let Some(why) = head.not_a_rollout() {
        // Codex itself refuses a rollout that does not start with session_meta.
        problems.malformed_head(locator, why);
        return None;
    }
    // The content names the session; the file name only may.
    let id = head.id.clone()?;
    if name_id.is_some_and(|n| n != id) {
        problems.add("session-id-mismatch", Severity::Warning, locator, "session_meta.id");
    }
    Some(SessionRef {
        native_id: id,
        locator: locator.to_string(),
        cwd: head.cwd.clone(),
        started_at: head.started_at.clone(),
        updated_at: meta.modified_ms.map(rfc3339_utc),
        size: meta.size,
        native_version: head.cli_version.clone(),
        title: head.title.clone(),
    })
}
