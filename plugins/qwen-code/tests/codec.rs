//! What is particular to Qwen Code's transcripts, against sessions written
//! by the real CLI (fixtures/qwen-code/0.15.10) and synthetic lines. What
//! every codec must do is the testkit's suite, in tests/conformance.rs.

use std::path::Path;

use serde_json::{Value, json};
use trajhost_codec_qwen_code::QwenCode;
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, Severity};
use trajhost_codec_testkit::suite::Lab;
use trajhost_codec_testkit::{
    self as kit, Read, Spans, assistants, observations, raw_lines, tool_calls, tool_results, users,
};

const CHATS: &str = ".qwen/projects/-home-user-project/chats";
const CWD: &str = "/home/user/project";

/// The lab fixtures, as tests/conformance.json names them.
fn lab() -> Lab<QwenCode> {
    Lab::new(include_str!("conformance.json"))
}

fn locator(id: &str) -> String {
    format!("{CHATS}/{id}.jsonl")
}

fn read(home: &Path, locator: &str) -> Read {
    kit::read::<QwenCode>(home, locator)
}

/// The raw lines of a scenario's transcript.
fn raw_scenario(name: &str) -> Vec<Value> {
    raw_lines(&lab().path(name))
}

#[test]
fn globs_cover_the_temporary_chats_folder_too() {
    let globs = QwenCode::info().session_globs;
    assert!(globs.iter().any(|g| kit::glob_matches(g, ".qwen/tmp/abc/chats/x.jsonl")), "{globs:?}");
}

// ---------------------------------------------------------------- discover

#[test]
fn discover_prefers_custom_titles_and_reports_oddities() {
    let dir = lab().copy("simple");
    let id = lab().id("simple");
    let chats = dir.path().join(CHATS);
    let main = chats.join(format!("{id}.jsonl"));
    let mut text = std::fs::read_to_string(&main).unwrap();
    for title in ["Auto title", "My rename"] {
        text.push_str(&format!(
            "{}\n",
            json!({"uuid": format!("t-{title}"), "parentUuid": null, "sessionId": id, "timestamp": "2026-11-30T04:17:09.000Z",
                   "type": "system", "subtype": "custom_title", "cwd": CWD, "version": "0.15.10",
                   "systemPayload": {"customTitle": title, "titleSource": "manual"}})
        ));
    }
    std::fs::write(&main, text).unwrap();
    std::fs::write(chats.join("00000000-0000-0000-0000-000000000000.jsonl"), "").unwrap();
    std::fs::write(chats.join("11111111-0000-0000-0000-000000000000.jsonl"), "{\"x\":1}\n").unwrap();
    std::fs::write(chats.join("22222222-0000-0000-0000-000000000000.runtime.json"), "{}").unwrap();
    std::fs::write(chats.join("notes.txt"), "x").unwrap();
    std::fs::write(dir.path().join(".qwen/projects/stray.json"), "{}").unwrap();

    let found = QwenCode::discover(&Dir::native(dir.path())).unwrap();
    assert_eq!(found.sessions.len(), 1, "{:?}", found.sessions);
    assert_eq!(found.sessions[0].title.as_deref(), Some("My rename"));
    let at = |name: &str| format!("{CHATS}/{name}");
    let expected = [
        ("empty-session-file", at("00000000-0000-0000-0000-000000000000.jsonl")),
        ("malformed-head", at("11111111-0000-0000-0000-000000000000.jsonl")),
        ("unrecognized-file", at("notes.txt")),
        ("unrecognized-file", ".qwen/projects/stray.json".to_string()),
    ];
    kit::check_named_files(&found.diagnostics, &expected);
}

// ---------------------------------------------------------------- read

/// An assistant record's id is its message id; a small batch cap cuts
/// each session in several batches.
#[test]
fn message_ids_are_record_ids_and_small_caps_cut_sessions() {
    for (scenario, id) in lab().ids() {
        let read = lab().read(scenario);
        for r in &read.records {
            if let Body::Assistant(x) = &r.body {
                assert_eq!(Some(r.id.as_str()), x.message_id.as_deref());
            }
            assert_eq!(r.agent, None);
        }
        let small = kit::read_with::<QwenCode>(&lab().home(scenario), &locator(id), kit::options(2, 512));
        assert!(small.batches > 3, "{scenario}: {} batches", small.batches);
    }
}

