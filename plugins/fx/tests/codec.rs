//! The fx codec on its fixtures (`fixtures/fx/*`, hand-written from the
//! documented shapes) and on lab Claude Code sessions pushed through its
//! writer.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_claude_code::ClaudeCode;
use trajhost_codec_fx::prepare::{self, Choice};
use trajhost_codec_fx::{Fx, layout};
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, CodecError, Operation, Severity, WriteOptions};
use trajhost_codec_testkit::{self as kit, Spans};

const S1: &str = "aB3dE5fG7hJ9";
const S2: &str = "1764650000000-12-0123456789abcdef";
const S3: &str = "1764670000000-3-fedcba9876543210";
const S4: &str = "Qk9zX2VmZ3Ix";
const CWD: &str = "/home/user/project";

fn home(layout: &str) -> PathBuf {
    kit::fixtures("fx", layout).join("home")
}

fn locator(id: &str) -> String {
    layout::session_json(id)
}

/// (kind, text-ish) of every record after meta: what a reader shows.
fn transcript(records: &[Record]) -> Vec<(String, String)> {
    records
        .iter()
        .skip(1)
        .map(|r| {
            let text = match &r.body {
                Body::User { text, .. } => text.clone(),
                Body::Assistant(a) => a.text.clone(),
                Body::ToolCall { name, arguments, .. } => format!("{name} {arguments}"),
                Body::ToolResult { content, ok, .. } => format!("{ok:?} {content}"),
                Body::Observation { subtype, text } => format!("{subtype} {}", text.clone().unwrap_or_default()),
                Body::Compaction { summary, .. } => summary.clone(),
                other => other.kind().to_string(),
            };
            (r.body.kind().to_string(), text)
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(k, t)| (k.to_string(), t.to_string())).collect()
}

#[test]
fn discovery_lists_sessions_and_names_every_stray_file() {
    // Ids, locators, versions, cwd, titles and inspect are the conformance suite's.
    let found = kit::discover::<Fx>(&home("schema-1"));
    let ids: Vec<&str> = found.sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert_eq!(ids, [S1]);
    let s = &found.sessions[0];
    assert_eq!(s.started_at.as_deref(), Some("2025-12-02T01:46:40.000Z"));
    assert_eq!(s.updated_at.as_deref(), Some("2025-12-02T01:48:10.000Z"));
    let problems: Vec<(&str, &str)> =
        found.diagnostics.iter().map(|d| (d.code.as_str(), d.file.as_deref().unwrap())).collect();
    assert_eq!(
        problems,
        [
            ("malformed-head", ".fx/sessions/broken/session.json"),
            ("unrecognized-file", ".fx/sessions/no-session-json"),
            ("unrecognized-file", ".fx/sessions/stray+dir"),
        ],
        "v2/ and .resume-catalog are passed over; everything else is named"
    );
    assert!(Fx::inspect(&Dir::native(home("schema-1")), ".fx/sessions/broken/session.json").is_err());
}

#[test]
fn legacy_schema_1_turns_steps_compaction_and_interruption() {
    // The conversation and kinds are the conformance suite's.
    let read = kit::read::<Fx>(&home("schema-1"), &locator(S1));
    assert_eq!(kit::observations(&read.records), [("interrupt", Some("cancelled"))]);
    let Body::User { attachments, .. } = &read.records[8].body else { panic!() };
    assert_eq!(attachments.len(), 1);
    assert_eq!(attachments[0].media_type.as_deref(), Some("image/png"));
    let result = read.records.iter().find(|r| r.body.kind() == "tool_result").unwrap();
    assert_eq!(result.ts.as_deref(), Some("2025-12-02T01:46:50.000Z"));
    assert!(read.diag_with("unmapped-record-type", "execution.files").is_some(), "{:?}", read.diagnostics);
    // The result's span is its own object in session.json.
    let span = kit::span_json(&home("schema-1"), result.src.as_ref().unwrap());
    assert_eq!(span["tool_call_id"], "call_read_1");
}

#[test]
fn legacy_schema_2_parallel_calls_failure_steering_background() {
    // The calls, results (in the order they finished) and texts are the suite's.
    let read = kit::read::<Fx>(&home("schema-2"), &locator(S2));
    assert_eq!(
        kit::observations(&read.records),
        [("background-command", Some("log=/tmp/fx-dev.log; url=http://localhost:3000"))]
    );
}

#[test]
fn schema_4_events_with_artifacts() {
    // The conversation, kinds, title and version are the conformance suite's.
    let home = home("schema-4");
    let read = kit::conformance::<Fx>(&home, &locator(S4), Spans::Lines);
    assert_eq!(read.meta().started_at.as_deref(), Some("2025-12-02T07:20:00.000Z"));
    // The body comes from the artifact, not from the 4 KiB preview.
    let body = kit::tool_results(&read.records)[0].1;
    let events = std::fs::read_to_string(home.join(format!(".fx/sessions/{S4}/events.jsonl"))).unwrap();
    let frame: Value = serde_json::from_str(events.lines().nth(3).unwrap()).unwrap();
    let preview = frame["event"]["tool_result"]["preview"].as_str().unwrap();
    assert_eq!(preview.len(), 4096);
    assert_ne!(preview, body);
    assert_eq!(read.records[1].ts.as_deref(), Some("2025-12-02T07:20:01.000Z"));
    assert_eq!(read.records[1].id, "seq1");
    assert!(read.diagnostics.iter().all(|d| d.severity != Severity::Error), "{:?}", read.diagnostics);
    assert!(kit::discover::<Fx>(&home).diagnostics.is_empty());
}

fn read_error(home: &Path, id: &str) -> CodecError {
    kit::try_read::<Fx>(home, &locator(id), kit::one_batch()).expect_err("the read must fail")
}

#[test]
fn a_missing_artifact_fails_the_read_naming_it() {
    let home = home("schema-4-missing-artifact");
    assert_eq!(kit::discover::<Fx>(&home).sessions.len(), 1);
    match read_error(&home, "missing-artifact") {
        CodecError::Malformed(m) => {
            assert!(m.contains(".fx/sessions/missing-artifact/tool-results/result-read_file-"), "{m}");
            assert!(m.contains("missing"), "{m}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_byte_count_mismatch_fails_the_read() {
    match read_error(&home("schema-4-byte-mismatch"), "byte-mismatch") {
        CodecError::Malformed(m) => {
            assert!(m.contains("stored_bytes 999") && m.contains("has 10 bytes"), "{m}");
            assert!(m.contains(".fx/sessions/byte-mismatch/tool-results/"), "{m}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_unsafe_artifact_ref_or_non_utf8_body_fails_the_read() {
    let copy = kit::copy_of(&home("schema-4-byte-mismatch"));
    let events = copy.path().join(".fx/sessions/byte-mismatch/events.jsonl");
    let text = std::fs::read_to_string(&events).unwrap();
    let handle = "result-read_file-120711f1896f6d8b-ace9a60e32464cb2.txt";
    std::fs::write(&events, text.replace(handle, "..%2Fsession.json")).unwrap();
    let CodecError::Malformed(m) = read_error(copy.path(), "byte-mismatch") else { panic!() };
    assert!(m.contains("not a safe result handle"), "{m}");

    std::fs::write(&events, text.replace("\"stored_bytes\":999", "\"stored_bytes\":10")).unwrap();
    let artifact = copy.path().join(".fx/sessions/byte-mismatch/tool-results").join(handle);
    std::fs::write(&artifact, b"x\xffcontents").unwrap();
    let CodecError::Malformed(m) = read_error(copy.path(), "byte-mismatch") else { panic!() };
    assert!(m.contains("not UTF-8") && m.contains(handle), "{m}");
    std::fs::write(&artifact, b"x contents").unwrap();
    assert_eq!(kit::tool_results(&kit::read::<Fx>(copy.path(), &locator("byte-mismatch")).records)[0].1, "x contents");
}

#[test]
fn a_torn_tail_is_reported_and_broken_rules_fail() {
    let copy = kit::copy_of(&home("schema-4"));
    let events = copy.path().join(format!(".fx/sessions/{S4}/events.jsonl"));
    let original = std::fs::read_to_string(&events).unwrap();
    let offset = kit::tear_at(&events, "\"reason\":\"cancelled\"");
    let read = kit::read::<Fx>(copy.path(), &locator(S4));
    let torn = read.diag("torn-tail").expect("torn tail");
    assert_eq!(torn.offset, Some(offset));
    assert_eq!(kit::users(&read.records).len(), 3);
    assert!(read.diag("unfinished-turn").is_some(), "{:?}", read.diagnostics);

    // A frame left out: seq is no longer contiguous.
    let lines: Vec<&str> = original.lines().collect();
    let gap: String = lines.iter().enumerate().filter(|(i, _)| *i != 4).map(|(_, l)| format!("{l}\n")).collect();
    std::fs::write(&events, gap).unwrap();
    let CodecError::Malformed(m) = read_error(copy.path(), S4) else { panic!() };
    assert!(m.contains("events.jsonl") && m.contains("contiguous"), "{m}");

    // A result whose call was never made.
    let renamed =
        original.replacen("\"tool_name\":\"run_command\",\"status\"", "\"tool_name\":\"other\",\"status\"", 1);
    std::fs::write(&events, renamed).unwrap();
    let CodecError::Malformed(m) = read_error(copy.path(), S4) else { panic!() };
    assert!(m.contains("matches no pending tool_call"), "{m}");

    // An unknown field makes a (terminated) frame corrupt.
    std::fs::write(&events, original.replacen("\"work_id\":null", "\"work_id\":null,\"extra\":1", 1)).unwrap();
    let CodecError::Malformed(m) = read_error(copy.path(), S4) else { panic!() };
    assert!(m.contains("not a conversation frame"), "{m}");
}

#[test]
fn schema_3_is_listed_with_a_warning_and_refused() {
    let home = home("schema-3");
    let found = kit::discover::<Fx>(&home);
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].native_id, S3);
    assert_eq!(found.sessions[0].native_version.as_deref(), Some("3"));
    let warning = kit::file_diag(&found.diagnostics, "unsupported-schema", &locator(S3)).expect("a warning");
    assert_eq!(warning.severity, Severity::Warning);
    match read_error(&home, S3) {
        CodecError::Unsupported(m) => {
            assert!(m.contains("fx schema 3 event log") && m.contains("open it once with fx ≥0.0.8"), "{m}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn sniff_claims_session_json_of_the_schemas_it_reads() {
    let head = std::fs::read(home("schema-1").join(locator(S1))).unwrap();
    let sniffed = Fx::sniff("copy/session.json", &head[..200]).expect("claimed");
    assert_eq!((sniffed.native_version.as_deref(), sniffed.native_id.as_deref()), (Some("1"), Some(S1)));
    let header = std::fs::read(home("schema-4").join(locator(S4))).unwrap();
    assert_eq!(Fx::sniff("x/session.json", &header).unwrap().native_version.as_deref(), Some("4"));
    let v3 = std::fs::read(home("schema-3").join(locator(S3))).unwrap();
    assert!(Fx::sniff("session.json", &v3).is_none());
    assert!(Fx::sniff("other.json", &head).is_none());
}

// ------------------------------------------------------------------ write

fn options(cwd: Option<&str>) -> WriteOptions {
    WriteOptions { cwd: cwd.map(str::to_string), native_id: None, home_path: None }
}

/// Writes `records` as fx, installs the file into a fresh home, reads it back.
fn write_and_read(records: &[Record], cwd: Option<&str>) -> (kit::sdk::WrittenFiles, tempfile::TempDir, kit::Read) {
    let written = kit::sdk::write_document::<Fx>(&kit::document(records), options(cwd)).unwrap();
    assert_eq!(written.artifacts.len(), 1);
    assert_eq!(written.artifacts[0].path, locator(&written.native_id));
    let target = tempfile::tempdir().unwrap();
    let path = target.path().join(&written.artifacts[0].path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, &written.artifacts[0].bytes).unwrap();
    let read = kit::conformance::<Fx>(target.path(), &locator(&written.native_id), Spans::Bytes);
    (written, target, read)
}

/// What conversion compares, order aside: user and assistant texts, calls,
/// results.
fn values(records: &[Record]) -> Vec<(String, String)> {
    let mut all: Vec<(String, String)> =
        transcript(records).into_iter().filter(|(k, t)| k != "observation" && !t.is_empty()).collect();
    all.sort();
    all
}

#[test]
fn lab_claude_code_sessions_round_trip_through_the_writer() {
    for scenario in ["simple", "parallel", "failing-tool", "long-output", "multibyte"] {
        let lab = kit::fixtures("claude-code", "2.1.197").join(scenario);
        let found = kit::discover::<ClaudeCode>(&lab);
        assert_eq!(found.sessions.len(), 1, "{scenario}");
        let source = kit::read::<ClaudeCode>(&lab, &found.sessions[0].locator);
        let (written, _target, back) = write_and_read(&source.records, None);
        assert_eq!(written.native_id.len(), 12, "{scenario}");
        assert!(layout::is_session_id(&written.native_id));
        let carried = |records: &[Record]| -> Vec<(String, String)> {
            // A result without a recorded outcome is written as `success` (fx needs a status).
            let mut all: Vec<(String, String)> = values(records)
                .into_iter()
                .filter(|(k, _)| k != "compaction" && k != "reasoning")
                .map(|(k, t)| (k, t.strip_prefix("None ").map_or(t.clone(), |t| format!("Some(true) {t}"))))
                .collect();
            all.sort();
            all
        };
        assert_eq!(carried(&back.records), carried(&source.records), "{scenario}");
        assert!(!kit::tool_calls(&back.records).is_empty(), "{scenario}");
        assert_eq!(kit::users(&back.records), kit::users(&source.records), "{scenario}");
        assert_eq!(back.meta().cwd.as_deref(), Some(CWD), "{scenario}");
        let doc: Value = serde_json::from_slice(&written.artifacts[0].bytes).unwrap();
        assert_eq!(doc["schema_version"], 1);
        assert_eq!(doc["id"], written.native_id.as_str());
        assert_eq!(doc["conversation_language"], "und");
        assert_eq!(doc["history_len"], doc["history"].as_array().unwrap().len());
        let turn = &doc["history"][0];
        assert_eq!(turn["kind"], "assistant");
        assert_eq!(turn["execution"]["schema_version"], 3);
        let result = &turn["execution"]["tool_steps"][0]["tool_results"][0];
        assert_eq!(result["output_bytes"], result["output"].as_str().unwrap().len());
        assert_eq!(result["permission_feedback"], json!([]));
        let codes: Vec<&str> = written.diagnostics.iter().map(|d| d.code.as_str()).collect();
        assert!(codes.contains(&"untranslated-usage") && codes.contains(&"not-carried"), "{scenario}: {codes:?}");
        if scenario == "failing-tool" {
            assert!(kit::tool_results(&back.records).iter().any(|r| r.2 == Some(false)));
        }
        // Deterministic: the same document gives the same id and bytes.
        let again = kit::sdk::write_document::<Fx>(&kit::document(&source.records), options(None)).unwrap();
        assert_eq!(
            (again.native_id, &again.artifacts[0].bytes),
            (written.native_id.clone(), &written.artifacts[0].bytes)
        );
    }
}

#[test]
fn fx_sessions_round_trip_value_lossless() {
    for (layout_dir, id, spans) in
        [("schema-1", S1, Spans::Bytes), ("schema-2", S2, Spans::Bytes), ("schema-4", S4, Spans::Lines)]
    {
        let first = kit::conformance::<Fx>(&home(layout_dir), &locator(id), spans);
        let (written, _target, second) = write_and_read(&first.records, None);
        assert_eq!(values(&second.records), values(&first.records), "{layout_dir}");
        assert_eq!(
            kit::observations_of(&second.records, "interrupt"),
            kit::observations_of(&first.records, "interrupt"),
            "{layout_dir}"
        );
        // And once more: the written form is a fixed point.
        let (again, _t, third) = write_and_read(&second.records, None);
        assert_eq!(transcript(&third.records), transcript(&second.records), "{layout_dir}");
        assert_eq!(again.artifacts[0].bytes.len(), written.artifacts[0].bytes.len(), "{layout_dir}");
    }
    let first = kit::read::<Fx>(&home("schema-1"), &locator(S1));
    let written = kit::sdk::write_document::<Fx>(&kit::document(&first.records), options(None)).unwrap();
    let doc: Value = serde_json::from_slice(&written.artifacts[0].bytes).unwrap();
    let kinds: Vec<&str> = doc["history"].as_array().unwrap().iter().map(|t| t["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["assistant", "assistant", "compacted_summary", "interrupted"]);
    assert_eq!(doc["history"][3]["tool_call"]["id"], "call_test_2");
    assert_eq!(doc["history"][3]["terminal_reason"], "cancelled");
    assert_eq!(doc["history"][3]["assistant"], "Running the tests now.");
    assert_eq!(doc["workspace_root"], CWD);
    assert!(kit::diag(&written.diagnostics, "untranslated-images").is_some());
}

fn doc(lines: &[Value]) -> String {
    lines.iter().map(|v| v.to_string() + "\n").collect()
}

fn meta_line() -> Value {
    json!({"id":"m","kind":"meta","schema":"trajhost.canonical/0.1","harness":"codex","native_id":"x","cwd":"/w",
           "started_at":"2026-11-30T04:00:00.000Z","title":"A custom title"})
}

#[test]
fn write_refuses_an_open_tool_batch_and_reports_what_it_drops() {
    let open = doc(&[
        meta_line(),
        json!({"id":"u","kind":"user","text":"hi","ts":"2026-11-30T04:00:01.000Z"}),
        json!({"id":"c","kind":"tool_call","call_id":"call_1","name":"shell","arguments":{"cmd":"ls"}}),
        json!({"id":"u2","kind":"user","text":"next"}),
    ]);
    let Err(CodecError::Malformed(m)) = kit::sdk::write_document::<Fx>(&open, options(None)) else { panic!() };
    assert!(m.contains("turn 1") && m.contains("shell (call_1) has no result"), "{m}");

    let foreign = doc(&[
        meta_line(),
        json!({"id":"s","kind":"system","text":"You are Codex."}),
        json!({"id":"u","kind":"user","text":"hi","ts":"2026-11-30T04:00:01.000Z","attachments":[{"kind":"image","media_type":"image/png"}]}),
        json!({"id":"r","kind":"reasoning","text":"thinking"}),
        json!({"id":"a","kind":"assistant","text":"Looking.","model":"gpt-5","usage":{"input":3,"output":4}}),
        json!({"id":"c1","kind":"tool_call","call_id":"call_1","name":"shell","arguments":"not json"}),
        json!({"id":"c2","kind":"tool_call","call_id":"call_2","name":"shell","arguments":{"cmd":"pwd"}}),
        json!({"id":"r2","kind":"tool_result","call_id":"call_2","content":"/w","ok":true,"ts":"2026-11-30T04:00:03.000Z"}),
        json!({"id":"r1","kind":"tool_result","call_id":"call_1","content":"oops"}),
        json!({"id":"r9","kind":"tool_result","call_id":"call_9","content":"orphan"}),
        json!({"id":"o","kind":"observation","subtype":"mode","text":"plan"}),
        json!({"id":"k","kind":"compaction","summary":"SUMMARY"}),
        json!({"id":"u2","kind":"user","text":"run it"}),
        json!({"id":"c3","kind":"tool_call","call_id":"call_3","name":"shell","arguments":{"cmd":"make"}}),
        json!({"id":"i","kind":"observation","subtype":"interrupt","text":"[Request interrupted by user]"}),
    ]);
    let written = kit::sdk::write_document::<Fx>(&foreign, options(None)).unwrap();
    let found: Vec<(&str, &str)> = written.diagnostics.iter().map(|d| (d.code.as_str(), d.detail.as_str())).collect();
    for want in [
        ("not-carried", "system"),
        ("not-carried", "orphan-tool-result"),
        ("not-carried", "observation/mode"),
        ("untranslated-reasoning", ""),
        ("untranslated-usage", ""),
        ("untranslated-images", ""),
        ("untranslated-model", ""),
        ("untranslated-title", ""),
        ("placeholder", "tool_result.status"),
    ] {
        let hit = found.iter().any(|(code, detail)| *code == want.0 && (want.1.is_empty() || *detail == want.1));
        assert!(hit, "{want:?} not in {found:?}");
    }
    let doc: Value = serde_json::from_slice(&written.artifacts[0].bytes).unwrap();
    assert_eq!(doc["created_at_ms"], 1_796_011_200_000_i64);
    assert_eq!(doc["updated_at_ms"], 1_796_011_203_000_i64);
    let steps = &doc["history"][0]["execution"]["tool_steps"];
    assert_eq!(steps[0]["tool_calls"][0]["arguments_json"], "not json");
    assert_eq!(doc["history"][0]["assistant"], "", "a turn may end after its results");
    assert_eq!(doc["history"][1]["kind"], "compacted_summary");
    assert_eq!(doc["history"][1]["removed_turn_count"], 1);
    assert_eq!(doc["history"][2]["kind"], "interrupted");
    assert_eq!(doc["history"][2]["tool_call"]["id"], "call_3");

    let target = tempfile::tempdir().unwrap();
    let path = target.path().join(&written.artifacts[0].path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, &written.artifacts[0].bytes).unwrap();
    let back = kit::read::<Fx>(target.path(), &written.artifacts[0].path);
    assert_eq!(
        transcript(&back.records),
        pairs(&[
            ("user", "hi"),
            ("assistant", "Looking."),
            ("tool_call", "shell \"not json\""),
            ("tool_call", r#"shell {"cmd":"pwd"}"#),
            ("tool_result", "Some(true) /w"),
            ("tool_result", "Some(true) oops"),
            ("compaction", "SUMMARY"),
            ("user", "run it"),
            ("tool_call", r#"shell {"cmd":"make"}"#),
            ("observation", "interrupt cancelled"),
        ])
    );
}

#[test]
fn write_keeps_a_chosen_id_and_refuses_an_invalid_one() {
    let lines = doc(&[meta_line(), json!({"id":"u","kind":"user","text":"hi"})]);
    let mut chosen = options(Some("/elsewhere"));
    chosen.native_id = Some("my-session.1".into());
    let written = kit::sdk::write_document::<Fx>(&lines, chosen.clone()).unwrap();
    assert_eq!(written.native_id, "my-session.1");
    let doc: Value = serde_json::from_slice(&written.artifacts[0].bytes).unwrap();
    assert_eq!(doc["workspace_root"], "/elsewhere");
    chosen.native_id = Some("v2".into());
    assert!(kit::sdk::write_document::<Fx>(&lines, chosen).is_err());
}

// ------------------------------------------------------------------ prepare

fn written_simple() -> kit::sdk::WrittenFiles {
    let lab = kit::fixtures("claude-code", "2.1.197").join("simple");
    let found = kit::discover::<ClaudeCode>(&lab);
    let source = kit::read::<ClaudeCode>(&lab, &found.sessions[0].locator);
    kit::sdk::write_document::<Fx>(&kit::document(&source.records), options(None)).unwrap()
}

fn plan(
    written: &kit::sdk::WrittenFiles,
    target: &Path,
    cwd: Option<&str>,
    choice: Choice,
) -> Result<trajhost_codec_sdk::Plan, CodecError> {
    let options =
        WriteOptions { cwd: cwd.map(str::to_string), native_id: None, home_path: Some(target.display().to_string()) };
    prepare::prepare(written.artifacts.clone(), &Dir::native(target), &options, &choice)
}

#[test]
fn prepare_creates_exactly_one_file_and_the_resume_command() {
    let written = written_simple();
    let fresh = tempfile::tempdir().unwrap();
    let plan_ = kit::sdk::prepare_artifacts::<Fx>(
        written.artifacts.clone(),
        &Dir::native(fresh.path()),
        WriteOptions { cwd: None, native_id: None, home_path: Some(fresh.path().display().to_string()) },
    )
    .unwrap();
    assert_eq!(plan_.native_id, written.native_id);
    assert_eq!(plan_.operations.len(), 1);
    let Operation::CreateFile(file) = &plan_.operations[0] else { panic!() };
    assert_eq!(file.path, format!(".fx/sessions/{}/session.json", written.native_id));
    assert_eq!(file.bytes, written.artifacts[0].bytes);
    assert_eq!(
        plan_.resume_command.as_deref().unwrap(),
        format!("cd {CWD} && HOME='{}' fx resume {}", fresh.path().display(), written.native_id)
    );

    // Provider and model go before `resume`; built-ins in any case.
    let chosen = plan(
        &written,
        fresh.path(),
        None,
        Choice { model: Some("openai/gpt-5".into()), provider: Some("Codex".into()), ..Default::default() },
    )
    .unwrap();
    assert_eq!(
        chosen.resume_command.unwrap(),
        format!(
            "cd {CWD} && HOME='{}' fx --provider codex --model openai/gpt-5 resume {}",
            fresh.path().display(),
            written.native_id
        )
    );
    let CodecError::Other(m) =
        plan(&written, fresh.path(), None, Choice { provider: Some("acme".into()), ..Default::default() }).unwrap_err()
    else {
        panic!()
    };
    assert!(m.contains("acme") && m.contains("gateway, codex, grok"), "{m}");
    assert!(
        plan(&written, fresh.path(), None, Choice { model: Some(" padded".into()), ..Default::default() }).is_err()
    );

    // A connection configured in the target's settings.
    std::fs::create_dir_all(fresh.path().join(".fx")).unwrap();
    std::fs::write(fresh.path().join(".fx/settings.json"), r#"{"connections":[{"name":"acme","binding":"00"}]}"#)
        .unwrap();
    let acme =
        plan(&written, fresh.path(), None, Choice { provider: Some("acme".into()), ..Default::default() }).unwrap();
    assert!(acme.resume_command.unwrap().contains("fx --provider acme resume"));

    // Another cwd: only workspace_root changes.
    let moved = plan(&written, fresh.path(), Some("/srv/other dir"), Choice::default()).unwrap();
    let Operation::CreateFile(file) = &moved.operations[0] else { panic!() };
    let doc: Value = serde_json::from_slice(&file.bytes).unwrap();
    assert_eq!(doc["workspace_root"], "/srv/other dir");
    let mut original: Value = serde_json::from_slice(&written.artifacts[0].bytes).unwrap();
    original["workspace_root"] = json!("/srv/other dir");
    assert_eq!(doc, original);
    assert!(moved.resume_command.unwrap().starts_with("cd '/srv/other dir' && HOME="));
}

#[test]
fn prepare_takes_the_hosts_target_choice() {
    let written = written_simple();
    let fresh = tempfile::tempdir().unwrap();
    let run = |choice: trajhost_codec_sdk::target::TargetChoice| {
        trajhost_codec_sdk::target::set_for_tests(choice);
        kit::sdk::prepare_artifacts::<Fx>(
            written.artifacts.clone(),
            &Dir::native(fresh.path()),
            WriteOptions { cwd: None, native_id: None, home_path: Some("/home/it's".into()) },
        )
    };
    let plan = run(trajhost_codec_sdk::target::TargetChoice {
        model: Some("xai/grok-4".into()),
        provider: Some("GROK".into()),
        allow_untested: false,
    })
    .unwrap();
    assert_eq!(
        plan.resume_command.unwrap(),
        format!("cd {CWD} && HOME='/home/it'\\''s' fx --provider grok --model xai/grok-4 resume {}", written.native_id)
    );
    let refused = run(trajhost_codec_sdk::target::TargetChoice { provider: Some("nope".into()), ..Default::default() });
    assert!(matches!(refused, Err(CodecError::Other(m)) if m.contains("nope")));
    trajhost_codec_sdk::target::set_for_tests(Default::default());
}

#[test]
fn legacy_oddities_are_diagnosed_not_dropped_silently() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".fx/sessions/odd-one");
    std::fs::create_dir_all(&dir).unwrap();
    let doc = json!({"schema_version":2,"id":"other-id","created_at_ms":5,"updated_at_ms":6,"conversation_language":"en",
    "history_len":3,"history":[
        {"kind":"assistant","user":{"text":"hello"},"assistant":"hi","execution":null,"future_key":1},
        {"kind":"time_travel","user":{"text":"?"}},
        {"kind":"assistant","assistant":"no user"},
        {"kind":"assistant","user":{"text":"big"},"assistant":"",
         "execution":{"tool_steps":[{"assistant":null,"tool_calls":[{"id":"c","name":"t","arguments_json":"{bad"}],
           "tool_results":[{"tool_call_id":"c","tool_name":"t","status":"success","output":"cut","output_bytes":99,
             "stored_output_bytes":3,"truncated":false,"provider_native":false,"created_at_ms":7}]}]}}
    ]});
    std::fs::write(dir.join("session.json"), doc.to_string()).unwrap();
    let found = kit::discover::<Fx>(home.path());
    assert_eq!(found.sessions[0].native_id, "odd-one", "fx resumes by the directory name");
    assert!(kit::file_diag(&found.diagnostics, "session-id-mismatch", &locator("odd-one")).is_some());
    let read = kit::read::<Fx>(home.path(), &locator("odd-one"));
    assert_eq!(kit::users(&read.records), ["hello", "big"]);
    assert_eq!(kit::tool_calls(&read.records)[0].2, &json!("{bad"), "malformed arguments stay as text");
    for (code, detail) in [
        ("unknown-record-type", "history kind time_travel"),
        ("malformed-record", "assistant.user"),
        ("history-len-mismatch", "history_len"),
        ("truncated-tool-output", "tool result"),
        ("session-id-mismatch", "id"),
    ] {
        assert!(read.diag_with(code, detail).is_some(), "{code} {detail}: {:?}", read.diagnostics);
    }
}
