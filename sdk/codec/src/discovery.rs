//! Helpers for `discover`: directory listings and per-file diagnostics.
//!
//! Every file under a harness's session store ends up in exactly one of
//! three places: a session in `Discovery.sessions`; a known auxiliary file
//! the codec passes over on purpose (each codec says which, in a comment
//! where it skips them); or a [`FileProblems`] entry naming it. One bad
//! file never ends a discovery: it becomes a diagnostic and the walk goes
//! on.
//!
//! Unlike [`Diagnostics`], which folds a code and detail seen many times
//! into one entry, file problems keep one entry per file, so each diagnostic
//! names its file (`file: Some(path)`).

use std::collections::BTreeMap;

use crate::diag::{self, Diagnostics};
use crate::errors::fs_kind;
use crate::fs::{Dir, DirEntry, File, FsError};
use crate::sqlite::SqliteError;
use crate::{CodecError, Diagnostic, Discovery, SessionRef, Severity};

/// A file in the store that is neither a session nor a known auxiliary
/// file (an unexpected name, a directory where a file belongs).
pub const UNRECOGNIZED_FILE: &str = "unrecognized-file";
/// A file that could not be opened or read (the detail is the error kind).
pub const UNREADABLE_FILE: &str = "unreadable-file";
/// A file whose first bytes are not the format the name promises.
pub const MALFORMED_HEAD: &str = "malformed-head";
/// A directory of the store that could not be listed.
pub const UNREADABLE_DIRECTORY: &str = "unreadable-directory";
/// A session document that names no session id (its file name stands in).
pub const NO_SESSION_ID: &str = "no-session-id";
/// A session file with no bytes (left over from a crash or a copy).
pub const EMPTY_SESSION_FILE: &str = "empty-session-file";

/// Files named at most; past it one `diagnostics-truncated` entry counts the
/// rest, so a store of a million stray files cannot grow memory unbounded.
pub const MAX_FILES: usize = 1024;

/// Problems with single files, one entry per (file, code).
#[derive(Default)]
pub struct FileProblems {
    entries: BTreeMap<(String, String), Diagnostic>,
    dropped: u32,
}

impl FileProblems {
    pub fn new() -> FileProblems {
        FileProblems::default()
    }

    /// Records that `file` has a problem. `detail` says what is wrong in
    /// words or names a field, a type or an error kind; never content.
    pub fn add(&mut self, code: &str, severity: Severity, file: &str, detail: &str) {
        let key = (file.to_string(), code.to_string());
        if let Some(d) = self.entries.get_mut(&key) {
            d.count = d.count.saturating_add(1);
            return;
        }
        if self.entries.len() >= MAX_FILES {
            self.dropped = self.dropped.saturating_add(1);
            return;
        }
        self.entries.insert(
            key,
            Diagnostic {
                code: code.to_string(),
                severity,
                detail: detail.to_string(),
                count: 1,
                file: Some(file.to_string()),
                offset: None,
            },
        );
    }

    /// A file that is neither a session nor a known auxiliary file;
    /// `expected` says what would have been recognized.
    pub fn unrecognized(&mut self, file: &str, expected: &str) {
        self.add(UNRECOGNIZED_FILE, Severity::Warning, file, expected);
    }

    /// A file that could not be opened or read.
    pub fn unreadable(&mut self, file: &str, error: &FsError) {
        self.add(UNREADABLE_FILE, Severity::Warning, file, fs_kind(error));
    }

    /// A file whose head is not what its name promises; `what` says what
    /// is missing or wrong.
    pub fn malformed_head(&mut self, file: &str, what: &str) {
        self.add(MALFORMED_HEAD, Severity::Warning, file, what);
    }

