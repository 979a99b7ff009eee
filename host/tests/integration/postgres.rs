//! The shared PostgreSQL archive against a real server (tests/services/postgres
//! starts one and sets TRAJHOST_TEST_POSTGRES): two machines syncing at once,
//! twice each, with no row lost or duplicated and shared bytes stored once;
//! ranked, filtered search like the embedded archive's; a session read back
//! after its whole home is deleted; migrations; no password in errors.
//! Without TRAJHOST_TEST_POSTGRES each test says so and passes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use sha2::{Digest, Sha256};
use trajhost::archive::ArchiveStore;
use trajhost::archive::postgres::{PostgresArchive, SCHEMA_VERSION};

use crate::common::*;

const CLAUDE: &str = "61ec73f4-b0bb-4d28-a8cc-bfda17c07ec0";
const CLAUDE_FILE: &str = ".claude/projects/-home-user-project/61ec73f4-b0bb-4d28-a8cc-bfda17c07ec0.jsonl";
const HERMES: &str = "20261130_041901_233928";

/// The server's URL, or `None` (and a SKIP line) when no server is given.
fn server() -> Option<String> {
    match std::env::var("TRAJHOST_TEST_POSTGRES") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            println!("SKIP postgres: TRAJHOST_TEST_POSTGRES is not set (run tests/services/postgres)");
            None
        }
    }
}

/// A new, empty database named `name` on the server; its URL.
fn fresh_database(url: &str, name: &str) -> String {
    // CREATE DATABASE copies template1, which must have no other user: one at a time.
    static CREATING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = CREATING.lock().unwrap_or_else(|p| p.into_inner());
    let mut admin = postgres::Client::connect(url, postgres::NoTls).expect("connecting to TRAJHOST_TEST_POSTGRES");
    admin.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).unwrap();
    admin.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
    let (base, query) = url.split_once('?').map_or((url, None), |(b, q)| (b, Some(q)));
    let (server, _) = base.rsplit_once('/').expect("a URL with a database");
    match query {
        Some(q) => format!("{server}/{name}?{q}"),
        None => format!("{server}/{name}"),
    }
}

fn client(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).unwrap()
}

fn count(db: &mut postgres::Client, sql: &str) -> i64 {
    db.query_one(sql, &[]).unwrap().get(0)
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A home made of lab fixtures (HOMEs the real harness CLIs wrote).
fn home_of(fixtures: &[(&str, &str, &str)]) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    for (harness, version, scenario) in fixtures {
        copy_tree(&fixture_home(harness, version, scenario), home.path());
    }
    home
}

/// Claude Code, Codex (JSONL) and Hermes (SQLite) `simple` sessions.
fn lab_home() -> tempfile::TempDir {
    home_of(&[("claude-code", "2.1.197", "simple"), ("codex", "0.171.0", "simple"), ("hermes", "0.19.0", "simple")])
}

/// The real binary, as `machine`.
fn command(data: &Path, machine: &str, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_trajhost"));
    command
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .env_remove("TRAJHOST_HOME")
        .env_remove("TRAJHOST_ARCHIVE")
        .env("TRAJHOST_MACHINE", machine)
        .env("TRAJHOST_CACHE_DIR", shared_cache());
    command
}

fn run(data: &Path, machine: &str, args: &[&str]) -> Output {
    command(data, machine, args).output().expect("running trajhost")
}

fn json(out: &Output) -> Value {
    assert!(out.status.success(), "{}", stderr(out));
    serde_json::from_str(&stdout(out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(out)))
}

