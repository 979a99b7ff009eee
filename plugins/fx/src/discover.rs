//! `discover` and `inspect`: every `~/.fx/sessions/<id>/session.json`.
//!
//! Passed over on purpose: dot entries (`.resume-catalog`, fx's derived
//! listing index, and temporary files) and the store's own non-session
//! entries ([`layout::NOT_SESSIONS`]). Everything else that is not a
//! session fx would open is a diagnostic naming the file. A schema-3
//! session is listed (with a warning: `read` refuses it).

use serde_json::value::RawValue;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::layout::{self, EVENTS, SESSION_JSON, SESSIONS};
use crate::legacy::UserTurn;
use crate::metadata::{Layout, Probe, SessionMetadata};

/// Largest `session.json` read (fx's own cap for a legacy snapshot,
/// without `--allow-large`).
pub const MAX_SESSION_JSON: u64 = 256 << 20;
/// Longest title derived from a first prompt.
const TITLE_CHARS: usize = 100;

/// Code of the warning for a session whose layout `read` refuses.
pub const UNSUPPORTED_SCHEMA: &str = "unsupported-schema";

pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let mut sessions = Vec::new();
    if let Some(entries) = discovery::list(home, SESSIONS, &mut problems) {
        for entry in entries {
            if entry.name.starts_with('.') || layout::NOT_SESSIONS.contains(&entry.name.as_str()) {
                continue;
            }
            let path = layout::join(SESSIONS, &entry.name);
            if !entry.is_dir() {
                problems.unrecognized(&path, "a session directory ~/.fx/sessions/<id>/");
                continue;
            }
            if !layout::is_session_id(&entry.name) {
                problems.unrecognized(&path, "a directory named by a valid fx session id");
                continue;
            }
            if let Some(session) = session_ref(home, &layout::join(&path, SESSION_JSON), &mut problems) {
                sessions.push(session);
            }
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    layout::session_dir(locator)?;
    let mut problems = FileProblems::new();
    session_ref(home, locator, &mut problems).ok_or_else(|| {
        CodecError::Malformed(format!("{locator}: {}", problems.first_detail().unwrap_or("not an fx session")))
    })
}

/// The session-ref of one `session.json`, or `None` with its problem noted.
pub fn session_ref(home: &Dir, locator: &str, problems: &mut FileProblems) -> Option<SessionRef> {
    let Ok((dir, dir_name)) = layout::session_dir(locator) else {
        problems.unrecognized(locator, "a session.json");
        return None;
    };
    let bytes = match home.read_to_end(locator, MAX_SESSION_JSON) {
        Ok(bytes) => bytes,
        Err(FsError::NotFound(_)) => {
            problems.unrecognized(dir, "a session directory with a session.json");
            return None;
        }
        Err(e) => {
            problems.unreadable(locator, &e);
            return None;
        }
    };
    if bytes.is_empty() {
        problems.empty(locator, "session.json");
        return None;
    }
    let probe: Probe<'_> = match serde_json::from_slice(&bytes) {
        Ok(probe) => probe,
        Err(_) => {
            problems.malformed_head(locator, "session.json is not a JSON object");
            return None;
        }
    };
    let layout = match probe.layout() {
        Ok(layout) => layout,
        Err(why) => {
            problems.malformed_head(locator, &why);
            return None;
        }
    };
    let mut size = bytes.len() as u64;
    let mut title = probe.title.clone();
    let mut cwd = probe.workspace_root.clone();
    match layout {
        Layout::Conversation => {
            let header = match SessionMetadata::parse(&bytes) {
                Ok(header) => header,
                Err(why) => {
                    problems.malformed_head(locator, &why);
                    return None;
                }
            };
            let events = layout::join(dir, EVENTS);
            match home.stat(&events) {
                Ok(meta) => size += meta.size,
                Err(FsError::NotFound(_)) => {
                    problems.add(
                        discovery::MALFORMED_HEAD,
                        Severity::Warning,
                        &events,
                        "missing beside a schema-4 header",
                    );
                }
                Err(e) => problems.unreadable(&events, &e),
            }
            cwd = Some(header.workspace_root);
            if title.is_none() {
                title = first_prompt_of_events(home, &events)
                    .and_then(|t| trajhost_codec_sdk::text::title_of(&t, TITLE_CHARS));
            }
        }
        Layout::Legacy(_) => {
            title = probe
                .history
                .as_ref()
                .and_then(|h| h.iter().find_map(|turn| first_prompt_of_turn(turn)))
                .and_then(|t| trajhost_codec_sdk::text::title_of(&t, TITLE_CHARS));
        }
        Layout::EventLogV1 => {
            problems.add(
                UNSUPPORTED_SCHEMA,
                Severity::Warning,
                locator,
                "schema 3 event_log_v1 (fx 0.0.1–0.0.7): open it once with fx ≥0.0.8 to migrate",
            );
        }
    }
    let content_id = probe.id.as_deref();
    let native_id = if dir_name.is_empty() {
        content_id.unwrap_or_default().to_string()
    } else {
        if content_id.is_some_and(|id| id != dir_name) {
            problems.add(discovery::SESSION_ID_MISMATCH, Severity::Warning, locator, "id is not the directory name");
        }
        dir_name.to_string()
    };
    if native_id.is_empty() {
        problems.malformed_head(locator, "no id");
        return None;
    }
    let time = |ms: Option<i64>| ms.filter(|ms| *ms >= 0).map(trajhost_codec_sdk::time::rfc3339_ms);
    Some(SessionRef {
        native_id,
        locator: locator.to_string(),
        cwd,
        started_at: time(probe.created_at_ms),
        updated_at: time(probe.updated_at_ms),
        size,
        native_version: Some(Probe::version(layout)),
        title,
    })
}

/// The user text of a legacy history turn, if it has one.
fn first_prompt_of_turn(turn: &RawValue) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Turn {
        user: Option<UserTurn>,
    }
    serde_json::from_str::<Turn>(turn.get()).ok()?.user.map(|u| u.text).filter(|t| !t.trim().is_empty())
}

/// The text of the first `user` frame, from the first line of the log.
fn first_prompt_of_events(home: &Dir, events: &str) -> Option<String> {
    let mut lines = trajhost_codec_sdk::jsonl::JsonLines::open(home, events).ok()?;
    let line = lines.next_line()?.ok()?;
    match serde_json::from_slice::<crate::events::ConversationEnvelope>(line.bytes).ok()?.event {
        crate::events::Event::User(user) => Some(user.text),
        _ => None,
    }
}
