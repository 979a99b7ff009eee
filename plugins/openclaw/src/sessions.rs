//! `session_windows` (one row per session) and `schema_meta`: `discover`,
//! `inspect`.
//!
//! `discover` runs one query per agent database. Per session it looks up,
//! through the `(session_id, seq)` primary key of `transcript_events`, the
//! transcript header (`cwd`) and the first user prompt (the title when the
//! session has no label); sessions without transcript events are counted
//! (`empty-session`), not listed. `size` is the size of the database and its
//! `-wal` (the sessions share it); times are `session_windows.created_at`
//! and the later of `updated_at` / `transcript_updated_at` (epoch ms).

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, DbFile, FileProblems};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::sql;
use trajhost_codec_sdk::sqlite::{Database, SqliteError, Value};
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

pub use trajhost_codec_sdk::errors::{fs_error, fs_kind, sqlite_error, sqlite_kind};

use crate::layout::{self, Locator};
use crate::time::from_epoch_ms;

/// Characters of the first prompt used as a title when there is no other.
const TITLE_CHARS: usize = 80;

/// Every session under `home`. The store is each agent's database; the
/// files beside it (its `-wal`/`-shm`, the lock and generation databases,
/// `openclaw.json`, caches) are OpenClaw's own and not looked at. A
/// database that cannot be read is named in a diagnostic; the others are
/// still read.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let dbs = databases(home, &mut problems);
    let mut sessions = discovery::sessions_of(&dbs, &mut problems, |db, problems| list(home, db, None, problems));
    sessions.extend(crate::export::discover(home, &mut problems));
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The session-ref of one session.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let parsed = layout::parse_locator(locator)?;
    parsed.inspect(home, |db, session, problems| list(home, db, session, problems), "with transcript events")
}

/// `<agent>/agent/openclaw-agent.sqlite` of every agent, from listings. An
/// agent without one has never run and holds no sessions.
fn databases(home: &Dir, problems: &mut FileProblems) -> Vec<DbFile> {
    let mut out = Vec::new();
    let Some(agents) = discovery::list(home, layout::AGENTS_DIR, problems) else { return out };
    for agent in agents.iter().filter(|e| e.is_dir()) {
        let dir = format!("{}/{}/agent", layout::AGENTS_DIR, agent.name);
        let Some(entries) = discovery::list(home, &dir, problems) else { continue };
        out.extend(DbFile::in_listing(&dir, &entries, layout::DB_NAME));
    }
    out
}

/// `schema_meta.app_version`: the OpenClaw version that wrote the database.
pub fn app_version(db: &Database) -> Option<String> {
    let rows = db
        .query(
            "SELECT app_version FROM schema_meta WHERE app_version IS NOT NULL AND app_version <> '' \
             ORDER BY meta_key = 'primary' DESC, updated_at DESC LIMIT 1",
            &[],
        )
        .ok()?;
    match rows.collect_all().ok()?.into_iter().next()?.into_iter().next()? {
        Value::Text(s) => Some(s),
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
    let version = app_version(&conn);
    let windows = sql::table_columns(&conn, "session_windows")?;
    if !windows.contains("session_id") {
        problems.add("not-an-openclaw-database", Severity::Warning, &db.path, "no session_windows.session_id column");
        return Ok(Vec::new());
    }
    let nodes = sql::table_columns(&conn, "session_nodes")?;
    let w = |name: &str| sql::column_or_null(&windows, "w.", name);
    let label = if nodes.contains("current_session_id") {
        let n = |name: &str| if nodes.contains(name) { format!("n.{name}") } else { "NULL".into() };
        format!(
            "(SELECT coalesce({}, {}) FROM session_nodes n WHERE n.current_session_id = w.session_id LIMIT 1)",
            n("label"),
            n("display_name")
        )
    } else {
        "NULL".into()
    };
    let sql = format!(
        "SELECT w.session_id, {created}, {updated}, {transcript_updated}, {display_name}, {label} AS label, \
         (SELECT json_extract(e.event_json, '$.cwd') FROM transcript_events e \
            WHERE e.session_id = w.session_id ORDER BY e.seq LIMIT 1) AS cwd, \
         (SELECT CASE json_type(e.event_json, '$.message.content') \
                   WHEN 'text' THEN substr(json_extract(e.event_json, '$.message.content'), 1, 400) \
                   ELSE substr(json_extract(e.event_json, '$.message.content[0].text'), 1, 400) END \
            FROM transcript_events e \
            WHERE e.session_id = w.session_id AND json_extract(e.event_json, '$.message.role') = 'user' \
            ORDER BY e.seq LIMIT 1) AS first_prompt, \
         EXISTS (SELECT 1 FROM transcript_events e WHERE e.session_id = w.session_id) AS has_events \
         FROM session_windows w {filter} ORDER BY created_at, w.session_id",
        created = w("created_at"),
        updated = w("updated_at"),
        transcript_updated = w("transcript_updated_at"),
        display_name = w("display_name"),
        filter = if only.is_some() { "WHERE w.session_id = ?" } else { "" },
    );
    let params: Vec<Value> = only.map(|id| Value::Text(id.to_string())).into_iter().collect();
    let mut out = Vec::new();
    sql::each_row(&conn, &sql, &params, |row| {
        let Some(id) = row.text("session_id") else { return };
        if row.int("has_events").unwrap_or(0) == 0 {
            problems.add("empty-session", Severity::Info, &db.path, "sessions without transcript events");
            return;
        }
        let updated = [row.int("updated_at"), row.int("transcript_updated_at")].into_iter().flatten().max();
        out.push(SessionRef {
            native_id: id.to_string(),
            locator: Locator::of(&db.path, id),
            cwd: row.text("cwd").map(str::to_string),
            started_at: row.int("created_at").and_then(from_epoch_ms),
            updated_at: updated.and_then(from_epoch_ms),
            size: db.size,
            native_version: version.clone(),
            title: row
                .text("label")
                .or_else(|| row.text("display_name"))
                .map(str::to_string)
                .or_else(|| row.text("first_prompt").and_then(prompt_title)),
        });
    })?;
    Ok(out)
}

/// The first prompt, whitespace collapsed, cut to [`TITLE_CHARS`].
pub fn prompt_title(text: &str) -> Option<String> {
    trajhost_codec_sdk::text::title_of(text, TITLE_CHARS)
}
