//! The Factory Droid codec against sessions written by the real Droid CLI
//! (fixtures/factory-droid/0.225.1), run natively through `Dir::native`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_factory_droid::{FactoryDroid, KNOWN_RECORD_TYPES, rfc3339_utc};
use trajhost_codec_sdk::Codec;
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_testkit::{
    self as kit, Read, Spans, assistants, glob_matches, observations, raw_lines, tool_calls, tool_results, users,
};

const PROJECT: &str = ".factory/sessions/-home-user-project";
const CWD: &str = "/home/user/project";

fn fixtures() -> PathBuf {
    kit::fixtures("factory-droid", "0.225.1")
}

/// (scenario, session id)
const SCENARIOS: [(&str, &str); 5] = [
    ("simple", "0a734e8d-dba5-4efd-8e2f-0375c7a0848e"),
    ("parallel", "ac9df1b9-45eb-4194-a260-27bd01dcd378"),
    ("failing-tool", "033b71a8-e6d0-4c41-8d7c-ab5429954932"),
    ("multibyte", "81431c73-9f6e-417e-97d2-f0445cddc1fc"),
    ("long-output", "a81f4717-9da8-4e74-832c-02c10f33e707"),
];

fn home(scenario: &str) -> PathBuf {
    fixtures().join(scenario)
}

fn scenario(name: &str) -> (&'static str, &'static str) {
    *SCENARIOS.iter().find(|(s, _)| *s == name).unwrap()
}

fn locator(id: &str) -> String {
    format!("{PROJECT}/{id}.jsonl")
}

fn read(home: &Path, locator: &str) -> Read {
    kit::read::<FactoryDroid>(home, locator)
}

fn read_scenario(name: &str) -> Read {
    let (s, id) = scenario(name);
    read(&home(s), &locator(id))
}

fn copy_of(scenario: &str) -> tempfile::TempDir {
    kit::copy_of(&home(scenario))
}

// ---------------------------------------------------------------- info

#[test]
fn info_describes_the_codec() {
    let info = FactoryDroid::info();
    assert_eq!(info.harness, "factory-droid");
    assert_eq!(info.codec_version, env!("CARGO_PKG_VERSION"));
    assert_eq!(info.native_versions, ">=0.0.0, <3.0.0");
    assert!(info.native_version_source.contains("session_start"));
    assert_eq!(info.reads, vec!["factory-droid-jsonl".to_string()]);
    assert!(info.writes.is_empty());
    assert_eq!(info.canonical_schema, trajhost_codec_sdk::canonical::SCHEMA);
    for (_, id) in SCENARIOS {
        assert!(info.session_globs.iter().any(|g| glob_matches(g, &locator(id))), "{:?}", info.session_globs);
        let settings = format!("{PROJECT}/{id}.settings.json");
        assert!(!info.session_globs.iter().any(|g| glob_matches(g, &settings)), "the settings file is no session");
    }
}

// ---------------------------------------------------------------- discover

#[test]
fn discover_finds_each_fixture_session_and_skips_settings_files() {
    for (scenario, id) in SCENARIOS {
        let home = home(scenario);
        let found = FactoryDroid::discover(&Dir::native(&home)).unwrap();
        assert!(found.diagnostics.is_empty(), "{scenario}: {:?}", found.diagnostics);
        assert_eq!(found.sessions.len(), 1, "{scenario}: the settings files are no sessions");
        let session = &found.sessions[0];
        assert_eq!(session.native_id, id, "{scenario}");
        assert_eq!(session.locator, locator(id));
        assert_eq!(session.cwd.as_deref(), Some(CWD));
        assert_eq!(session.native_version.as_deref(), Some("2"), "the session format version");

        let path = home.join(&session.locator);
        let raw = raw_lines(&path);
        assert_eq!(raw[0]["type"], "session_start");
        assert_eq!(session.title.as_deref(), raw[0]["title"].as_str());
        assert_eq!(session.started_at.as_deref(), raw[1]["timestamp"].as_str(), "session_start has no timestamp");
        let meta = std::fs::metadata(&path).unwrap();
        let settings = std::fs::metadata(home.join(PROJECT).join(format!("{id}.settings.json"))).unwrap();
        let mtime = meta.modified().unwrap().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
        assert_eq!(session.updated_at.as_deref(), Some(rfc3339_utc(mtime).as_str()), "{scenario}");
        assert_eq!(session.size, meta.len() + settings.len(), "{scenario}");

        let one = FactoryDroid::inspect(&Dir::native(&home), &session.locator).unwrap();
        assert_eq!(one.native_id, session.native_id);
        assert_eq!(one.cwd, session.cwd);
        assert_eq!(one.started_at, session.started_at);
        assert_eq!(one.updated_at, session.updated_at);
        assert_eq!(one.size, session.size);
        assert_eq!(one.title, session.title);
        assert_eq!(one.native_version, session.native_version);
    }
}

