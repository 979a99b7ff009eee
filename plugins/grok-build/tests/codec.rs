//! The Grok Build codec against sessions written by the real `grok` CLI
//! (fixtures/grok-build/1.0.41), run natively through `Dir::native`, plus
//! synthetic variations of them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_grok_build::{GrokBuild, KNOWN_ITEM_TYPES, KNOWN_UPDATE_TYPES};
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{Codec, ReadOptions};
use trajhost_codec_testkit::{
    self as kit, Read, Spans, assistants, observations_of, raw_lines, tool_calls, tool_results, users,
};

const CWD_DIR: &str = ".grok/sessions/%2Fhome%2Fuser%2Fproject";

/// (scenario, session id, first prompt)
const SCENARIOS: [(&str, &str, &str); 5] = [
    ("simple", "01a22aac-c9d9-7231-a42a-cac10291970f", "Read hello.txt and tell me the secret word."),
    ("parallel", "01a22aaf-16fa-7c43-accc-377ba380de5a", "Read hello.txt and second.txt and tell me both words."),
    ("failing-tool", "01a22aaf-2222-7cf0-bdd9-17c5949302f9", "Run cat missing.txt and tell me what happened."),
    (
        "multibyte",
        "01a22aaf-331c-73b3-987c-25057e160901",
        "Lies bitte unicode.txt — 読んでください 🍍, and tell me the sentinel (café with a combining acute: cafe\u{301}).",
    ),
    ("long-output", "01a22aaf-3dbd-7c51-95c2-e8f6f0d17e32", "Print long.txt with cat and tell me how it begins."),
];

fn home(scenario: &str) -> PathBuf {
    kit::fixtures("grok-build", "1.0.41").join(scenario)
}

fn session_dir(id: &str) -> String {
    format!("{CWD_DIR}/{id}")
}

fn locator(id: &str) -> String {
    format!("{CWD_DIR}/{id}/chat_history.jsonl")
}

fn scenario(name: &str) -> (&'static str, &'static str, &'static str) {
    *SCENARIOS.iter().find(|(s, _, _)| *s == name).unwrap()
}

fn read_with(home: &Path, locator: &str, options: ReadOptions) -> Read {
    kit::read_with::<GrokBuild>(home, locator, options)
}

fn read(home: &Path, locator: &str) -> Read {
    kit::read::<GrokBuild>(home, locator)
}

fn read_scenario(name: &str) -> Read {
    let (_, id, _) = scenario(name);
    read(&home(name), &locator(id))
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
    let info = GrokBuild::info();
    assert_eq!(info.harness, "grok-build");
    assert_eq!(info.codec_version, env!("CARGO_PKG_VERSION"));
    assert_eq!(info.native_versions, ">=0.0.0, <2.0.0");
    assert!(info.native_version_source.contains("chat_format_version"));
    assert!(info.writes.is_empty());
    assert_eq!(info.session_globs, vec![".grok/sessions/*/*/chat_history.jsonl".to_string()]);
    assert_eq!(info.canonical_schema, trajhost_codec_sdk::canonical::SCHEMA);
}

#[test]
fn discover_finds_each_fixture_session() {
    for (name, id, _) in SCENARIOS {
        let home = home(name);
        let found = GrokBuild::discover(&Dir::native(&home)).unwrap();
        assert!(found.diagnostics.is_empty(), "{name}: {:?}", found.diagnostics);
        assert_eq!(found.sessions.len(), 1, "{name}: prompt_history.jsonl and session_search.sqlite are not sessions");
        let s = &found.sessions[0];
        let dir = home.join(session_dir(id));
        let summary: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
        assert_eq!(s.native_id, id);
        assert_eq!(s.locator, locator(id));
        assert_eq!(s.cwd.as_deref(), Some("/home/user/project"));
        assert_eq!(s.native_version.as_deref(), Some("1"));
        assert_eq!(s.started_at.as_deref(), summary["created_at"].as_str());
        assert_eq!(s.updated_at.as_deref(), summary["last_active_at"].as_str());
        assert_eq!(s.title.as_deref(), summary["generated_title"].as_str());
        assert!(s.started_at.as_deref().unwrap().starts_with("2026-11-30T04:"));
        let size: u64 = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap())
            .filter(|m| m.is_file())
            .map(|m| m.len())
            .sum();
        assert_eq!(s.size, size);
        let one = GrokBuild::inspect(&Dir::native(&home), &s.locator).unwrap();
        assert_eq!(
            (one.native_id, one.started_at, one.updated_at, one.size),
            (s.native_id.clone(), s.started_at.clone(), s.updated_at.clone(), s.size)
        );
    }
}

