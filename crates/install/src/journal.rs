//! The install journal: `<dir>/<id>.json`, rewritten whole (temporary name,
//! fsync, rename, directory fsync) at each state change, and `<dir>/<id>.lock`,
//! held with `flock` by the live install so that a recovery running at
//! the same time leaves it alone.

use std::fs::File;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::{InstallError, Result};
use super::{SqlValue, files, json};

pub const FORMAT: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Temporary files are being written; nothing is visible in the home.
    Staging,
    /// Everything is staged: the install completes (rolls forward).
    Committing,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Journal {
    pub format: u32,
    pub id: String,
    pub home: PathBuf,
    pub native_id: String,
    pub state: State,
    /// Directories the install creates, parents first.
    pub created_dirs: Vec<PathBuf>,
    /// New files (created, copied, databases): placed without replacing.
    pub files: Vec<FileStep>,
    /// Databases rows are inserted into.
    pub databases: Vec<DatabaseStep>,
    /// JSON files an entry is added to.
    pub json: Vec<JsonStep>,
    /// Existing files bytes are appended to (absent in journals written
    /// before `append-file`).
    #[serde(default)]
    pub appends: Vec<AppendStep>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct FileStep {
    pub temp: PathBuf,
    pub target: PathBuf,
}

/// Bytes appended to an existing file: staged in `temp` (all of them,
/// fsynced, before the journal says committing), written after the file's
/// first `original_length` bytes, which must keep `original_sha256`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct AppendStep {
    pub temp: PathBuf,
    pub target: PathBuf,
    /// The file's length before the install: an undo truncates back to it.
    pub original_length: u64,
    pub original_sha256: String,
    /// Length and sha256 of the appended bytes.
    pub length: u64,
    pub sha256: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct DatabaseStep {
    pub path: PathBuf,
    /// Filled in `committing`: what a roll-forward inserts again.
    #[serde(default)]
    pub inserts: Vec<InsertStep>,
    /// Filled in `committing`: how to tell the transaction committed.
    #[serde(default)]
    pub probe: Option<Probe>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct InsertStep {
    pub table: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<StoredValue>>,
}

/// The evidence that a database's transaction committed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Probe {
    /// The first inserted row as stored (triggers and defaults applied), at its rowid.
    Row { table: String, rowid: i64, values: Vec<StoredValue> },
    /// The row count of a table without rowids (or whose row could not be read back).
    Count { table: String, before: i64, after: i64 },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct JsonStep {
    pub temp: PathBuf,
    pub target: PathBuf,
    /// sha256 of the bytes the staged content was computed from; None: the
    /// file did not exist.
    pub base_sha256: Option<String>,
    /// Filled in `committing`: to add the entries again to a file that
    /// changed since staging.
    #[serde(default)]
    pub initial: Option<String>,
    #[serde(default)]
    pub entries: Vec<json::Entry>,
    /// Permissions of the replaced file.
    #[serde(default)]
    pub mode: Option<u32>,
}

/// A SQLite value in JSON without loss (reals by their bits, blobs in hex).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum StoredValue {
    Null,
    Integer(i64),
    RealBits(u64),
    Text(String),
    BlobHex(String),
}

impl From<&SqlValue> for StoredValue {
    fn from(value: &SqlValue) -> StoredValue {
        match value {
            SqlValue::Null => StoredValue::Null,
            SqlValue::Integer(i) => StoredValue::Integer(*i),
            SqlValue::Real(f) => StoredValue::RealBits(f.to_bits()),
            SqlValue::Text(s) => StoredValue::Text(s.clone()),
            SqlValue::Blob(b) => StoredValue::BlobHex(hex::encode(b)),
        }
    }
}

impl StoredValue {
    pub fn to_value(&self) -> Result<SqlValue, String> {
        Ok(match self {
            StoredValue::Null => SqlValue::Null,
            StoredValue::Integer(i) => SqlValue::Integer(*i),
            StoredValue::RealBits(bits) => SqlValue::Real(f64::from_bits(*bits)),
            StoredValue::Text(s) => SqlValue::Text(s.clone()),
            StoredValue::BlobHex(h) => SqlValue::Blob(hex::decode(h).map_err(|e| e.to_string())?),
        })
    }
}

/// A live install's journal and lock.
pub(crate) struct JournalFile {
    dir: PathBuf,
    id: String,
    _lock: File,
}

impl JournalFile {
    /// Creates and locks `<id>.lock` under a fresh id; the journal itself
    /// is written by [`write`](Self::write).
    pub fn create(dir: &Path) -> Result<JournalFile> {
        std::fs::create_dir_all(dir).map_err(|e| journal_error(dir, e))?;
        loop {
            let id = files::unique_id();
            let lock = lock_path(dir, &id);
            let file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&lock)
                .map_err(|e| journal_error(&lock, e))?;
            file.lock().map_err(|e| journal_error(&lock, e))?;
            // A recovery may have taken and removed the new lock file before
            // this process locked it: then start over under another id.
            let locked = file.metadata().map_err(|e| journal_error(&lock, e))?;
            if files::stat(&lock)
                .map_err(|e| journal_error(&lock, e))?
                .is_some_and(|current| files::same_file(&current, &locked))
            {
                return Ok(JournalFile { dir: dir.to_path_buf(), id, _lock: file });
            }
        }
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn path(&self) -> PathBuf {
        journal_path(&self.dir, &self.id)
    }

    pub fn write(&self, journal: &Journal) -> Result<()> {
        let path = self.path();
        let bytes = serde_json::to_vec(journal).map_err(|e| journal_error(&path, e))?;
        files::write_replacing(&path, &bytes, Some(0o600)).map_err(|e| journal_error(&path, e))
    }

    /// Removes the journal, then the lock file (the install is over).
    pub fn remove(self) -> Result<()> {
        remove_journal(&self.dir, &self.id)
    }
}

pub(crate) fn journal_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.json"))
}

