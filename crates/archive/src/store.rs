//! The archive's storage interface: everything sync, search and read ask of
//! a store, and nothing about how it keeps it. The embedded SQLite archive
//! ([`super::sqlite::SqliteArchive`]) and the shared PostgreSQL archive of a
//! fleet ([`super::postgres::PostgresArchive`]) implement it; sync, search
//! and the codecs do not know which one they use.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::Digest;

use super::ArchiveError;
use trajhost_capabilities::evidence::RecordedQuery;

/// What one stat of a file says, to tell whether it changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileState {
    pub size: u64,
    pub mtime_ns: i64,
    pub inode: u64,
}

impl FileState {
    pub fn of(meta: &std::fs::Metadata) -> FileState {
        use std::os::unix::fs::MetadataExt;
        FileState { size: meta.len(), mtime_ns: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(), inode: meta.ino() }
    }
}

/// How much of a file the archive keeps, and a digest of the bytes just
/// before that point: an append starts there; a rewrite or truncation
/// changes those bytes (or the size shrinks) and starts a new generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptFile {
    pub size: u64,
    /// sha256 of the last [`super::CURSOR_BYTES`] bytes before `size`.
    pub tail_sha256: String,
}

/// A file of a home as the archive knows it.
#[derive(Debug, Clone, Default)]
pub struct KnownFile {
    /// The state the last sync saw.
    pub seen: Option<FileState>,
    /// The bytes kept as evidence, if the file is a session's.
    pub kept: Option<KeptFile>,
}

/// A session the archive holds, for change detection.
#[derive(Debug, Clone)]
pub struct KnownSession {
    /// Files (relative to the home) its evidence came from: its own files
    /// and the databases its rows came from.
    pub files: Vec<String>,
}

/// A session that failed to read, with the state of its main file then: it
/// is retried only once that file changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub state: FileState,
    pub error: String,
}

/// What the archive knows about one home.
#[derive(Debug, Default)]
pub struct KnownHome {
    pub id: i64,
    pub files: HashMap<String, KnownFile>,
    /// By (harness, native id).
    pub sessions: HashMap<(String, String), KnownSession>,
    /// By (harness, native id or file).
    pub failures: HashMap<(String, String), Failure>,
}

/// One canonical record to keep.
#[derive(Debug, Clone)]
pub struct PutRecord {
    pub record_id: String,
    pub kind: String,
    pub ts_ms: Option<i64>,
    /// The canonical JSON line, exactly as the codec produced it.
    pub json: String,
    /// What the full-text index holds for it (user, assistant, reasoning,
    /// tool-call arguments, tool-result text, compaction summary).
    pub text: Option<String>,
}

/// New evidence bytes of one file: `bytes` start at `offset`; `base` says
/// they start a new generation chain (the file is new, or was rewritten).
/// A long range comes as several generations, each at most
/// [`EVIDENCE_CHUNK`] bytes, the later ones continuing the first.
#[derive(Debug, Clone)]
pub struct Generation {
    pub offset: u64,
    pub bytes: Vec<u8>,
    pub base: bool,
}

/// The most evidence bytes one [`SessionPart::Evidence`] holds: what sync
/// keeps in memory of a file at a time.
pub const EVIDENCE_CHUNK: usize = 4 << 20;

/// A file a session was read from, once its evidence bytes were handed over.
#[derive(Debug, Clone)]
pub struct PutFile {
    pub path: String,
    pub seen: FileState,
    pub kept: KeptFile,
}

/// A database a session's rows came from, with the recorded answers.
#[derive(Debug, Clone)]
pub struct PutTape {
    pub path: String,
    pub seen: FileState,
    /// The tape as JSON (a list of [`RecordedQuery`]).
    pub tape: Vec<u8>,
}

/// A session's row as sync knows it before reading its records.
#[derive(Debug, Clone)]
pub struct SessionHead {
    pub home: i64,
    pub harness: String,
    pub native_id: String,
    pub locator: String,
    pub codec: String,
    pub native_version: Option<String>,
    pub started_at: Option<String>,
    pub updated_at: Option<String>,
    /// Continued from a cursor after this many records: the parts hold the
    /// session's `meta` (replacing record 0), then the records from this
    /// ordinal on; the records between stay, and so do the session's other
    /// files.
    pub resumed_after: Option<u64>,
}

/// What sync knows of a session once every record was read.
#[derive(Debug, Clone)]
pub struct SessionTail {
    pub records: u64,
    pub snapshot_id: String,
    /// Where a later sync can continue (none: it reads the file whole).
    pub cursor: Option<SessionCursor>,
    pub cwd: Option<String>,
    pub title: Option<String>,
}

