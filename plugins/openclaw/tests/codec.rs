//! The OpenClaw codec against sessions written by the real openclaw
//! 2026.9.6 (fixtures/openclaw/2026.9.6), run natively through
//! `Dir::native`. Every read works on a copy of the fixture home: a native
//! read-only SQLite open of a WAL-mode database creates `-wal`/`-shm` files
//! beside it (the host opens such databases `immutable=1` or reads a
//! private copy).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use trajhost_codec_openclaw::{Handling, KNOWN_ENTRY_TYPES, KNOWN_MESSAGE_ROLES, OpenClaw};
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, Diagnostic, ReadOptions, Severity};

const DB: &str = ".openclaw/agents/main/agent/openclaw-agent.sqlite";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/openclaw/2026.9.6")
}

/// (scenario, session id)
const SCENARIOS: [(&str, &str); 5] = [
    ("simple", "d59a25e0-828b-4a92-bd59-61bb4c13e9b7"),
    ("parallel", "f22a3c66-2322-427f-a48d-fbb2bb879d28"),
    ("failing-tool", "a52faf3f-a1d6-480a-a405-60621fae9e76"),
    ("multibyte", "640a94e8-5e65-443a-9369-2b23829d2dc6"),
    ("long-output", "393fb1f9-ae3d-43d1-a315-a9bbafb8410f"),
];

fn locator(id: &str) -> String {
    format!("{DB}#{id}")
}

fn id_of(scenario: &str) -> &'static str {
    SCENARIOS.iter().find(|(s, _)| *s == scenario).unwrap().1
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A private copy of a fixture home (only the agent database matters).
fn home(scenario: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures().join(scenario).join(".openclaw/agents"), &dir.path().join(".openclaw/agents"));
    dir
}

fn options(records: u32, bytes: u32) -> ReadOptions {
    ReadOptions { max_batch_records: records, max_batch_bytes: bytes }
}

struct Read {
    records: Vec<Record>,
    diagnostics: Vec<Diagnostic>,
    batches: usize,
    early_diagnostics: usize,
}

fn read_with(home: &Path, locator: &str, options: ReadOptions) -> Read {
    let mut read = Read { records: Vec::new(), diagnostics: Vec::new(), batches: 0, early_diagnostics: 0 };
    let mut last_diags = 0;
    trajhost_codec_sdk::read_all::<OpenClaw>(Dir::native(home), locator, options, |batch| {
        read.batches += 1;
        read.early_diagnostics += last_diags;
        last_diags = batch.diagnostics.len();
        for line in batch.records.lines() {
            let record: Record = serde_json::from_str(line).unwrap_or_else(|e| panic!("bad record line {line}: {e}"));
            read.records.push(record);
        }
        read.diagnostics.extend(batch.diagnostics.iter().cloned());
    })
    .unwrap_or_else(|e| panic!("read {locator}: {e:?}"));
    read
}

fn read(home: &Path, locator: &str) -> Read {
    read_with(home, locator, options(1000, 1 << 20))
}

fn read_scenario(scenario: &str) -> Read {
    let home = home(scenario);
    read(home.path(), &locator(id_of(scenario)))
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

fn sqlite(path: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).unwrap()
}

/// The (uncompressed) entries of a scenario's session, from a copy.
fn raw_entries(scenario: &str) -> Vec<Value> {
    let home = home(scenario);
    let conn = sqlite(&home.path().join(DB));
    let mut stmt = conn.prepare("SELECT event_json FROM transcript_events WHERE event_json IS NOT NULL ORDER BY seq").unwrap();
    stmt.query_map([], |r| r.get::<_, String>(0)).unwrap().map(|s| serde_json::from_str(&s.unwrap()).unwrap()).collect()
}

// ---------------------------------------------------------------- info

#[test]
fn info_describes_the_codec() {
    let info = OpenClaw::info();
    assert_eq!(info.harness, "openclaw");
    assert_eq!(info.codec_version, env!("CARGO_PKG_VERSION"));
    assert_eq!(info.native_versions, ">=2026.8.0, <2027.0.0");
    assert!(info.native_version_source.contains("app_version"));
    assert!(info.writes.is_empty());
    assert_eq!(info.session_globs, vec![".openclaw/agents/*/agent/openclaw-agent.sqlite".to_string()]);
    assert_eq!(info.canonical_schema, trajhost_codec_sdk::canonical::SCHEMA);
}

