//! What is particular to Claude Code's transcripts, against sessions
//! written by the real CLI (fixtures/claude-code) and synthetic lines. What
//! every codec must do is the testkit's suite, in tests/conformance.rs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_claude_code::ClaudeCode;
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, CodecError, Operation, Severity, WriteOptions};
use trajhost_codec_testkit::suite::Lab;
use trajhost_codec_testkit::{self as kit, Read, Spans, assistants, raw_lines, tool_calls, tool_results, users};

const PROJECT: &str = ".claude/projects/-home-user-project";

/// The lab fixtures, as tests/conformance.json names them.
fn lab() -> Lab<ClaudeCode> {
    Lab::new(include_str!("conformance.json"))
}

fn locator(id: &str) -> String {
    format!("{PROJECT}/{id}.jsonl")
}

fn read(home: &Path, locator: &str) -> Read {
    kit::read::<ClaudeCode>(home, locator)
}

// ---------------------------------------------------------------- info

// ---------------------------------------------------------------- discover

#[test]
fn discover_prefers_titles_and_reports_oddities() {
    let dir = lab().copy("simple");
    let project = dir.path().join(PROJECT);
    let id = lab().id("simple");
    let main = project.join(format!("{id}.jsonl"));
    let mut text = std::fs::read_to_string(&main).unwrap();
    text.push_str(&format!("{}\n", json!({"type": "ai-title", "aiTitle": "Secret word lookup", "sessionId": id})));
    text.push_str(&format!("{}\n", json!({"type": "custom-title", "customTitle": "My rename", "sessionId": id})));
    std::fs::write(&main, text).unwrap();
    // Not sessions: an empty file, a summary-only legacy file, an index.
    std::fs::write(project.join("00000000-0000-0000-0000-000000000000.jsonl"), "").unwrap();
    std::fs::write(
        project.join("11111111-0000-0000-0000-000000000000.jsonl"),
        "{\"type\":\"summary\",\"summary\":\"x\",\"leafUuid\":\"u\"}\n",
    )
    .unwrap();
    std::fs::write(project.join("sessions-index.json"), "{}").unwrap();
    std::fs::create_dir_all(project.join("memory")).unwrap();
    std::fs::write(project.join("memory/MEMORY.md"), "notes").unwrap();
    // Not sessions and not known: each is named in a diagnostic.
    std::fs::write(project.join("notes.txt"), "x").unwrap();
    std::fs::write(project.join("22222222-0000-0000-0000-000000000000.jsonl"), "not json\n").unwrap();
    std::fs::create_dir_all(project.join("stray")).unwrap();
    std::fs::write(dir.path().join(".claude/projects/loose.jsonl"), "{}\n").unwrap();

    let found = ClaudeCode::discover(&Dir::native(dir.path())).unwrap();
    assert_eq!(found.sessions.len(), 1, "{:?}", found.sessions);
    assert_eq!(found.sessions[0].title.as_deref(), Some("My rename"));
    let at = |name: &str| format!("{PROJECT}/{name}");
    let expected = [
        ("empty-session-file", at("00000000-0000-0000-0000-000000000000.jsonl")),
        ("no-session-records", at("11111111-0000-0000-0000-000000000000.jsonl")),
        ("malformed-head", at("22222222-0000-0000-0000-000000000000.jsonl")),
        ("unrecognized-file", at("notes.txt")),
        ("unrecognized-file", at("stray")),
        ("unrecognized-file", ".claude/projects/loose.jsonl".to_string()),
    ];
    kit::check_named_files(&found.diagnostics, &expected);
}

/// One config dir per account (`CLAUDE_CONFIG_DIR=~/.claude-work`): every
/// sibling `.claude-<name>` is searched like `.claude`, and a file in one
/// is read through the same locator rules.
#[test]
fn sibling_config_dirs_are_searched() {
    let dir = lab().copy("simple");
    kit::copy_dir(&lab().home("parallel").join(".claude"), &dir.path().join(".claude-work"));
    std::fs::create_dir_all(dir.path().join(".claude-squad")).unwrap(); // another tool's folder: no projects/
    let found = kit::discover::<ClaudeCode>(dir.path());
    let mut locators: Vec<&str> = found.sessions.iter().map(|s| s.locator.as_str()).collect();
    locators.sort();
    assert_eq!(
        locators,
        [
            format!(".claude-work/projects/-home-user-project/{}.jsonl", lab().id("parallel")),
            locator(lab().id("simple"))
        ]
    );
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    let read = read(dir.path(), locators[0]);
    assert_eq!(read.meta().native_id, lab().id("parallel"));
    assert_eq!(tool_calls(&read.records).len(), 2);
    assert!(ClaudeCode::info().session_globs.iter().any(|g| g == ".claude-*/projects/*/*.jsonl"));
}

/// The suite reads a renamed copy by its content; a name that is a session
/// id still wins over a content that disagrees.
#[test]
fn a_session_id_name_wins_over_the_content() {
    let dir = lab().copy("simple");
    let id = lab().id("simple");
    let project = dir.path().join(PROJECT);
    let other = "99999999-0000-0000-0000-000000000000";
    std::fs::rename(project.join(format!("{id}.jsonl")), project.join(format!("{other}.jsonl"))).unwrap();
    let found = kit::discover::<ClaudeCode>(dir.path());
    assert_eq!(found.sessions[0].native_id, other);
    assert!(kit::file_diag(&found.diagnostics, "session-id-mismatch", &locator(other)).is_some());
}

// ---------------------------------------------------------------- read

/// One assistant record per API response, with its stop reason and the
/// message id it came with; the branch is `HEAD`.
#[test]
fn responses_keep_their_stop_reason_and_message_id() {
    for (scenario, _) in lab().ids() {
        let read = lab().read(scenario);
        assert_eq!(read.meta().git_branch.as_deref(), Some("HEAD"));
        for r in &read.records {
            if let Body::Assistant(x) = &r.body {
                assert_eq!(Some(r.id.as_str()), x.message_id.as_deref());
                assert!(r.id.starts_with("msg_"), "{}", r.id);
            }
        }
    }
    let simple = lab().read("simple");
    let stops: Vec<Option<&str>> = assistants(&simple.records).iter().map(|a| a.stop_reason.as_deref()).collect();
    assert_eq!(stops, [Some("tool_use"), Some("end_turn"), Some("end_turn")]);
}

#[test]
fn parallel_calls_merge_into_one_response() {
    let read = lab().read("parallel");
    let answers = assistants(&read.records);
    assert_eq!(answers.len(), 2, "two API responses, the first split over two lines");
    assert_eq!(answers[0].message_id.as_deref(), Some("msg_lab_a9b62d6cf70c4961a7ab"));
}

#[test]
fn long_output_without_its_spill_file_keeps_the_preview() {
    let dir = lab().copy("long-output");
    std::fs::remove_dir_all(dir.path().join(PROJECT).join("30ef65df-f2ce-4de2-81b3-d0f4bb3cc0c3")).unwrap();
    let read = read(dir.path(), &locator("30ef65df-f2ce-4de2-81b3-d0f4bb3cc0c3"));
    let results = tool_results(&read.records);
    assert!(results[0].1.starts_with("<persisted-output>"));
    assert!(results[0].1.contains("LONG-OUTPUT-BEGIN LEMON-512"));
    let d = read.diag("persisted-output-missing").expect("diagnostic");
    assert_eq!(d.severity, Severity::Info);
}

/// The bookkeeping lines that are mapped show up as observations.
#[test]
fn bookkeeping_lines_are_observations() {
    for (scenario, _) in lab().ids() {
        let read = lab().read(scenario);
        let subtypes: Vec<&str> = kit::observations(&read.records).into_iter().map(|(s, _)| s).collect();
        assert!(subtypes.contains(&"queue-operation/enqueue"), "{subtypes:?}");
        assert!(subtypes.contains(&"attachment/skill_listing"), "{subtypes:?}");
    }
}

// ---------------------------------------------------------------- damage

#[test]
fn a_torn_tail_names_its_file() {
    let dir = lab().copy("simple");
    let id = lab().id("simple");
    kit::tear_at(&dir.path().join(locator(id)), "NOTOOL ANSWER");
    let read = read(dir.path(), &locator(id));
    assert_eq!(read.diag("torn-tail").unwrap().file.as_deref(), Some(locator(id).as_str()));
}

// ---------------------------------------------------------------- synthetic shapes

/// A session file made of `lines`, in a fresh home.
fn synthetic(id: &str, lines: &[Value]) -> tempfile::TempDir {
    kit::home_with_lines(&locator(id), lines)
}

fn envelope(kind: &str, uuid: &str, parent: Option<&str>, ts: &str) -> Value {
    json!({
        "type": kind, "uuid": uuid, "parentUuid": parent, "timestamp": ts,
        "sessionId": "s1", "cwd": "/w", "version": "2.0.1", "gitBranch": "main", "isSidechain": false,
    })
}

fn assistant_line(uuid: &str, parent: &str, msg: &str, block: Value, output_tokens: u64) -> Value {
    let mut line = envelope("assistant", uuid, Some(parent), "2026-01-01T00:00:01.000Z");
    line["message"] = json!({
        "id": msg, "type": "message", "role": "assistant", "model": "claude-opus-4-1",
        "content": [block], "stop_reason": null,
        "usage": {"input_tokens": 5, "output_tokens": output_tokens, "cache_read_input_tokens": 7, "cache_creation_input_tokens": 3},
    });
    line
}

