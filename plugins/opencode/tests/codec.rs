//! What is particular to OpenCode's store, against stores written by the
//! real OpenCode CLI (fixtures/opencode/1.18.33) and hand-written ones. What
//! every codec must do is the testkit's suite, in tests/conformance.rs. Every
//! read works on a copy of the fixture home: a native read-only SQLite open
//! of a WAL-mode database may create `-wal`/`-shm` files beside it (the host
//! opens such databases `immutable=1` or reads a private copy).

use std::path::Path;

use rusqlite::Connection;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use trajhost_codec_opencode::OpenCode;
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::Operation;
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, ReadOptions, Severity, WriteOptions};
use trajhost_codec_testkit::suite::Lab;
use trajhost_codec_testkit::{self as kit, Spans, assistants, document, kinds, tool_calls, tool_results, users};

const DB: &str = ".local/share/opencode/opencode.db";
const CWD: &str = "/home/user/project";

/// The lab's sessions, as the conformance table names them.
fn lab() -> Lab<OpenCode> {
    Lab::new(include_str!("conformance.json"))
}

fn locator(id: &str) -> String {
    format!("{DB}#{id}")
}

fn sha(path: &Path) -> Option<String> {
    std::fs::read(path).ok().map(|b| hex::encode(Sha256::digest(b)))
}

// ---------------------------------------------------------------- info, discover

// ---------------------------------------------------------------- read

/// The suite checks what each scenario holds; these are OpenCode's ids,
/// stop reasons and row spans.
#[test]
fn simple_session_ids_stop_reasons_and_rows() {
    let read = lab().read_copy("simple");
    let answers = assistants(&read.records);
    assert_eq!(answers[0].stop_reason.as_deref(), Some("tool-calls"));
    assert_eq!(answers[1].stop_reason.as_deref(), Some("stop"));
    assert!(read.records[1].id.starts_with("msg_") && read.records[3].id.starts_with("prt_"));
    assert_eq!(read.records[4].id, format!("{}#result", read.records[3].id));
    assert_eq!(read.records[2].parent.as_deref(), Some(read.records[1].id.as_str()));
    // src: the database, the rowid, no byte span.
    let src = read.records[3].src.as_ref().unwrap();
    assert_eq!((src.file.as_str(), src.offset, src.len), (DB, 3, 0));
    assert_eq!(read.records[0].src.as_ref().unwrap().offset, 1);
    let reported = read.diag("unmapped-record-type").unwrap();
    assert_eq!((reported.detail.as_str(), reported.count), ("part/step-start", 3));
}

/// OpenCode truncates a long output itself, and says so.
#[test]
fn a_truncated_output_is_named() {
    let read = lab().read_copy("long-output");
    assert_eq!(read.diag("tool-output-truncated").unwrap().detail, "tool/bash");
}

// ---------------------------------------------------------------- types

fn sqlite(path: &Path) -> Connection {
    Connection::open(path).unwrap()
}

#[test]
fn unknown_part_types_are_reported_not_dropped_silently() {
    let home = lab().copy("simple");
    let conn = sqlite(&home.path().join(DB));
    let id = lab().id("simple");
    conn.execute(
        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data)
         SELECT 'prt_zzzzzzzzzzzz0000000000000' || n, message_id, session_id, time_created, time_updated, '{\"type\":\"hologram\"}'
         FROM part, (SELECT 1 AS n UNION SELECT 2) WHERE part.rowid = 2",
        [],
    )
    .unwrap();
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
    drop(conn);
    let read = kit::read::<OpenCode>(home.path(), &locator(id));
    let d = read.diagnostics.iter().find(|d| d.code == "unknown-record-type").unwrap();
    assert_eq!((d.detail.as_str(), d.count, d.severity), ("part/hologram", 2, Severity::Warning));
}

