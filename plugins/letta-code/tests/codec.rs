//! The Letta Code codec against conversations written by the real
//! `letta` CLI's local backend (fixtures/letta-code/0.25.9), run natively
//! through `Dir::native`, plus synthetic variations of them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_letta_code::{Format, KNOWN_PARTS, KNOWN_ROLES, LettaCode, discover};
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{Codec, ReadOptions};
use trajhost_codec_testkit::{self as kit, Read, Spans, assistants, raw_lines, tool_calls, tool_results, users};

const CONV_DIR: &str = ".letta/lc-local-backend/conversations/Y29udmVyc2F0aW9uOmxvY2FsLWNvbnYtMQ";
const LOCATOR: &str = ".letta/lc-local-backend/conversations/Y29udmVyc2F0aW9uOmxvY2FsLWNvbnYtMQ/messages.jsonl";

/// (scenario, first prompt)
const SCENARIOS: [(&str, &str); 5] = [
    ("simple", "Read hello.txt and tell me the secret word."),
    ("parallel", "Read hello.txt and second.txt and tell me both words."),
    ("failing-tool", "Run cat missing.txt and tell me what happened."),
    (
        "multibyte",
        "Lies bitte unicode.txt — 読んでください 🍍, and tell me the sentinel (café with a combining acute: cafe\u{301}).",
    ),
    ("long-output", "Print long.txt with cat and tell me how it begins."),
];

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
fn info_describes_the_codec() {
    let info = LettaCode::info();
    assert_eq!(info.harness, "letta-code");
    assert_eq!(info.codec_version, env!("CARGO_PKG_VERSION"));
    assert_eq!(info.native_versions, ">=0.25.0, <1.0.0");
    assert!(info.native_version_source.contains("Letta Code version"));
    assert_eq!(info.writes, vec!["letta-code-pi-ai-message-jsonl".to_string()]);
    assert_eq!(<LettaCode as Codec>::WRITES_FOR, ">=0.25.0, <0.30.28", "up to the first release with schema 2");
    assert_eq!(info.session_globs, vec![".letta/lc-local-backend/conversations/*/messages.jsonl".to_string()]);
    assert_eq!(info.canonical_schema, trajhost_codec_sdk::canonical::SCHEMA);
}

#[test]
fn discover_finds_each_fixture_conversation() {
    for (name, prompt) in SCENARIOS {
        let home = home(name);
        let found = LettaCode::discover(&Dir::native(&home)).unwrap();
        assert_eq!(found.sessions.len(), 1, "{name}: the agent's empty default conversation is no session");
        let codes: Vec<&str> = found.diagnostics.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, ["empty-session"], "{name}");
        let s = &found.sessions[0];
        assert_eq!(s.native_id, "local-conv-1");
        assert_eq!(s.locator, LOCATOR);
        assert_eq!(s.cwd.as_deref(), Some("/home/user/project"));
        assert_eq!(s.native_version.as_deref(), Some("0.25.9"));
        // No conversation summary: the first prompt, cut to 80 characters.
        let title = s.title.as_deref().unwrap();
        if prompt.chars().count() <= 80 {
            assert_eq!(title, prompt);
        } else {
            assert!(title.ends_with('…') && prompt.starts_with(title.trim_end_matches('…')), "{title}");
        }
        let dir = home.join(CONV_DIR);
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(s.started_at.as_deref(), manifest["created_at"].as_str());
        let mtime = std::fs::metadata(dir.join("messages.jsonl"))
            .unwrap()
            .modified()
            .unwrap()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64;
        assert_eq!(s.updated_at.as_deref(), Some(rfc3339_ms(mtime).as_str()));
        let size: u64 = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum();
        assert_eq!(s.size, size);
        let one = LettaCode::inspect(&Dir::native(&home), LOCATOR).unwrap();
        assert_eq!(
            (one.native_id, one.started_at, one.size, one.title),
            (s.native_id.clone(), s.started_at.clone(), s.size, s.title.clone())
        );
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
    let named: BTreeSet<(&str, &str)> =
        found.diagnostics.iter().map(|d| (d.code.as_str(), d.file.as_deref().expect("names its file"))).collect();
    let at = |name: &str| format!(".letta/lc-local-backend/conversations/{name}");
    let expected = [
        ("empty-session", at("ZGVmYXVsdDphZ2VudC1sb2NhbC0xMDAxZDJiOS00MjlmLTRkZmEtYjc2Ni1kNTUwMjljOTZjNWM")),
        ("no-messages-file", at("Zm9v")),
        ("unrecognized-file", at("stray.json")),
    ];
    assert_eq!(named, expected.iter().map(|(c, f)| (*c, f.as_str())).collect());
    let read = kit::conformance::<LettaCode>(tmp.path(), &at("renamed/messages.jsonl"), Spans::Lines);
    assert_eq!(read.meta().native_id, "local-conv-1");
}

#[test]
fn every_fixture_session_passes_the_testkit_checks() {
    for (name, _) in SCENARIOS {
        kit::conformance::<LettaCode>(&home(name), LOCATOR, Spans::Lines);
    }
}

