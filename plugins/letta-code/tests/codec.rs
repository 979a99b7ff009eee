//! What is particular to Letta Code's conversations, against conversations
//! written by the real `letta` CLI's local backend
//! (fixtures/letta-code/0.25.9) and synthetic variations of them. What every
//! codec must do is the testkit's suite, in tests/conformance.rs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_letta_code::{Format, KNOWN_PARTS, KNOWN_ROLES, LettaCode, discover};
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, ReadOptions};
use trajhost_codec_testkit::{self as kit, Read, Spans, assistants, raw_lines, tool_calls, tool_results, users};
// (scenario, first prompt)
use trajhost_codec_testkit::suite::lab::FIRST_PROMPTS as SCENARIOS;

const CONV_DIR: &str = ".letta/lc-local-backend/conversations/Y29udmVyc2F0aW9uOmxvY2FsLWNvbnYtMQ";
const LOCATOR: &str = ".letta/lc-local-backend/conversations/Y29udmVyc2F0aW9uOmxvY2FsLWNvbnYtMQ/messages.jsonl";

fn home(scenario: &str) -> PathBuf {
    kit::fixtures("letta-code", "0.25.9").join(scenario)
}

fn read(home: &Path) -> Read {
    kit::read::<LettaCode>(home, LOCATOR)
}

fn copy_of(name: &str) -> tempfile::TempDir {
    kit::copy_of(&home(name))
}

fn append(path: &Path, lines: &[Value]) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).create(true).open(path).unwrap();
    for l in lines {
        writeln!(f, "{}", serde_json::to_string(l).unwrap()).unwrap();
    }
}

#[test]
fn it_writes_for_the_releases_before_schema_2() {
    assert_eq!(<LettaCode as Codec>::WRITES_FOR, ">=0.25.0, <0.30.28", "up to the first release with schema 2");
}

/// The suite checks discover against read; the start is the manifest's, a
/// short first prompt the whole title.
#[test]
fn discover_takes_the_start_from_the_manifest_and_the_title_from_the_prompt() {
    for (name, prompt) in SCENARIOS {
        let s = kit::discover::<LettaCode>(&home(name)).sessions.remove(0);
        if prompt.chars().count() <= 80 {
            assert_eq!(s.title.as_deref(), Some(prompt));
        }
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(home(name).join(CONV_DIR).join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(s.started_at.as_deref(), manifest["created_at"].as_str());
    }
}

#[test]
fn discover_names_what_is_no_conversation_and_reads_a_renamed_folder_by_its_conversation_json() {
    let tmp = kit::copy_of(&home("simple"));
    let root = tmp.path().join(".letta/lc-local-backend/conversations");
    std::fs::rename(tmp.path().join(CONV_DIR), root.join("renamed")).unwrap();
    std::fs::create_dir(root.join("Zm9v")).unwrap();
    std::fs::write(root.join("stray.json"), "{}").unwrap();
    let found = kit::discover::<LettaCode>(tmp.path());
    assert_eq!(found.sessions.len(), 1, "{:?}", found.diagnostics);
    assert_eq!(found.sessions[0].native_id, "local-conv-1", "conversation.json names a renamed folder");
    let at = |name: &str| format!(".letta/lc-local-backend/conversations/{name}");
    let expected = [
        ("empty-session", at("ZGVmYXVsdDphZ2VudC1sb2NhbC0xMDAxZDJiOS00MjlmLTRkZmEtYjc2Ni1kNTUwMjljOTZjNWM")),
        ("no-messages-file", at("Zm9v")),
        ("unrecognized-file", at("stray.json")),
    ];
    kit::check_named_files(&found.diagnostics, &expected);
    let read = kit::conformance::<LettaCode>(tmp.path(), &at("renamed/messages.jsonl"), Spans::Lines);
    assert_eq!(read.meta().native_id, "local-conv-1");
}

#[test]
fn ids_come_from_the_lab_model_and_records_from_the_messages_file() {
    for (name, _) in SCENARIOS {
        let read = read(&home(name));
        assert!(tool_calls(&read.records).iter().all(|c| c.0.starts_with("call_lab_")), "{name}");
        for a in assistants(&read.records) {
            assert!(a.message_id.as_deref().unwrap().starts_with("chatcmpl-lab"));
        }
        for r in &read.records[1..] {
            assert_eq!(r.src.as_ref().unwrap().file, LOCATOR);
        }
    }
}

/// Message ids are record ids (a split-off reminder `#1`); stop reasons and
/// the assistant's own time are kept; the reminder says the version.
#[test]
fn message_ids_stop_reasons_and_times_are_the_stores() {
    let records = read(&home("simple")).records;
    let ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "local-conv-1",
            "ui-msg-1#1",
            "ui-msg-1",
            "ui-msg-2",
            "ui-msg-2#1",
            "ui-msg-3",
            "ui-msg-4",
            "ui-msg-5#1",
            "ui-msg-5",
            "ui-msg-6"
        ]
    );
    let answers = assistants(&records);
    assert_eq!(
        answers.iter().map(|a| a.stop_reason.as_deref()).collect::<Vec<_>>(),
        [Some("toolUse"), Some("stop"), Some("stop")]
    );
    // The assistant's own `timestamp` (epoch ms), as recorded.
    assert_eq!(records[3].ts.as_deref(), Some("2026-11-30T04:18:48.315Z"));
    let Body::Observation { text, .. } = &records[1].body else { panic!() };
    assert!(text.as_deref().unwrap().contains("**Letta Code version**: 0.25.9"));
}