fn user_line(uuid: &str, parent: Option<&str>, content: Value) -> Value {
    let mut line = envelope("user", uuid, parent, "2026-01-01T00:00:00.000Z");
    line["message"] = json!({"role": "user", "content": content});
    line
}

/// A prompt, then one response (`msg_1`) of thinking, redacted thinking,
/// text and a `Read` call (`toolu_1`), line by line.
fn thinking_text_and_a_call() -> Vec<Value> {
    vec![
        user_line("u1", None, json!("hi")),
        assistant_line("a1", "u1", "msg_1", json!({"type": "thinking", "thinking": "hmm", "signature": "sig"}), 1),
        assistant_line("a2", "a1", "msg_1", json!({"type": "redacted_thinking", "data": "ENC"}), 2),
        assistant_line("a3", "a2", "msg_1", json!({"type": "text", "text": "Let me look."}), 3),
        assistant_line(
            "a4",
            "a3",
            "msg_1",
            json!({"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/w/x"}}),
            4,
        ),
    ]
}

#[test]
fn thinking_text_and_calls_come_out_in_reading_order() {
    let mut lines = thinking_text_and_a_call();
    lines.extend([
        user_line(
            "u2",
            Some("a4"),
            json!([{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "X"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}]}]),
        ),
        // The same response resumes after the result (interleaved lines).
        assistant_line(
            "a5",
            "u2",
            "msg_1",
            json!({"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": "ls"}}),
            9,
        ),
        user_line(
            "u3",
            Some("a5"),
            json!([{"type": "text", "text": "look"}, {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "AAAA"}}]),
        ),
    ]);
    let dir = synthetic("s1", &lines);
    let read = read(dir.path(), &locator("s1"));
    let kinds: Vec<(&str, &str)> = read.records.iter().map(|r| (r.body.kind(), r.id.as_str())).collect();
    assert_eq!(
        kinds,
        [
            ("meta", "s1"),
            ("user", "u1"),
            ("reasoning", "a1"),
            ("reasoning", "a2"),
            ("assistant", "msg_1"),
            ("tool_call", "toolu_1"),
            ("tool_result", "u2"),
            ("assistant", "msg_1#2"),
            ("tool_call", "toolu_2"),
            ("user", "u3"),
        ]
    );
    let Body::Reasoning(r) = &read.records[2].body else { panic!() };
    assert_eq!((r.text.as_deref(), r.opaque.as_deref(), r.encrypted), (Some("hmm"), Some("sig"), false));
    let Body::Reasoning(r) = &read.records[3].body else { panic!() };
    assert_eq!((r.text.as_deref(), r.opaque.as_deref(), r.encrypted), (None, Some("ENC"), true));

    let answers = assistants(&read.records);
    assert_eq!(answers[0].text, "Let me look.");
    let usage = answers[0].usage.as_ref().unwrap();
    // Counted once, from the response's last line; input excludes the cache.
    assert_eq!((usage.input, usage.output, usage.cache_read, usage.cache_write), (Some(5), Some(4), Some(7), Some(3)));
    assert_eq!(answers[1].usage, None, "a resumed response's usage was already counted");
    assert!(read.diag("assistant-message-split").is_some());

    // Parents point at records: the result answers its call, the resumed
    // response follows the result, the last prompt follows the response.
    let by_id = |id: &str| read.records.iter().find(|r| r.id == id).unwrap();
    assert_eq!(by_id("msg_1").parent.as_deref(), Some("u1"));
    assert_eq!(by_id("u2").parent.as_deref(), Some("toolu_1"));
    assert_eq!(by_id("msg_1#2").parent.as_deref(), Some("u2"));
    assert_eq!(by_id("u3").parent.as_deref(), Some("msg_1#2"));

    let results = tool_results(&read.records);
    assert_eq!(results, vec![("toolu_1", "X\n[image: image/png]", None)]);
    let Body::User { text, attachments } = &by_id("u3").body else { panic!() };
    assert_eq!(text, "look");
    assert_eq!(attachments.len(), 1);
    assert_eq!(attachments[0].kind, "image");
    assert_eq!(attachments[0].media_type.as_deref(), Some("image/jpeg"));
}

#[test]
fn compaction_meta_lines_and_system_subtypes() {
    let mut boundary = envelope("system", "b1", None, "2026-01-01T00:00:02.000Z");
    boundary["subtype"] = json!("compact_boundary");
    boundary["content"] = json!("Conversation compacted");
    boundary["compactMetadata"] = json!({"trigger": "auto", "preTokens": 150000});
    let mut summary = user_line("c1", Some("b1"), json!("This session is being continued. Summary: ..."));
    summary["isCompactSummary"] = json!(true);
    let mut caveat = user_line("m1", None, json!("Caveat: local commands"));
    caveat["isMeta"] = json!(true);
    let mut retry = envelope("system", "e1", Some("c1"), "2026-01-01T00:00:03.000Z");
    retry["subtype"] = json!("api_error");
    retry["error"] = json!({"status": 529});
    retry["retryAttempt"] = json!(1);
    retry["maxRetries"] = json!(10);
    let mut synthetic_error =
        assistant_line("x1", "e1", "00000000-synthetic", json!({"type": "text", "text": "API Error: overloaded"}), 0);
    synthetic_error["isApiErrorMessage"] = json!(true);
    let dir = synthetic(
        "s1",
        &[
            caveat,
            user_line("u1", Some("m1"), json!("first")),
            boundary,
            summary,
            retry,
            synthetic_error,
            json!({"type": "custom-title", "customTitle": "Renamed", "sessionId": "s1"}),
            json!({"type": "permission-mode", "permissionMode": "plan", "sessionId": "s1"}),
            json!({"type": "file-history-snapshot", "messageId": "u1", "snapshot": {}, "isSnapshotUpdate": false}),
            json!({"type": "brand-new-thing", "sessionId": "s1"}),
            json!({"type": "brand-new-thing", "sessionId": "s1"}),
            json!({"type": "<script>alert(1)</script>"}),
            json!({"no": "type"}),
            json!("a string, not a record"),
            {
                let mut upgraded = user_line("u9", Some("u1"), json!([]));
                upgraded["version"] = json!("2.0.2");
                upgraded
            },
        ],
    );
    let read = read(dir.path(), &locator("s1"));
    let bodies: Vec<&Body> = read.records.iter().map(|r| &r.body).collect();
    let Body::Meta(meta) = bodies[0] else { panic!() };
    assert_eq!(meta.title.as_deref(), Some("Renamed"));
    assert_eq!(meta.native_version.as_deref(), Some("2.0.1"));
    assert!(
        matches!(bodies[1], Body::Observation { subtype, text } if subtype == "meta-user" && text.as_deref() == Some("Caveat: local commands"))
    );
    assert!(matches!(bodies[2], Body::User { text, .. } if text == "first"));
    assert!(matches!(bodies[3], Body::Observation { subtype, .. } if subtype == "system/compact_boundary"));
    assert!(
        matches!(bodies[4], Body::Compaction { summary, trigger } if summary.starts_with("This session") && trigger.as_deref() == Some("auto"))
    );
    assert!(
        matches!(bodies[5], Body::Observation { subtype, text } if subtype == "system/api_error" && text.as_deref() == Some("API error 529, retry 1 of 10"))
    );
    assert!(
        matches!(bodies[6], Body::Observation { subtype, text } if subtype == "api-error-message" && text.as_deref() == Some("API Error: overloaded"))
    );
    assert!(
        matches!(bodies[7], Body::Observation { subtype, text } if subtype == "custom-title" && text.as_deref() == Some("Renamed"))
    );
    assert!(
        matches!(bodies[8], Body::Observation { subtype, text } if subtype == "permission-mode" && text.as_deref() == Some("plan"))
    );
    assert_eq!(bodies.len(), 9);
    assert!(assistants(&read.records).is_empty(), "a synthetic error turn is not the model's");
    // Lines without a timestamp take the last one seen.
    assert_eq!(read.records[7].ts.as_deref(), Some("2026-01-01T00:00:01.000Z"));

    let unmapped = read.diagnostics.iter().find(|d| d.code == "unmapped-record-type").unwrap();
    assert_eq!((unmapped.detail.as_str(), unmapped.count), ("file-history-snapshot", 1));
    let unknown: Vec<(&str, u32, Severity)> = read
        .diagnostics
        .iter()
        .filter(|d| d.code == "unknown-record-type")
        .map(|d| (d.detail.as_str(), d.count, d.severity))
        .collect();
    assert_eq!(
        unknown,
        [
            ("(missing)", 1, Severity::Warning),
            ("(not an identifier)", 1, Severity::Warning),
            ("brand-new-thing", 2, Severity::Warning)
        ]
    );
    let shape = read.diag("unexpected-shape").expect("valid JSON that is not a record");
    assert_eq!(shape.severity, Severity::Warning);
    assert!(read.diag("malformed-line").is_none());
    let upgrade = read.diag("native-version-changed").expect("version change");
    assert_eq!(upgrade.detail, "2.0.1 -> 2.0.2");
}

