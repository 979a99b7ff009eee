//! Installing plans (`trajhost::install`): every operation and every
//! refusal against real SQLite and JSON files, with the home byte-identical
//! after each refusal; then `prepare` and `plugin install` killed with
//! SIGKILL at many points, the home (or registry) found untouched or
//! complete every time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rusqlite::Connection;
use sha2::{Digest, Sha256};
use trajhost::install::{self, InstallError, InstallOp, InstallPlan, SqlValue, TableRows};

use crate::common::*;

/// Every entry under `dir`: directories, files (mode + sha256), links.
fn tree(dir: &Path) -> BTreeMap<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(dir).unwrap().to_path_buf();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() {
                out.insert(rel, format!("link {}", std::fs::read_link(&path).unwrap().display()));
            } else if meta.is_dir() {
                out.insert(rel, "dir".into());
                stack.push(path);
            } else {
                let hash = hex::encode(Sha256::digest(std::fs::read(&path).unwrap()));
                out.insert(rel, format!("{:o} {hash}", meta.permissions().mode() & 0o7777));
            }
        }
    }
    out
}

/// Names of files left in a journal directory.
fn leftovers(dir: &Path) -> Vec<String> {
    match std::fs::read_dir(dir) {
        Ok(entries) => entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect(),
        Err(_) => Vec::new(),
    }
}

struct Fixture {
    home: tempfile::TempDir,
    journal: tempfile::TempDir,
    outside: tempfile::TempDir,
}

const KIMI_JSON: &str = "{\n  \"work_dirs\": [\n    {\n      \"path\": \"/old\",\n      \"kaos\": \"local\"\n    }\n  ],\n  \"version\": 1\n}\n";

/// A home with a rollback-journal database (with a trigger), a WAL
/// database without rowids, a JSON index, a plain file and a link out.
fn fixture() -> Fixture {
    let fx = Fixture {
        home: tempfile::tempdir().unwrap(),
        journal: tempfile::tempdir().unwrap(),
        outside: tempfile::tempdir().unwrap(),
    };
    let home = fx.home.path();
    std::fs::create_dir(home.join("sessions")).unwrap();
    let db = Connection::open(home.join("index.db")).unwrap();
    db.execute_batch(
        "CREATE TABLE threads (id TEXT PRIMARY KEY, path TEXT NOT NULL, stamp INTEGER, stamp_ms INTEGER, valid INTEGER NOT NULL DEFAULT 0);
         CREATE TRIGGER threads_ms AFTER INSERT ON threads BEGIN UPDATE threads SET stamp_ms = NEW.stamp * 1000 WHERE id = NEW.id; END;
         CREATE TRIGGER threads_unchecked AFTER INSERT ON threads BEGIN UPDATE threads SET valid = 0 WHERE id = NEW.id; END;
         INSERT INTO threads (id, path, stamp) VALUES ('old', '/x', 1);",
    )
    .unwrap();
    drop(db);
    let wal = Connection::open(home.join("wal.db")).unwrap();
    wal.execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE items (k TEXT PRIMARY KEY, v BLOB) WITHOUT ROWID;")
        .unwrap();
    drop(wal);
    assert!(!home.join("wal.db-wal").exists(), "closing the last connection removes the WAL");
    std::fs::write(home.join("kimi.json"), KIMI_JSON).unwrap();
    std::fs::write(home.join("plain.txt"), "hello").unwrap();
    std::os::unix::fs::symlink(fx.outside.path(), home.join("link")).unwrap();
    std::fs::write(fx.outside.path().join("artifact.bin"), trajhost_unpack::testkit::noise(1 << 20)).unwrap();
    fx
}

fn plan(operations: Vec<InstallOp>) -> InstallPlan {
    InstallPlan { native_id: "test-session".into(), operations, resume_command: None }
}

fn create(path: &str, bytes: &[u8]) -> InstallOp {
    InstallOp::CreateFile { path: path.into(), bytes: bytes.to_vec() }
}

fn text(s: &str) -> SqlValue {
    SqlValue::Text(s.into())
}

fn insert(database: &str, table: &str, columns: &[&str], rows: Vec<Vec<SqlValue>>) -> InstallOp {
    InstallOp::InsertRows {
        database: database.into(),
        table: table.into(),
        columns: columns.iter().map(|c| c.to_string()).collect(),
        rows,
    }
}

fn json_entry(
    path: &str,
    pointer: &str,
    key: Option<&str>,
    match_member: Option<&str>,
    value: &str,
    initial: Option<&str>,
) -> InstallOp {
    InstallOp::AddJsonEntry {
        path: path.into(),
        pointer: pointer.into(),
        key: key.map(Into::into),
        match_member: match_member.map(Into::into),
        value: value.into(),
        initial: initial.map(Into::into),
    }
}

fn database(path: &str, schema: &[&str], user_version: Option<i64>, tables: Vec<TableRows>) -> InstallOp {
    InstallOp::CreateDatabase {
        path: path.into(),
        schema: schema.iter().map(|s| s.to_string()).collect(),
        user_version,
        tables,
    }
}

/// Refused by validation and by execution alike, with nothing changed in
/// the home or outside it, and no journal left.
fn refused(fx: &Fixture, plan: &InstallPlan) -> InstallError {
    let (home, outside) = (tree(fx.home.path()), tree(fx.outside.path()));
    let validated = install::validate(plan, fx.home.path()).expect_err("validation must refuse");
    let executed = install::execute(plan, fx.home.path(), fx.journal.path()).expect_err("execution must refuse");
    assert_eq!(validated.to_string(), executed.to_string());
    assert_eq!(home, tree(fx.home.path()), "a refused plan changed the home: {validated}");
    assert_eq!(outside, tree(fx.outside.path()), "a refused plan changed a directory outside the home");
    assert!(leftovers(fx.journal.path()).is_empty(), "journal left: {:?}", leftovers(fx.journal.path()));
    validated
}

/// Passes validation but fails while applying: undone, nothing changed.
fn failed_while_applying(fx: &Fixture, plan: &InstallPlan) -> InstallError {
    let home = tree(fx.home.path());
    install::validate(plan, fx.home.path()).expect("validation passes");
    let error = install::execute(plan, fx.home.path(), fx.journal.path()).expect_err("execution must fail");
    assert_eq!(home, tree(fx.home.path()), "a failed install changed the home: {error}");
    assert!(leftovers(fx.journal.path()).is_empty(), "journal left: {:?}", leftovers(fx.journal.path()));
    error
}

