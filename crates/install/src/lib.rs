//! Installing a codec's plan into a target home: validated first, then
//! applied all or nothing — also when the process is killed (`kill -9`,
//! power loss) at any moment. The codec only describes; the host writes.
//!
//! The plan is expressed in this module's own types ([`InstallPlan`],
//! [`InstallOp`]), independent of any WIT version; each binding converts
//! its plan into them.
//!
//! # Rules (checked by [`validate`], before anything changes)
//!
//! - Paths are relative to the home, `/`-separated, without `.`, `..`,
//!   empty components or NUL. Ancestors that exist must be real
//!   directories (a symbolic link is refused, so nothing escapes the home).
//! - A file that exists is never overwritten: every create (file, copied
//!   artifact, database) is refused when its target exists. Only
//!   `add-json-entry` and `append-file` change an existing file, and only by
//!   adding: an entry to a JSON document, or bytes after a file's end when
//!   the file still has the length and sha256 the codec saw (else the plan
//!   is refused and the file left as it is).
//! - Rows go only into databases that exist (and tables and columns are
//!   plain identifiers; every row has one value per column).
//! - A new database's schema statements are CREATE TABLE / INDEX / VIEW /
//!   TRIGGER (and CREATE VIRTUAL TABLE of the built-in FTS and R-tree
//!   modules), enforced by SQLite's authorizer; the whole database is built
//!   in memory at validation, so a bad statement or row is refused up front.
//!
//! # How a plan is applied ([`execute`])
//!
//! 1. A journal `<journal_dir>/<id>.json` (written to a temporary name,
//!    fsynced, renamed, directory fsynced) lists, in state `staging`, every
//!    directory the install will create, every temporary file it will
//!    write and every database it will open. `<id>.lock` is held (flock)
//!    while the install runs, so a concurrent recovery leaves it alone.
//! 2. Rows for existing databases are inserted inside one `BEGIN IMMEDIATE`
//!    transaction per database, not yet committed (constraint failures
//!    surface here, before anything is visible).
//! 3. Every file is staged beside its target as `.<name>.trajhost-<id>.tmp`
//!    (a new database is built completely in its temporary file) and
//!    fsynced.
//! 4. The journal is rewritten in state `committing`, now carrying what a
//!    roll-forward needs (the rows, a probe per database, the JSON entries).
//!    This is the point of no return.
//! 5. New files are moved into place without replacing anything
//!    (`renameat2(RENAME_NOREPLACE)`, else `link` + `unlink`), appended
//!    bytes are written after each file's original end (checked once more
//!    against the length and sha256 the journal recorded) and fsynced, the
//!    database transactions commit, JSON index files are replaced by rename
//!    (necessarily: they exist), directories are fsynced, and the journal
//!    is removed. A failure before the first database commits undoes the
//!    install: placed files are removed and appended files truncated back
//!    to their original length.
//!
//! # Between a kill and the next recovery
//!
//! A kill before step 4 leaves, in the home, only hidden
//! `.<name>.trajhost-<id>.tmp` files (possibly partial; an append stages
//! its bytes in one beside the file it extends), empty directories
//! the install created, and SQLite's own rollback journal or WAL files next
//! to a database whose transaction was open (SQLite rolls those back on the
//! next open, whoever opens it). No target exists and no row is visible:
//! the harness sees the home as before. A kill after step 4 leaves some
//! targets in place and others still staged: the home may be half
//! installed until [`recover`] runs. trajhost calls [`recover`] at the start
//! of every command; it rolls a `staging` journal back (temporary files
//! deleted, databases opened once so SQLite undoes the open transaction,
//! created directories removed if empty; a file that already holds this
//! install's appended bytes, or a torn part of them, after its recorded
//! original bytes is truncated back to its original length) and a
//! `committing` journal forward, idempotently:
//!
//! - a staged file still present is moved into place; a target that already
//!   exists and is the same inode as the staged file (a `link` done before
//!   the `unlink`) only loses the temporary name; a staged file that is gone
//!   was placed;
//! - a database transaction is known to have committed by its probe: the
//!   first inserted row, read back inside the transaction after every
//!   insert (so with what the database's own triggers and defaults filled
//!   in), located by rowid; a row at that rowid with exactly those values
//!   means committed, anything else means the rows are inserted again, in
//!   one transaction. (A `WITHOUT ROWID` table is probed by its row count.)
//! - an appended file whose first `original_length` bytes still have the
//!   recorded sha256 gets the staged bytes after them: nothing when they
//!   are all there already, the rest when a kill tore the write; a file
//!   whose original bytes changed is left alone (a problem is reported);
//! - a JSON file is replaced by the staged content when it still has the
//!   bytes the staged content was computed from; when it changed since, the
//!   entries are added again to its current content (adding is idempotent:
//!   an equal entry is a no-op).
//!
//! A roll-forward step that cannot be completed (a target created by
//! someone else in the meantime) is reported in [`Recovered::problems`].

mod append;
mod error;
mod files;
mod journal;
mod json;
mod paths;
mod recover;
mod sqlite;
mod stage;
mod validate;