#[test]
fn discover_of_a_home_without_droid_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let found = FactoryDroid::discover(&Dir::native(dir.path())).unwrap();
    assert!(found.sessions.is_empty());
    assert!(found.diagnostics.is_empty());
}

#[test]
fn discover_reports_oddities() {
    let dir = copy_of("simple");
    let project = dir.path().join(PROJECT);
    std::fs::write(project.join("00000000-0000-0000-0000-000000000000.jsonl"), "").unwrap();
    std::fs::write(project.join("11111111-0000-0000-0000-000000000000.jsonl"), "{\"type\":\"todo_state\"}\n").unwrap();
    std::fs::write(project.join("notes.txt"), "x").unwrap();
    std::fs::create_dir(project.join("stray")).unwrap();
    std::fs::write(dir.path().join(".factory/sessions/loose.jsonl"), "{}").unwrap();
    let found = FactoryDroid::discover(&Dir::native(dir.path())).unwrap();
    assert_eq!(found.sessions.len(), 1, "{:?}", found.sessions);
    let named: BTreeSet<(&str, &str)> =
        found.diagnostics.iter().map(|d| (d.code.as_str(), d.file.as_deref().expect("names its file"))).collect();
    let at = |name: &str| format!("{PROJECT}/{name}");
    let expected = [
        ("empty-session-file", at("00000000-0000-0000-0000-000000000000.jsonl")),
        ("malformed-head", at("11111111-0000-0000-0000-000000000000.jsonl")),
        ("unrecognized-file", at("notes.txt")),
        ("unrecognized-file", at("stray")),
        ("unrecognized-file", ".factory/sessions/loose.jsonl".to_string()),
    ];
    assert_eq!(named, expected.iter().map(|(c, f)| (*c, f.as_str())).collect());
}

#[test]
fn a_renamed_transcript_is_identified_by_its_session_start() {
    let dir = copy_of("simple");
    let (_, id) = SCENARIOS[0];
    let project = dir.path().join(PROJECT);
    std::fs::rename(project.join(format!("{id}.jsonl")), project.join("copy.jsonl")).unwrap();
    let found = kit::discover::<FactoryDroid>(dir.path());
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].native_id, id);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    let read = kit::conformance::<FactoryDroid>(dir.path(), &format!("{PROJECT}/copy.jsonl"), Spans::Lines);
    assert_eq!(read.meta().native_id, id);
    assert_eq!(read.records[0].id, id);
}

#[test]
fn every_fixture_session_passes_the_testkit_checks() {
    for (scenario, id) in SCENARIOS {
        kit::conformance::<FactoryDroid>(&home(scenario), &locator(id), Spans::Lines);
    }
}

// ---------------------------------------------------------------- read

#[test]
fn read_starts_with_meta() {
    for (scenario, id) in SCENARIOS {
        let read = read_scenario(scenario);
        let first = &read.records[0];
        let Body::Meta(meta) = &first.body else { panic!("{scenario}: first record is {:?}", first.body) };
        assert_eq!(first.id, id);
        assert_eq!(meta.harness, "factory-droid");
        assert_eq!(meta.schema, trajhost_codec_sdk::canonical::SCHEMA);
        assert_eq!(meta.native_id, id);
        assert_eq!(meta.native_version.as_deref(), Some("2"));
        assert_eq!(meta.cwd.as_deref(), Some(CWD));
        assert_eq!(meta.codec.as_deref(), Some(concat!("factory-droid@", env!("CARGO_PKG_VERSION"))));
        assert!(meta.title.is_some());
        assert_eq!(first.ts, meta.started_at);
        assert_eq!(read.records.iter().filter(|r| matches!(r.body, Body::Meta(_))).count(), 1);
    }
}