#[test]
fn a_schema_without_required_columns_fails_closed() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join(DB);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let conn = sqlite(&path);
    conn.execute_batch(
        "CREATE TABLE session (id TEXT PRIMARY KEY, directory TEXT, title TEXT, time_created INTEGER, time_updated INTEGER);
         CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, body TEXT);
         INSERT INTO session VALUES ('ses_x', '/w', 't', 1, 2);",
    )
    .unwrap();
    drop(conn);
    // Discovery names the store and goes on; reading it fails closed.
    let found = OpenCode::discover(&Dir::native(home.path())).unwrap();
    assert!(found.sessions.is_empty());
    let d =
        kit::file_diag(&found.diagnostics, "unknown-schema", DB).unwrap_or_else(|| panic!("{:?}", found.diagnostics));
    assert!(d.detail.contains("`message` lacks data"), "{}", d.detail);
    assert!(!d.detail.contains(DB), "the path is the diagnostic's file, not its detail");
    assert!(
        OpenCode::read(
            Dir::native(home.path()),
            &locator("ses_x"),
            ReadOptions { max_batch_records: 10, max_batch_bytes: 1000 }
        )
        .is_err()
    );
}

/// This crate's own checkout of the fixtures (not the testkit's
/// `fixtures_root()`, which names the checkout the testkit was built from).
fn minimal_home() -> tempfile::TempDir {
    kit::copy_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/opencode/minimal-db/home"))
}

#[test]
fn a_minimal_store_is_read_with_a_note_of_what_it_lacks() {
    let home = minimal_home();
    let found = kit::discover::<OpenCode>(home.path());
    assert_eq!(found.sessions.len(), 1, "{:?}", found.diagnostics);
    let s = &found.sessions[0];
    assert_eq!(s.native_id, "ses_m1n1malDb0001");
    assert_eq!((s.cwd.as_deref(), s.title.as_deref()), (Some("/home/user/tiny"), Some("Minimal store")));
    assert_eq!((s.native_version.as_deref(), s.updated_at.as_deref()), (None, None));
    assert_eq!(s.started_at.as_deref(), Some("2025-01-04T14:13:20.000Z"));
    assert!(s.size > 0);
    let note = kit::diag(&found.diagnostics, "schema-missing-columns").expect("a note, not an error");
    assert_eq!(note.severity, Severity::Info);
    for missing in ["session.version", "message.time_created", "part.id", "part.session_id"] {
        assert!(note.detail.contains(missing), "{}", note.detail);
    }
    let read = kit::conformance::<OpenCode>(home.path(), &s.locator, Spans::Rows);
    assert_eq!(users(&read.records), vec!["What does ls -a print here?"]);
    // Parts `tool, text` without step markers: the text was written after
    // the result, a step of its own.
    assert_eq!(kinds(&read.records), ["meta", "user", "assistant", "tool_call", "tool_result", "assistant"]);
    let answer = assistants(&read.records);
    assert_eq!((answer[0].text.as_str(), answer[1].text.as_str()), ("", "Three entries: ., .. and .env."));
    assert!(answer.iter().all(|a| a.model.as_deref() == Some("qwen3-coder")));
    assert_eq!(tool_calls(&read.records).len(), 1);
    assert_eq!(tool_results(&read.records), vec![("call_ls", ".\n..\n.env\n", Some(true))]);
    assert!(read.diag("schema-missing-columns").is_some());
}

#[test]
fn a_store_without_a_part_table_lists_its_messages() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join(DB);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let conn = sqlite(&path);
    conn.execute_batch(
        "CREATE TABLE session (id TEXT PRIMARY KEY, title TEXT);
         CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, data TEXT);
         INSERT INTO session VALUES ('ses_p', 'no parts');
         INSERT INTO message VALUES ('msg_1', 'ses_p', '{\"role\":\"assistant\",\"modelID\":\"m\"}');",
    )
    .unwrap();
    drop(conn);
    let found = kit::discover::<OpenCode>(home.path());
    assert_eq!(found.sessions.len(), 1, "{:?}", found.diagnostics);
    let note = kit::diag(&found.diagnostics, "schema-missing-columns").unwrap();
    assert!(note.detail.contains("the `part` table"), "{}", note.detail);
    let read = kit::read::<OpenCode>(home.path(), &locator("ses_p"));
    assert_eq!(assistants(&read.records).len(), 1);
}

#[test]
fn discover_names_files_of_the_import_directory_that_are_no_import_documents() {
    let home = lab().copy("simple");
    let import = home.path().join(".local/share/trajhost/opencode-import");
    std::fs::create_dir_all(&import).unwrap();
    std::fs::write(import.join("notes.txt"), "x").unwrap();
    std::fs::write(import.join("ses_broken.json"), "not json").unwrap();
    let found = kit::discover::<OpenCode>(home.path());
    assert_eq!(found.sessions.len(), 1, "{:?}", found.diagnostics);
    let expected = [
        ("unrecognized-file", ".local/share/trajhost/opencode-import/notes.txt"),
        ("malformed-head", ".local/share/trajhost/opencode-import/ses_broken.json"),
    ];
    kit::check_named_files(&found.diagnostics, &expected);
}