    /// One whole-document session file as discover places it. `found` is
    /// its session-ref and whether the document named its id (else a
    /// warning naming `id_member`); a document that is no session is a
    /// malformed head, a read that failed an unreadable file.
    pub fn place(
        &mut self,
        file: &str,
        found: Result<(SessionRef, bool), CodecError>,
        id_member: &str,
        sessions: &mut Vec<SessionRef>,
    ) {
        match found {
            Ok((session, named)) => {
                if !named {
                    self.add(NO_SESSION_ID, Severity::Warning, file, id_member);
                }
                sessions.push(session);
            }
            Err(CodecError::Malformed(why)) => self.malformed_head(file, &why),
            Err(e) => self.add(UNREADABLE_FILE, Severity::Warning, file, &crate::errors::detail_of(file, &e)),
        }
    }

    /// A session file with no bytes; `format` names the file kind.
    pub fn empty(&mut self, file: &str, format: &str) {
        self.add(EMPTY_SESSION_FILE, Severity::Info, file, format);
    }

    /// A directory that could not be listed.
    pub fn unreadable_directory(&mut self, dir: &str, error: &FsError) {
        self.add(UNREADABLE_DIRECTORY, Severity::Warning, dir, fs_kind(error));
    }

    /// Opens the session file `locator` (`size` bytes, as listed) and runs
    /// the codec's head `scan` on it. `None` when there is nothing to scan:
    /// the file is empty ([`EMPTY_SESSION_FILE`], `format` naming the kind
    /// of file) or it cannot be opened or read ([`UNREADABLE_FILE`]), both
    /// recorded here.
    pub fn scan_head<H>(
        &mut self,
        home: &Dir,
        locator: &str,
        size: u64,
        format: &str,
        scan: impl FnOnce(&File) -> Result<H, FsError>,
    ) -> Option<H> {
        if size == 0 {
            self.empty(locator, format);
            return None;
        }
        match home.open(locator).and_then(|file| scan(&file)) {
            Ok(head) => Some(head),
            Err(e) => {
                self.unreadable(locator, &e);
                None
            }
        }
    }

    /// Takes over what a helper that reports through [`Diagnostics`] found
    /// about one file (a side file's parser, say): each entry becomes a
    /// problem of its own file, else of `file`.
    pub fn absorb(&mut self, diagnostics: &mut Diagnostics, file: &str) {
        for d in diagnostics.drain() {
            for _ in 0..d.count.max(1) {
                self.add(&d.code, d.severity, d.file.as_deref().unwrap_or(file), &d.detail);
            }
        }
    }

    /// The detail of the first problem recorded, for an `inspect` error.
    pub fn first_detail(&self) -> Option<&str> {
        self.entries.values().next().map(|d| d.detail.as_str())
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.dropped == 0
    }

    /// Everything collected so far, sorted by file.
    pub fn drain(&mut self) -> Vec<Diagnostic> {
        let mut out: Vec<Diagnostic> = std::mem::take(&mut self.entries).into_values().collect();
        if self.dropped > 0 {
            out.push(Diagnostic {
                code: diag::TRUNCATED.to_string(),
                severity: Severity::Warning,
                detail: format!("more than {MAX_FILES} files with problems"),
                count: std::mem::take(&mut self.dropped),
                file: None,
                offset: None,
            });
        }
        out
    }

    /// The `Discovery` of `sessions`, with these file problems and any
    /// store-level `diagnostics` (the file problems first).
    pub fn finish(mut self, sessions: Vec<SessionRef>, mut diagnostics: Diagnostics) -> Discovery {
        let mut all = self.drain();
        all.extend(diagnostics.drain());
        Discovery { sessions, diagnostics: all }
    }
}

/// Code of the warning for a file whose name and content name different
/// sessions.
pub const SESSION_ID_MISMATCH: &str = "session-id-mismatch";