// ---------------------------------------------------------------- discover

#[test]
fn discover_finds_each_fixture_session() {
    for (scenario, id) in SCENARIOS {
        let home = home(scenario);
        let db_size = std::fs::metadata(home.path().join(DB)).unwrap().len();
        let found = OpenClaw::discover(&Dir::native(home.path())).unwrap();
        assert!(found.diagnostics.is_empty(), "{scenario}: {:?}", found.diagnostics);
        assert_eq!(found.sessions.len(), 1, "{scenario}");
        let s = &found.sessions[0];
        assert_eq!(s.native_id, id);
        assert_eq!(s.locator, locator(id));
        assert_eq!(s.cwd.as_deref(), Some("/home/user/project"));
        assert_eq!(s.native_version.as_deref(), Some("2026.9.6"));
        assert_eq!(s.size, db_size);

        let conn = sqlite(&home.path().join(DB));
        let (created, updated): (i64, i64) = conn
            .query_row("SELECT created_at, max(updated_at, transcript_updated_at) FROM session_windows", [], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap();
        assert_eq!(s.started_at.as_deref(), Some(trajhost_codec_openclaw::rfc3339_utc(created).as_str()));
        assert_eq!(s.updated_at.as_deref(), Some(trajhost_codec_openclaw::rfc3339_utc(updated).as_str()));
        assert!(s.started_at.as_deref().unwrap().starts_with("2026-11-30T04:"));

        // The first prompt is the title.
        let prompt = raw_entries(scenario)
            .iter()
            .find(|e| e["message"]["role"] == "user")
            .map(|e| e["message"]["content"].as_str().unwrap().to_string())
            .unwrap();
        let title = s.title.as_deref().unwrap();
        assert!(prompt.starts_with(title.trim_end_matches('…')), "{scenario}: {title:?} vs {prompt:?}");

        for loc in [s.locator.clone(), DB.to_string()] {
            let one = OpenClaw::inspect(&Dir::native(home.path()), &loc).unwrap();
            assert_eq!(one.native_id, s.native_id);
            assert_eq!(one.locator, s.locator);
            assert_eq!((&one.started_at, &one.updated_at, one.size, &one.title, &one.cwd), (&s.started_at, &s.updated_at, s.size, &s.title, &s.cwd));
        }
    }
}

#[test]
fn discover_of_a_home_without_openclaw_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let found = OpenClaw::discover(&Dir::native(dir.path())).unwrap();
    assert!(found.sessions.is_empty() && found.diagnostics.is_empty());
}

// ---------------------------------------------------------------- read

#[test]
fn read_starts_with_meta() {
    for (scenario, id) in SCENARIOS {
        let read = read_scenario(scenario);
        let Body::Meta(meta) = &read.records[0].body else { panic!("{scenario}: first record is not meta") };
        assert_eq!(meta.harness, "openclaw");
        assert_eq!(meta.native_id, id);
        assert_eq!(meta.native_version.as_deref(), Some("2026.9.6"));
        assert_eq!(meta.cwd.as_deref(), Some("/home/user/project"));
        assert_eq!(meta.codec.as_deref(), Some(concat!("openclaw@", env!("CARGO_PKG_VERSION"))));
        assert_eq!(read.records[0].id, id);
        assert_eq!(read.records.iter().filter(|r| r.body.kind() == "meta").count(), 1);
        // Nothing unknown; `custom` entries are reported with their count.
        assert!(diag(&read, "unknown-record-type").is_none(), "{scenario}");
        assert!(diag(&read, "unknown-content-block").is_none(), "{scenario}");
        assert!(diag(&read, "malformed-event").is_none(), "{scenario}");
        let codes: BTreeSet<&str> = read.diagnostics.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, BTreeSet::from(["unmapped-record-type"]), "{scenario}: {:?}", read.diagnostics);
    }
}

