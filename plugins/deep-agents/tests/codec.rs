//! The Deep Agents codec against threads written by the real
//! deepagents-code 0.1.57 (fixtures/deep-agents/0.1.57), run natively
//! through `Dir::native`. Reads work on a copy of the fixture home: a native
//! read-only SQLite open of a WAL-mode database creates `-wal`/`-shm` files
//! beside it (the host opens such databases `immutable=1` or reads a
//! private copy).
//!
//! Tests named after a scenario check it exactly; the others run over
//! every scenario directory the lab has produced.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use trajhost_codec_deep_agents::{DeepAgents, KNOWN_BLOCKS, KNOWN_MESSAGE_TYPES, msgpack};
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, Diagnostic, ReadOptions};

const DB: &str = ".deepagents/.state/sessions.db";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/deep-agents/0.1.57")
}

/// (scenario, thread id) checked by name.
const KNOWN_SCENARIOS: [(&str, &str); 4] = [
    ("simple", "01a22abf-01fd-75b4-80a2-4af2d53c094d"),
    ("failing-tool", "01a22acd-5aa4-7377-ac77-335ed451f5f9"),
    ("multibyte", "01a22acd-fbc4-73f6-b258-6fcc1ae02b54"),
    ("long-output", "01a22ace-b9c4-7161-bca4-80898c06e6be"),
];

/// Every scenario directory present.
fn scenarios() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join(DB).is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

fn locator(id: &str) -> String {
    format!("{DB}#{id}")
}

fn id_of(scenario: &str) -> &'static str {
    KNOWN_SCENARIOS.iter().find(|(s, _)| *s == scenario).unwrap().1
}

fn home(scenario: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".deepagents/.state")).unwrap();
    std::fs::copy(fixtures().join(scenario).join(DB), dir.path().join(DB)).unwrap();
    dir
}

fn options(records: u32, bytes: u32) -> ReadOptions {
    ReadOptions { max_batch_records: records, max_batch_bytes: bytes }
}

struct Read {
    records: Vec<Record>,
    diagnostics: Vec<Diagnostic>,
    batches: usize,
}

fn read_with(home: &Path, locator: &str, options: ReadOptions) -> Read {
    let mut read = Read { records: Vec::new(), diagnostics: Vec::new(), batches: 0 };
    trajhost_codec_sdk::read_all::<DeepAgents>(Dir::native(home), locator, options, |batch| {
        read.batches += 1;
        for line in batch.records.lines() {
            read.records.push(serde_json::from_str(line).unwrap_or_else(|e| panic!("bad record line {line}: {e}")));
        }
        read.diagnostics.extend(batch.diagnostics.iter().cloned());
    })
    .unwrap_or_else(|e| panic!("read {locator}: {e:?}"));
    read
}

fn read(home: &Path, locator: &str) -> Read {
    read_with(home, locator, options(1000, 1 << 20))
}

/// The only thread of a scenario, read.
fn read_scenario(scenario: &str) -> (String, Read) {
    let home = home(scenario);
    let found = DeepAgents::discover(&Dir::native(home.path())).unwrap();
    assert_eq!(found.sessions.len(), 1, "{scenario}");
    let loc = found.sessions[0].locator.clone();
    (found.sessions[0].native_id.clone(), read(home.path(), &loc))
}

fn users(records: &[Record]) -> Vec<&str> {
    records.iter().filter_map(|r| if let Body::User { text, .. } = &r.body { Some(text.as_str()) } else { None }).collect()
}

fn assistants(records: &[Record]) -> Vec<&trajhost_codec_sdk::canonical::Assistant> {
    records.iter().filter_map(|r| if let Body::Assistant(a) = &r.body { Some(a) } else { None }).collect()
}

fn tool_calls(records: &[Record]) -> Vec<(&str, &str, &Value)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::ToolCall { call_id, name, arguments } => Some((call_id.as_str(), name.as_str(), arguments)),
            _ => None,
        })
        .collect()
}

fn tool_results(records: &[Record]) -> Vec<(&str, &str, Option<bool>)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::ToolResult { call_id, content, ok } => Some((call_id.as_str(), content.as_str(), *ok)),
            _ => None,
        })
        .collect()
}

fn kinds(records: &[Record]) -> Vec<&'static str> {
    records.iter().map(|r| r.body.kind()).collect()
}

fn diag<'a>(read: &'a Read, code: &str) -> Option<&'a Diagnostic> {
    read.diagnostics.iter().find(|d| d.code == code)
}

