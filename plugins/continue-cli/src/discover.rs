//! `discover`: the session files under a home.
//!
//! Every `sessions/*.json` but the index is a session; the index gives each
//! its start (`dateCreated`). A session the index does not list (a resume
//! by `--resume` adds none; a file copied in) is still a session. A file
//! that is not a session document is a diagnostic naming it.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::fs::{Dir, Metadata};
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef};

use crate::layout::{self, IndexEntry, SESSIONS};
use crate::session::{self, Document};

/// A document without `sessionId` (named by its file).
pub use trajhost_codec_sdk::discovery::NO_SESSION_ID;

pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut problems = FileProblems::new();
    let Some(mut entries) = discovery::list(home, SESSIONS, &mut problems) else {
        return Ok(problems.finish(sessions, Diagnostics::new()));
    };
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let index = layout::read_index(home);
    for entry in &entries {
        let locator = layout::join(SESSIONS, &entry.name);
        if entry.name == layout::INDEX_NAME {
            continue;
        }
        if !layout::is_session_name(&entry.name) || !entry.is_file() {
            problems.unrecognized(&locator, "a session file (sessions/<sessionId>.json)");
            continue;
        }
        if entry.meta.size == 0 {
            problems.empty(&locator, "json");
            continue;
        }
        problems.place(&locator, session_ref(home, &locator, &entry.meta, &index), "sessionId", &mut sessions);
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The session-ref of one file, as `discover` gives it; a loose copy (the
/// host sniffed it) is read where it lies, without the index.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    layout::check_locator(locator)?;
    let meta = home.stat(locator).map_err(|e| trajhost_codec_sdk::errors::fs_error(locator, e))?;
    let index = if layout::in_store(locator) { layout::read_index(home) } else { Vec::new() };
    session_ref(home, locator, &meta, &index).map(|(s, _)| s)
}

fn session_ref(
    home: &Dir,
    locator: &str,
    meta: &Metadata,
    index: &[IndexEntry],
) -> Result<(SessionRef, bool), CodecError> {
    let bytes = session::load(home, locator)?;
    let doc =
        Document::parse(&bytes).map_err(|why| CodecError::Malformed(format!("not a Continue CLI session: {why}")))?;
    let (native_id, named) = doc.native_id(locator);
    let session = SessionRef {
        locator: locator.to_string(),
        cwd: doc.cwd(),
        started_at: session::started_at(layout::index_entry(index, &native_id)),
        // The file is rewritten after every turn: its mtime is the last one.
        updated_at: meta.modified_ms.map(rfc3339_ms),
        size: meta.size,
        native_version: None,
        title: doc.listed_title(),
        native_id,
    };
    Ok((session, named))
}
