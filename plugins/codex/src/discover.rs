//! `discover`: the rollouts under a home, from directory listings and the
//! head of each rollout.
//!
//! Each Codex home under the granted home (`.codex`, every sibling
//! `.codex-<name>`, every account home `.config/agent-accounts/codex/<a>`)
//! is searched: its dated tree `sessions/` and its `archived_sessions/`,
//! walked to any depth. Each file is stat'ed once, by the host's listing;
//! only the head of a rollout is read (see [`crate::head`]). Every `.jsonl`
//! file there is read as a rollout whatever its name (the content names
//! the session); so is every `rollout-*.json` document of the TypeScript
//! CLI (see [`crate::document`]: only its head is read). Every other entry
//! is a per-file diagnostic naming it: Codex keeps nothing else there, so
//! there are no auxiliary files to pass over.
//!
//! The TypeScript CLI rewrote a session's document after each turn, under
//! the date of that write: a session that went on past midnight left an
//! older, shorter document of the same id beside the newer one. Of the
//! documents of one folder that name the same session, the one written
//! last is the session; the others are `superseded-rollout-document`
//! (info).

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::fs::{Dir, Metadata};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

pub use trajhost_codec_sdk::errors::{fs_error, fs_kind};

use crate::document;
use crate::head::{self, Head};
use crate::layout::{self, JSONL, JSONL_ZST};
use crate::time::{parse_rfc3339, rfc3339_utc};

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
    let sessions = latest_documents(sessions, &mut problems);
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// Of the documents of one folder naming the same session, keeps the one
/// written last (by its recorded time, else its file's); the others are
/// named.
fn latest_documents(sessions: Vec<SessionRef>, problems: &mut FileProblems) -> Vec<SessionRef> {
    let folder = |s: &SessionRef| s.locator.rsplit_once('/').map_or(String::new(), |(d, _)| d.to_string());
    let written = |s: &SessionRef| s.updated_at.as_deref().and_then(parse_rfc3339);
    let mut keep = vec![true; sessions.len()];
    for (i, s) in sessions.iter().enumerate() {
        if !layout::is_document(&s.locator) {
            continue;
        }
        let newer = sessions.iter().enumerate().any(|(j, o)| {
            j != i
                && layout::is_document(&o.locator)
                && o.native_id == s.native_id
                && folder(o) == folder(s)
                && (written(o), &o.locator) > (written(s), &s.locator)
        });
        if newer {
            keep[i] = false;
            problems.add("superseded-rollout-document", Severity::Info, &s.locator, "session.id");
        }
    }
    sessions.into_iter().zip(keep).filter_map(|(s, k)| k.then_some(s)).collect()
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
        } else if layout::is_document_name(&entry.name) {
            if let Some(session) = document_ref(home, &locator, &entry.meta, problems) {
                sessions.push(session);
            }
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
    let found = if layout::is_document(locator) {
        document_ref(home, locator, &meta, &mut problems)
    } else {
        session_ref(home, locator, &meta, &mut problems)
    };
    found.ok_or_else(|| {
        let why = problems.drain().into_iter().next().map(|d| d.detail).unwrap_or_default();
        CodecError::Malformed(format!("{locator}: not a Codex rollout: {why}"))
    })
}

fn session_ref(home: &Dir, locator: &str, meta: &Metadata, problems: &mut FileProblems) -> Option<SessionRef> {
    let name_id = layout::readable_locator(locator).ok()?;
    let head = problems.scan_head(home, locator, meta.size, "jsonl", Head::scan)?;
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

/// The session-ref of a TypeScript CLI rollout document, from its head.
fn document_ref(home: &Dir, locator: &str, meta: &Metadata, problems: &mut FileProblems) -> Option<SessionRef> {
    let name_id = layout::readable_locator(locator).ok()?;
    if meta.size == 0 {
        problems.empty(locator, "json");
        return None;
    }
    let bytes = match home.open(locator).and_then(|file| document::read_head(&file)) {
        Ok(bytes) => bytes,
        Err(e) => {
            problems.unreadable(locator, &e);
            return None;
        }
    };
    let scan = match document::scan(&bytes) {
        Ok(scan) => scan,
        Err(why) => {
            problems.malformed_head(locator, why);
            return None;
        }
    };
    let Some(id) = document::session(&bytes, &scan).and_then(|s| s.session_id().map(str::to_string)) else {
        problems.malformed_head(locator, "no session object with an id at the head");
        return None;
    };
    if name_id.is_some_and(|n| n != id) {
        problems.add("session-id-mismatch", Severity::Warning, locator, "session.id");
    }
    let session = document::session(&bytes, &scan).unwrap_or_default();
    Some(SessionRef {
        native_id: id,
        locator: locator.to_string(),
        cwd: None,
        // The document records when it was written, not when the session began.
        started_at: None,
        updated_at: session.timestamp.owned().or_else(|| meta.modified_ms.map(rfc3339_utc)),
        size: meta.size,
        native_version: None,
        title: document::first_prompt(&bytes, &scan).and_then(|t| head::title(&t)),
    })
}