/// `read ID --json` record lines (without the summary line).
fn records(out: &Output) -> Vec<String> {
    assert!(out.status.success(), "{}", stderr(out));
    stdout(out).lines().filter(|l| !l.starts_with(r#"{"codec""#)).map(String::from).collect()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn postgres_two_machines_sync_at_once_without_losing_or_duplicating_a_row() {
    let Some(url) = server() else { return };
    let db = fresh_database(&url, "trajhost_t_concurrent");
    // Two machines; both hold the Claude Code `simple` session, byte for byte.
    let home_a = lab_home();
    let home_b = home_of(&[
        ("claude-code", "2.1.197", "simple"),
        ("claude-code", "2.1.197", "multibyte"),
        ("codex", "0.171.0", "long-output"),
        ("codex", "0.171.0", "parallel"),
    ]);
    // What the embedded archive holds of each home: the expected counts.
    let mut expected_sessions = 0;
    let mut expected_records = 0;
    for home in [&home_a, &home_b] {
        let data = tempfile::tempdir().unwrap();
        let report = json(&run(data.path(), "local", &["sync", "--home", path(home.path()), "--json"]));
        assert_eq!(report["sessions_failed"], 0, "{report}");
        expected_sessions += report["sessions_added"].as_i64().unwrap();
        expected_records += report["records_added"].as_i64().unwrap();
    }
    assert!(expected_sessions >= 6, "{expected_sessions}");

    // Four overlapping syncs: each machine syncs its home twice at once.
    let data = tempfile::tempdir().unwrap();
    let children: Vec<_> =
        [("machine-a", &home_a), ("machine-b", &home_b), ("machine-a", &home_a), ("machine-b", &home_b)]
            .iter()
            .map(|(machine, home)| {
                command(data.path(), machine, &["sync", "--home", path(home.path()), "--archive", &db, "--json"])
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
    let reports: Vec<Value> = children.into_iter().map(|c| json(&c.wait_with_output().unwrap())).collect();
    let added: i64 = reports.iter().map(|r| r["sessions_added"].as_i64().unwrap()).sum();
    let records_added: i64 = reports.iter().map(|r| r["records_added"].as_i64().unwrap()).sum();
    assert_eq!(added, expected_sessions, "each session added by exactly one sync: {reports:?}");
    assert_eq!(records_added, expected_records, "{reports:?}");
    assert!(reports.iter().all(|r| r["sessions_failed"] == 0), "{reports:?}");

    let mut pg = client(&db);
    assert_eq!(count(&mut pg, "SELECT count(*) FROM sessions"), expected_sessions);
    assert_eq!(count(&mut pg, "SELECT count(*) FROM records"), expected_records);
    assert_eq!(count(&mut pg, "SELECT count(*) FROM homes"), 2);
    assert_eq!(
        count(
            &mut pg,
            "SELECT count(*) FROM sessions s WHERE records <> (SELECT count(*) FROM records r WHERE r.session_id = s.id)"
        ),
        0,
        "every session holds exactly its records"
    );
    assert_eq!(
        count(&mut pg, "SELECT count(*) FROM (SELECT 1 FROM records GROUP BY session_id, seq HAVING count(*) > 1) d"),
        0
    );
    // The same session on both machines: two sessions, one blob.
    assert_eq!(count(&mut pg, &format!("SELECT count(*) FROM sessions WHERE native_id = '{CLAUDE}'")), 2);
    let bytes = std::fs::read(home_a.path().join(CLAUDE_FILE)).unwrap();
    let sha = hex::encode(Sha256::digest(&bytes));
    assert_eq!(count(&mut pg, &format!("SELECT count(*) FROM blobs WHERE sha256 = '{sha}'")), 1);
    assert_eq!(count(&mut pg, &format!("SELECT count(*) FROM generations WHERE sha256 = '{sha}'")), 2);
    assert_eq!(count(&mut pg, "SELECT count(*) FROM blobs b WHERE encode(sha256(b.bytes), 'hex') <> b.sha256"), 0);

    // The listing names each machine's copy; another machine's is "remote".
    let listed = json(&run(data.path(), "machine-a", &["sessions", "--archived", "--archive", &db, "--json"]));
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len() as i64, expected_sessions);
    let claude: Vec<&Value> = listed.iter().filter(|s| s["native_id"] == CLAUDE).collect();
    let machines: BTreeSet<&str> = claude.iter().map(|s| s["machine"].as_str().unwrap()).collect();
    assert_eq!(machines, BTreeSet::from(["machine-a", "machine-b"]));
    for s in claude {
        assert_eq!(s["source_exists"], s["machine"] == "machine-a", "{s}");
    }
    // A second round changes nothing.
    let again =
        json(&run(data.path(), "machine-b", &["sync", "--home", path(home_b.path()), "--archive", &db, "--json"]));
    assert_eq!(again["bytes_parsed"], 0, "{again}");
    assert_eq!(count(&mut pg, "SELECT count(*) FROM records"), expected_records);
}

#[test]
fn postgres_search_is_ranked_and_filtered_like_the_embedded_archive() {
    let Some(url) = server() else { return };
    let db = fresh_database(&url, "trajhost_t_search");
    let home = lab_home();
    let data = tempfile::tempdir().unwrap();
    let machine = "search-box";
    json(&run(data.path(), machine, &["sync", "--home", path(home.path()), "--archive", &db, "--json"]));
    json(&run(data.path(), machine, &["sync", "--home", path(home.path()), "--json"]));
    let search = |extra: &[&str], archive: Option<&str>| -> (Option<i32>, Vec<Value>) {
        let mut args = vec!["search"];
        args.extend_from_slice(extra);
        args.push("--json");
        if !extra.contains(&"--limit") {
            args.extend_from_slice(&["--limit", "100"]);
        }
        if let Some(a) = archive {
            args.extend_from_slice(&["--archive", a]);
        }
        let out = run(data.path(), machine, &args);
        (out.status.code(), serde_json::from_str(&stdout(&out)).unwrap_or_default())
    };
    let key = |hits: &[Value]| -> BTreeSet<(String, u64)> {
        hits.iter().map(|h| (h["native_id"].as_str().unwrap().to_string(), h["seq"].as_u64().unwrap())).collect()
    };

    let (code, hits) = search(&["PAPAYA"], Some(&db));
    assert_eq!(code, Some(0));
    assert!(hits.len() >= 3, "{hits:?}");
    let (_, embedded) = search(&["PAPAYA"], None);
    assert_eq!(key(&hits), key(&embedded), "the same records match in both archives");
    // Ranked (lower is better), with the embedded archive's snippet markers.
    let ranks: Vec<f64> = hits.iter().map(|h| h["rank"].as_f64().unwrap()).collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{ranks:?}");
    assert!(ranks.iter().all(|r| *r < 0.0), "{ranks:?}");
    for hit in &hits {
        let snippet = hit["snippet"].as_str().unwrap();
        assert!(snippet.to_lowercase().contains("\u{2}papaya\u{3}"), "{snippet:?}");
        assert_eq!(hit["machine"], machine);
        for field in ["harness", "native_id", "home", "record_id", "seq", "kind", "ts", "rank"] {
            assert!(hit.get(field).is_some(), "{field} missing: {hit}");
        }
    }
    // A record ranks higher where the word is denser.
    let (_, phrase) = search(&["\"secret word\""], Some(&db));
    let (_, embedded_phrase) = search(&["\"secret word\""], None);
    assert!(!phrase.is_empty());
    assert_eq!(key(&phrase), key(&embedded_phrase));
    let (_, prefix) = search(&["papay*"], Some(&db));
    assert_eq!(key(&prefix), key(&hits));
    let (_, either) = search(&["PAPAYA OR zzzz-none"], Some(&db));
    assert_eq!(key(&either), key(&hits));

    // Filters: harness, kind, cwd, since, limit.
    for harness in ["claude-code", "codex", "hermes"] {
        let (_, only) = search(&["PAPAYA", "--harness", harness], Some(&db));
        let (_, embedded_only) = search(&["PAPAYA", "--harness", harness], None);
        assert!(only.iter().all(|h| h["harness"] == harness), "{only:?}");
        assert_eq!(key(&only), key(&embedded_only), "{harness}");
    }
    let (_, users) = search(&["PAPAYA", "--kind", "tool_result"], Some(&db));
    assert!(!users.is_empty() && users.iter().all(|h| h["kind"] == "tool_result"), "{users:?}");
    let cwd = hits[0]["cwd"].as_str().unwrap().to_string();
    let (_, in_cwd) = search(&["PAPAYA", "--cwd", &cwd], Some(&db));
    assert!(!in_cwd.is_empty() && in_cwd.iter().all(|h| h["cwd"] == cwd.as_str()));
    let (code, none) = search(&["PAPAYA", "--cwd", "/no/such/dir"], Some(&db));
    assert_eq!((code, none.len()), (Some(3), 0));
    let (code, _) = search(&["PAPAYA", "--since", "2100-01-01"], Some(&db));
    assert_eq!(code, Some(3));
    let (_, since) = search(&["PAPAYA", "--since", "2000-01-01"], Some(&db));
    assert_eq!(key(&since), key(&hits));
    let (_, one) = search(&["PAPAYA", "--limit", "1"], Some(&db));
    assert_eq!(one.len(), 1);
    assert_eq!(key(&one), key(&hits[..1]));
    let (code, _) = search(&["zzzz-no-such-word"], Some(&db));
    assert_eq!(code, Some(3));
}

#[test]
fn postgres_reads_a_session_whose_home_is_gone_from_the_kept_evidence() {
    let Some(url) = server() else { return };
    let db = fresh_database(&url, "trajhost_t_gone");
    let home = lab_home();
    let data = tempfile::tempdir().unwrap();
    let machine = "laptop";
    json(&run(data.path(), machine, &["sync", "--home", path(home.path()), "--archive", &db, "--json"]));
    let read = |id: &str| run(data.path(), machine, &["read", id, "--archive", &db, "--json"]);
    let live_claude = records(&read(CLAUDE));
    let live_hermes = records(&read(HERMES));
    assert!(live_claude.len() > 5 && live_hermes.len() > 5);

    let home_path: PathBuf = home.path().to_path_buf();
    drop(home);
    assert!(!home_path.exists());
    let listed = json(&run(data.path(), machine, &["sessions", "--archived", "--archive", &db, "--json"]));
    assert!(listed.as_array().unwrap().iter().all(|s| s["source_exists"] == false), "{listed}");
    // JSONL bytes and Hermes's recorded SQLite answers give back the same records.
    assert_eq!(records(&read(CLAUDE)), live_claude);
    assert_eq!(records(&read(HERMES)), live_hermes);
    // From another machine too (no discovery, no home there).
    let elsewhere = run(data.path(), "other-machine", &["read", &CLAUDE[..8], "--archive", &db, "--json"]);
    assert_eq!(records(&elsewhere), live_claude);
    // And through the config file instead of the flag.
    std::fs::write(data.path().join("config.toml"), format!("archive = {db:?}\nmachine = \"laptop\"\n")).unwrap();
    assert_eq!(records(&run(data.path(), "laptop", &["read", CLAUDE, "--json"])), live_claude);
}

#[test]
fn postgres_migrates_an_older_schema_and_never_prints_the_password() {
    let Some(url) = server() else { return };
    let db = fresh_database(&url, "trajhost_t_schema");
    let mut old = PostgresArchive::open_at(&db, "m", 1).unwrap();
    assert_eq!(old.schema_version().unwrap(), 1);
    drop(old);
    let mut store = PostgresArchive::open(&db, "m").unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert!(!store.location().contains(&password(&db).unwrap_or_default()) || password(&db).is_none());
    drop(store);
    let mut pg = client(&db);
    assert_eq!(count(&mut pg, "SELECT count(*) FROM schema_version"), i64::from(SCHEMA_VERSION));

    // A wrong password: the error names the database, without the password.
    let secret = "wrong-Secret-4242";
    let bad = match password(&db) {
        Some(p) => db.replacen(&format!(":{p}@"), &format!(":{secret}@"), 1),
        None => db.replacen("://", &format!("://trajhost:{secret}@"), 1),
    };
    let error = match PostgresArchive::open(&bad, "m") {
        Ok(_) => panic!("connected with a wrong password"),
        Err(e) => e.to_string(),
    };
    assert!(!error.contains(secret), "{error}");
    assert!(error.contains("***") && error.contains("trajhost_t_schema"), "{error}");
    let data = tempfile::tempdir().unwrap();
    let out = run(data.path(), "m", &["search", "x", "--archive", &bad]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!stderr(&out).contains(secret) && stderr(&out).contains("***"), "{}", stderr(&out));
}

/// The password of a `postgres://user:password@…` URL.
fn password(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let userinfo = rest.split_once('@')?.0;
    userinfo.split_once(':').map(|(_, p)| p.to_string())
}

/// Secrets planted in sessions of six harnesses (redaction.rs) reach no
/// table of the shared archive: records, full-text index, titles and evidence
/// are masked by default, and every rule is counted.
#[test]
fn postgres_holds_no_planted_secret_in_any_table() {
    let Some(url) = server() else { return };
    let url = fresh_database(&url, "trajhost_redaction");
    let planted = crate::redaction::planted_home();
    let data = tempfile::tempdir().unwrap();
    let report = json(&run(
        data.path(),
        "m-redact",
        &["--archive", &url, "sync", "--home", path(planted.home.path()), "--json"],
    ));
    assert!(
        report["redactions"].as_object().is_some_and(|m| m.values().filter_map(Value::as_u64).sum::<u64>() > 10),
        "{report}"
    );
    assert!(report["evidence_bytes"].as_u64().unwrap() > 0, "{report}");
    let mut db = client(&url);
    let tables: Vec<String> = db
        .query("SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(tables.len() >= 5, "{tables:?}");
    let mut rows = 0;
    let mut scan = |db: &mut postgres::Client, sql: &str, what: &str| {
        for row in db.query(sql, &[]).unwrap() {
            let text: Option<String> = row.get(0);
            rows += 1;
            let leaks = crate::redaction::leaked(&planted.secrets, text.as_deref().unwrap_or_default());
            assert_eq!(leaks, Vec::<String>::new(), "a secret in the shared archive's {what}");
        }
    };
    for table in &tables {
        scan(&mut db, &format!("SELECT t::text FROM \"{table}\" t"), table);
    }
    // Row text shows bytea as hex: the evidence bytes themselves (printable ASCII stays as is in `escape`).
    let binary: Vec<(String, String)> = db
        .query(
            "SELECT table_name::text, column_name::text FROM information_schema.columns
             WHERE table_schema = current_schema() AND data_type = 'bytea'",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert!(binary.iter().any(|(t, _)| t == "blobs"), "{binary:?}");
    for (table, column) in &binary {
        scan(&mut db, &format!("SELECT encode(\"{column}\", 'escape') FROM \"{table}\""), &format!("{table}.{column}"));
    }
    assert!(rows > 50, "{rows} rows scanned");
}

/// An append to a Codex rollout continues from the cursor the shared archive
/// keeps: the appended line alone is parsed, and what is kept is what a whole
/// read gives.
#[test]
fn postgres_continues_an_appended_rollout_from_its_cursor() {
    const CODEX: &str = "01a22aa5-cfcc-7311-a9b5-d6de00c468b2";
    let Some(url) = server() else { return };
    let db = fresh_database(&url, "trajhost_t_cursor");
    let home = lab_home();
    let data = tempfile::tempdir().unwrap();
    let sync = || json(&run(data.path(), "m", &["sync", "--home", path(home.path()), "--archive", &db, "--json"]));
    sync();
    let file = home.path().join(format!(".codex/sessions/2026/11/30/rollout-2026-11-30T04-10-39-{CODEX}.jsonl"));
    let text = std::fs::read_to_string(&file).unwrap();
    let longest = text.lines().map(str::len).max().unwrap() as u64 + 1;
    // The last line again: a real line of this rollout.
    let appended = format!("{}\n", text.lines().last().unwrap());
    std::fs::write(&file, format!("{text}{appended}")).unwrap();
    let after = sync();
    assert_eq!(after["sessions_updated"], 1, "{after}");
    let parsed = after["bytes_parsed"].as_u64().unwrap();
    assert!(parsed <= appended.len() as u64 + longest, "{parsed} bytes parsed for {} appended", appended.len());
    let whole = run(data.path(), "m", &["read", path(&file), "--json"]);
    let summary: Value =
        serde_json::from_str(stdout(&whole).lines().find(|l| l.starts_with(r#"{"codec""#)).unwrap()).unwrap();
    let listed = json(&run(data.path(), "m", &["sessions", "--archived", "--archive", &db, "--json"]));
    let kept = listed.as_array().unwrap().iter().find(|s| s["native_id"] == CODEX).unwrap().clone();
    assert_eq!(kept["snapshot_id"], summary["snapshot_id"], "{kept}");
    assert_eq!(kept["records"], summary["records"], "{kept}");
}
