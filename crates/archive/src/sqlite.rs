//! The embedded archive: one SQLite file in trajhost's data directory.
//!
//! Tables: `homes`; `sessions` (one per home, harness and native id);
//! `records` (the canonical lines, with a sha256 each, and the text the
//! index holds); `records_fts` (FTS5 over that text, external content);
//! `files` (per file: the state the last sync saw and how many bytes are
//! kept); `generations` (the kept byte ranges of each file, content-addressed
//! in `blobs`); `session_files` (which files and database tapes a session's
//! evidence is); `failures` (what failed, and the state it failed at).
//!
//! The schema version is `PRAGMA user_version`; [`MIGRATIONS`] take any
//! older archive to the current one in a transaction, keeping every record
//! and its hash.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, Transaction, params};
use sha2::{Digest, Sha256};

use super::ArchiveError;
use super::store::*;
use trajhost_capabilities::evidence::RecordedQuery;

/// The schema this trajhost writes.
pub const SCHEMA_VERSION: i64 = 3;

/// One schema step: from `version - 1` to `version`.
pub struct Migration {
    pub version: i64,
    pub apply: fn(&Transaction<'_>) -> rusqlite::Result<()>,
}

/// Every step from an empty file to [`SCHEMA_VERSION`]. Never edit a
/// released step: add one.
pub const MIGRATIONS: &[Migration] = &[
    Migration { version: 1, apply: schema_1 },
    Migration { version: 2, apply: schema_2 },
    Migration { version: 3, apply: schema_3 },
];

/// Version 1: sessions, records with their hashes, and the raw evidence.
fn schema_1(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute_batch(
        "CREATE TABLE homes (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);
         CREATE TABLE sessions (
             id INTEGER PRIMARY KEY, home_id INTEGER NOT NULL REFERENCES homes(id),
             harness TEXT NOT NULL, native_id TEXT NOT NULL, locator TEXT NOT NULL, codec TEXT NOT NULL,
             native_version TEXT, cwd TEXT, title TEXT, started_at TEXT, updated_at TEXT, updated_ms INTEGER,
             records INTEGER NOT NULL, snapshot_id TEXT NOT NULL, archived_at TEXT NOT NULL,
             UNIQUE (home_id, harness, native_id));
         CREATE INDEX sessions_native_id ON sessions(native_id);
         CREATE TABLE records (
             id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL REFERENCES sessions(id),
             seq INTEGER NOT NULL, record_id TEXT NOT NULL, kind TEXT NOT NULL, ts_ms INTEGER,
             json TEXT NOT NULL, sha256 TEXT NOT NULL, UNIQUE (session_id, seq));
         CREATE TABLE files (
             id INTEGER PRIMARY KEY, home_id INTEGER NOT NULL REFERENCES homes(id), path TEXT NOT NULL,
             seen_size INTEGER, seen_mtime_ns INTEGER, seen_inode INTEGER,
             kept_size INTEGER, kept_tail_sha256 TEXT, UNIQUE (home_id, path));
         CREATE TABLE blobs (sha256 TEXT PRIMARY KEY, bytes BLOB NOT NULL);
         CREATE TABLE generations (
             file_id INTEGER NOT NULL REFERENCES files(id), generation INTEGER NOT NULL,
             offset INTEGER NOT NULL, length INTEGER NOT NULL, base INTEGER NOT NULL,
             sha256 TEXT NOT NULL REFERENCES blobs(sha256), archived_at TEXT NOT NULL,
             PRIMARY KEY (file_id, generation));
         CREATE TABLE session_files (
             session_id INTEGER NOT NULL REFERENCES sessions(id), file_id INTEGER NOT NULL REFERENCES files(id),
             tape_sha256 TEXT REFERENCES blobs(sha256), PRIMARY KEY (session_id, file_id));
         CREATE TABLE failures (
             home_id INTEGER NOT NULL REFERENCES homes(id), harness TEXT NOT NULL, key TEXT NOT NULL,
             size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, inode INTEGER NOT NULL, error TEXT NOT NULL,
             failed_at TEXT NOT NULL, PRIMARY KEY (home_id, harness, key));",
    )
}

/// Version 2: the full-text index (FTS5, bm25) over each record's text,
/// filled from the records already kept.
fn schema_2(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute_batch(
        "ALTER TABLE records ADD COLUMN text TEXT;
         CREATE VIRTUAL TABLE records_fts USING fts5(text, content='records', content_rowid='id',
             tokenize='unicode61 remove_diacritics 2');",
    )?;
    let rows: Vec<(i64, String)> = {
        let mut stmt = tx.prepare("SELECT id, json FROM records")?;
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?
    };
    let mut set = tx.prepare("UPDATE records SET text = ?2 WHERE id = ?1")?;
    for (id, json) in rows {
        let text = serde_json::from_str(&json).ok().and_then(|r| super::search::record_text(&r));
        set.execute(params![id, text])?;
    }
    tx.execute_batch("INSERT INTO records_fts(rowid, text) SELECT id, text FROM records WHERE text IS NOT NULL;")
}

/// Version 3: where each session's main file can be read on from (a
/// codec's resume point and the snapshot digest's state there).
fn schema_3(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute_batch(
        "CREATE TABLE cursors (
             session_id INTEGER PRIMARY KEY REFERENCES sessions(id), codec TEXT NOT NULL, file TEXT NOT NULL,
             file_size INTEGER NOT NULL, offset INTEGER NOT NULL, records INTEGER NOT NULL,
             state BLOB NOT NULL, digest BLOB NOT NULL);",
    )
}