// ---------------------------------------------------------------- subagents

const SHAPES_PROJECT: &str = ".claude/projects/-home-user-app";
const SHAPES_SESSION: &str = "4f1c2a9e-7b3d-4e21-9a55-1c0de5e7f001";

/// fixtures/claude-code/subagents: subagents of both layouts, a branched
/// tree, interrupt markers (see its PROVENANCE.md).
fn shapes_home() -> PathBuf {
    // This crate's own checkout (the testkit's `fixtures_root` follows
    // wherever the shared build compiled the testkit from).
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/claude-code/subagents/home")
}

fn shapes_locators() -> (String, String, String) {
    (
        format!("{SHAPES_PROJECT}/{SHAPES_SESSION}.jsonl"),
        format!("{SHAPES_PROJECT}/{SHAPES_SESSION}/subagents/agent-a1b2c3.jsonl"),
        format!("{SHAPES_PROJECT}/agent-9f8e7d.jsonl"),
    )
}

#[test]
fn each_subagent_transcript_is_a_session_of_its_own() {
    let home = shapes_home();
    let (main, sub, legacy) = shapes_locators();
    let found = kit::discover::<ClaudeCode>(&home);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    let mut listed: Vec<(&str, &str)> =
        found.sessions.iter().map(|s| (s.native_id.as_str(), s.locator.as_str())).collect();
    listed.sort();
    assert_eq!(listed, [(SHAPES_SESSION, main.as_str()), ("9f8e7d", legacy.as_str()), ("a1b2c3", sub.as_str())]);
    let by_locator = |l: &str| found.sessions.iter().find(|s| s.locator == l).unwrap();
    assert_eq!(by_locator(&main).size, std::fs::metadata(home.join(&main)).unwrap().len(), "own bytes only");
    assert_eq!(by_locator(&sub).title.as_deref(), Some("Find config files"));
    assert_eq!(by_locator(&legacy).native_version.as_deref(), Some("2.0.37"));
    for locator in [&main, &sub, &legacy] {
        let inspected = ClaudeCode::inspect(&Dir::native(&home), locator).unwrap();
        assert_eq!(format!("{inspected:?}"), format!("{:?}", by_locator(locator)));
        kit::conformance::<ClaudeCode>(&home, locator, Spans::Lines);
    }

    // The main session holds only its own records.
    let parent = read(&home, &main);
    assert_eq!(parent.records.iter().filter(|r| matches!(r.body, Body::Meta(_))).count(), 1);
    assert!(parent.records.iter().all(|r| r.agent.is_none() && r.src.as_ref().is_none_or(|s| s.file == main)));
    assert!(!assistants(&parent.records).iter().any(|a| a.text.contains("Found 2 files")));

    // The subagent: linked by the recorded ids only.
    let child = read(&home, &sub);
    let Body::Meta(meta) = &child.records[0].body else { panic!("meta first") };
    assert_eq!(child.records[0].id, "a1b2c3");
    assert_eq!(meta.native_id, "a1b2c3");
    assert_eq!(meta.parent_session.as_deref(), Some(SHAPES_SESSION));
    assert_eq!(meta.parent_call.as_deref(), Some("toolu_T"));
    assert_eq!(meta.title.as_deref(), Some("Find config files"));
    assert!(child.records.iter().all(|r| r.agent.is_none() && r.src.as_ref().is_none_or(|s| s.file == sub)));
    assert_eq!(users(&child.records), ["Find config files"]);
    assert_eq!(tool_results(&child.records), [("toolu_G", "a.toml\nb.toml", None)]);
    assert_eq!(assistants(&child.records).last().unwrap().text, "Found 2 files: a.toml, b.toml");

    // The legacy subagent: no meta file, its parent from `sessionId`.
    let old = read(&home, &legacy);
    let Body::Meta(meta) = &old.records[0].body else { panic!("meta first") };
    assert_eq!((meta.native_id.as_str(), meta.parent_session.as_deref()), ("9f8e7d", Some(SHAPES_SESSION)));
    assert_eq!(meta.parent_call, None);
    assert_eq!(users(&old.records), ["Check the lockfile for duplicates"]);
    assert_eq!(assistants(&old.records)[0].text, "Checking the lockfile for duplicate entries.");
    assert_eq!(tool_calls(&old.records).len(), 1);
    assert!(tool_results(&old.records).is_empty());
}

#[test]
fn interrupt_markers_are_observations_not_prompts() {
    let (main, ..) = shapes_locators();
    let read = read(&shapes_home(), &main);
    assert_eq!(users(&read.records), ["Find the config files and summarize them", "Now check the README"]);
    assert_eq!(
        kit::observations_of(&read.records, "interrupt"),
        ["[Request interrupted by user]", "[Request interrupted by user for tool use]"]
    );
    let Body::Meta(meta) = &read.records[0].body else { panic!() };
    assert_eq!(meta.title.as_deref(), Some("Find the config files and summarize them"));
}

#[test]
fn results_on_sibling_branches_of_a_parallel_call_are_all_kept() {
    let (main, ..) = shapes_locators();
    let read = read(&shapes_home(), &main);
    let calls: Vec<&str> = tool_calls(&read.records).iter().map(|c| c.0).collect();
    assert_eq!(calls, ["toolu_A", "toolu_B", "toolu_T", "toolu_C"]);
    let results = tool_results(&read.records);
    assert_eq!(
        results,
        [
            ("toolu_A", "alpha = 1", None),
            ("toolu_B", "beta = 2", None),
            ("toolu_T", "Found 2 files: a.toml, b.toml", None),
            ("toolu_C", "The user doesn't want to proceed with this tool use. The tool use was rejected.", Some(false)),
        ]
    );
    // Both parallel calls are one response; each result answers its call.
    let texts: Vec<&str> =
        assistants(&read.records).iter().map(|a| a.text.as_str()).filter(|t| !t.is_empty()).collect();
    assert_eq!(texts, ["I'll read both files.", "Both configs are set: alpha = 1, beta = 2."]);
    let by_id = |id: &str| read.records.iter().find(|r| r.id == id).unwrap();
    assert_eq!(by_id("r1").parent.as_deref(), Some("toolu_A"));
    assert_eq!(by_id("r2").parent.as_deref(), Some("toolu_B"));
}

// ---------------------------------------------------------------- write

/// Canonical records as a document (JSON lines).
fn document(records: &[Record]) -> String {
    records.iter().map(|r| serde_json::to_string(r).unwrap() + "\n").collect()
}

fn write_options(cwd: Option<&str>, native_id: Option<&str>) -> WriteOptions {
    WriteOptions { cwd: cwd.map(str::to_string), native_id: native_id.map(str::to_string), home_path: None }
}

fn write(doc: &str, options: WriteOptions) -> trajhost_codec_sdk::WrittenFiles {
    kit::suite::write::<ClaudeCode>(doc, options)
}

/// A fresh home holding the written artifacts.
fn home_of(written: &trajhost_codec_sdk::WrittenFiles) -> tempfile::TempDir {
    kit::install(written)
}