#[test]
fn simple_session_has_prompt_call_result_and_answer() {
    let read = read_scenario("simple");
    assert_eq!(
        kinds(&read.records),
        ["meta", "observation", "observation", "user", "assistant", "tool_call", "tool_result", "assistant", "user", "assistant"]
    );
    assert_eq!(users(&read.records), ["Read hello.txt and tell me the secret word.", "What was the secret word again? [notool]"]);
    let calls = tool_calls(&read.records);
    assert_eq!(calls, [("call_lab_37e004aa76fe4a5e", "exec", &json!({"command": "cat hello.txt"}))]);
    let results = tool_results(&read.records);
    assert_eq!(results, [("call_lab_37e004aa76fe4a5e", "Hello from the lab workspace. The secret word is PAPAYA-42.", Some(true))]);
    let result = read.records.iter().find(|r| r.body.kind() == "tool_result").unwrap();
    assert_eq!(result.parent.as_deref(), Some("call_lab_37e004aa76fe4a5e"));
    let call = read.records.iter().find(|r| r.body.kind() == "tool_call").unwrap();
    assert_eq!(call.parent.as_deref(), Some("a2af9e82-4ee1-4d7c-9d2d-a7084585de81"), "the call hangs off its assistant message");

    let answers = assistants(&read.records);
    assert_eq!(answers.len(), 3);
    assert_eq!(answers[0].text, "");
    assert_eq!(answers[0].stop_reason.as_deref(), Some("toolUse"));
    assert!(answers[1].text.starts_with("FINAL ANSWER: the tool returned:") && answers[1].text.contains("PAPAYA-42"));
    assert!(answers[2].text.starts_with("NOTOOL ANSWER:"));
    for a in &answers {
        assert_eq!(a.model.as_deref(), Some("fake-model"));
        let usage = a.usage.as_ref().unwrap();
        assert_eq!((usage.input, usage.output, usage.cache_read, usage.cache_write), (Some(100), Some(20), Some(0), Some(0)));
        assert_eq!(usage.cost_usd, Some(0.0), "recorded as 0 by the store");
        assert!(a.message_id.as_deref().unwrap().starts_with("chatcmpl-lab"));
    }
    // Observations: the model and thinking level of the session.
    let observations: Vec<(&str, Option<&str>)> = read
        .records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Observation { subtype, text } => Some((subtype.as_str(), text.as_deref())),
            _ => None,
        })
        .collect();
    assert_eq!(observations, [("model-change", Some("fake/fake-model")), ("thinking-level-change", Some("off"))]);
    // Parents follow the entry tree through the entries that made no record.
    let user = read.records.iter().find(|r| r.body.kind() == "user").unwrap();
    assert_eq!(user.parent.as_deref(), Some("5615a315-6a13-43de-a8f3-8c11109e76e1"), "skips the custom entry");
    let custom = diag(&read, "unmapped-record-type").unwrap();
    assert_eq!((custom.detail.as_str(), custom.count, custom.severity), ("custom", 5, Severity::Info));
    let ts: Vec<&str> = read.records[1..].iter().map(|r| r.ts.as_deref().unwrap()).collect();
    assert!(ts.windows(2).all(|w| w[0] <= w[1]), "{ts:?}");
}

#[test]
fn parallel_calls_are_both_kept_with_their_results() {
    let read = read_scenario("parallel");
    let calls = tool_calls(&read.records);
    assert_eq!(calls.len(), 2);
    let results = tool_results(&read.records);
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].0, calls[0].0);
    assert_eq!(results[1].0, calls[1].0);
    assert!(results[0].1.contains("PAPAYA-42"));
    assert!(results[1].1.contains("KIWI-58"));
    let answer = &assistants(&read.records).last().unwrap().text;
    assert!(answer.starts_with("FINAL ANSWER") && answer.contains("PAPAYA-42") && answer.contains("KIWI-58"));
}

#[test]
fn failing_tool_result_says_what_the_store_says() {
    let read = read_scenario("failing-tool");
    let results = tool_results(&read.records);
    assert_eq!(results.len(), 1);
    assert!(results[0].1.contains("No such file or directory") && results[0].1.contains("exited with code 3"));
    // OpenClaw records `isError: false` for a command that ran and exited 3.
    assert_eq!(results[0].2, Some(true));
    assert!(assistants(&read.records).last().unwrap().text.starts_with("FINAL ANSWER"));
    assert!(tool_calls(&read.records)[0].2["command"].as_str().unwrap().contains("missing.txt"));
}

