//! `write` and `prepare`: every lab scenario read → written → read back (from
//! the export and from the `state.db` the plan makes), a fresh home and a
//! home with other sessions (their rows unchanged), and the refusals.

use std::collections::BTreeMap;
use std::path::Path;

use rusqlite::types::Value as Sql;
use trajhost_codec_hermes::{Hermes, export, schema};
use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA};
use trajhost_codec_sdk::sqlite::Value;
use trajhost_codec_sdk::target::{self, TargetChoice};
use trajhost_codec_sdk::{CodecError, Operation, Plan, WriteOptions, WrittenFiles};

use super::*;

fn options(native_id: Option<&str>) -> WriteOptions {
    WriteOptions { cwd: None, native_id: native_id.map(str::to_string), home_path: Some("/home/user".into()) }
}

fn write(document: &str, native_id: Option<&str>) -> WrittenFiles {
    target::set_for_tests(TargetChoice::default());
    trajhost_codec_sdk::write_document::<Hermes>(document, options(native_id)).unwrap()
}

/// The export laid out as a home.
fn export_home(written: &WrittenFiles) -> tempfile::TempDir {
    kit::install(written)
}

fn plan(written: &WrittenFiles, target: &Path) -> Result<Plan, CodecError> {
    trajhost_codec_sdk::prepare_artifacts::<Hermes>(
        written.artifacts.clone(),
        &Dir::native(target),
        options(Some(&written.native_id)),
    )
}

fn sql_value(v: &Value) -> Sql {
    match v {
        Value::Null => Sql::Null,
        Value::Integer(i) => Sql::Integer(*i),
        Value::Real(f) => Sql::Real(*f),
        Value::Text(s) => Sql::Text(s.clone()),
        Value::Blob(b) => Sql::Blob(b.clone()),
    }
}

fn insert(conn: &rusqlite::Connection, table: &str, columns: &[String], rows: &[Vec<Value>]) {
    let sql = format!(
        "INSERT INTO \"{table}\" ({}) VALUES ({})",
        columns.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", "),
        vec!["?"; columns.len()].join(", ")
    );
    for row in rows {
        assert_eq!(row.len(), columns.len(), "{table}: row width");
        conn.execute(&sql, rusqlite::params_from_iter(row.iter().map(sql_value))).unwrap();
    }
}

/// Applies a plan the way the host does (all in one transaction per database).
fn apply(plan: &Plan, home: &Path) {
    for op in &plan.operations {
        match op {
            Operation::CreateDatabase(c) => {
                let path = home.join(&c.path);
                assert!(!path.exists(), "plan overwrites {}", c.path);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                let conn = rusqlite::Connection::open(&path).unwrap();
                for statement in &c.schema {
                    let first = statement.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
                    assert!(
                        ["CREATE TABLE", "CREATE INDEX", "CREATE UNIQUE", "CREATE TRIGGER", "CREATE VIRTUAL"]
                            .contains(&first.as_str()),
                        "{statement}"
                    );
                    conn.execute_batch(statement).unwrap();
                }
                if let Some(v) = c.user_version {
                    conn.pragma_update(None, "user_version", v).unwrap();
                }
                for t in &c.tables {
                    insert(&conn, &t.table, &t.columns, &t.rows);
                }
            }
            Operation::InsertRows(ins) => {
                let conn = rusqlite::Connection::open(home.join(&ins.database)).unwrap();
                insert(&conn, &ins.table, &ins.columns, &ins.rows);
            }
            other => panic!("the Hermes plan creates or adds to state.db only, not {other:?}"),
        }
    }
}

/// What must survive a round trip: prompts, answers, calls (id, name,
/// arguments), results (call id, content), reasoning texts.
#[derive(Debug, PartialEq)]
struct Essence {
    users: Vec<String>,
    assistants: Vec<String>,
    calls: Vec<(String, String, serde_json::Value)>,
    results: Vec<(String, String)>,
    reasoning: Vec<String>,
}