/// The decoded `messages` writes of a scenario (from a copy).
fn raw_messages(scenario: &str) -> Vec<Value> {
    let home = home(scenario);
    let conn = rusqlite::Connection::open(home.path().join(DB)).unwrap();
    let mut stmt = conn.prepare("SELECT value FROM writes WHERE channel = 'messages' AND type = 'msgpack' ORDER BY rowid").unwrap();
    let blobs: Vec<Vec<u8>> = stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    blobs
        .iter()
        .flat_map(|b| match msgpack::decode(b).unwrap() {
            Value::Array(items) => items,
            one => vec![one],
        })
        .collect()
}

// ---------------------------------------------------------------- info

#[test]
fn info_describes_the_codec() {
    let info = DeepAgents::info();
    assert_eq!(info.harness, "deep-agents");
    assert_eq!(info.codec_version, env!("CARGO_PKG_VERSION"));
    assert_eq!(info.native_versions, ">=0.1.0, <0.2.0");
    assert!(info.native_version_source.contains("lc_versions"));
    assert!(info.writes.is_empty());
    assert_eq!(info.session_globs, vec![DB.to_string(), ".deepagents/sessions.db".to_string()]);
}

// ---------------------------------------------------------------- discover

#[test]
fn discover_finds_each_fixture_thread() {
    assert!(scenarios().len() >= 2, "{:?}", scenarios());
    for scenario in scenarios() {
        let home = home(&scenario);
        let found = DeepAgents::discover(&Dir::native(home.path())).unwrap();
        assert!(found.diagnostics.is_empty(), "{scenario}: {:?}", found.diagnostics);
        assert_eq!(found.sessions.len(), 1, "{scenario}");
        let s = &found.sessions[0];
        if let Some((_, id)) = KNOWN_SCENARIOS.iter().find(|(k, _)| *k == scenario) {
            assert_eq!(s.native_id, *id);
        }
        assert_eq!(s.locator, locator(&s.native_id));
        assert_eq!(s.cwd.as_deref(), Some("/home/user/project"));
        assert_eq!(s.native_version.as_deref(), Some("0.1.57"));
        assert_eq!(s.size, std::fs::metadata(home.path().join(DB)).unwrap().len());
        assert!(s.started_at.as_deref().unwrap().starts_with("2026-11-30T04:"), "{scenario}: {:?}", s.started_at);
        assert!(s.updated_at.as_deref().unwrap().starts_with("2026-11-30T04:"));
        // `updated_at` is the latest checkpoint's time: after the start.
        assert!(s.updated_at.as_deref().unwrap()[..19] >= s.started_at.as_deref().unwrap()[..19]);
        let first_prompt = raw_messages(&scenario)[0]["value"]["content"].as_str().unwrap().to_string();
        assert!(first_prompt.starts_with(s.title.as_deref().unwrap().trim_end_matches('…')));
        for loc in [s.locator.clone(), DB.to_string()] {
            let one = DeepAgents::inspect(&Dir::native(home.path()), &loc).unwrap();
            assert_eq!((&one.native_id, &one.locator, &one.title, &one.updated_at), (&s.native_id, &s.locator, &s.title, &s.updated_at));
        }
    }
}

#[test]
fn discover_of_a_home_without_deep_agents_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let found = DeepAgents::discover(&Dir::native(dir.path())).unwrap();
    assert!(found.sessions.is_empty() && found.diagnostics.is_empty());
}

// ---------------------------------------------------------------- read

#[test]
fn every_scenario_reads_prompt_calls_results_and_answer() {
    for scenario in scenarios() {
        let (id, read) = read_scenario(&scenario);
        let Body::Meta(meta) = &read.records[0].body else { panic!("{scenario}: first record is not meta") };
        assert_eq!((meta.harness.as_str(), meta.native_id.as_str()), ("deep-agents", id.as_str()));
        assert_eq!(meta.native_version.as_deref(), Some("0.1.57"));
        assert_eq!(meta.cwd.as_deref(), Some("/home/user/project"));
        assert!(diag(&read, "unknown-record-type").is_none(), "{scenario}: {:?}", read.diagnostics);
        assert!(diag(&read, "unknown-content-block").is_none(), "{scenario}: {:?}", read.diagnostics);
        assert!(diag(&read, "malformed-blob").is_none() && diag(&read, "malformed-message").is_none());
        assert!(!users(&read.records).is_empty(), "{scenario}");
        let calls = tool_calls(&read.records);
        let results = tool_results(&read.records);
        assert!(!calls.is_empty() && calls.iter().all(|(_, name, args)| !name.is_empty() && args.is_object()), "{scenario}");
        for (call_id, _, _) in &results {
            assert!(calls.iter().any(|(c, _, _)| c == call_id), "{scenario}: result for an unknown call {call_id}");
        }
        assert!(assistants(&read.records).iter().any(|a| a.text.starts_with("FINAL ANSWER")), "{scenario}");
        // Each message of the writes appears once.
        let ids: Vec<&str> = read.records.iter().map(|r| r.id.as_str()).collect();
        let unique: BTreeSet<&str> = ids.iter().copied().collect();
        assert_eq!(unique.len(), ids.len(), "{scenario}: {ids:?}");
        let again = read_scenario(&scenario).1;
        assert_eq!(again.records, read.records, "{scenario}: stable");
        let small = {
            let home = home(&scenario);
            read_with(home.path(), &locator(&id), options(2, 256))
        };
        assert!(small.batches > 3);
        assert_eq!(small.records, read.records, "{scenario}: batching");
    }
}