#[test]
fn a_failing_shell_call_keeps_the_status_the_store_recorded() {
    // Qwen Code records the shell call as `success` despite the exit code;
    // the suite's table expects `ok`.
    let status =
        raw_scenario("failing-tool").iter().find_map(|l| l["toolCallResult"]["status"].as_str().map(String::from));
    assert_eq!(status.as_deref(), Some("success"));
}

const SPILL: &str =
    ".qwen/tmp/9dad1e4e08b0b11cbcd860257e8bdfa6b8e5f01790e10a6a0b1f4870c13e686b/run_shell_command_4942b8236de5.output";

#[test]
fn long_output_without_its_spill_file_keeps_the_truncated_text() {
    let dir = lab().copy("long-output");
    std::fs::remove_file(dir.path().join(SPILL)).unwrap();
    let id = lab().id("long-output");
    let read = read(dir.path(), &locator(id));
    let results = tool_results(&read.records);
    assert!(results[0].1.starts_with("Tool output was too large and has been truncated."));
    assert!(results[0].1.contains("LONG-OUTPUT-BEGIN LEMON-512"));
    assert_eq!(read.diag("persisted-output-missing").unwrap().severity, Severity::Info);
}

/// The suite checks the types; each line also names the CLI's version.
#[test]
fn every_fixture_line_carries_the_version() {
    for (scenario, _) in lab().ids() {
        for line in raw_scenario(scenario) {
            assert_eq!(line["version"], "0.15.10", "{scenario}");
        }
    }
}

// ---------------------------------------------------------------- synthetic shapes

const SID: &str = "s1";

fn synthetic(lines: &[Value]) -> tempfile::TempDir {
    kit::home_with_lines(&locator(SID), lines)
}

fn rec(kind: &str, uuid: &str, parent: Option<&str>) -> Value {
    json!({"uuid": uuid, "parentUuid": parent, "sessionId": SID, "timestamp": "2026-01-01T00:00:00.000Z",
           "type": kind, "cwd": "/w", "version": "0.14.0", "gitBranch": "main"})
}

fn system(uuid: &str, parent: &str, subtype: &str, payload: Value) -> Value {
    let mut r = rec("system", uuid, Some(parent));
    r["subtype"] = json!(subtype);
    r["systemPayload"] = payload;
    r
}

