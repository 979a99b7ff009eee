//! `write` and `prepare` beyond the suite's round trips: what the written
//! thread holds, the store a fresh home gets (dcode's own schema), one row
//! added beside other threads (their rows as they were), the schema checks.

use std::path::Path;

use trajhost_codec_deep_agents::{DeepAgents, export, prepare as prep};
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::target::{self, TargetChoice};
use trajhost_codec_sdk::{Operation, Plan, WriteOptions, WrittenFiles};
use trajhost_codec_testkit::suite::apply_plan;
use trajhost_codec_testkit::{self as kit, Read};

use super::{DB, read_scenario};

const CWD: &str = "/home/user/project";

fn options() -> WriteOptions {
    WriteOptions { cwd: Some(CWD.into()), native_id: None, home_path: Some("/home/user".into()) }
}

fn write(records: &[Record]) -> WrittenFiles {
    trajhost_codec_sdk::write_document::<DeepAgents>(&kit::document(records), options()).unwrap()
}

/// The written artifacts as a home, read back through discovery.
fn read_back(written: &WrittenFiles) -> (tempfile::TempDir, Read) {
    let home = kit::install(written);
    let found = kit::discover::<DeepAgents>(home.path());
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].native_id, written.native_id);
    let read = kit::read::<DeepAgents>(home.path(), &found.sessions[0].locator);
    (home, read)
}

fn prepare(written: &WrittenFiles, target: &Path) -> Result<Plan, trajhost_codec_sdk::CodecError> {
    trajhost_codec_sdk::prepare_artifacts::<DeepAgents>(written.artifacts.clone(), &Dir::native(target), options())
}

#[test]
fn reasoning_system_and_odd_arguments() {
    let doc = r#"{"id":"s","kind":"meta","schema":"trajhost.canonical/0.1","harness":"x","native_id":"n1","ts":"2026-01-01T00:00:00Z"}
{"id":"u1","kind":"user","text":"hi","ts":"2026-01-01T00:00:01Z"}
{"id":"sy","kind":"system","text":"be nice"}
{"id":"r1","kind":"reasoning","text":"think","opaque":"sig","encrypted":false}
{"id":"r2","kind":"reasoning","opaque":"blob","encrypted":true}
{"id":"a1","kind":"assistant","text":"one","model":"m1"}
{"id":"c1","kind":"tool_call","call_id":"c1","name":"sh","arguments":"not json"}
{"id":"t1","kind":"tool_result","call_id":"c1","content":"out","ok":false}
{"id":"a2","kind":"assistant","text":"two"}
{"id":"a3","kind":"assistant","text":"three","ts":"2026-01-01T00:01:00Z"}
"#;
    let written = trajhost_codec_sdk::write_document::<DeepAgents>(doc, options()).unwrap();
    let nc: Vec<&str> =
        written.diagnostics.iter().filter(|d| d.code == "not-carried").map(|d| d.detail.as_str()).collect();
    assert_eq!(nc.len(), 1);
    assert!(nc[0].starts_with("system: 1"), "{nc:?}");
    let (_, back) = read_back(&written);
    assert_eq!(kit::assistant_texts(&back.records), ["one", "two", "three"]);
    let r = kit::reasonings(&back.records);
    assert_eq!((r[0].text.as_deref(), r[0].opaque.as_deref()), (Some("think"), Some("sig")));
    assert_eq!((r[1].text.as_deref(), r[1].opaque.as_deref(), r[1].encrypted), (None, Some("blob"), true));
    assert_eq!(kit::tool_calls(&back.records)[0].2, &serde_json::json!("not json"));
    assert_eq!(kit::tool_results(&back.records), [("c1", "out", Some(false))]);
    let meta = back.meta();
    assert_eq!(meta.started_at.as_deref(), Some("2026-01-01T00:00:00.000Z"));
    assert_eq!(back.records.iter().filter(|r| matches!(r.body, Body::Assistant(_))).count(), 3);
}

/// The rows of every table, as text, for byte comparisons.
fn dump(db: &Path) -> Vec<String> {
    rows_of(db, &["checkpoints", "writes"], "quote(thread_id), hex(CAST(rowid AS TEXT)), *")
}

/// The rows of `tables`, each as its `columns`' values joined.
fn rows_of(db: &Path, tables: &[&str], columns: &str) -> Vec<String> {
    let c = rusqlite::Connection::open(db).unwrap();
    let mut out = Vec::new();
    for table in tables {
        let mut s = c.prepare(&format!("SELECT {columns} FROM {table}")).unwrap();
        let n = s.column_count();
        let rows = s
            .query_map([], |row| {
                let mut line = String::new();
                for i in 0..n {
                    let v: rusqlite::types::Value = row.get(i)?;
                    line.push_str(&format!("{v:?}|"));
                }
                Ok(line)
            })
            .unwrap();
        out.extend(rows.map(|r| r.unwrap()));
    }
    out
}

