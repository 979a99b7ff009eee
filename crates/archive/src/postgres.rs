//! The shared archive: one PostgreSQL database that several machines sync
//! into at once (docs/fleet.md).
//!
//! The tables are the embedded archive's ([`super::sqlite`]), with homes
//! keyed by machine: `homes (machine, path)`; `sessions` (one per home,
//! harness and native id); `records` (canonical lines, a sha256 each, the
//! indexed text and its `tsvector`, GIN-indexed); `files`, `generations`
//! and `blobs` (the raw evidence, content-addressed by sha256, so that bytes
//! two machines hold are stored once); `session_files`; `failures`; and
//! `schema_version` (one row per applied [`MIGRATIONS`] step).
//!
//! Concurrency: a sync holds a session-level advisory lock on the home it
//! syncs ([`ArchiveStore::known_home`] to [`ArchiveStore::home_done`]), so
//! that two syncs of one home run one after the other, the second seeing
//! what the first kept; homes of different machines never wait for each
//! other. Every session is one transaction; rows are written with `INSERT …
//! ON CONFLICT`, blobs in digest order (so that two writers never wait on
//! each other's blobs in a cycle); a transaction that still fails to
//! serialize or deadlocks is retried.
//!
//! The URL's password never leaves this module: [`redact`] replaces it in
//! [`ArchiveStore::location`] and in every error.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Mutex;
use std::time::Duration;

use postgres::error::SqlState;
use postgres::{Client, NoTls, Statement, Transaction};
use sha2::{Digest, Sha256};

use super::ArchiveError;
use super::search::{MARK_CLOSE, MARK_OPEN, Term};
use super::store::*;
use trajhost_capabilities::evidence::RecordedQuery;

/// The schema this trajhost writes.
pub const SCHEMA_VERSION: i32 = 3;

/// One schema step: from `version - 1` to `version`, in the transaction
/// that records it in `schema_version`.
pub struct Migration {
    pub version: i32,
    pub sql: &'static str,
}

/// Every step from an empty database to [`SCHEMA_VERSION`]. Never edit a
/// released step: add one.
pub const MIGRATIONS: &[Migration] = &[
    // Version 1: homes keyed by machine, sessions, records with their
    // hashes, and the raw evidence, content-addressed.
    Migration {
        version: 1,
        sql: "CREATE TABLE homes (
                  id BIGSERIAL PRIMARY KEY, machine TEXT NOT NULL, path TEXT NOT NULL, UNIQUE (machine, path));
              CREATE TABLE sessions (
                  id BIGSERIAL PRIMARY KEY, home_id BIGINT NOT NULL REFERENCES homes(id),
                  harness TEXT NOT NULL, native_id TEXT NOT NULL, locator TEXT NOT NULL, codec TEXT NOT NULL,
                  native_version TEXT, cwd TEXT, title TEXT, started_at TEXT, updated_at TEXT, updated_ms BIGINT,
                  records BIGINT NOT NULL, snapshot_id TEXT NOT NULL, archived_at TEXT NOT NULL,
                  UNIQUE (home_id, harness, native_id));
              CREATE INDEX sessions_native_id ON sessions (native_id text_pattern_ops);
              CREATE TABLE records (
                  id BIGSERIAL PRIMARY KEY, session_id BIGINT NOT NULL REFERENCES sessions(id),
                  seq BIGINT NOT NULL, record_id TEXT NOT NULL, kind TEXT NOT NULL, ts_ms BIGINT,
                  json TEXT NOT NULL, sha256 TEXT NOT NULL, text TEXT, UNIQUE (session_id, seq));
              CREATE TABLE files (
                  id BIGSERIAL PRIMARY KEY, home_id BIGINT NOT NULL REFERENCES homes(id), path TEXT NOT NULL,
                  seen_size BIGINT, seen_mtime_ns BIGINT, seen_inode BIGINT,
                  kept_size BIGINT, kept_tail_sha256 TEXT, UNIQUE (home_id, path));
              CREATE TABLE blobs (sha256 TEXT PRIMARY KEY, bytes BYTEA NOT NULL);
              CREATE TABLE generations (
                  file_id BIGINT NOT NULL REFERENCES files(id), generation INTEGER NOT NULL,
                  start_offset BIGINT NOT NULL, length BIGINT NOT NULL, base BOOLEAN NOT NULL,
                  sha256 TEXT NOT NULL REFERENCES blobs(sha256), archived_at TEXT NOT NULL,
                  PRIMARY KEY (file_id, generation));
              CREATE TABLE session_files (
                  session_id BIGINT NOT NULL REFERENCES sessions(id), file_id BIGINT NOT NULL REFERENCES files(id),
                  tape_sha256 TEXT REFERENCES blobs(sha256), PRIMARY KEY (session_id, file_id));
              CREATE TABLE failures (
                  home_id BIGINT NOT NULL REFERENCES homes(id), harness TEXT NOT NULL, key TEXT NOT NULL,
                  size BIGINT NOT NULL, mtime_ns BIGINT NOT NULL, inode BIGINT NOT NULL, error TEXT NOT NULL,
                  failed_at TEXT NOT NULL, PRIMARY KEY (home_id, harness, key));",
    },
    // Version 2: full-text search. The `simple` configuration (lower case,
    // no stemming, no stop words) matches the embedded archive's unicode61
    // tokens most closely; the first 256 KiB of a record's text are indexed
    // (a tsvector is at most 1 MB). Existing rows are indexed as the column
    // is added.
    Migration {
        version: 2,
        sql: "ALTER TABLE records ADD COLUMN tsv tsvector
                  GENERATED ALWAYS AS (to_tsvector('simple', left(coalesce(text, ''), 262144))) STORED;
              CREATE INDEX records_tsv ON records USING gin (tsv);",
    },
    // Where each session's main file can be read on from: a codec's resume
    // point and the snapshot digest's state there.
    Migration {
        version: 3,
        sql: "CREATE TABLE cursors (
                  session_id BIGINT PRIMARY KEY REFERENCES sessions(id), codec TEXT NOT NULL, file TEXT NOT NULL,
                  file_size BIGINT NOT NULL, start_offset BIGINT NOT NULL, records BIGINT NOT NULL,
                  state BYTEA NOT NULL, digest BYTEA NOT NULL);",
    },
];