#[test]
fn simple_thread_has_prompt_call_result_and_answer() {
    let (_, read) = read_scenario("simple");
    assert_eq!(
        kinds(&read.records),
        ["meta", "user", "assistant", "tool_call", "tool_result", "assistant", "user", "assistant"]
    );
    assert_eq!(users(&read.records), ["Read hello.txt and tell me the secret word.", "What was the secret word again? [notool]"]);
    let calls = tool_calls(&read.records);
    assert_eq!(calls, [("call_labbdaa41ae250b49cf", "execute", &json!({"command": "cat hello.txt"}))]);
    let results = tool_results(&read.records);
    assert_eq!(
        results,
        [("call_labbdaa41ae250b49cf", "Hello from the lab workspace. The secret word is PAPAYA-42.\n\n[Command succeeded with exit code 0]", Some(true))]
    );
    let result = read.records.iter().find(|r| r.body.kind() == "tool_result").unwrap();
    assert_eq!(result.parent.as_deref(), Some("call_labbdaa41ae250b49cf"));
    let answers = assistants(&read.records);
    assert_eq!(answers[0].text, "", "the function_call block is the tool call, emitted once");
    assert!(answers[1].text.starts_with("FINAL ANSWER: the tool returned: Hello from the lab workspace. The secret word is PAPAYA-42."));
    assert!(answers[2].text.starts_with("NOTOOL ANSWER:"));
    for a in &answers {
        assert_eq!(a.model.as_deref(), Some("fake-model"));
        assert!(a.message_id.as_deref().unwrap().starts_with("resp_lab"));
        let u = a.usage.as_ref().unwrap();
        assert_eq!((u.input, u.output, u.cache_read, u.cache_write, u.reasoning), (Some(100), Some(20), Some(0), None, Some(0)));
    }
    for r in &read.records[1..] {
        let src = r.src.as_ref().unwrap();
        assert_eq!((src.file.as_str(), src.len), (DB, 0));
        assert!(r.ts.as_deref().unwrap().starts_with("2026-11-30T04:"), "{:?}", r.ts);
    }
    let ts: Vec<&str> = read.records[1..].iter().map(|r| r.ts.as_deref().unwrap()).collect();
    assert!(ts.windows(2).all(|w| w[0] <= w[1]), "{ts:?}");
    // Ids: LangChain message ids, tool calls by call id.
    let message_ids: BTreeSet<String> =
        raw_messages("simple").iter().filter_map(|m| m["value"]["id"].as_str().map(String::from)).collect();
    for r in &read.records[1..] {
        match &r.body {
            Body::ToolCall { call_id, .. } => assert_eq!(&r.id, call_id),
            _ => assert!(message_ids.contains(r.id.split('#').next().unwrap()), "{}", r.id),
        }
    }
}

#[test]
fn failing_tool_result_is_not_ok_when_the_store_says_error() {
    let (_, read) = read_scenario("failing-tool");
    let results = tool_results(&read.records);
    assert_eq!(results.len(), 1);
    assert!(results[0].1.contains("not in the allow-list"));
    let status = raw_messages("failing-tool")
        .iter()
        .find(|m| m["value"]["type"] == "tool")
        .and_then(|m| m["value"]["status"].as_str().map(String::from))
        .unwrap();
    assert_eq!(results[0].2, Some(status == "success"));
    assert_eq!(tool_calls(&read.records)[0].2, &json!({"command": "cat missing.txt; exit 3"}));
}

#[test]
fn multibyte_text_is_intact() {
    let (id, read) = read_scenario("multibyte");
    assert_eq!(id, id_of("multibyte"));
    assert!(users(&read.records)[0].contains("読んでください 🍍") && users(&read.records)[0].contains("cafe\u{301}"));
    let results = tool_results(&read.records);
    for needle in ["日本語のテキスト", "👩\u{200d}💻", "🏳️\u{200d}🌈", "CHERRY-本-91 ✓", "e\u{301} a\u{308} n\u{303} o\u{302}\u{323}"] {
        assert!(results[0].1.contains(needle), "{needle}");
        assert!(assistants(&read.records).last().unwrap().text.contains(needle), "{needle}");
    }
}