fn executed(fx: &Fixture, plan: &InstallPlan) -> install::Applied {
    let home = tree(fx.home.path());
    let validated = install::validate(plan, fx.home.path()).expect("validation passes");
    assert_eq!(home, tree(fx.home.path()), "validation changed the home");
    let applied = install::execute(plan, fx.home.path(), fx.journal.path()).expect("execution succeeds");
    assert_eq!(validated, applied, "validation and execution disagree on what the plan does");
    assert!(leftovers(fx.journal.path()).is_empty(), "journal left: {:?}", leftovers(fx.journal.path()));
    let temps: Vec<_> =
        tree(fx.home.path()).into_keys().filter(|p| p.to_string_lossy().contains(".trajhost-")).collect();
    assert!(temps.is_empty(), "temporary files left: {temps:?}");
    applied
}

#[test]
fn new_files_are_created_with_their_directories_and_never_overwritten() {
    let fx = fixture();
    let home = fx.home.path().canonicalize().unwrap();
    let before = tree(&home);
    let source = fx.outside.path().join("artifact.bin");
    let plan = plan(vec![
        create("sessions/2026/01/02/a.jsonl", b"{\"a\":1}\n"),
        InstallOp::CopyFile { source: source.clone(), path: "copied/b.bin".into() },
    ]);
    let applied = executed(&fx, &plan);
    assert_eq!(applied.created_files, [home.join("sessions/2026/01/02/a.jsonl"), home.join("copied/b.bin")]);
    assert_eq!(std::fs::read(home.join("sessions/2026/01/02/a.jsonl")).unwrap(), b"{\"a\":1}\n");
    assert_eq!(std::fs::read(home.join("copied/b.bin")).unwrap(), std::fs::read(&source).unwrap());
    let mut added: Vec<PathBuf> = tree(&home).into_keys().filter(|p| !before.contains_key(p)).collect();
    added.sort();
    let expected: Vec<PathBuf> = [
        "copied",
        "copied/b.bin",
        "sessions/2026",
        "sessions/2026/01",
        "sessions/2026/01/02",
        "sessions/2026/01/02/a.jsonl",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    assert_eq!(added, expected);

    let error = refused(&fx, &plan);
    assert!(
        matches!(error, InstallError::AlreadyExists(ref p) if *p == home.join("sessions/2026/01/02/a.jsonl")),
        "{error}"
    );
}

#[test]
fn paths_that_leave_the_home_or_overwrite_are_refused() {
    let fx = fixture();
    let home = fx.home.path().canonicalize().unwrap();
    for bad in ["/etc/passwd", "../x", "a/../../x", "", "a//b", "a/", "./a", "a\0b"] {
        let error = refused(&fx, &plan(vec![create(bad, b"x")]));
        assert!(matches!(error, InstallError::InvalidPath { ref path, .. } if path == bad), "{bad:?}: {error}");
    }
    for existing in ["plain.txt", "sessions", "link", "index.db"] {
        let error = refused(&fx, &plan(vec![create(existing, b"x")]));
        assert!(
            matches!(error, InstallError::AlreadyExists(ref p) if *p == home.join(existing)),
            "{existing}: {error}"
        );
        assert!(error.to_string().contains("never overwrites"), "{error}");
    }
    let error = refused(&fx, &plan(vec![create("link/escaped.txt", b"x")]));
    assert!(matches!(error, InstallError::Symlink(ref p) if *p == home.join("link")), "{error}");
    let error = refused(&fx, &plan(vec![create("plain.txt/x", b"x")]));
    assert!(matches!(error, InstallError::NotADirectory(ref p) if *p == home.join("plain.txt")), "{error}");
    let error = refused(&fx, &plan(vec![create("new/a", b"1"), create("new/a", b"2")]));
    assert!(matches!(error, InstallError::Conflict { .. }), "{error}");
    let error = refused(&fx, &plan(vec![create("new/d", b"1"), create("new/d/e", b"2")]));
    assert!(matches!(error, InstallError::Conflict { ref path, .. } if *path == home.join("new/d")), "{error}");
    // A good first operation does not survive a refused last one.
    let error = refused(&fx, &plan(vec![create("fine/a", b"1"), create("../evil", b"2")]));
    assert!(matches!(error, InstallError::InvalidPath { .. }), "{error}");
    let error = refused(&fx, &plan(vec![InstallOp::CopyFile { source: "relative.bin".into(), path: "c".into() }]));
    assert!(matches!(error, InstallError::Source { .. }), "{error}");
    let missing = fx.outside.path().join("missing.bin");
    let error = refused(&fx, &plan(vec![InstallOp::CopyFile { source: missing, path: "c".into() }]));
    assert!(matches!(error, InstallError::Source { .. }), "{error}");

    let gone = fx.home.path().join("no-such-home");
    let error = install::validate(&plan(vec![create("a", b"x")]), &gone).unwrap_err();
    assert!(matches!(error, InstallError::HomeMissing(_)) && error.to_string().contains("does not exist"), "{error}");
}

fn rows(db: &Path, sql: &str) -> Vec<Vec<rusqlite::types::Value>> {
    let conn = Connection::open(db).unwrap();
    let mut statement = conn.prepare(sql).unwrap();
    let width = statement.column_count();
    statement.query_map([], |row| (0..width).map(|i| row.get(i)).collect()).unwrap().map(Result::unwrap).collect()
}

#[test]
fn rows_go_into_existing_databases() {
    use rusqlite::types::Value as V;
    let fx = fixture();
    let home = fx.home.path().canonicalize().unwrap();
    let plan = plan(vec![
        insert(
            "index.db",
            "threads",
            &["id", "path", "stamp", "valid"],
            vec![
                vec![text("new1"), text("/a"), SqlValue::Integer(5), SqlValue::Integer(1)],
                vec![text("new2"), SqlValue::Null, SqlValue::Integer(6), text("1")],
            ],
        ),
        insert("wal.db", "items", &["k", "v"], vec![vec![text("k"), SqlValue::Blob(vec![0, 159, 146, 150])]]),
    ]);
    // NOT NULL on threads.path: the second row fails inside the
    // transaction, and the first row and the WAL insert are undone too.
    let error = failed_while_applying(&fx, &plan);
    assert!(
        matches!(error, InstallError::Sqlite { ref path, ref message } if *path == home.join("index.db") && message.contains("NOT NULL")),
        "{error}"
    );

    let mut plan = plan;
    if let InstallOp::InsertRows { rows, .. } = &mut plan.operations[0] {
        rows[1][1] = text("/b");
    }
    let applied = executed(&fx, &plan);
    assert_eq!(
        applied.inserted_rows,
        [(home.join("index.db"), "threads".to_string(), 2), (home.join("wal.db"), "items".to_string(), 1)]
    );
    assert_eq!(
        rows(&home.join("index.db"), "SELECT id, path, stamp_ms, valid FROM threads ORDER BY id"),
        // Rows are stored as given: `valid`, which a trigger resets on
        // insert, is set back (the text "1" is stored as the column's
        // affinity makes it); `stamp_ms`, not given, keeps what the other
        // trigger computed; the row that was there keeps its 0.
        [
            vec![V::Text("new1".into()), V::Text("/a".into()), V::Integer(5000), V::Integer(1)],
            vec![V::Text("new2".into()), V::Text("/b".into()), V::Integer(6000), V::Integer(1)],
            vec![V::Text("old".into()), V::Text("/x".into()), V::Integer(1000), V::Integer(0)],
        ]
    );
    assert_eq!(
        rows(&home.join("wal.db"), "SELECT k, v FROM items"),
        [vec![V::Text("k".into()), V::Blob(vec![0, 159, 146, 150])]]
    );
    assert!(!home.join("wal.db-wal").exists() && !home.join("index.db-journal").exists());
}

#[test]
fn bad_inserts_are_refused() {
    let fx = fixture();
    let home = fx.home.path().canonicalize().unwrap();
    let row = || vec![vec![text("n"), text("/n")]];
    let error = refused(&fx, &plan(vec![insert("missing.db", "threads", &["id", "path"], row())]));
    assert!(matches!(error, InstallError::MissingDatabase(ref p) if *p == home.join("missing.db")), "{error}");
    let error = refused(&fx, &plan(vec![insert("kimi.json", "threads", &["id", "path"], row())]));
    assert!(error.to_string().contains("not a SQLite database"), "{error}");
    let error = refused(&fx, &plan(vec![insert("index.db", "threads; DROP TABLE threads", &["id", "path"], row())]));
    assert!(matches!(error, InstallError::InvalidIdentifier { ref name, .. } if name.contains("DROP")), "{error}");
    let error = refused(&fx, &plan(vec![insert("index.db", "threads", &["id", "path\""], row())]));
    assert!(matches!(error, InstallError::InvalidIdentifier { .. }), "{error}");
    let error = refused(&fx, &plan(vec![insert("index.db", "threads", &["id", "path"], vec![vec![text("only one")]])]));
    assert!(matches!(error, InstallError::RowWidth { found: 1, expected: 2, .. }), "{error}");
    let error = refused(&fx, &plan(vec![insert("index.db", "nope", &["id", "path"], row())]));
    assert!(error.to_string().contains("has no table nope"), "{error}");
    let error = refused(&fx, &plan(vec![insert("index.db", "threads", &["id", "nope"], row())]));
    assert!(error.to_string().contains("has no column nope"), "{error}");
    let error = refused(&fx, &plan(vec![insert("link/x.db", "threads", &["id", "path"], row())]));
    assert!(matches!(error, InstallError::Symlink(_)), "{error}");
    // A database the same plan creates does not exist yet.
    let error = refused(
        &fx,
        &plan(vec![
            database("new.db", &["CREATE TABLE threads (id TEXT, path TEXT)"], None, vec![]),
            insert("new.db", "threads", &["id", "path"], row()),
        ]),
    );
    assert!(matches!(error, InstallError::MissingDatabase(_)), "{error}");
    // A constraint only the transaction sees: the new file goes too.
    let error = failed_while_applying(
        &fx,
        &plan(vec![
            create("sessions/dup.jsonl", b"x"),
            insert("index.db", "threads", &["id", "path"], vec![vec![text("old"), text("/again")]]),
        ]),
    );
    assert!(error.to_string().contains("UNIQUE"), "{error}");
}

#[test]
fn new_databases_are_built_complete() {
    use rusqlite::types::Value as V;
    let fx = fixture();
    let home = fx.home.path().canonicalize().unwrap();
    let schema = [
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT, seen INTEGER NOT NULL DEFAULT 0)",
        "CREATE INDEX sessions_title ON sessions (title)",
        "CREATE VIEW titles AS SELECT title FROM sessions",
        "CREATE TRIGGER sessions_seen AFTER INSERT ON sessions BEGIN UPDATE sessions SET seen = 1 WHERE id = NEW.id; END",
        "CREATE VIRTUAL TABLE search USING fts5(body)",
    ];
    let tables = vec![
        TableRows {
            table: "sessions".into(),
            columns: vec!["id".into(), "title".into()],
            rows: vec![vec![text("s1"), text("first")], vec![text("s2"), SqlValue::Null]],
        },
        TableRows { table: "search".into(), columns: vec!["body".into()], rows: vec![vec![text("a papaya grows")]] },
    ];
    let applied = executed(&fx, &plan(vec![database("state/new.db", &schema, Some(42), tables)]));
    let db = home.join("state/new.db");
    assert_eq!(applied.created_databases.len(), 1);
    assert_eq!(applied.created_databases[0].rows, [("sessions".to_string(), 2), ("search".to_string(), 1)]);
    assert_eq!(rows(&db, "PRAGMA user_version"), [vec![V::Integer(42)]]);
    assert_eq!(
        rows(&db, "SELECT id, title, seen FROM sessions ORDER BY id"),
        [
            vec![V::Text("s1".into()), V::Text("first".into()), V::Integer(0)],
            vec![V::Text("s2".into()), V::Null, V::Integer(0)],
        ],
        "triggers are created after the rows (as a dump restores), so the rows are stored as given"
    );
    assert_eq!(
        rows(&db, "SELECT name FROM sqlite_master WHERE type = 'trigger'"),
        [vec![V::Text("sessions_seen".into())]],
        "the trigger is in the new database"
    );
    assert_eq!(rows(&db, "SELECT count(*) FROM titles"), [vec![V::Integer(2)]]);
    assert_eq!(
        rows(&db, "SELECT body FROM search WHERE search MATCH 'papaya'"),
        [vec![V::Text("a papaya grows".into())]]
    );
    let names: Vec<String> = leftovers(&home.join("state"));
    assert_eq!(names, ["new.db"], "only the database, no journal or temporary file");
}