#[test]
fn discover_names_what_is_no_session_and_identifies_renamed_folders_by_their_summary() {
    let dir = copy_of("simple");
    let (_, id, _) = scenario("simple");
    let cwd = dir.path().join(CWD_DIR);
    std::fs::rename(cwd.join(id), cwd.join("copy")).unwrap();
    std::fs::create_dir(cwd.join("empty-session")).unwrap();
    // A journal-only folder is another codec's layout: neither listed nor named.
    std::fs::create_dir(cwd.join("journal-only")).unwrap();
    std::fs::write(cwd.join("journal-only/updates.jsonl"), "{}\n").unwrap();
    std::fs::write(cwd.join("notes.txt"), "x").unwrap();
    std::fs::write(dir.path().join(".grok/sessions/stray.json"), "{}").unwrap();
    let found = kit::discover::<GrokBuild>(dir.path());
    assert_eq!(found.sessions.len(), 1, "{:?}", found.diagnostics);
    assert_eq!(found.sessions[0].native_id, id, "summary.json names a renamed folder's session");
    let named: BTreeSet<(&str, &str)> =
        found.diagnostics.iter().map(|d| (d.code.as_str(), d.file.as_deref().expect("names its file"))).collect();
    let expected = [
        ("no-chat-history", format!("{CWD_DIR}/empty-session")),
        ("unrecognized-file", format!("{CWD_DIR}/notes.txt")),
        ("unrecognized-file", ".grok/sessions/stray.json".to_string()),
    ];
    assert_eq!(named, expected.iter().map(|(c, f)| (*c, f.as_str())).collect());
    let read = kit::conformance::<GrokBuild>(dir.path(), &format!("{CWD_DIR}/copy/chat_history.jsonl"), Spans::Lines);
    assert_eq!(read.meta().native_id, id);
}

#[test]
fn every_fixture_session_passes_the_testkit_checks() {
    for (name, id, _) in SCENARIOS {
        kit::conformance::<GrokBuild>(&home(name), &locator(id), Spans::Lines);
    }
}

#[test]
fn discover_without_summary_decodes_the_cwd_folder() {
    let home = copy_of("simple");
    let (_, id, _) = scenario("simple");
    let dir = home.path().join(session_dir(id));
    std::fs::remove_file(dir.join("summary.json")).unwrap();
    let found = GrokBuild::discover(&Dir::native(home.path())).unwrap();
    let s = &found.sessions[0];
    assert_eq!(s.cwd.as_deref(), Some("/home/user/project"));
    assert_eq!((s.started_at.as_deref(), s.title.as_deref(), s.native_version.as_deref()), (None, None, None));
    let mtime = |f: &str| {
        std::fs::metadata(dir.join(f))
            .unwrap()
            .modified()
            .unwrap()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64
    };
    assert_eq!(
        s.updated_at.as_deref(),
        Some(rfc3339_ms(mtime("chat_history.jsonl").max(mtime("updates.jsonl"))).as_str())
    );
    // The session still reads, its start from the journal.
    let read = read(home.path(), &locator(id));
    let Body::Meta(meta) = &read.records[0].body else { panic!() };
    assert!(meta.started_at.as_deref().unwrap().starts_with("2026-11-30T04:18:16"));
}