#[test]
fn simple_session_has_prompt_call_result_and_answer() {
    let read = read_scenario("simple");
    let records = &read.records;
    assert_eq!(
        users(records),
        vec!["Read hello.txt and tell me the secret word.", "What was the secret word again? [notool]"]
    );
    // The injected system reminders are context, not the person.
    let obs = observations(records);
    assert_eq!(obs.len(), 1);
    assert_eq!(obs[0].0, "context");
    assert!(obs[0].1.unwrap().starts_with("<system-reminder>"));

    let calls = tool_calls(records);
    assert_eq!(calls.len(), 1);
    let (call_id, name, arguments) = calls[0];
    assert_eq!((call_id, name), ("call_lab_b7375a0e8cbd4689", "Execute"));
    assert_eq!(
        arguments,
        &json!({"command": "cat hello.txt", "summary": "", "riskLevelReason": "", "riskLevel": "low"})
    );
    let results = tool_results(records);
    assert_eq!(
        results,
        vec![(
            call_id,
            "Hello from the lab workspace. The secret word is PAPAYA-42.\n\n\n[Process exited with code 0]",
            Some(true)
        )]
    );

    let answers = assistants(records);
    assert_eq!(answers.len(), 3);
    assert_eq!(answers[0].text, "");
    assert!(answers[1].text.starts_with("FINAL ANSWER") && answers[1].text.contains("PAPAYA-42"));
    assert!(answers[2].text.starts_with("NOTOOL ANSWER") && answers[2].text.contains("PAPAYA-42"));

    let kinds: Vec<&str> = records.iter().skip(1).map(|r| r.body.kind()).collect();
    assert_eq!(
        kinds,
        ["observation", "user", "assistant", "tool_call", "tool_result", "assistant", "user", "assistant"]
    );

    let by_id = |id: &str| records.iter().find(|r| r.id == id).unwrap();
    assert_eq!(
        by_id("318a0a50-cd24-4dd2-8a37-dab3f42bc266").parent.as_deref(),
        Some("context-318a0a50-cd24-4dd2-8a37-dab3f42bc266")
    );
    assert_eq!(
        by_id("20531f75-134b-4e14-bb06-4e20f7cadf5e").parent.as_deref(),
        Some("318a0a50-cd24-4dd2-8a37-dab3f42bc266")
    );
    assert_eq!(by_id(call_id).parent.as_deref(), Some("20531f75-134b-4e14-bb06-4e20f7cadf5e"));
    assert_eq!(by_id("75fd59a3-6b1d-4197-b574-a10c2c04631b").parent.as_deref(), Some(call_id));
    assert_eq!(
        by_id("73f79c46-3af3-45af-8efc-ddfa3f023fbf").parent.as_deref(),
        Some("75fd59a3-6b1d-4197-b574-a10c2c04631b")
    );
}

#[test]
fn assistant_records_carry_the_model_and_no_usage() {
    for (scenario, id) in SCENARIOS {
        let read = read_scenario(scenario);
        for a in assistants(&read.records) {
            assert_eq!(a.model.as_deref(), Some("custom:Fake-0"), "{scenario}: the model id Droid recorded");
            assert!(a.message_id.as_deref().unwrap().starts_with("chatcmpl-lab"), "the provider's response id");
            assert_eq!(a.usage, None, "Droid records token counts per session only");
        }
        let raw = raw_lines(&home(scenario).join(locator(id)));
        for record in &read.records {
            let ts = record.ts.as_deref().unwrap_or_else(|| panic!("{scenario}: {} has no ts", record.id));
            assert!(ts.starts_with("2026-11-30T04:") && ts.ends_with('Z'), "{ts}");
            assert_eq!(record.agent, None);
            let native = record.id.split('#').next().unwrap();
            if let Some(line) = raw.iter().find(|l| l["id"] == native && l["timestamp"].is_string()) {
                assert_eq!(record.ts.as_deref(), line["timestamp"].as_str());
            }
        }
    }
}