// ---------------------------------------------------------------- the store is left as it was

#[test]
fn reading_with_a_live_wal_sees_it_and_changes_nothing() {
    let home = lab().copy("simple");
    // A writer that keeps its connection (and its WAL) open, as a running
    // OpenCode does, with one committed part not yet checkpointed.
    let change = "UPDATE part SET data = json_set(data, '$.text', 'one more — ✓') WHERE rowid = 8";
    let read = kit::read_with_live_wal(home.path(), DB, change, [], || {
        OpenCode::discover(&Dir::native(home.path())).unwrap();
        kit::read::<OpenCode>(home.path(), &locator(lab().id("simple")))
    });
    assert_eq!(users(&read.records).last(), Some(&"one more — ✓"));
}

// ---------------------------------------------------------------- write, prepare

/// What `opencode import` does with a document (import.ts): the session,
/// message and part rows, into an existing store.
fn import(db: &Path, doc: &Value) {
    let conn = sqlite(db);
    let info = &doc["info"];
    conn.execute(
        "INSERT INTO session (id, project_id, slug, directory, path, title, version, time_created, time_updated)
         VALUES (?1, 'global', ?2, ?3, '', ?4, ?5, ?6, ?7)",
        rusqlite::params![
            info["id"].as_str().unwrap(),
            info["slug"].as_str().unwrap(),
            info["directory"].as_str().unwrap(),
            info["title"].as_str().unwrap(),
            info["version"].as_str().unwrap(),
            info["time"]["created"].as_i64().unwrap(),
            info["time"]["updated"].as_i64().unwrap()
        ],
    )
    .unwrap();
    for m in doc["messages"].as_array().unwrap() {
        let mut data = m["info"].clone();
        let id = data["id"].as_str().unwrap().to_string();
        let created = data["time"]["created"].as_i64().unwrap();
        data.as_object_mut().unwrap().remove("id");
        data.as_object_mut().unwrap().remove("sessionID");
        conn.execute(
            "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, ?3, ?4)",
            rusqlite::params![id, info["id"].as_str().unwrap(), created, data.to_string()],
        )
        .unwrap();
        for p in m["parts"].as_array().unwrap() {
            let mut data = p.clone();
            let pid = data["id"].as_str().unwrap().to_string();
            for k in ["id", "sessionID", "messageID"] {
                data.as_object_mut().unwrap().remove(k);
            }
            conn.execute(
                "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                rusqlite::params![pid, id, info["id"].as_str().unwrap(), created, data.to_string()],
            )
            .unwrap();
        }
    }
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
}

/// User texts, tool calls (name, arguments), tool results (content, ok), assistant texts.
type Conversation = (Vec<String>, Vec<(String, Value)>, Vec<(String, Option<bool>)>, Vec<String>);

fn conversation(records: &[Record]) -> Conversation {
    (
        users(records).into_iter().map(str::to_string).collect(),
        tool_calls(records).into_iter().map(|(_, n, a)| (n.to_string(), a.clone())).collect(),
        tool_results(records).into_iter().map(|(_, c, ok)| (c.to_string(), ok)).collect(),
        assistants(records).into_iter().map(|a| a.text.clone()).filter(|t| !t.is_empty()).collect(),
    )
}

fn write_options() -> WriteOptions {
    WriteOptions { cwd: Some(CWD.into()), native_id: None, home_path: None }
}