#[test]
fn long_output_keeps_what_the_store_holds() {
    // dcode spills a large result to /tmp (outside the home) and stores a
    // pointer message in the thread: that message is the result.
    let (_, read) = read_scenario("long-output");
    let calls = tool_calls(&read.records);
    let results = tool_results(&read.records);
    assert_eq!(results[0].0, calls[0].0);
    assert!(results[0].1.starts_with("Tool result too large"), "{}", results[0].1);
    assert!(results[0].1.contains(calls[0].0));
    assert!(assistants(&read.records).last().unwrap().text.starts_with("FINAL ANSWER"));
}

#[test]
fn fixture_message_types_and_blocks_are_all_known() {
    let types: BTreeSet<&str> = KNOWN_MESSAGE_TYPES.iter().map(|(k, _)| *k).collect();
    let blocks: BTreeSet<&str> = KNOWN_BLOCKS.iter().copied().collect();
    let mut seen = BTreeSet::new();
    for scenario in scenarios() {
        for m in raw_messages(&scenario) {
            let kind = m["value"]["type"].as_str().unwrap().to_string();
            assert!(types.contains(kind.as_str()), "{scenario}: message type {kind:?} is not in KNOWN_MESSAGE_TYPES");
            if let Some(content) = m["value"]["content"].as_array() {
                for b in content {
                    let b = b["type"].as_str().unwrap();
                    assert!(blocks.contains(b), "{scenario}: block {b:?} is not in KNOWN_BLOCKS");
                }
            }
            seen.insert(kind);
        }
    }
    for kind in ["human", "ai", "tool"] {
        assert!(seen.contains(kind), "{kind}");
    }
}

#[test]
fn reading_leaves_the_database_byte_identical() {
    let home = home("simple");
    let db = home.path().join(DB);
    let wal = home.path().join(format!("{DB}-wal"));
    let sha = |p: &Path| std::fs::read(p).ok().map(|b| hex::encode(Sha256::digest(b)));
    let before = sha(&db);
    DeepAgents::discover(&Dir::native(home.path())).unwrap();
    read(home.path(), &locator(id_of("simple")));
    assert_eq!(sha(&db), before);
    assert!(std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0) == 0);

    // A live WAL (a running dcode): a later checkpoint with a pending
    // `messages` write is seen, and neither file changes.
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    writer
        .execute_batch(
            "INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, value) \
             SELECT thread_id, checkpoint_ns, (SELECT max(checkpoint_id) FROM checkpoints), 'late-task', '~late', 0, channel, type, value \
             FROM writes WHERE channel = 'messages' ORDER BY rowid LIMIT 1;",
        )
        .unwrap();
    assert!(std::fs::metadata(&wal).unwrap().len() > 0);
    let before = (sha(&db), sha(&wal));
    let after_write = read(home.path(), &locator(id_of("simple")));
    // The same first prompt written again (same id) replaces the first one.
    assert_eq!(diag(&after_write, "replaced-message").unwrap().count, 1);
    assert_eq!((sha(&db), sha(&wal)), before);
    drop(writer);
}

// ---------------------------------------------------------------- synthetic threads

/// MessagePack of a JSON value (test helper; the codec only decodes).
fn encode(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.push(0xc0),
        Value::Bool(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push(0xd3);
                out.extend_from_slice(&i.to_be_bytes());
            } else {
                out.push(0xcb);
                out.extend_from_slice(&n.as_f64().unwrap().to_bits().to_be_bytes());
            }
        }
        Value::String(s) => {
            out.push(0xdb);
            out.extend_from_slice(&(s.len() as u32).to_be_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        Value::Array(items) => {
            out.push(0xdd);
            out.extend_from_slice(&(items.len() as u32).to_be_bytes());
            items.iter().for_each(|i| encode(i, out));
        }
        Value::Object(map) => {
            out.push(0xdf);
            out.extend_from_slice(&(map.len() as u32).to_be_bytes());
            for (k, v) in map {
                encode(&Value::String(k.clone()), out);
                encode(v, out);
            }
        }
    }
}

/// A LangChain message as LangGraph stores it: extension 5 (pydantic v2).
fn message(class: &str, fields: Value) -> Vec<u8> {
    let mut payload = Vec::new();
    encode(&json!(["langchain_core.messages", class, fields, "model_validate_json"]), &mut payload);
    let mut out = vec![0xc9];
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.push(5);
    out.extend_from_slice(&payload);
    out
}