#[test]
fn parallel_calls_have_their_results() {
    let read = read_scenario("parallel");
    let calls = tool_calls(&read.records);
    let names: Vec<&str> = calls.iter().map(|c| c.1).collect();
    assert_eq!(names, ["Execute", "Read"]);
    assert_eq!(calls[0].2["command"], "cat hello.txt");
    assert_eq!(calls[1].2, &json!({"file_path": "/home/user/project/second.txt"}));
    let results = tool_results(&read.records);
    assert_eq!(results.len(), 2);
    let by_call = |id: &str| results.iter().find(|r| r.0 == id).unwrap();
    assert!(by_call(calls[0].0).1.contains("PAPAYA-42"));
    assert_eq!(by_call(calls[1].0).1, "The second word is KIWI-58.\n");
    assert!(results.iter().all(|r| r.2 == Some(true)));
    // Two results in one message: two records with their own ids.
    let ids: Vec<&str> =
        read.records.iter().filter(|r| matches!(r.body, Body::ToolResult { .. })).map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["00a7feea-0829-4698-8ca4-a361db5c1cee", "00a7feea-0829-4698-8ca4-a361db5c1cee#1"]);
    let answer = &assistants(&read.records).last().unwrap().text;
    assert!(answer.contains("KIWI-58") && answer.contains("PAPAYA-42"));
}

#[test]
fn failing_tool_result_is_not_ok() {
    let read = read_scenario("failing-tool");
    let calls = tool_calls(&read.records);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].2["command"], "cat missing.txt; exit 3");
    let results = tool_results(&read.records);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].0, calls[0].0);
    assert_eq!(
        results[0].1,
        "Error: Command failed (exit code: 3)\ncat: missing.txt: No such file or directory\n\n\n[Process exited with code 3]"
    );
    assert_eq!(results[0].2, Some(false), "is_error: true");
    assert!(assistants(&read.records).last().unwrap().text.contains("No such file or directory"));
}

#[test]
fn multibyte_text_is_intact() {
    let read = read_scenario("multibyte");
    let prompt = "Lies bitte unicode.txt — 読んでください 🍍, and tell me the sentinel (café with a combining acute: cafe\u{301}).";
    assert_eq!(users(&read.records), vec![prompt]);
    let Body::Meta(meta) = &read.records[0].body else { panic!() };
    assert_eq!(meta.title.as_deref(), Some(prompt));
    let results = tool_results(&read.records);
    assert_eq!(results.len(), 1);
    for needle in [
        "秘密の言葉は「桃」",
        "안녕하세요",
        "👩\u{200d}💻",
        "🏳\u{fe0f}\u{200d}🌈",
        "o\u{302}\u{323}",
        "Sentinel: CHERRY-本-91 ✓",
    ] {
        assert!(results[0].1.contains(needle), "{needle} missing from {:?}", results[0].1);
    }
    let (s, id) = scenario("multibyte");
    let raw = raw_lines(&home(s).join(locator(id)));
    let recorded = raw.iter().find_map(|l| l["message"]["content"][0]["content"].as_str()).unwrap();
    assert_eq!(results[0].1, recorded);
    assert!(assistants(&read.records).last().unwrap().text.contains("CHERRY-本-91 ✓"));
}

#[test]
fn long_output_result_is_what_the_store_kept() {
    // Droid keeps head and tail in the session and the full log under /tmp,
    // outside the home.
    let read = read_scenario("long-output");
    let results = tool_results(&read.records);
    assert_eq!(results.len(), 1);
    assert!(results[0].1.starts_with("LONG-OUTPUT-BEGIN LEMON-512\nline 0001:"));
    assert!(results[0].1.contains("LONG-OUTPUT-END LIME-1024"));
    assert!(results[0].1.contains("Full command output saved to: /tmp/"));
    assert_eq!(results[0].2, Some(true));
    assert!(assistants(&read.records).last().unwrap().text.contains("LONG-OUTPUT-BEGIN LEMON-512"));
}

#[test]
fn ids_are_stable_and_unique() {
    for (scenario, _) in SCENARIOS {
        // Stable across reads: kit::check_stable_ids, in conformance.
        let a = read_scenario(scenario);
        kit::check_unique_ids(&a);
        for r in &a.records {
            if let Body::ToolCall { call_id, .. } = &r.body {
                assert_eq!(&r.id, call_id);
            }
        }
    }
}

