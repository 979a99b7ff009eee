//! `discover` and `inspect`: conversations from directory listings (one stat
//! per entry, by the host's listing), each conversation's `base_state.json`
//! and its first events.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::layout::{BASE_STATE, CONVERSATIONS, SessionPaths, plain_name};
use crate::store::{self, Facts};
use crate::util::{fs_kind, join, rfc3339_ms};

pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut diags = Diagnostics::new();
    let mut sessions = Vec::new();
    let folders = match home.list(CONVERSATIONS) {
        Ok(f) => f,
        Err(FsError::NotFound(_)) => return Ok(Discovery { sessions, diagnostics: diags.drain() }),
        Err(e) => {
            diags.add("unreadable-directory", Severity::Warning, fs_kind(&e), Some(CONVERSATIONS), None);
            return Ok(Discovery { sessions, diagnostics: diags.drain() });
        }
    };
    for folder in folders.iter().filter(|e| e.is_dir() && plain_name(&e.name)) {
        let paths = SessionPaths::from_locator(&join(&join(CONVERSATIONS, &folder.name), BASE_STATE))?;
        match store::facts(home, &paths, &mut diags) {
            Some(facts) if !facts.events.is_empty() => sessions.push(session_ref(&paths, &facts, &mut diags)),
            Some(_) => diags.add("empty-session", Severity::Info, "events", Some(&paths.dir), None),
            None => diags.add("no-base-state", Severity::Info, BASE_STATE, Some(&paths.dir), None),
        }
    }
    Ok(Discovery { sessions, diagnostics: diags.drain() })
}

pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let mut diags = Diagnostics::new();
    let facts = store::facts(home, &paths, &mut diags).ok_or_else(|| CodecError::NotFound(locator.to_string()))?;
    Ok(session_ref(&paths, &facts, &mut diags))
}

pub fn session_ref(paths: &SessionPaths, facts: &Facts, diags: &mut Diagnostics) -> SessionRef {
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