#[test]
fn schemas_other_than_create_statements_are_refused() {
    let fx = fixture();
    let evil = fx.outside.path().join("evil.db");
    let attach = format!("ATTACH DATABASE '{}' AS evil", evil.display());
    let cases: &[(&[&str], usize)] = &[
        (&["DROP TABLE threads"], 0),
        (&["CREATE TABLE x (a)", "INSERT INTO x VALUES (1)"], 1),
        (&["PRAGMA journal_mode = WAL"], 0),
        (&[attach.as_str()], 0),
        (&["CREATE TEMP TABLE t (a)"], 0),
        (&["CREATE TABLE a (x); DROP TABLE a"], 0),
        (&["CREATE TABLE a (x); CREATE TABLE b (y)"], 0),
        (&["SELECT 1"], 0),
        (&[""], 0),
        (&["CREATE TABLE"], 0),
        (&["DELETE FROM sqlite_master"], 0),
        (&["CREATE TABLE x (a)", "ALTER TABLE x ADD COLUMN b"], 1),
        (&["CREATE VIRTUAL TABLE v USING fts3tokenize(simple)"], 0),
    ];
    for (schema, index) in cases {
        let error = refused(&fx, &plan(vec![database("new.db", schema, None, vec![])]));
        assert!(
            matches!(error, InstallError::SchemaRefused { index: i, .. } if i == *index),
            "{schema:?} must be refused at statement {index}: {error}"
        );
    }
    assert!(!evil.exists(), "ATTACH created a file outside the home");
    let table = |name: &str, columns: &[&str], rows: Vec<Vec<SqlValue>>| TableRows {
        table: name.into(),
        columns: columns.iter().map(|c| c.to_string()).collect(),
        rows,
    };
    let error = refused(
        &fx,
        &plan(vec![database("new.db", &["CREATE TABLE x (a)"], None, vec![table("y", &["a"], vec![vec![text("1")]])])]),
    );
    assert!(matches!(error, InstallError::Sqlite { ref message, .. } if message.contains("no such table")), "{error}");
    let error = refused(
        &fx,
        &plan(vec![database("new.db", &["CREATE TABLE x (a)"], None, vec![table("x", &["a"], vec![vec![]])])]),
    );
    assert!(matches!(error, InstallError::RowWidth { .. }), "{error}");
    let error = refused(
        &fx,
        &plan(vec![database("new.db", &["CREATE TABLE x (a)"], None, vec![table("x", &["a-b"], vec![])])]),
    );
    assert!(matches!(error, InstallError::InvalidIdentifier { .. }), "{error}");
    let error = refused(&fx, &plan(vec![database("index.db", &["CREATE TABLE x (a)"], None, vec![])]));
    assert!(matches!(error, InstallError::AlreadyExists(_)), "{error}");
}