/// A `messages` write (a list of messages) for the latest checkpoint.
fn write_messages(conn: &rusqlite::Connection, task: &str, messages: &[Vec<u8>]) {
    let mut value = vec![0xdd];
    value.extend_from_slice(&(messages.len() as u32).to_be_bytes());
    messages.iter().for_each(|m| value.extend_from_slice(m));
    conn.execute(
        "INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, value) \
         VALUES (?1, '', (SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = ?1), ?2, ?2, 0, 'messages', 'msgpack', ?3)",
        rusqlite::params![id_of("simple"), task, value],
    )
    .unwrap();
}

#[test]
fn unknown_message_types_and_blocks_are_reported_and_removes_applied() {
    let home = home("simple");
    let conn = rusqlite::Connection::open(home.path().join(DB)).unwrap();
    write_messages(
        &conn,
        "~t1",
        &[
            message("OracleMessage", json!({"type": "oracle", "content": "x", "id": "o1"})),
            message("AIMessage", json!({"type": "ai", "id": "a9", "content": [
                {"type": "reasoning", "summary": [{"type": "summary_text", "text": "think — ✓"}]},
                {"type": "hologram"},
                {"type": "text", "text": "done"}],
                "tool_calls": [], "response_metadata": {"model_name": "m2"},
                "usage_metadata": {"input_tokens": 50, "output_tokens": 5, "input_token_details": {"cache_read": 30}}})),
            // Undo the first prompt (LangGraph's RemoveMessage).
            message("RemoveMessage", json!({"type": "remove", "id": "4f4d1bf1-f640-4289-ba6c-396bdc9d7976", "content": ""})),
        ],
    );
    drop(conn);
    let read = read(home.path(), &locator(id_of("simple")));
    let unknown: Vec<(&str, &str, u32)> = read
        .diagnostics
        .iter()
        .filter(|d| d.code.starts_with("unknown-"))
        .map(|d| (d.code.as_str(), d.detail.as_str(), d.count))
        .collect();
    assert_eq!(unknown, [("unknown-content-block", "ai/hologram", 1), ("unknown-record-type", "oracle", 1)]);
    assert_eq!(users(&read.records), ["What was the secret word again? [notool]"], "the removed prompt is gone");
    let tail: Vec<&Body> = read.records.iter().rev().take(2).map(|r| &r.body).collect();
    let Body::Reasoning(r) = tail[1] else { panic!("{:?}", tail[1]) };
    assert_eq!(r.text.as_deref(), Some("think — ✓"));
    let Body::Assistant(a) = tail[0] else { panic!() };
    assert_eq!((a.text.as_str(), a.model.as_deref()), ("done", Some("m2")));
    let u = a.usage.as_ref().unwrap();
    assert_eq!((u.input, u.cache_read, u.output), (Some(20), Some(30), Some(5)), "input excludes cache reads");
}

#[test]
fn a_full_snapshot_in_the_latest_checkpoint_is_the_starting_list() {
    // Classic LangGraph: the checkpoint's channel_values holds `messages`.
    let home = home("simple");
    let conn = rusqlite::Connection::open(home.path().join(DB)).unwrap();
    let snapshot = {
        let mut out = Vec::new();
        out.push(0x82);
        encode(&json!("v"), &mut out);
        encode(&json!(4), &mut out);
        encode(&json!("channel_values"), &mut out);
        out.push(0x81);
        encode(&json!("messages"), &mut out);
        out.push(0x91);
        out.extend_from_slice(&message("HumanMessage", json!({"type": "human", "content": "snapshot prompt", "id": "h-snap"})));
        out
    };
    conn.execute(
        "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) \
         SELECT thread_id, '', '1f1ec790-0000-6000-8000-000000000000', checkpoint_id, 'msgpack', ?1, \
                CAST(json_remove(CAST(metadata AS TEXT), '$.counters_since_delta_snapshot') AS BLOB) \
         FROM checkpoints ORDER BY checkpoint_id DESC LIMIT 1",
        [snapshot],
    )
    .unwrap();
    write_messages(&conn, "~t1", &[message("AIMessage", json!({"type": "ai", "content": "after the snapshot", "id": "a-snap"}))]);
    drop(conn);
    let read = read(home.path(), &locator(id_of("simple")));
    assert_eq!(kinds(&read.records), ["meta", "user", "assistant"]);
    assert_eq!(users(&read.records), ["snapshot prompt"]);
    assert_eq!(assistants(&read.records)[0].text, "after the snapshot");
}
