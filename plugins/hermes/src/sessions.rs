//! The `sessions` table: `discover`, `inspect` and the session's `meta`.
//!
//! `discover` runs one query per database that lists its sessions with
//! what a session-ref needs. Two indexed subqueries per session use
//! `messages(session_id, timestamp)`: the time of the last message (the
//! session's `updated_at`; Hermes 0.19 keeps no last-activity column) and
//! the first user prompt (the title when the session has none). Sessions
//! without messages are counted (`empty-session`), not listed: Hermes
//! creates such rows for runs that never reached the model, and for
//! compression parents whose messages moved to the continuation.
//!
//! `size` is the size of the database (and its `-wal`): the sessions share
//! it.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::sqlite::{Database, SqliteError, Value};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::layout::{self, Locator};
use crate::sql::{self, Row};
use crate::time::from_epoch_secs;

/// Characters of the first prompt used as a title when there is no other.
const TITLE_CHARS: usize = 80;

/// One database under the home.
pub struct StateDb {
    pub path: String,
    /// Bytes of the database and its `-wal`.
    pub size: u64,
}

/// Every session under `home`.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut diags = Diagnostics::new();
    let mut sessions = Vec::new();
    for db in databases(home, &mut diags) {
        match list(home, &db, None, &mut diags) {
            Ok(found) => sessions.extend(found),
            Err(e) => diags.add("unreadable-database", Severity::Warning, sqlite_kind(&e), Some(&db.path), None),
        }
    }
    Ok(Discovery { sessions, diagnostics: diags.drain() })
}

/// The session-ref of one session.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let parsed = Locator::parse(locator)?;
    let db = state_db(home, &parsed.db)?;
    let mut diags = Diagnostics::new();
    let mut found = list(home, &db, parsed.session.as_deref(), &mut diags).map_err(|e| sqlite_error(&parsed.db, e))?;
    match (found.len(), &parsed.session) {
        (1, _) => Ok(found.remove(0)),
        (0, Some(id)) => Err(CodecError::NotFound(format!("{}: no session {id} with messages", parsed.db))),
        (n, _) => Err(CodecError::NotFound(format!("{}: holds {n} sessions; name one as {}#<session-id>", parsed.db, parsed.db))),
    }
}

/// The database at `path`, with its size.
pub fn state_db(home: &Dir, path: &str) -> Result<StateDb, CodecError> {
    let meta = home.stat(path).map_err(|e| fs_error(path, e))?;
    let wal = home.stat(&layout::wal_of(path)).map(|m| m.size).unwrap_or(0);
    Ok(StateDb { path: path.to_string(), size: meta.size + wal })
}

/// `.hermes/state.db` and each profile's `state.db`, from directory listings.
fn databases(home: &Dir, diags: &mut Diagnostics) -> Vec<StateDb> {
    let mut out = Vec::new();
    let mut add = |dir: &str, entries: &[trajhost_codec_sdk::fs::DirEntry]| {
        let Some(db) = entries.iter().find(|e| e.is_file() && e.name == layout::DB_NAME) else { return };
        let wal_name = format!("{}-wal", layout::DB_NAME);
        let wal = entries.iter().find(|e| e.is_file() && e.name == wal_name).map_or(0, |e| e.meta.size);
        out.push(StateDb { path: format!("{dir}/{}", layout::DB_NAME), size: db.meta.size + wal });
    };
    let hermes = layout::STATE_DB.rsplit_once('/').map_or(".hermes", |(d, _)| d);
    if let Some(entries) = list_dir(home, hermes, diags) {
        add(hermes, &entries);
    }
    if let Some(profiles) = list_dir(home, layout::PROFILES_DIR, diags) {
        for profile in profiles.iter().filter(|e| e.is_dir()) {
            let dir = format!("{}/{}", layout::PROFILES_DIR, profile.name);
            if let Some(entries) = list_dir(home, &dir, diags) {
                add(&dir, &entries);
            }
        }
    }
    out
}

fn list_dir(home: &Dir, path: &str, diags: &mut Diagnostics) -> Option<Vec<trajhost_codec_sdk::fs::DirEntry>> {
    match home.list(path) {
        Ok(entries) => Some(entries),
        Err(FsError::NotFound(_)) => None,
        Err(e) => {
            diags.add("unreadable-directory", Severity::Warning, fs_kind(&e), Some(path), None);
            None
        }
    }
}