/// The advisory-lock class of trajhost's locks (`'traj'`); the second key
/// is a home's id, or 0 for migrations.
const LOCK_CLASS: i32 = 0x7472_616a;

/// The statements a sync runs per session, prepared once per connection.
struct Statements {
    upsert_session: Statement,
    finish_session: Statement,
    old_records: Statement,
    delete_records: Statement,
    insert_records: Statement,
    clear_session_files: Statement,
    present_blobs: Statement,
    insert_blob: Statement,
    upsert_file: Statement,
    insert_generation: Statement,
    keep_file: Statement,
    seen_file: Statement,
    link_file: Statement,
    link_tape: Statement,
    clear_failure: Statement,
}

/// The archive in a PostgreSQL database.
pub struct PostgresArchive {
    /// Behind a mutex because reading calls take `&self` and a query needs
    /// `&mut Client`; a store is used from one thread at a time.
    client: Mutex<Client>,
    /// The URL with its password redacted.
    database: String,
    /// The URL's password, to scrub from server messages.
    password: Option<String>,
    machine: String,
    statements: Option<Statements>,
    /// The homes this connection holds the advisory lock of.
    locked: Vec<i64>,
}

/// `url` with any password replaced by `***`: the userinfo's password
/// (`postgres://user:secret@host`), and `password=` in a query string or a
/// key/value connection string.
pub fn redact(url: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(url);
    if let Some(scheme_end) = url.find("://") {
        let rest = &url[scheme_end + 3..];
        let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
        if let Some(at) = rest[..authority_end].rfind('@')
            && let Some(colon) = rest[..at].find(':')
        {
            let start = scheme_end + 3 + colon + 1;
            let end = scheme_end + 3 + at;
            out = Cow::Owned(format!("{}***{}", &url[..start], &url[end..]));
        }
    }
    if let Some(i) = out.to_ascii_lowercase().find("password=") {
        let start = i + "password=".len();
        let text = out.into_owned();
        let end = text[start..].find(['&', ' ']).map_or(text.len(), |e| start + e);
        out = Cow::Owned(format!("{}***{}", &text[..start], &text[end..]));
    }
    out
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// PostgreSQL text cannot hold NUL.
fn pg_text(text: &str) -> Cow<'_, str> {
    if text.contains('\0') { Cow::Owned(text.replace('\0', " ")) } else { Cow::Borrowed(text) }
}

fn pg_opt(text: &Option<String>) -> Option<Cow<'_, str>> {
    text.as_deref().map(pg_text)
}

/// Whether a failed transaction is worth another attempt.
fn is_transient(e: &postgres::Error) -> bool {
    matches!(e.code(), Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE || *c == SqlState::T_R_DEADLOCK_DETECTED)
}

/// A server or client error as one line: the server's message and detail.
fn describe(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => {
            let mut text = format!("{} {}: {}", db.severity(), db.code().code(), db.message());
            if let Some(detail) = db.detail() {
                text.push_str(&format!(" ({detail})"));
            }
            text
        }
        None => {
            let mut text = e.to_string();
            let mut source = std::error::Error::source(e);
            while let Some(s) = source {
                let more = s.to_string();
                if !text.contains(&more) {
                    text.push_str(&format!(": {more}"));
                }
                source = s.source();
            }
            text
        }
    }
}

impl PostgresArchive {
    /// Connects to the database at `url` as `machine`, and migrates it to
    /// [`SCHEMA_VERSION`].
    pub fn open(url: &str, machine: &str) -> Result<PostgresArchive, ArchiveError> {
        PostgresArchive::open_at(url, machine, SCHEMA_VERSION)
    }

    /// Connects, migrating no further than `version` (tests build an
    /// archive of an older schema this way).
    pub fn open_at(url: &str, machine: &str, version: i32) -> Result<PostgresArchive, ArchiveError> {
        let database = redact(url).into_owned();
        let mut config = postgres::Config::from_str(url).map_err(|e| ArchiveError::PostgresConnect {
            database: database.clone(),
            message: format!("not a PostgreSQL URL: {}", redact(&e.to_string())),
        })?;
        let password = config.get_password().map(|p| String::from_utf8_lossy(p).into_owned()).filter(|p| !p.is_empty());
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        if config.get_application_name().is_none() {
            config.application_name("trajhost");
        }
        let scrub = |message: String| match &password {
            Some(p) => redact(&message).replace(p.as_str(), "***"),
            None => redact(&message).into_owned(),
        };
        let client = config
            .connect(NoTls)
            .map_err(|e| ArchiveError::PostgresConnect { database: database.clone(), message: scrub(describe(&e)) })?;
        let mut archive = PostgresArchive {
            client: Mutex::new(client),
            database,
            password,
            machine: machine.to_string(),
            statements: None,
            locked: Vec::new(),
        };
        // A commit does not wait for the WAL to reach disk: a server crash
        // can lose the last few hundred milliseconds of commits, each whole
        // (a session with its records, evidence and cursor together), and
        // the next sync reads those sessions again. It never corrupts.
        archive
            .client
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .batch_execute("SET synchronous_commit TO off")
            .map_err(archive.err_owned())?;
        archive.migrate(version)?;
        archive.statements = Some(archive.prepare()?);
        Ok(archive)
    }