/// The archive in one SQLite file.
pub struct SqliteArchive {
    conn: Connection,
    path: PathBuf,
}

fn db_error(path: &Path) -> impl Fn(rusqlite::Error) -> ArchiveError + '_ {
    move |e| ArchiveError::Sqlite { path: path.to_path_buf(), message: e.to_string() }
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

impl SqliteArchive {
    /// Opens (or creates) the archive at `path` and migrates it to
    /// [`SCHEMA_VERSION`].
    pub fn open(path: &Path) -> Result<SqliteArchive, ArchiveError> {
        SqliteArchive::open_at(path, SCHEMA_VERSION)
    }

    /// Opens the archive, migrating it no further than `version` (tests
    /// build an archive of an older schema this way).
    pub fn open_at(path: &Path, version: i64) -> Result<SqliteArchive, ArchiveError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| ArchiveError::Io { path: dir.to_path_buf(), message: e.to_string() })?;
        }
        let err = db_error(path);
        let mut conn = Connection::open(path).map_err(&err)?;
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")
            .map_err(&err)?;
        conn.busy_timeout(std::time::Duration::from_secs(10)).map_err(&err)?;
        let found: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(&err)?;
        if found > SCHEMA_VERSION {
            return Err(ArchiveError::Schema {
                path: path.to_path_buf(),
                message: format!(
                    "schema version {found} is newer than this trajhost's {SCHEMA_VERSION}; use a newer trajhost"
                ),
            });
        }
        if found < version {
            let tx = conn.transaction().map_err(&err)?;
            for step in MIGRATIONS.iter().filter(|m| m.version > found && m.version <= version) {
                (step.apply)(&tx).map_err(|e| ArchiveError::Schema {
                    path: path.to_path_buf(),
                    message: format!("migration to schema version {} failed: {e}", step.version),
                })?;
                tracing::info!(archive = %path.display(), version = step.version, "migrated the archive");
            }
            tx.pragma_update(None, "user_version", version).map_err(&err)?;
            tx.commit().map_err(&err)?;
        }
        Ok(SqliteArchive { conn, path: path.to_path_buf() })
    }

    /// The schema version of the open file.
    pub fn schema_version(&self) -> Result<i64, ArchiveError> {
        self.conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(db_error(&self.path))
    }

    /// The connection, for tests that build older archives by hand.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    fn err(&self) -> impl Fn(rusqlite::Error) -> ArchiveError + '_ {
        db_error(&self.path)
    }

    fn session_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<ArchivedSession> {
        Ok(ArchivedSession {
            id: row.get(0)?,
            home: PathBuf::from(row.get::<_, String>(1)?),
            harness: row.get(2)?,
            native_id: row.get(3)?,
            machine: None,
            locator: row.get(4)?,
            codec: row.get(5)?,
            native_version: row.get(6)?,
            cwd: row.get(7)?,
            title: row.get(8)?,
            started_at: row.get(9)?,
            updated_at: row.get(10)?,
            records: row.get::<_, i64>(11)? as u64,
            snapshot_id: row.get(12)?,
            archived_at: row.get(13)?,
        })
    }
}