/// `schema_version.version`, Hermes' only version mark in the store.
pub fn schema_version(db: &Database) -> Option<String> {
    let rows = db.query("SELECT max(version) FROM schema_version", &[]).ok()?;
    match rows.collect_all().ok()?.first()?.first()? {
        Value::Integer(v) => Some(v.to_string()),
        Value::Text(s) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// The sessions of one database (only `only`, when given).
fn list(home: &Dir, db: &StateDb, only: Option<&str>, diags: &mut Diagnostics) -> Result<Vec<SessionRef>, SqliteError> {
    let conn = Database::open(home, &db.path)?;
    let version = schema_version(&conn);
    let present = sql::table_columns(&conn, "sessions")?;
    if !present.contains("id") {
        diags.add("not-a-hermes-database", Severity::Warning, "sessions.id", Some(&db.path), None);
        return Ok(Vec::new());
    }
    let col = |name: &str| sql::column_or_null(&present, "s.", name);
    let sql = format!(
        "SELECT s.id, {cwd}, {started}, {ended}, {title}, \
         (SELECT max(m.timestamp) FROM messages m WHERE m.session_id = s.id) AS last_message_at, \
         (SELECT substr(m.content, 1, 400) FROM messages m WHERE m.session_id = s.id AND m.role = 'user' ORDER BY m.id LIMIT 1) AS first_prompt \
         FROM sessions s {filter} ORDER BY started_at, s.id",
        cwd = col("cwd"),
        started = col("started_at"),
        ended = col("ended_at"),
        title = col("title"),
        filter = if only.is_some() { "WHERE s.id = ?" } else { "" },
    );
    let params: Vec<Value> = only.map(|id| Value::Text(id.to_string())).into_iter().collect();
    let rows = conn.query(&sql, &params)?;
    let columns = rows.columns();
    let mut out = Vec::new();
    loop {
        let page = rows.next_page(256)?;
        for values in &page.rows {
            let row = Row { columns: &columns, values };
            let Some(id) = row.text("id") else { continue };
            let Some(last) = row.real("last_message_at") else {
                diags.add("empty-session", Severity::Info, "sessions without messages", Some(&db.path), None);
                continue;
            };
            let started = row.real("started_at").and_then(from_epoch_secs);
            let updated = [Some(last), row.real("ended_at")].into_iter().flatten().reduce(f64::max).and_then(from_epoch_secs);
            out.push(SessionRef {
                native_id: id.to_string(),
                locator: Locator::of(&db.path, id),
                cwd: row.text("cwd").map(str::to_string),
                started_at: started,
                updated_at: updated,
                size: db.size,
                native_version: version.clone(),
                title: row.text("title").map(str::to_string).or_else(|| row.text("first_prompt").and_then(prompt_title)),
            });
        }
        if page.done {
            break;
        }
    }
    Ok(out)
}

/// The first prompt, whitespace collapsed, cut to [`TITLE_CHARS`]. Multi-part
/// (JSON) content gives no title.
pub fn prompt_title(text: &str) -> Option<String> {
    if text.starts_with('\0') || text.starts_with('\u{1}') {
        return None;
    }
    let mut out = String::new();
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > TITLE_CHARS {
            break;
        }
    }
    if out.is_empty() {
        return None;
    }
    if out.chars().count() > TITLE_CHARS {
        out = out.chars().take(TITLE_CHARS - 1).collect();
        out.push('…');
    }
    Some(out)
}

pub fn fs_kind(error: &FsError) -> &'static str {
    match error {
        FsError::NotFound(_) => "not-found",
        FsError::Denied(_) => "denied",
        FsError::InvalidPath(_) => "invalid-path",
        FsError::Io(_) => "io",
        FsError::LimitExceeded(_) => "limit-exceeded",
    }
}

pub fn sqlite_kind(error: &SqliteError) -> &'static str {
    match error {
        SqliteError::NotFound(_) => "not-found",
        SqliteError::Denied(_) => "denied",
        SqliteError::Invalid(_) => "invalid",
        SqliteError::LimitExceeded(_) => "limit-exceeded",
        SqliteError::Sqlite(_) => "sqlite",
    }
}

pub fn fs_error(path: &str, error: FsError) -> CodecError {
    match error {
        FsError::NotFound(_) => CodecError::NotFound(path.to_string()),
        FsError::LimitExceeded(m) => CodecError::LimitExceeded(format!("{path}: {m}")),
        other => CodecError::Io(format!("{path}: {other:?}")),
    }
}

pub fn sqlite_error(path: &str, error: SqliteError) -> CodecError {
    match error {
        SqliteError::NotFound(_) => CodecError::NotFound(path.to_string()),
        SqliteError::LimitExceeded(m) => CodecError::LimitExceeded(format!("{path}: {m}")),
        other => CodecError::Io(format!("{path}: {other:?}")),
    }
}