/// The written transcript's lines.
fn written_lines(written: &trajhost_codec_sdk::WrittenFiles) -> Vec<Value> {
    assert_eq!(written.artifacts.len(), 1);
    std::str::from_utf8(&written.artifacts[0].bytes)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn not_carried(written: &trajhost_codec_sdk::WrittenFiles, detail: &str) -> Option<u32> {
    written.diagnostics.iter().find(|d| d.code == "not-carried" && d.detail == detail).map(|d| d.count)
}

fn diagnostic(written: &trajhost_codec_sdk::WrittenFiles, code: &str, detail: &str) -> Option<u32> {
    written.diagnostics.iter().find(|d| d.code == code && d.detail == detail).map(|d| d.count)
}

/// What a conversation says, in order: prompts, answers, calls (name and
/// arguments), results (content and outcome).
#[derive(Debug, PartialEq)]
enum Said {
    User(String),
    Assistant(String),
    Call(String, String, Value),
    Result(String, String, Option<bool>),
}

fn said(records: &[Record]) -> Vec<Said> {
    records
        .iter()
        .filter(|r| r.agent.is_none())
        .filter_map(|r| match &r.body {
            Body::User { text, .. } => Some(Said::User(text.clone())),
            Body::Assistant(a) if !a.text.is_empty() => Some(Said::Assistant(a.text.clone())),
            Body::ToolCall { call_id, name, arguments } => {
                Some(Said::Call(call_id.clone(), name.clone(), arguments.clone()))
            }
            Body::ToolResult { call_id, content, ok } => Some(Said::Result(call_id.clone(), content.clone(), *ok)),
            _ => None,
        })
        .collect()
}

/// Checks what Claude Code needs of a transcript: one uuid chain from the
/// newest leaf through every conversational line, the session id on every
/// line, the full assistant envelope, tool results in user lines.
fn assert_resumable(written: &trajhost_codec_sdk::WrittenFiles) {
    let artifact = &written.artifacts[0];
    let stem = artifact.path.rsplit('/').next().unwrap().strip_suffix(".jsonl").unwrap();
    assert_eq!(stem, written.native_id);
    let lines = written_lines(written);
    let mut uuids = BTreeSet::new();
    let mut parents = std::collections::BTreeMap::new();
    for (n, line) in lines.iter().enumerate() {
        assert_eq!(line["sessionId"], stem, "line {n}: {line}");
        let kind = line["type"].as_str().unwrap();
        let Some(uuid) = line["uuid"].as_str() else {
            assert_eq!(kind, "ai-title", "line {n} has no uuid: {line}");
            continue;
        };
        assert!(uuids.insert(uuid.to_string()), "line {n}: uuid {uuid} repeats");
        for (field, value) in [("userType", "external"), ("version", "2.1.197")] {
            assert_eq!(line[field], value, "line {n}: {field}");
        }
        assert_eq!(line["isSidechain"], false, "line {n}");
        assert!(line["cwd"].as_str().unwrap().starts_with('/'), "line {n}");
        assert!(line["entrypoint"].is_string(), "line {n}");
        let ts = line["timestamp"].as_str().unwrap();
        assert!(trajhost_codec_claude_code::parse_rfc3339(ts).is_some(), "line {n}: {ts}");
        // The parent: the previous line; a compact boundary starts afresh
        // and names it as its logical parent, as Claude Code writes it.
        let parent = match line["parentUuid"].as_str() {
            Some(parent) => Some(parent),
            None if n > 0 => {
                assert_eq!(line["subtype"], "compact_boundary", "line {n}: a second root");
                Some(line["logicalParentUuid"].as_str().expect("logicalParentUuid"))
            }
            None => None,
        };
        if let Some(parent) = parent {
            assert!(uuids.contains(parent), "line {n}: parent {parent} is not an earlier line");
        }
        parents.insert(uuid.to_string(), parent.map(str::to_string));
        match kind {
            "assistant" => {
                let m = &line["message"];
                assert!(m["id"].as_str().unwrap().starts_with("msg_"), "line {n}");
                assert_eq!(m["type"], "message", "line {n}");
                assert_eq!(m["role"], "assistant", "line {n}");
                assert!(!m["model"].as_str().unwrap().is_empty(), "line {n}");
                assert!(
                    matches!(
                        m["stop_reason"].as_str(),
                        Some("end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "pause_turn" | "refusal")
                    ),
                    "line {n}"
                );
                assert!(m["stop_sequence"].is_null(), "line {n}");
                for field in ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"]
                {
                    assert!(m["usage"][field].is_u64(), "line {n}: usage.{field}");
                }
                let blocks = m["content"].as_array().unwrap();
                assert_eq!(blocks.len(), 1, "line {n}: one block per line");
                for block in blocks {
                    match block["type"].as_str().unwrap() {
                        "text" => assert!(!block["text"].as_str().unwrap().trim().is_empty()),
                        "tool_use" => {
                            assert!(block["input"].is_object(), "line {n}: tool_use.input");
                            assert!(
                                block["id"]
                                    .as_str()
                                    .unwrap()
                                    .bytes()
                                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
                            );
                        }
                        "thinking" => assert!(block["signature"].is_string()),
                        "redacted_thinking" => assert!(block["data"].is_string()),
                        other => panic!("line {n}: block {other}"),
                    }
                }
            }
            "user" => {
                let content = &line["message"]["content"];
                assert_eq!(line["message"]["role"], "user");
                if let Some(blocks) = content.as_array() {
                    for block in blocks {
                        assert_eq!(block["type"], "tool_result", "line {n}");
                        assert!(line["toolUseResult"].is_string(), "line {n}");
                        assert!(line["sourceToolAssistantUUID"].is_string(), "line {n}");
                    }
                } else {
                    assert!(!content.as_str().unwrap().trim().is_empty(), "line {n}");
                }
            }
            "system" => assert_eq!(line["subtype"], "compact_boundary"),
            other => panic!("line {n}: unexpected type {other}"),
        }
    }
    // One chain: walking back from the newest line visits every line.
    let last = lines.iter().rev().find_map(|l| l["uuid"].as_str()).unwrap();
    let mut seen = 0;
    let mut at = Some(last.to_string());
    while let Some(uuid) = at {
        seen += 1;
        at = parents[&uuid].clone();
    }
    assert_eq!(seen, uuids.len(), "lines off the chain");
    let first = lines.iter().find(|l| l["uuid"].is_string()).unwrap();
    assert!(first["parentUuid"].is_null());
    // A tool result answers a tool use of an earlier assistant line.
    let mut calls = BTreeSet::new();
    for line in &lines {
        for block in line["message"]["content"].as_array().into_iter().flatten() {
            match block["type"].as_str() {
                Some("tool_use") => {
                    assert!(calls.insert(block["id"].as_str().unwrap().to_string()))
                }
                Some("tool_result") => {
                    assert!(calls.contains(block["tool_use_id"].as_str().unwrap()))
                }
                _ => {}
            }
        }
    }
}

#[test]
fn write_read_round_trip_keeps_every_fixture_conversation() {
    for (scenario, id) in lab().ids() {
        let first = lab().read(scenario);
        let written = write(&document(&first.records), write_options(None, None));
        assert_ne!(written.native_id, id, "{scenario}: a new id, derived from the content");
        assert_eq!(written.artifacts[0].path, format!("{PROJECT}/{}.jsonl", written.native_id), "{scenario}");
        assert_resumable(&written);
        let home = home_of(&written);
        let second = read(home.path(), &written.artifacts[0].path);
        let before = said(&first.records);
        assert!(before.len() >= 4, "{scenario}: {before:?}");
        assert_eq!(said(&second.records), before, "{scenario}");
        // Model and usage come back too.
        let (a, b) = (assistants(&first.records), assistants(&second.records));
        assert_eq!(a.len(), b.len(), "{scenario}");
        for (a, b) in a.iter().zip(&b) {
            assert_eq!((&a.model, &a.usage, &a.stop_reason), (&b.model, &b.usage, &b.stop_reason), "{scenario}");
            assert_eq!(a.message_id, b.message_id, "{scenario}: native message ids are kept");
        }
        let Body::Meta(meta) = &second.records[0].body else { panic!() };
        assert_eq!(meta.cwd.as_deref(), Some("/home/user/project"));
        assert_eq!(meta.native_version.as_deref(), Some("2.1.197"));
        assert_eq!(meta.git_branch.as_deref(), Some("HEAD"));
        assert_eq!(meta.native_id, written.native_id);
        // The new transcript reads without complaint.
        assert!(
            second.diagnostics.iter().all(|d| d.severity == Severity::Info && d.code != "unknown-record-type"),
            "{scenario}: {:?}",
            second.diagnostics
        );
        // Observations (queue operations, attachments, modes) are the only
        // records left behind, and they are reported.
        let observations = first.records.iter().filter(|r| matches!(r.body, Body::Observation { .. })).count() as u32;
        let reported: u32 = written
            .diagnostics
            .iter()
            .filter(|d| d.code == "not-carried" && d.detail.starts_with("observation/"))
            .map(|d| d.count)
            .sum();
        assert_eq!(reported, observations, "{scenario}: {:?}", written.diagnostics);
        assert!(
            written.diagnostics.iter().all(|d| d.code == "not-carried" && d.detail.starts_with("observation/")),
            "{scenario}: {:?}",
            written.diagnostics
        );
    }
}

#[test]
fn written_lines_look_like_claude_codes_own() {
    let first = lab().read("parallel");
    let written = write(&document(&first.records), write_options(None, None));
    let lines = written_lines(&written);
    let kinds: Vec<String> = lines
        .iter()
        .map(|l| {
            let block = &l["message"]["content"][0];
            format!("{}/{}", l["type"].as_str().unwrap(), block["type"].as_str().unwrap_or("text"))
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "user/text",
            "assistant/tool_use",
            "assistant/tool_use",
            "user/tool_result",
            "user/tool_result",
            "assistant/text",
        ]
    );
    // One API response over two lines: one message id, tool_use stop.
    assert_eq!(lines[1]["message"]["id"], lines[2]["message"]["id"]);
    assert_eq!(lines[1]["message"]["stop_reason"], "tool_use");
    assert_eq!(lines[5]["message"]["stop_reason"], "end_turn");
    assert_ne!(lines[1]["message"]["id"], lines[5]["message"]["id"]);
    // The fixture's envelope, field for field.
    let native = raw_lines(&lab().home("parallel").join(locator(lab().id("parallel"))));
    let native_call = native.iter().find(|l| l["type"] == "assistant").unwrap();
    let envelope_keys = |l: &Value| -> BTreeSet<String> {
        l.as_object().unwrap().keys().filter(|k| *k != "entrypoint").cloned().collect()
    };
    assert_eq!(envelope_keys(&lines[1]), envelope_keys(native_call));
    let native_result = native.iter().find(|l| l["toolUseResult"]["stdout"].is_string()).unwrap();
    let mut result_keys = envelope_keys(native_result);
    result_keys.remove("promptId");
    let mut ours = envelope_keys(&lines[4]);
    ours.remove("promptId");
    assert_eq!(ours, result_keys);
    for field in ["cwd", "version", "gitBranch", "userType"] {
        assert_eq!(lines[1][field], native_call[field], "{field}");
    }
    // Results point at the line holding their call, and say the outcome.
    let bash = lines.iter().find(|l| l["message"]["content"][0]["name"] == "Bash").unwrap();
    let bash_result = lines
        .iter()
        .find(|l| l["message"]["content"][0]["tool_use_id"] == bash["message"]["content"][0]["id"])
        .unwrap();
    assert_eq!(bash_result["sourceToolAssistantUUID"], bash["uuid"]);
    assert_eq!(bash_result["message"]["content"][0]["is_error"], false);
    let read_result = &lines[3];
    assert!(read_result["message"]["content"][0].get("is_error").is_none(), "outcome not recorded");
    // The prompt and its tool results share a prompt id.
    assert_eq!(lines[0]["promptId"], lines[3]["promptId"]);
    let simple = written_lines(&write(&document(&lab().read("simple").records), write_options(None, None)));
    let prompts: Vec<&Value> =
        simple.iter().filter(|l| l["message"]["content"].is_string()).map(|l| &l["promptId"]).collect();
    assert_eq!(prompts.len(), 2);
    assert_ne!(prompts[0], prompts[1]);

    let failing = write(&document(&lab().read("failing-tool").records), write_options(None, None));
    let result = written_lines(&failing).into_iter().find(|l| l["toolUseResult"].is_string()).unwrap();
    assert_eq!(result["message"]["content"][0]["is_error"], true);
    assert!(result["toolUseResult"].as_str().unwrap().starts_with("Error: Exit code 3"));
}

#[test]
fn write_is_deterministic_and_honours_the_options() {
    let doc = document(&lab().read("simple").records);
    let a = write(&doc, write_options(None, None));
    let b = write(&doc, write_options(None, None));
    assert_eq!(a.native_id, b.native_id);
    assert_eq!(a.artifacts[0].path, b.artifacts[0].path);
    assert_eq!(a.artifacts[0].bytes, b.artifacts[0].bytes, "same input, same bytes");
    // The ids come from the meta line (the writer streams: they are known
    // before the first record): the same source session keeps its ids, …
    let other = write(&doc.replace("PAPAYA-42", "MANGO-77"), write_options(None, None));
    assert_eq!(other.native_id, a.native_id, "same meta line, same ids");
    assert_ne!(other.artifacts[0].bytes, a.artifacts[0].bytes);
    // … another gets others.
    let meta_line = doc.lines().next().unwrap();
    assert!(meta_line.contains(r#""kind":"meta""#), "{meta_line}");
    let source_id = lab().id("simple");
    let renamed = meta_line.replace(source_id, "another-session");
    assert_ne!(renamed, meta_line);
    let another = write(&doc.replacen(meta_line, &renamed, 1), write_options(None, None));
    assert_ne!(another.native_id, a.native_id);

    let id = "0f0e0d0c-0b0a-4908-8706-050403020100";
    let chosen = write(&doc, write_options(Some("/srv/other place"), Some(&id.to_uppercase())));
    assert_eq!(chosen.native_id, id);
    assert_eq!(chosen.artifacts[0].path, format!(".claude/projects/-srv-other-place/{id}.jsonl"));
    assert!(written_lines(&chosen).iter().all(|l| l["sessionId"] == id));
    assert!(written_lines(&chosen).iter().filter(|l| l["uuid"].is_string()).all(|l| l["cwd"] == "/srv/other place"));

    let err =
        trajhost_codec_sdk::write_document::<ClaudeCode>(&doc, write_options(None, Some("not-a-uuid"))).unwrap_err();
    assert!(matches!(err, CodecError::Other(m) if m.contains("UUID")));
    let no_cwd = doc.replace(r#""cwd":"/home/user/project","#, "");
    assert!(!no_cwd.contains("/home/user/project\""));
    let err = trajhost_codec_sdk::write_document::<ClaudeCode>(&no_cwd, write_options(None, None)).unwrap_err();
    assert!(matches!(&err, CodecError::Malformed(m) if m.contains("cwd")), "{err:?}");
    assert!(trajhost_codec_sdk::write_document::<ClaudeCode>(&no_cwd, write_options(Some("/w"), None)).is_ok());
    let err =
        trajhost_codec_sdk::write_document::<ClaudeCode>(&doc, write_options(Some("relative/dir"), None)).unwrap_err();
    assert!(matches!(err, CodecError::Malformed(_)));
    let err =
        trajhost_codec_sdk::write_document::<ClaudeCode>("{not json\n", write_options(Some("/w"), None)).unwrap_err();
    assert!(matches!(&err, CodecError::Malformed(m) if m.contains("line 1")), "{err:?}");
}

#[test]
fn project_directory_names_follow_claude_code() {
    use trajhost_codec_claude_code::layout::project_dir_name;
    assert_eq!(project_dir_name("/home/user/project"), "-home-user-project");
    assert_eq!(project_dir_name("/home/u/my_proj.x"), "-home-u-my-proj-x");
    // One dash per UTF-16 code unit: an emoji outside the BMP is two.
    assert_eq!(project_dir_name("/tmp/é🎉x"), "-tmp----x");
    // Longer than 200: cut, and the base-36 hash of the whole cwd appended
    // (expected values computed with the function from the 2.1.197 CLI).
    let long = format!("/home/user/{}项目🎉", "very_long-directory.name/".repeat(9));
    let name = project_dir_name(&long);
    assert_eq!(name.len(), 207);
    assert_eq!(&name[200..], "-lzwggq");
    assert!(name.starts_with("-home-user-very-long-directory-name-"));
    let name = project_dir_name(&format!("/{}", "a".repeat(250)));
    assert_eq!(name, format!("-{}-feo44x", "a".repeat(199)));
    assert_eq!(project_dir_name(&format!("/{}", "a".repeat(199))).len(), 200, "200 is not cut");

    let doc = document(&lab().read("simple").records);
    let written = write(&doc, write_options(Some(&long), None));
    assert_eq!(
        written.artifacts[0].path,
        format!(".claude/projects/{}/{}.jsonl", project_dir_name(&long), written.native_id)
    );
}

/// A session from another harness with everything Claude Code cannot hold.
fn foreign_session() -> Vec<Record> {
    let rec = |id: &str, body: Body| Record {
        id: id.into(),
        body,
        parent: None,
        ts: Some(format!("2026-03-01T10:00:{:02}.000Z", id.len())),
        agent: None,
        src: None,
    };
    let assistant = |text: &str, usage: Option<trajhost_codec_sdk::canonical::Usage>| {
        Body::Assistant(trajhost_codec_sdk::canonical::Assistant {
            text: text.into(),
            model: Some("gpt-5.1-codex".into()),
            message_id: Some("msg_from_codex".into()),
            stop_reason: None,
            usage,
        })
    };
    let call = |call_id: &str, name: &str, arguments: Value| Body::ToolCall {
        call_id: call_id.into(),
        name: name.into(),
        arguments,
    };
    let result = |call_id: &str, content: &str, ok: Option<bool>| Body::ToolResult {
        call_id: call_id.into(),
        content: content.into(),
        ok,
    };
    let observation = |subtype: &str| Body::Observation { subtype: subtype.into(), text: Some("x".into()) };
    let reasoning = |text: Option<&str>, opaque: Option<&str>, encrypted: bool| {
        Body::Reasoning(trajhost_codec_sdk::canonical::Reasoning {
            text: text.map(str::to_string),
            opaque: opaque.map(str::to_string),
            encrypted,
        })
    };
    let mut child = rec("c1", Body::User { text: "child prompt".into(), attachments: vec![] });
    child.agent = Some("agent-1".into());
    let mut child2 = rec("c2", assistant("child answer", None));
    child2.agent = Some("agent-1".into());
    vec![
        rec(
            "meta",
            Body::Meta(trajhost_codec_sdk::canonical::Meta {
                schema: trajhost_codec_sdk::canonical::SCHEMA.into(),
                harness: "codex".into(),
                native_id: "019a0000-0000-7000-8000-000000000000".into(),
                cwd: Some("/home/user/project".into()),
                title: Some("Fix the build".into()),
                git_branch: Some("main".into()),
                started_at: Some("2026-03-01T10:00:00.000Z".into()),
                ..Default::default()
            }),
        ),
        rec("sys", Body::System { text: "You are Codex.".into() }),
        rec("o1", observation("turn_context")),
        rec(
            "u1",
            Body::User {
                text: "Read hello.txt".into(),
                attachments: vec![trajhost_codec_sdk::canonical::Attachment {
                    kind: "image".into(),
                    media_type: Some("image/png".into()),
                }],
            },
        ),
        rec("r1", reasoning(Some("I should read it"), Some("gAAAA-encrypted"), true)),
        rec("r2", reasoning(None, Some("gAAAA-only-opaque"), true)),
        rec(
            "a1",
            assistant(
                "Reading it.",
                Some(trajhost_codec_sdk::canonical::Usage {
                    input: Some(1200),
                    output: Some(30),
                    cache_read: Some(800),
                    cache_write: None,
                    reasoning: Some(12),
                    cost_usd: Some(0.01),
                }),
            ),
        ),
        rec("t1", call("call_1", "shell", json!({"command": ["cat", "hello.txt"]}))),
        rec("t2", call("call.2/x", "functions.read", json!("{\"path\":\"hello.txt\"}"))),
        rec("t3", call("call_3", "apply_patch", json!("*** Begin Patch"))),
        rec("o2", observation("event/exec_command_end")),
        rec("x1", result("call_1", "PAPAYA-42", None)),
        rec("x2", result("call.2/x", "PAPAYA-42 again", Some(false))),
        // call_3 never gets a result before the next prompt.
        rec("o3", observation("event/token_count")),
        rec("u2", Body::User { text: "And now?".into(), attachments: vec![] }),
        rec("x9", result("call_unknown", "stray", Some(true))),
        rec("t4", call("call_1", "shell", json!({"command": "ls"}))),
        rec("x4", result("call_1", "a b c", Some(true))),
        rec("x5", result("call_1", "a b c", Some(true))),
        rec("a2", assistant("Done.", None)),
        rec(
            "k1",
            Body::Compaction { summary: "The user asked to read hello.txt; it says PAPAYA-42.".into(), trigger: None },
        ),
        rec("u3", Body::User { text: "Continue".into(), attachments: vec![] }),
        rec("a3", assistant("   ", None)),
        child,
        child2,
    ]
}

#[test]
fn what_cannot_be_carried_is_reported() {
    let records = foreign_session();
    let doc = document(&records);
    let written = write(&doc, write_options(None, None));
    assert_resumable(&written);
    for (detail, count) in [
        ("system-prompt", 1),
        ("attachments", 1),
        ("reasoning", 1),
        ("opaque-reasoning", 1),
        ("observation/turn_context", 1),
        ("observation/event", 2),
        ("subagent-transcript", 1),
        ("usage.cost_usd", 1),
        ("usage.reasoning", 1),
        ("orphan-tool-result", 1),
        ("duplicate-tool-result", 1),
        ("empty-assistant-turn", 1),
    ] {
        assert_eq!(not_carried(&written, detail), Some(count), "{detail}: {:?}", written.diagnostics);
    }
    assert_eq!(diagnostic(&written, "synthesized", "missing-tool-result"), Some(1));
    assert_eq!(diagnostic(&written, "renamed", "tool-call-id"), Some(2), "call.2/x and the reused call_1");
    assert_eq!(diagnostic(&written, "renamed", "tool-name"), Some(1));
    assert_eq!(diagnostic(&written, "reshaped", "tool-arguments"), Some(1));
    assert_eq!(diagnostic(&written, "placeholder", "usage"), Some(3), "t4's response, a2, a3");
    let every: u32 = written.diagnostics.iter().map(|d| d.count).sum();
    assert!(every >= 20);

    let lines = written_lines(&written);
    let text = std::str::from_utf8(&written.artifacts[0].bytes).unwrap();
    assert!(!text.contains("thinking"), "no reasoning of another harness is written");
    assert!(!text.contains("I should read it"));
    assert!(!text.contains("You are Codex"));
    assert!(!text.contains("child answer"));
    assert!(!text.contains("msg_from_codex"), "foreign message ids are not kept");
    // Usage as recorded, cache apart; zeros where none was recorded.
    let first = lines.iter().find(|l| l["type"] == "assistant").unwrap();
    assert_eq!(
        first["message"]["usage"],
        json!({"input_tokens": 1200, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 800, "output_tokens": 30})
    );
    assert_eq!(first["message"]["model"], "gpt-5.1-codex");
    assert_eq!(first["gitBranch"], "main");
    assert_eq!(first["timestamp"], "2026-03-01T10:00:02.000Z");
    let inputs: Vec<&Value> = lines
        .iter()
        .filter(|l| l["message"]["content"][0]["type"] == "tool_use")
        .map(|l| &l["message"]["content"][0]["input"])
        .collect();
    assert_eq!(
        inputs,
        [
            &json!({"command": ["cat", "hello.txt"]}),
            &json!({"path": "hello.txt"}),
            &json!({"input": "*** Begin Patch"}),
            &json!({"command": "ls"})
        ]
    );
    // The compaction: a boundary that starts the chain afresh, then the summary.
    let boundary = lines.iter().position(|l| l["subtype"] == "compact_boundary").unwrap();
    assert!(lines[boundary]["parentUuid"].is_null());
    assert_eq!(lines[boundary]["logicalParentUuid"], lines[boundary - 1]["uuid"]);
    assert_eq!(lines[boundary + 1]["isCompactSummary"], true);
    assert_eq!(lines[boundary + 1]["parentUuid"], lines[boundary]["uuid"]);
    // The title survives as Claude Code's title line.
    assert_eq!(lines.last().unwrap()["aiTitle"], "Fix the build");

    // Read back: the conversation, with the repairs.
    let home = home_of(&written);
    let back = read(home.path(), &written.artifacts[0].path);
    let Body::Meta(meta) = &back.records[0].body else { panic!() };
    assert_eq!(meta.title.as_deref(), Some("Fix the build"));
    let said = said(&back.records);
    let renamed = |n: usize| match &said[n] {
        Said::Call(id, ..) => id.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        said,
        [
            Said::User("Read hello.txt".into()),
            Said::Assistant("Reading it.".into()),
            Said::Call("call_1".into(), "shell".into(), json!({"command": ["cat", "hello.txt"]})),
            Said::Call(renamed(3), "functions_read".into(), json!({"path": "hello.txt"})),
            Said::Call("call_3".into(), "apply_patch".into(), json!({"input": "*** Begin Patch"})),
            Said::Result("call_1".into(), "PAPAYA-42".into(), None),
            Said::Result(renamed(3), "PAPAYA-42 again".into(), Some(false)),
            Said::Result("call_3".into(), trajhost_codec_claude_code::write::MISSING_RESULT.into(), Some(false)),
            Said::User("And now?".into()),
            Said::Call(renamed(9), "shell".into(), json!({"command": "ls"})),
            Said::Result(renamed(9), "a b c".into(), Some(true)),
            Said::Assistant("Done.".into()),
            Said::User("Continue".into()),
        ]
    );
    assert!(renamed(3).starts_with("toolu_01") && renamed(9).starts_with("toolu_01"));
    assert_ne!(renamed(3), renamed(9));
    let answers = assistants(&back.records);
    assert_eq!(answers[0].usage.as_ref().unwrap().input, Some(1200));
    assert_eq!(answers[1].usage, None, "placeholder zeros read back as no usage");
    assert_eq!(answers[1].model.as_deref(), Some("gpt-5.1-codex"), "the session's model");
    let compaction = back.records.iter().find_map(|r| match &r.body {
        Body::Compaction { summary, trigger } => Some((summary.as_str(), trigger.clone())),
        _ => None,
    });
    assert_eq!(compaction, Some(("The user asked to read hello.txt; it says PAPAYA-42.", None)));
}

#[test]
fn a_session_without_models_or_times_gets_placeholders() {
    let doc = [
        json!({"id": "m", "kind": "meta", "schema": "trajhost.canonical/0.1", "harness": "toy", "native_id": "t", "cwd": "/w"}),
        json!({"id": "u", "kind": "user", "text": "hi"}),
        json!({"id": "a", "kind": "assistant", "text": "hello"}),
        json!({"id": "z", "kind": "brand_new_kind", "what": 1}),
    ]
    .iter()
    .map(|v| format!("{v}\n"))
    .collect::<String>();
    let written = write(&doc, write_options(None, None));
    assert_resumable(&written);
    assert_eq!(diagnostic(&written, "placeholder", "model"), Some(1));
    assert_eq!(diagnostic(&written, "placeholder", "timestamp"), Some(1));
    assert_eq!(not_carried(&written, "unknown-kind/brand_new_kind"), Some(1));
    let lines = written_lines(&written);
    assert_eq!(lines[1]["message"]["model"], "<synthetic>");
    let (t0, t1) = (lines[0]["timestamp"].as_str().unwrap(), lines[1]["timestamp"].as_str().unwrap());
    assert!(t0 < t1, "synthesized times still increase: {t0} {t1}");
    let home = home_of(&written);
    let back = read(home.path(), &written.artifacts[0].path);
    let answers = assistants(&back.records);
    assert_eq!((answers[0].model.as_deref(), answers[0].usage.as_ref()), (None, None));
}

#[test]
fn claude_codes_own_thinking_is_written_back_with_its_signature() {
    let mut lines = thinking_text_and_a_call();
    lines.extend([
        user_line("u2", Some("a4"), json!([{"type": "tool_result", "tool_use_id": "toolu_1", "content": "X"}])),
        assistant_line("a5", "u2", "msg_2", json!({"type": "thinking", "thinking": "", "signature": "sig2"}), 5),
        assistant_line("a6", "a5", "msg_2", json!({"type": "text", "text": "Done."}), 6),
    ]);
    let dir = synthetic("s1", &lines);
    let first = read(dir.path(), &locator("s1"));
    let written = write(&document(&first.records), write_options(None, None));
    assert_resumable(&written);
    assert_eq!(not_carried(&written, "reasoning"), None, "{:?}", written.diagnostics);
    let blocks: Vec<(String, Value)> = written_lines(&written)
        .iter()
        .filter(|l| l["type"] == "assistant")
        .map(|l| (l["message"]["id"].as_str().unwrap().to_string(), l["message"]["content"][0].clone()))
        .collect();
    let kinds: Vec<(&str, &str)> = blocks.iter().map(|(id, b)| (id.as_str(), b["type"].as_str().unwrap())).collect();
    assert_eq!(
        kinds,
        [
            ("msg_1", "thinking"),
            ("msg_1", "redacted_thinking"),
            ("msg_1", "text"),
            ("msg_1", "tool_use"),
            ("msg_2", "thinking"),
            ("msg_2", "text")
        ]
    );
    assert_eq!(blocks[0].1, json!({"type": "thinking", "thinking": "hmm", "signature": "sig"}));
    assert_eq!(blocks[1].1, json!({"type": "redacted_thinking", "data": "ENC"}));
    assert_eq!(blocks[4].1, json!({"type": "thinking", "thinking": "", "signature": "sig2"}));
    let home = home_of(&written);
    let second = read(home.path(), &written.artifacts[0].path);
    let reasoning = |records: &[Record]| -> Vec<trajhost_codec_sdk::canonical::Reasoning> {
        records
            .iter()
            .filter_map(|r| match &r.body {
                Body::Reasoning(r) => Some(r.clone()),
                _ => None,
            })
            .collect()
    };
    assert_eq!(reasoning(&second.records), reasoning(&first.records));
    assert_eq!(said(&second.records), said(&first.records));
}

// ---------------------------------------------------------------- streaming

/// What a writer driven by hand returned: the pieces before `finish` (one
/// entry per push), the pieces of `finish`, and the result.
struct Pushed {
    per_push: Vec<Vec<u8>>,
    at_finish: Vec<u8>,
    native_id: String,
    diagnostics: Vec<trajhost_codec_sdk::Diagnostic>,
}

impl Pushed {
    fn bytes(&self) -> Vec<u8> {
        let mut all = self.per_push.concat();
        all.extend_from_slice(&self.at_finish);
        all
    }
}

/// Pushes `batches` into a fresh writer, as the host does; every piece must
/// be of the one transcript path.
fn push_batches(batches: &[&str], options: WriteOptions) -> Pushed {
    let mut writer = ClaudeCode::write(options).unwrap();
    let mut path = None;
    let mut take = |chunks: Vec<trajhost_codec_sdk::ArtifactChunk>| {
        let mut bytes = Vec::new();
        for chunk in chunks {
            assert_eq!(path.get_or_insert_with(|| chunk.path.clone()), &chunk.path, "one artifact path");
            bytes.extend_from_slice(&chunk.bytes);
        }
        bytes
    };
    let per_push = batches.iter().map(|batch| take(writer.push(batch).unwrap())).collect();
    let written = writer.finish().unwrap();
    let at_finish = take(written.chunks);
    Pushed { per_push, at_finish, native_id: written.native_id, diagnostics: written.diagnostics }
}

/// `doc` cut at the given line counts.
fn cut(doc: &str, sizes: &[usize]) -> Vec<String> {
    let lines: Vec<&str> = doc.split_inclusive('\n').collect();
    let mut batches = Vec::new();
    let mut at = 0;
    for size in sizes {
        let end = (at + size).min(lines.len());
        batches.push(lines[at..end].concat());
        at = end;
    }
    batches.push(lines[at..].concat());
    batches
}

/// A response with no model before the first that names one, a title line,
/// compaction, thinking from Claude Code.
fn streaming_documents() -> Vec<String> {
    let mut docs: Vec<String> = lab().ids().iter().map(|(s, _)| document(&lab().read(s).records)).collect();
    docs.push(document(&foreign_session()));
    docs.push(document(&read_of(&shapes_home(), &shapes_locators().0).records));
    let late_model = [
        json!({"id": "m", "kind": "meta", "schema": "trajhost.canonical/0.1", "harness": "toy", "native_id": "t", "cwd": "/w", "title": "A toy"}),
        json!({"id": "u", "kind": "user", "text": "hi"}),
        json!({"id": "a", "kind": "assistant", "text": "no model here"}),
        json!({"id": "c", "kind": "tool_call", "call_id": "c1", "name": "ls", "arguments": {}}),
        json!({"id": "r", "kind": "tool_result", "call_id": "c1", "content": "x", "ok": true}),
        json!({"id": "u2", "kind": "user", "text": "again", "ts": "2026-03-01T10:00:00.000Z"}),
        json!({"id": "a2", "kind": "assistant", "text": "now one", "model": "toy-1"}),
        json!({"id": "u3", "kind": "user", "text": "bye"}),
        json!({"id": "a3", "kind": "assistant", "text": "bye"}),
    ];
    docs.push(late_model.iter().map(|v| format!("{v}\n")).collect());
    docs
}

#[test]
fn pushing_in_any_batches_gives_the_same_bytes() {
    for doc in streaming_documents() {
        let n = doc.lines().count();
        let whole = push_batches(&[&doc], write_options(None, None));
        assert!(!whole.bytes().is_empty());
        let one_per_push = cut(&doc, &vec![1; n]);
        let uneven = cut(&doc, &[1, n / 2, n / 4]);
        let by_sdk = write(&doc, write_options(None, None));
        for batches in [one_per_push, uneven] {
            let batches: Vec<&str> = batches.iter().map(String::as_str).collect();
            let pushed = push_batches(&batches, write_options(None, None));
            assert_eq!(pushed.native_id, whole.native_id);
            assert_eq!(
                String::from_utf8(pushed.bytes()).unwrap(),
                String::from_utf8(whole.bytes()).unwrap(),
                "batches of {:?} lines",
                batches.iter().map(|b| b.lines().count()).collect::<Vec<_>>()
            );
            assert_eq!(format!("{:?}", pushed.diagnostics), format!("{:?}", whole.diagnostics));
        }
        assert_eq!(by_sdk.artifacts[0].bytes, whole.bytes());
        assert_eq!(format!("{:?}", by_sdk.diagnostics), format!("{:?}", whole.diagnostics));
    }
    // The response without a model took the session's first.
    let late_model = streaming_documents().pop().unwrap();
    let written = write(&late_model, write_options(None, None));
    assert_resumable(&written);
    let models: Vec<String> = written_lines(&written)
        .iter()
        .filter(|l| l["type"] == "assistant")
        .map(|l| l["message"]["model"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(models, ["toy-1", "toy-1", "toy-1", "toy-1"]);
    assert_eq!(diagnostic(&written, "placeholder", "model"), None);
    assert_eq!(written_lines(&written).last().unwrap()["type"], "ai-title");
}

/// `turns` turns of a prompt, a response with a call, its result and an
/// answer of `answer_bytes`, one batch per turn after the meta.
fn long_session(turns: usize, answer_bytes: usize) -> Vec<String> {
    let meta = json!({"id": "m", "kind": "meta", "schema": "trajhost.canonical/0.1", "harness": "codex",
        "native_id": "019a0000-0000-7000-8000-000000000001", "cwd": "/w", "started_at": "2026-03-01T10:00:00.000Z"});
    let mut batches = vec![format!("{meta}\n")];
    for t in 0..turns {
        let ts = |s: usize| format!("2026-03-01T{:02}:{:02}:{:02}.000Z", 10 + t / 900, (t / 15) % 60, (t % 15) * 4 + s);
        let lines = [
            json!({"id": format!("u{t}"), "kind": "user", "text": format!("prompt {t}"), "ts": ts(0)}),
            json!({"id": format!("a{t}"), "kind": "assistant", "text": "Looking.", "model": "gpt-5.1-codex", "ts": ts(1),
                "usage": {"input": 10, "output": 2}}),
            json!({"id": format!("c{t}"), "kind": "tool_call", "call_id": format!("call_{t}"), "name": "shell",
                "arguments": {"command": "ls"}, "ts": ts(1)}),
            json!({"id": format!("r{t}"), "kind": "tool_result", "call_id": format!("call_{t}"), "content": "a b c",
                "ok": true, "ts": ts(2)}),
            json!({"id": format!("f{t}"), "kind": "assistant", "text": "x".repeat(answer_bytes), "model": "gpt-5.1-codex",
                "ts": ts(3)}),
        ];
        batches.push(lines.iter().map(|v| format!("{v}\n")).collect());
    }
    batches
}

#[test]
fn each_push_hands_back_what_it_completed() {
    let turns = 200;
    let batches = long_session(turns, 2000);
    let refs: Vec<&str> = batches.iter().map(String::as_str).collect();
    let pushed = push_batches(&refs, write_options(None, None));
    let all = pushed.bytes();
    let whole = push_batches(&[&batches.concat()], write_options(None, None));
    assert_eq!(all, whole.bytes());
    // The meta alone writes nothing; each turn after the first completes
    // the previous answer and writes its own prompt, call and result: all
    // that is left is the open answer.
    assert!(pushed.per_push[0].is_empty());
    let line_ends: Vec<usize> = all.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i + 1).collect();
    let mut returned = 0;
    for (n, piece) in pushed.per_push.iter().enumerate().skip(1) {
        returned += piece.len();
        // Everything of the first n turns but the last answer's line.
        assert_eq!(returned, line_ends[5 * n - 2], "after turn {n}");
    }
    assert_eq!(std::str::from_utf8(&pushed.at_finish).unwrap().lines().count(), 1, "the last answer");
    let written = write(&batches.concat(), write_options(None, None));
    assert_resumable(&written);
    assert_eq!(written_lines(&written).len(), turns * 5);
}

#[test]
fn records_are_held_only_so_long() {
    // No model anywhere: the records are held up to MAX_HELD_BYTES, then
    // written with the placeholder model, and streamed from there on.
    let meta = json!({"id": "m", "kind": "meta", "schema": "trajhost.canonical/0.1", "harness": "toy",
        "native_id": "t", "cwd": "/w", "started_at": "2026-03-01T10:00:00.000Z"});
    let mut batches = vec![format!("{meta}\n")];
    let text = "y".repeat(64 << 10);
    let records = trajhost_codec_claude_code::write::MAX_HELD_BYTES / text.len() + 40;
    for n in 0..records {
        let prompt = json!({"id": format!("u{n}"), "kind": "user", "text": format!("prompt {n}")});
        let answer = json!({"id": format!("a{n}"), "kind": "assistant", "text": text});
        batches.push(format!("{prompt}\n{answer}\n"));
    }
    let refs: Vec<&str> = batches.iter().map(String::as_str).collect();
    let pushed = push_batches(&refs, write_options(None, None));
    let first = pushed.per_push.iter().position(|p| !p.is_empty()).expect("pieces before the end");
    assert!(first < records, "written from batch {first} of {}", records + 1);
    assert!(pushed.per_push.last().unwrap().len() > text.len(), "streaming once past the limit");
    let whole = push_batches(&[&batches.concat()], write_options(None, None));
    assert_eq!(pushed.bytes(), whole.bytes());
    let models = String::from_utf8(pushed.bytes()).unwrap().matches(r#""model":"<synthetic>""#).count();
    assert_eq!(models, records);
    let placeholder = pushed.diagnostics.iter().find(|d| d.code == "placeholder" && d.detail == "model");
    assert_eq!(placeholder.map(|d| d.count), Some(records as u32));
}

// ---------------------------------------------------------------- prepare

#[test]
fn prepare_plans_the_file_in_the_project_of_the_cwd() {
    let doc = document(&lab().read("simple").records);
    let written = write(&doc, write_options(None, None));
    let target = tempfile::tempdir().unwrap();
    let plan = trajhost_codec_sdk::prepare_artifacts::<ClaudeCode>(
        written.artifacts.clone(),
        &Dir::native(target.path()),
        write_options(None, None),
    )
    .unwrap();
    assert_eq!(plan.native_id, written.native_id);
    assert_eq!(plan.operations.len(), 1);
    let Operation::CreateFile(file) = &plan.operations[0] else { panic!() };
    assert_eq!(file.path, format!("{PROJECT}/{}.jsonl", written.native_id));
    assert_eq!(file.bytes, written.artifacts[0].bytes, "same cwd: the bytes as written");
    assert_eq!(
        plan.resume_command.as_deref(),
        Some(format!("cd /home/user/project && claude -p --resume {} \"<prompt>\"", written.native_id).as_str())
    );
    kit::apply_new_files(&plan, target.path());
    let found = ClaudeCode::discover(&Dir::native(target.path())).unwrap();
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].native_id, written.native_id);
    assert_eq!(found.sessions[0].cwd.as_deref(), Some("/home/user/project"));

    // Installed once: a second plan names the file and fails.
    let err = trajhost_codec_sdk::prepare_artifacts::<ClaudeCode>(
        written.artifacts.clone(),
        &Dir::native(target.path()),
        write_options(None, None),
    )
    .unwrap_err();
    assert!(matches!(&err, CodecError::Other(m) if m.contains(&file.path) && m.contains("exists")), "{err:?}");
    // Under another cwd too: the id would be ambiguous.
    let err = trajhost_codec_sdk::prepare_artifacts::<ClaudeCode>(
        written.artifacts.clone(),
        &Dir::native(target.path()),
        write_options(Some("/elsewhere"), None),
    )
    .unwrap_err();
    assert!(matches!(&err, CodecError::Other(m) if m.contains(&file.path)), "{err:?}");
    // A native id that is not the transcript's.
    let err = trajhost_codec_sdk::prepare_artifacts::<ClaudeCode>(
        written.artifacts.clone(),
        &Dir::native(tempfile::tempdir().unwrap().path()),
        write_options(None, Some("0f0e0d0c-0b0a-4908-8706-050403020100")),
    )
    .unwrap_err();
    assert!(matches!(err, CodecError::Malformed(_)));
    // Artifacts that are not a transcript under .claude/projects.
    let mut odd = written.artifacts.clone();
    odd[0].path = format!("../{}", odd[0].path);
    assert!(
        trajhost_codec_sdk::prepare_artifacts::<ClaudeCode>(
            odd,
            &Dir::native(target.path()),
            write_options(None, None)
        )
        .is_err()
    );
}

#[test]
fn prepare_moves_a_session_to_another_cwd() {
    let doc = document(&lab().read("parallel").records);
    let written = write(&doc, write_options(None, None));
    let target = tempfile::tempdir().unwrap();
    let cwd = "/home/someone/my_app";
    let plan = trajhost_codec_sdk::prepare_artifacts::<ClaudeCode>(
        written.artifacts.clone(),
        &Dir::native(target.path()),
        write_options(Some(cwd), None),
    )
    .unwrap();
    let Operation::CreateFile(file) = &plan.operations[0] else { panic!() };
    assert_eq!(file.path, format!(".claude/projects/-home-someone-my-app/{}.jsonl", written.native_id));
    assert_eq!(
        plan.resume_command.as_deref(),
        Some(format!("cd /home/someone/my_app && claude -p --resume {} \"<prompt>\"", written.native_id).as_str())
    );
    let text = std::str::from_utf8(&file.bytes).unwrap();
    for line in text.lines() {
        let line: Value = serde_json::from_str(line).unwrap();
        if line["uuid"].is_string() {
            assert_eq!(line["cwd"], cwd);
        }
    }
    // Only the envelope moved: the conversation's own paths are as they were.
    assert!(text.contains("/home/user/project/second.txt"));
    kit::apply_new_files(&plan, target.path());
    let found = ClaudeCode::discover(&Dir::native(target.path())).unwrap();
    assert_eq!(found.sessions[0].cwd.as_deref(), Some(cwd));
    let back = read(target.path(), &file.path);
    assert_eq!(said(&back.records), said(&lab().read("parallel").records));
}

#[test]
fn inline_sidechain_lines_of_older_builds_are_not_the_main_conversation() {
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/claude-code/1.0-inline-sidechain/home");
    let locator = ".claude/projects/-home-user-old/7d0a11e2-3c4b-4f5a-8b9c-0d1e2f3a4b5c.jsonl";
    let read = kit::conformance::<ClaudeCode>(&home, locator, Spans::Lines);
    assert_eq!(users(&read.records), ["Audit the logging setup"]);
    let texts: Vec<&str> =
        assistants(&read.records).iter().map(|a| a.text.as_str()).filter(|t| !t.is_empty()).collect();
    assert_eq!(texts, ["The project logs through env_logger."]);
    assert_eq!(tool_calls(&read.records).len(), 1);
    assert_eq!(tool_results(&read.records), [("toolu_task", "Logging uses env_logger.", None)]);
    assert_eq!(read.diag("inline-sidechain-line").unwrap().count, 2);
    // A subagent's own file is all sidechain: every line is read.
    let (_, sub, _) = shapes_locators();
    let child = read_of(&shapes_home(), &sub);
    assert!(child.diag("inline-sidechain-line").is_none());
    assert_eq!(users(&child.records).len(), 1);
}

fn read_of(home: &Path, locator: &str) -> Read {
    kit::read::<ClaudeCode>(home, locator)
}

// ---------------------------------------------------------------- branches

#[test]
fn a_rewound_prompt_leaves_an_unchosen_branch_and_the_lab_sessions_have_none() {
    for (scenario, _) in lab().ids() {
        let read = lab().read(scenario);
        assert!(read.diag("unchosen-branch").is_none(), "{scenario}: {:?}", read.diagnostics);
    }
    // Rewind: a new prompt hangs off the first prompt's parent, so the old
    // continuation (up to its last assistant line) is a second leaf.
    let home = lab().copy("simple");
    let file = home.path().join(locator(lab().id("simple")));
    let lines: Vec<Value> = raw_lines(&file);
    let first_prompt = lines.iter().find(|l| l["type"] == "user" && l["message"]["content"].is_string()).unwrap();
    let mut rewound = first_prompt.clone();
    rewound["uuid"] = json!("0fd1c3a2-0000-4000-8000-000000000001");
    rewound["message"]["content"] = json!("Actually, read world.txt instead.");
    let mut text: String = std::fs::read_to_string(&file).unwrap();
    text.push_str(&format!("{rewound}\n"));
    std::fs::write(&file, text).unwrap();
    let read = read(home.path(), &locator(lab().id("simple")));
    let branch = read.diag("unchosen-branch").expect("an unchosen-branch diagnostic");
    assert_eq!(branch.severity, Severity::Warning);
    let last_answer = lines.iter().rposition(|l| l["type"] == "assistant").unwrap();
    let offset: u64 =
        std::fs::read_to_string(&file).unwrap().lines().take(last_answer).map(|l| l.len() as u64 + 1).sum();
    assert_eq!(branch.offset, Some(offset), "the old branch ends at the last answer before the rewind");
}