#[test]
fn fixtures_hold_only_known_record_types() {
    let roles: BTreeSet<&str> = KNOWN_ROLES.iter().map(|(r, _)| *r).collect();
    for (name, _) in SCENARIOS {
        for line in raw_lines(&home(name).join(LOCATOR)) {
            let role = line["role"].as_str().unwrap();
            assert!(roles.contains(role), "{name}: role {role} is new to the codec");
            for part in line["content"].as_array().unwrap() {
                let kind = part["type"].as_str().unwrap();
                assert!(KNOWN_PARTS.contains(&kind), "{name}: part {kind} is new to the codec");
            }
        }
    }
}

#[test]
fn unknown_roles_parts_and_entries_are_diagnosed() {
    let home = copy_of("simple");
    let path = home.path().join(LOCATOR);
    append(
        &path,
        &[
            json!({"id": "x1", "role": "narrator", "content": []}),
            json!({"id": "x2", "role": "assistant", "content": [{"type": "hologram"}, {"type": "text", "text": "ok"}], "model": "m", "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": {"total": 0}}}),
            json!({"type": "bookmark", "id": "e1"}),
        ],
    );
    let read = read(home.path());
    let unknown: Vec<&str> =
        read.diagnostics.iter().filter(|d| d.code == "unknown-record-type").map(|d| d.detail.as_str()).collect();
    assert_eq!(unknown, ["entry:bookmark", "role:narrator"]);
    assert!(read.diagnostics.iter().any(|d| d.code == "unmapped-content-part" && d.detail == "hologram"));
    // All-zero usage is "none reported", never zeros.
    let last = assistants(&read.records).pop().unwrap();
    assert_eq!((last.text.as_str(), last.usage.as_ref()), ("ok", None));
}

#[test]
fn a_later_snapshot_of_a_message_replaces_the_earlier_one() {
    let home = copy_of("simple");
    let path = home.path().join(LOCATOR);
    let lines = raw_lines(&path);
    let mut last = lines.last().unwrap().clone();
    last["content"] =
        json!([{"type": "thinking", "thinking": "Recall."}, {"type": "text", "text": "Edited: PAPAYA-42."}]);
    append(&path, &[last]);
    let read = read(home.path());
    let answers = assistants(&read.records);
    assert_eq!(answers.len(), 3);
    assert_eq!(answers[2].text, "Edited: PAPAYA-42.");
    assert!(answers.iter().all(|a| !a.text.starts_with("NOTOOL")));
    assert_eq!(read.diagnostics.iter().find(|d| d.code == "superseded-snapshot").unwrap().count, 1);
    let reasoning: Vec<&Body> =
        read.records.iter().map(|r| &r.body).filter(|b| matches!(b, Body::Reasoning(_))).collect();
    assert_eq!(reasoning.len(), 1);
    let ids: BTreeSet<&str> = read.records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), read.records.len());
}

