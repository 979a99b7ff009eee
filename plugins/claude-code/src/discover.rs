//! `discover`: the sessions under a home, from directory listings and the
//! head of each transcript.
//!
//! Each file is stat'ed once, by the host's listing; only the first 64 KiB
//! (and for larger files the last 64 KiB) of a transcript are read.
//!
//! A conversation Claude Code keeps as several sessions is linked by info
//! diagnostics the host reads (`sessions` shows `continues: <id>`, `read
//! --follow` reads the whole conversation):
//! - `continues` on the later session's file, detail the earlier session's
//!   id: a 1.0.x `--resume` wrote a new file (in the same project
//!   directory) with the history it resumed, copied with its uuids, and the
//!   new turn, which hangs off the last record of the earlier session's
//!   file; the new file may start with a `summary` whose `leafUuid` is that
//!   record. When several sessions' last records are in its chain (a
//!   conversation resumed twice holds both earlier files' histories), the
//!   newest one is the session it continues;
//! - `continued-in` on the earlier session's file, detail the later
//!   session's id: its `continued-in` record (Claude Code >= 2.1.261).

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::fs::{Dir, Metadata};
use trajhost_codec_sdk::{CodecError, Diagnostic, Discovery, SessionRef, Severity};

pub use trajhost_codec_sdk::errors::{fs_error, fs_kind};

use crate::head::{Continuation, Head};
use crate::layout::{self, JSONL, SessionPaths};
use crate::read::agent_meta;
use crate::time::rfc3339_utc;

/// `sessions-index.json`: Claude Code's own (often stale) list of the
/// project's sessions; the transcripts are the truth, so it is not read.
const SESSIONS_INDEX: &str = "sessions-index.json";
/// `memory/`: the project's auto-memory notes, no transcript.
const MEMORY_DIR: &str = "memory";

/// Every transcript under `home`: main sessions, and each subagent's
/// (`<sessionId>/subagents/agent-*.jsonl`, or a legacy `agent-*.jsonl` in
/// the project directory) as a session of its own. Each entry of a project
/// directory is a transcript, a `<sessionId>/` directory, a known auxiliary
/// file ([`SESSIONS_INDEX`], [`MEMORY_DIR`]) or a diagnostic naming it.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut problems = FileProblems::new();
    let mut links = Vec::new();
    for root in layout::project_roots(home, &mut problems) {
        let root = root.as_str();
        let Some(projects) = discovery::list(home, root, &mut problems) else {
            continue;
        };
        for project in &projects {
            let project_dir = layout::join(root, &project.name);
            if !project.is_dir() {
                problems.unrecognized(&project_dir, "not a project directory");
                continue;
            }
            let Some(entries) = discovery::list(home, &project_dir, &mut problems) else {
                continue;
            };
            // The project's main sessions, with what links them.
            let mut project_sessions: Vec<(usize, Continuation)> = Vec::new();
            for entry in &entries {
                let locator = layout::join(&project_dir, &entry.name);
                if entry.is_dir() {
                    let owner = format!("{}{JSONL}", entry.name);
                    let owned = entries.iter().any(|e| e.is_file() && e.name == owner);
                    if entry.name == MEMORY_DIR {
                        continue;
                    }
                    // Each subagent transcript is a session of its own.
                    let found = subagents(home, &locator, &mut sessions, &mut problems);
                    if !owned && !found {
                        problems.unrecognized(&locator, "a directory that belongs to no transcript");
                    }
                    continue;
                }
                if entry.name == SESSIONS_INDEX {
                    continue;
                }
                if !entry.is_file() || !is_transcript(&entry.name) {
                    problems.unrecognized(&locator, "not a transcript (<sessionId>.jsonl)");
                    continue;
                }
                if let Some((session, continuation)) = session_ref(home, &locator, &entry.meta, &mut problems) {
                    // A legacy subagent transcript continues no conversation.
                    if layout::agent_id(&entry.name).is_none() {
                        project_sessions.push((sessions.len(), continuation));
                    }
                    sessions.push(session);
                }
            }
            continuations(&sessions, &project_sessions, &mut links);
        }
    }
    let mut discovery = problems.finish(sessions, Diagnostics::new());
    discovery.diagnostics.extend(links);
    Ok(discovery)
}