fn essence(records: &[Record]) -> Essence {
    Essence {
        users: users(records).into_iter().map(str::to_string).collect(),
        assistants: records
            .iter()
            .filter_map(|r| match &r.body {
                Body::Assistant(a) if !a.text.is_empty() => Some(a.text.clone()),
                _ => None,
            })
            .collect(),
        calls: tool_calls(records).into_iter().map(|(id, n, a)| (id.into(), n.into(), a.clone())).collect(),
        results: records
            .iter()
            .filter_map(|r| match &r.body {
                Body::ToolResult { call_id, content, .. } => Some((call_id.clone(), content.clone())),
                _ => None,
            })
            .collect(),
        reasoning: kit::reasonings(records).into_iter().filter_map(|r| r.text.clone()).collect(),
    }
}

fn system_prompt(records: &[Record]) -> Option<String> {
    records.iter().find_map(|r| match &r.body {
        Body::System { text } => Some(text.clone()),
        _ => None,
    })
}

#[test]
fn every_scenario_survives_write_and_read_back_from_the_export() {
    for (scenario, id) in lab().ids() {
        let source = lab().read_copy(scenario);
        let written = write(&source.document, None);
        assert_ne!(written.native_id, id, "{scenario}: a new id, not the source's");
        assert!(written.native_id.len() == 22 && written.native_id.as_bytes()[8] == b'_', "{}", written.native_id);
        let home = export_home(&written);
        let found = kit::discover::<Hermes>(home.path());
        assert_eq!(found.sessions.len(), 1, "{scenario}");
        let back = kit::read::<Hermes>(home.path(), &found.sessions[0].locator);
        assert_eq!(essence(&back.records), essence(&source.records), "{scenario}");
        assert!(!essence(&back.records).calls.is_empty(), "{scenario}: has tool calls");
        // A Hermes source keeps its system prompt.
        assert_eq!(system_prompt(&back.records), system_prompt(&source.records), "{scenario}");
        assert_eq!(back.meta().cwd.as_deref(), Some("/home/user/project"));
        // The same document gives the same bytes.
        let again = write(&source.document, None);
        let bytes =
            |w: &WrittenFiles| w.artifacts.iter().map(|a| (a.path.clone(), a.bytes.clone())).collect::<Vec<_>>();
        assert_eq!(bytes(&again), bytes(&written), "{scenario}");
    }
}

