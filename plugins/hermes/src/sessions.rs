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
use trajhost_codec_sdk::discovery::{self, DbFile, FileProblems};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::sql;
use trajhost_codec_sdk::sqlite::{Database, SqliteError, Value};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

pub use trajhost_codec_sdk::errors::{fs_error, fs_kind, sqlite_error, sqlite_kind};

use crate::layout::{self, Locator};
use crate::time::from_epoch_secs;

/// Characters of the first prompt used as a title when there is no other.
const TITLE_CHARS: usize = 80;

/// Every session under `home`. The store is the `state.db` of the home and
/// of each profile; the other files beside them (config, skills, logs, the
/// database's `-wal`/`-shm`) are Hermes' own and not looked at. A database
/// that cannot be read is named in a diagnostic; the others are still read.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let dbs = databases(home, &mut problems);
    let mut sessions = discovery::sessions_of(&dbs, &mut problems, |db, problems| list(home, db, None, problems));
    sessions.extend(crate::export::discover(home, &mut problems));
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The session-ref of one session.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    if let Some(id) = crate::export::export_id(locator) {
        return crate::export::inspect(home, id);
    }
    let parsed = layout::parse_locator(locator)?;
    parsed.inspect(home, |db, session, problems| list(home, db, session, problems), "with messages")
}

/// `.hermes/state.db` and each profile's `state.db`, from directory listings.
/// A profile directory without one has never run and holds no sessions.
fn databases(home: &Dir, problems: &mut FileProblems) -> Vec<DbFile> {
    let mut out = Vec::new();
    let mut add = |dir: &str, entries: &[trajhost_codec_sdk::fs::DirEntry]| {
        out.extend(DbFile::in_listing(dir, entries, layout::DB_NAME));
    };
    let hermes = layout::STATE_DB.rsplit_once('/').map_or(".hermes", |(d, _)| d);
    if let Some(entries) = discovery::list(home, hermes, problems) {
        add(hermes, &entries);
    }
    if let Some(profiles) = discovery::list(home, layout::PROFILES_DIR, problems) {
        for profile in profiles.iter().filter(|e| e.is_dir()) {
            let dir = format!("{}/{}", layout::PROFILES_DIR, profile.name);
            if let Some(entries) = discovery::list(home, &dir, problems) {
                add(&dir, &entries);
            }
        }
    }
    out
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
fn list(
    home: &Dir,
    db: &DbFile,
    only: Option<&str>,
    problems: &mut FileProblems,
) -> Result<Vec<SessionRef>, SqliteError> {
    let conn = Database::open(home, &db.path)?;
    let version = schema_version(&conn);
    let present = sql::table_columns(&conn, "sessions")?;
    if !present.contains("id") {
        problems.add("not-a-hermes-database", Severity::Warning, &db.path, "no sessions.id column");
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
    let mut out = Vec::new();
    sql::each_row(&conn, &sql, &params, |row| {
        let Some(id) = row.text("id") else { return };
        let Some(last) = row.real("last_message_at") else {
            problems.add("empty-session", Severity::Info, &db.path, "sessions without messages");
            return;
        };
        let started = row.real("started_at").and_then(from_epoch_secs);
        let updated =
            [Some(last), row.real("ended_at")].into_iter().flatten().reduce(f64::max).and_then(from_epoch_secs);
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
    })?;
    Ok(out)
}

/// The first prompt, whitespace collapsed, cut to [`TITLE_CHARS`]. Multi-part
/// (JSON) content gives no title.
pub fn prompt_title(text: &str) -> Option<String> {
    if text.starts_with('\0') || text.starts_with('\u{1}') {
        return None;
    }
    trajhost_codec_sdk::text::title_of(text, TITLE_CHARS)
}