#[test]
fn schema_2_session_entries_are_read() {
    let home = copy_of("simple");
    let path = home.path().join(LOCATOR);
    let messages = raw_lines(&path);
    let mut rows = vec![
        json!({"type": "session", "version": 3, "id": "local-conv-1", "timestamp": "2026-11-30T04:18:47.000Z", "cwd": "/srv/app"}),
    ];
    let mut parent = Value::Null;
    for (i, m) in messages.iter().enumerate() {
        let id = format!("e{i}");
        rows.push(json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-11-30T04:18:50.000Z", "message": m}));
        parent = json!(id);
    }
    rows.push(json!({"type": "compaction", "id": "c1", "parentId": parent, "timestamp": "2026-11-30T04:19:00.000Z", "summary": "Asked for the word; PAPAYA-42.", "firstKeptEntryId": null, "tokensBefore": 900, "message": {"id": "ui-msg-7", "role": "user", "content": [{"type": "text", "text": "Asked for the word; PAPAYA-42."}], "timestamp": 1796012400000i64}, "details": {"stats": {"trigger": "manual"}}}));
    let text: String = rows.iter().map(|r| r.to_string() + "\n").collect();
    std::fs::write(&path, text).unwrap();
    std::fs::write(home.path().join(CONV_DIR).join("manifest.json"), json!({"schema_version": 2, "message_format": "pi-session-entry-jsonl", "provider_stack": "pi-ai", "created_at": "2026-11-30T04:18:46.000Z"}).to_string()).unwrap();
    // Schema 2 is the 0.1.0-entries codec's layout: it lists the conversation, this codec does not.
    let found = LettaCode::discover(&Dir::native(home.path())).unwrap();
    assert!(found.sessions.iter().all(|s| s.native_id != "local-conv-1"), "{:?}", found.sessions);
    let err = format!("{:?}", LettaCode::inspect(&Dir::native(home.path()), LOCATOR).unwrap_err());
    assert!(err.contains("schema-2") && err.contains("letta-code@0.1.0-entries"), "{err}");
    let found = discover::discover(&Dir::native(home.path()), Format::Entries).unwrap();
    assert_eq!(found.sessions.len(), 1);
    let s = &found.sessions[0];
    assert_eq!(s.native_id, "local-conv-1");
    assert_eq!(s.started_at.as_deref(), Some("2026-11-30T04:18:47.000Z"), "the session header's time");
    assert_eq!(s.cwd.as_deref(), Some("/srv/app"), "the session header's cwd");
    // Its read still reads it, when asked.
    let read = read(home.path());
    assert_eq!(
        users(&read.records),
        ["Read hello.txt and tell me the secret word.", "What was the secret word again? [notool]"]
    );
    assert_eq!(tool_results(&read.records).len(), 1);
    let compactions: Vec<(&str, Option<&str>)> = read
        .records
        .iter()
        .filter_map(|r| {
            if let Body::Compaction { summary, trigger } = &r.body {
                Some((summary.as_str(), trigger.as_deref()))
            } else {
                None
            }
        })
        .collect();
    assert_eq!(compactions, [("Asked for the word; PAPAYA-42.", Some("manual"))]);
    assert!(read.diagnostics.iter().all(|d| d.code != "unknown-record-type"), "{:?}", read.diagnostics);
}

#[test]
fn a_torn_last_line_is_a_torn_tail() {
    let home = copy_of("simple");
    let path = home.path().join(LOCATOR);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"id\":\"ui-msg-7\",\"role\":\"assistant\",\"content\":[{\"type\":\"te");
    std::fs::write(&path, text).unwrap();
    let read = read(home.path());
    assert_eq!(read.diagnostics.iter().find(|d| d.code == "torn-tail").unwrap().count, 1);
    assert_eq!(assistants(&read.records).len(), 3);
}

#[test]
fn a_locator_outside_the_layout_is_refused() {
    let home = home("simple");
    for bad in [
        "../x/messages.jsonl",
        "/abs/messages.jsonl",
        ".letta/lc-local-backend/conversations/x/manifest.json",
        ".letta/lc-local-backend/conversations/nope/messages.jsonl",
    ] {
        assert!(
            LettaCode::read(Dir::native(&home), bad, ReadOptions { max_batch_records: 10, max_batch_bytes: 1000 })
                .is_err(),
            "{bad}"
        );
    }
}
