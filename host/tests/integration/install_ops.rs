//! Every install operation of API 0.3 planned by a real wasm codec
//! (`tests/install-ops`) and applied by `trajhost prepare`: into a fresh home,
//! into a home whose stores already hold other sessions (which stay as they
//! were), refused a second time, and unchanged by `--dry-run`.

use std::path::Path;

use crate::common::*;

struct Setup {
    data: tempfile::TempDir,
    _out: tempfile::TempDir,
    export: std::path::PathBuf,
    native_id: String,
}

/// Installs the test codec and converts the Claude Code fixture into it.
fn setup() -> Setup {
    let data = tempfile::tempdir().unwrap();
    let install = trajhost(data.path(), &["plugin", "install", guest("trajhost-install-ops").to_str().unwrap()]);
    assert!(install.status.success(), "{}", stderr(&install));
    let out = tempfile::tempdir().unwrap();
    let (export, manifest) = convert_claude_fixture(data.path(), out.path(), "install-ops");
    assert_eq!(manifest["fidelity"]["tier"], "value-lossless", "{manifest:#}");
    let native_id = manifest["target"]["native_id"].as_str().unwrap().to_string();
    Setup { data, _out: out, export, native_id }
}

fn prepare(setup: &Setup, home: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["prepare", setup.export.to_str().unwrap(), "--home", home.to_str().unwrap()];
    args.extend_from_slice(extra);
    trajhost(setup.data.path(), &args)
}

fn rows(db: &Path) -> Vec<(String, String, String)> {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut stmt = conn.prepare("SELECT id, path, cwd FROM sessions ORDER BY id").unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect()
}

#[test]
fn a_fresh_home_gets_every_operation_applied() {
    let setup = setup();
    let home = tempfile::tempdir().unwrap();
    let home_path = std::fs::canonicalize(home.path()).unwrap();
    let output = prepare(&setup, &home_path, &["--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let ops: Vec<&str> = report["operations"].as_array().unwrap().iter().map(|o| o["op"].as_str().unwrap()).collect();
    assert_eq!(ops, ["copy-artifact", "create-database", "add-json-entry", "add-json-entry", "create-file"]);

    let id = &setup.native_id;
    let session = home_path.join(format!("install-ops/sessions/{id}.jsonl"));
    let artifact = setup.export.join(format!("artifacts/install-ops/sessions/{id}.jsonl"));
    assert_eq!(std::fs::read(&session).unwrap(), std::fs::read(&artifact).unwrap(), "copy-artifact copies the bytes");
    let db = home_path.join("install-ops/index.db");
    assert_eq!(rows(&db), [(id.clone(), session.display().to_string(), "/home/user/project".to_string())]);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, 3);
    let config: serde_json::Value =
        serde_json::from_slice(&std::fs::read(home_path.join("install-ops/config.json")).unwrap()).unwrap();
    assert_eq!(config["work_dirs"], serde_json::json!([{"path": "/home/user/project"}]));
    assert_eq!(config["sessions"][id.as_str()], serde_json::json!({"cwd": "/home/user/project"}));
    assert!(home_path.join(format!("install-ops/sessions/{id}.meta.json")).is_file());
    // No staging or journal files are left behind.
    let leftovers: Vec<_> =
        tree_hashes(&home_path).into_keys().filter(|p| p.to_string_lossy().contains("trajhost-")).collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    assert!(
        std::fs::read_dir(setup.data.path().join("installs")).map_or(true, |mut d| d.all(|e| e
            .unwrap()
            .path()
            .extension()
            .is_none_or(|x| x != "json")))
    );

    // The installed session is found and read by the codec.
    let sessions = trajhost(
        setup.data.path(),
        &["sessions", "--home", home_path.to_str().unwrap(), "--harness", "install-ops", "--json"],
    );
    assert!(stdout(&sessions).contains(id.as_str()), "{}", stdout(&sessions));

    // A second prepare is refused and changes nothing.
    let before = tree_hashes(&home_path);
    let again = prepare(&setup, &home_path, &[]);
    assert!(!again.status.success());
    assert!(stderr(&again).contains("exists"), "{}", stderr(&again));
    assert_eq!(tree_hashes(&home_path), before);
}

#[test]
fn a_home_with_other_sessions_keeps_them_and_gains_this_one() {
    let setup = setup();
    let home = tempfile::tempdir().unwrap();
    let home_path = std::fs::canonicalize(home.path()).unwrap();
    std::fs::create_dir_all(home_path.join("install-ops/sessions")).unwrap();
    let db = home_path.join("install-ops/index.db");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, path TEXT NOT NULL, cwd TEXT);
             INSERT INTO sessions VALUES ('other', '/elsewhere/other.jsonl', '/home/user/project');",
        )
        .unwrap();
    }
    // An existing index whose work_dirs already has this cwd, with its own formatting.
    let config = home_path.join("install-ops/config.json");
    let original = "{\n  \"work_dirs\": [\n    {\"path\": \"/home/user/project\", \"note\": \"kept\"}\n  ],\n  \"theme\": \"dark\"\n}\n";
    std::fs::write(&config, original).unwrap();
    std::fs::write(home_path.join("install-ops/sessions/other.jsonl"), "{}\n").unwrap();
    let other_before = std::fs::read(home_path.join("install-ops/sessions/other.jsonl")).unwrap();
    // A history the harness only appends to: the plan appends a line, expecting these bytes.
    let history = home_path.join("install-ops/history.md");
    let history_before = b"session other\n".to_vec();
    std::fs::write(&history, &history_before).unwrap();

    // --dry-run validates and changes nothing.
    let before = tree_hashes(&home_path);
    let dry = prepare(&setup, &home_path, &["--dry-run", "--json"]);
    assert!(dry.status.success(), "{}", stderr(&dry));
    assert!(stdout(&dry).contains("insert-rows"), "an existing index gets rows, not a new database: {}", stdout(&dry));
    assert!(stdout(&dry).contains("append-file"), "an existing history is appended to: {}", stdout(&dry));
    assert_eq!(tree_hashes(&home_path), before);

    let output = prepare(&setup, &home_path, &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    let id = &setup.native_id;
    let all = rows(&db);
    assert_eq!(all.len(), 2, "{all:?}");
    assert!(all.contains(&("other".into(), "/elsewhere/other.jsonl".into(), "/home/user/project".into())));
    let text = std::fs::read_to_string(&config).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        value["work_dirs"],
        serde_json::json!([{"path": "/home/user/project", "note": "kept"}]),
        "matched by path: not added twice"
    );
    assert_eq!(value["theme"], "dark");
    assert!(value["sessions"][id.as_str()].is_object(), "{text}");
    assert!(
        text.starts_with("{\n  \"work_dirs\": [\n    {\"path\": \"/home/user/project\", \"note\": \"kept\"}\n  ]"),
        "formatting kept: {text}"
    );
    assert_eq!(std::fs::read(home_path.join("install-ops/sessions/other.jsonl")).unwrap(), other_before);
    let appended = std::fs::read(&history).unwrap();
    assert_eq!(appended, [history_before.as_slice(), format!("session {id}\n").as_bytes()].concat());
}