/// Where a session's main file can be read on from: a codec's resume point
/// and the snapshot digest's state there, kept with the file generation it
/// was taken on (`file_size`, the file's kept size then, whose tail digest
/// the file row keeps).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionCursor {
    /// The codec that gave the point (`harness@version`): another one reads
    /// the file whole.
    pub codec: String,
    /// The main file, relative to the home.
    pub file: String,
    pub file_size: u64,
    pub offset: u64,
    /// Records before the point, `meta` included.
    pub records: u64,
    /// The codec's state (opaque).
    pub state: Vec<u8>,
    /// The snapshot digest's saved state at the point.
    pub digest: Vec<u8>,
}

/// One bounded part of a session on its way into the store: a session is
/// never held whole, so sync's memory stays flat in the session's size.
#[derive(Debug, Clone)]
pub enum SessionPart {
    /// The next records, in order.
    Records(Vec<PutRecord>),
    /// New evidence bytes of the file at `path` (relative to the home). A
    /// file's chunks come in order, before its [`SessionPart::File`].
    Evidence {
        path: String,
        generation: Generation,
    },
    /// A file is read: what the archive now keeps of it.
    File(PutFile),
    Tape(PutTape),
    /// The last part.
    End(SessionTail),
}

/// The parts of one session, pulled by the store inside its transaction.
pub trait SessionParts {
    /// The next part; after [`SessionPart::End`] it is not called again. An
    /// error (the codec failed mid-session) rolls the session back.
    fn next_part(&mut self) -> Result<SessionPart, ArchiveError>;
}

/// Which stored records an incoming session keeps, replaces or drops:
/// records are stable across re-reads of the same bytes, so an append
/// costs only its new records.
#[derive(Debug, Default)]
pub struct RecordDiff {
    /// By position: the stored record's row id and digest.
    old: HashMap<i64, (i64, String)>,
    next_seq: i64,
    /// Continued after this many records (see [`RecordDiff::resumed`]).
    resumed_after: Option<i64>,
}

/// What to do with one incoming record.
#[derive(Debug, PartialEq, Eq)]
pub enum RecordChange {
    /// The stored record at this position is the same.
    Unchanged,
    /// New at this position.
    Added,
    /// The stored record (this row id) differs: delete it, insert the new.
    Changed(i64),
}

impl RecordDiff {
    pub fn new(old: HashMap<i64, (i64, String)>) -> RecordDiff {
        RecordDiff { old, next_seq: 0, resumed_after: None }
    }

    /// For a session continued after `records` records: `old` holds record
    /// 0 and those from `records` on; the first record put is 0, the next
    /// ones go on from `records`.
    pub fn resumed(old: HashMap<i64, (i64, String)>, records: u64) -> RecordDiff {
        RecordDiff { old, next_seq: 0, resumed_after: Some(records as i64) }
    }

    /// The next record's position, its digest and what to do with it.
    pub fn next(&mut self, record: &PutRecord, outcome: &mut PutOutcome) -> (i64, String, RecordChange) {
        let seq = self.next_seq;
        self.next_seq = match self.resumed_after {
            Some(after) if seq == 0 => after.max(1),
            _ => seq + 1,
        };
        let sha = hex::encode(sha2::Sha256::digest(record.json.as_bytes()));
        let change = match self.old.get(&seq) {
            Some((_, old_sha)) if *old_sha == sha => RecordChange::Unchanged,
            Some((id, _)) => {
                outcome.records_changed += 1;
                RecordChange::Changed(*id)
            }
            None => {
                outcome.records_added += 1;
                RecordChange::Added
            }
        };
        (seq, sha, change)
    }

    /// The row ids of stored records past the session's new end.
    pub fn removed(&self, outcome: &mut PutOutcome) -> Vec<i64> {
        let gone: Vec<i64> =
            self.old.iter().filter(|(seq, _)| **seq >= self.next_seq).map(|(_, (id, _))| *id).collect();
        outcome.records_removed += gone.len() as u64;
        gone
    }
}

/// What [`ArchiveStore::put_session`] changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PutOutcome {
    pub new_session: bool,
    pub records_added: u64,
    pub records_changed: u64,
    pub records_removed: u64,
    pub evidence_bytes: u64,
}

/// A session as the archive lists it.
#[derive(Debug, Clone, Serialize)]
pub struct ArchivedSession {
    #[serde(skip)]
    pub id: i64,
    pub harness: String,
    pub native_id: String,
    /// The machine the session was synced from, in an archive several
    /// machines share (`None` in the embedded archive: this machine).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    pub home: PathBuf,
    pub locator: String,
    pub codec: String,
    pub native_version: Option<String>,
    pub cwd: Option<String>,
    pub title: Option<String>,
    pub started_at: Option<String>,
    pub updated_at: Option<String>,
    pub records: u64,
    pub snapshot_id: String,
    pub archived_at: String,
}