#[test]
fn every_scenario_reads_prompt_tool_call_result_and_answer() {
    for (name, prompt) in SCENARIOS {
        let read = read(&home(name));
        let records = &read.records;
        let Body::Meta(meta) = &records[0].body else { panic!("{name}: meta first") };
        assert_eq!((meta.native_id.as_str(), meta.harness.as_str()), ("local-conv-1", "letta-code"));
        assert_eq!(meta.native_version.as_deref(), Some("0.25.9"));
        assert_eq!(meta.cwd.as_deref(), Some("/home/user/project"));
        assert_eq!(users(records).first().copied(), Some(prompt), "{name}: the reminders are split off");
        let calls = tool_calls(records);
        assert!(!calls.is_empty());
        for (call_id, tool, args) in &calls {
            assert!(call_id.starts_with("call_lab_"));
            assert!(["Bash", "Read"].contains(tool), "{name}: {tool}");
            assert!(args.is_object());
        }
        let results = tool_results(records);
        assert_eq!(results.len(), calls.len());
        let ids: BTreeSet<&str> = calls.iter().map(|c| c.0).collect();
        assert!(
            results.iter().all(|r| ids.contains(r.0) && r.2 == Some(true)),
            "{name}: isError false everywhere: {results:?}"
        );
        let answers = assistants(records);
        assert!(answers.iter().any(|a| a.text.starts_with("FINAL ANSWER: the tool returned:")), "{name}");
        for a in &answers {
            assert_eq!(a.model.as_deref(), Some("fake-model"));
            assert!(a.message_id.as_deref().unwrap().starts_with("chatcmpl-lab"));
            let usage = a.usage.as_ref().unwrap();
            assert_eq!((usage.input, usage.output, usage.cost_usd), (Some(100), Some(20), None));
        }
        for r in &records[1..] {
            assert_eq!(r.src.as_ref().unwrap().file, LOCATOR);
            assert!(r.ts.is_some(), "{name}: {r:?}");
        }
        assert!(
            read.diagnostics.iter().all(|d| d.code != "unknown-record-type" && d.code != "unmapped-content-part"),
            "{name}: {:?}",
            read.diagnostics
        );
    }
}

#[test]
fn simple_has_both_turns() {
    let records = read(&home("simple")).records;
    assert_eq!(
        users(&records),
        ["Read hello.txt and tell me the secret word.", "What was the secret word again? [notool]"]
    );
    let kinds: Vec<&str> = records.iter().map(|r| r.body.kind()).collect();
    assert_eq!(
        kinds,
        [
            "meta",
            "observation",
            "user",
            "assistant",
            "tool_call",
            "tool_result",
            "assistant",
            "observation",
            "user",
            "assistant"
        ]
    );
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
    let calls = tool_calls(&records);
    assert_eq!(calls[0].2, &json!({"command": "cat hello.txt", "description": "Run cat hello.txt"}));
    assert_eq!(
        tool_results(&records),
        [(calls[0].0, "Hello from the lab workspace. The secret word is PAPAYA-42.\n", Some(true))]
    );
    let answers = assistants(&records);
    assert_eq!(
        answers.iter().map(|a| a.stop_reason.as_deref()).collect::<Vec<_>>(),
        [Some("toolUse"), Some("stop"), Some("stop")]
    );
    assert!(answers[2].text.starts_with("NOTOOL ANSWER") && answers[2].text.contains("PAPAYA-42"));
    // The assistant's own `timestamp` (epoch ms), as recorded.
    assert_eq!(records[3].ts.as_deref(), Some("2026-11-30T04:18:48.315Z"));
    let Body::Observation { text, .. } = &records[1].body else { panic!() };
    assert!(text.as_deref().unwrap().contains("**Letta Code version**: 0.25.9"));
}

#[test]
fn parallel_and_failing_tool_results() {
    let records = read(&home("parallel")).records;
    let calls = tool_calls(&records);
    assert_eq!(calls.iter().map(|c| c.1).collect::<Vec<_>>(), ["Bash", "Read"]);
    assert_eq!(calls[1].2, &json!({"file_path": "/home/user/project/second.txt"}));
    let results = tool_results(&records);
    assert_eq!(results.iter().map(|r| r.0).collect::<Vec<_>>(), calls.iter().map(|c| c.0).collect::<Vec<_>>());
    assert!(results[0].1.contains("PAPAYA-42") && results[1].1.contains("KIWI-58"));
    // Letta's Bash tool reports a failing command in its text and stores
    // isError false: `ok` says what the store says.
    let records = read(&home("failing-tool")).records;
    let results = tool_results(&records);
    assert_eq!(results.len(), 1);
    assert!(results[0].1.starts_with("Exit code: 3\n"));
    assert_eq!(results[0].2, Some(true));
}

#[test]
fn multibyte_and_long_output_are_intact() {
    let records = read(&home("multibyte")).records;
    assert_eq!(users(&records), [SCENARIOS[3].1]);
    let result = tool_results(&records)[0].1;
    assert!(result.contains("日本語のテキスト：秘密の言葉は「桃」。"));
    assert!(result.contains("Emoji: 🍍🥭🎉 👩\u{200d}💻 🏳\u{fe0f}\u{200d}🌈"));
    assert!(result.contains("Combining marks: e\u{301} a\u{308} n\u{303} o\u{302}\u{323}\n"));
    assert!(result.contains("Sentinel: CHERRY-本-91 ✓"));
    let records = read(&home("long-output")).records;
    let result = tool_results(&records)[0].1;
    assert!(result.contains("LONG-OUTPUT-BEGIN LEMON-512"));
    assert!(assistants(&records).iter().any(|a| a.text.contains("LEMON-512")));
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