    /// Applies the missing [`MIGRATIONS`] up to `version` in one
    /// transaction, under an advisory lock: two trajhosts opening a new
    /// database at once migrate it once.
    fn migrate(&mut self, version: i32) -> Result<(), ArchiveError> {
        let database = self.database.clone();
        let password = self.password.clone();
        let fail = |message: String| ArchiveError::PostgresSchema {
            database: database.clone(),
            message: match &password {
                Some(p) => message.replace(p.as_str(), "***"),
                None => message,
            },
        };
        let client = self.client.get_mut().unwrap_or_else(|p| p.into_inner());
        let mut tx = client.transaction().map_err(|e| fail(describe(&e)))?;
        tx.execute("SELECT pg_advisory_xact_lock($1, 0)", &[&LOCK_CLASS]).map_err(|e| fail(describe(&e)))?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS schema_version (
                 version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
        )
        .map_err(|e| fail(describe(&e)))?;
        let found: i32 = tx
            .query_one("SELECT coalesce(max(version), 0) FROM schema_version", &[])
            .and_then(|r| r.try_get(0))
            .map_err(|e| fail(describe(&e)))?;
        if found > SCHEMA_VERSION {
            return Err(fail(format!(
                "schema version {found} is newer than this trajhost's {SCHEMA_VERSION}; use a newer trajhost"
            )));
        }
        for step in MIGRATIONS.iter().filter(|m| m.version > found && m.version <= version) {
            tx.batch_execute(step.sql)
                .map_err(|e| fail(format!("migration to schema version {} failed: {}", step.version, describe(&e))))?;
            tx.execute("INSERT INTO schema_version (version) VALUES ($1)", &[&step.version])
                .map_err(|e| fail(describe(&e)))?;
            tracing::info!(archive = %self.database, version = step.version, "migrated the archive");
        }
        tx.commit().map_err(|e| fail(describe(&e)))
    }

    /// The schema version of the database.
    pub fn schema_version(&mut self) -> Result<i32, ArchiveError> {
        let err = self.err_owned();
        self.client
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .query_one("SELECT coalesce(max(version), 0) FROM schema_version", &[])
            .and_then(|r| r.try_get(0))
            .map_err(err)
    }