#[test]
fn multibyte_text_is_intact() {
    let read = read_scenario("multibyte");
    assert!(users(&read.records)[0].contains("読んでください 🍍") && users(&read.records)[0].contains("cafe\u{301}"));
    let results = tool_results(&read.records);
    // OpenClaw's exec tool drops the zero-width joiners of the emoji
    // sequences before it stores the result: what it stored is what is read.
    for needle in ["日本語のテキスト", "\u{1f469}\u{1f4bb}", "\u{1f3f3}\u{fe0f}\u{1f308}", "CHERRY-本-91 ✓", "e\u{301} a\u{308} n\u{303} o\u{302}\u{323}"] {
        assert!(results[0].1.contains(needle), "{needle}");
        assert!(assistants(&read.records).last().unwrap().text.contains(needle), "{needle}");
    }
}

#[test]
fn long_output_is_decompressed_in_full() {
    let home = home("long-output");
    let conn = sqlite(&home.path().join(DB));
    let compressed: i64 = conn.query_row("SELECT count(*) FROM transcript_events WHERE event_zstd IS NOT NULL", [], |r| r.get(0)).unwrap();
    assert!(compressed >= 1, "the fixture stores the long result zstd-compressed");
    drop(conn);
    let read = read(home.path(), &locator(id_of("long-output")));
    let results = tool_results(&read.records);
    assert_eq!(results.len(), 1);
    assert!(results[0].1.starts_with("LONG-OUTPUT-BEGIN LEMON-512\nline 0001:"));
    assert!(results[0].1.chars().count() > 60_000, "{}", results[0].1.len());
    assert!(diag(&read, "malformed-event").is_none());
    assert!(assistants(&read.records).last().unwrap().text.starts_with("FINAL ANSWER: the tool returned: LONG-OUTPUT-BEGIN"));
}

#[test]
fn ids_are_stable_unique_and_native() {
    for (scenario, id) in SCENARIOS {
        let a = read_scenario(scenario);
        let b = read_scenario(scenario);
        assert_eq!(a.records, b.records, "{scenario}");
        let ids: Vec<&str> = a.records.iter().map(|r| r.id.as_str()).collect();
        let unique: BTreeSet<&str> = ids.iter().copied().collect();
        assert_eq!(unique.len(), ids.len(), "{scenario}: {ids:?}");
        let entry_ids: BTreeSet<String> = raw_entries(scenario).iter().filter_map(|e| e["id"].as_str().map(String::from)).collect();
        for r in &a.records {
            let src = r.src.as_ref().unwrap();
            assert_eq!((src.file.as_str(), src.len), (DB, 0));
            match &r.body {
                Body::Meta(_) => assert_eq!(r.id, id),
                Body::ToolCall { call_id, .. } => assert_eq!(&r.id, call_id),
                _ => {
                    let base = r.id.split('#').next().unwrap();
                    // The long result's entry is compressed: not in raw_entries.
                    assert!(entry_ids.contains(base) || scenario == "long-output", "{scenario}: {}", r.id);
                }
            }
        }
    }
}

#[test]
fn batching_does_not_change_the_records() {
    for (scenario, id) in SCENARIOS {
        let home = home(scenario);
        let whole = read(home.path(), &locator(id));
        assert_eq!(whole.batches, 1, "{scenario}");
        let small = read_with(home.path(), &locator(id), options(2, 512));
        assert!(small.batches > 3, "{scenario}: {} batches", small.batches);
        assert_eq!(small.records, whole.records, "{scenario}");
        assert_eq!(small.early_diagnostics, 0);
        let zero = read_with(home.path(), &locator(id), options(0, 0));
        assert_eq!(zero.records, whole.records, "{scenario}");
        assert_eq!(read(home.path(), DB).records, whole.records);
    }
}

