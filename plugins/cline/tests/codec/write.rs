//! `write` and `prepare`: every lab scenario read → written → installed →
//! read again; a fresh home gets the CLI's own `sessions.db` schema, an
//! existing one a row without any other byte changing; an unknown schema
//! or a taken id is refused.

use std::collections::BTreeMap;

use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::Operation;
use trajhost_codec_sdk::target::{self, TargetChoice};
use trajhost_codec_sdk::{CodecError, Plan, WriteOptions, WrittenFiles};

use super::*;

const HOME_PATH: &str = "/home/user";

fn options() -> WriteOptions {
    WriteOptions { cwd: None, native_id: None, home_path: Some(HOME_PATH.into()) }
}

fn write_doc(document: &str) -> WrittenFiles {
    trajhost_codec_sdk::write_document::<Cline>(document, options()).unwrap_or_else(|e| panic!("write: {e:?}"))
}

/// The bytes of the messages file among the written artifacts.
fn messages_of(written: &WrittenFiles) -> &[u8] {
    &written.artifacts.iter().find(|a| a.path.ends_with(".messages.json")).expect("a messages file").bytes
}

fn prepare(written: &WrittenFiles, target: &Path) -> Result<Plan, CodecError> {
    trajhost_codec_sdk::prepare_artifacts::<Cline>(written.artifacts.clone(), &Dir::native(target), options())
}

/// Executes a plan the way the host does.
fn execute(plan: &Plan, written: &WrittenFiles, home: &Path) {
    trajhost_codec_testkit::suite::apply_plan(plan, written, home);
}

/// Opens a fixture's database without touching it: `immutable=1` keeps
/// SQLite from creating `-wal`/`-shm` files beside it while other tests copy
/// the fixture.
fn open_untouched(db: &Path) -> rusqlite::Connection {
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI;
    rusqlite::Connection::open_with_flags(format!("file:{}?immutable=1", db.display()), flags).unwrap()
}

/// `(type, name, sql)` of every schema object (SQLite's own autoindexes by name only).
fn schema_of(db: &Path) -> Vec<(String, String, Option<String>)> {
    let conn = open_untouched(db);
    let mut stmt = conn.prepare("SELECT type, name, sql FROM sqlite_master ORDER BY name").unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect()
}

fn user_version(db: &Path) -> i64 {
    open_untouched(db).query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap()
}

/// Every `sessions` row, as JSON, by session id.
fn rows_of(db: &Path) -> BTreeMap<String, Value> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn.prepare("SELECT * FROM sessions").unwrap();
    let names: Vec<String> = stmt.column_names().into_iter().map(str::to_string).collect();
    let rows = stmt
        .query_map([], |r| {
            let mut row = serde_json::Map::new();
            for (i, n) in names.iter().enumerate() {
                let v = match r.get_ref(i)? {
                    rusqlite::types::ValueRef::Null => Value::Null,
                    rusqlite::types::ValueRef::Integer(i) => json!(i),
                    rusqlite::types::ValueRef::Real(f) => json!(f),
                    rusqlite::types::ValueRef::Text(t) => json!(String::from_utf8_lossy(t)),
                    rusqlite::types::ValueRef::Blob(b) => json!(b.len()),
                };
                row.insert(n.clone(), v);
            }
            Ok(Value::Object(row))
        })
        .unwrap();
    rows.map(Result::unwrap).map(|r| (r["session_id"].as_str().unwrap().to_string(), r)).collect()
}

#[test]
fn prompts_are_written_in_the_clis_wrapper() {
    let written = write_doc(&lab().read_copy("simple").document);
    assert_eq!(written.artifacts.len(), 2, "manifest and messages");
    let messages: Value = serde_json::from_slice(messages_of(&written)).unwrap();
    let first = messages["messages"][0]["content"][0]["text"].as_str().unwrap();
    assert!(first.starts_with("<user_input mode=\"act\">") && first.ends_with("</user_input>"), "{first}");
}