/// The session id of a file in a store that names files by session id.
/// `name_id` is the id the file name gives and `name_is_id` whether it has
/// the shape of one: then it wins, and `true` is returned when the content
/// names another session (worth a [`SESSION_ID_MISMATCH`]). A name without
/// that shape (a renamed copy, `…-compact-001.jsonl`) gives way to the id the
/// content carries; with neither, the name is all there is.
pub fn identify(name_id: &str, name_is_id: bool, content_id: Option<&str>) -> (String, bool) {
    match content_id.filter(|id| !id.is_empty()) {
        Some(id) if !name_is_id => (id.to_string(), false),
        Some(id) => (name_id.to_string(), id != name_id),
        None => (name_id.to_string(), false),
    }
}

/// [`identify`] for a session whose file or folder is named by its id when
/// that name is a UUID: settles `native_id` in place, `true` when the
/// content disagrees with the name.
pub fn identify_uuid_named(native_id: &mut String, content_id: Option<&str>) -> bool {
    let (id, mismatch) = identify(native_id, crate::paths::is_uuid(native_id), content_id);
    *native_id = id;
    mismatch
}

/// A database file that a store's sessions share, with its size and its
/// `-wal`'s: each session's `size`.
pub struct DbFile {
    pub path: String,
    pub size: u64,
}

impl DbFile {
    /// The database at `path` under `home`.
    pub fn stat(home: &Dir, path: &str) -> Result<DbFile, CodecError> {
        let meta = home.stat(path).map_err(|e| crate::errors::fs_error(path, e))?;
        let wal = home.stat(&format!("{path}-wal")).map(|m| m.size).unwrap_or(0);
        Ok(DbFile { path: path.to_string(), size: meta.size + wal })
    }

    /// The database `name` of a listing of `dir`, when it holds one.
    pub fn in_listing(dir: &str, entries: &[DirEntry], name: &str) -> Option<DbFile> {
        let db = entries.iter().find(|e| e.is_file() && e.name == name)?;
        let wal_name = format!("{name}-wal");
        let wal = entries.iter().find(|e| e.is_file() && e.name == wal_name).map_or(0, |e| e.meta.size);
        Some(DbFile { path: format!("{dir}/{name}"), size: db.meta.size + wal })
    }
}

/// A `<database>#<session>` locator, of a store whose databases each hold
/// many sessions. Without `#` it names the database alone, which
/// [`one_session`] accepts when that holds exactly one session (what a path
/// given on the command line resolves to).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbLocator {
    /// The database, relative to the home.
    pub db: String,
    /// The session id after `#`, when given.
    pub session: Option<String>,
}

impl DbLocator {
    /// `locator` parsed: its database must be named `db_name` and stay
    /// below the home (else not-found, "`<locator>`: not `what` locator"),
    /// and a `#` must be followed by a session id.
    pub fn parse(locator: &str, db_name: &str, what: &str) -> Result<DbLocator, CodecError> {
        let (db, session) = match locator.split_once('#') {
            Some((db, session)) => (db, Some(session)),
            None => (locator, None),
        };
        if db.is_empty() || !db.ends_with(db_name) || db.split('/').any(|s| s == "..") {
            return Err(CodecError::NotFound(format!("{locator}: not {what} locator")));
        }
        if session.is_some_and(str::is_empty) {
            return Err(CodecError::NotFound(format!("{locator}: empty session id after '#'")));
        }
        Ok(DbLocator { db: db.to_string(), session: session.map(str::to_string) })
    }

    /// `<db>#<session>`.
    pub fn of(db: &str, session: &str) -> String {
        format!("{db}#{session}")
    }

    /// The session this locator names: `list` lists the sessions of its
    /// database (the one named, else all of them), among which
    /// [`one_session`] picks; `listed` says which sessions are listed.
    pub fn inspect(
        &self,
        home: &Dir,
        list: impl FnOnce(&DbFile, Option<&str>, &mut FileProblems) -> Result<Vec<SessionRef>, SqliteError>,
        listed: &str,
    ) -> Result<SessionRef, CodecError> {
        let db = DbFile::stat(home, &self.db)?;
        let found = list(&db, self.session.as_deref(), &mut FileProblems::new())
            .map_err(|e| crate::errors::sqlite_error(&self.db, e))?;
        one_session(found, &self.db, self.session.as_deref(), listed)
    }
}