#[test]
fn round_trip_keeps_the_conversation() {
    for (scenario, _) in lab().ids() {
        let first = lab().read_copy(scenario);
        let written =
            trajhost_codec_sdk::write_document::<OpenCode>(&document(&first.records), write_options()).unwrap();
        assert_eq!(written.artifacts.len(), 1);
        let artifact = &written.artifacts[0];
        assert_eq!(artifact.path, format!(".local/share/trajhost/opencode-import/{}.json", written.native_id));
        let doc: Value = serde_json::from_slice(&artifact.bytes).unwrap();
        assert_eq!(doc["info"]["id"], written.native_id.as_str());
        assert_eq!(doc["info"]["version"], "1.18.33");
        // Ids increase in conversation order (OpenCode sorts by id).
        let mut last = String::new();
        for m in doc["messages"].as_array().unwrap() {
            let id = m["info"]["id"].as_str().unwrap().to_string();
            assert!(id.starts_with("msg_") && id > last, "{id} after {last}");
            last = id;
            let mut last_part = String::new();
            for p in m["parts"].as_array().unwrap() {
                let pid = p["id"].as_str().unwrap().to_string();
                assert!(pid.starts_with("prt_") && pid > last_part);
                last_part = pid;
            }
        }
        // Into a store of another session, as `opencode import` would.
        let target = lab().copy("simple");
        import(&target.path().join(DB), &doc);
        let second = kit::read::<OpenCode>(target.path(), &locator(&written.native_id));
        assert_eq!(conversation(&first.records), conversation(&second.records), "{scenario}");
        let models: Vec<_> = assistants(&second.records)
            .iter()
            .map(|a| (a.model.clone(), a.usage.clone(), a.stop_reason.clone()))
            .collect();
        let want: Vec<_> = assistants(&first.records)
            .iter()
            .map(|a| (a.model.clone(), a.usage.clone(), a.stop_reason.clone()))
            .collect();
        assert_eq!(models, want, "{scenario}");
        assert!(second.diagnostics.iter().all(|d| d.severity != Severity::Error), "{:?}", second.diagnostics);
    }
}

#[test]
fn write_is_deterministic_and_handles_foreign_sessions() {
    let first = lab().read_copy("parallel");
    let doc = document(&first.records);
    assert_eq!(
        trajhost_codec_sdk::write_document::<OpenCode>(&doc, write_options()).unwrap().artifacts[0].bytes,
        trajhost_codec_sdk::write_document::<OpenCode>(&doc, write_options()).unwrap().artifacts[0].bytes
    );

    let foreign = [
        json!({"id":"m","kind":"meta","schema":"trajhost.canonical/0.1","harness":"codex","native_id":"x","cwd":"/w","started_at":"2026-11-30T04:00:00.000Z"}),
        json!({"id":"s","kind":"system","text":"You are Codex."}),
        json!({"id":"u","kind":"user","text":"hi","ts":"2026-11-30T04:00:01.000Z"}),
        json!({"id":"c","kind":"tool_call","call_id":"call_1","name":"shell","arguments":{"cmd":["ls"]}}),
        json!({"id":"r","kind":"tool_result","call_id":"call_1","content":"a.txt"}),
        json!({"id":"a2","kind":"assistant","text":"done","model":"gpt-5"}),
        json!({"id":"k","kind":"compaction","summary":"SUMMARY"}),
    ];
    let doc: String = foreign.iter().map(|v| v.to_string() + "\n").collect();
    let written = trajhost_codec_sdk::write_document::<OpenCode>(
        &doc,
        WriteOptions { cwd: None, native_id: None, home_path: None },
    )
    .unwrap();
    let codes: Vec<(String, String)> = written.diagnostics.iter().map(|d| (d.code.clone(), d.detail.clone())).collect();
    assert!(codes.contains(&("not-carried".into(), "system".into())), "{codes:?}");
    assert!(codes.contains(&("defaulted".into(), "assistant.tokens".into())), "{codes:?}");
    let doc: Value = serde_json::from_slice(&written.artifacts[0].bytes).unwrap();
    assert_eq!(doc["info"]["directory"], "/w");
    let target = lab().copy("simple");
    import(&target.path().join(DB), &doc);
    let read = kit::read::<OpenCode>(target.path(), &locator(&written.native_id));
    assert_eq!(
        kinds(&read.records),
        ["meta", "user", "assistant", "tool_call", "tool_result", "assistant", "compaction"]
    );
    assert_eq!(tool_calls(&read.records)[0].2, &json!({"cmd": ["ls"]}));
    assert_eq!(tool_results(&read.records)[0].1, "a.txt");
    let Body::Compaction { summary, .. } = &read.records.last().unwrap().body else { panic!() };
    assert_eq!(summary, "SUMMARY");
}