#[test]
fn reasoning_errors_system_subtypes_and_unknown_kinds() {
    let mut user = rec("user", "u1", None);
    user["message"] = json!({"role": "user", "parts": [{"text": "look "}, {"text": "here"}, {"inlineData": {"mimeType": "image/png", "data": "AA"}}]});
    let mut answer = rec("assistant", "a1", Some("u1"));
    answer["model"] = json!("qwen3-coder-plus");
    answer["message"] = json!({"role": "model", "parts": [
        {"text": "hmm", "thought": true},
        {"text": "Reading."},
        {"functionCall": {"id": "c1", "name": "read_file", "args": {"absolute_path": "/w/x"}}},
        {"brandNewPart": {"x": 1}},
    ]});
    answer["usageMetadata"] = json!({"promptTokenCount": 50, "candidatesTokenCount": 7, "cachedContentTokenCount": 30, "thoughtsTokenCount": 3, "totalTokenCount": 60});
    let mut result = rec("tool_result", "r1", Some("a1"));
    result["message"] = json!({"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"error": "File not found: /w/x"}}}]});
    result["toolCallResult"] = json!({"callId": "c1", "status": "error", "error": {"message": "File not found"}});
    let mut compression = system(
        "k1",
        "r1",
        "chat_compression",
        json!({
            "info": {"originalTokenCount": 9000, "newTokenCount": 900, "compressionStatus": 1},
            "compressedHistory": [
                {"role": "user", "parts": [{"text": "<state_snapshot>summary</state_snapshot>"}]},
                {"role": "model", "parts": [{"text": "Got it."}]},
            ],
        }),
    );
    compression["version"] = json!("0.15.0");
    let mut mid = system("m1", "k1", "mid_turn_user_message", json!({}));
    mid["message"] = json!({"role": "user", "parts": [{"text": "also check y"}]});
    let dir = synthetic(&[
        user,
        answer,
        result,
        compression,
        system("t1", "k1", "custom_title", json!({"customTitle": "Renamed", "titleSource": "manual"})),
        system("sc1", "t1", "slash_command", json!({"phase": "invocation", "rawCommand": "/stats"})),
        system("ui1", "sc1", "ui_telemetry", json!({"uiEvent": {}})),
        mid,
        system("x1", "ui1", "brand_new_subtype", json!({})),
        rec("brand-new-type", "x2", Some("x1")),
    ]);
    let read = read(dir.path(), &format!("{CHATS}/{SID}.jsonl"));
    let kinds: Vec<(&str, &str)> = read.records.iter().map(|r| (r.body.kind(), r.id.as_str())).collect();
    assert_eq!(
        kinds,
        [
            ("meta", SID),
            ("user", "u1"),
            ("reasoning", "a1#1"),
            ("assistant", "a1"),
            ("tool_call", "c1"),
            ("tool_result", "r1"),
            ("compaction", "k1"),
            ("observation", "t1"),
            ("observation", "sc1"),
            ("user", "m1"),
        ]
    );
    let Body::Meta(meta) = &read.records[0].body else { panic!() };
    assert_eq!(
        (meta.title.as_deref(), meta.git_branch.as_deref(), meta.native_version.as_deref()),
        (Some("Renamed"), Some("main"), Some("0.14.0"))
    );
    let by_id = |id: &str| read.records.iter().find(|r| r.id == id).unwrap();
    let Body::User { text, attachments } = &by_id("u1").body else { panic!() };
    assert_eq!((text.as_str(), attachments[0].kind.as_str()), ("look here", "image"));
    let Body::Reasoning(r) = &by_id("a1#1").body else { panic!() };
    assert_eq!(r.text.as_deref(), Some("hmm"));
    let a = assistants(&read.records)[0];
    assert_eq!((a.text.as_str(), a.model.as_deref()), ("Reading.", Some("qwen3-coder-plus")));
    let u = a.usage.as_ref().unwrap();
    assert_eq!((u.input, u.output, u.cache_read, u.reasoning), (Some(20), Some(7), Some(30), Some(3)));
    assert_eq!(tool_results(&read.records), [("c1", "File not found: /w/x", Some(false))]);
    let Body::Compaction { summary, .. } = &by_id("k1").body else { panic!() };
    assert_eq!(summary, "<state_snapshot>summary</state_snapshot>");
    assert_eq!(
        observations(&read.records),
        [("custom_title", Some("Renamed")), ("slash_command/invocation", Some("/stats"))]
    );
    assert_eq!(users(&read.records)[1], "also check y");
    // The mid-turn message hangs off the telemetry record's parent.
    assert_eq!(by_id("m1").parent.as_deref(), Some("k1"));

    let details = |code: &str| -> Vec<(String, u32)> {
        read.diagnostics.iter().filter(|d| d.code == code).map(|d| (d.detail.clone(), d.count)).collect()
    };
    assert_eq!(
        details("unknown-record-type"),
        [("brand-new-type".to_string(), 1), ("system/brand_new_subtype".to_string(), 1)]
    );
    assert_eq!(details("unknown-content-part"), [("assistant/brandNewPart".to_string(), 1)]);
    assert_eq!(details("unmapped-record-type"), [("system/ui_telemetry".to_string(), 1)]);
    // 0.14.0 → 0.15.0 → 0.14.0: two changes.
    assert_eq!(details("native-version-changed"), [("version".to_string(), 2)]);
}

#[test]
fn subagent_records_carry_their_agent() {
    let mut user = rec("user", "u1", None);
    user["message"] = json!({"role": "user", "parts": [{"text": "go"}]});
    let mut side = rec("assistant", "a1", Some("u1"));
    side["isSidechain"] = json!(true);
    side["agentId"] = json!("explore-7f3c");
    side["message"] = json!({"role": "model", "parts": [{"text": "exploring"}]});
    let dir = synthetic(&[user, side]);
    let read = read(dir.path(), &format!("{CHATS}/{SID}.jsonl"));
    let a = read.records.iter().find(|r| r.id == "a1").unwrap();
    assert_eq!(a.agent.as_deref(), Some("explore-7f3c"));
    assert_eq!(a.parent.as_deref(), Some("u1"));
    let Body::Assistant(x) = &a.body else { panic!() };
    assert_eq!(x.usage, None, "no usage recorded");
}

#[test]
fn a_notification_in_the_users_role_is_not_a_prompt() {
    // fixtures/qwen-code/user-notification (hand-written).
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/qwen-code/user-notification/home");
    let found = kit::discover::<QwenCode>(&home);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].title.as_deref(), Some("start the test watcher in the background"));
    let read = kit::conformance::<QwenCode>(&home, &found.sessions[0].locator, Spans::Lines);
    assert_eq!(users(&read.records), ["start the test watcher in the background"]);
    assert_eq!(kit::observations_of(&read.records, "notification"), ["Background task finished: 12 tests passed."]);
    assert_eq!(kit::assistant_texts(&read.records), ["Started the watcher.", "All 12 tests passed."]);
}

