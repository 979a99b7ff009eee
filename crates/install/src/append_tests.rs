//! `append-file`: refusals leave the file as it was, an undone install
//! truncates it back to its exact original bytes, and a kill at any point
//! is recovered (rolled back while staging, completed while committing).

use std::path::PathBuf;

use crate::journal::{self, AppendStep, Journal, JournalFile, State};
use crate::{InstallError, InstallOp, InstallPlan, RecoveryOutcome, execute, files, recover, sha256_hex};

const ORIGINAL: &[u8] = b"\n# aider chat started at 2026-12-01 10:00:00\n\n#### hello  \n\nanswer\n\n";
const ADDED: &[u8] = b"\n# aider chat started at 2026-12-07 12:00:00\n\n#### new session  \n\nnew answer\n\n";

struct Fixture {
    home: tempfile::TempDir,
    journal: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let fx = Fixture { home: tempfile::tempdir().unwrap(), journal: tempfile::tempdir().unwrap() };
        std::fs::create_dir(fx.home.path().join("project")).unwrap();
        std::fs::write(fx.target(), ORIGINAL).unwrap();
        fx
    }

    fn target(&self) -> PathBuf {
        self.home.path().join("project/.aider.chat.history.md")
    }

    fn bytes(&self) -> Vec<u8> {
        std::fs::read(self.target()).unwrap()
    }

    /// Names in the project directory other than the history.
    fn others(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.home.path().join("project"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != ".aider.chat.history.md")
            .collect();
        names.sort();
        names
    }
}

fn append(length: u64, sha256: &str) -> InstallOp {
    InstallOp::AppendFile {
        path: "project/.aider.chat.history.md".into(),
        bytes: ADDED.to_vec(),
        expect_length: length,
        expect_sha256: sha256.into(),
    }
}

fn plan(operations: Vec<InstallOp>) -> InstallPlan {
    InstallPlan { native_id: "s".into(), operations, resume_command: None }
}

fn expected() -> Vec<u8> {
    [ORIGINAL, ADDED].concat()
}

#[test]
fn an_append_keeps_the_original_bytes_as_its_prefix() {
    let fx = Fixture::new();
    let applied =
        execute(&plan(vec![append(ORIGINAL.len() as u64, &sha256_hex(ORIGINAL))]), fx.home.path(), fx.journal.path())
            .unwrap();
    assert_eq!(fx.bytes(), expected());
    assert_eq!(applied.appended_files.len(), 1);
    assert_eq!(applied.appended_files[0].original_length, ORIGINAL.len() as u64);
    assert_eq!(applied.appended_files[0].appended, ADDED.len() as u64);
    assert!(fx.others().is_empty(), "temporary files left: {:?}", fx.others());
    assert!(journal::pending(fx.journal.path()).unwrap().is_empty());
}

#[test]
fn a_changed_file_is_refused_and_left_unchanged_with_the_rest_of_the_plan() {
    let fx = Fixture::new();
    let create = InstallOp::CreateFile { path: "project/other.md".into(), bytes: b"x".to_vec() };
    let cases = [
        // Another sha256 of the same length: the file changed since the plan.
        (append(ORIGINAL.len() as u64, &sha256_hex(b"something else")), "sha256"),
        // Another length (Aider appended meanwhile).
        (append(ORIGINAL.len() as u64 - 1, &sha256_hex(&ORIGINAL[..ORIGINAL.len() - 1])), "bytes, not the"),
    ];
    for (op, says) in cases {
        let error = execute(&plan(vec![create.clone(), op]), fx.home.path(), fx.journal.path()).unwrap_err();
        assert!(matches!(error, InstallError::AppendChanged { .. }), "{error}");
        assert!(error.to_string().contains(says) && error.to_string().contains(".aider.chat.history.md"), "{error}");
        assert_eq!(fx.bytes(), ORIGINAL);
        assert!(fx.others().is_empty(), "{:?}", fx.others());
    }
    let error =
        execute(&plan(vec![append(ORIGINAL.len() as u64, "ABC")]), fx.home.path(), fx.journal.path()).unwrap_err();
    assert!(matches!(error, InstallError::AppendDigest { .. }), "{error}");
    let missing = InstallOp::AppendFile {
        path: "project/none.md".into(),
        bytes: b"x".to_vec(),
        expect_length: 0,
        expect_sha256: sha256_hex(b""),
    };
    let error = execute(&plan(vec![missing]), fx.home.path(), fx.journal.path()).unwrap_err();
    assert!(matches!(error, InstallError::AppendMissing(_)), "{error}");
    // The path rules of create-file.
    for path in ["../x", "/etc/passwd", "project/../project/.aider.chat.history.md"] {
        let op = InstallOp::AppendFile {
            path: path.into(),
            bytes: b"x".to_vec(),
            expect_length: 0,
            expect_sha256: sha256_hex(b""),
        };
        let error = execute(&plan(vec![op]), fx.home.path(), fx.journal.path()).unwrap_err();
        assert!(matches!(error, InstallError::InvalidPath { .. }), "{path}: {error}");
    }
    // Twice in one plan.
    let twice = plan(vec![append(ORIGINAL.len() as u64, &sha256_hex(ORIGINAL)); 2]);
    assert!(matches!(execute(&twice, fx.home.path(), fx.journal.path()).unwrap_err(), InstallError::Conflict { .. }));
    assert_eq!(fx.bytes(), ORIGINAL);
    assert!(journal::pending(fx.journal.path()).unwrap().is_empty());
}