#[test]
fn prepare_plans_the_import_document_and_its_command() {
    let first = lab().read_copy("simple");
    let written = trajhost_codec_sdk::write_document::<OpenCode>(&document(&first.records), write_options()).unwrap();
    // A fresh home: no database yet (`opencode import` creates it).
    let fresh = tempfile::tempdir().unwrap();
    let home_path = fresh.path().display().to_string();
    let options = WriteOptions {
        cwd: Some(CWD.into()),
        native_id: Some(written.native_id.clone()),
        home_path: Some(home_path.clone()),
    };
    let plan = trajhost_codec_sdk::prepare_artifacts::<OpenCode>(
        written.artifacts.clone(),
        &Dir::native(fresh.path()),
        options.clone(),
    )
    .unwrap();
    assert_eq!(plan.native_id, written.native_id);
    assert_eq!(plan.operations.len(), 1);
    let Operation::CreateFile(file) = &plan.operations[0] else { panic!() };
    assert_eq!(file.path, written.artifacts[0].path);
    // No default model in the target: the user names one.
    assert_eq!(
        plan.resume_command.as_deref(),
        Some(
            format!(
                "cd {CWD} && opencode import {home_path}/{} && opencode --session {} -m '<provider>/<model>'",
                file.path, written.native_id
            )
            .as_str()
        )
    );
    assert_eq!(file.bytes, written.artifacts[0].bytes);
    // A home with a store and a default model: the store is checked
    // read-only and left byte-identical; user messages take the model.
    let target = lab().copy("simple");
    let before = sha(&target.path().join(DB));
    let plan = trajhost_codec_sdk::prepare_artifacts::<OpenCode>(
        written.artifacts.clone(),
        &Dir::native(target.path()),
        options.clone(),
    )
    .unwrap();
    assert_eq!(plan.operations.len(), 1);
    assert_eq!(sha(&target.path().join(DB)), before);
    assert!(plan.resume_command.as_deref().unwrap().ends_with(&format!("opencode --session {}", written.native_id)));
    let Operation::CreateFile(file) = &plan.operations[0] else { panic!() };
    let doc: Value = serde_json::from_slice(&file.bytes).unwrap();
    for m in doc["messages"].as_array().unwrap().iter().filter(|m| m["info"]["role"] == "user") {
        assert_eq!(m["info"]["model"], json!({"providerID": "fake", "modelID": "fake-model"}));
    }
    // Its session already there: refused.
    import(&target.path().join(DB), &serde_json::from_slice(&written.artifacts[0].bytes).unwrap());
    let err = trajhost_codec_sdk::prepare_artifacts::<OpenCode>(
        written.artifacts.clone(),
        &Dir::native(target.path()),
        options,
    )
    .unwrap_err();
    assert!(format!("{err:?}").contains("never overwrites"), "{err:?}");
}

// ---------------------------------------------------------------- foreign ids, a bare store, model steps

/// fixtures/opencode/multistep-db (hand-written): one session whose id is
/// not OpenCode's `ses_…`, one assistant message of two model steps.
fn multistep_home() -> tempfile::TempDir {
    kit::copy_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/opencode/multistep-db/home"))
}

const FOREIGN_ID: &str = "imported-3f9c2a71";
const MULTISTEP_MESSAGE: &str = "msg_0a0000000002Assistant0002";

#[test]
fn a_session_id_other_than_ses_is_listed_inspected_and_read() {
    let home = multistep_home();
    let found = kit::discover::<OpenCode>(home.path());
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    assert_eq!(found.sessions.len(), 1);
    let s = &found.sessions[0];
    assert_eq!((s.native_id.as_str(), s.locator.as_str()), (FOREIGN_ID, locator(FOREIGN_ID).as_str()));
    assert_eq!((s.native_version.as_deref(), s.cwd.as_deref()), (Some("1.3.17"), Some("/home/user/notes")));
    let inspected = OpenCode::inspect(&Dir::native(home.path()), &s.locator).unwrap();
    assert_eq!(format!("{inspected:?}"), format!("{s:?}"));
    let read = kit::conformance::<OpenCode>(home.path(), &s.locator, Spans::Rows);
    assert_eq!(read.meta().native_id, FOREIGN_ID);
    assert_eq!(users(&read.records), ["Count the lines of notes.txt, then tell me the total."]);
    // An id the store does not hold is still refused, naming it.
    let err = kit::try_read::<OpenCode>(home.path(), &locator("imported-0000"), kit::one_batch()).unwrap_err();
    assert!(format!("{err:?}").contains("no session imported-0000"), "{err:?}");
}

