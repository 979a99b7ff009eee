//! `discover`: every session of `~/.local/share/opencode/opencode.db`.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::sqlite::Database;
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::layout::{self, DB};
use crate::store::{self, Session, sqlite_error};
use crate::time::rfc3339_utc;

pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut diags = Diagnostics::new();
    match home.stat(DB) {
        Ok(_) => {}
        Err(FsError::NotFound(_)) => return Ok(Discovery { sessions: Vec::new(), diagnostics: Vec::new() }),
        Err(e) => {
            diags.add("unreadable-file", Severity::Warning, "opencode.db", Some(DB), None);
            let _ = e;
            return Ok(Discovery { sessions: Vec::new(), diagnostics: diags.drain() });
        }
    }
    let db = Database::open(home, DB).map_err(|e| sqlite_error(DB, e))?;
    let schema = store::check(&db, DB)?;
    let mut sessions = Vec::new();
    for session in store::sessions(&db, DB, &schema)? {
        let size = store::session_bytes(&db, DB, &session.id)?;
        sessions.push(session_ref(DB, &session, size));
    }
    Ok(Discovery { sessions, diagnostics: diags.drain() })
}

pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let (path, id) = layout::parse_locator(locator)?;
    let db = Database::open(home, path).map_err(|e| sqlite_error(path, e))?;
    let schema = store::check(&db, path)?;
    let session = store::session_by_id(&db, path, &schema, id)?
        .ok_or_else(|| CodecError::NotFound(format!("{path}: no session {id}")))?;
    let size = store::session_bytes(&db, path, id)?;
    Ok(session_ref(path, &session, size))
}

fn session_ref(path: &str, session: &Session, size: u64) -> SessionRef {
    SessionRef {
        native_id: session.id.clone(),
        locator: layout::locator(path, &session.id),
        cwd: session.directory.clone(),
        started_at: session.created.map(rfc3339_utc),
        updated_at: session.updated.map(rfc3339_utc),
        size,
        native_version: session.version.clone(),
        title: session.title.clone(),
    }
}
