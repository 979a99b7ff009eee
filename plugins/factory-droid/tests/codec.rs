//! What is particular to Factory Droid's sessions, against sessions written
//! by the real Droid CLI (fixtures/factory-droid/0.225.1) and synthetic
//! lines. What every codec must do is the testkit's suite, in
//! tests/conformance.rs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_factory_droid::FactoryDroid;
use trajhost_codec_sdk::Codec;
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_testkit::suite::Lab;
use trajhost_codec_testkit::{
    self as kit, Read, Spans, assistants, observations, raw_lines, tool_calls, tool_results, users,
};

const PROJECT: &str = ".factory/sessions/-home-user-project";
const CWD: &str = "/home/user/project";

/// The lab fixtures, as tests/conformance.json names them.
fn lab() -> Lab<FactoryDroid> {
    Lab::new(include_str!("conformance.json"))
}

fn locator(id: &str) -> String {
    format!("{PROJECT}/{id}.jsonl")
}

fn read(home: &Path, locator: &str) -> Read {
    kit::read::<FactoryDroid>(home, locator)
}

// ---------------------------------------------------------------- info

// ---------------------------------------------------------------- discover

#[test]
fn discover_reports_oddities() {
    let dir = lab().copy("simple");
    let project = dir.path().join(PROJECT);
    std::fs::write(project.join("00000000-0000-0000-0000-000000000000.jsonl"), "").unwrap();
    std::fs::write(project.join("11111111-0000-0000-0000-000000000000.jsonl"), "{\"type\":\"todo_state\"}\n").unwrap();
    std::fs::write(project.join("notes.txt"), "x").unwrap();
    std::fs::create_dir(project.join("stray")).unwrap();
    std::fs::write(dir.path().join(".factory/sessions/loose.jsonl"), "{}").unwrap();
    let found = FactoryDroid::discover(&Dir::native(dir.path())).unwrap();
    assert_eq!(found.sessions.len(), 1, "{:?}", found.sessions);
    let at = |name: &str| format!("{PROJECT}/{name}");
    let expected = [
        ("empty-session-file", at("00000000-0000-0000-0000-000000000000.jsonl")),
        ("malformed-head", at("11111111-0000-0000-0000-000000000000.jsonl")),
        ("unrecognized-file", at("notes.txt")),
        ("unrecognized-file", at("stray")),
        ("unrecognized-file", ".factory/sessions/loose.jsonl".to_string()),
    ];
    kit::check_named_files(&found.diagnostics, &expected);
}

// ---------------------------------------------------------------- read

#[test]
fn a_reminder_before_the_prompt_is_context() {
    let read = lab().read("simple");
    let obs = observations(&read.records);
    assert_eq!(obs.len(), 1);
    assert_eq!(obs[0].0, "context");
    assert!(obs[0].1.unwrap().starts_with("<system-reminder>"));
    for a in assistants(&read.records) {
        assert!(a.message_id.as_deref().unwrap().starts_with("chatcmpl-lab"), "the provider's response id");
    }
}

#[test]
fn two_results_in_one_message_are_two_records_with_their_own_ids() {
    let read = lab().read("parallel");
    let ids: Vec<&str> =
        read.records.iter().filter(|r| matches!(r.body, Body::ToolResult { .. })).map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["00a7feea-0829-4698-8ca4-a361db5c1cee", "00a7feea-0829-4698-8ca4-a361db5c1cee#1"]);
}

/// The suite checks the line types; here, the content blocks.
#[test]
fn fixture_content_blocks_are_the_four_the_codec_maps() {
    let mut blocks = BTreeSet::new();
    for (scenario, id) in lab().ids() {
        for line in raw_lines(&lab().home(scenario).join(locator(id))) {
            for block in line["message"]["content"].as_array().into_iter().flatten() {
                blocks.insert(format!(
                    "{}/{}",
                    line["message"]["role"].as_str().unwrap(),
                    block["type"].as_str().unwrap()
                ));
            }
        }
    }
    assert_eq!(
        blocks,
        BTreeSet::from(["user/text", "user/tool_result", "assistant/text", "assistant/tool_use"].map(String::from))
    );
}

// ---------------------------------------------------------------- damage

