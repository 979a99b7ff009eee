//! `discover`: every session of `~/.local/share/opencode/opencode.db`, and
//! the import documents this codec's `prepare` installs (not yet imported).

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::errors::detail_of;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::sqlite::Database;
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use serde_json::Value;

use crate::layout::{self, DB, IMPORT_DIR};
use crate::store::{self, Session, sqlite_error};
use crate::time::rfc3339_utc;

/// The sessions of the store and the import documents waiting in
/// [`IMPORT_DIR`]. The files beside the store (its `-wal`/`-shm`,
/// `tool-output/`, OpenCode's other state) are OpenCode's own. A store that
/// cannot be read, or whose schema this codec does not know, and any file
/// of the import directory that is no import document, are named in
/// diagnostics; the rest is still listed.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let mut sessions = Vec::new();
    let mut diags = Diagnostics::new();
    match home.stat(DB) {
        Ok(_) => match store_sessions(home, &mut diags) {
            Ok(found) => sessions.extend(found),
            Err(CodecError::Unsupported(m)) => {
                problems.add("unknown-schema", Severity::Warning, DB, &detail_of(DB, &CodecError::Unsupported(m)))
            }
            Err(e) => problems.add("unreadable-database", Severity::Warning, DB, &detail_of(DB, &e)),
        },
        Err(FsError::NotFound(_)) => {}
        Err(e) => problems.unreadable(DB, &e),
    }
    let mut names: Vec<(String, bool)> = discovery::list(home, IMPORT_DIR, &mut problems)
        .unwrap_or_default()
        .into_iter()
        .map(|e| (e.name.clone(), e.is_file()))
        .collect();
    names.sort();
    for (name, is_file) in names {
        let locator = format!("{IMPORT_DIR}/{name}");
        if !is_file || layout::import_locator(&locator).is_none() {
            problems.unrecognized(&locator, "not an import document (<ses id>.json)");
            continue;
        }
        match import_ref(home, &locator) {
            Ok(s) => sessions.push(s),
            Err(e) => problems.malformed_head(&locator, &detail_of(&locator, &e)),
        }
    }
    Ok(problems.finish(sessions, diags))
}

/// Every session of the store, with its size.
fn store_sessions(home: &Dir, diags: &mut Diagnostics) -> Result<Vec<SessionRef>, CodecError> {
    let db = Database::open(home, DB).map_err(|e| sqlite_error(DB, e))?;
    let schema = store::check(&db, DB)?;
    schema.note(diags, DB);
    let mut out = Vec::new();
    for session in store::sessions(&db, DB, &schema)? {
        let size = store::session_bytes(&db, DB, &schema, &session.id)?;
        out.push(session_ref(DB, &session, size));
    }
    Ok(out)
}

/// Largest import document read.
pub const MAX_IMPORT_BYTES: u64 = 512 << 20;

/// An import document (`{info, messages: [{info, parts}]}`), checked against its file name.
pub fn import_document(home: &Dir, locator: &str) -> Result<Value, CodecError> {
    // A loose document (renamed, copied elsewhere) is identified by its content.
    let named = layout::import_locator(locator);
    if named.is_none() && !layout::is_loose_document(locator) {
        return Err(CodecError::NotFound(format!("locator {locator:?}")));
    }
    let bytes = home.read_to_end(locator, MAX_IMPORT_BYTES).map_err(|e| match e {
        FsError::NotFound(_) => CodecError::NotFound(locator.to_string()),
        other => CodecError::Io(format!("{locator}: {other:?}")),
    })?;
    let doc: Value =
        serde_json::from_slice(&bytes).map_err(|e| CodecError::Malformed(format!("{locator}: not JSON ({e})")))?;
    let id = doc.pointer("/info/id").and_then(Value::as_str);
    let id_ok = match named {
        Some(named) => id == Some(named),
        None => id.is_some_and(|id| id.starts_with("ses_")),
    };
    if !id_ok || !doc.get("messages").is_some_and(Value::is_array) {
        let expected =
            named.map_or_else(|| "an OpenCode session (info.id ses_…)".to_string(), |n| format!("session {n}"));
        return Err(CodecError::Malformed(format!("{locator}: not an import document of {expected}")));
    }
    Ok(doc)
}

/// The session of an import document, as a `session` row would give it.
pub fn import_session(doc: &Value) -> Session {
    let info = &doc["info"];
    let text = |k: &str| info.get(k).and_then(Value::as_str).map(str::to_string);
    Session {
        rowid: 0,
        id: text("id").unwrap_or_default(),
        directory: text("directory"),
        title: text("title"),
        version: text("version"),
        created: info.pointer("/time/created").and_then(Value::as_i64),
        updated: info.pointer("/time/updated").and_then(Value::as_i64),
        parent: text("parentID"),
    }
}

fn import_ref(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let size = home.stat(locator).map(|m| m.size).unwrap_or(0);
    let doc = import_document(home, locator)?;
    let mut s = session_ref(locator, &import_session(&doc), size);
    s.locator = locator.to_string();
    Ok(s)
}

pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    if layout::import_locator(locator).is_some() || layout::is_loose_document(locator) {
        return import_ref(home, locator);
    }
    let (path, id) = layout::parse_locator(locator)?;
    let db = Database::open(home, path).map_err(|e| sqlite_error(path, e))?;
    let schema = store::check(&db, path)?;
    let session = store::resolve(&db, path, &schema, id)?;
    let size = store::session_bytes(&db, path, &schema, &session.id)?;
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
