//! `discover` and `inspect`: each agent journal under
//! `.kimi-code/sessions/<wd>/session_<uuid>/agents/<id>/wire.jsonl`, with
//! the session's `state.json` and the journal's `metadata` line.

use serde_json::Value;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::errors::fs_error;
use trajhost_codec_sdk::fs::{Dir, File, FsError};
use trajhost_codec_sdk::json::str_of;
use trajhost_codec_sdk::paths::join;
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef};

use crate::layout::{AGENTS, SESSION_PREFIX, SESSIONS, STATE, SessionPaths, WIRE, WORK_DIR_PREFIX, plain_name};
use crate::state::State;

/// Bytes of a journal read for its `metadata` line.
pub const HEAD_BYTES: u32 = 64 * 1024;

/// What discovery takes from a journal's first line.
#[derive(Debug, Default, Clone)]
pub struct Head {
    pub protocol_version: Option<String>,
    /// `created_at` (ms) of the `metadata` line.
    pub created_ms: Option<i64>,
}

impl Head {
    /// The `metadata` line opening `bytes`, if it is one.
    pub fn parse(bytes: &[u8]) -> Option<Head> {
        let first = bytes.split(|b| *b == b'\n').next()?;
        let v: Value = serde_json::from_slice(first).ok()?;
        if str_of(&v, "type") != Some("metadata") {
            return None;
        }
        Some(Head {
            protocol_version: match v.get("protocol_version") {
                Some(Value::String(s)) => Some(s.clone()),
                Some(Value::Number(n)) => Some(n.to_string()),
                _ => None,
            },
            created_ms: v.get("created_at").and_then(Value::as_i64),
        })
    }

    pub fn of(file: &File) -> Result<Option<Head>, FsError> {
        Ok(Head::parse(&file.read_at(0, HEAD_BYTES)?))
    }
}

/// Every agent journal of every session. A session folder's other files are
/// its own; anything else under the store is named in a diagnostic.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let mut sessions = Vec::new();
    for wd in discovery::list(home, SESSIONS, &mut problems).unwrap_or_default() {
        let wd_path = join(SESSIONS, &wd.name);
        if !wd.is_dir() || !wd.name.starts_with(WORK_DIR_PREFIX) || !plain_name(&wd.name) {
            problems.unrecognized(&wd_path, "a wd_<slug>_<hash> work dir folder");
            continue;
        }
        for session in discovery::list(home, &wd_path, &mut problems).unwrap_or_default() {
            let session_dir = join(&wd_path, &session.name);
            if !session.is_dir() || !session.name.starts_with(SESSION_PREFIX) || !plain_name(&session.name) {
                problems.unrecognized(&session_dir, "a session_<uuid> folder");
                continue;
            }
            let agents_dir = join(&session_dir, AGENTS);
            let Some(agents) = discovery::list(home, &agents_dir, &mut problems) else {
                problems.add("no-agents", trajhost_codec_sdk::Severity::Info, &session_dir, "no agents folder");
                continue;
            };
            let mut state_diags = Diagnostics::new();
            let state_path = join(&session_dir, STATE);
            let state = State::read(home, &state_path, &mut state_diags);
            problems.absorb(&mut state_diags, &state_path);
            for agent in agents {
                let agent_dir = join(&agents_dir, &agent.name);
                if !agent.is_dir() || !plain_name(&agent.name) {
                    problems.unrecognized(&agent_dir, "an agent folder");
                    continue;
                }
                let Some(files) = discovery::list(home, &agent_dir, &mut problems) else { continue };
                let Some(wire) = files.iter().find(|f| f.is_file() && f.name == WIRE) else {
                    problems.add(
                        "no-wire",
                        trajhost_codec_sdk::Severity::Info,
                        &agent_dir,
                        "agent folder without wire.jsonl",
                    );
                    continue;
                };
                let locator = join(&agent_dir, WIRE);
                let Ok(paths) = SessionPaths::from_locator(&locator) else {
                    problems.unrecognized(&locator, "a journal inside the layout");
                    continue;
                };
                // An empty or unreadable journal is recorded by scan_head and
                // still listed when empty (a session just started).
                let head = match problems.scan_head(home, &locator, wire.meta.size, "Kimi Code wire.jsonl", Head::of) {
                    Some(Some(head)) => Some(head),
                    Some(None) => {
                        problems.malformed_head(&locator, "a metadata line first");
                        None
                    }
                    None if wire.meta.size == 0 => None,
                    None => continue,
                };
                let size = wire.meta.size;
                sessions.push(session_ref(&paths, &state, head.as_ref(), size, wire.meta.modified_ms));
            }
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let file = home.open(locator).map_err(|e| fs_error(locator, e))?;
    let head = Head::of(&file).map_err(|e| fs_error(locator, e))?;
    let state = match paths.state() {
        Some(p) => State::read(home, &p, &mut Diagnostics::new()),
        None => State::default(),
    };
    let modified = home.stat(locator).ok().and_then(|m| m.modified_ms);
    Ok(session_ref(&paths, &state, head.as_ref(), file.size(), modified))
}

pub fn session_ref(
    paths: &SessionPaths,
    state: &State,
    head: Option<&Head>,
    size: u64,
    modified_ms: Option<i64>,
) -> SessionRef {
    let created = head.and_then(|h| h.created_ms).map(rfc3339_ms);
    SessionRef {
        native_id: paths.native_id(),
        locator: paths.locator.clone(),
        cwd: state.work_dir.clone(),
        // The session's times and title are the main agent's.
        started_at: if paths.is_main() { state.created_at.clone().or(created) } else { created },
        updated_at: if paths.is_main() { state.updated_at.clone() } else { None }.or(modified_ms.map(rfc3339_ms)),
        size,
        native_version: head.and_then(|h| h.protocol_version.clone()),
        title: if paths.is_main() { state.title.clone() } else { None },
    }
}