use std::path::{Path, PathBuf};

pub use error::InstallError;
pub use files::{remove_stale_temps, write_replacing};
pub use recover::{Recovered, RecoveryOutcome, recover};
#[cfg(test)]
mod append_tests;
pub use stage::execute;
pub use validate::validate;

/// A plan, in the host's own terms.
#[derive(Debug, Clone, PartialEq)]
pub struct InstallPlan {
    pub native_id: String,
    pub operations: Vec<InstallOp>,
    pub resume_command: Option<String>,
}

/// One operation of a plan. Paths are relative to the target home,
/// `/`-separated.
#[derive(Debug, Clone, PartialEq)]
pub enum InstallOp {
    /// A new file with these bytes.
    CreateFile { path: String, bytes: Vec<u8> },
    /// A new file with the bytes of `source` (an absolute path, an export
    /// artifact the host checked).
    CopyFile { source: PathBuf, path: String },
    /// Rows added to an existing database.
    InsertRows { database: String, table: String, columns: Vec<String>, rows: Vec<Vec<SqlValue>> },
    /// A new SQLite database: `schema` runs in order, then `user_version`
    /// is set, then the rows are inserted.
    CreateDatabase { path: String, schema: Vec<String>, user_version: Option<i64>, tables: Vec<TableRows> },
    /// One entry added to a JSON file; existing entries are never changed
    /// (the WIT `add-json-entry` record).
    ///
    /// - `pointer`: RFC 6901 pointer to the receiving object or array (""
    ///   is the document); missing objects on the way are created (a
    ///   missing receiver is created as an object when `key` is given,
    ///   else as an array).
    /// - `key`: the member name, for an object; refused if the member
    ///   holds another value, a no-op if it holds an equal one. None for an
    ///   array: the entry is appended.
    /// - `match_member`: for an array, an element that has this member
    ///   with the value `value` has is the same entry: nothing is added.
    ///   Without it, an element equal to `value` is the same entry.
    /// - `initial`: the document to start from when the file does not
    ///   exist; None: the file must exist.
    AddJsonEntry {
        path: String,
        pointer: String,
        key: Option<String>,
        match_member: Option<String>,
        value: String,
        initial: Option<String>,
    },
    /// Bytes appended to an existing regular file (the WIT `append-file`
    /// record), only while it still has `expect_length` bytes with sha256
    /// `expect_sha256` (lowercase hex): what the codec saw when it planned.
    /// The existing bytes stay an untouched prefix.
    AppendFile { path: String, bytes: Vec<u8>, expect_length: u64, expect_sha256: String },
}

/// Rows for one table of a new database.
#[derive(Debug, Clone, PartialEq)]
pub struct TableRows {
    pub table: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<SqlValue>>,
}

/// A SQLite value.
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

/// What a plan does (or, from [`validate`], would do).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Applied {
    /// Files created from bytes or copied from artifacts.
    pub created_files: Vec<PathBuf>,
    pub created_databases: Vec<CreatedDatabase>,
    /// (database, table, rows)
    pub inserted_rows: Vec<(PathBuf, String, usize)>,
    pub json_entries: Vec<JsonEntryOutcome>,
    pub appended_files: Vec<AppendedFile>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct AppendedFile {
    pub path: PathBuf,
    /// The file's length before the install (its bytes stay a prefix).
    pub original_length: u64,
    /// Bytes added after it.
    pub appended: u64,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CreatedDatabase {
    pub path: PathBuf,
    /// (table, rows)
    pub rows: Vec<(String, usize)>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct JsonEntryOutcome {
    pub path: PathBuf,
    pub pointer: String,
    pub key: Option<String>,
    /// False when an equal entry was already there (nothing written for it).
    pub added: bool,
    /// The file did not exist and was created from `initial`.
    pub created_file: bool,
}

/// Test hook: in debug builds, `TRAJHOST_TEST_PAUSE_AT=<point>` makes the
/// process stop at that named point (after writing the point's name to
/// `$TRAJHOST_TEST_PAUSE_SIGNAL`, when set) until it is killed, so tests
/// can kill an install at an exact step. Release builds ignore it.
pub fn pause_point(point: &str) {
    #[cfg(debug_assertions)]
    if std::env::var("TRAJHOST_TEST_PAUSE_AT").is_ok_and(|wanted| wanted == point) {
        if let Some(signal) = std::env::var_os("TRAJHOST_TEST_PAUSE_SIGNAL") {
            let _ = std::fs::write(signal, point);
        }
        tracing::warn!("test hook: paused at {point}");
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
    #[cfg(not(debug_assertions))]
    let _ = point;
}

/// The target home made absolute, refused with a clear error when it does
/// not exist or is not a directory.
pub fn resolve_home(home: &Path) -> Result<PathBuf, InstallError> {
    paths::home(home)
}

/// The journal directory under a trajhost data directory.
pub fn journal_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("installs")
}

/// The lowercase hex sha256 of `bytes`: how blobs, journals and the
/// registry name content.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(bytes))
}