// ---------------------------------------------------------------- synthetic shapes

const SID: &str = "s1";

fn synthetic(lines: &[Value]) -> tempfile::TempDir {
    kit::home_with_lines(&locator(SID), lines)
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

// ---------------------------------------------------------------- write

use trajhost_codec_sdk::canonical::Record;
use trajhost_codec_sdk::target::{self, TargetChoice};
use trajhost_codec_sdk::{CodecError, Operation, Plan, WriteOptions, WrittenFiles};

fn no_options() -> WriteOptions {
    WriteOptions { cwd: None, native_id: None, home_path: None }
}

fn write(document: &str, options: WriteOptions) -> WrittenFiles {
    kit::suite::write::<FactoryDroid>(document, options)
}

fn transcript(written: &WrittenFiles) -> &trajhost_codec_sdk::Artifact {
    written.artifacts.iter().find(|a| a.path.ends_with(".jsonl")).expect("a transcript")
}

fn settings_of(written: &WrittenFiles) -> Value {
    let a = written.artifacts.iter().find(|a| a.path.ends_with(".settings.json")).expect("a settings file");
    serde_json::from_slice(&a.bytes).unwrap()
}

/// Puts written artifacts into a fresh home and reads the transcript back.
fn read_back(written: &WrittenFiles) -> (tempfile::TempDir, Read) {
    kit::read_installed::<FactoryDroid>(written, &transcript(written).path)
}

/// Records without `src` (the byte locations of another file).
fn without_src(records: &[Record]) -> Vec<Record> {
    records
        .iter()
        .skip(1)
        .cloned()
        .map(|mut r| {
            r.src = None;
            r
        })
        .collect()
}

/// The suite round-trips every record; here, the files it goes in.
#[test]
fn a_written_session_is_a_transcript_and_a_settings_file_with_its_model() {
    for (scenario, _) in lab().ids() {
        let written = write(&lab().read(scenario).document, no_options());
        assert_eq!(transcript(&written).path, format!("{PROJECT}/{}.jsonl", written.native_id));
        assert!(written.diagnostics.is_empty(), "{scenario}: nothing lost: {:?}", written.diagnostics);
        assert_eq!(settings_of(&written)["model"], "custom:Fake-0", "{scenario}");
    }
}

#[test]
fn write_names_the_chosen_id_and_cwd_and_refuses_a_bad_id() {
    let source = lab().read("simple");
    let chosen = "7f000000-0000-4000-8000-000000000001";
    let w = write(
        &source.document,
        WriteOptions { cwd: Some("/srv/other app".into()), native_id: Some(chosen.into()), home_path: None },
    );
    assert_eq!(w.native_id, chosen);
    assert_eq!(transcript(&w).path, format!(".factory/sessions/-srv-other app/{chosen}.jsonl"));
    let first: Value = raw_first_line(&transcript(&w).bytes);
    assert_eq!(
        first,
        json!({"type": "session_start", "id": chosen, "title": "Read hello.txt and tell me the secret word.", "owner": "", "version": 2, "cwd": "/srv/other app"})
    );
    let err = trajhost_codec_sdk::write_document::<FactoryDroid>(
        &source.document,
        WriteOptions { native_id: Some("not-a-uuid".into()), ..no_options() },
    )
    .unwrap_err();
    assert!(matches!(err, CodecError::Other(_)), "{err:?}");
    // No cwd anywhere: refused.
    let doc = r#"{"id":"u","kind":"user","text":"hi"}"#;
    let err = trajhost_codec_sdk::write_document::<FactoryDroid>(doc, no_options()).unwrap_err();
    assert!(matches!(err, CodecError::Malformed(_)), "{err:?}");
}

fn raw_first_line(bytes: &[u8]) -> Value {
    serde_json::from_str(std::str::from_utf8(bytes).unwrap().lines().next().unwrap()).unwrap()
}

fn foreign_document() -> String {
    [
        json!({"id": "m", "kind": "meta", "schema": "trajhost.canonical/0.1", "harness": "other", "native_id": "s1",
               "cwd": CWD, "title": "Fix it", "git_branch": "main", "started_at": "2026-11-30T04:00:00Z"}),
        json!({"id": "sys", "kind": "system", "text": "You are an agent."}),
        json!({"id": "ctx", "kind": "observation", "subtype": "context", "text": "<env>linux</env>", "ts": "2026-11-30T04:00:00Z"}),
        json!({"id": "u1", "kind": "user", "text": "Read a.txt", "attachments": [{"kind": "image", "media_type": "image/png"}], "ts": "2026-11-30T04:00:01Z"}),
        json!({"id": "r1", "kind": "reasoning", "text": "Look at the file.", "opaque": "sig-of-other", "encrypted": false, "ts": "2026-11-30T04:00:02Z"}),
        json!({"id": "r2", "kind": "reasoning", "opaque": "gAAAA", "encrypted": true, "ts": "2026-11-30T04:00:02Z"}),
        json!({"id": "a1", "kind": "assistant", "text": "Reading.", "model": "gpt-x", "message_id": "resp_1",
               "stop_reason": "tool_use", "usage": {"input": 10, "output": 5, "cache_read": 2, "cost_usd": 0.1}, "ts": "2026-11-30T04:00:03Z"}),
        json!({"id": "c1", "kind": "tool_call", "call_id": "call_1", "name": "Read", "arguments": {"path": "a.txt"}, "parent": "a1", "ts": "2026-11-30T04:00:03Z"}),
        json!({"id": "c2", "kind": "tool_call", "call_id": "call_2", "name": "Bash", "arguments": "ls", "parent": "a1", "ts": "2026-11-30T04:00:03Z"}),
        json!({"id": "t1", "kind": "tool_result", "call_id": "call_1", "content": "A-1", "ok": true, "ts": "2026-11-30T04:00:04Z"}),
        json!({"id": "t2", "kind": "tool_result", "call_id": "call_2", "content": "a.txt", "ts": "2026-11-30T04:00:04Z"}),
        json!({"id": "t3", "kind": "tool_result", "call_id": "nobody", "content": "?", "ts": "2026-11-30T04:00:04Z"}),
        json!({"id": "o1", "kind": "observation", "subtype": "mode", "text": "plan"}),
        json!({"id": "x1", "kind": "user", "text": "sub", "agent": "child-1"}),
        json!({"id": "a2", "kind": "assistant", "text": "A-1 it is.", "model": "gpt-x", "ts": "2026-11-30T04:00:05Z"}),
        json!({"id": "k1", "kind": "compaction", "summary": "Earlier: read a.txt", "ts": "2026-11-30T04:00:06Z"}),
        json!({"id": "z1", "kind": "hologram"}),
    ]
    .iter()
    .map(|v| v.to_string() + "\n")
    .collect()
}

#[test]
fn write_from_another_harness_names_what_does_not_carry() {
    let written = write(&foreign_document(), no_options());
    let count =
        |code: &str, detail: &str| kit::diag_with(&written.diagnostics, code, detail).map(|d| d.count).unwrap_or(0);
    for (detail, n) in [
        ("system-prompt", 1),
        ("attachments", 1),
        ("opaque-reasoning", 1),
        ("stop-reason", 1),
        ("usage-per-response", 1),
        ("usage.cost_usd", 1),
        ("orphan-tool-result", 1),
        ("observation/mode", 1),
        ("subagent-transcript", 1),
        ("git-branch", 1),
        ("unknown-kind/hologram", 1),
    ] {
        assert_eq!(count("not-carried", detail), n, "{detail}: {:?}", written.diagnostics);
    }
    assert_eq!(count("untranslated-reasoning", "encrypted reasoning"), 1);
    assert_eq!(count("reshaped", "tool-arguments"), 1);
    // Usage totals go to the settings file; a foreign model does not.
    let settings = settings_of(&written);
    assert_eq!(settings["tokenUsage"]["inputTokens"], 10);
    assert_eq!(settings["tokenUsage"]["cacheReadTokens"], 2);
    assert!(settings.get("model").is_none(), "{settings}");

    let (_tmp, back) = read_back(&written);
    assert!(back.diagnostics.is_empty(), "{:?}", back.diagnostics);
    assert_eq!(users(&back.records), ["Read a.txt"]);
    assert_eq!(observations(&back.records), [("context", Some("<env>linux</env>"))]);
    let texts: Vec<_> = assistants(&back.records).iter().map(|a| (a.text.as_str(), a.model.as_deref())).collect();
    assert_eq!(texts, [("Reading.", Some("gpt-x")), ("A-1 it is.", Some("gpt-x"))]);
    assert_eq!(assistants(&back.records)[0].message_id.as_deref(), Some("resp_1"));
    let reasoning = kit::reasonings(&back.records);
    assert_eq!(reasoning.len(), 1);
    assert_eq!((reasoning[0].text.as_deref(), reasoning[0].opaque.as_deref()), (Some("Look at the file."), None));
    let calls: Vec<_> =
        tool_calls(&back.records).into_iter().map(|(id, n, a)| (id.to_string(), n.to_string(), a.clone())).collect();
    assert_eq!(
        calls,
        [
            ("call_1".to_string(), "Read".to_string(), json!({"path": "a.txt"})),
            ("call_2".to_string(), "Bash".to_string(), json!({"arguments": "ls"}))
        ]
    );
    assert_eq!(tool_results(&back.records), [("call_1", "A-1", Some(true)), ("call_2", "a.txt", None)]);
    let summaries: Vec<_> = back
        .records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Compaction { summary, .. } => Some(summary.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(summaries, ["Earlier: read a.txt"]);
    // One response: reasoning, text, both calls; their results in one message.
    let lines = raw_lines_of(&transcript(&written).bytes);
    let kinds: Vec<String> = lines
        .iter()
        .map(|l| {
            let blocks = l["message"]["content"]
                .as_array()
                .map(|b| b.iter().map(|b| b["type"].as_str().unwrap().to_string()).collect::<Vec<_>>().join("+"));
            format!("{}:{}", l["type"].as_str().unwrap(), blocks.unwrap_or_default())
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "session_start:",
            "message:text",
            "message:text",
            "message:thinking+text+tool_use+tool_use",
            "message:tool_result+tool_result",
            "message:text",
            "compaction_state:",
        ]
    );
    assert!(lines[1]["id"].as_str().unwrap().starts_with("context-"));
    assert_eq!(lines[1]["message"]["visibility"], "llm_only");
    // A chain: each message names the one before.
    for pair in lines[1..6].windows(2) {
        assert_eq!(pair[1]["parentId"], pair[0]["id"]);
    }
    assert!(lines[1].get("parentId").is_none());
    // The compaction replaces the five messages before it, as Droid anchors one.
    let compaction = &lines[6];
    assert_eq!(compaction["summaryText"], "Earlier: read a.txt");
    assert_eq!(compaction["anchorMessage"], json!({"id": lines[5]["id"], "index": 4}));
    assert_eq!(compaction["removedCount"], 5);
    assert_eq!(compaction["summaryKind"], "llm_summary");
}

fn raw_lines_of(bytes: &[u8]) -> Vec<Value> {
    std::str::from_utf8(bytes).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

// ---------------------------------------------------------------- prepare

const HOME_PATH: &str = "/home/user";

/// A fresh home seeded with the lab's Droid settings (a custom model).
fn fresh_home() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join(".factory")).unwrap();
    std::fs::copy(lab().home("simple").join(".factory/settings.json"), tmp.path().join(".factory/settings.json"))
        .unwrap();
    tmp
}

fn prepare_in(written: &WrittenFiles, target: &Path, choice: TargetChoice) -> Result<Plan, CodecError> {
    target::set_for_tests(choice);
    let options =
        WriteOptions { cwd: None, native_id: Some(written.native_id.clone()), home_path: Some(HOME_PATH.into()) };
    trajhost_codec_sdk::prepare_artifacts::<FactoryDroid>(written.artifacts.clone(), &Dir::native(target), options)
}

/// Executes a plan the way the host does.
fn files_of(plan: &Plan) -> Vec<(&str, &[u8])> {
    plan.operations
        .iter()
        .map(|op| match op {
            Operation::CreateFile(f) => (f.path.as_str(), f.bytes.as_slice()),
            other => panic!("{other:?}"),
        })
        .collect()
}

#[test]
fn prepare_into_a_fresh_home_uses_its_model_and_resumes_by_id() {
    let written = write(&foreign_document(), no_options());
    let target = fresh_home();
    let plan = prepare_in(&written, target.path(), TargetChoice::default()).unwrap();
    let id = &written.native_id;
    assert_eq!(&plan.native_id, id);
    let files = files_of(&plan);
    assert_eq!(
        files.iter().map(|(p, _)| p.to_string()).collect::<Vec<_>>(),
        [format!("{PROJECT}/{id}.jsonl"), format!("{PROJECT}/{id}.settings.json")]
    );
    let settings: Value = serde_json::from_slice(files[1].1).unwrap();
    assert_eq!(settings["model"], "custom:Fake-0");
    assert_eq!(settings["providerLock"], "generic-chat-completion-api");
    assert_eq!(settings["tokenUsage"]["outputTokens"], 5);
    // Credentials are never copied.
    for (path, bytes) in &files {
        assert!(kit::find(bytes, b"dummy").is_none() && kit::find(bytes, b"apiKey").is_none(), "{path}");
    }
    // The owner is the target user.
    assert_eq!(raw_first_line(files[0].1)["owner"], "user");
    assert_eq!(
        plan.resume_command.as_deref(),
        Some(format!("cd /home/user/project && droid exec -m custom:Fake-0 -s {id} \"<prompt>\"").as_str())
    );
    kit::apply_new_files(&plan, target.path());
    let found = kit::discover::<FactoryDroid>(target.path());
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(&found.sessions[0].native_id, id);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    let back = read(target.path(), &found.sessions[0].locator);
    assert_eq!(users(&back.records), ["Read a.txt"]);
    // A second prepare of the same session is refused.
    let err = prepare_in(&written, target.path(), TargetChoice::default()).unwrap_err();
    assert!(matches!(&err, CodecError::Other(m) if m.contains("already has this session")), "{err:?}");
}

/// The suite prepares beside other sessions; a session's own id is refused
/// where it already is, naming it.
#[test]
fn prepare_refuses_a_session_already_in_the_home() {
    for (scenario, other_id) in lab().ids() {
        let target = lab().copy(scenario);
        let own = WriteOptions { native_id: Some(other_id.into()), ..no_options() };
        let again = write(&lab().read(scenario).document, own);
        let err = prepare_in(&again, target.path(), TargetChoice::default()).unwrap_err();
        assert!(matches!(&err, CodecError::Other(m) if m.contains(other_id)), "{scenario}: {err:?}");
    }
}

#[test]
fn prepare_honours_or_refuses_the_users_choice() {
    let written = write(&foreign_document(), no_options());
    let target = fresh_home();
    let choose = |model: Option<&str>, provider: Option<&str>| {
        let choice = TargetChoice {
            model: model.map(str::to_string),
            provider: provider.map(str::to_string),
            allow_untested: false,
        };
        prepare_in(&written, target.path(), choice)
    };
    let model_of =
        |plan: &Plan| -> Value { serde_json::from_slice::<Value>(files_of(plan)[1].1).unwrap()["model"].clone() };
    // By id, by model name, by display name, by provider.
    for (model, provider) in [
        (Some("custom:Fake-0"), None),
        (Some("fake-model"), None),
        (Some("Fake"), Some("generic-chat-completion-api")),
        (None, Some("generic-chat-completion-api")),
    ] {
        let plan = choose(model, provider).unwrap_or_else(|e| panic!("{model:?} {provider:?}: {e:?}"));
        assert_eq!(model_of(&plan), "custom:Fake-0");
    }
    // A Factory model by name: no provider lock, the name in the command.
    let plan = choose(Some("claude-opus-4-1"), None).unwrap();
    assert_eq!(model_of(&plan), "claude-opus-4-1");
    assert!(serde_json::from_slice::<Value>(files_of(&plan)[1].1).unwrap().get("providerLock").is_none());
    assert!(plan.resume_command.unwrap().contains("droid exec -m claude-opus-4-1 -s "));
    // What the target cannot honour is refused.
    for (model, provider) in [
        (Some("custom:Other-3"), None),
        (None, Some("anthropic")),
        (Some("claude-opus-4-1"), Some("anthropic")),
        (Some(" x"), None),
    ] {
        let err = choose(model, provider).unwrap_err();
        assert!(matches!(err, CodecError::Other(_)), "{model:?} {provider:?}: {err:?}");
    }
    // A home configured with nothing: a foreign session names no model.
    let empty = tempfile::tempdir().unwrap();
    target::set_for_tests(TargetChoice::default());
    let options = WriteOptions { cwd: Some("/w".into()), native_id: None, home_path: None };
    let plan = trajhost_codec_sdk::prepare_artifacts::<FactoryDroid>(
        written.artifacts.clone(),
        &Dir::native(empty.path()),
        options,
    )
    .unwrap();
    let files = files_of(&plan);
    assert_eq!(files[0].0, format!(".factory/sessions/-w/{}.jsonl", written.native_id));
    assert_eq!(raw_first_line(files[0].1)["cwd"], "/w", "the cwd moves with the file");
    assert_eq!(raw_first_line(files[0].1)["owner"], "");
    assert!(serde_json::from_slice::<Value>(files[1].1).unwrap().get("model").is_none());
    assert_eq!(
        plan.resume_command.as_deref(),
        Some(format!("cd /w && droid exec -s {} \"<prompt>\"", written.native_id).as_str())
    );
    // The transcript's lines after session_start are the written bytes.
    let tail = |b: &[u8]| b[b.iter().position(|c| *c == b'\n').unwrap()..].to_vec();
    assert_eq!(tail(files[0].1), tail(&transcript(&written).bytes));
}

#[test]
fn a_compacted_session_with_thinking_round_trips_and_keeps_its_anchor() {
    // fixtures/factory-droid/compaction (hand-written).
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/factory-droid/compaction/home");
    let id = "5b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9";
    let source = read(&home, &format!(".factory/sessions/-work-app/{id}.jsonl"));
    assert!(source.diagnostics.is_empty(), "{:?}", source.diagnostics);
    assert_eq!(
        kit::kinds(&source.records),
        [
            "meta",
            "user",
            "reasoning",
            "assistant",
            "tool_call",
            "tool_result",
            "assistant",
            "compaction",
            "user",
            "reasoning",
            "assistant"
        ]
    );
    let reasoning = kit::reasonings(&source.records);
    assert_eq!((reasoning[0].opaque.as_deref(), reasoning[1].encrypted), (Some("c2lnLTE="), true));
    let written = write(&source.document, no_options());
    assert!(written.diagnostics.is_empty(), "{:?}", written.diagnostics);
    let (_tmp, back) = read_back(&written);
    assert_eq!(without_src(&back.records), without_src(&source.records));
    let lines = raw_lines_of(&transcript(&written).bytes);
    let compaction = lines.iter().find(|l| l["type"] == "compaction_state").unwrap();
    let original = &raw_lines(&home.join(format!(".factory/sessions/-work-app/{id}.jsonl")))[5];
    for key in ["id", "timestamp", "summaryText", "anchorMessage", "removedCount", "summaryKind"] {
        assert_eq!(compaction[key], original[key], "{key}");
    }
    assert_eq!(settings_of(&written)["model"], "claude-sonnet-4-5-20250929");
}

/// Droid 0.225 skips the history of a session whose `session_start` has no
/// title (Hermes and OpenClaw sources have none): the first prompt is the
/// title, even when an injected-context message comes first.
#[test]
fn a_source_without_a_title_is_titled_by_its_first_prompt() {
    let untitled: String = foreign_document()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["kind"] == "meta" {
                v.as_object_mut().unwrap().remove("title");
            }
            v.to_string() + "\n"
        })
        .collect();
    let written = write(&untitled, no_options());
    let text = String::from_utf8(transcript(&written).bytes.clone()).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["type"], "session_start", "{text}");
    assert_eq!(first["title"], "Read a.txt");
    assert_eq!(text.lines().filter(|l| l.contains(r#""type":"session_start""#)).count(), 1);
    // The context message keeps its place after the start.
    let second: Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    assert_eq!(second["message"]["content"][0]["text"], "<env>linux</env>");

    // No prompt at all: a title all the same.
    let meta_only = untitled.lines().next().unwrap().to_string() + "\n";
    let written = write(&meta_only, no_options());
    let text = String::from_utf8(transcript(&written).bytes.clone()).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["title"], "Untitled session");
}