#[test]
fn json_entries_are_added_in_place() {
    use std::os::unix::fs::PermissionsExt;
    let fx = fixture();
    let home = fx.home.path().canonicalize().unwrap();
    std::fs::set_permissions(home.join("kimi.json"), std::fs::Permissions::from_mode(0o640)).unwrap();
    let entries = plan(vec![
        json_entry("kimi.json", "/work_dirs", None, Some("path"), r#"{"path":"/new","kaos":"local"}"#, None),
        json_entry("kimi.json", "", Some("last"), None, r#""abc""#, None),
        json_entry("conf/new.json", "/a/b", Some("k"), None, "1", Some("{}")),
    ]);
    let applied = executed(&fx, &entries);
    assert_eq!(
        std::fs::read_to_string(home.join("kimi.json")).unwrap(),
        "{\n  \"work_dirs\": [\n    {\n      \"path\": \"/old\",\n      \"kaos\": \"local\"\n    },\n    {\n      \"kaos\": \"local\",\n      \"path\": \"/new\"\n    }\n  ],\n  \"version\": 1,\n  \"last\": \"abc\"\n}\n"
    );
    assert_eq!(std::fs::metadata(home.join("kimi.json")).unwrap().permissions().mode() & 0o777, 0o640);
    assert_eq!(std::fs::read_to_string(home.join("conf/new.json")).unwrap(), r#"{"a":{"b":{"k":1}}}"#);
    assert!(applied.json_entries.iter().all(|e| e.added));
    assert_eq!(applied.json_entries.iter().map(|e| e.created_file).collect::<Vec<_>>(), [false, false, true]);

    // The same entries again: equal values are no-ops, nothing is written.
    let before = tree(&home);
    let again = install::execute(&entries, &home, fx.journal.path()).unwrap();
    assert!(again.json_entries.iter().all(|e| !e.added), "{again:?}");
    assert_eq!(before, tree(&home));
    // An element matched on its `path` member is the same entry.
    let same_path = install::execute(
        &plan(vec![json_entry(
            "kimi.json",
            "/work_dirs",
            None,
            Some("path"),
            r#"{"path":"/old","kaos":"other"}"#,
            None,
        )]),
        &home,
        fx.journal.path(),
    )
    .unwrap();
    assert!(!same_path.json_entries[0].added);
    assert_eq!(before, tree(&home));
}

#[test]
fn json_refusals_name_the_problem() {
    let fx = fixture();
    type Expected = fn(&InstallError) -> bool;
    let cases: Vec<(InstallOp, Expected)> = vec![
        (json_entry("kimi.json", "", Some("version"), None, "2", None), |e| {
            matches!(e, InstallError::JsonKeyCollision { .. })
        }),
        (json_entry("absent.json", "", Some("k"), None, "1", None), |e| matches!(e, InstallError::JsonMissing(_))),
        (json_entry("plain.txt", "", Some("k"), None, "1", None), |e| {
            matches!(e, InstallError::JsonInvalid { what: "the file", .. })
        }),
        (json_entry("kimi.json", "", Some("k"), None, "{oops", None), |e| {
            matches!(e, InstallError::JsonInvalid { .. })
        }),
        (json_entry("absent.json", "", Some("k"), None, "1", Some("[")), |e| {
            matches!(e, InstallError::JsonInvalid { .. })
        }),
        (json_entry("kimi.json", "/version", Some("k"), None, "1", None), |e| {
            matches!(e, InstallError::JsonPointer { .. })
        }),
        (json_entry("kimi.json", "/work_dirs/5", Some("k"), None, "1", None), |e| {
            matches!(e, InstallError::JsonPointer { .. })
        }),
        (json_entry("kimi.json", "work_dirs", None, None, "1", None), |e| {
            matches!(e, InstallError::JsonPointer { .. })
        }),
        (json_entry("kimi.json", "/work_dirs", Some("k"), None, "1", None), |e| {
            matches!(e, InstallError::JsonEntry { .. })
        }),
        (json_entry("kimi.json", "", None, None, "1", None), |e| matches!(e, InstallError::JsonEntry { .. })),
        (json_entry("kimi.json", "/work_dirs", None, Some("path"), "{}", None), |e| {
            matches!(e, InstallError::JsonEntry { .. })
        }),
        (json_entry("link/x.json", "", Some("k"), None, "1", Some("{}")), |e| matches!(e, InstallError::Symlink(_))),
        (json_entry("sessions", "", Some("k"), None, "1", None), |e| matches!(e, InstallError::NotAFile(_))),
    ];
    for (op, expected) in cases {
        let error = refused(&fx, &plan(vec![op.clone()]));
        assert!(expected(&error), "{op:?}: {error}");
    }
    let error =
        refused(&fx, &plan(vec![create("x.json", b"{}"), json_entry("x.json", "", Some("k"), None, "1", Some("{}"))]));
    assert!(matches!(error, InstallError::Conflict { .. }), "{error}");
}

// --- SIGKILL: `trajhost prepare` of a large Codex export --------------------

const FIXTURE_ID: &str = "01a22aa5-cfcc-7311-a9b5-d6de00c468b2";
const KILL_ID: &str = "01a22aa5-cfcc-7311-a9b5-0000000000ff";

/// A Codex rollout of at least `target` bytes: the `simple` fixture under
/// a new id and date, with long assistant messages added before the end.
fn large_rollout(target: usize) -> (String, String) {
    let fixture = fixture_home("codex", "0.171.0", "simple");
    let file = walk_files(&fixture).into_iter().find(|p| p.extension().is_some_and(|e| e == "jsonl")).unwrap();
    let original =
        std::fs::read_to_string(&file).unwrap().replace(FIXTURE_ID, KILL_ID).replace("2026-11-30", "2026-12-01");
    let mut lines: Vec<serde_json::Value> = original.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let template =
        lines.iter().find(|l| l["type"] == "response_item" && l["payload"]["role"] == "assistant").cloned().unwrap();
    let last = lines.pop().unwrap();
    let words = ["papaya", "rollout", "thread", "kill", "journal", "staging", "über", "日本語", "🦀", "commit"];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut size: usize = original.len();
    let mut n = 0;
    while size < target {
        let mut text = String::with_capacity(40_000);
        while text.len() < 32_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            text.push_str(words[(state % words.len() as u64) as usize]);
            text.push(if state.is_multiple_of(11) { '\n' } else { ' ' });
        }
        let mut line = template.clone();
        line["payload"]["id"] = format!("msg_kill_{n}").into();
        line["payload"]["content"][0]["text"] = text.into();
        size += serde_json::to_string(&line).unwrap().len() + 1;
        lines.push(line);
        n += 1;
    }
    lines.push(last);
    let mut out = String::with_capacity(size);
    for (ordinal, line) in lines.iter_mut().enumerate() {
        line["ordinal"] = ordinal.into();
        out.push_str(&serde_json::to_string(line).unwrap());
        out.push('\n');
    }
    let name =
        file.file_name().unwrap().to_string_lossy().replace(FIXTURE_ID, KILL_ID).replace("2026-11-30", "2026-12-01");
    (name, out)
}

fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() { stack.push(path) } else { out.push(path) }
        }
    }
    out
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