const SESSION_COLUMNS: &str = "s.id, h.path, s.harness, s.native_id, s.locator, s.codec, s.native_version, s.cwd, \
     s.title, s.started_at, s.updated_at, s.records, s.snapshot_id, s.archived_at";

fn file_id(tx: &Transaction<'_>, home: i64, path: &str) -> rusqlite::Result<i64> {
    tx.execute(
        "INSERT INTO files (home_id, path) VALUES (?1, ?2) ON CONFLICT (home_id, path) DO NOTHING",
        params![home, path],
    )?;
    tx.query_row("SELECT id FROM files WHERE home_id = ?1 AND path = ?2", params![home, path], |r| r.get(0))
}

fn put_blob(tx: &Transaction<'_>, bytes: &[u8]) -> rusqlite::Result<String> {
    let sha = sha256_hex(bytes);
    tx.execute(
        "INSERT INTO blobs (sha256, bytes) VALUES (?1, ?2) ON CONFLICT (sha256) DO NOTHING",
        params![sha, bytes],
    )?;
    Ok(sha)
}

fn set_seen(tx: &Transaction<'_>, file: i64, seen: &FileState) -> rusqlite::Result<()> {
    tx.execute(
        "UPDATE files SET seen_size = ?2, seen_mtime_ns = ?3, seen_inode = ?4 WHERE id = ?1",
        params![file, seen.size as i64, seen.mtime_ns, seen.inode as i64],
    )?;
    Ok(())
}

fn like_prefix(dir: &str) -> String {
    let dir = dir.trim_end_matches('/');
    let escaped: String =
        dir.chars().flat_map(|c| if matches!(c, '%' | '_' | '\\') { vec!['\\', c] } else { vec![c] }).collect();
    format!("{escaped}/%")
}

impl ArchiveStore for SqliteArchive {
    fn location(&self) -> String {
        self.path.display().to_string()
    }