/// The `continues` and `continued-in` diagnostics of one project
/// directory's sessions (see the module doc).
fn continuations(sessions: &[SessionRef], project: &[(usize, Continuation)], out: &mut Vec<Diagnostic>) {
    let link = |code: &str, detail: &str, file: &str| Diagnostic {
        code: code.to_string(),
        severity: Severity::Info,
        detail: detail.to_string(),
        count: 1,
        file: Some(file.to_string()),
        offset: None,
    };
    for (index, continuation) in project {
        let session = &sessions[*index];
        // The earlier session: another one whose last record this file's
        // conversation hangs off (the newest such), else the one whose last
        // record its opening summary names.
        let ends_with = |uuid: &String| {
            project.iter().find(|(other, c)| {
                other != index && c.last_uuid.as_ref() == Some(uuid) && sessions[*other].native_id != session.native_id
            })
        };
        let earlier = continuation
            .parents
            .iter()
            .rev()
            .find_map(ends_with)
            .or_else(|| continuation.fork_leaves.iter().find_map(ends_with));
        if let Some((earlier, _)) = earlier
            && crate::head::plain_id(&sessions[*earlier].native_id)
        {
            out.push(link("continues", &sessions[*earlier].native_id, &session.locator));
        }
        if let Some(successor) = &continuation.continued_in
            && successor != &session.native_id
        {
            out.push(link("continued-in", successor, &session.locator));
        }
    }
}

/// The session-ref of one transcript, as `discover` reports it.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    SessionPaths::from_locator(locator)?;
    let meta = home.stat(locator).map_err(|e| fs_error(locator, e))?;
    let mut problems = FileProblems::new();
    session_ref(home, locator, &meta, &mut problems).map(|(session, _)| session).ok_or_else(|| {
        let why = problems.drain().into_iter().next().map(|d| d.detail).unwrap_or_default();
        CodecError::Malformed(format!("{locator}: not a Claude Code session: {why}"))
    })
}

/// Transcripts are `<sessionId>.jsonl`, and the `agent-<agentId>.jsonl`
/// subagent transcripts older builds wrote beside them.
fn is_transcript(name: &str) -> bool {
    name.ends_with(JSONL) && name.len() > JSONL.len()
}

/// Directory levels walked below `subagents/` (`workflows/<runId>/`).
const MAX_SUBAGENT_DEPTH: usize = 3;

/// The subagent sessions in `<session-dir>/subagents/`: each
/// `agent-<id>.jsonl` (its `agent-<id>.meta.json` is read with it), also in
/// directories below it. True when the directory exists.
fn subagents(home: &Dir, session_dir: &str, sessions: &mut Vec<SessionRef>, problems: &mut FileProblems) -> bool {
    let dir = layout::join(session_dir, layout::SUBAGENTS);
    walk_subagents(home, &dir, 0, sessions, problems)
}

fn walk_subagents(
    home: &Dir,
    dir: &str,
    depth: usize,
    sessions: &mut Vec<SessionRef>,
    problems: &mut FileProblems,
) -> bool {
    let Some(entries) = discovery::list(home, dir, problems) else {
        return false;
    };
    for entry in &entries {
        let locator = layout::join(dir, &entry.name);
        if entry.is_dir() && depth < MAX_SUBAGENT_DEPTH {
            walk_subagents(home, &locator, depth + 1, sessions, problems);
        } else if entry.is_file() && layout::agent_id(&entry.name).is_some() {
            if let Some((session, _)) = session_ref(home, &locator, &entry.meta, problems) {
                sessions.push(session);
            }
        } else if entry.is_file() && entry.name.starts_with(layout::AGENT_PREFIX) && entry.name.ends_with(".meta.json")
        {
            // Read with its transcript.
        } else {
            problems.unrecognized(&locator, "not a subagent transcript (agent-<agentId>.jsonl)");
        }
    }
    true
}

fn session_ref(
    home: &Dir,
    locator: &str,
    meta: &Metadata,
    problems: &mut FileProblems,
) -> Option<(SessionRef, Continuation)> {
    let mut paths = SessionPaths::from_locator(locator).ok()?;
    // Claude Code creates the file with its first line; an empty one is
    // left over from a crash or a copy.
    let head = problems.scan_head(home, locator, meta.size, "jsonl", Head::scan)?;
    if !head.has_records {
        problems.malformed_head(locator, "no line of the head is a Claude Code record (JSON with a type)");
        return None;
    }
    if head.session_id.is_none() && !head.has_conversation {
        // Legacy summary-only files: Claude Code's own records, no session.
        problems.add("no-session-records", Severity::Info, locator, "jsonl");
        return None;
    }
    if paths.identify(head.session_id.as_deref(), head.agent_id.as_deref()) {
        let detail = if paths.subagent.is_some() { "agentId" } else { "sessionId" };
        problems.add("session-id-mismatch", Severity::Warning, locator, detail);
    }
    let title = match paths.agent_meta_json() {
        Some(meta_json) => {
            let mut diags = Diagnostics::new();
            let agent = agent_meta(home, &meta_json, &mut diags);
            problems.absorb(&mut diags, &meta_json);
            agent.description.or(agent.agent_type).or_else(|| head.title())
        }
        None => head.title(),
    };
    let session = SessionRef {
        native_id: paths.native_id,
        locator: locator.to_string(),
        cwd: head.cwd.clone(),
        started_at: head.started_at.clone(),
        updated_at: meta.modified_ms.map(rfc3339_utc),
        size: meta.size,
        native_version: head.version.clone(),
        title,
    };
    Some((session, head.continuation))
}