#[test]
fn src_spans_slice_back_to_the_raw_lines() {
    for (scenario, _) in SCENARIOS {
        let home = home(scenario);
        let read = read_scenario(scenario);
        for record in &read.records {
            // On line boundaries (kit::check_spans, in conformance): one JSON line each.
            let src = record.src.as_ref().unwrap_or_else(|| panic!("{scenario}: {} has no src", record.id));
            let line = kit::span_json(&home, src);
            match &record.body {
                Body::Meta(m) => {
                    assert_eq!(line["type"], "session_start");
                    assert_eq!(line["id"].as_str(), Some(m.native_id.as_str()));
                }
                Body::ToolCall { call_id, .. } => {
                    assert_eq!(line["message"]["role"], "assistant");
                    assert!(line["message"]["content"].as_array().unwrap().iter().any(|b| b["id"] == call_id.as_str()));
                }
                Body::ToolResult { call_id, .. } => {
                    assert!(
                        line["message"]["content"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .any(|b| b["tool_use_id"] == call_id.as_str())
                    );
                }
                _ => assert_eq!(line["id"].as_str(), Some(record.id.as_str())),
            }
        }
    }
}

#[test]
fn fixture_record_types_are_all_known() {
    let known: BTreeSet<&str> = KNOWN_RECORD_TYPES.iter().map(|(k, _)| *k).collect();
    let mut seen = BTreeSet::new();
    let mut blocks = BTreeSet::new();
    for (scenario, id) in SCENARIOS {
        for line in raw_lines(&home(scenario).join(locator(id))) {
            let kind = line["type"].as_str().unwrap().to_string();
            assert!(known.contains(kind.as_str()), "{scenario}: record type {kind:?} is not in KNOWN_RECORD_TYPES");
            seen.insert(kind);
            for block in line["message"]["content"].as_array().into_iter().flatten() {
                blocks.insert(format!(
                    "{}/{}",
                    line["message"]["role"].as_str().unwrap(),
                    block["type"].as_str().unwrap()
                ));
            }
        }
    }
    assert_eq!(seen, BTreeSet::from(["session_start", "message", "agent_turn_outcome"].map(String::from)));
    assert_eq!(
        blocks,
        BTreeSet::from(["user/text", "user/tool_result", "assistant/text", "assistant/tool_use"].map(String::from))
    );
}

#[test]
fn every_record_type_is_mapped_or_reported() {
    for (scenario, id) in SCENARIOS {
        let raw = raw_lines(&home(scenario).join(locator(id)));
        let read = read_scenario(scenario);
        assert!(read.diag("unknown-content-block").is_none(), "{scenario}");
        kit::check_handling(&read, KNOWN_RECORD_TYPES, |kind| raw.iter().filter(|l| l["type"] == kind).count() as u32);
    }
}

// ---------------------------------------------------------------- damage

#[test]
fn torn_tail_is_a_warning_and_the_rest_is_read() {
    let dir = copy_of("simple");
    let (_, id) = scenario("simple");
    let line_start = kit::tear_at(&dir.path().join(locator(id)), "NOTOOL ANSWER");
    let read = read(dir.path(), &locator(id));
    kit::check_torn_tail(&read, line_start, "NOTOOL");
    assert_eq!(users(&read.records).len(), 2);
    let answers = assistants(&read.records);
    assert_eq!(answers.len(), 2);
    assert!(answers[1].text.contains("FINAL ANSWER"));
}

#[test]
fn corrupt_middle_line_is_an_error_and_the_rest_is_read() {
    let dir = copy_of("failing-tool");
    let (_, id) = scenario("failing-tool");
    let path = dir.path().join(locator(id));
    let offset = kit::corrupt_line(&path, 1, 40);
    let read = read(dir.path(), &locator(id));
    kit::check_corrupt_line(&read, offset);
    assert_eq!(tool_results(&read.records).len(), 1);
    assert!(assistants(&read.records).last().unwrap().text.contains("FINAL ANSWER"));
}

// ---------------------------------------------------------------- synthetic shapes

const SID: &str = "s1";

fn synthetic(lines: &[Value]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join(PROJECT);
    std::fs::create_dir_all(&project).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(project.join(format!("{SID}.jsonl")), text).unwrap();
    dir
}

fn message(id: &str, parent: Option<&str>, role: &str, content: Value) -> Value {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z", "message": {"role": role, "content": content}})
}

#[test]
fn reasoning_attachments_compaction_and_unknown_shapes() {
    let mut answer = message(
        "a1",
        Some("u1"),
        "assistant",
        json!([
            {"type": "thinking", "thinking": "hmm", "signature": "SIG", "signatureProvider": "anthropic"},
            {"type": "redacted_thinking", "data": "ENC"},
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "c1", "name": "Read", "input": {"file_path": "/w/x"}},
            {"type": "brand_new_block"},
        ]),
    );
    answer["message"]["modelId"] = json!("claude-opus-4-1");
    let dir = synthetic(&[
        json!({"type": "session_start", "id": SID, "title": "T", "sessionTitle": "Renamed", "owner": "u", "version": 2, "cwd": "/w"}),
        message(
            "u1",
            None,
            "user",
            json!([{"type": "text", "text": "look"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}}]),
        ),
        answer,
        message(
            "r1",
            Some("a1"),
            "user",
            json!([{"type": "tool_result", "tool_use_id": "c1", "content": [{"type": "text", "text": "X"}, {"type": "image", "source": {"media_type": "image/jpeg"}}]}]),
        ),
        json!({"type": "todo_state", "todos": []}),
        json!({"type": "compaction_state", "timestamp": "2026-01-01T00:00:05.000Z", "summaryText": "Summary so far"}),
        json!({"type": "session_settings", "settings": {}}),
        json!({"type": "brand_new_line"}),
        message("m1", Some("r1"), "system", json!("?")),
        message("u2", Some("m1"), "user", json!("plain string prompt")),
    ]);
    let read = read(dir.path(), &format!("{PROJECT}/{SID}.jsonl"));
    let kinds: Vec<(&str, &str)> = read.records.iter().map(|r| (r.body.kind(), r.id.as_str())).collect();
    assert_eq!(
        kinds,
        [
            ("meta", SID),
            ("user", "u1"),
            ("reasoning", "a1#1"),
            ("reasoning", "a1#2"),
            ("assistant", "a1"),
            ("tool_call", "c1"),
            ("tool_result", "r1"),
            ("compaction", kinds[7].1),
            ("user", "u2"),
        ]
    );
    let Body::Meta(meta) = &read.records[0].body else { panic!() };
    assert_eq!(meta.title.as_deref(), Some("Renamed"));
    let by_id = |id: &str| read.records.iter().find(|r| r.id == id).unwrap();
    let Body::User { text, attachments } = &by_id("u1").body else { panic!() };
    assert_eq!(
        (text.as_str(), attachments[0].kind.as_str(), attachments[0].media_type.as_deref()),
        ("look", "image", Some("image/png"))
    );
    let Body::Reasoning(r) = &by_id("a1#1").body else { panic!() };
    assert_eq!((r.text.as_deref(), r.opaque.as_deref(), r.encrypted), (Some("hmm"), Some("SIG"), false));
    let Body::Reasoning(r) = &by_id("a1#2").body else { panic!() };
    assert_eq!((r.text.as_deref(), r.opaque.as_deref(), r.encrypted), (None, Some("ENC"), true));
    let a = assistants(&read.records)[0];
    assert_eq!(
        (a.text.as_str(), a.model.as_deref(), a.message_id.as_deref()),
        ("Let me look.", Some("claude-opus-4-1"), Some("a1"))
    );
    assert_eq!(tool_results(&read.records), [("c1", "X\n[image: image/jpeg]", None)]);
    let Body::Compaction { summary, .. } = &read.records[7].body else { panic!() };
    assert_eq!(summary, "Summary so far");
    // The unknown-role message resolves to its parent.
    assert_eq!(by_id("u2").parent.as_deref(), Some("r1"));

    let details = |code: &str| -> Vec<(String, u32)> {
        read.diagnostics.iter().filter(|d| d.code == code).map(|d| (d.detail.clone(), d.count)).collect()
    };
    assert_eq!(details("unknown-record-type"), [("brand_new_line".to_string(), 1), ("message/system".to_string(), 1)]);
    assert_eq!(details("unknown-content-block"), [("assistant/brand_new_block".to_string(), 1)]);
    assert_eq!(details("unmapped-record-type"), [("session_settings".to_string(), 1), ("todo_state".to_string(), 1)]);
}

