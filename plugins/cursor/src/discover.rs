//! `discover`: chats under `.cursor/chats/<md5(cwd)>/<id>/` (the CLI's
//! `store.db`, or this codec's `store.export.jsonl`), ACP sessions under
//! `.cursor/acp-sessions/<id>/` (the same chat in both places is listed once,
//! from chats/), and the `agent-transcripts` mirrors under
//! `.cursor/projects/*/` (skipped when a store of the same id is listed).

use std::collections::BTreeSet;

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::errors::detail_of;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::paths::join;
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::export;
use crate::read::{EMPTY_CHAT, NOT_PORTABLE};
use crate::session::{Chat, STORE_DB};
use crate::transcript::{self, DIR, PROJECTS};

/// The CLI's config directories under a home: `~/.cursor` (the default)
/// and `$XDG_CONFIG_HOME/cursor` at its usual place (used when XDG_CONFIG_HOME
/// is set). `projects/` (agent-transcripts) is always under `~/.cursor`.
pub const CONFIG_ROOTS: [&str; 2] = [".cursor", ".config/cursor"];

/// Files a chat directory may hold besides its store.
const CHAT_FILES: &[&str] = &["store.db-wal", "store.db-shm", "store.db-journal", "meta.json", "prompt_history.json"];

/// Every session under `home`.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let mut sessions: Vec<SessionRef> = Vec::new();
    let mut seen = BTreeSet::new();
    let mut stores = Vec::new();
    for root in CONFIG_ROOTS {
        let chats = format!("{root}/chats");
        for project in discovery::list(home, &chats, &mut problems).unwrap_or_default() {
            let pdir = join(&chats, &project.name);
            if !project.is_dir() {
                problems.unrecognized(&pdir, "a chats/<md5(cwd)>/ directory");
                continue;
            }
            for chat in discovery::list(home, &pdir, &mut problems).unwrap_or_default() {
                let cdir = join(&pdir, &chat.name);
                if chat.is_dir() {
                    stores.push(cdir);
                } else {
                    problems.unrecognized(&cdir, "a chat directory");
                }
            }
        }
        let acp_root = format!("{root}/acp-sessions");
        for acp in discovery::list(home, &acp_root, &mut problems).unwrap_or_default() {
            let adir = join(&acp_root, &acp.name);
            if acp.is_dir() {
                stores.push(adir);
            } else {
                problems.unrecognized(&adir, "an ACP session directory");
            }
        }
    }
    for dir in stores {
        let Some(entries) = discovery::list(home, &dir, &mut problems) else { continue };
        let names: BTreeSet<&str> = entries.iter().filter(|e| e.is_file()).map(|e| e.name.as_str()).collect();
        let file = if names.contains(STORE_DB) {
            STORE_DB
        } else if names.contains(export::FILE_NAME) {
            export::FILE_NAME
        } else {
            problems.unrecognized(&dir, "a chat directory with store.db");
            continue;
        };
        for e in &entries {
            if e.name != file && !CHAT_FILES.contains(&e.name.as_str()) {
                problems.unrecognized(&join(&dir, &e.name), "a file of a chat store");
            }
        }
        let locator = join(&dir, file);
        let id = dir.rsplit('/').next().unwrap_or(&dir).to_string();
        if seen.contains(&id) {
            continue;
        }
        let size: u64 = entries.iter().filter(|e| e.is_file()).map(|e| e.meta.size).sum();
        match session_ref(home, &locator, size, &mut problems) {
            Ok(r) => {
                seen.insert(id);
                sessions.push(r);
            }
            Err(e) => problems.add("unreadable-file", Severity::Warning, &locator, &detail_of(&locator, &e)),
        }
    }
    for project in discovery::list(home, PROJECTS, &mut problems).unwrap_or_default() {
        if !project.is_dir() {
            continue;
        }
        let tdir = join(&join(PROJECTS, &project.name), DIR);
        for entry in discovery::list(home, &tdir, &mut problems).unwrap_or_default() {
            let locator = if entry.is_file() && entry.name.ends_with(".jsonl") {
                join(&tdir, &entry.name)
            } else if entry.is_dir() {
                let inner = join(&join(&tdir, &entry.name), &format!("{}.jsonl", entry.name));
                match home.stat(&inner) {
                    Ok(_) => inner,
                    Err(_) => {
                        problems.unrecognized(&join(&tdir, &entry.name), "an agent-transcripts <id>/<id>.jsonl");
                        continue;
                    }
                }
            } else {
                problems.unrecognized(&join(&tdir, &entry.name), "an agent-transcripts .jsonl");
                continue;
            };
            let id = transcript::stem(&locator).to_string();
            if seen.contains(&id) {
                continue;
            }
            let size = home.stat(&locator).map(|m| m.size).unwrap_or(0);
            if size == 0 {
                problems.empty(&locator, "agent-transcripts JSONL");
                continue;
            }
            seen.insert(id.clone());
            sessions.push(SessionRef {
                native_id: id,
                locator,
                cwd: None,
                started_at: None,
                updated_at: None,
                size,
                native_version: None,
                title: None,
            });
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The session-ref of one store, with its `not-portable` and `empty-chat`
/// findings recorded against its locator.
pub fn session_ref(
    home: &Dir,
    locator: &str,
    size: u64,
    problems: &mut FileProblems,
) -> Result<SessionRef, CodecError> {
    let chat = Chat::open(home, locator)?;
    for cause in chat.not_portable() {
        problems.add(NOT_PORTABLE, Severity::Warning, locator, &cause);
    }
    if let Some(why) = &chat.no_root {
        problems.add(EMPTY_CHAT, Severity::Warning, locator, why);
    }
    Ok(SessionRef {
        native_id: chat.native_id.clone(),
        locator: locator.to_string(),
        cwd: chat.cwd.clone(),
        started_at: chat.created_at_ms().map(rfc3339_ms),
        updated_at: chat.updated_at_ms().map(rfc3339_ms),
        size,
        native_version: None,
        title: chat.title(),
    })
}

/// `inspect` without a full discovery.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    if locator.ends_with(".jsonl") && !locator.ends_with(export::FILE_NAME) {
        return trajhost_codec_sdk::loose_file_ref(home, locator);
    }
    let dir = crate::session::dir_of(locator);
    let size = home
        .list(dir)
        .map(|es| es.iter().filter(|e| e.is_file()).map(|e| e.meta.size).sum())
        .map_err(|e| trajhost_codec_sdk::errors::fs_error(dir, e))?;
    session_ref(home, locator, size, &mut FileProblems::new())
}