#[test]
fn every_scenario_reads_prompt_tool_call_result_and_answer() {
    for (name, id, prompt) in SCENARIOS {
        let read = read_scenario(name);
        let records = &read.records;
        let Body::Meta(meta) = &records[0].body else { panic!("{name}: meta first") };
        assert_eq!((meta.native_id.as_str(), meta.harness.as_str()), (id, "grok-build"));
        assert_eq!(meta.native_version.as_deref(), Some("1"));
        assert_eq!(meta.cwd.as_deref(), Some("/home/user/project"));
        assert_eq!(users(records).first().copied(), Some(prompt), "{name}: <user_query> unwrapped");
        let calls = tool_calls(records);
        assert!(!calls.is_empty(), "{name}");
        for (call_id, tool, args) in &calls {
            assert!(call_id.starts_with("call_lab_"));
            assert!(["run_terminal_command", "read_file"].contains(tool), "{name}: {tool}");
            assert!(args.is_object());
        }
        let results = tool_results(records);
        assert_eq!(results.len(), calls.len());
        let ids: BTreeSet<&str> = calls.iter().map(|c| c.0).collect();
        assert!(results.iter().all(|r| ids.contains(r.0) && r.2.is_some()), "{name}: {results:?}");
        let answers = assistants(records);
        assert!(answers.iter().any(|a| a.text.starts_with("FINAL ANSWER: the tool returned:")), "{name}");
        assert!(answers.iter().all(|a| a.model.as_deref() == Some("fake-model")));
        for r in records {
            if matches!(
                r.body,
                Body::User { .. } | Body::Assistant(_) | Body::ToolCall { .. } | Body::ToolResult { .. }
            ) {
                assert!(r.ts.as_deref().is_some_and(|t| t.starts_with("2026-11-30T04:")), "{name}: {r:?}");
                assert_eq!(r.src.as_ref().unwrap().file, locator(id));
            }
        }
        // The injected context is not said by the person.
        assert_eq!(observations_of(records, "user-context").len(), 1, "{name}");
        assert!(observations_of(records, "user-context")[0].starts_with("<user_info>"));
        assert_eq!(observations_of(records, "synthetic/system_reminder").len(), 1, "{name}");
        assert!(matches!(records[1].body, Body::System { .. }));
        assert!(read.diagnostics.iter().all(|d| d.code != "unknown-record-type"), "{name}: {:?}", read.diagnostics);
    }
}

#[test]
fn simple_has_both_turns_and_turn_usage() {
    let records = read_scenario("simple").records;
    assert_eq!(
        users(&records),
        ["Read hello.txt and tell me the secret word.", "What was the secret word again? [notool]"]
    );
    let calls = tool_calls(&records);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].2, &json!({"command": "cat hello.txt", "description": "Run cat hello.txt"}));
    let results = tool_results(&records);
    assert_eq!(
        results,
        [(calls[0].0, "exit: 0\nHello from the lab workspace. The secret word is PAPAYA-42.\n", Some(true))]
    );
    let answers = assistants(&records);
    assert_eq!(answers.len(), 3);
    // Turn 1 made two model calls: its usage is a turn-usage observation;
    // turn 2 made one: its usage is the answer's.
    assert_eq!(answers[0].usage, None);
    assert_eq!(answers[1].usage, None);
    let usage = answers[2].usage.as_ref().unwrap();
    assert_eq!((usage.input, usage.output, usage.cache_read), (Some(100), Some(20), Some(0)));
    let turn = observations_of(&records, "turn-usage");
    assert_eq!(turn.len(), 1);
    let turn: Value = serde_json::from_str(turn[0]).unwrap();
    assert_eq!((turn["inputTokens"].as_u64(), turn["modelCalls"].as_u64()), (Some(200), Some(2)));
    let kinds: Vec<&str> = records.iter().map(|r| r.body.kind()).collect();
    assert_eq!(
        kinds,
        [
            "meta",
            "system",
            "observation",
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
    // Times from the journal: prompt, tool call, result, answer text.
    let ts: Vec<Option<&str>> = records[4..9].iter().map(|r| r.ts.as_deref()).collect();
    assert_eq!(
        ts,
        [
            Some("2026-11-30T04:18:16.745Z"),
            Some("2026-11-30T04:18:16.812Z"),
            Some("2026-11-30T04:18:16.812Z"),
            Some("2026-11-30T04:18:16.853Z"),
            Some("2026-11-30T04:18:16.861Z")
        ]
    );
}

#[test]
fn parallel_results_link_to_their_calls() {
    let records = read_scenario("parallel").records;
    let calls = tool_calls(&records);
    assert_eq!(calls.iter().map(|c| c.1).collect::<Vec<_>>(), ["run_terminal_command", "read_file"]);
    assert_eq!(calls[1].2, &json!({"target_file": "/home/user/project/second.txt"}));
    let results = tool_results(&records);
    // Stored in completion order: the read finished first.
    assert_eq!(results[0].0, calls[1].0);
    assert!(results[0].1.contains("KIWI-58"));
    assert_eq!(results[1].0, calls[0].0);
    assert!(results[1].1.contains("PAPAYA-42"));
}

#[test]
fn failing_tool_is_not_ok() {
    let records = read_scenario("failing-tool").records;
    let results = tool_results(&records);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].2, Some(false), "status completed, rawOutput.exit_code 3");
    assert!(results[0].1.starts_with("exit: 3\n"));
}