/// The sessions of every database, `list` listing one database's. A
/// database that cannot be read is an `unreadable-database` warning naming
/// it; the others are still listed.
pub fn sessions_of(
    dbs: &[DbFile],
    problems: &mut FileProblems,
    mut list: impl FnMut(&DbFile, &mut FileProblems) -> Result<Vec<SessionRef>, SqliteError>,
) -> Vec<SessionRef> {
    let mut sessions = Vec::new();
    for db in dbs {
        match list(db, problems) {
            Ok(found) => sessions.extend(found),
            Err(e) => problems.add("unreadable-database", Severity::Warning, &db.path, crate::errors::sqlite_kind(&e)),
        }
    }
    sessions
}

/// The session a `<database>#<session>` locator names, among the sessions
/// `found` in database `db` (all of them when it names none, which is
/// fine when there is one). `listed` says which sessions are listed, for
/// the error (`"with messages"`).
pub fn one_session(
    mut found: Vec<SessionRef>,
    db: &str,
    session: Option<&str>,
    listed: &str,
) -> Result<SessionRef, CodecError> {
    match (found.len(), session) {
        (1, _) => Ok(found.remove(0)),
        (0, Some(id)) => Err(CodecError::NotFound(format!("{db}: no session {id} {listed}"))),
        (n, _) => Err(CodecError::NotFound(format!("{db}: holds {n} sessions; name one as {db}#<session-id>"))),
    }
}

/// The entries of `path` under `home`. `None` when the directory does not
/// exist (the harness never created it: nothing to report) or cannot be
/// listed (an `unreadable-directory` problem naming it).
pub fn list(home: &Dir, path: &str, problems: &mut FileProblems) -> Option<Vec<DirEntry>> {
    match home.list(path) {
        Ok(entries) => Some(entries),
        Err(FsError::NotFound(_)) => None,
        Err(e) => {
            problems.unreadable_directory(path, &e);
            None
        }
    }
}