#[test]
fn a_bare_store_of_one_session_reads_that_session() {
    // What the host does with a store it recognized by content: grant its
    // folder and pass the file name.
    let home = multistep_home();
    let folder = home.path().join(".local/share/opencode");
    let head = std::fs::read(folder.join("opencode.db")).unwrap();
    assert!(OpenCode::sniff("opencode.db", &head[..head.len().min(65536)]).is_some());
    let inspected = OpenCode::inspect(&Dir::native(&folder), "opencode.db").unwrap();
    assert_eq!(inspected.native_id, FOREIGN_ID);
    assert_eq!(inspected.locator, format!("opencode.db#{FOREIGN_ID}"));
    let bare = kit::conformance::<OpenCode>(&folder, "opencode.db", Spans::Rows);
    assert_eq!(bare.meta().native_id, FOREIGN_ID);
    assert_eq!(tool_calls(&bare.records).len(), 1);
    // The lab's store of one `ses_…` session, too.
    let store = home_of_simple_folder();
    assert_eq!(kit::read::<OpenCode>(store.path(), "opencode.db").meta().native_id, lab().id("simple"));
    // A store of two sessions asks for one by name.
    let conn = sqlite(&store.path().join("opencode.db"));
    conn.execute_batch(
        "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
         SELECT 'ses_second', project_id, 'second', directory, 'Second', version, time_created + 1, time_updated
         FROM session;
         PRAGMA wal_checkpoint(TRUNCATE);",
    )
    .unwrap();
    drop(conn);
    let err = kit::try_read::<OpenCode>(store.path(), "opencode.db", kit::one_batch()).unwrap_err();
    assert!(format!("{err:?}").contains("holds 2 sessions; name one as opencode.db#<session id>"), "{err:?}");
    assert!(OpenCode::inspect(&Dir::native(store.path()), "opencode.db").is_err());
}

/// The folder of the lab's `simple` store, as a home of its own (a copy).
fn home_of_simple_folder() -> tempfile::TempDir {
    kit::copy_of(&lab().home("simple").join(".local/share/opencode"))
}

#[test]
fn a_message_of_several_steps_reads_call_result_answer_in_part_order() {
    let home = multistep_home();
    let read = kit::conformance::<OpenCode>(home.path(), &locator(FOREIGN_ID), Spans::Rows);
    let r = &read.records;
    assert_eq!(kinds(r), ["meta", "user", "assistant", "tool_call", "tool_result", "assistant"]);
    // The first step: the call, its record the message's.
    let answers = assistants(r);
    assert_eq!(r[2].id, MULTISTEP_MESSAGE);
    assert_eq!((answers[0].text.as_str(), answers[0].stop_reason.as_deref()), ("", Some("tool-calls")));
    assert_eq!(answers[0].usage.as_ref().map(|u| (u.input, u.output)), Some((Some(100), Some(20))));
    assert_eq!(tool_calls(r), [("call_wc_notes_1", "bash", &json!({"command": "wc -l notes.txt"}))]);
    assert_eq!(tool_results(r), [("call_wc_notes_1", "42 notes.txt (LINECOUNT-SENTINEL)\n", Some(true))]);
    // The second step, after the result: the answer, with its own usage.
    assert_eq!(r[5].id, "prt_0a0000000020StepStartTwo1#step");
    assert_eq!(r[5].parent.as_deref(), Some(MULTISTEP_MESSAGE));
    assert!(answers[1].text.contains("LINECOUNT-SENTINEL"));
    assert_eq!(answers[1].stop_reason.as_deref(), Some("stop"));
    assert_eq!(answers[1].usage.as_ref().map(|u| (u.input, u.output)), Some((Some(130), Some(10))));
    assert_eq!(answers[1].message_id.as_deref(), Some(MULTISTEP_MESSAGE));
    assert_eq!(r[5].ts.as_deref(), Some("2026-01-01T10:00:05.200Z"), "the step's first part's time");
    // Its src is the row of its step-start part.
    let conn = sqlite(&home.path().join(DB));
    let rowid: i64 = conn
        .query_row("SELECT rowid FROM part WHERE id = 'prt_0a0000000020StepStartTwo1'", [], |row| row.get(0))
        .unwrap();
    assert_eq!(r[5].src.as_ref().unwrap().offset, rowid as u64);
    let reported = read.diag("unmapped-record-type").unwrap();
    assert_eq!((reported.detail.as_str(), reported.count), ("part/step-start", 2));
}