#[test]
fn fixture_entry_types_are_all_known() {
    let types: BTreeSet<&str> = KNOWN_ENTRY_TYPES.iter().map(|(k, _)| *k).collect();
    let roles: BTreeSet<&str> = KNOWN_MESSAGE_ROLES.iter().map(|(k, _)| *k).collect();
    let mut seen = BTreeSet::new();
    for (scenario, _) in SCENARIOS {
        for entry in raw_entries(scenario) {
            let kind = entry["type"].as_str().unwrap().to_string();
            assert!(types.contains(kind.as_str()), "{scenario}: entry type {kind:?} is not in KNOWN_ENTRY_TYPES");
            if kind == "message" {
                let role = entry["message"]["role"].as_str().unwrap().to_string();
                assert!(roles.contains(role.as_str()), "{scenario}: role {role:?} is not in KNOWN_MESSAGE_ROLES");
                seen.insert(format!("message/{role}"));
            }
            seen.insert(kind);
        }
    }
    for kind in ["session", "message", "model_change", "thinking_level_change", "custom", "message/user", "message/assistant", "message/toolResult"] {
        assert!(seen.contains(kind), "{kind}");
    }
}

#[test]
fn every_entry_type_is_mapped_or_reported() {
    for (scenario, _) in SCENARIOS {
        let raw = raw_entries(scenario);
        let read = read_scenario(scenario);
        for (kind, handling) in KNOWN_ENTRY_TYPES {
            let count = raw.iter().filter(|e| e["type"] == *kind).count() as u32;
            let reported = read.diagnostics.iter().find(|d| d.code == "unmapped-record-type" && d.detail == *kind);
            match handling {
                // The compressed entries of long-output are custom ones: at least as many.
                Handling::Reported if count > 0 => assert!(reported.unwrap().count >= count, "{scenario}: {kind}"),
                Handling::Reported => {}
                Handling::Mapped(_) => assert!(reported.is_none(), "{scenario}: {kind}"),
            }
        }
    }
}

// ---------------------------------------------------------------- store left intact

fn sha(path: &Path) -> Option<String> {
    std::fs::read(path).ok().map(|b| hex::encode(Sha256::digest(b)))
}

#[test]
fn reading_leaves_the_database_byte_identical() {
    let home = home("simple");
    let db = home.path().join(DB);
    let wal = home.path().join(format!("{DB}-wal"));
    let before = sha(&db);
    assert!(sha(&wal).is_none(), "the fixture has no WAL");
    OpenClaw::discover(&Dir::native(home.path())).unwrap();
    read(home.path(), &locator(id_of("simple")));
    assert_eq!(sha(&db), before);
    assert!(std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0) == 0);
}

#[test]
fn reading_with_a_live_wal_sees_it_and_changes_nothing() {
    let home = home("simple");
    let db = home.path().join(DB);
    let wal = home.path().join(format!("{DB}-wal"));
    let writer = sqlite(&db);
    writer.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    writer.execute("UPDATE session_nodes SET label = 'Labelled — ✓'", []).unwrap();
    assert!(std::fs::metadata(&wal).unwrap().len() > 0);
    let before = (sha(&db), sha(&wal));
    let read = read(home.path(), &locator(id_of("simple")));
    let Body::Meta(meta) = &read.records[0].body else { unreachable!() };
    assert_eq!(meta.title.as_deref(), Some("Labelled — ✓"));
    assert_eq!((sha(&db), sha(&wal)), before);
    drop(writer);
}

// ---------------------------------------------------------------- synthetic stores

fn synthetic(extra: &[String]) -> tempfile::TempDir {
    let home = home("simple");
    let conn = sqlite(&home.path().join(DB));
    for sql in extra {
        conn.execute_batch(sql).unwrap();
    }
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
    drop(conn);
    home
}

fn insert_event(seq: i64, entry: Value) -> String {
    let sid = id_of("simple");
    let json = entry.to_string().replace('\'', "''");
    format!(
        "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES ('{sid}', {seq}, '{json}', 1796012999000, {len}); \
         INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, created_at) VALUES ('{sid}', '{id}', {seq}, '{kind}', {parent}, 1796012999000);",
        len = json.len(),
        id = entry["id"].as_str().unwrap(),
        kind = entry["type"].as_str().unwrap(),
        parent = entry["parentId"].as_str().map_or("NULL".to_string(), |p| format!("'{p}'")),
    )
}