#[test]
fn prepare_creates_a_fresh_store_that_reads_back() {
    let (_, first) = read_scenario("simple");
    let written = write(&first.records);
    let target = tempfile::tempdir().unwrap();
    target::set_for_tests(TargetChoice { model: Some("openai:gpt-5".into()), ..TargetChoice::default() });
    let plan = prepare(&written, target.path()).unwrap();
    target::set_for_tests(TargetChoice::default());
    let Operation::CreateDatabase(d) = &plan.operations[0] else { panic!("{:?}", plan.operations) };
    assert_eq!((d.path.as_str(), d.schema.len(), d.user_version), (DB, 3, Some(0)));
    assert_eq!(
        plan.resume_command.as_deref(),
        Some(format!("cd {CWD} && HOME=/home/user dcode -M openai:gpt-5 -r {}", plan.native_id).as_str())
    );
    apply_plan(&plan, &written, target.path());
    let found = kit::discover::<DeepAgents>(target.path());
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].cwd.as_deref(), Some(CWD));
    assert_eq!(found.sessions[0].native_version.as_deref(), Some("0.1.57"));
    let back = kit::read::<DeepAgents>(target.path(), &found.sessions[0].locator);
    // The installed thread has the schema of a store dcode made itself.
    let made = rusqlite::Connection::open(target.path().join(DB)).unwrap();
    let sql = |c: &rusqlite::Connection| -> Vec<String> {
        let mut s = c.prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name").unwrap();
        s.query_map([], |r| r.get(0)).unwrap().map(|r| r.unwrap()).collect()
    };
    let real = open_untouched(&super::fixtures().join("simple").join(DB));
    assert_eq!(sql(&made), sql(&real));
    // Every message id is unique (dcode's replay indexes them).
    let ids: Vec<&str> =
        back.records.iter().filter(|r| !matches!(r.body, Body::Meta(_))).map(|r| r.id.as_str()).collect();
    assert!(!ids.is_empty());
}

#[test]
fn prepare_adds_one_checkpoint_row_and_leaves_the_other_rows_as_they_were() {
    let (_, first) = read_scenario("simple");
    let written = write(&first.records);
    let target = super::home("parallel");
    let db = target.path().join(DB);
    let before = dump(&db);
    let plan = prepare(&written, target.path()).unwrap();
    assert!(
        matches!(&plan.operations[..], [Operation::InsertRows(r)] if r.table == "checkpoints" && r.rows.len() == 1)
    );
    apply_plan(&plan, &written, target.path());
    let after = dump(&db);
    assert_eq!(after.len(), before.len() + 1);
    let others: Vec<String> = after.iter().filter(|l| !l.contains(&plan.native_id)).cloned().collect();
    assert_eq!(others, before, "the other threads' rows changed");
}

#[test]
fn prepare_refuses_a_store_it_does_not_know() {
    let (_, first) = read_scenario("simple");
    let written = write(&first.records);
    for (what, sql) in [
        ("user_version", "PRAGMA user_version = 3"),
        ("columns", "ALTER TABLE checkpoints ADD COLUMN extra TEXT"),
        ("tables", "CREATE TABLE checkpoint_blobs (x)"),
    ] {
        let target = super::home("parallel");
        let db = target.path().join(DB);
        rusqlite::Connection::open(&db).unwrap().execute_batch(sql).unwrap();
        let before = kit::tree_digest(target.path());
        let err = format!("{:?}", prepare(&written, target.path()).unwrap_err());
        assert!(err.contains(DB) && err.contains(what), "{what}: {err}");
        assert_eq!(kit::tree_digest(target.path()), before);
    }
}

#[test]
fn the_checkpoint_blob_decodes_as_langgraph_wrote_it() {
    let (_, first) = read_scenario("simple");
    let written = write(&first.records);
    let e = export::parse(&written.artifacts[0].bytes, export::FILE).unwrap();
    let blob = prep::checkpoint_blob(&e, "2026-01-01T00:00:00.000000+00:00");
    let v = trajhost_codec_deep_agents::msgpack::decode(&blob).unwrap();
    assert_eq!(v["v"], 4);
    let messages = v["channel_values"]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), e.messages.len());
    assert_eq!(messages[0]["name"], "HumanMessage");
    assert_eq!(messages[0]["module"], "langchain_core.messages.human");
}