/// [`list`] for a reader, whose diagnostics go out with its batches: an
/// unlistable directory is an aggregated `unreadable-directory` warning.
pub fn list_or_note(home: &Dir, path: &str, diags: &mut Diagnostics) -> Option<Vec<DirEntry>> {
    match home.list(path) {
        Ok(entries) => Some(entries),
        Err(FsError::NotFound(_)) => None,
        Err(e) => {
            diags.add(UNREADABLE_DIRECTORY, Severity::Warning, fs_kind(&e), Some(path), None);
            None
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn one_entry_per_file_each_naming_it() {
        let mut problems = FileProblems::new();
        problems.unrecognized("s/a.txt", "not a session file name");
        problems.unrecognized("s/b.txt", "not a session file name");
        problems.unrecognized("s/b.txt", "not a session file name");
        problems.malformed_head("s/c.jsonl", "first line is not JSON");
        problems.unreadable("s/d.jsonl", &FsError::Denied("/abs/s/d.jsonl".into()));
        let all = problems.finish(Vec::new(), Diagnostics::new()).diagnostics;
        let got: Vec<(&str, &str, &str, u32)> =
            all.iter().map(|d| (d.code.as_str(), d.file.as_deref().unwrap(), d.detail.as_str(), d.count)).collect();
        assert_eq!(
            got,
            [
                (UNRECOGNIZED_FILE, "s/a.txt", "not a session file name", 1),
                (UNRECOGNIZED_FILE, "s/b.txt", "not a session file name", 2),
                (MALFORMED_HEAD, "s/c.jsonl", "first line is not JSON", 1),
                (UNREADABLE_FILE, "s/d.jsonl", "denied", 1),
            ]
        );
        assert!(all.iter().all(|d| matches!(d.severity, Severity::Warning)));
    }

    #[test]
    fn bounded_and_merged_with_store_diagnostics() {
        let mut problems = FileProblems::new();
        for i in 0..MAX_FILES + 5 {
            problems.unrecognized(&format!("f{i}"), "x");
        }
        let mut store = Diagnostics::new();
        store.add("not-in-index", Severity::Info, "index row", None, None);
        let all = problems.finish(Vec::new(), store).diagnostics;
        assert_eq!(all.len(), MAX_FILES + 2);
        let truncated = all.iter().find(|d| d.code == diag::TRUNCATED).unwrap();
        assert_eq!(truncated.count, 5);
        assert_eq!(all.last().unwrap().code, "not-in-index");
    }

    #[test]
    fn names_that_are_ids_win_and_other_names_give_way_to_the_content() {
        assert_eq!(identify("a1", true, Some("a1")), ("a1".into(), false));
        assert_eq!(identify("a1", true, Some("b2")), ("a1".into(), true));
        assert_eq!(identify("backup", false, Some("b2")), ("b2".into(), false));
        assert_eq!(identify("backup", false, None), ("backup".into(), false));
        assert_eq!(identify("backup", false, Some("")), ("backup".into(), false));
    }

    #[test]
    fn scan_head_reports_empty_and_unreadable_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.jsonl"), b"{}\n").unwrap();
        let home = Dir::native(dir.path());
        let mut problems = FileProblems::new();
        assert_eq!(problems.scan_head(&home, "s.jsonl", 3, "jsonl", |f| Ok(f.size())), Some(3));
        assert_eq!(problems.scan_head(&home, "e.jsonl", 0, "jsonl", |f| Ok(f.size())), None);
        assert_eq!(problems.scan_head(&home, "gone.jsonl", 9, "jsonl", |f| Ok(f.size())), None);
        let failing = problems.scan_head(&home, "s.jsonl", 3, "jsonl", |_| Err::<u64, _>(FsError::Io("x".into())));
        assert_eq!(failing, None);
        assert_eq!(problems.first_detail(), Some("jsonl"));
        let got: Vec<(String, String)> =
            problems.drain().into_iter().map(|d| (d.code, d.file.unwrap() + " " + &d.detail)).collect();
        assert_eq!(
            got,
            [
                (EMPTY_SESSION_FILE.to_string(), "e.jsonl jsonl".to_string()),
                (UNREADABLE_FILE.to_string(), "gone.jsonl not-found".to_string()),
                (UNREADABLE_FILE.to_string(), "s.jsonl io".to_string()),
            ]
        );
    }

    #[test]
    fn absorbed_diagnostics_keep_their_file() {
        let mut diags = Diagnostics::new();
        diags.add("malformed-file", Severity::Warning, "json", Some("a/state.json"), None);
        diags.add("unreadable-file", Severity::Warning, "io", None, None);
        let mut problems = FileProblems::new();
        problems.absorb(&mut diags, "a/summary.json");
        assert!(diags.is_empty());
        let got: Vec<(String, String)> = problems.drain().into_iter().map(|d| (d.code, d.file.unwrap())).collect();
        assert_eq!(
            got,
            [("malformed-file".into(), "a/state.json".into()), ("unreadable-file".into(), "a/summary.json".into())]
        );
    }

    #[test]
    fn list_reports_unreadable_directories_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("file"), "x").unwrap();
        let home = Dir::native(dir.path());
        let mut problems = FileProblems::new();
        assert!(list(&home, "missing", &mut problems).is_none());
        assert!(problems.is_empty(), "a store that does not exist is not a problem");
        assert_eq!(list(&home, "", &mut problems).unwrap().len(), 1);
        // Listing a plain file fails with an I/O error, not NotFound.
        assert!(list(&home, "file", &mut problems).is_none());
        let all = problems.drain();
        assert_eq!(all.len(), 1, "{all:?}");
        assert_eq!((all[0].code.as_str(), all[0].file.as_deref()), (UNREADABLE_DIRECTORY, Some("file")));
    }
}