#[test]
fn multibyte_and_long_output_are_intact() {
    let records = read_scenario("multibyte").records;
    let (_, _, prompt) = scenario("multibyte");
    assert_eq!(users(&records), [prompt]);
    let result = tool_results(&records)[0].1;
    assert!(result.contains("日本語のテキスト：秘密の言葉は「桃」。"));
    assert!(result.contains("Emoji: 🍍🥭🎉 👩\u{200d}💻 🏳\u{fe0f}\u{200d}🌈"));
    assert!(result.contains("Combining marks: e\u{301} a\u{308} n\u{303} o\u{302}\u{323}\n"));
    assert!(result.contains("Sentinel: CHERRY-本-91 ✓"));
    let records = read_scenario("long-output").records;
    let result = tool_results(&records)[0].1;
    assert!(result.contains("LONG-OUTPUT-BEGIN LEMON-512"));
    assert!(assistants(&records).iter().any(|a| a.text.contains("LEMON-512")));
}

#[test]
fn ids_are_unique_and_stable_across_reads_and_batch_sizes() {
    for (name, id, _) in SCENARIOS {
        let a = read_scenario(name);
        let b = read_with(&home(name), &locator(id), ReadOptions { max_batch_records: 1, max_batch_bytes: 1 });
        assert_eq!(a.records, b.records, "{name}");
        let ids: BTreeSet<&str> = a.records.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids.len(), a.records.len(), "{name}");
        assert_eq!(a.records[0].id, id);
    }
}

#[test]
fn fixtures_hold_only_known_record_types() {
    let items: BTreeSet<&str> = KNOWN_ITEM_TYPES.iter().map(|(t, _)| *t).collect();
    let updates: BTreeSet<&str> = KNOWN_UPDATE_TYPES.iter().map(|(t, _)| *t).collect();
    for (name, id, _) in SCENARIOS {
        let dir = home(name).join(session_dir(id));
        for line in raw_lines(&dir.join("chat_history.jsonl")) {
            let kind = line["type"].as_str().unwrap();
            assert!(items.contains(kind), "{name}: chat_history type {kind} is new to the codec");
        }
        for line in raw_lines(&dir.join("updates.jsonl")) {
            let kind = line["params"]["update"]["sessionUpdate"].as_str().unwrap();
            assert!(updates.contains(kind), "{name}: sessionUpdate {kind} is new to the codec");
        }
    }
}

#[test]
fn unknown_types_are_diagnosed_by_name() {
    let home = copy_of("simple");
    let (_, id, _) = scenario("simple");
    let dir = home.path().join(session_dir(id));
    append(&dir.join("chat_history.jsonl"), &[json!({"type": "hologram", "content": "x"})]);
    append(
        &dir.join("updates.jsonl"),
        &[
            json!({"timestamp": 1796012300, "method": "_x.ai/session/update", "params": {"sessionId": id, "update": {"sessionUpdate": "warp_drive"}}}),
        ],
    );
    let read = read(home.path(), &locator(id));
    let unknown: Vec<&str> =
        read.diagnostics.iter().filter(|d| d.code == "unknown-record-type").map(|d| d.detail.as_str()).collect();
    assert_eq!(unknown, ["chat_history:hologram", "updates:warp_drive"]);
    assert_eq!(
        read.diagnostics.iter().find(|d| d.detail == "updates:background_tasks").unwrap().code,
        "unmapped-record-type"
    );
}

#[test]
fn reasoning_backend_calls_compaction_and_synthetic_items() {
    let home = copy_of("simple");
    let (_, id, _) = scenario("simple");
    let dir = home.path().join(session_dir(id));
    append(
        &dir.join("chat_history.jsonl"),
        &[
            json!({"type": "user", "content": [{"type": "text", "text": "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nThe word was PAPAYA-42."}], "synthetic_reason": "compaction_meta"}),
            json!({"type": "user", "content": [{"type": "text", "text": "<user_query>\nAnd then? 🍍\n</user_query>"}, {"type": "image", "url": "data:image/jpeg;base64,AA"}], "prompt_index": 2}),
            json!({"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Think first."}], "encrypted_content": "gAAA"}),
            json!({"type": "backend_tool_call", "kind": {"tool_type": "web_search", "id": "ws_1", "action": {"type": "search", "query": "papaya"}, "status": "completed"}}),
            json!({"type": "assistant", "content": "Done.", "model_id": "grok-x"}),
        ],
    );
    let records = read(home.path(), &locator(id)).records;
    let n = records.len();
    let kinds: Vec<&str> = records[n - 5..].iter().map(|r| r.body.kind()).collect();
    assert_eq!(kinds, ["compaction", "user", "reasoning", "observation", "assistant"]);
    let Body::Compaction { summary, .. } = &records[n - 5].body else { panic!() };
    assert!(summary.ends_with("The word was PAPAYA-42."));
    let Body::User { text, attachments } = &records[n - 4].body else { panic!() };
    assert_eq!(text, "And then? 🍍");
    assert_eq!(attachments[0].media_type.as_deref(), Some("image/jpeg"));
    let Body::Reasoning(r) = &records[n - 3].body else { panic!() };
    assert_eq!((r.text.as_deref(), r.opaque.as_deref(), r.encrypted), (Some("Think first."), Some("gAAA"), true));
    // A server-side web search is what the provider did, not a client call.
    let Body::Observation { subtype, text } = &records[n - 2].body else { panic!() };
    assert_eq!(subtype, "backend-tool/web_search");
    let kind: Value = serde_json::from_str(text.as_deref().unwrap()).unwrap();
    assert_eq!((kind["id"].as_str(), kind["action"]["query"].as_str()), (Some("ws_1"), Some("papaya")));
    assert!(tool_calls(&records).iter().all(|c| c.0 != "ws_1"));
    let Body::Assistant(a) = &records[n - 1].body else { panic!() };
    assert_eq!((a.text.as_str(), a.model.as_deref(), a.usage.as_ref()), ("Done.", Some("grok-x"), None));
}