#[test]
fn a_written_session_has_a_cline_id_and_keeps_parallel_calls_together() {
    let source = lab().read_copy("parallel");
    let a = write_doc(&source.document);
    let (ms, tail) = a.native_id.split_once('_').unwrap();
    let started = trajhost_codec_sdk::time::parse_rfc3339(source.meta().started_at.as_deref().unwrap()).unwrap();
    assert_eq!((ms.parse::<i64>().unwrap(), tail.len()), (started, 5));
    // Parallel calls stay in one assistant message, their results in one user message.
    let messages: Value = serde_json::from_slice(messages_of(&a)).unwrap();
    let with_two_calls = messages["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["content"].as_array().unwrap().iter().filter(|b| b["type"] == "tool_use").count() == 2);
    assert_eq!(with_two_calls.count(), 1);
    let with_two_results = messages["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["content"].as_array().unwrap().iter().filter(|b| b["type"] == "tool_result").count() == 2);
    assert_eq!(with_two_results.count(), 1);
}

#[test]
fn a_fresh_home_gets_the_clis_sessions_db_and_an_absolute_messages_path() {
    let source = lab().read_copy("simple");
    let written = write_doc(&source.document);
    let target = tempfile::tempdir().unwrap();
    let plan = prepare(&written, target.path()).unwrap();
    let ops: Vec<&str> = plan
        .operations
        .iter()
        .map(|op| match op {
            Operation::CopyArtifact(_) => "copy-artifact",
            Operation::CreateFile(_) => "create-file",
            Operation::CreateDatabase(_) => "create-database",
            _ => "other",
        })
        .collect();
    assert_eq!(ops, ["copy-artifact", "create-file", "create-database"]);
    execute(&plan, &written, target.path());
    let db = target.path().join(INDEX);
    // Byte for byte the schema the CLI created in the fixture, and its user_version.
    let cli_db = lab().home("simple").join(INDEX);
    assert_eq!(schema_of(&db), schema_of(&cli_db));
    assert_eq!(user_version(&db), user_version(&cli_db));
    let rows = rows_of(&db);
    let row = &rows[&written.native_id];
    let messages_path = format!("{HOME_PATH}/{}", locator(&written.native_id));
    assert_eq!(row["messages_path"], json!(messages_path));
    assert_eq!(row["cwd"], json!("/home/user/project"));
    assert_eq!(row["workspace_root"], json!("/home/user/project"));
    assert_eq!(row["prompt"], json!("Read hello.txt and tell me the secret word."));
    assert_eq!(row["source"], json!("cli"));
    assert_eq!(row["status"], json!("completed"));
    let metadata: Value = serde_json::from_str(row["metadata_json"].as_str().unwrap()).unwrap();
    assert_eq!(metadata["sessionHistoryOrigin"]["version"], json!("3.0.65"));
    // The CLI's own row has the same columns filled (NULLs where ours are).
    let cli_rows = rows_of(&cli_db);
    let cli_row = cli_rows.values().next().unwrap();
    for (name, value) in cli_row.as_object().unwrap() {
        assert!(row.get(name).is_some(), "column {name}");
        if !value.is_null() && !["team_name", "ended_at", "exit_code"].contains(&name.as_str()) {
            assert!(!row[name].is_null(), "column {name} left NULL");
        }
    }
    let manifest_path = target.path().join(format!(".cline/data/sessions/{0}/{0}.json", written.native_id));
    let m: Value = serde_json::from_slice(&std::fs::read(manifest_path).unwrap()).unwrap();
    assert_eq!(m["messages_path"], json!(messages_path));
    assert_eq!(m["session_id"], json!(written.native_id));
    assert_eq!(
        plan.resume_command.as_deref(),
        Some(format!("cd /home/user/project && HOME=/home/user cline --id {}", written.native_id).as_str())
    );
}

/// The suite checks the files beside stay byte-identical; in the index,
/// every other row does, and one is added.
#[test]
fn an_existing_index_gets_one_row_and_keeps_the_others() {
    // A home the real CLI left (simple), receiving another session (multibyte).
    let target = lab().copy("simple");
    let db = target.path().join(INDEX);
    let before_rows = rows_of(&db);
    let written = write_doc(&lab().read_copy("multibyte").document);
    let plan = prepare(&written, target.path()).unwrap();
    assert!(
        matches!(plan.operations.last(), Some(Operation::InsertRows(r)) if r.database == INDEX && r.table == "sessions")
    );
    execute(&plan, &written, target.path());
    let after_rows = rows_of(&db);
    assert_eq!(after_rows.len(), before_rows.len() + 1);
    for (id, row) in &before_rows {
        assert_eq!(&after_rows[id], row, "row {id} changed");
    }
}

#[test]
fn an_unknown_schema_or_version_is_refused_naming_the_database() {
    let written = write_doc(&lab().read_copy("simple").document);
    let cases: [(&str, &str); 4] = [
        ("ALTER TABLE sessions ADD COLUMN extra TEXT", "unexpected column extra"),
        ("PRAGMA user_version = 3", "user_version 3, expected 0"),
        ("ALTER TABLE sessions DROP COLUMN conversation_id", "missing column conversation_id"),
        ("DROP TABLE sessions", "no sessions table"),
    ];
    for (change, expected) in cases {
        let target = lab().copy("failing-tool");
        let db = target.path().join(INDEX);
        rusqlite::Connection::open(&db).unwrap().execute_batch(change).unwrap();
        let before = kit::files_of(target.path());
        let err = prepare(&written, target.path()).unwrap_err();
        let text = format!("{err:?}");
        assert!(text.contains(INDEX) && text.contains(expected), "{change}: {text}");
        assert!(matches!(err, CodecError::Unsupported(_)), "{change}: {err:?}");
        assert_eq!(kit::files_of(target.path()), before, "{change}: prepare changed the home");
    }
    // A column whose declaration changed.
    let target = tempfile::tempdir().unwrap();
    let db = target.path().join(INDEX);
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    let schema = trajhost_codec_cline::prepare::SCHEMA[0].replace("pid INTEGER NOT NULL", "pid INTEGER");
    conn.execute_batch(&schema).unwrap();
    let err = prepare(&written, target.path()).unwrap_err();
    assert!(format!("{err:?}").contains("column pid is INTEGER NULL, expected INTEGER NOT NULL"), "{err:?}");
}

#[test]
fn a_taken_session_id_is_refused() {
    let written = write_doc(&lab().read_copy("simple").document);
    let target = tempfile::tempdir().unwrap();
    let plan = prepare(&written, target.path()).unwrap();
    execute(&plan, &written, target.path());
    // Its directory is there.
    let err = prepare(&written, target.path()).unwrap_err();
    assert!(format!("{err:?}").contains("already exists"), "{err:?}");
    // Only its row is there.
    std::fs::remove_dir_all(target.path().join(format!(".cline/data/sessions/{}", written.native_id))).unwrap();
    let err = prepare(&written, target.path()).unwrap_err();
    assert!(format!("{err:?}").contains("already registered"), "{err:?}");
}

#[test]
fn provider_and_model_come_from_the_choice_else_the_targets_settings() {
    let written = write_doc(&lab().read_copy("simple").document);
    let row_of = |target: &Path, plan: &Plan| {
        execute(plan, &written, target);
        rows_of(&target.join(INDEX)).remove(&written.native_id).unwrap()
    };
    // The target's providers.json (what `cline auth` wrote).
    let target = tempfile::tempdir().unwrap();
    let settings = target.path().join(".cline/data/settings/providers.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        r#"{"version":1,"lastUsedProvider":"openrouter","providers":{"openrouter":{"settings":{"provider":"openrouter","model":"z-model"}}}}"#,
    )
    .unwrap();
    let row = row_of(target.path(), &prepare(&written, target.path()).unwrap());
    assert_eq!((row["provider"].as_str(), row["model"].as_str()), (Some("openrouter"), Some("z-model")));
    // The user's choice wins.
    let target = tempfile::tempdir().unwrap();
    target::set_for_tests(TargetChoice {
        model: Some("m-1".into()),
        provider: Some("anthropic".into()),
        allow_untested: false,
    });
    let plan = prepare(&written, target.path());
    target::set_for_tests(TargetChoice::default());
    let row = row_of(target.path(), &plan.unwrap());
    assert_eq!((row["provider"].as_str(), row["model"].as_str()), (Some("anthropic"), Some("m-1")));
    // Neither: the model the session used.
    let target = tempfile::tempdir().unwrap();
    let row = row_of(target.path(), &prepare(&written, target.path()).unwrap());
    assert_eq!(row["model"].as_str(), Some("gpt-4o"));
}

#[test]
fn what_cline_cannot_hold_is_named() {
    let doc = [
        json!({"id":"m","kind":"meta","schema":"trajhost.canonical/0.1","harness":"toy","native_id":"s1",
               "cwd":"/p","started_at":"2026-11-30T04:05:50Z"}),
        json!({"id":"r0","kind":"system","text":"You are toy."}),
        json!({"id":"r1","kind":"user","text":"hi","attachments":[{"kind":"image","media_type":"image/png"}],
               "ts":"2026-11-30T04:05:51Z"}),
        json!({"id":"r2","kind":"reasoning","text":"think","opaque":"sig","encrypted":false}),
        json!({"id":"r3","kind":"assistant","text":"hello","model":"x","usage":{"input":3,"output":4,"reasoning":1}}),
        json!({"id":"r4","kind":"observation","subtype":"mode","text":"plan"}),
        json!({"id":"r5","kind":"compaction","summary":"earlier"}),
        json!({"id":"r6","kind":"user","text":"sub","agent":"a1"}),
    ]
    .iter()
    .map(|v| format!("{v}\n"))
    .collect::<String>();
    let written = write_doc(&doc);
    let mut carried: Vec<&str> =
        written.diagnostics.iter().filter(|d| d.code == "not-carried").map(|d| d.detail.as_str()).collect();
    carried.sort();
    assert_eq!(
        carried,
        [
            "attachments",
            "compaction",
            "observation/mode",
            "opaque-reasoning",
            "subagent-transcript",
            "system-prompt",
            "usage.reasoning"
        ]
    );
    let messages: Value = serde_json::from_slice(messages_of(&written)).unwrap();
    assert!(messages.get("system_prompt").is_none());
    let assistant = &messages["messages"][1];
    assert_eq!(assistant["content"][0], json!({"type":"thinking","thinking":"think","signature":""}));
    assert_eq!(assistant["content"][1], json!({"type":"text","text":"hello"}));
    assert_eq!(assistant["metrics"], json!({"inputTokens":3,"outputTokens":4}));
    // No cwd anywhere: refused.
    let no_cwd = doc.replace(r#""cwd":"/p","#, "");
    let err = trajhost_codec_sdk::write_document::<Cline>(&no_cwd, options()).unwrap_err();
    assert!(format!("{err:?}").contains("working directory"), "{err:?}");
}

#[test]
fn the_writer_streams_each_message_once_the_next_begins() {
    let line = |v: Value| format!("{v}\n");
    let mut writer = Cline::write(options()).unwrap();
    // No start time yet: nothing can be named, nothing is written.
    let meta =
        json!({"id":"m","kind":"meta","schema":"trajhost.canonical/0.1","harness":"toy","native_id":"s1","cwd":"/p"});
    assert!(writer.push(&line(meta)).unwrap().is_empty());
    let first = writer.push(&line(json!({"id":"u1","kind":"user","text":"one","ts":"2026-11-30T04:05:51Z"}))).unwrap();
    // The header and the prompt (complete as it comes).
    assert_eq!(first.len(), 1);
    assert!(first[0].path.starts_with(".cline/data/sessions/1796011551000_"), "{}", first[0].path);
    let text = String::from_utf8(first[0].bytes.clone()).unwrap();
    assert!(text.contains(r#"<user_input mode=\"act\">one</user_input>"#), "{text}");
    // An answer stays open: a call may still join it.
    let next = writer.push(&line(json!({"id":"a1","kind":"assistant","text":"two"}))).unwrap();
    assert!(next.is_empty());
    let done = writer.finish().unwrap();
    let mut bytes: Vec<u8> = first.into_iter().chain(next).flat_map(|c| c.bytes).collect();
    for c in done.chunks.iter().filter(|c| c.path.ends_with(".messages.json")) {
        bytes.extend_from_slice(&c.bytes);
    }
    let doc: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(doc["messages"].as_array().unwrap().len(), 2);
    assert_eq!(doc["messages"][1]["content"][0]["text"], json!("two"));
    assert_eq!(doc["updated_at"], json!("2026-11-30T04:05:51.000Z"));
    assert!(done.diagnostics.iter().all(|d| d.code != "no-timestamp"));
}

#[test]
fn a_home_of_another_cline_version_needs_allow_untested() {
    let written = write_doc(&lab().read_copy("simple").document);
    let target = lab().copy("parallel");
    let conn = rusqlite::Connection::open(target.path().join(INDEX)).unwrap();
    conn.execute("UPDATE sessions SET metadata_json = replace(metadata_json, '\"3.0.65\"', '\"3.1.0\"')", []).unwrap();
    drop(conn);
    let err = prepare(&written, target.path()).unwrap_err();
    let text = format!("{err:?}");
    assert!(text.contains("Cline 3.1.0") && text.contains("3.0.65") && text.contains("--allow-untested"), "{text}");
    target::set_for_tests(TargetChoice { allow_untested: true, ..TargetChoice::default() });
    let plan = prepare(&written, target.path());
    let reported = target::reported_untested();
    target::set_for_tests(TargetChoice::default());
    assert!(plan.is_ok(), "{plan:?}");
    let reported = reported.expect("reported as untested");
    assert_eq!((reported.found.as_deref(), reported.tested.as_str()), (Some("3.1.0"), "3.0.65"));
}
