//! `discover` and `inspect`: conversations from directory listings (one stat
//! per entry, by the host's listing), each conversation's `base_state.json`
//! and its first events.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::paths::join;
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::layout::{BASE_STATE, CONVERSATIONS, SessionPaths, plain_name};
use crate::store::{self, Facts};

/// Every conversation folder of `conversations/` (its `base_state.json`
/// and `events/`, lock and marker files included, are its own); anything
/// else there is named in a diagnostic.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let mut sessions = Vec::new();
    for folder in discovery::list(home, CONVERSATIONS, &mut problems).unwrap_or_default() {
        let dir = join(CONVERSATIONS, &folder.name);
        if !folder.is_dir() || !plain_name(&folder.name) {
            problems.unrecognized(&dir, "not a conversation folder");
            continue;
        }
        let Ok(mut paths) = SessionPaths::from_locator(&join(&dir, BASE_STATE)) else {
            problems.unrecognized(&dir, "not a conversation folder");
            continue;
        };
        let mut diags = Diagnostics::new();
        match store::facts(home, &paths, &mut diags) {
            Some(facts) if !facts.events.is_empty() => sessions.push(session_ref(&mut paths, &facts, &mut diags)),
            Some(_) => problems.add("empty-session", Severity::Info, &paths.dir, "events"),
            None => problems.add("no-base-state", Severity::Info, &paths.dir, BASE_STATE),
        }
        problems.absorb(&mut diags, &paths.dir);
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let mut paths = SessionPaths::from_locator(locator)?;
    let mut diags = Diagnostics::new();
    let facts = store::facts(home, &paths, &mut diags).ok_or_else(|| CodecError::NotFound(locator.to_string()))?;
    Ok(session_ref(&mut paths, &facts, &mut diags))
}

/// The session-ref of a conversation; settles `paths.native_id`.
pub fn session_ref(paths: &mut SessionPaths, facts: &Facts, diags: &mut Diagnostics) -> SessionRef {
    paths.identify(facts.state_id.as_deref());
    if facts.assumed_utc {
        diags.add("naive-time-read-as-utc", Severity::Info, "timestamp", Some(&paths.dir), None);
    }
    SessionRef {
        native_id: paths.native_id.clone(),
        locator: paths.locator.clone(),
        cwd: facts.cwd.clone(),
        started_at: facts.started_at.clone(),
        updated_at: facts.updated_ms.map(rfc3339_ms),
        size: facts.size,
        native_version: None,
        title: facts.title.clone(),
    }
}