    fn known_home(&mut self, home: &Path) -> Result<KnownHome, ArchiveError> {
        let path = self.path.clone();
        let err = db_error(&path);
        let home_text = home.to_string_lossy().into_owned();
        self.conn
            .execute("INSERT INTO homes (path) VALUES (?1) ON CONFLICT (path) DO NOTHING", [&home_text])
            .map_err(&err)?;
        let id: i64 =
            self.conn.query_row("SELECT id FROM homes WHERE path = ?1", [&home_text], |r| r.get(0)).map_err(&err)?;
        let mut known = KnownHome { id, ..KnownHome::default() };
        let mut stmt = self
            .conn
            .prepare(
                "SELECT path, seen_size, seen_mtime_ns, seen_inode, kept_size, kept_tail_sha256 FROM files WHERE home_id = ?1",
            )
            .map_err(&err)?;
        let rows = stmt
            .query_map([id], |r| {
                let seen = match (r.get::<_, Option<i64>>(1)?, r.get::<_, Option<i64>>(2)?, r.get::<_, Option<i64>>(3)?)
                {
                    (Some(size), Some(mtime_ns), Some(inode)) => {
                        Some(FileState { size: size as u64, mtime_ns, inode: inode as u64 })
                    }
                    _ => None,
                };
                let kept = match (r.get::<_, Option<i64>>(4)?, r.get::<_, Option<String>>(5)?) {
                    (Some(size), Some(tail_sha256)) => Some(KeptFile { size: size as u64, tail_sha256 }),
                    _ => None,
                };
                Ok((r.get::<_, String>(0)?, KnownFile { seen, kept }))
            })
            .map_err(&err)?;
        for row in rows {
            let (path, file) = row.map_err(&err)?;
            known.files.insert(path, file);
        }
        let mut stmt = self
            .conn
            .prepare(
                "SELECT s.harness, s.native_id, f.path FROM sessions s
                 LEFT JOIN session_files sf ON sf.session_id = s.id LEFT JOIN files f ON f.id = sf.file_id
                 WHERE s.home_id = ?1",
            )
            .map_err(&err)?;
        let rows = stmt
            .query_map([id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, Option<String>>(2)?)))
            .map_err(&err)?;
        for row in rows {
            let (harness, native_id, file) = row.map_err(&err)?;
            let entry = known.sessions.entry((harness, native_id)).or_insert(KnownSession { files: Vec::new() });
            entry.files.extend(file);
        }
        let mut stmt = self
            .conn
            .prepare("SELECT harness, key, size, mtime_ns, inode, error FROM failures WHERE home_id = ?1")
            .map_err(&err)?;
        let rows = stmt
            .query_map([id], |r| {
                Ok((
                    (r.get::<_, String>(0)?, r.get::<_, String>(1)?),
                    Failure {
                        state: FileState {
                            size: r.get::<_, i64>(2)? as u64,
                            mtime_ns: r.get(3)?,
                            inode: r.get::<_, i64>(4)? as u64,
                        },
                        error: r.get(5)?,
                    },
                ))
            })
            .map_err(&err)?;
        for row in rows {
            let (key, failure) = row.map_err(&err)?;
            known.failures.insert(key, failure);
        }
        Ok(known)
    }

    fn put_seen(&mut self, home: i64, files: &[(String, FileState)]) -> Result<(), ArchiveError> {
        let path = self.path.clone();
        let err = db_error(&path);
        let tx = self.conn.transaction().map_err(&err)?;
        for (file, state) in files {
            let id = file_id(&tx, home, file).map_err(&err)?;
            set_seen(&tx, id, state).map_err(&err)?;
        }
        tx.commit().map_err(&err)
    }

    fn put_failure(&mut self, home: i64, harness: &str, key: &str, failure: &Failure) -> Result<(), ArchiveError> {
        self.conn
            .execute(
                "INSERT INTO failures (home_id, harness, key, size, mtime_ns, inode, error, failed_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (home_id, harness, key) DO UPDATE SET size = ?4, mtime_ns = ?5, inode = ?6, error = ?7,
                 failed_at = ?8",
                params![
                    home,
                    harness,
                    key,
                    failure.state.size as i64,
                    failure.state.mtime_ns,
                    failure.state.inode as i64,
                    failure.error,
                    trajhost_canonical::time::now_rfc3339()
                ],
            )
            .map(|_| ())
            .map_err(self.err())
    }

    fn put_session(&mut self, head: &SessionHead, parts: &mut dyn SessionParts) -> Result<PutOutcome, ArchiveError> {
        let path = self.path.clone();
        let err = db_error(&path);
        let now = trajhost_canonical::time::now_rfc3339();
        let tx = self.conn.transaction().map_err(&err)?;
        let mut outcome = PutOutcome::default();
        let existing: Option<i64> = tx
            .query_row(
                "SELECT id FROM sessions WHERE home_id = ?1 AND harness = ?2 AND native_id = ?3",
                params![head.home, head.harness, head.native_id],
                |r| r.get(0),
            )
            .optional()
            .map_err(&err)?;
        let updated_ms = head.updated_at.as_deref().and_then(trajhost_canonical::time::unix_ms_from_rfc3339);
        // The row first (the records point at it); what is known only once
        // every record was read is set at the end.
        let session = match existing {
            Some(id) => {
                tx.execute(
                    "UPDATE sessions SET locator = ?2, codec = ?3, native_version = ?4, started_at = ?5,
                     updated_at = ?6, updated_ms = ?7, archived_at = ?8 WHERE id = ?1",
                    params![
                        id,
                        head.locator,
                        head.codec,
                        head.native_version,
                        head.started_at,
                        head.updated_at,
                        updated_ms,
                        now
                    ],
                )
                .map_err(&err)?;
                id
            }
            None => {
                outcome.new_session = true;
                tx.execute(
                    "INSERT INTO sessions (home_id, harness, native_id, locator, codec, native_version,
                     started_at, updated_at, updated_ms, records, snapshot_id, archived_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 0, '', ?10)",
                    params![
                        head.home,
                        head.harness,
                        head.native_id,
                        head.locator,
                        head.codec,
                        head.native_version,
                        head.started_at,
                        head.updated_at,
                        updated_ms,
                        now
                    ],
                )
                .map_err(&err)?;
                tx.last_insert_rowid()
            }
        };
        // Continued from a cursor: only `meta` and the records from the
        // cursor on can change; the session's other files stay its own.
        let from = head.resumed_after.map_or(0, |n| n as i64);
        let mut diff = {
            let mut stmt = tx
                .prepare("SELECT seq, id, sha256 FROM records WHERE session_id = ?1 AND (seq = 0 OR seq >= ?2)")
                .map_err(&err)?;
            let old = stmt
                .query_map([session, from], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))
                .map_err(&err)?
                .collect::<rusqlite::Result<_>>()
                .map_err(&err)?;
            match head.resumed_after {
                Some(after) => RecordDiff::resumed(old, after),
                None => RecordDiff::new(old),
            }
        };
        if head.resumed_after.is_none() {
            tx.execute("DELETE FROM session_files WHERE session_id = ?1", [session]).map_err(&err)?;
        }
        {
            let mut unindex = tx
                .prepare("INSERT INTO records_fts (records_fts, rowid, text) SELECT 'delete', id, text FROM records WHERE id = ?1 AND text IS NOT NULL")
                .map_err(&err)?;
            let mut delete = tx.prepare("DELETE FROM records WHERE id = ?1").map_err(&err)?;
            let mut insert = tx
                .prepare(
                    "INSERT INTO records (session_id, seq, record_id, kind, ts_ms, json, sha256, text)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )
                .map_err(&err)?;
            let mut index = tx.prepare("INSERT INTO records_fts (rowid, text) VALUES (?1, ?2)").map_err(&err)?;
            let mut drop_record = |id: i64| -> Result<(), ArchiveError> {
                unindex.execute([id]).map_err(&err)?;
                delete.execute([id]).map_err(&err)?;
                Ok(())
            };
            let tail = loop {
                match parts.next_part()? {
                    SessionPart::Records(records) => {
                        for record in &records {
                            let (seq, sha, change) = diff.next(record, &mut outcome);
                            match change {
                                RecordChange::Unchanged => continue,
                                RecordChange::Changed(id) => drop_record(id)?,
                                RecordChange::Added => {}
                            }
                            insert
                                .execute(params![
                                    session,
                                    seq,
                                    record.record_id,
                                    record.kind,
                                    record.ts_ms,
                                    record.json,
                                    sha,
                                    record.text
                                ])
                                .map_err(&err)?;
                            if let Some(text) = &record.text {
                                index.execute(params![tx.last_insert_rowid(), text]).map_err(&err)?;
                            }
                        }
                    }
                    SessionPart::Evidence { path, generation } => {
                        let id = file_id(&tx, head.home, &path).map_err(&err)?;
                        let sha = put_blob(&tx, &generation.bytes).map_err(&err)?;
                        tx.execute(
                            "INSERT INTO generations (file_id, generation, offset, length, base, sha256, archived_at)
                             VALUES (?1, (SELECT coalesce(max(generation), -1) + 1 FROM generations WHERE file_id = ?1),
                                     ?2, ?3, ?4, ?5, ?6)",
                            params![
                                id,
                                generation.offset as i64,
                                generation.bytes.len() as i64,
                                generation.base,
                                sha,
                                now
                            ],
                        )
                        .map_err(&err)?;
                        outcome.evidence_bytes += generation.bytes.len() as u64;
                    }
                    SessionPart::File(file) => {
                        let id = file_id(&tx, head.home, &file.path).map_err(&err)?;
                        tx.execute(
                            "UPDATE files SET kept_size = ?2, kept_tail_sha256 = ?3 WHERE id = ?1",
                            params![id, file.kept.size as i64, file.kept.tail_sha256],
                        )
                        .map_err(&err)?;
                        set_seen(&tx, id, &file.seen).map_err(&err)?;
                        tx.execute(
                            "INSERT OR IGNORE INTO session_files (session_id, file_id) VALUES (?1, ?2)",
                            params![session, id],
                        )
                        .map_err(&err)?;
                    }
                    SessionPart::Tape(tape) => {
                        let id = file_id(&tx, head.home, &tape.path).map_err(&err)?;
                        let sha = put_blob(&tx, &tape.tape).map_err(&err)?;
                        set_seen(&tx, id, &tape.seen).map_err(&err)?;
                        tx.execute(
                            "INSERT OR REPLACE INTO session_files (session_id, file_id, tape_sha256) VALUES (?1, ?2, ?3)",
                            params![session, id, sha],
                        )
                        .map_err(&err)?;
                        outcome.evidence_bytes += tape.tape.len() as u64;
                    }
                    SessionPart::End(tail) => break tail,
                }
            };
            for id in diff.removed(&mut outcome) {
                drop_record(id)?;
            }
            // A continued session's `meta` may not name what the whole read took from elsewhere.
            let keep = head.resumed_after.is_some();
            tx.execute(
                "UPDATE sessions SET cwd = CASE WHEN ?6 THEN coalesce(?2, cwd) ELSE ?2 END,
                 title = CASE WHEN ?6 THEN coalesce(?3, title) ELSE ?3 END, records = ?4, snapshot_id = ?5
                 WHERE id = ?1",
                params![session, tail.cwd, tail.title, tail.records as i64, tail.snapshot_id, keep],
            )
            .map_err(&err)?;
            tx.execute("DELETE FROM cursors WHERE session_id = ?1", [session]).map_err(&err)?;
            if let Some(c) = &tail.cursor {
                tx.execute(
                    "INSERT INTO cursors (session_id, codec, file, file_size, offset, records, state, digest)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    params![
                        session,
                        c.codec,
                        c.file,
                        c.file_size as i64,
                        c.offset as i64,
                        c.records as i64,
                        c.state,
                        c.digest
                    ],
                )
                .map_err(&err)?;
            }
        }
        tx.execute(
            "DELETE FROM failures WHERE home_id = ?1 AND harness = ?2 AND key = ?3",
            params![head.home, head.harness, head.native_id],
        )
        .map_err(&err)?;
        tx.commit().map_err(&err)?;
        Ok(outcome)
    }

    fn cursor(&self, home: i64, harness: &str, native_id: &str) -> Result<Option<SessionCursor>, ArchiveError> {
        self.conn
            .query_row(
                "SELECT c.codec, c.file, c.file_size, c.offset, c.records, c.state, c.digest
                 FROM cursors c JOIN sessions s ON s.id = c.session_id
                 WHERE s.home_id = ?1 AND s.harness = ?2 AND s.native_id = ?3",
                params![home, harness, native_id],
                |r| {
                    Ok(SessionCursor {
                        codec: r.get(0)?,
                        file: r.get(1)?,
                        file_size: r.get::<_, i64>(2)? as u64,
                        offset: r.get::<_, i64>(3)? as u64,
                        records: r.get::<_, i64>(4)? as u64,
                        state: r.get(5)?,
                        digest: r.get(6)?,
                    })
                },
            )
            .optional()
            .map_err(self.err())
    }

    fn sessions(&self, filter: &SessionFilter) -> Result<Vec<ArchivedSession>, ArchiveError> {
        let sql = format!(
            "SELECT {SESSION_COLUMNS} FROM sessions s JOIN homes h ON h.id = s.home_id
             WHERE (?1 IS NULL OR s.harness = ?1)
               AND (?2 IS NULL OR s.cwd = ?2 OR s.cwd LIKE ?3 ESCAPE '\\')
               AND (?4 IS NULL OR h.path = ?4)
             ORDER BY s.updated_ms IS NULL, s.updated_ms DESC, s.native_id LIMIT ?5"
        );
        let cwd = filter.cwd.as_deref().map(|c| c.trim_end_matches('/').to_string());
        let like = cwd.as_deref().map(like_prefix);
        let home = filter.home.as_ref().map(|h| h.to_string_lossy().into_owned());
        let limit = filter.limit.map_or(-1, |l| l as i64);
        let mut stmt = self.conn.prepare(&sql).map_err(self.err())?;
        let rows = stmt
            .query_map(params![filter.harness, cwd, like, home, limit], SqliteArchive::session_row)
            .map_err(self.err())?;
        rows.collect::<rusqlite::Result<_>>().map_err(self.err())
    }

    fn find(&self, id: &str, harness: Option<&str>) -> Result<Vec<ArchivedSession>, ArchiveError> {
        let exact = format!(
            "SELECT {SESSION_COLUMNS} FROM sessions s JOIN homes h ON h.id = s.home_id
             WHERE s.native_id = ?1 AND (?2 IS NULL OR s.harness = ?2) ORDER BY s.updated_ms DESC"
        );
        let mut stmt = self.conn.prepare(&exact).map_err(self.err())?;
        let found: Vec<ArchivedSession> = stmt
            .query_map(params![id, harness], SqliteArchive::session_row)
            .map_err(self.err())?
            .collect::<rusqlite::Result<_>>()
            .map_err(self.err())?;
        if !found.is_empty() {
            return Ok(found);
        }
        let prefix = format!(
            "SELECT {SESSION_COLUMNS} FROM sessions s JOIN homes h ON h.id = s.home_id
             WHERE s.native_id >= ?1 AND s.native_id < ?1 || x'f48fbfbf' AND (?2 IS NULL OR s.harness = ?2)
             ORDER BY s.updated_ms DESC LIMIT 20"
        );
        let mut stmt = self.conn.prepare(&prefix).map_err(self.err())?;
        let found = stmt
            .query_map(params![id, harness], SqliteArchive::session_row)
            .map_err(self.err())?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(self.err())?;
        Ok(found.into_iter().filter(|s| s.native_id.starts_with(id)).collect())
    }

    fn records(&self, session: &ArchivedSession) -> Result<Vec<String>, ArchiveError> {
        let mut stmt =
            self.conn.prepare("SELECT json FROM records WHERE session_id = ?1 ORDER BY seq").map_err(self.err())?;
        let rows = stmt.query_map([session.id], |r| r.get(0)).map_err(self.err())?;
        rows.collect::<rusqlite::Result<_>>().map_err(self.err())
    }

    fn evidence(&self, session: &ArchivedSession) -> Result<Evidence, ArchiveError> {
        let err = self.err();
        let mut evidence = Evidence::default();
        let mut stmt = self
            .conn
            .prepare(
                "SELECT f.id, f.path, f.kept_size, sf.tape_sha256 FROM session_files sf JOIN files f ON f.id = sf.file_id
                 WHERE sf.session_id = ?1 ORDER BY f.path",
            )
            .map_err(&err)?;
        let files: Vec<(i64, String, Option<i64>, Option<String>)> = stmt
            .query_map([session.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .map_err(&err)?
            .collect::<rusqlite::Result<_>>()
            .map_err(&err)?;
        let blob = |sha: &str| -> Result<Vec<u8>, ArchiveError> {
            let bytes: Vec<u8> =
                self.conn.query_row("SELECT bytes FROM blobs WHERE sha256 = ?1", [sha], |r| r.get(0)).map_err(&err)?;
            if sha256_hex(&bytes) != sha {
                return Err(ArchiveError::Corrupt {
                    path: self.path.clone(),
                    message: format!("blob {sha} does not match its digest"),
                });
            }
            Ok(bytes)
        };
        for (file, path, kept, tape) in files {
            if let Some(sha) = tape {
                let queries: Vec<RecordedQuery> = serde_json::from_slice(&blob(&sha)?).map_err(|e| {
                    ArchiveError::Corrupt { path: self.path.clone(), message: format!("tape of {path}: {e}") }
                })?;
                evidence.tapes.push((path, queries));
                continue;
            }
            // The newest base generation and the appends after it.
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT offset, length, sha256 FROM generations WHERE file_id = ?1 AND generation >=
                     (SELECT coalesce(max(generation), 0) FROM generations WHERE file_id = ?1 AND base) ORDER BY generation",
                )
                .map_err(&err)?;
            let parts: Vec<(i64, i64, String)> = stmt
                .query_map([file], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .map_err(&err)?
                .collect::<rusqlite::Result<_>>()
                .map_err(&err)?;
            let mut bytes = Vec::new();
            for (offset, length, sha) in parts {
                if offset as usize != bytes.len() {
                    return Err(ArchiveError::Corrupt {
                        path: self.path.clone(),
                        message: format!(
                            "{path}: a generation starts at byte {offset}, the kept bytes end at {}",
                            bytes.len()
                        ),
                    });
                }
                let part = blob(&sha)?;
                if part.len() as i64 != length {
                    return Err(ArchiveError::Corrupt {
                        path: self.path.clone(),
                        message: format!("{path}: generation {sha} is not {length} bytes"),
                    });
                }
                bytes.extend_from_slice(&part);
            }
            if kept.is_some_and(|k| k as usize != bytes.len()) {
                return Err(ArchiveError::Corrupt {
                    path: self.path.clone(),
                    message: format!("{path}: {} bytes kept, {} recorded", bytes.len(), kept.unwrap_or(0)),
                });
            }
            evidence.files.push((path, bytes));
        }
        Ok(evidence)
    }

    fn search(&self, query: &SearchQuery) -> Result<Vec<Hit>, ArchiveError> {
        let fts = super::search::fts_query(&query.text)
            .ok_or_else(|| ArchiveError::Query(format!("{:?}: nothing to search for", query.text)))?;
        let query_error = |e: rusqlite::Error| ArchiveError::Query(format!("{:?}: {e}", query.text));
        let cwd = query.cwd.as_deref().map(|c| c.trim_end_matches('/').to_string());
        let like = cwd.as_deref().map(like_prefix);
        // Rank first, on narrow rows: SQLite sorts every match before the
        // LIMIT, so the snippets and the record JSON are fetched for the
        // hits only, not for every record that holds a common word.
        let mut rank = self
            .conn
            .prepare_cached(
                "SELECT r.id, s.harness, s.native_id, h.path, s.cwd, s.title, r.record_id, r.seq, r.kind,
                        bm25(records_fts) AS rank
                 FROM records_fts JOIN records r ON r.id = records_fts.rowid
                 JOIN sessions s ON s.id = r.session_id JOIN homes h ON h.id = s.home_id
                 WHERE records_fts MATCH ?1
                   AND (?2 IS NULL OR s.harness = ?2)
                   AND (?3 IS NULL OR s.cwd = ?3 OR s.cwd LIKE ?4 ESCAPE '\\')
                   AND (?5 IS NULL OR coalesce(r.ts_ms, s.updated_ms) >= ?5)
                   AND (?6 IS NULL OR r.kind = ?6)
                 ORDER BY rank LIMIT ?7",
            )
            .map_err(self.err())?;
        let ranked: Vec<(i64, Hit)> = rank
            .query_map(params![fts, query.harness, cwd, like, query.since_ms, query.kind, query.limit as i64], |r| {
                Ok((
                    r.get(0)?,
                    Hit {
                        harness: r.get(1)?,
                        native_id: r.get(2)?,
                        machine: None,
                        home: PathBuf::from(r.get::<_, String>(3)?),
                        cwd: r.get(4)?,
                        title: r.get(5)?,
                        record_id: r.get(6)?,
                        seq: r.get::<_, i64>(7)? as u64,
                        kind: r.get(8)?,
                        ts: None,
                        snippet: String::new(),
                        rank: r.get(9)?,
                        text: String::new(),
                    },
                ))
            })
            .map_err(query_error)?
            .collect::<rusqlite::Result<_>>()
            .map_err(query_error)?;
        let mut detail = self
            .conn
            .prepare_cached(&format!(
                "SELECT snippet(records_fts, 0, '{open}', '{close}', '…', 16), json_extract(r.json, '$.ts'),
                        substr(r.text, 1, 262144)
                 FROM records_fts JOIN records r ON r.id = records_fts.rowid
                 WHERE records_fts MATCH ?1 AND records_fts.rowid = ?2",
                open = super::search::MARK_OPEN,
                close = super::search::MARK_CLOSE
            ))
            .map_err(self.err())?;
        let mut hits = Vec::with_capacity(ranked.len());
        for (id, mut hit) in ranked {
            let (snippet, ts, text): (String, Option<String>, Option<String>) =
                detail.query_row(params![fts, id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).map_err(query_error)?;
            hit.snippet = snippet;
            hit.ts = ts;
            hit.text = text.unwrap_or_default();
            hits.push(hit);
        }
        Ok(hits)
    }
}