pub(crate) fn lock_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.lock"))
}

pub(crate) fn journal_error(path: &Path, error: impl std::fmt::Display) -> InstallError {
    InstallError::Journal { path: path.to_path_buf(), message: error.to_string() }
}

/// Removes `<id>.json` (durably), a temporary journal a kill left while
/// rewriting it, and then `<id>.lock`.
pub(crate) fn remove_journal(dir: &Path, id: &str) -> Result<()> {
    let temp_prefix = format!(".{id}.json.trajhost-");
    for entry in std::fs::read_dir(dir).map_err(|e| journal_error(dir, e))?.flatten() {
        if entry.file_name().to_string_lossy().starts_with(&temp_prefix) {
            files::remove_if_exists(&entry.path()).map_err(|e| journal_error(&entry.path(), e))?;
        }
    }
    let path = journal_path(dir, id);
    files::remove_if_exists(&path).map_err(|e| journal_error(&path, e))?;
    files::sync_dir(dir).map_err(|e| journal_error(dir, e))?;
    let lock = lock_path(dir, id);
    files::remove_if_exists(&lock).map_err(|e| journal_error(&lock, e))?;
    Ok(())
}

pub fn read(path: &Path) -> Result<Journal> {
    let bytes = std::fs::read(path).map_err(|e| journal_error(path, e))?;
    let journal: Journal =
        serde_json::from_slice(&bytes).map_err(|e| journal_error(path, format!("unreadable: {e}")))?;
    if journal.format != FORMAT {
        return Err(journal_error(path, format!("format {} is not {FORMAT}", journal.format)));
    }
    Ok(journal)
}

/// Ids of installs with a journal or a lock file in `dir`.
pub fn pending(dir: &Path) -> Result<Vec<String>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(journal_error(dir, e)),
    };
    let mut ids = std::collections::BTreeSet::new();
    for entry in entries {
        let entry = entry.map_err(|e| journal_error(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        if let Some(id) = name.strip_suffix(".json").or_else(|| name.strip_suffix(".lock")) {
            ids.insert(id.to_string());
        }
    }
    Ok(ids.into_iter().collect())
}

/// Locks `<id>.lock` unless a live install holds it. The lock is only
/// valid while the path still names the locked file.
pub(crate) fn try_lock(dir: &Path, id: &str) -> Result<Option<File>> {
    let path = lock_path(dir, id);
    let file = match std::fs::OpenOptions::new().write(true).create(true).truncate(false).open(&path) {
        Ok(file) => file,
        Err(e) => return Err(journal_error(&path, e)),
    };
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
        Err(std::fs::TryLockError::Error(e)) => return Err(journal_error(&path, e)),
    }
    let locked = file.metadata().map_err(|e| journal_error(&path, e))?;
    match files::stat(&path).map_err(|e| journal_error(&path, e))? {
        Some(current) if files::same_file(&current, &locked) => Ok(Some(file)),
        // Removed or replaced by another recovery meanwhile: not ours to handle.
        _ => Ok(None),
    }
}