// ---------------------------------------------------------------- older builds

/// Older builds wrote the CLI version into `session_start.version`
/// (fixtures/factory-droid/0.81.0, hand-written).
fn older_home() -> PathBuf {
    // This crate's own checkout (the testkit's `fixtures()` is resolved
    // where the testkit was compiled).
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/factory-droid/0.81.0/home")
}

const OLDER: &str = ".factory/sessions/-srv-demo/demo_run.jsonl";

#[test]
fn the_range_covers_format_versions_and_older_cli_versions() {
    let range = FactoryDroid::info().native_versions;
    // A plain `>=a, <b` pair, checked by hand (the host checks it with semver).
    let version = |v: &str| -> Vec<u64> { v.split('.').map(|p| p.parse().unwrap()).collect() };
    let (low, high) = range.split_once(", ").unwrap();
    let (low, high) = (version(low.strip_prefix(">=").unwrap()), version(high.strip_prefix('<').unwrap()));
    for seen in ["2.0.0", "0.81.0", "0.225.1"] {
        let v = version(seen);
        assert!(v >= low && v < high, "{seen} in {range}");
    }
    assert!(version("3.0.0") >= high, "a format 3 is not claimed");
}

#[test]
fn an_older_session_with_a_cli_version_string_reads_like_a_current_one() {
    let home = older_home();
    let found = kit::discover::<FactoryDroid>(&home);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    assert_eq!(found.sessions.len(), 1);
    let session = &found.sessions[0];
    assert_eq!(session.native_id, "demo_run", "the session_start id");
    assert_eq!(session.native_version.as_deref(), Some("0.81.0"));
    assert_eq!(session.cwd.as_deref(), Some("/srv/demo"));
    assert_eq!(session.title.as_deref(), Some("Count the logs"));

    let read = kit::conformance::<FactoryDroid>(&home, OLDER, Spans::Lines);
    assert!(read.diagnostics.is_empty(), "{:?}", read.diagnostics);
    assert_eq!(read.meta().native_version.as_deref(), Some("0.81.0"));
    let records = &read.records;
    assert_eq!(users(records), ["How many log files are there?", "Thanks"]);
    assert_eq!(
        kit::assistant_texts(records),
        ["Let me look.", "There are two log files: a.log and b.log."],
        "messages with only a tool call have no text"
    );
    let calls: Vec<(&str, &str)> = tool_calls(records).iter().map(|(id, name, _)| (*id, *name)).collect();
    assert_eq!(calls, [("exec1", "Execute"), ("exec2", "Execute")]);
    // No `is_error`: success is not recorded, even for an error text.
    assert_eq!(
        tool_results(records),
        [
            ("exec1", "a.log\nb.log\n", None),
            ("exec2", "Error: Command failed (exit code: 2)\nls: archive: No such file or directory", None)
        ]
    );
    // The first message's parent is the session_start line: the meta record.
    let by_id = |id: &str| records.iter().find(|r| r.id == id).unwrap();
    assert_eq!(by_id("q1").parent.as_deref(), Some("demo_run"));
    assert_eq!(by_id("a2").parent.as_deref(), Some("a1"));
}