#[test]
fn the_export_fixture_reads_as_a_thread() {
    let home = kit::fixtures_root().join("deep-agents/export/home");
    let found = kit::discover::<DeepAgents>(&home);
    assert_eq!(found.sessions.len(), 1);
    let s = &found.sessions[0];
    assert_eq!(s.native_id, "01a00000-0000-7000-8000-000000000001");
    assert_eq!(s.locator, format!("{}#{}", export::FILE, s.native_id));
    assert_eq!((s.cwd.as_deref(), s.title.as_deref()), (Some("/work/demo"), Some("List the files.")));
    assert_eq!(s.started_at.as_deref(), Some("2026-01-02T03:04:00.000Z"));
    assert_eq!(s.updated_at.as_deref(), Some("2026-01-02T03:04:05.000Z"));
    let r = kit::read::<DeepAgents>(&home, &s.locator);
    assert_eq!(
        kit::kinds(&r.records),
        ["meta", "user", "reasoning", "assistant", "tool_call", "tool_result", "assistant"]
    );
    assert_eq!(kit::users(&r.records), ["List the files."]);
    assert_eq!(kit::assistant_texts(&r.records), ["Listing.", "Two files: a.txt and b.txt."]);
    assert_eq!(kit::tool_calls(&r.records), [("call-1", "execute", &serde_json::json!({"command": "ls"}))]);
    assert_eq!(kit::tool_results(&r.records), [("call-1", "a.txt\nb.txt", Some(true))]);
    let z = kit::reasonings(&r.records);
    assert_eq!((z[0].text.as_deref(), z[0].opaque.as_deref()), (Some("Use ls."), Some("sig-1")));
    let usage = kit::assistants(&r.records)[0].usage.clone().unwrap();
    assert_eq!((usage.input, usage.cache_read, usage.output), (Some(10), Some(2), Some(3)));
    kit::check_unique_ids(&r);
}

#[test]
fn prepare_refuses_a_store_of_another_version_unless_allowed() {
    let (_, first) = read_scenario("simple");
    let written = write(&first.records);
    let target = super::home("parallel");
    let db = target.path().join(DB);
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(
            "UPDATE checkpoints SET metadata = CAST(json_set(CAST(metadata AS TEXT), \
             '$.lc_versions.\"deepagents-code\"', '0.2.0') AS BLOB) WHERE rowid = (SELECT max(rowid) FROM checkpoints)",
        )
        .unwrap();
    let err = format!("{:?}", prepare(&written, target.path()).unwrap_err());
    assert!(err.contains("0.2.0") && err.contains("0.1.57") && err.contains("--allow-untested"), "{err}");
    target::set_for_tests(TargetChoice { allow_untested: true, ..TargetChoice::default() });
    let plan = prepare(&written, target.path());
    let reported = target::reported_untested();
    target::set_for_tests(TargetChoice::default());
    assert!(plan.is_ok());
    let reported = reported.unwrap();
    assert_eq!((reported.found.as_deref(), reported.tested.as_str()), (Some("0.2.0"), "0.1.57, 0.1.88"));
}

#[test]
fn prepare_adds_a_thread_to_a_store_dcode_0_1_88_used_and_leaves_its_workspace_tables_alone() {
    let (_, first) = read_scenario("simple");
    let written = write(&first.records);
    // The home the real dcode 0.1.88 left: its own thread, bound to a workspace.
    let target = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(target.path().join(".deepagents/.state")).unwrap();
    let fixture = kit::fixtures("deep-agents", "0.1.88").join("simple").join(DB);
    std::fs::copy(&fixture, target.path().join(DB)).unwrap();
    let db = target.path().join(DB);
    let workspace_rows = |db: &Path| rows_of(db, &["dcode_thread_workspaces", "dcode_workspace_snapshots"], "*");
    let (before, bound) = (dump(&db), workspace_rows(&db));
    assert_eq!(bound.len(), 2, "the fixture's thread has its workspace binding and snapshot");
    let plan = prepare(&written, target.path()).unwrap();
    assert!(
        matches!(&plan.operations[..], [Operation::InsertRows(r)] if r.table == "checkpoints" && r.rows.len() == 1)
    );
    apply_plan(&plan, &written, target.path());
    assert_eq!(workspace_rows(&db), bound, "the workspace tables are dcode's alone");
    let after = dump(&db);
    let others: Vec<String> = after.iter().filter(|l| !l.contains(&plan.native_id)).cloned().collect();
    assert_eq!(others, before, "dcode's own thread is as it was");
    let found = kit::discover::<DeepAgents>(target.path());
    assert!(found.sessions.iter().any(|s| s.native_id == plan.native_id), "{:?}", found.sessions);
}

/// Opens a fixture's database without touching it: `immutable=1` keeps
/// SQLite from creating `-wal`/`-shm` files beside it while other tests copy
/// the fixture.
fn open_untouched(db: &Path) -> rusqlite::Connection {
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI;
    rusqlite::Connection::open_with_flags(format!("file:{}?immutable=1", db.display()), flags).unwrap()
}