#[test]
fn every_scenario_installs_into_a_fresh_home_and_reads_back_from_state_db() {
    for (scenario, _) in lab().ids() {
        let source = lab().read_copy(scenario);
        let written = write(&source.document, None);
        let target = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(target.path().join(".hermes")).unwrap();
        std::fs::write(target.path().join(".hermes/config.yaml"), "model: {provider: custom, default: fake-model}\n")
            .unwrap();
        let plan = plan(&written, target.path()).unwrap();
        assert_eq!(plan.native_id, written.native_id);
        let [Operation::CreateDatabase(create)] = plan.operations.as_slice() else { panic!("{scenario}: one op") };
        assert_eq!(create.path, DB);
        assert_eq!(create.user_version, None, "Hermes leaves user_version 0");
        assert_eq!(
            plan.resume_command.as_deref(),
            Some(
                format!(
                    "cd /home/user/project && HOME=/home/user hermes chat -Q --resume {} -q \"<prompt>\" \
                     --provider custom -m fake-model --yolo",
                    written.native_id
                )
                .as_str()
            )
        );
        apply(&plan, target.path());
        let back = kit::read::<Hermes>(target.path(), &locator(&written.native_id));
        assert_eq!(essence(&back.records), essence(&source.records), "{scenario}");
        assert_eq!(back.meta().native_version.as_deref(), Some("22"));
        let conn = sqlite(&target.path().join(DB));
        let (count, calls): (i64, i64) = conn
            .query_row("SELECT message_count, tool_call_count FROM sessions", [], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap();
        let rows: i64 = conn.query_row("SELECT count(*) FROM messages", [], |r| r.get(0)).unwrap();
        assert_eq!(count, rows, "{scenario}: message_count as Hermes keeps it");
        assert_eq!(calls as usize, essence(&source.records).calls.len(), "{scenario}");
        // No FTS triggers yet: Hermes' repair at its next start adds them
        // and indexes the rows (what `hermes_repairs` does below).
        let triggers: i64 =
            conn.query_row("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'", [], |r| r.get(0)).unwrap();
        assert_eq!(triggers, 0, "{scenario}");
        hermes_repairs(&conn);
        let fts: i64 = conn.query_row("SELECT count(*) FROM messages_fts", [], |r| r.get(0)).unwrap();
        let trigram: i64 = conn.query_row("SELECT count(*) FROM messages_fts_trigram", [], |r| r.get(0)).unwrap();
        assert_eq!((fts, trigram), (rows, rows), "{scenario}");
    }
}

/// What hermes-agent 0.19.0's `SessionDB._init_schema` does to a database
/// with fewer FTS triggers than it expects: the trigger DDL (the same text
/// as [`schema::STATEMENTS`]' triggers), then `_rebuild_fts_indexes`.
fn hermes_repairs(conn: &rusqlite::Connection) {
    for s in schema::STATEMENTS.iter().filter(|s| s.starts_with("CREATE TRIGGER")) {
        conn.execute_batch(s).unwrap();
    }
    for fts in ["messages_fts", "messages_fts_trigram"] {
        conn.execute_batch(&format!(
            "DELETE FROM {fts}; INSERT INTO {fts}(rowid, content) SELECT id, COALESCE(content, '') || ' ' || \
             COALESCE(tool_name, '') || ' ' || COALESCE(tool_calls, '') FROM messages"
        ))
        .unwrap();
    }
}

/// `(type, name, sql)` of every schema object, shadow tables included.
fn schema_objects(path: &Path) -> BTreeMap<(String, String), Option<String>> {
    let conn = sqlite(path);
    let mut stmt = conn.prepare("SELECT type, name, sql FROM sqlite_master").unwrap();
    stmt.query_map([], |r| Ok(((r.get(0)?, r.get(1)?), r.get(2)?))).unwrap().map(Result::unwrap).collect()
}

#[test]
fn a_new_state_db_has_the_schema_hermes_creates() {
    let source = lab().read_copy("simple");
    let written = write(&source.document, None);
    let target = tempfile::tempdir().unwrap();
    apply(&plan(&written, target.path()).unwrap(), target.path());
    let made = target.path().join(DB);
    hermes_repairs(&sqlite(&made));
    let real = lab().copy("simple");
    let theirs = schema_objects(&real.path().join(DB));
    let ours = schema_objects(&made);
    assert_eq!(ours.keys().collect::<Vec<_>>(), theirs.keys().collect::<Vec<_>>());
    for (key, sql) in &ours {
        // The fixture's async_delegations was created by another module
        // (other indentation); the fresh SessionDB's is the one written.
        if key.1 != "async_delegations" {
            assert_eq!(sql, &theirs[key], "{key:?}");
        }
    }
    let conn = sqlite(&made);
    let v: i64 = conn.query_row("SELECT version FROM schema_version", [], |r| r.get(0)).unwrap();
    let uv: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!((v, uv), (schema::SCHEMA_VERSION, 0));
    assert_eq!(schema::STATEMENTS.len(), 32);
}

/// Every row of every table (FTS shadow tables and `sqlite_sequence` aside),
/// as text, except the new session's.
fn other_rows(path: &Path, new: &str) -> Vec<String> {
    let conn = sqlite(path);
    let mut out = Vec::new();
    for (table, filter) in [
        ("sessions", "id <> ?1"),
        ("messages", "session_id <> ?1"),
        ("session_model_usage", "session_id <> ?1"),
        ("state_meta", "?1 = ?1"),
        ("schema_version", "?1 = ?1"),
        ("gateway_routing", "?1 = ?1"),
        ("compression_locks", "?1 = ?1"),
        ("async_delegations", "?1 = ?1"),
    ] {
        let mut stmt = conn.prepare(&format!("SELECT * FROM {table} WHERE {filter} ORDER BY rowid")).unwrap();
        let n = stmt.column_count();
        let rows = stmt
            .query_map([new], |row| {
                Ok((0..n).map(|i| format!("{:?}", row.get::<_, Sql>(i).unwrap())).collect::<Vec<_>>().join("|"))
            })
            .unwrap();
        out.extend(rows.map(|r| format!("{table}: {}", r.unwrap())));
    }
    out
}

#[test]
fn a_home_with_other_sessions_gets_rows_added_and_the_others_unchanged() {
    let source = lab().read_copy("simple");
    let written = write(&source.document, None);
    let target = lab().copy("parallel");
    let db = target.path().join(DB);
    let bytes_before = std::fs::read(&db).unwrap();
    let before = other_rows(&db, &written.native_id);
    let plan = plan(&written, target.path()).unwrap();
    assert_eq!(std::fs::read(&db).unwrap(), bytes_before, "prepare only reads");
    let ops: Vec<(&str, usize)> = plan
        .operations
        .iter()
        .map(|op| match op {
            Operation::InsertRows(i) => (i.table.as_str(), i.rows.len()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(ops, [("sessions", 1), ("messages", 6)]);
    apply(&plan, target.path());
    assert_eq!(other_rows(&db, &written.native_id), before);
    let back = kit::read::<Hermes>(target.path(), &locator(&written.native_id));
    assert_eq!(essence(&back.records), essence(&source.records));
    let old = kit::read::<Hermes>(target.path(), &locator(lab().id("parallel")));
    assert_eq!(essence(&old.records), essence(&lab().read_copy("parallel").records));
    assert_eq!(kit::discover::<Hermes>(target.path()).sessions.len(), 2);
    // The second install of the same export is refused.
    let again = plan_err(&written, target.path());
    assert!(again.contains("already exists") && again.contains(&written.native_id), "{again}");
}

fn plan_err(written: &WrittenFiles, target: &Path) -> String {
    match plan(written, target) {
        Ok(p) => panic!("not refused: {p:?}"),
        Err(e) => format!("{e:?}"),
    }
}

#[test]
fn a_state_db_of_another_schema_is_refused_naming_the_file_and_the_difference() {
    let source = lab().read_copy("simple");
    let written = write(&source.document, None);

    let target = lab().copy("parallel");
    sqlite(&target.path().join(DB)).execute_batch("UPDATE schema_version SET version = 23").unwrap();
    let e = plan_err(&written, target.path());
    assert!(e.contains(".hermes/state.db") && e.contains("schema_version 23, not 22") && e.contains("--allow"), "{e}");
    // Allowed: reported as untested.
    target::set_for_tests(TargetChoice { allow_untested: true, ..TargetChoice::default() });
    let p = trajhost_codec_sdk::prepare_artifacts::<Hermes>(
        written.artifacts.clone(),
        &Dir::native(target.path()),
        options(Some(&written.native_id)),
    )
    .unwrap();
    assert_eq!(p.operations.len(), 2);
    assert!(target::reported_untested().is_some_and(|u| u.tested.contains("22")));
    target::set_for_tests(TargetChoice::default());

    let target = lab().copy("parallel");
    sqlite(&target.path().join(DB)).execute_batch("ALTER TABLE messages ADD COLUMN shiny TEXT").unwrap();
    let e = plan_err(&written, target.path());
    assert!(e.contains("messages has unknown columns shiny"), "{e}");

    let target = lab().copy("parallel");
    sqlite(&target.path().join(DB)).execute_batch("ALTER TABLE sessions DROP COLUMN archived").unwrap();
    target::set_for_tests(TargetChoice { allow_untested: true, ..TargetChoice::default() });
    let e = match trajhost_codec_sdk::prepare_artifacts::<Hermes>(
        written.artifacts.clone(),
        &Dir::native(target.path()),
        options(Some(&written.native_id)),
    ) {
        Ok(_) => panic!("a missing column is refused even when untested versions are allowed"),
        Err(e) => format!("{e:?}"),
    };
    target::set_for_tests(TargetChoice::default());
    assert!(e.contains("sessions lacks columns archived") && !e.contains("--allow"), "{e}");

    let target = lab().copy("parallel");
    sqlite(&target.path().join(DB)).execute_batch("DROP TABLE schema_version").unwrap();
    let e = plan_err(&written, target.path());
    assert!(e.contains("no single schema_version row"), "{e}");
}

#[test]
fn a_taken_title_gets_the_lineage_suffix() {
    let mut records = lab().read_copy("simple").records;
    if let Body::Meta(m) = &mut records[0].body {
        m.title = Some("Secret word".into());
    }
    let written = write(&kit::document(&records), None);
    let target = lab().copy("parallel");
    sqlite(&target.path().join(DB))
        .execute_batch(&format!("UPDATE sessions SET title = 'Secret word' WHERE id = '{}'", lab().id("parallel")))
        .unwrap();
    apply(&plan(&written, target.path()).unwrap(), target.path());
    let back = kit::read::<Hermes>(target.path(), &locator(&written.native_id));
    assert_eq!(back.meta().title.as_deref(), Some("Secret word #2"));
}

/// A session of another harness: its system prompt is not Hermes', calls
/// without results get one, and what Hermes cannot hold is declared.
#[test]
fn another_harness_is_mapped_to_chat_completions_rows() {
    let rec = |id: &str, ts: &str, body: Body| Record {
        id: id.into(),
        body,
        parent: None,
        ts: Some(ts.into()),
        agent: None,
        src: None,
    };
    let meta = Body::Meta(Meta {
        schema: SCHEMA.into(),
        harness: "claude-code".into(),
        native_id: "abc".into(),
        native_version: None,
        cwd: Some("/w".into()),
        title: Some("  Fix\nthe   build ".into()),
        git_branch: Some("main".into()),
        started_at: Some("2026-11-30T04:05:06.000Z".into()),
        parent_session: None,
        parent_call: None,
        codec: None,
    });
    let assistant = |text: &str| {
        Body::Assistant(trajhost_codec_sdk::canonical::Assistant {
            text: text.into(),
            model: Some("claude-x".into()),
            message_id: None,
            stop_reason: None,
            usage: Some(trajhost_codec_sdk::canonical::Usage {
                input: Some(10),
                output: Some(5),
                ..Default::default()
            }),
        })
    };
    let records = vec![
        rec("m", "2026-11-30T04:05:06.000Z", meta),
        rec("s", "2026-11-30T04:05:06.000Z", Body::System { text: "You are Claude Code".into() }),
        rec("u", "2026-11-30T04:05:07.000Z", Body::User { text: "list files 本".into(), attachments: vec![] }),
        rec(
            "r",
            "2026-11-30T04:05:08.000Z",
            Body::Reasoning(trajhost_codec_sdk::canonical::Reasoning {
                text: Some("think".into()),
                opaque: Some("sig".into()),
                encrypted: false,
            }),
        ),
        rec("a", "2026-11-30T04:05:08.000Z", assistant("Looking.")),
        rec(
            "c1",
            "2026-11-30T04:05:08.000Z",
            Body::ToolCall {
                call_id: "c1".into(),
                name: "Bash".into(),
                arguments: serde_json::json!({"command": "ls é"}),
            },
        ),
        rec(
            "c2",
            "2026-11-30T04:05:08.000Z",
            Body::ToolCall { call_id: "c2".into(), name: "Read".into(), arguments: serde_json::json!({"p": 1}) },
        ),
        rec(
            "t1",
            "2026-11-30T04:05:09.000Z",
            Body::ToolResult { call_id: "c1".into(), content: "a b".into(), ok: Some(true) },
        ),
        rec("o", "2026-11-30T04:05:09.000Z", Body::Observation { subtype: "hook/x".into(), text: None }),
        rec("u2", "2026-11-30T04:05:10.000Z", Body::User { text: "thanks".into(), attachments: vec![] }),
        rec("a2", "2026-11-30T04:05:11.000Z", assistant("Done.")),
    ];
    let written = write(&kit::document(&records), None);
    assert_eq!(written.native_id.split('_').take(2).collect::<Vec<_>>(), ["20261130", "040506"]);
    let detail = |code: &str, what: &str| {
        written.diagnostics.iter().find(|d| d.code == code && d.detail == what).map(|d| d.count).unwrap_or(0)
    };
    assert_eq!(detail("not-carried", "system-prompt"), 1);
    assert_eq!(detail("not-carried", "reasoning-signature"), 1);
    assert_eq!(detail("not-carried", "observation/hook"), 1);
    assert_eq!(detail("synthesized", "missing-tool-result"), 1);
    let messages = &written.artifacts.iter().find(|a| a.path.ends_with("messages.jsonl")).unwrap().bytes;
    let rows: Vec<serde_json::Value> =
        String::from_utf8_lossy(messages).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let roles: Vec<&str> = rows.iter().map(|r| r["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "tool", "user", "assistant"]);
    assert_eq!(rows[1]["reasoning"], "think");
    assert_eq!(rows[1]["finish_reason"], "tool_calls");
    assert_eq!(
        rows[1]["tool_calls"],
        "[{\"id\": \"c1\", \"call_id\": \"c1\", \"type\": \"function\", \"function\": {\"name\": \"Bash\", \
         \"arguments\": \"{\\\"command\\\":\\\"ls \\u00e9\\\"}\"}}, {\"id\": \"c2\", \"call_id\": \"c2\", \"type\": \
         \"function\", \"function\": {\"name\": \"Read\", \"arguments\": \"{\\\"p\\\":1}\"}}]"
    );
    assert_eq!((rows[2]["tool_call_id"].as_str(), rows[2]["tool_name"].as_str()), (Some("c1"), Some("Bash")));
    assert_eq!(rows[3]["content"], trajhost_codec_hermes::write::MISSING_RESULT);
    assert_eq!(rows[1]["timestamp"], 1796011508.0);
    let session: serde_json::Value =
        serde_json::from_slice(&written.artifacts.iter().find(|a| a.path.ends_with("session.json")).unwrap().bytes)
            .unwrap();
    assert_eq!(session["system_prompt"], serde_json::Value::Null);
    assert_eq!(session["title"], "Fix the build");
    assert_eq!((session["model"].as_str(), session["source"].as_str()), (Some("claude-x"), Some("cli")));
    assert_eq!((session["input_tokens"].as_u64(), session["output_tokens"].as_u64()), (Some(20), Some(10)));
    assert_eq!((session["message_count"].as_i64(), session["tool_call_count"].as_i64()), (Some(6), Some(2)));

    // Installed, Hermes' reader sees the same conversation.
    let target = tempfile::tempdir().unwrap();
    apply(&plan(&written, target.path()).unwrap(), target.path());
    let back = kit::read::<Hermes>(target.path(), &locator(&written.native_id));
    let e = essence(&back.records);
    assert_eq!(e.users, ["list files 本", "thanks"]);
    assert_eq!(e.assistants, ["Looking.", "Done."]);
    assert_eq!(e.calls[0], ("c1".into(), "Bash".into(), serde_json::json!({"command": "ls é"})));
    assert_eq!(e.reasoning, ["think"]);
}

#[test]
fn a_requested_model_and_provider_reach_the_row_and_the_resume_command() {
    let source = lab().read_copy("simple");
    let written = write(&source.document, None);
    let target = tempfile::tempdir().unwrap();
    target::set_for_tests(TargetChoice {
        model: Some("m-1".into()),
        provider: Some("openrouter".into()),
        allow_untested: false,
    });
    let plan = trajhost_codec_sdk::prepare_artifacts::<Hermes>(
        written.artifacts.clone(),
        &Dir::native(target.path()),
        options(Some(&written.native_id)),
    )
    .unwrap();
    target::set_for_tests(TargetChoice::default());
    assert!(plan.resume_command.as_deref().unwrap().ends_with("--provider openrouter -m m-1 --yolo"));
    apply(&plan, target.path());
    let model: String =
        sqlite(&target.path().join(DB)).query_row("SELECT model FROM sessions", [], |r| r.get(0)).unwrap();
    assert_eq!(model, "m-1");
}

#[test]
fn a_native_id_that_is_no_session_id_is_refused() {
    let source = lab().read_copy("simple");
    target::set_for_tests(TargetChoice::default());
    let e = trajhost_codec_sdk::write_document::<Hermes>(&source.document, options(Some("../x")));
    assert!(e.is_err());
    let written = write(&source.document, Some("my_session-1"));
    assert_eq!(written.native_id, "my_session-1");
}

/// A compaction: the summary row Hermes' compressor leaves, the rows before
/// it archived; read back as the compaction with the history before it.
#[test]
fn a_compaction_archives_the_rows_before_its_summary() {
    let mut records = lab().read_copy("simple").records;
    let at = records.iter().position(|r| matches!(&r.body, Body::User { text, .. } if text.contains("again"))).unwrap();
    let mut summary = records[at].clone();
    summary.id = "c".into();
    summary.body = Body::Compaction { summary: "The word was PAPAYA-42.".into(), trigger: None };
    records.insert(at, summary);
    let written = write(&kit::document(&records), None);
    let from_export = kit::read::<Hermes>(export_home(&written).path(), &export::session_path(&written.native_id));
    let target = tempfile::tempdir().unwrap();
    apply(&plan(&written, target.path()).unwrap(), target.path());
    let installed = kit::read::<Hermes>(target.path(), &locator(&written.native_id));
    for back in [&from_export, &installed] {
        assert_eq!(kinds(&back.records).iter().filter(|k| **k == "compaction").count(), 1);
        assert!(
            back.records
                .iter()
                .any(|r| matches!(&r.body, Body::Compaction { summary, .. } if summary == "The word was PAPAYA-42."))
        );
        assert_eq!(essence(&back.records).users, essence(&records).users);
    }
    let flags: Vec<(String, i64, i64)> = {
        let conn = sqlite(&target.path().join(DB));
        let mut stmt = conn.prepare("SELECT role, active, compacted FROM messages ORDER BY id").unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect()
    };
    let archived: Vec<bool> = flags.iter().map(|(_, active, compacted)| *active == 0 && *compacted == 1).collect();
    assert_eq!(archived, [true, true, true, true, false, false, false], "{flags:?}");
}

#[test]
fn the_export_fixture_is_read_and_written_byte_for_byte() {
    let home = kit::fixtures_root().join("hermes/export/home");
    let found = kit::discover::<Hermes>(&home);
    assert_eq!(found.sessions.len(), 1);
    let s = &found.sessions[0];
    assert_eq!((s.native_id.as_str(), s.native_version.as_deref()), ("20261130_041903_ad776c", Some("22")));
    assert_eq!(s.locator, ".hermes/export/20261130_041903_ad776c/session.json");
    let back = kit::read::<Hermes>(&home, &s.locator);
    let source = lab().read_copy("simple");
    assert_eq!(essence(&back.records), essence(&source.records));
    assert_eq!(back.records.iter().filter(|r| r.src.as_ref().is_some_and(|s| s.len > 0)).count(), 7);
    let written = write(&source.document, None);
    assert_eq!(written.native_id, s.native_id);
    for artifact in &written.artifacts {
        assert_eq!(std::fs::read(home.join(&artifact.path)).unwrap(), artifact.bytes, "{}", artifact.path);
    }
}