    fn prepare(&mut self) -> Result<Statements, ArchiveError> {
        let err = self.err_owned();
        let c = self.client.get_mut().unwrap_or_else(|p| p.into_inner());
        let mut p = |sql: &str| c.prepare(sql).map_err(&err);
        Ok(Statements {
            upsert_session: p("INSERT INTO sessions (home_id, harness, native_id, locator, codec, native_version,
                     started_at, updated_at, updated_ms, records, snapshot_id, archived_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, '', $10)
                 ON CONFLICT (home_id, harness, native_id) DO UPDATE SET locator = EXCLUDED.locator,
                     codec = EXCLUDED.codec, native_version = EXCLUDED.native_version,
                     started_at = EXCLUDED.started_at, updated_at = EXCLUDED.updated_at,
                     updated_ms = EXCLUDED.updated_ms, archived_at = EXCLUDED.archived_at
                 RETURNING id, (xmax = 0) AS inserted")?,
            // A continued session's `meta` may not name what the whole read took from elsewhere.
            finish_session: p("UPDATE sessions SET cwd = CASE WHEN $6 THEN coalesce($2, cwd) ELSE $2 END,
                 title = CASE WHEN $6 THEN coalesce($3, title) ELSE $3 END, records = $4, snapshot_id = $5
                 WHERE id = $1")?,
            old_records: p("SELECT seq, id, sha256 FROM records WHERE session_id = $1 AND (seq = 0 OR seq >= $2)")?,
            delete_records: p("DELETE FROM records WHERE id = ANY($1)")?,
            insert_records: p("INSERT INTO records (session_id, seq, record_id, kind, ts_ms, json, sha256, text)
                 SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[],
                     $7::text[], $8::text[])")?,
            clear_session_files: p("DELETE FROM session_files WHERE session_id = $1")?,
            present_blobs: p("SELECT sha256 FROM blobs WHERE sha256 = ANY($1)")?,
            insert_blob: p("INSERT INTO blobs (sha256, bytes) VALUES ($1, $2) ON CONFLICT (sha256) DO NOTHING")?,
            upsert_file: p("INSERT INTO files (home_id, path) VALUES ($1, $2)
                 ON CONFLICT (home_id, path) DO UPDATE SET path = EXCLUDED.path RETURNING id")?,
            insert_generation: p(
                "INSERT INTO generations (file_id, generation, start_offset, length, base, sha256, archived_at)
                 SELECT $1, coalesce(max(generation), -1) + 1, $2, $3, $4, $5, $6 FROM generations WHERE file_id = $1",
            )?,
            keep_file: p("UPDATE files SET kept_size = $2, kept_tail_sha256 = $3, seen_size = $4, seen_mtime_ns = $5,
                     seen_inode = $6 WHERE id = $1")?,
            seen_file: p("UPDATE files SET seen_size = $2, seen_mtime_ns = $3, seen_inode = $4 WHERE id = $1")?,
            link_file: p("INSERT INTO session_files (session_id, file_id) VALUES ($1, $2)
                 ON CONFLICT (session_id, file_id) DO NOTHING")?,
            link_tape: p("INSERT INTO session_files (session_id, file_id, tape_sha256) VALUES ($1, $2, $3)
                 ON CONFLICT (session_id, file_id) DO UPDATE SET tape_sha256 = EXCLUDED.tape_sha256")?,
            clear_failure: p("DELETE FROM failures WHERE home_id = $1 AND harness = $2 AND key = $3")?,
        })
    }

    fn session_row(row: &postgres::Row) -> Result<ArchivedSession, postgres::Error> {
        Ok(ArchivedSession {
            id: row.try_get(0)?,
            home: PathBuf::from(row.try_get::<_, String>(1)?),
            harness: row.try_get(2)?,
            native_id: row.try_get(3)?,
            locator: row.try_get(4)?,
            codec: row.try_get(5)?,
            native_version: row.try_get(6)?,
            cwd: row.try_get(7)?,
            title: row.try_get(8)?,
            started_at: row.try_get(9)?,
            updated_at: row.try_get(10)?,
            records: row.try_get::<_, i64>(11)? as u64,
            snapshot_id: row.try_get(12)?,
            archived_at: row.try_get(13)?,
            machine: Some(row.try_get(14)?),
        })
    }

    fn query_sessions(
        &self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Vec<ArchivedSession>, ArchiveError> {
        let rows = self.lock().query(sql, params).map_err(self.err_owned())?;
        rows.iter().map(PostgresArchive::session_row).collect::<Result<_, _>>().map_err(self.err_owned())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Client> {
        self.client.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Maps a client error to [`ArchiveError::Postgres`], the password
    /// scrubbed; owns what it needs, so that `self.client` stays free.
    fn err_owned(&self) -> impl Fn(postgres::Error) -> ArchiveError + use<> {
        let database = self.database.clone();
        let password = self.password.clone();
        move |e| ArchiveError::Postgres {
            database: database.clone(),
            message: match &password {
                Some(p) => describe(&e).replace(p.as_str(), "***"),
                None => describe(&e),
            },
        }
    }

    fn lock_key(home: i64) -> i32 {
        (home % i64::from(i32::MAX)) as i32
    }
}

const SESSION_COLUMNS: &str = "s.id, h.path, s.harness, s.native_id, s.locator, s.codec, s.native_version, s.cwd, \
     s.title, s.started_at, s.updated_at, s.records, s.snapshot_id, s.archived_at, h.machine";

/// Keeps one session in `tx` (see [`ArchiveStore::put_session`]).
fn put_session_tx(
    tx: &mut Transaction<'_>,
    st: &Statements,
    head: &SessionHead,
    parts: &mut dyn SessionParts,
    err: &dyn Fn(postgres::Error) -> ArchiveError,
) -> Result<PutOutcome, ArchiveError> {
    let now = trajhost_canonical::time::now_rfc3339();
    let mut outcome = PutOutcome::default();
    let updated_ms = head.updated_at.as_deref().and_then(trajhost_canonical::time::unix_ms_from_rfc3339);
    // The row first (the records point at it); what is known only once
    // every record was read is set at the end.
    let row = tx
        .query_one(
            &st.upsert_session,
            &[
                &head.home,
                &head.harness,
                &head.native_id,
                &head.locator,
                &head.codec,
                &head.native_version,
                &head.started_at,
                &head.updated_at,
                &updated_ms,
                &now,
            ],
        )
        .map_err(err)?;
    let session: i64 = row.try_get(0).map_err(err)?;
    outcome.new_session = row.try_get(1).map_err(err)?;
    // Continued from a cursor: only `meta` and the records from the cursor
    // on can change; the session's other files stay its own.
    let from = head.resumed_after.map_or(0, |n| n as i64);
    let old = tx
        .query(&st.old_records, &[&session, &from])
        .map_err(err)?
        .iter()
        .map(|r| Ok((r.try_get(0)?, (r.try_get(1)?, r.try_get(2)?))))
        .collect::<Result<_, postgres::Error>>()
        .map_err(err)?;
    let mut diff = match head.resumed_after {
        Some(after) => RecordDiff::resumed(old, after),
        None => RecordDiff::new(old),
    };
    if head.resumed_after.is_none() {
        tx.execute(&st.clear_session_files, &[&session]).map_err(err)?;
    }
    // Each part in one round trip or a few: records as arrays, a blob only
    // when the database does not hold it yet (another machine may have kept it).
    let put_blob = |tx: &mut Transaction<'_>, bytes: &[u8]| -> Result<String, ArchiveError> {
        let sha = sha256_hex(bytes);
        if tx.query(&st.present_blobs, &[&vec![sha.as_str()]]).map_err(err)?.is_empty() {
            tx.execute(&st.insert_blob, &[&sha, &bytes]).map_err(err)?;
        }
        Ok(sha)
    };
    let tail = loop {
        match parts.next_part()? {
            SessionPart::Records(records) => {
                let mut stale: Vec<i64> = Vec::new();
                let (mut seqs, mut ids, mut kinds, mut times, mut jsons, mut shas, mut texts) =
                    (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
                for record in &records {
                    let (seq, sha, change) = diff.next(record, &mut outcome);
                    match change {
                        RecordChange::Unchanged => continue,
                        RecordChange::Changed(id) => stale.push(id),
                        RecordChange::Added => {}
                    }
                    seqs.push(seq);
                    ids.push(record.record_id.as_str());
                    kinds.push(record.kind.as_str());
                    times.push(record.ts_ms);
                    jsons.push(record.json.as_str());
                    shas.push(sha);
                    texts.push(record.text.as_deref().map(pg_text));
                }
                if !stale.is_empty() {
                    tx.execute(&st.delete_records, &[&stale]).map_err(err)?;
                }
                if !seqs.is_empty() {
                    tx.execute(&st.insert_records, &[&session, &seqs, &ids, &kinds, &times, &jsons, &shas, &texts])
                        .map_err(err)?;
                }
            }
            SessionPart::Evidence { path, generation } => {
                let sha = put_blob(tx, &generation.bytes)?;
                let id: i64 =
                    tx.query_one(&st.upsert_file, &[&head.home, &path]).and_then(|r| r.try_get(0)).map_err(err)?;
                tx.execute(
                    &st.insert_generation,
                    &[&id, &(generation.offset as i64), &(generation.bytes.len() as i64), &generation.base, &sha, &now],
                )
                .map_err(err)?;
                outcome.evidence_bytes += generation.bytes.len() as u64;
            }
            SessionPart::File(file) => {
                let id: i64 =
                    tx.query_one(&st.upsert_file, &[&head.home, &file.path]).and_then(|r| r.try_get(0)).map_err(err)?;
                tx.execute(
                    &st.keep_file,
                    &[
                        &id,
                        &(file.kept.size as i64),
                        &file.kept.tail_sha256,
                        &(file.seen.size as i64),
                        &file.seen.mtime_ns,
                        &(file.seen.inode as i64),
                    ],
                )
                .map_err(err)?;
                tx.execute(&st.link_file, &[&session, &id]).map_err(err)?;
            }
            SessionPart::Tape(tape) => {
                let sha = put_blob(tx, &tape.tape)?;
                let id: i64 =
                    tx.query_one(&st.upsert_file, &[&head.home, &tape.path]).and_then(|r| r.try_get(0)).map_err(err)?;
                tx.execute(
                    &st.seen_file,
                    &[&id, &(tape.seen.size as i64), &tape.seen.mtime_ns, &(tape.seen.inode as i64)],
                )
                .map_err(err)?;
                tx.execute(&st.link_tape, &[&session, &id, &sha]).map_err(err)?;
                outcome.evidence_bytes += tape.tape.len() as u64;
            }
            SessionPart::End(tail) => break tail,
        }
    };
    let removed = diff.removed(&mut outcome);
    if !removed.is_empty() {
        tx.execute(&st.delete_records, &[&removed]).map_err(err)?;
    }
    let keep = head.resumed_after.is_some();
    tx.execute(
        &st.finish_session,
        &[&session, &pg_opt(&tail.cwd), &pg_opt(&tail.title), &(tail.records as i64), &tail.snapshot_id, &keep],
    )
    .map_err(err)?;
    // Not among the prepared statements: those are prepared on any schema a
    // test opens (`open_at`), and `cursors` came in schema 3.
    tx.execute("DELETE FROM cursors WHERE session_id = $1", &[&session]).map_err(err)?;
    if let Some(c) = &tail.cursor {
        tx.execute(
            "INSERT INTO cursors (session_id, codec, file, file_size, start_offset, records, state, digest)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            &[
                &session,
                &c.codec,
                &c.file,
                &(c.file_size as i64),
                &(c.offset as i64),
                &(c.records as i64),
                &c.state,
                &c.digest,
            ],
        )
        .map_err(err)?;
    }
    tx.execute(&st.clear_failure, &[&head.home, &head.harness, &head.native_id]).map_err(err)?;
    Ok(outcome)
}

/// The tsquery of a user's query, as SQL over parameters `$first…`: each
/// word or phrase through `phraseto_tsquery` (PostgreSQL's own parser, so
/// that punctuation is never operator syntax), a prefix as `:*`, terms
/// ANDed, `OR` kept. Returns the SQL and the parameter values.
fn tsquery_sql(terms: &[Term], first: usize) -> (String, Vec<String>) {
    let mut sql = String::new();
    let mut params = Vec::new();
    let mut joiner = "";
    for term in terms {
        match term {
            Term::Or => joiner = " || ",
            Term::Words { text, prefix } => {
                sql.push_str(joiner);
                let n = first + params.len();
                if *prefix {
                    sql.push_str(&format!(
                        "(CASE WHEN numnode(phraseto_tsquery('simple', ${n})) = 0 THEN ''::tsquery
                              ELSE (phraseto_tsquery('simple', ${n})::text || ':*')::tsquery END)"
                    ));
                } else {
                    sql.push_str(&format!("phraseto_tsquery('simple', ${n})"));
                }
                params.push(pg_text(text).into_owned());
                joiner = " && ";
            }
        }
    }
    (sql, params)
}

/// The start and end of a text a headline was cut from get `…`, as the
/// embedded archive's snippets do.
fn ellipsize(headline: String, text: &str) -> String {
    let plain = headline.replace(MARK_OPEN, "").replace(MARK_CLOSE, "");
    let plain = plain.trim();
    let text = text.trim();
    let mut out = headline.trim().to_string();
    if !plain.is_empty() && !text.starts_with(plain) {
        out.insert(0, '…');
    }
    if !plain.is_empty() && !text.ends_with(plain) {
        out.push('…');
    }
    out
}

impl ArchiveStore for PostgresArchive {
    fn location(&self) -> String {
        self.database.clone()
    }

    fn machine(&self) -> Option<&str> {
        Some(&self.machine)
    }

    fn known_home(&mut self, home: &Path) -> Result<KnownHome, ArchiveError> {
        let err = self.err_owned();
        let home_text = home.to_string_lossy().into_owned();
        let client = self.client.get_mut().unwrap_or_else(|p| p.into_inner());
        let id: i64 = client
            .query_one(
                "INSERT INTO homes (machine, path) VALUES ($1, $2)
                 ON CONFLICT (machine, path) DO UPDATE SET path = EXCLUDED.path RETURNING id",
                &[&self.machine, &home_text],
            )
            .and_then(|r| r.try_get(0))
            .map_err(&err)?;
        // One sync of a home at a time (docs/fleet.md): wait for another.
        let key = PostgresArchive::lock_key(id);
        let free: bool = client
            .query_one("SELECT pg_try_advisory_lock($1, $2)", &[&LOCK_CLASS, &key])
            .and_then(|r| r.try_get(0))
            .map_err(&err)?;
        if !free {
            tracing::info!(home = %home.display(), machine = %self.machine, "another sync of this home is running: waiting for it");
            client.execute("SELECT pg_advisory_lock($1, $2)", &[&LOCK_CLASS, &key]).map_err(&err)?;
        }
        self.locked.push(id);
        let mut known = KnownHome { id, ..KnownHome::default() };
        let rows = client
            .query(
                "SELECT path, seen_size, seen_mtime_ns, seen_inode, kept_size, kept_tail_sha256 FROM files
                 WHERE home_id = $1",
                &[&id],
            )
            .map_err(&err)?;
        for r in rows {
            let seen = match (
                r.try_get::<_, Option<i64>>(1).map_err(&err)?,
                r.try_get::<_, Option<i64>>(2).map_err(&err)?,
                r.try_get::<_, Option<i64>>(3).map_err(&err)?,
            ) {
                (Some(size), Some(mtime_ns), Some(inode)) => {
                    Some(FileState { size: size as u64, mtime_ns, inode: inode as u64 })
                }
                _ => None,
            };
            let kept =
                match (r.try_get::<_, Option<i64>>(4).map_err(&err)?, r.try_get::<_, Option<String>>(5).map_err(&err)?)
                {
                    (Some(size), Some(tail_sha256)) => Some(KeptFile { size: size as u64, tail_sha256 }),
                    _ => None,
                };
            known.files.insert(r.try_get(0).map_err(&err)?, KnownFile { seen, kept });
        }
        let rows = client
            .query(
                "SELECT s.harness, s.native_id, f.path FROM sessions s
                 LEFT JOIN session_files sf ON sf.session_id = s.id LEFT JOIN files f ON f.id = sf.file_id
                 WHERE s.home_id = $1",
                &[&id],
            )
            .map_err(&err)?;
        for r in rows {
            let key = (r.try_get(0).map_err(&err)?, r.try_get(1).map_err(&err)?);
            let file: Option<String> = r.try_get(2).map_err(&err)?;
            known.sessions.entry(key).or_insert(KnownSession { files: Vec::new() }).files.extend(file);
        }
        let rows = client
            .query("SELECT harness, key, size, mtime_ns, inode, error FROM failures WHERE home_id = $1", &[&id])
            .map_err(&err)?;
        for r in rows {
            let key = (r.try_get(0).map_err(&err)?, r.try_get(1).map_err(&err)?);
            let failure = Failure {
                state: FileState {
                    size: r.try_get::<_, i64>(2).map_err(&err)? as u64,
                    mtime_ns: r.try_get(3).map_err(&err)?,
                    inode: r.try_get::<_, i64>(4).map_err(&err)? as u64,
                },
                error: r.try_get(5).map_err(&err)?,
            };
            known.failures.insert(key, failure);
        }
        Ok(known)
    }

    fn home_done(&mut self, home: i64) -> Result<(), ArchiveError> {
        let Some(at) = self.locked.iter().position(|&h| h == home) else { return Ok(()) };
        self.locked.remove(at);
        let key = PostgresArchive::lock_key(home);
        let err = self.err_owned();
        self.client
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .execute("SELECT pg_advisory_unlock($1, $2)", &[&LOCK_CLASS, &key])
            .map(|_| ())
            .map_err(err)
    }

    fn put_seen(&mut self, home: i64, files: &[(String, FileState)]) -> Result<(), ArchiveError> {
        // One row per path (a file two harnesses match is seen twice).
        let unique: BTreeMap<&str, &FileState> = files.iter().map(|(p, s)| (p.as_str(), s)).collect();
        if unique.is_empty() {
            return Ok(());
        }
        let paths: Vec<&str> = unique.keys().copied().collect();
        let sizes: Vec<i64> = unique.values().map(|s| s.size as i64).collect();
        let mtimes: Vec<i64> = unique.values().map(|s| s.mtime_ns).collect();
        let inodes: Vec<i64> = unique.values().map(|s| s.inode as i64).collect();
        let err = self.err_owned();
        self.client
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .execute(
                "INSERT INTO files (home_id, path, seen_size, seen_mtime_ns, seen_inode)
                 SELECT $1, * FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::bigint[])
                 ON CONFLICT (home_id, path) DO UPDATE SET seen_size = EXCLUDED.seen_size,
                     seen_mtime_ns = EXCLUDED.seen_mtime_ns, seen_inode = EXCLUDED.seen_inode",
                &[&home, &paths, &sizes, &mtimes, &inodes],
            )
            .map(|_| ())
            .map_err(err)
    }

    fn put_failure(&mut self, home: i64, harness: &str, key: &str, failure: &Failure) -> Result<(), ArchiveError> {
        let err = self.err_owned();
        self.client
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .execute(
                "INSERT INTO failures (home_id, harness, key, size, mtime_ns, inode, error, failed_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                 ON CONFLICT (home_id, harness, key) DO UPDATE SET size = EXCLUDED.size,
                     mtime_ns = EXCLUDED.mtime_ns, inode = EXCLUDED.inode, error = EXCLUDED.error,
                     failed_at = EXCLUDED.failed_at",
                &[
                    &home,
                    &harness,
                    &key,
                    &(failure.state.size as i64),
                    &failure.state.mtime_ns,
                    &(failure.state.inode as i64),
                    &pg_text(&failure.error),
                    &trajhost_canonical::time::now_rfc3339(),
                ],
            )
            .map(|_| ())
            .map_err(err)
    }

    fn put_session(&mut self, head: &SessionHead, parts: &mut dyn SessionParts) -> Result<PutOutcome, ArchiveError> {
        let Some(statements) = self.statements.as_ref() else {
            return Err(ArchiveError::Postgres { database: self.database.clone(), message: "not prepared".into() });
        };
        // A conflict with another machine's transaction is said as such:
        // sync reads the session again and retries it (its parts are gone).
        let scrubbed = self.err_owned();
        let err = |e: postgres::Error| {
            let transient = is_transient(&e);
            match scrubbed(e) {
                ArchiveError::Postgres { database, message } if transient => {
                    ArchiveError::Conflict { database, message }
                }
                other => other,
            }
        };
        let client = self.client.get_mut().unwrap_or_else(|p| p.into_inner());
        let mut tx = client.transaction().map_err(err)?;
        let outcome = put_session_tx(&mut tx, statements, head, parts, &err)?;
        tx.commit().map_err(err)?;
        Ok(outcome)
    }

    fn cursor(&self, home: i64, harness: &str, native_id: &str) -> Result<Option<SessionCursor>, ArchiveError> {
        let err = self.err_owned();
        let row = self
            .lock()
            .query_opt(
                "SELECT c.codec, c.file, c.file_size, c.start_offset, c.records, c.state, c.digest
                 FROM cursors c JOIN sessions s ON s.id = c.session_id
                 WHERE s.home_id = $1 AND s.harness = $2 AND s.native_id = $3",
                &[&home, &harness, &native_id],
            )
            .map_err(&err)?;
        let Some(row) = row else { return Ok(None) };
        let cursor = (|| -> Result<SessionCursor, postgres::Error> {
            Ok(SessionCursor {
                codec: row.try_get(0)?,
                file: row.try_get(1)?,
                file_size: row.try_get::<_, i64>(2)? as u64,
                offset: row.try_get::<_, i64>(3)? as u64,
                records: row.try_get::<_, i64>(4)? as u64,
                state: row.try_get(5)?,
                digest: row.try_get(6)?,
            })
        })()
        .map_err(&err)?;
        Ok(Some(cursor))
    }

    fn sessions(&self, filter: &SessionFilter) -> Result<Vec<ArchivedSession>, ArchiveError> {
        let sql = format!(
            "SELECT {SESSION_COLUMNS} FROM sessions s JOIN homes h ON h.id = s.home_id
             WHERE ($1::text IS NULL OR s.harness = $1)
               AND ($2::text IS NULL OR s.cwd = $2 OR starts_with(s.cwd, $2 || '/'))
               AND ($3::text IS NULL OR (h.path = $3 AND h.machine = $4))
             ORDER BY s.updated_ms IS NULL, s.updated_ms DESC, s.native_id, h.machine LIMIT $5"
        );
        let cwd = filter.cwd.as_deref().map(|c| c.trim_end_matches('/').to_string());
        let home = filter.home.as_ref().map(|h| h.to_string_lossy().into_owned());
        let limit = filter.limit.map(|l| l as i64);
        self.query_sessions(&sql, &[&filter.harness, &cwd, &home, &self.machine, &limit])
    }

    fn find(&self, id: &str, harness: Option<&str>) -> Result<Vec<ArchivedSession>, ArchiveError> {
        let exact = format!(
            "SELECT {SESSION_COLUMNS} FROM sessions s JOIN homes h ON h.id = s.home_id
             WHERE s.native_id = $1 AND ($2::text IS NULL OR s.harness = $2) ORDER BY s.updated_ms DESC"
        );
        let prefix = format!(
            "SELECT {SESSION_COLUMNS} FROM sessions s JOIN homes h ON h.id = s.home_id
             WHERE starts_with(s.native_id, $1) AND ($2::text IS NULL OR s.harness = $2)
             ORDER BY s.updated_ms DESC LIMIT 20"
        );
        let id = pg_text(id).into_owned();
        let found = self.query_sessions(&exact, &[&id, &harness])?;
        if !found.is_empty() {
            return Ok(found);
        }
        self.query_sessions(&prefix, &[&id, &harness])
    }

    fn records(&self, session: &ArchivedSession) -> Result<Vec<String>, ArchiveError> {
        let err = self.err_owned();
        let rows = self
            .lock()
            .query("SELECT json FROM records WHERE session_id = $1 ORDER BY seq", &[&session.id])
            .map_err(&err)?;
        rows.iter().map(|r| r.try_get(0)).collect::<Result<_, _>>().map_err(&err)
    }

    fn evidence(&self, session: &ArchivedSession) -> Result<Evidence, ArchiveError> {
        {
            let err = self.err_owned();
            let corrupt = |message: String| ArchiveError::Corrupt { path: PathBuf::from(&self.database), message };
            let mut guard = self.lock();
            let client: &mut Client = &mut guard;
            let mut evidence = Evidence::default();
            let files = client
                .query(
                    "SELECT f.id, f.path, f.kept_size, sf.tape_sha256 FROM session_files sf
                     JOIN files f ON f.id = sf.file_id WHERE sf.session_id = $1 ORDER BY f.path",
                    &[&session.id],
                )
                .map_err(&err)?;
            let blob = |client: &mut Client, sha: &str| -> Result<Vec<u8>, ArchiveError> {
                let bytes: Vec<u8> = client
                    .query_one("SELECT bytes FROM blobs WHERE sha256 = $1", &[&sha])
                    .and_then(|r| r.try_get(0))
                    .map_err(&err)?;
                if sha256_hex(&bytes) != sha {
                    return Err(corrupt(format!("blob {sha} does not match its digest")));
                }
                Ok(bytes)
            };
            for row in files {
                let file: i64 = row.try_get(0).map_err(&err)?;
                let path: String = row.try_get(1).map_err(&err)?;
                let kept: Option<i64> = row.try_get(2).map_err(&err)?;
                if let Some(sha) = row.try_get::<_, Option<String>>(3).map_err(&err)? {
                    let bytes = blob(client, &sha)?;
                    let queries: Vec<RecordedQuery> =
                        serde_json::from_slice(&bytes).map_err(|e| corrupt(format!("tape of {path}: {e}")))?;
                    evidence.tapes.push((path, queries));
                    continue;
                }
                // The newest base generation and the appends after it.
                let parts = client
                    .query(
                        "SELECT start_offset, length, sha256 FROM generations WHERE file_id = $1 AND generation >=
                         (SELECT coalesce(max(generation), 0) FROM generations WHERE file_id = $1 AND base)
                         ORDER BY generation",
                        &[&file],
                    )
                    .map_err(&err)?;
                let mut bytes = Vec::new();
                for part in parts {
                    let offset: i64 = part.try_get(0).map_err(&err)?;
                    let length: i64 = part.try_get(1).map_err(&err)?;
                    let sha: String = part.try_get(2).map_err(&err)?;
                    if offset as usize != bytes.len() {
                        return Err(corrupt(format!(
                            "{path}: a generation starts at byte {offset}, the kept bytes end at {}",
                            bytes.len()
                        )));
                    }
                    let part = blob(client, &sha)?;
                    if part.len() as i64 != length {
                        return Err(corrupt(format!("{path}: generation {sha} is not {length} bytes")));
                    }
                    bytes.extend_from_slice(&part);
                }
                if kept.is_some_and(|k| k as usize != bytes.len()) {
                    return Err(corrupt(format!("{path}: {} bytes kept, {} recorded", bytes.len(), kept.unwrap_or(0))));
                }
                evidence.files.push((path, bytes));
            }
            Ok(evidence)
        }
    }

    fn search(&self, query: &SearchQuery) -> Result<Vec<Hit>, ArchiveError> {
        let terms = super::search::terms(&query.text);
        if terms.is_empty() {
            return Err(ArchiveError::Query(format!("{:?}: nothing to search for", query.text)));
        }
        let (tsquery, words) = tsquery_sql(&terms, 7);
        // Rank on narrow rows first; the headlines (which re-parse the
        // text) are made for the hits only.
        let sql = format!(
            "WITH q AS (SELECT {tsquery} AS q),
             hits AS (
                 SELECT r.id, s.harness, s.native_id, h.machine, h.path, s.cwd, s.title, r.record_id, r.seq, r.kind,
                        ts_rank_cd(r.tsv, q.q) AS rank
                 FROM q, records r JOIN sessions s ON s.id = r.session_id JOIN homes h ON h.id = s.home_id
                 WHERE r.tsv @@ q.q
                   AND ($1::text IS NULL OR s.harness = $1)
                   AND ($2::text IS NULL OR s.cwd = $2 OR starts_with(s.cwd, $2 || '/'))
                   AND ($3::bigint IS NULL OR coalesce(r.ts_ms, s.updated_ms) >= $3)
                   AND ($4::text IS NULL OR r.kind = $4)
                 ORDER BY rank DESC, r.id LIMIT $5)
             SELECT hits.harness, hits.native_id, hits.machine, hits.path, hits.cwd, hits.title, hits.record_id,
                    hits.seq, hits.kind, hits.rank::float8,
                    ts_headline('simple', left(r.text, 262144), q.q, $6), r.json::json ->> 'ts', left(r.text, 262144)
             FROM hits JOIN records r ON r.id = hits.id, q
             ORDER BY hits.rank DESC, hits.id"
        );
        let options = format!(
            "StartSel=\"{MARK_OPEN}\", StopSel=\"{MARK_CLOSE}\", MaxWords=16, MinWords=6, MaxFragments=1, \
             FragmentDelimiter=\" … \""
        );
        let cwd = query.cwd.as_deref().map(|c| c.trim_end_matches('/').to_string());
        let limit = query.limit as i64;
        let mut params: Vec<&(dyn postgres::types::ToSql + Sync)> =
            vec![&query.harness, &cwd, &query.since_ms, &query.kind, &limit, &options];
        for word in &words {
            params.push(word);
        }
        let text = query.text.clone();
        {
            let password = self.password.clone();
            let query_error = |e: postgres::Error| {
                let message = format!("{text:?}: {}", describe(&e));
                ArchiveError::Query(match &password {
                    Some(p) => message.replace(p.as_str(), "***"),
                    None => message,
                })
            };
            let rows = self.lock().query(&sql, &params).map_err(query_error)?;
            let mut hits = Vec::with_capacity(rows.len());
            for r in rows {
                let headline: String = r.try_get(10).map_err(query_error)?;
                let text: String = r.try_get(12).map_err(query_error)?;
                hits.push(Hit {
                    harness: r.try_get(0).map_err(query_error)?,
                    native_id: r.try_get(1).map_err(query_error)?,
                    machine: Some(r.try_get(2).map_err(query_error)?),
                    home: PathBuf::from(r.try_get::<_, String>(3).map_err(query_error)?),
                    cwd: r.try_get(4).map_err(query_error)?,
                    title: r.try_get(5).map_err(query_error)?,
                    record_id: r.try_get(6).map_err(query_error)?,
                    seq: r.try_get::<_, i64>(7).map_err(query_error)? as u64,
                    kind: r.try_get(8).map_err(query_error)?,
                    rank: -r.try_get::<_, f64>(9).map_err(query_error)?,
                    snippet: ellipsize(headline, &text),
                    ts: r.try_get(11).map_err(query_error)?,
                    text,
                });
            }
            Ok(hits)
        }
    }
}
