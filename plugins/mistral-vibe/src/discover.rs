//! `discover`: the session folders under a home.
//!
//! Every `.vibe/logs/session/unified/<id>/` holding a `CURRENT` is a
//! session; `meta.json`'s `start_time` is its start and `end_time` its last
//! change; its title is `meta.json`'s, else its first prompt. A folder
//! without a pointer, or a pointer that is not one, is a diagnostic naming
//! it; `.session-index.json` (a cache of the same metadata) is not read.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::time::{normalized_rfc3339_ms, rfc3339_ms};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef};

use crate::layout::{self, CURRENT, SESSIONS, join};
use crate::message::Item;
use crate::store::{self, Session};

/// Characters of the first prompt used as a title.
const TITLE_CHARS: usize = 80;

pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut problems = FileProblems::new();
    let Some(mut entries) = discovery::list(home, SESSIONS, &mut problems) else {
        return Ok(problems.finish(sessions, Diagnostics::new()));
    };
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    for entry in &entries {
        let path = join(SESSIONS, &entry.name);
        if entry.name.starts_with('.') && entry.is_file() {
            continue; // .session-index.json: a cache of what the folders hold
        }
        if !entry.is_dir() || !layout::is_session_id(&entry.name) {
            problems.unrecognized(&path, "a session folder (unified/<id>/)");
            continue;
        }
        let locator = join(&path, CURRENT);
        match home.stat(&locator) {
            Ok(_) => problems.place(&locator, inspect(home, &locator).map(|s| (s, true)), "session_id", &mut sessions),
            Err(_) => problems.unrecognized(&path, "a session folder with its CURRENT pointer"),
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The session-ref of one session (a loose copy too).
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let session = Session::load(home, locator)?;
    let meta = home.stat(locator).map_err(|e| trajhost_codec_sdk::errors::fs_error(locator, e))?;
    let mut size = meta.size;
    let mut first_prompt = None;
    for digest in session.manifest.checkpoint.chunks.iter().flatten() {
        let path = session.chunk_path(digest);
        if let Ok(m) = home.stat(&path) {
            size += m.size;
        }
        if first_prompt.is_none() {
            first_prompt = first_prompt_of(home, &path);
        }
    }
    let title = session
        .meta
        .title
        .clone()
        .filter(|t| !t.is_empty())
        .or_else(|| trajhost_codec_sdk::text::title_of(first_prompt.as_deref()?.trim(), TITLE_CHARS));
    Ok(SessionRef {
        locator: locator.to_string(),
        cwd: session.cwd(),
        started_at: session.meta.start_time.as_deref().and_then(normalized_rfc3339_ms),
        updated_at: session
            .meta
            .end_time
            .as_deref()
            .and_then(normalized_rfc3339_ms)
            .or_else(|| meta.modified_ms.map(rfc3339_ms)),
        size,
        native_version: None,
        title,
        native_id: session.id().to_string(),
    })
}

fn first_prompt_of(home: &Dir, chunk: &str) -> Option<String> {
    let bytes = trajhost_codec_sdk::errors::read_document(home, chunk, store::MAX_FILE_BYTES).ok()?;
    let items: Vec<Item> = serde_json::from_slice(store::body(&bytes)).ok()?;
    items.into_iter().filter_map(|i| i.message).find(|m| m.role.as_deref() == Some("user")).map(|m| m.text())
}