/// Which archived sessions to list.
#[derive(Debug, Clone, Default)]
pub struct SessionFilter {
    pub harness: Option<String>,
    /// The session's cwd is this directory or lies under it.
    pub cwd: Option<String>,
    pub home: Option<PathBuf>,
    pub limit: Option<usize>,
}

/// The raw evidence of one session: file bytes and database tapes, by path
/// relative to its home.
#[derive(Debug, Default)]
pub struct Evidence {
    pub files: Vec<(String, Vec<u8>)>,
    pub tapes: Vec<(String, Vec<RecordedQuery>)>,
}

/// A full-text query with its filters.
#[derive(Debug, Clone, Default)]
pub struct SearchQuery {
    /// Words (every one must match; `"a phrase"` in quotes; `word*` a prefix).
    pub text: String,
    pub harness: Option<String>,
    pub cwd: Option<String>,
    /// Records at or after this instant (ms since the epoch); a record
    /// without a time counts with its session's.
    pub since_ms: Option<i64>,
    pub kind: Option<String>,
    pub limit: usize,
}

/// One ranked hit.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    pub harness: String,
    pub native_id: String,
    /// As [`ArchivedSession::machine`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    pub home: PathBuf,
    pub cwd: Option<String>,
    pub title: Option<String>,
    pub record_id: String,
    /// Position of the record in its session (0 = meta).
    pub seq: u64,
    pub kind: String,
    pub ts: Option<String>,
    /// The matching text around the match, each match between `[` and `]`
    /// markers given by the caller ([`super::search::MARK_OPEN`]).
    pub snippet: String,
    /// Lower is better: bm25 in the embedded archive, minus `ts_rank_cd`
    /// in PostgreSQL.
    pub rank: f64,
    /// The record's whole indexed text (at most 256 KiB), which the snippet
    /// is cut from: redaction at search time sees a secret's context even
    /// where the snippet cuts it off. Not part of `search --json`.
    #[serde(skip)]
    pub text: String,
}

/// The storage behind the archive. `Send`: sync keeps sessions on a
/// writer thread while the codecs read the next ones.
pub trait ArchiveStore: Send {
    /// Where the archive lives, for messages (never a password).
    fn location(&self) -> String;
    /// The machine this store writes as, in an archive several machines
    /// share; `None` when every session in it is this machine's.
    fn machine(&self) -> Option<&str> {
        None
    }
    /// What the archive holds about `home` (created if new). A shared
    /// store may hold the home for this sync until [`ArchiveStore::home_done`].
    fn known_home(&mut self, home: &Path) -> Result<KnownHome, ArchiveError>;
    /// The sync of a home ended (done or failed): what `known_home` held
    /// for it is released.
    fn home_done(&mut self, home: i64) -> Result<(), ArchiveError> {
        let _ = home;
        Ok(())
    }
    /// Remembers the state of files seen (and not read) by a sync.
    fn put_seen(&mut self, home: i64, files: &[(String, FileState)]) -> Result<(), ArchiveError>;
    /// Remembers a session (or a file) that failed, so that it is retried
    /// only once it changes.
    fn put_failure(&mut self, home: i64, harness: &str, key: &str, failure: &Failure) -> Result<(), ArchiveError>;
    /// Keeps one session: its row, then its parts as `parts` hands them
    /// over (records and their index, new evidence), all or nothing.
    fn put_session(&mut self, head: &SessionHead, parts: &mut dyn SessionParts) -> Result<PutOutcome, ArchiveError>;
    /// The cursor kept for a session, if any.
    fn cursor(&self, home: i64, harness: &str, native_id: &str) -> Result<Option<SessionCursor>, ArchiveError>;
    fn sessions(&self, filter: &SessionFilter) -> Result<Vec<ArchivedSession>, ArchiveError>;
    /// Sessions whose native id is `id` or, if none is, starts with it.
    fn find(&self, id: &str, harness: Option<&str>) -> Result<Vec<ArchivedSession>, ArchiveError>;
    /// The canonical record lines of a session, in order.
    fn records(&self, session: &ArchivedSession) -> Result<Vec<String>, ArchiveError>;
    fn evidence(&self, session: &ArchivedSession) -> Result<Evidence, ArchiveError>;
    fn search(&self, query: &SearchQuery) -> Result<Vec<Hit>, ArchiveError>;
}