fn trajhost_command(data_dir: &Path, cache: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_trajhost"));
    command
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .env_remove("TRAJHOST_HOME")
        .env_remove("TRAJHOST_TEST_PAUSE_AT")
        .env("TRAJHOST_CACHE_DIR", cache)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// When and how a trial kills the child.
#[derive(Debug, Clone)]
enum Kill {
    /// At a named pause point (the test hook).
    At(&'static str),
    /// After a delay from spawning.
    After(Duration),
    /// After a delay from the moment the install's journal appears.
    AfterJournal(Duration),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Untouched,
    Complete,
    /// A timed kill came after the child had exited on its own.
    FinishedFirst,
}

/// Spawns `command`, kills it (SIGKILL) as `kill` says. Returns whether it
/// was still running when killed.
fn spawn_and_kill(mut command: Command, kill: &Kill, signal: &Path, journal_dir: &Path) -> bool {
    let _ = std::fs::remove_file(signal);
    if let Kill::At(point) = kill {
        command.env("TRAJHOST_TEST_PAUSE_AT", point).env("TRAJHOST_TEST_PAUSE_SIGNAL", signal);
    }
    let mut child: Child = command.spawn().expect("spawning trajhost");
    let killed = match kill {
        Kill::At(point) => {
            let deadline = Instant::now() + Duration::from_secs(300);
            while !signal.exists() {
                if let Some(status) = child.try_wait().unwrap() {
                    panic!("trajhost exited ({status}) before reaching pause point {point}");
                }
                assert!(Instant::now() < deadline, "pause point {point} not reached in 300 s");
                std::thread::sleep(Duration::from_millis(2));
            }
            true
        }
        Kill::After(delay) => {
            std::thread::sleep(*delay);
            child.try_wait().unwrap().is_none()
        }
        Kill::AfterJournal(delay) => {
            while journal_state(journal_dir).is_none() {
                if child.try_wait().unwrap().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_micros(200));
            }
            std::thread::sleep(*delay);
            child.try_wait().unwrap().is_none()
        }
    };
    child.kill().ok(); // SIGKILL
    child.wait().unwrap();
    killed
}

/// The state of the install journal in `dir`, if there is one.
fn journal_state(dir: &Path) -> Option<String> {
    for entry in std::fs::read_dir(dir).ok()? {
        let path = entry.ok()?.path();
        if path.extension().is_some_and(|e| e == "json") && !path.file_name()?.to_string_lossy().starts_with('.') {
            let journal: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
            return journal["state"].as_str().map(str::to_string);
        }
    }
    None
}

fn threads_rows(home: &Path) -> Vec<String> {
    let db = home.join(".codex/state_5.sqlite");
    let conn = Connection::open_with_flags(
        format!("file:{}?mode=ro&immutable=1", db.display()),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI,
    )
    .unwrap();
    let mut statement = conn.prepare("SELECT * FROM threads ORDER BY id").unwrap();
    let width = statement.column_count();
    statement
        .query_map([], |row| {
            Ok((0..width)
                .map(|i| format!("{:?}", row.get::<_, rusqlite::types::Value>(i).unwrap()))
                .collect::<Vec<_>>()
                .join("|"))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn prepare_killed_at_any_point_leaves_the_home_untouched_or_complete() {
    let work = tempfile::tempdir().unwrap();
    let cache = shared_cache();
    // A large Codex session, converted (Codex → Codex) into an export.
    let (name, rollout) = large_rollout(56 << 20);
    let source = work.path().join("source/.codex/sessions/2026/12/01").join(&name);
    std::fs::create_dir_all(source.parent().unwrap()).unwrap();
    std::fs::write(&source, &rollout).unwrap();
    let export = work.path().join("export");
    let data = work.path().join("data-convert");
    let converted = trajhost(
        &data,
        &["convert", source.to_str().unwrap(), "--to", "codex", "--out", export.to_str().unwrap(), "--json"],
    );
    assert!(converted.status.success(), "convert: {}", stderr(&converted));
    let artifact = walk_files(&export.join("artifacts"))
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let artifact_size = std::fs::metadata(&artifact).unwrap().len();
    assert!(artifact_size >= 50 << 20, "the export holds {artifact_size} bytes");

    // The target: a Codex home with a state database (a threads row is
    // inserted) and no session of that day (two directories are created).
    let template = work.path().join("template");
    copy_dir(&fixture_home("codex", "0.171.0", "simple"), &template);
    assert!(!template.join(".codex/sessions/2026/12").exists());
    let home = work.path().join("home");
    let reset = || {
        if home.exists() {
            std::fs::remove_dir_all(&home).unwrap();
        }
        copy_dir(&template, &home);
    };
    let prepare = |data: &Path| {
        trajhost_command(data, &cache, &["prepare", export.to_str().unwrap(), "--home", home.to_str().unwrap()])
    };

    reset();
    let before = tree(&home);
    let rows_before = threads_rows(&home);
    let started = Instant::now();
    let reference_data = work.path().join("data-reference");
    let mut child = prepare(&reference_data).spawn().unwrap();
    let mut journal_seen = None;
    let status = loop {
        if journal_seen.is_none() && journal_state(&reference_data.join("installs")).is_some() {
            journal_seen = Some(started.elapsed());
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_micros(200));
    };
    let duration = started.elapsed();
    assert!(status.success(), "the uninterrupted prepare failed");
    // The install proper: from the journal's appearance to the end.
    let journal_seen = journal_seen.expect("the journal was seen during the reference run");
    let window = duration - journal_seen;
    let complete = tree(&home);
    let rows_complete = threads_rows(&home);
    assert_eq!(rows_complete.len(), rows_before.len() + 1, "prepare inserts one threads row");
    let rollout_rel = artifact.strip_prefix(export.join("artifacts")).unwrap().to_path_buf();
    assert!(complete.contains_key(&rollout_rel) && !before.contains_key(&rollout_rel), "the rollout is installed");
    let installed = std::fs::read(home.join(&rollout_rel)).unwrap();
    // The codec rewrites session_meta's model_provider for the target; every
    // other line is the artifact's.
    let artifact_bytes = std::fs::read(&artifact).unwrap();
    let tail = |b: &[u8]| b[b.iter().position(|c| *c == b'\n').unwrap()..].to_vec();
    assert!(tail(&installed) == tail(&artifact_bytes), "the installed rollout is the artifact");
    drop(artifact_bytes);
    let db_rel = PathBuf::from(".codex/state_5.sqlite");
    let without_db = |t: &BTreeMap<PathBuf, String>| {
        t.iter().filter(|(p, _)| **p != db_rel).map(|(p, v)| (p.clone(), v.clone())).collect::<BTreeMap<_, _>>()
    };

    let mut kills: Vec<(String, Kill, Option<&'static str>)> = Vec::new();
    for point in [
        "journal-written",
        "transactions-open",
        "file-partial",
        "staged",
        "committing",
        "placed",
        "db-committed",
        "json-replaced",
        "complete",
    ] {
        kills.push((format!("at {point}"), Kill::At(point), None));
    }
    // Killed again while recovering a committing install.
    kills.push(("at committing, recovery killed".into(), Kill::At("committing"), Some("recover-placed")));
    kills.push(("at placed, recovery killed".into(), Kill::At("placed"), Some("recover-placed")));
    for delay in [Duration::ZERO, Duration::from_millis(1), Duration::from_millis(5)] {
        kills.push((format!("after {delay:?}"), Kill::After(delay), None));
    }
    // Kills spread over the whole run and over the install proper; each
    // named point above is hit exactly, so these only sample between them.
    let steps = 12;
    for i in 1..=steps {
        let delay = duration.mul_f64(1.1 * i as f64 / steps as f64);
        kills.push((format!("after {delay:.2?}"), Kill::After(delay), None));
    }

    for i in 0..8 {
        let delay = window.mul_f64(0.7 * i as f64 / 7.0);
        kills.push((format!("journal + {delay:.2?}"), Kill::AfterJournal(delay), None));
    }

    let signal = work.path().join("paused");
    let mut results: Vec<(String, Outcome)> = Vec::new();
    let mut phases: BTreeMap<String, usize> = BTreeMap::new();
    for (n, (label, kill, kill_recovery)) in kills.iter().enumerate() {
        reset();
        let data = work.path().join(format!("data-{n}"));
        let journal_dir = data.join("installs");
        let killed = spawn_and_kill(prepare(&data), kill, &signal, &journal_dir);
        let phase = if !killed {
            "finished".to_string()
        } else {
            journal_state(&journal_dir).unwrap_or_else(|| "no journal".into())
        };
        *phases.entry(phase.clone()).or_default() += 1;
        if let Some(point) = kill_recovery {
            assert!(
                spawn_and_kill(
                    trajhost_command(&data, &cache, &["plugin", "verify"]),
                    &Kill::At(point),
                    &signal,
                    &journal_dir
                ),
                "{label}"
            );
        }
        // Any command recovers.
        let recovery = trajhost(&data, &["plugin", "verify"]);
        assert!(recovery.status.success(), "{label}: recovery run failed: {}", stderr(&recovery));
        let said = match phase.as_str() {
            "staging" => Some("was undone"),
            "committing" => Some("was completed"),
            _ => None,
        };
        if let Some(said) = said {
            assert!(
                stderr(&recovery).contains(said),
                "{label}: recovery of a {phase} journal must say it {said}: {}",
                stderr(&recovery)
            );
        }
        let journal_left = leftovers(&data.join("installs"));
        assert!(journal_left.is_empty(), "{label}: journal left after recovery: {journal_left:?}");
        let now = tree(&home);
        let outcome = if now == before {
            Outcome::Untouched
        } else {
            assert_eq!(without_db(&now), without_db(&complete), "{label}: the home is neither untouched nor complete");
            assert_eq!(threads_rows(&home), rows_complete, "{label}: the threads rows are not the complete install's");
            assert_eq!(std::fs::read(home.join(&rollout_rel)).unwrap(), installed, "{label}: rollout bytes");
            if killed { Outcome::Complete } else { Outcome::FinishedFirst }
        };
        if matches!(kill, Kill::At(p) if ["journal-written", "transactions-open", "file-partial", "staged"].contains(p))
        {
            assert_eq!(
                outcome,
                Outcome::Untouched,
                "{label}: killed before the committing marker, the install must be undone"
            );
        }
        if matches!(kill, Kill::At(p) if ["committing", "placed", "db-committed", "json-replaced", "complete"].contains(p))
        {
            assert_eq!(
                outcome,
                Outcome::Complete,
                "{label}: killed after the committing marker, the install must be completed"
            );
        }
        results.push((label.clone(), outcome));
    }
    let count = |o: Outcome| results.iter().filter(|(_, r)| *r == o).count();
    eprintln!(
        "prepare SIGKILL: {} kills of a {} MiB install (uninterrupted run {duration:.2?}): {} untouched, {} complete, {} finished before the kill",
        results.len(),
        artifact_size >> 20,
        count(Outcome::Untouched),
        count(Outcome::Complete),
        count(Outcome::FinishedFirst)
    );
    eprintln!("  journal state when killed: {phases:?} (install window {window:.2?} of the run)");
    for (label, outcome) in &results {
        eprintln!("  {label}: {outcome:?}");
    }
    assert!(count(Outcome::Untouched) > 0 && count(Outcome::Complete) > 0, "both outcomes must occur: {results:?}");
    let timed = results.iter().filter(|(l, _)| l.starts_with("after") || l.starts_with("journal +")).count();
    assert!(timed >= 20, "at least 20 timed kill points");
}

// --- SIGKILL: `trajhost plugin install` ------------------------------------

/// A private cache holding the shared cache's files as hard links (safe:
/// trajhost never changes a cache file in place), without `skip`'s.
fn linked_cache(shared: &Path, private: &Path, skip: &str) {
    std::fs::create_dir_all(private).unwrap();
    for entry in std::fs::read_dir(shared).unwrap() {
        let entry = entry.unwrap();
        let dest = private.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            linked_cache(&entry.path(), &dest, skip);
        } else if !entry.file_name().to_string_lossy().starts_with(skip)
            && !entry.file_name().to_string_lossy().starts_with('.')
        {
            std::fs::hard_link(entry.path(), &dest).unwrap();
        }
    }
}

#[test]
fn plugin_install_killed_at_any_point_leaves_a_consistent_registry() {
    let work = tempfile::tempdir().unwrap();
    let wasm = guest("trajhost-toy-v1");
    let bytes = std::fs::read(&wasm).unwrap();
    let sha = hex::encode(Sha256::digest(&bytes));
    // Make sure the shared cache holds the built-ins (so `sessions` is fast).
    let warm = trajhost(&work.path().join("data-warm"), &["plugin", "list"]);
    assert!(warm.status.success(), "{}", stderr(&warm));
    let toy = toy_home(&[("one", "1.2.0")]);
    let install_cmd =
        |data: &Path, cache: &Path| trajhost_command(data, cache, &["plugin", "install", wasm.to_str().unwrap()]);
    let cwasm_of = |cache: &Path| {
        walk_files(cache).into_iter().find(|p| p.file_name().unwrap().to_string_lossy() == format!("{sha}.cwasm"))
    };

    // Reference: an uninterrupted install, for its duration and its compiled code.
    let (data, cache) = (work.path().join("data-reference"), work.path().join("cache-reference"));
    linked_cache(&shared_cache(), &cache, &sha);
    let started = Instant::now();
    assert!(install_cmd(&data, &cache).status().unwrap().success());
    let duration = started.elapsed();
    let reference_cwasm = std::fs::read(cwasm_of(&cache).expect("install compiles into the cache")).unwrap();

    // The last pause point is after the index is written: that kill must find the codec installed.
    let mut kills: Vec<Kill> = ["plugin-blob-written", "cwasm-written", "plugin-index", "plugin-installed"]
        .into_iter()
        .map(Kill::At)
        .collect();
    kills.push(Kill::After(Duration::ZERO));
    for i in 1..=12 {
        kills.push(Kill::After(duration.mul_f64(1.1 * i as f64 / 12.0)));
    }
    let signal = work.path().join("paused");
    let (mut installed, mut not_installed) = (0, 0);
    for (n, kill) in kills.iter().enumerate() {
        let (data, cache) = (work.path().join(format!("data-{n}")), work.path().join(format!("cache-{n}")));
        linked_cache(&shared_cache(), &cache, &sha);
        spawn_and_kill(install_cmd(&data, &cache), kill, &signal, &data.join("installs"));

        // What a kill leaves is complete: the blob, the compiled code, the index.
        let blob = data.join("plugins/blobs/sha256").join(format!("{sha}.wasm"));
        if blob.exists() {
            assert_eq!(std::fs::read(&blob).unwrap(), bytes, "{kill:?}: a torn blob");
        }
        if let Some(cwasm) = cwasm_of(&cache) {
            assert_eq!(std::fs::read(cwasm).unwrap(), reference_cwasm, "{kill:?}: torn compiled code");
        }
        let verify =
            trajhost_command(&data, &cache, &["plugin", "verify", "--json"]).stdout(Stdio::piped()).output().unwrap();
        assert!(verify.status.success(), "{kill:?}: plugin verify failed");
        let results: Vec<serde_json::Value> = serde_json::from_slice(&verify.stdout).unwrap();
        assert!(results.iter().all(|r| r["status"]["status"] == "ok"), "{kill:?}: {results:?}");
        if results.iter().any(|r| r["codec"] == "toy@1.0.0") {
            installed += 1;
        } else {
            assert!(results.is_empty(), "{kill:?}: {results:?}");
            not_installed += 1;
        }

        // Installing again completes, and the codec reads.
        let again = trajhost_command(&data, &cache, &["plugin", "install", wasm.to_str().unwrap()])
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert!(again.status.success(), "{kill:?}: {}", stderr(&again));
        let sessions = trajhost_command(
            &data,
            &cache,
            &["sessions", "--home", toy.path().to_str().unwrap(), "--harness", "toy", "--json"],
        )
        .stdout(Stdio::piped())
        .output()
        .unwrap();
        assert!(sessions.status.success() && stdout(&sessions).contains("\"one\""), "{kill:?}: {}", stdout(&sessions));
        let temps: Vec<PathBuf> = walk_files(&data.join("plugins"))
            .into_iter()
            .filter(|p| p.to_string_lossy().contains(".trajhost-"))
            .collect();
        assert!(temps.is_empty(), "{kill:?}: temporary files left in the registry: {temps:?}");
    }
    eprintln!("plugin install SIGKILL: {} kills: {installed} installed, {not_installed} not installed", kills.len());
    assert!(installed > 0 && not_installed > 0, "both outcomes must occur");

    // A compiled file that does not deserialize is recompiled, not trusted.
    let (data, cache) = (work.path().join("data-reference"), work.path().join("cache-reference"));
    let cwasm = cwasm_of(&cache).unwrap();
    std::fs::remove_file(&cwasm).unwrap(); // a new inode: the shared cache keeps its file
    std::fs::write(&cwasm, &reference_cwasm[..reference_cwasm.len() / 2]).unwrap();
    let sessions = trajhost_command(
        &data,
        &cache,
        &["sessions", "--home", toy.path().to_str().unwrap(), "--harness", "toy", "--json"],
    )
    .stdout(Stdio::piped())
    .output()
    .unwrap();
    assert!(sessions.status.success() && stdout(&sessions).contains("\"one\""), "a torn .cwasm broke loading");
    assert_eq!(std::fs::read(&cwasm).unwrap(), reference_cwasm, "the torn .cwasm was replaced");
}

/// `prepare` into a workspace where Aider already keeps a history appends
/// one block (`append-file`); killed at every point of that install (and
/// once more while recovering it), the next command leaves the history as
/// it was or with the whole block after its untouched original bytes.
#[test]
fn an_append_killed_at_any_point_leaves_the_history_as_it_was_or_with_the_whole_block() {
    let work = tempfile::tempdir().unwrap();
    let cache = shared_cache();
    let (export, _) = convert_claude_fixture(&work.path().join("data-convert"), work.path(), "aider");
    let template = work.path().join("template");
    copy_dir(&fixture_home("aider", "0.86.2", "simple"), &template);
    let history = PathBuf::from("project/.aider.chat.history.md");
    let original = std::fs::read(template.join(&history)).unwrap();
    let home = work.path().join("home");
    let reset = || {
        if home.exists() {
            std::fs::remove_dir_all(&home).unwrap();
        }
        copy_dir(&template, &home);
    };
    let cwd = home.join("project");
    let prepare = |data: &Path| {
        let args =
            ["prepare", export.to_str().unwrap(), "--home", home.to_str().unwrap(), "--cwd", cwd.to_str().unwrap()];
        trajhost_command(data, &cache, &args)
    };

    reset();
    let before = tree(&home);
    let status = prepare(&work.path().join("data-reference")).status().unwrap();
    assert!(status.success(), "the uninterrupted prepare failed");
    let complete = std::fs::read(home.join(&history)).unwrap();
    assert!(complete.len() > original.len() && complete.starts_with(&original), "one block appended");
    let block = &complete[original.len()..];
    assert!(block.starts_with(b"\n# aider chat started at "), "{}", String::from_utf8_lossy(block));
    let complete_tree = tree(&home);

    let points = [
        ("journal-written", false),
        ("file-partial", false),
        ("staged", false),
        ("committing", true),
        ("placed", true),
        ("append-partial", true),
        ("appended", true),
        ("complete", true),
    ];
    let mut kills: Vec<(String, &'static str, bool, Option<&'static str>)> =
        points.iter().map(|(p, done)| (format!("at {p}"), *p, *done, None)).collect();
    kills.push((
        "at append-partial, recovery killed at append-partial".into(),
        "append-partial",
        true,
        Some("append-partial"),
    ));
    kills.push(("at committing, recovery killed at recover-placed".into(), "committing", true, Some("recover-placed")));
    let signal = work.path().join("paused");
    for (n, (label, point, done, kill_recovery)) in kills.iter().enumerate() {
        reset();
        let data = work.path().join(format!("data-{n}"));
        let journal_dir = data.join("installs");
        assert!(spawn_and_kill(prepare(&data), &Kill::At(point), &signal, &journal_dir), "{label}");
        if *point == "append-partial" {
            let torn = std::fs::read(home.join(&history)).unwrap();
            assert!(torn.starts_with(&original) && torn.len() < complete.len(), "{label}: a torn append");
        }
        if let Some(recovery_point) = kill_recovery {
            let recovery = trajhost_command(&data, &cache, &["plugin", "verify"]);
            assert!(spawn_and_kill(recovery, &Kill::At(recovery_point), &signal, &journal_dir), "{label}");
        }
        let recovery = trajhost(&data, &["plugin", "verify"]);
        assert!(recovery.status.success(), "{label}: recovery run failed: {}", stderr(&recovery));
        assert!(leftovers(&journal_dir).is_empty(), "{label}: journal left: {:?}", leftovers(&journal_dir));
        let now = std::fs::read(home.join(&history)).unwrap();
        if *done {
            assert_eq!(now, complete, "{label}: killed after the committing marker, the block must be appended whole");
            assert_eq!(tree(&home), complete_tree, "{label}");
        } else {
            assert_eq!(now, original, "{label}: killed before the committing marker, the history must be as it was");
            assert_eq!(tree(&home), before, "{label}");
        }
    }
}