#[test]
fn unknown_entry_types_and_roles_are_reported() {
    let sid = id_of("simple");
    let leaf = "ffb36a89-87d1-4946-b9e7-8e9963056a61";
    let home = synthetic(&[
        insert_event(14, json!({"type": "hologram", "id": "e14", "parentId": leaf, "timestamp": "2026-11-30T04:30:00.000Z"})),
        insert_event(15, json!({"type": "message", "id": "e15", "parentId": "e14", "timestamp": "2026-11-30T04:30:01.000Z",
            "message": {"role": "oracle", "content": "x"}})),
        insert_event(16, json!({"type": "compaction", "id": "e16", "parentId": "e15", "timestamp": "2026-11-30T04:30:02.000Z",
            "summary": "Summary: PAPAYA-42", "firstKeptEntryId": "e15", "tokensBefore": 500})),
        insert_event(17, json!({"type": "message", "id": "e17", "parentId": "e16", "timestamp": "2026-11-30T04:30:03.000Z",
            "message": {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig"},
                {"type": "text", "text": "done"}], "model": "m2", "stopReason": "stop"}})),
        // The projection is stale now: OpenClaw would rebuild it.
        format!("UPDATE session_transcript_index_state SET needs_rebuild = 1 WHERE session_id = '{sid}'"),
    ]);
    let read = read(home.path(), &locator(sid));
    let unknown: Vec<(&str, u32)> =
        read.diagnostics.iter().filter(|d| d.code == "unknown-record-type").map(|d| (d.detail.as_str(), d.count)).collect();
    assert_eq!(unknown, [("hologram", 1), ("message/oracle", 1)]);
    assert!(diag(&read, "active-branch-recomputed").is_some());
    let tail: Vec<&Body> = read.records.iter().rev().take(3).map(|r| &r.body).collect();
    assert_eq!(tail[2], &Body::Compaction { summary: "Summary: PAPAYA-42".into(), trigger: None });
    let Body::Reasoning(reasoning) = tail[1] else { panic!("{:?}", tail[1]) };
    assert_eq!((reasoning.text.as_deref(), reasoning.opaque.as_deref()), (Some("hmm"), Some("sig")));
    let Body::Assistant(a) = tail[0] else { panic!() };
    assert_eq!((a.text.as_str(), a.model.as_deref(), a.usage.as_ref()), ("done", Some("m2"), None));
    // The compaction's parent skips the two entries that made no record.
    let compaction = read.records.iter().find(|r| r.body.kind() == "compaction").unwrap();
    assert_eq!(compaction.parent.as_deref(), Some("1c48d45c-446b-4ef9-a2d4-b80f1c8fb5fe"));
}

#[test]
fn events_off_the_active_branch_are_counted_not_read() {
    let sid = id_of("simple");
    // A branch from the first answer: an abandoned user prompt, off the
    // path of the (projected) active branch.
    let home = synthetic(&[insert_event(
        14,
        json!({"type": "message", "id": "fork1", "parentId": "c0b5edef-8107-4864-b53a-fc80260c4f61",
               "timestamp": "2026-11-30T04:29:00.000Z", "message": {"role": "user", "content": "abandoned"}}),
    ), format!("UPDATE session_transcript_index_state SET indexed_seq = 14 WHERE session_id = '{sid}'")]);
    let projected = read(home.path(), &locator(sid));
    assert!(!users(&projected.records).contains(&"abandoned"));
    assert_eq!(diag(&projected, "off-branch-event").unwrap().count, 1);

    // Without a current projection the branch is recomputed from parentId:
    // the fork is the last event, so it is the leaf.
    let home = synthetic(&[insert_event(
        14,
        json!({"type": "message", "id": "fork1", "parentId": "c0b5edef-8107-4864-b53a-fc80260c4f61",
               "timestamp": "2026-11-30T04:29:00.000Z", "message": {"role": "user", "content": "abandoned"}}),
    )]);
    let recomputed = read(home.path(), &locator(sid));
    assert_eq!(users(&recomputed.records), ["Read hello.txt and tell me the secret word.", "abandoned"]);
    assert!(diag(&recomputed, "active-branch-recomputed").is_some());
    // seqs 9..=13 (the later turn) are off this branch.
    assert_eq!(diag(&recomputed, "off-branch-event").unwrap().count, 5);
}