#[test]
fn records_glued_on_one_line_are_read_one_by_one() {
    // fixtures/qwen-code/glued-records (hand-written).
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/qwen-code/glued-records/home");
    let found = kit::discover::<QwenCode>(&home);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    assert_eq!(found.sessions.len(), 1);
    let s = &found.sessions[0];
    assert_eq!(s.native_id, "6c3f8d51-ae24-4b7c-9f66-1b2c3d4e5f60");
    assert_eq!(s.title.as_deref(), Some("count the {braces} in main.rs"));
    let read = kit::conformance::<QwenCode>(&home, &s.locator, Spans::Bytes);
    assert_eq!(users(&read.records), ["count the {braces} in main.rs", "thanks"]);
    assert_eq!(kit::assistant_texts(&read.records), ["There are 14 pairs."]);
    assert!(read.diag("malformed-line").is_none(), "{:?}", read.diagnostics);
    assert_eq!(read.diag("glued-records").map(|d| d.count), Some(1));
    // Each record's span is its own object.
    for record in read.records.iter().skip(1) {
        let value = kit::span_json(&home, record.src.as_ref().unwrap());
        assert_eq!(value["uuid"].as_str(), Some(record.id.as_str()));
    }
}

// ---------------------------------------------------------------- write

use trajhost_codec_sdk::canonical::Record;
use trajhost_codec_sdk::target::{self, TargetChoice};
use trajhost_codec_sdk::{Artifact, Diagnostic, Operation, Plan, WriteOptions, WrittenFiles};

fn write_options() -> WriteOptions {
    WriteOptions { cwd: None, native_id: None, home_path: None }
}

fn write_doc(document: &str, options: WriteOptions) -> WrittenFiles {
    kit::suite::write::<QwenCode>(document, options)
}

/// Installs `written`'s artifacts into a fresh home and reads the session back.
fn read_back(written: &WrittenFiles) -> (tempfile::TempDir, Read) {
    assert_eq!(written.artifacts.len(), 1, "one transcript");
    let dir = tempfile::tempdir().unwrap();
    let artifact = &written.artifacts[0];
    let path = dir.path().join(&artifact.path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, &artifact.bytes).unwrap();
    let read = read(dir.path(), &artifact.path);
    (dir, read)
}

/// What a record says, without ids, spans or links: the values a round trip
/// must keep.
fn said(records: &[Record]) -> Vec<Value> {
    records
        .iter()
        .filter(|r| !matches!(r.body, Body::Meta(_)))
        .map(|r| {
            let mut v = serde_json::to_value(&r.body).unwrap();
            if let Some(o) = v.as_object_mut() {
                // The message id of an assistant record is its line's uuid;
                // a call id is kept, so results still answer their calls.
                o.remove("message_id");
            }
            json!({"ts": r.ts, "body": v})
        })
        .collect()
}