#[test]
fn a_missing_journal_leaves_times_and_ok_unset() {
    let home = copy_of("failing-tool");
    let (_, id, _) = scenario("failing-tool");
    std::fs::remove_file(home.path().join(session_dir(id)).join("updates.jsonl")).unwrap();
    let read = read(home.path(), &locator(id));
    assert_eq!(tool_results(&read.records)[0].2, None);
    assert!(read.records[1..].iter().all(|r| r.ts.is_none()));
    assert!(assistants(&read.records).iter().all(|a| a.usage.is_none()));
    assert!(observations_of(&read.records, "turn-usage").is_empty());
}

#[test]
fn a_torn_last_line_is_a_torn_tail() {
    let home = copy_of("simple");
    let (_, id, _) = scenario("simple");
    let path = home.path().join(session_dir(id)).join("chat_history.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"type\":\"assistant\",\"content\":\"hal");
    std::fs::write(&path, text).unwrap();
    let read = read(home.path(), &locator(id));
    assert_eq!(read.diagnostics.iter().find(|d| d.code == "torn-tail").unwrap().count, 1);
    assert_eq!(users(&read.records).len(), 2);
}

#[test]
fn a_locator_outside_the_layout_is_refused() {
    let home = home("simple");
    for bad in [
        "../x/chat_history.jsonl",
        ".grok/sessions/x/updates.jsonl",
        "/abs/chat_history.jsonl",
        ".grok/sessions/a/b/chat_history.jsonl",
    ] {
        assert!(
            GrokBuild::read(Dir::native(&home), bad, ReadOptions { max_batch_records: 10, max_batch_bytes: 1000 })
                .is_err(),
            "{bad}"
        );
    }
}

#[test]
fn format_0_role_tagged_messages() {
    let home = kit::fixtures("grok-build", "format-0").join("home");
    let id = "019f6000-0000-7000-8000-0000000000a0";
    let locator = format!(".grok/sessions/%2Fhome%2Fuser%2Flegacy/{id}/chat_history.jsonl");
    let discovery = GrokBuild::discover(&Dir::native(&home)).unwrap();
    assert_eq!(discovery.sessions.len(), 1);
    assert_eq!(discovery.sessions[0].native_version.as_deref(), Some("0"));
    let read = read(&home, &locator);
    let kinds: Vec<&str> = read.records.iter().map(|r| r.body.kind()).collect();
    assert_eq!(
        kinds,
        ["meta", "system", "observation", "user", "reasoning", "assistant", "tool_call", "tool_result", "assistant"]
    );
    let Body::User { text, attachments } = &read.records[3].body else { panic!() };
    assert_eq!(text, "How many lines does notes.txt have?");
    assert_eq!(attachments[0].media_type.as_deref(), Some("image/png"));
    assert_eq!(tool_calls(&read.records), [("call_a1", "run_terminal_cmd", &json!({"command": "wc -l notes.txt"}))]);
    assert_eq!(tool_results(&read.records)[0].1, "7 notes.txt\n");
    assert_eq!(assistants(&read.records)[1].text, "notes.txt has 7 lines (KIWI-7).");
    let unknown: Vec<&str> =
        read.diagnostics.iter().filter(|d| d.code == "unknown-record-type").map(|d| d.detail.as_str()).collect();
    assert_eq!(unknown, ["chat_history:role/critic"]);
}