#[test]
fn an_append_never_follows_a_link() {
    let fx = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("victim"), ORIGINAL).unwrap();
    std::os::unix::fs::symlink(outside.path().join("victim"), fx.home.path().join("project/link.md")).unwrap();
    std::os::unix::fs::symlink(outside.path(), fx.home.path().join("out")).unwrap();
    for path in ["project/link.md", "out/victim"] {
        let op = InstallOp::AppendFile {
            path: path.into(),
            bytes: b"x".to_vec(),
            expect_length: ORIGINAL.len() as u64,
            expect_sha256: sha256_hex(ORIGINAL),
        };
        let error = execute(&plan(vec![op]), fx.home.path(), fx.journal.path()).unwrap_err();
        assert!(matches!(error, InstallError::Symlink(_)), "{path}: {error}");
    }
    assert_eq!(std::fs::read(outside.path().join("victim")).unwrap(), ORIGINAL);
}

/// A database commit that fails after the append was written undoes the
/// whole install: the history is truncated back to its exact bytes.
#[test]
fn an_install_undone_after_the_append_restores_the_exact_original_bytes() {
    let fx = Fixture::new();
    let db = fx.home.path().join("store.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("CREATE TABLE t (a TEXT); INSERT INTO t VALUES ('old');").unwrap();
    // A reader holding its shared lock makes the install's COMMIT fail
    // (busy) after the append is written.
    let reader = rusqlite::Connection::open(&db).unwrap();
    reader.execute_batch("BEGIN").unwrap();
    let _: i64 = reader.query_row("SELECT count(*) FROM t", [], |r| r.get(0)).unwrap();
    let rows = InstallOp::InsertRows {
        database: "store.db".into(),
        table: "t".into(),
        columns: vec!["a".into()],
        rows: vec![vec![crate::SqlValue::Text("new".into())]],
    };
    let error = execute(
        &plan(vec![append(ORIGINAL.len() as u64, &sha256_hex(ORIGINAL)), rows]),
        fx.home.path(),
        fx.journal.path(),
    )
    .unwrap_err();
    assert!(matches!(error, InstallError::Sqlite { .. }), "{error}");
    assert_eq!(fx.bytes(), ORIGINAL, "the history is back to its original bytes");
    assert!(fx.others().is_empty(), "{:?}", fx.others());
    reader.execute_batch("COMMIT").unwrap();
    let count: i64 = conn.query_row("SELECT count(*) FROM t", [], |r| r.get(0)).unwrap();
    assert_eq!(count, 1);
    assert!(journal::pending(fx.journal.path()).unwrap().is_empty());
}

/// Writes the journal a kill would have left, with the append's bytes
/// staged and `written` of them already after the original end.
fn killed(fx: &Fixture, state: State, written: usize) -> String {
    let file = JournalFile::create(fx.journal.path()).unwrap();
    let id = file.id().to_string();
    let target = fx.target();
    let step = AppendStep {
        temp: files::temp_path(&target, &id),
        target: target.clone(),
        original_length: ORIGINAL.len() as u64,
        original_sha256: sha256_hex(ORIGINAL),
        length: ADDED.len() as u64,
        sha256: sha256_hex(ADDED),
    };
    std::fs::write(&step.temp, ADDED).unwrap();
    std::fs::write(&target, [ORIGINAL, &ADDED[..written]].concat()).unwrap();
    let journal = Journal {
        format: journal::FORMAT,
        id: id.clone(),
        home: fx.home.path().to_path_buf(),
        native_id: "s".into(),
        state,
        created_dirs: Vec::new(),
        files: Vec::new(),
        databases: Vec::new(),
        json: Vec::new(),
        appends: vec![step],
    };
    file.write(&journal).unwrap();
    // The process dies: its lock goes, the journal stays.
    drop(file);
    id
}

#[test]
fn a_kill_while_committing_is_completed_by_recovery_whatever_was_written() {
    for written in [0, 1, ADDED.len() / 2, ADDED.len()] {
        let fx = Fixture::new();
        let id = killed(&fx, State::Committing, written);
        let recovered = recover(fx.journal.path()).unwrap();
        assert_eq!(recovered.len(), 1);
        assert_eq!(recovered[0].id, id);
        assert_eq!(recovered[0].outcome, RecoveryOutcome::RolledForward, "{:?}", recovered[0].problems);
        assert!(recovered[0].problems.is_empty(), "{:?}", recovered[0].problems);
        assert_eq!(fx.bytes(), expected(), "{written} bytes written before the kill");
        assert!(fx.others().is_empty(), "{:?}", fx.others());
        assert!(journal::pending(fx.journal.path()).unwrap().is_empty());
        // Idempotent: nothing left to do.
        assert!(recover(fx.journal.path()).unwrap().is_empty());
        assert_eq!(fx.bytes(), expected());
    }
}

#[test]
fn a_kill_while_staging_is_rolled_back_to_the_original_bytes() {
    for written in [0, ADDED.len() / 2, ADDED.len()] {
        let fx = Fixture::new();
        killed(&fx, State::Staging, written);
        let recovered = recover(fx.journal.path()).unwrap();
        assert_eq!(recovered[0].outcome, RecoveryOutcome::RolledBack);
        assert!(recovered[0].problems.is_empty(), "{:?}", recovered[0].problems);
        assert_eq!(fx.bytes(), ORIGINAL, "{written} bytes written before the kill");
        assert!(fx.others().is_empty(), "{:?}", fx.others());
    }
}

#[test]
fn recovery_leaves_a_file_that_changed_meanwhile_alone() {
    let fx = Fixture::new();
    killed(&fx, State::Committing, 0);
    // Someone rewrote the history after the kill.
    let theirs = b"\n# aider chat started at 2026-12-07 13:00:00\n\nrewritten\n".to_vec();
    std::fs::write(fx.target(), &theirs).unwrap();
    let recovered = recover(fx.journal.path()).unwrap();
    assert_eq!(recovered[0].outcome, RecoveryOutcome::RolledForward);
    assert_eq!(recovered[0].problems.len(), 1, "{:?}", recovered[0].problems);
    assert!(recovered[0].problems[0].contains("nothing was appended"), "{:?}", recovered[0].problems);
    assert_eq!(fx.bytes(), theirs);
    assert!(fx.others().is_empty(), "{:?}", fx.others());

    // Rolled back, someone's bytes after ours stay: nothing is truncated.
    let fx = Fixture::new();
    killed(&fx, State::Staging, ADDED.len());
    let mut appended_later = fx.bytes();
    appended_later.extend_from_slice(b"\n# aider chat started at 2026-12-07 14:00:00\n");
    std::fs::write(fx.target(), &appended_later).unwrap();
    let recovered = recover(fx.journal.path()).unwrap();
    assert_eq!(recovered[0].problems.len(), 1, "{:?}", recovered[0].problems);
    assert_eq!(fx.bytes(), appended_later);
}

#[test]
fn a_torn_append_is_told_from_other_bytes() {
    let fx = Fixture::new();
    let step = AppendStep {
        temp: PathBuf::from("/nonexistent"),
        target: fx.target(),
        original_length: ORIGINAL.len() as u64,
        original_sha256: sha256_hex(ORIGINAL),
        length: ADDED.len() as u64,
        sha256: sha256_hex(ADDED),
    };
    let at = |bytes: &[u8], staged: Option<&[u8]>| {
        std::fs::write(fx.target(), bytes).unwrap();
        let file = crate::append::open(&fx.target(), false).unwrap();
        crate::append::progress(&file, &step, staged).unwrap()
    };
    use crate::append::Progress;
    assert_eq!(at(ORIGINAL, Some(ADDED)), Progress::Original);
    assert_eq!(at(&[ORIGINAL, &ADDED[..5]].concat(), Some(ADDED)), Progress::Partial(5));
    assert_eq!(at(&expected(), Some(ADDED)), Progress::Done);
    assert_eq!(at(&expected(), None), Progress::Done);
    assert!(matches!(at(&[ORIGINAL, b"other"].concat(), Some(ADDED)), Progress::Changed(_)));
    assert!(matches!(at(&ORIGINAL[1..], Some(ADDED)), Progress::Changed(_)));
    assert!(matches!(at(&[b"X", &ORIGINAL[1..]].concat(), Some(ADDED)), Progress::Changed(_)));
}