fn codes<'a>(diagnostics: &'a [Diagnostic], code: &str) -> Vec<&'a str> {
    diagnostics.iter().filter(|d| d.code == code).map(|d| d.detail.as_str()).collect()
}

#[test]
fn written_lines_form_one_chain_with_the_envelope_qwen_code_checks() {
    let source = lab().read("parallel");
    let written = write_doc(&source.document, write_options());
    let artifact = &written.artifacts[0];
    let stem = written.native_id.as_str();
    assert_eq!(artifact.path, format!("{CHATS}/{stem}.jsonl"));
    assert!(trajhost_codec_sdk::paths::is_uuid(stem));
    let lines: Vec<Value> =
        std::str::from_utf8(&artifact.bytes).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(
        lines.iter().map(|l| l["type"].as_str().unwrap()).collect::<Vec<_>>(),
        ["user", "assistant", "tool_result", "tool_result", "assistant"]
    );
    let mut parent = Value::Null;
    for line in &lines {
        assert_eq!(line["parentUuid"], parent);
        assert_eq!(line["sessionId"], stem);
        assert_eq!(line["cwd"], CWD);
        assert_eq!(line["version"], "0.15.10");
        parent = line["uuid"].clone();
    }
    // Both calls in one model response, each answered by its own record.
    let calls = lines[1]["message"]["parts"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(lines[1]["message"]["role"], "model");
    assert_eq!(lines[1]["model"], "fake-model");
    assert_eq!(lines[1]["usageMetadata"]["promptTokenCount"], 100);
    assert_eq!(lines[2]["message"]["parts"][0]["functionResponse"]["id"], calls[0]["functionCall"]["id"]);
    assert_eq!(lines[3]["message"]["parts"][0]["functionResponse"]["id"], calls[1]["functionCall"]["id"]);
    assert_eq!(lines[3]["toolCallResult"]["status"], "success");
    assert!(
        lines[3]["message"]["parts"][0]["functionResponse"]["response"]["output"].as_str().unwrap().contains("KIWI-58")
    );
    // The same document gives the same bytes.
    assert_eq!(write_doc(&source.document, write_options()).artifacts[0].bytes, artifact.bytes);
}

#[test]
fn the_writer_streams() {
    let source = lab().read("long-output");
    let mut writer = QwenCode::write(write_options()).unwrap();
    let mut pieces = 0;
    for line in source.document.split_inclusive('\n') {
        pieces += writer.push(line).unwrap().iter().filter(|c| !c.bytes.is_empty()).count();
    }
    let written = writer.finish().unwrap();
    // The user prompt, then the call with its result, went out before the end;
    // the final answer is held until nothing can be added to it.
    assert_eq!(pieces, 2);
    assert_eq!(written.chunks.len(), 1);
}

fn record(id: &str, body: Value) -> String {
    let mut v = body;
    v["id"] = json!(id);
    v["ts"] = json!("2026-05-01T10:00:00.000Z");
    v["src"] = json!({"file": "x", "offset": 0, "len": 1});
    format!("{v}\n")
}

fn meta_line(harness: &str, title: Option<&str>) -> String {
    let mut meta = json!({"id": "m", "kind": "meta", "schema": "trajhost.canonical/0.1", "harness": harness,
        "native_id": "n1", "cwd": "/home/u/w", "started_at": "2026-05-01T10:00:00.000Z", "git_branch": "dev"});
    if let Some(t) = title {
        meta["title"] = json!(t);
    }
    format!("{meta}\n")
}

#[test]
fn reasoning_compaction_title_and_what_is_not_carried() {
    let doc = [
        meta_line("claude-code", Some("A title of its own")),
        record("s", json!({"kind": "system", "text": "You are helpful."})),
        record("c0", json!({"kind": "compaction", "summary": "Earlier we read a.txt.", "trigger": "auto"})),
        record(
            "u1",
            json!({"kind": "user", "text": "read b.txt",
            "attachments": [{"kind": "image", "media_type": "image/png"}]}),
        ),
        record(
            "r1",
            json!({"kind": "reasoning", "text": "I should read it.", "opaque": "sig", "encrypted": false,
            "parent": "a1"}),
        ),
        record(
            "a1",
            json!({"kind": "assistant", "text": "Reading.", "model": "claude-x", "stop_reason": "tool_use",
            "usage": {"input": 10, "output": 5, "cache_read": 90, "cache_write": 7}}),
        ),
        record(
            "t1",
            json!({"kind": "tool_call", "call_id": "toolu_1", "name": "Read",
            "arguments": {"file_path": "b.txt"}, "parent": "a1"}),
        ),
        record("o1", json!({"kind": "observation", "subtype": "mode", "text": "plan"})),
        record("x1", json!({"kind": "tool_result", "call_id": "toolu_1", "content": "no such file", "ok": false})),
        record("r2", json!({"kind": "reasoning", "opaque": "enc", "encrypted": true})),
        record("a2", json!({"kind": "assistant", "text": "It is missing."})),
        record("x2", json!({"kind": "tool_result", "call_id": "nope", "content": "?"})),
    ]
    .concat();
    let written = write_doc(&doc, write_options());
    let mut not_carried = codes(&written.diagnostics, "not-carried");
    not_carried.sort();
    assert_eq!(
        not_carried,
        [
            "attachments",
            "compaction-trigger",
            "observation/mode",
            "orphan-tool-result",
            "reasoning-signature",
            "stop-reason",
            "system-prompt",
            "usage.cache_write"
        ]
    );
    assert_eq!(codes(&written.diagnostics, "untranslated-reasoning").len(), 1);
    let (_home, back) = read_back(&written);
    let meta = back.meta();
    assert_eq!(meta.title.as_deref(), Some("A title of its own"));
    assert_eq!(meta.cwd.as_deref(), Some("/home/u/w"));
    assert_eq!(meta.git_branch.as_deref(), Some("dev"));
    let kinds = kit::kinds(&back.records);
    assert_eq!(
        kinds,
        [
            "meta",
            "compaction",
            "user",
            "reasoning",
            "assistant",
            "tool_call",
            "tool_result",
            "assistant",
            "observation"
        ]
    );
    let compaction = back.records.iter().find_map(|r| match &r.body {
        Body::Compaction { summary, .. } => Some(summary.as_str()),
        _ => None,
    });
    assert_eq!(compaction, Some("Earlier we read a.txt."));
    assert_eq!(kit::reasonings(&back.records)[0].text.as_deref(), Some("I should read it."));
    let a = assistants(&back.records);
    assert_eq!(a[0].text, "Reading.");
    assert_eq!(a[0].model.as_deref(), Some("claude-x"));
    let usage = a[0].usage.as_ref().unwrap();
    assert_eq!((usage.input, usage.output, usage.cache_read), (Some(10), Some(5), Some(90)));
    assert_eq!(a[1].model.as_deref(), Some("claude-x"), "the last model named");
    assert!(a[1].usage.is_none());
    assert_eq!(tool_calls(&back.records), [("toolu_1", "Read", &json!({"file_path": "b.txt"}))]);
    assert_eq!(tool_results(&back.records), [("toolu_1", "no such file", Some(false))]);
    assert_eq!(users(&back.records), ["read b.txt"]);
    assert_eq!(observations(&back.records), [("custom_title", Some("A title of its own"))]);
}

#[test]
fn write_refuses_what_qwen_code_cannot_place() {
    let no_cwd = format!(
        "{}\n",
        json!({"id": "m", "kind": "meta", "schema": "trajhost.canonical/0.1",
        "harness": "x", "native_id": "n"})
    );
    let err = trajhost_codec_sdk::write_document::<QwenCode>(&no_cwd, write_options()).unwrap_err();
    assert!(format!("{err:?}").contains("cwd"), "{err:?}");
    let err = trajhost_codec_sdk::write_document::<QwenCode>(
        &meta_line("x", None),
        WriteOptions { native_id: Some("not-a-uuid".into()), ..write_options() },
    )
    .unwrap_err();
    assert!(format!("{err:?}").contains("UUID"), "{err:?}");
    let err = trajhost_codec_sdk::write_document::<QwenCode>(
        &record("u", json!({"kind": "user", "text": "hi"})),
        write_options(),
    )
    .unwrap_err();
    assert!(format!("{err:?}").contains("meta"), "{err:?}");
    // A cwd from the options wins, and names the project directory.
    let written = write_doc(
        &(meta_line("x", None) + &record("u", json!({"kind": "user", "text": "hi"}))),
        WriteOptions { cwd: Some("/tmp/a b/ü".into()), ..write_options() },
    );
    assert_eq!(written.artifacts[0].path, format!(".qwen/projects/-tmp-a-b--/chats/{}.jsonl", written.native_id));
}

// ---------------------------------------------------------------- prepare

fn prepare(
    artifacts: &[Artifact],
    target: &Path,
    options: WriteOptions,
) -> Result<Plan, trajhost_codec_sdk::CodecError> {
    trajhost_codec_sdk::prepare_artifacts::<QwenCode>(artifacts.to_vec(), &Dir::native(target), options)
}

fn simple_written() -> WrittenFiles {
    write_doc(&lab().read("simple").document, write_options())
}

fn home_options(home: &Path) -> WriteOptions {
    WriteOptions { home_path: Some(home.display().to_string()), ..write_options() }
}

/// The suite installs and reads back; here, what the plan is.
#[test]
fn prepare_plans_the_written_file_and_resumes_by_id_under_the_home() {
    target::set_for_tests(TargetChoice::default());
    let written = simple_written();
    let target = tempfile::tempdir().unwrap();
    let plan = prepare(&written.artifacts, target.path(), home_options(target.path())).unwrap();
    let [Operation::CreateFile(create)] = plan.operations.as_slice() else { panic!("{:?}", plan.operations) };
    assert_eq!(create.path, written.artifacts[0].path);
    assert_eq!(create.bytes, written.artifacts[0].bytes);
    assert_eq!(
        plan.resume_command.as_deref().unwrap(),
        format!(
            "cd /home/user/project && QWEN_HOME={}/.qwen qwen --resume {}",
            target.path().display(),
            plan.native_id
        )
    );
}

#[test]
fn an_installed_session_is_the_newest_of_its_project() {
    target::set_for_tests(TargetChoice::default());
    let written = simple_written();
    let target = lab().copy("simple");
    let plan = prepare(&written.artifacts, target.path(), write_options()).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    kit::apply_new_files(&plan, target.path());
    // `qwen --continue` picks the project's transcript with the newest mtime.
    let newest = std::fs::read_dir(target.path().join(CHATS))
        .unwrap()
        .map(|e| e.unwrap())
        .max_by_key(|e| e.metadata().unwrap().modified().unwrap())
        .unwrap();
    assert_eq!(newest.file_name().to_string_lossy(), format!("{}.jsonl", plan.native_id));
}

#[test]
fn prepare_applies_the_choice_and_refuses_what_qwen_code_cannot_honour() {
    let written = simple_written();
    let target = tempfile::tempdir().unwrap();
    target::set_for_tests(TargetChoice {
        model: Some("qwen3-coder-plus".into()),
        provider: Some("OpenAI".into()),
        allow_untested: false,
    });
    let plan = prepare(&written.artifacts, target.path(), write_options()).unwrap();
    assert_eq!(
        plan.resume_command.as_deref().unwrap(),
        format!("cd /home/user/project && qwen --auth-type openai -m qwen3-coder-plus --resume {}", plan.native_id)
    );
    target::set_for_tests(TargetChoice { provider: Some("bedrock".into()), ..TargetChoice::default() });
    let err = prepare(&written.artifacts, target.path(), write_options()).unwrap_err();
    assert!(format!("{err:?}").contains("auth-type"), "{err:?}");
    target::set_for_tests(TargetChoice { model: Some(" bad".into()), ..TargetChoice::default() });
    assert!(prepare(&written.artifacts, target.path(), write_options()).is_err());
    target::set_for_tests(TargetChoice::default());
    // Sessions that the target's settings move out of the home.
    std::fs::create_dir_all(target.path().join(".qwen")).unwrap();
    std::fs::write(target.path().join(".qwen/settings.json"), r#"{"advanced":{"runtimeOutputDir":"/elsewhere"}}"#)
        .unwrap();
    let err = prepare(&written.artifacts, target.path(), write_options()).unwrap_err();
    assert!(format!("{err:?}").contains("runtimeOutputDir"), "{err:?}");
}

#[test]
fn prepare_moves_the_session_to_another_cwd() {
    target::set_for_tests(TargetChoice::default());
    let written = simple_written();
    let target = tempfile::tempdir().unwrap();
    let options = WriteOptions { cwd: Some("/srv/other".into()), ..write_options() };
    let plan = prepare(&written.artifacts, target.path(), options).unwrap();
    let [Operation::CreateFile(create)] = plan.operations.as_slice() else { panic!() };
    assert_eq!(create.path, format!(".qwen/projects/-srv-other/chats/{}.jsonl", plan.native_id));
    assert!(plan.resume_command.as_deref().unwrap().starts_with("cd /srv/other && qwen --resume "));
    kit::apply_new_files(&plan, target.path());
    let back = read(target.path(), &create.path);
    assert_eq!(back.meta().cwd.as_deref(), Some("/srv/other"));
    assert_eq!(said(&back.records), said(&lab().read("simple").records));
    // Anything but one transcript is refused.
    let mut two = written.artifacts.clone();
    two.push(written.artifacts[0].clone());
    assert!(prepare(&two, target.path(), write_options()).is_err());
}

#[test]
fn thoughts_compression_and_title_of_a_qwen_session_round_trip() {
    let mut u0 = rec("user", "u0", None);
    u0["message"] = json!({"role": "user", "parts": [{"text": "an old question"}]});
    let compression = system(
        "c1",
        "u0",
        "chat_compression",
        json!({"info": {"originalTokenCount": 900, "newTokenCount": 90, "compressionStatus": 1},
               "compressedHistory": [{"role": "user", "parts": [{"text": "Summary: an old question."}]},
                                     {"role": "model", "parts": [{"text": "Got it. Thanks for the additional context!"}]}]}),
    );
    let mut u1 = rec("user", "u1", Some("c1"));
    u1["message"] = json!({"role": "user", "parts": [{"text": "list files"}]});
    let mut a1 = rec("assistant", "a1", Some("u1"));
    a1["model"] = json!("qwen3-coder-plus");
    a1["message"] = json!({"role": "model", "parts": [
        {"text": "Listing first.", "thought": true},
        {"text": "Sure."},
        {"functionCall": {"id": "c-1", "name": "run_shell_command", "args": {"command": "ls"}}}]});
    a1["usageMetadata"] = json!({"promptTokenCount": 120, "candidatesTokenCount": 7, "thoughtsTokenCount": 3,
                                 "cachedContentTokenCount": 20, "totalTokenCount": 130});
    let mut r1 = rec("tool_result", "r1", Some("a1"));
    r1["message"] = json!({"role": "user", "parts": [{"functionResponse": {"id": "c-1", "name": "run_shell_command",
                                                                          "response": {"error": "ls: denied"}}}]});
    r1["toolCallResult"] = json!({"callId": "c-1", "status": "error"});
    let title = system("t1", "r1", "custom_title", json!({"customTitle": "Listing", "titleSource": "manual"}));
    let dir = synthetic(&[u0, compression, u1, a1, r1, title]);
    let source = read(dir.path(), &format!("{CHATS}/{SID}.jsonl"));
    let written = write_doc(&source.document, write_options());
    assert!(codes(&written.diagnostics, "not-carried").is_empty(), "{:?}", written.diagnostics);
    let (_home, back) = read_back(&written);
    assert_eq!(said(&back.records), said(&source.records));
    assert_eq!(back.meta().title.as_deref(), Some("Listing"));
    assert_eq!(kit::reasonings(&back.records)[0].text.as_deref(), Some("Listing first."));
    assert_eq!(tool_results(&back.records), [("c-1", "ls: denied", Some(false))]);
}