#[test]
fn reminders_written_before_the_prompt_are_context() {
    // fixtures/factory-droid/inline-reminder (hand-written).
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/factory-droid/inline-reminder/home");
    let id = "3f0d9a52-6c1e-4b7a-9e21-7d0c5e4a1b00";
    let found = kit::discover::<FactoryDroid>(&home);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    assert_eq!(found.sessions[0].title.as_deref(), Some("Fix the failing test"), "the title is what was typed");
    let read = kit::conformance::<FactoryDroid>(&home, &found.sessions[0].locator, Spans::Lines);
    let kinds: Vec<(&str, &str)> = read.records.iter().map(|r| (r.body.kind(), r.id.as_str())).collect();
    assert_eq!(
        kinds,
        [
            ("meta", id),
            ("observation", "u1#context"),
            ("user", "u1"),
            ("assistant", "a1"),
            ("observation", "u2"),
            ("user", "u3")
        ]
    );
    assert_eq!(
        users(&read.records),
        ["Fix the failing test", "explain the <system-reminder> tag in our docs </system-reminder> please"]
    );
    assert_eq!(
        kit::observations_of(&read.records, "context"),
        [
            "<system-reminder>\nBe brief.\n</system-reminder>",
            "<system-reminder>The user switched to plan mode.</system-reminder>"
        ]
    );
    assert_eq!(read.meta().title.as_deref(), Some("Fix the failing test"));
}
