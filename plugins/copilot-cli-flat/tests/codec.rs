//! The Copilot CLI flat-file codec against a hand-written home
//! (fixtures/copilot-cli/flat) that holds one flat event log beside one
//! session directory of the current layout, and what its writer makes of
//! real sessions: the events Copilot CLI 0.0.354 loads. The conformance
//! suite (tests/conformance.rs) runs over the real 0.0.354 sessions.

#[path = "../../copilot-cli/tests/support/mod.rs"]
mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::json;
use trajhost_codec_copilot_cli_flat::{CopilotCliFlat, NATIVE_VERSIONS};
use trajhost_codec_sdk::Codec;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_testkit::{self as kit, Spans, assistant_texts, tool_calls, tool_results, users};

const SID: &str = "2c9a4f10-1b7e-4d33-a0f5-5d61e0000339";

fn home() -> PathBuf {
    // This crate's own checkout (the testkit's `fixtures()` is resolved
    // where the testkit was compiled).
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/copilot-cli/flat/home")
}

fn locator() -> String {
    format!(".copilot/session-state/{SID}.jsonl")
}

#[test]
fn discover_lists_only_flat_files() {
    let found = kit::discover::<CopilotCliFlat>(&home());
    assert!(found.diagnostics.is_empty(), "the session directory is the other layout's: {:?}", found.diagnostics);
    assert_eq!(found.sessions.len(), 1);
    let s = &found.sessions[0];
    assert_eq!((s.native_id.as_str(), s.locator.as_str()), (SID, locator().as_str()));
    assert_eq!(s.native_version.as_deref(), Some("0.0.339"));
    assert_eq!(s.cwd.as_deref(), Some("/home/dev/tools"), "from session.start: no workspace.yaml");
    assert_eq!(s.title.as_deref(), Some("how big is the vendor folder?"));
    assert_eq!(s.size, std::fs::metadata(home().join(locator())).unwrap().len());
    let inspected = CopilotCliFlat::inspect(&Dir::native(home()), &locator()).unwrap();
    assert_eq!(inspected.native_id, SID);
    assert_eq!(inspected.size, s.size);
    assert!(CopilotCliFlat::inspect(&Dir::native(home()), ".copilot/session-state/x/events.jsonl").is_err());
}

#[test]
fn a_flat_file_reads_like_an_event_log() {
    let read = kit::conformance::<CopilotCliFlat>(&home(), &locator(), Spans::Lines);
    let meta = read.meta();
    assert_eq!(meta.codec.as_deref(), Some("copilot-cli@0.1.0-flat"));
    assert_eq!(meta.git_branch.as_deref(), Some("dev"));
    assert_eq!(users(&read.records), ["how big is the vendor folder?"]);
    let calls = tool_calls(&read.records);
    assert_eq!(calls.len(), 1, "the request and the execution start are one call");
    assert_eq!((calls[0].0, calls[0].1), ("call_du", "bash"));
    assert_eq!(calls[0].2, &json!({"command": "du -sh vendor", "description": "Size of vendor"}));
    assert_eq!(tool_results(&read.records), [("call_du", "41M\tvendor\n<exited with exit code 0>", Some(true))]);
    assert_eq!(assistant_texts(&read.records), ["The vendor folder takes 41 MB."]);
}

#[test]
fn the_range_is_the_session_directory_codecs() {
    // A session the flat codec places must never be handed to the other
    // layout's codec for lack of a covering range, nor the reverse.
    assert_eq!(NATIVE_VERSIONS, trajhost_codec_copilot_cli_flat::core::NATIVE_VERSIONS);
    assert_eq!(NATIVE_VERSIONS, ">=0.0.1, <2.0.0");
}

// ---------------------------------------------------------------- write, prepare

use serde_json::Value;
use trajhost_codec_copilot_cli_flat::WRITES_FOR;
use trajhost_codec_copilot_cli_flat::write::{CLI_VERSION, NO_RESULT};
use trajhost_codec_sdk::WriteOptions;
use trajhost_codec_sdk::canonical::Record;
use trajhost_codec_sdk::target::{self, TargetChoice};
use trajhost_codec_testkit::Read;

use support::*;

/// The codec `support` writes and prepares with.
type Tested = CopilotCliFlat;

fn write_options() -> WriteOptions {
    WriteOptions { cwd: None, native_id: None, home_path: None }
}

fn doc_of(values: &[Value]) -> String {
    values.iter().map(|v| v.to_string() + "\n").collect()
}

fn read(home: &Path, locator: &str) -> Read {
    kit::conformance::<CopilotCliFlat>(home, locator, Spans::Lines)
}

/// What Copilot CLI 0.0.354's loader requires of every line (its bundled
/// event union): one of the event types it knows with the data keys it
/// writes, UUID ids chained by `parentId`, `Z` timestamps.
fn check_events(bytes: &[u8]) -> Vec<Value> {
    let known: &[(&str, &[&str])] = &[
        ("session.start", &["sessionId", "version", "producer", "copilotVersion", "startTime", "selectedModel"]),
        ("session.model_change", &["previousModel", "newModel"]),
        ("user.message", &["content", "attachments"]),
        ("assistant.message", &["messageId", "content", "toolRequests"]),
        ("tool.execution_start", &["toolCallId", "toolName", "arguments"]),
        ("tool.execution_complete", &["toolCallId", "success", "result", "error"]),
        ("abort", &["reason"]),
    ];
    let text = std::str::from_utf8(bytes).unwrap();
    for line in text.lines() {
        assert_eq!(keys_in_order(line), ["type", "data", "id", "timestamp", "parentId"], "{line}");
    }
    let lines = chained_events(bytes);
    for line in &lines {
        let ts = line["timestamp"].as_str().unwrap();
        assert!(ts.len() == 24 && ts.ends_with('Z') && ts.as_bytes()[19] == b'.', "{line}");
        let kind = line["type"].as_str().unwrap();
        let Some((_, allowed)) = known.iter().find(|(k, _)| *k == kind) else { panic!("0.0.354 knows no {kind}") };
        for key in line["data"].as_object().unwrap().keys() {
            assert!(allowed.contains(&key.as_str()), "{kind} has no {key} in 0.0.354: {line}");
        }
        match kind {
            "assistant.message" => {
                assert!(line["data"]["messageId"].is_string(), "{line}");
                assert!(line["data"]["content"].is_string(), "{line}");
                for request in line["data"]["toolRequests"].as_array().unwrap() {
                    assert_eq!(keys_in_order(&request.to_string()).len(), 3, "{line}");
                    for key in ["toolCallId", "name", "arguments"] {
                        assert!(request.get(key).is_some(), "{line}");
                    }
                }
            }
            "tool.execution_complete" => {
                let ok = line["data"]["success"].as_bool().unwrap();
                if ok {
                    assert!(line["data"]["result"]["content"].is_string(), "{line}");
                } else {
                    assert!(line["data"]["error"]["message"].is_string(), "{line}");
                }
            }
            "abort" => assert!(line["data"]["reason"].is_string(), "{line}"),
            _ => {}
        }
    }
    lines
}

/// The keys of a JSON object's text, in the order written (top level).
fn keys_in_order(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let (mut keys, mut depth, mut i) = (Vec::new(), 0usize, 0usize);
    let mut expect_key = false;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                i += 1;
                while bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if depth == 1 && expect_key {
                    keys.push(text[start..i].to_string());
                    expect_key = false;
                }
            }
            b'{' => {
                depth += 1;
                expect_key = depth == 1;
            }
            b'[' => depth += 1,
            b'}' | b']' => depth -= 1,
            b',' if depth == 1 => expect_key = true,
            _ => {}
        }
        i += 1;
    }
    keys
}

/// A real Copilot CLI 1.0.102 session (fixtures/copilot-cli/1.0.102) as a
/// flat file: the events are the same, so the flat reader reads it.
fn copilot_1_0_as_flat(scenario: &str) -> (tempfile::TempDir, String) {
    let state = kit::fixtures("copilot-cli", "1.0.102").join(scenario).join(STATE);
    let folder = std::fs::read_dir(&state)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("events.jsonl").is_file())
        .unwrap();
    let id = folder.file_name().unwrap().to_str().unwrap().to_string();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(STATE)).unwrap();
    let locator = format!("{STATE}/{id}.jsonl");
    std::fs::copy(folder.join("events.jsonl"), home.path().join(&locator)).unwrap();
    (home, locator)
}

const LAB: [&str; 5] = ["simple", "parallel", "failing-tool", "multibyte", "long-output"];

#[test]
fn it_writes_for_the_versions_before_session_folders() {
    assert_eq!(<CopilotCliFlat as Codec>::WRITES_FOR, WRITES_FOR);
    assert_eq!(WRITES_FOR, ">=0.0.1, <0.0.380");
    // The session-folder codec writes the complement: the two never overlap.
    assert_eq!(CLI_VERSION, "0.0.354");
}

#[test]
fn the_flat_fixture_round_trips_through_the_writer() {
    let first = read(&home(), &locator());
    let written = write_doc(&kit::document(&first.records), write_options());
    assert_eq!(written.artifacts.len(), 1);
    let events = &written.artifacts[0];
    assert_eq!(events.path, format!("{STATE}/{}.jsonl", written.native_id));
    let lines = check_events(&events.bytes);
    assert_eq!(lines[0]["data"]["sessionId"], written.native_id.as_str());
    assert_eq!(lines[0]["data"]["copilotVersion"], CLI_VERSION);
    let home = install(&written);
    let second = read(home.path(), &events.path);
    assert!(second.diagnostics.is_empty(), "{:?}", second.diagnostics);
    // The working directory and branch are not in a 0.0.354 log.
    assert_eq!(
        codes(&written.diagnostics),
        [("not-carried".to_string(), "cwd".to_string()), ("not-carried".to_string(), "git-branch".to_string())]
    );
    assert_eq!(second.meta().cwd, None);
    assert_eq!(second.meta().title, first.meta().title);
    assert_eq!(second.meta().started_at, first.meta().started_at);
    let strip = |r: &Record| (r.id.clone(), r.body.clone(), r.parent.clone(), r.ts.clone());
    let a: Vec<_> = first.records.iter().skip(1).map(strip).collect();
    let b: Vec<_> = second.records.iter().skip(1).map(strip).collect();
    // Every record keeps its id, body and time; parents are the previous
    // event (the session's own id is the new one).
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!((&x.0, &x.1, &x.3), (&y.0, &y.1, &y.3));
    }
    // Written twice, the same bytes.
    let again = write_doc(&kit::document(&first.records), write_options());
    assert_eq!(again.artifacts[0].bytes, events.bytes);
}

#[test]
fn real_copilot_sessions_keep_their_conversation_in_the_flat_log() {
    for scenario in LAB {
        let (source, locator) = copilot_1_0_as_flat(scenario);
        let first = read(source.path(), &locator);
        let written = write_doc(&kit::document(&first.records), write_options());
        check_events(&written.artifacts[0].bytes);
        let home = install(&written);
        let second = read(home.path(), &written.artifacts[0].path);
        assert!(second.diagnostics.is_empty(), "{scenario}: {:?}", second.diagnostics);
        assert_eq!(users(&second.records), users(&first.records), "{scenario}");
        assert_eq!(assistant_texts(&second.records), assistant_texts(&first.records), "{scenario}");
        assert_eq!(tool_calls(&second.records), tool_calls(&first.records), "{scenario}");
        assert_eq!(tool_results(&second.records), tool_results(&first.records), "{scenario}");
        // 1.0.x's system prompt, usage and model have no place in 0.0.354's log.
        let lost: BTreeSet<String> = codes(&written.diagnostics).into_iter().map(|(c, d)| format!("{c} {d}")).collect();
        for want in ["not-carried system-prompt", "not-carried usage", "not-carried model", "not-carried cwd"] {
            assert!(lost.contains(want), "{scenario}: {want} in {lost:?}");
        }
        assert!(!lost.iter().any(|l| l.starts_with("synthesized")), "{scenario}: {lost:?}");
    }
}

#[test]
fn a_foreign_session_is_repaired_into_what_copilot_0_0_354_loads() {
    let foreign = [
        json!({"id":"m","kind":"meta","schema":"trajhost.canonical/0.1","harness":"claude-code","native_id":"x","cwd":"/w","title":"Fix it","started_at":"2026-11-30T04:00:00.916053+01:00"}),
        json!({"id":"s","kind":"system","text":"You are Claude."}),
        json!({"id":"u","kind":"user","text":"hi","ts":"2026-11-30T04:00:01.000Z","attachments":[{"kind":"image"}]}),
        json!({"id":"r","kind":"reasoning","text":"think","opaque":"sig","encrypted":false}),
        json!({"id":"a","kind":"assistant","text":"","model":"claude-x","stop_reason":"tool_use","usage":{"input":5,"output":1}}),
        json!({"id":"c","kind":"tool_call","call_id":"toolu_1","name":"Bash","arguments":{"command":"ls"}}),
        json!({"id":"t","kind":"tool_result","call_id":"toolu_1","content":"a.txt"}),
        json!({"id":"c2","kind":"tool_call","call_id":"toolu_2","name":"Read","arguments":{"path":"a.txt"}}),
        json!({"id":"o","kind":"tool_result","call_id":"toolu_404","content":"?","ok":false}),
        json!({"id":"x","kind":"observation","subtype":"hook","text":"ran"}),
        json!({"id":"k","kind":"compaction","summary":"Earlier: ls."}),
        json!({"id":"u2","kind":"user","text":"go on","ts":"not a time"}),
        json!({"id":"r2","kind":"reasoning","opaque":"enc","encrypted":true}),
        json!({"id":"a2","kind":"assistant","text":"done","usage":{"output":3}}),
        json!({"id":"c3","kind":"tool_call","call_id":"toolu_3","name":"Bash","arguments":{"command":"false"}}),
        json!({"id":"t3","kind":"tool_result","call_id":"toolu_3","content":"exit 1","ok":false}),
        json!({"id":"q","kind":"observation","subtype":"abort","text":"user"}),
        json!({"id":"mc","kind":"observation","subtype":"session.model_change","text":"gpt-5"}),
    ];
    let written = write_doc(&doc_of(&foreign), write_options());
    kit::check_diags_include(
        &written.diagnostics,
        &[
            ("not-carried", "system-prompt"),
            ("not-carried", "attachments"),
            ("not-carried", "reasoning"),
            ("not-carried", "opaque-reasoning"),
            ("not-carried", "stop-reason"),
            ("not-carried", "usage"),
            ("not-carried", "model"),
            ("not-carried", "cwd"),
            ("not-carried", "compaction"),
            ("not-carried", "orphan-tool-result"),
            ("not-carried", "observation/hook"),
            ("not-carried", "observation/session.model_change"),
            ("untranslated-reasoning", "opaque-reasoning"),
            ("placeholder", "messageId"),
            ("placeholder", "success"),
            ("placeholder", "assistant.message"),
            ("synthesized", "tool-result"),
        ],
    );
    let lines = check_events(&written.artifacts[0].bytes);
    let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "session.start",
            "user.message",
            "assistant.message",
            "tool.execution_start",
            "tool.execution_complete",
            "assistant.message",
            "tool.execution_start",
            "tool.execution_complete",
            "user.message",
            "assistant.message",
            "tool.execution_start",
            "tool.execution_complete",
            "abort",
        ]
    );
    assert_eq!(lines[0]["data"]["startTime"], "2026-11-30T03:00:00.916Z", "milliseconds and Z");
    assert_eq!(lines[1]["data"], json!({"content": "hi", "attachments": []}));
    assert_eq!(
        lines[2]["data"]["toolRequests"],
        json!([{"toolCallId": "toolu_1", "name": "Bash", "arguments": {"command": "ls"}}])
    );
    assert_eq!(lines[3]["data"], json!({"toolCallId": "toolu_1", "toolName": "Bash", "arguments": {"command": "ls"}}));
    assert_eq!(lines[4]["data"], json!({"toolCallId": "toolu_1", "success": true, "result": {"content": "a.txt"}}));
    assert_eq!(
        lines[7]["data"],
        json!({"toolCallId": "toolu_2", "success": false, "error": {"message": NO_RESULT, "code": "failure"}}),
        "the unanswered call gets an error result"
    );
    assert_eq!(lines[8]["timestamp"], lines[7]["timestamp"], "a text that is no time: the previous event's");
    assert_eq!(lines[11]["data"]["error"]["message"], "exit 1");
    assert_eq!(lines[12]["data"], json!({"reason": "user"}));

    let home = install(&written);
    let back = read(home.path(), &written.artifacts[0].path);
    assert_eq!(back.meta().title.as_deref(), Some("hi"), "the title is the first prompt");
    assert_eq!(users(&back.records), ["hi", "go on"]);
    assert_eq!(
        tool_results(&back.records),
        [("toolu_1", "a.txt", Some(true)), ("toolu_2", NO_RESULT, Some(false)), ("toolu_3", "exit 1", Some(false))]
    );
    assert_eq!(assistant_texts(&back.records), ["done"]);
}

#[test]
fn a_copilot_sources_model_changes_and_event_ids_are_kept() {
    let u = |n: u32| format!("00000000-0000-4000-8000-{n:012}");
    let sid = u(0);
    let doc = [
        json!({"id":sid,"kind":"meta","schema":"trajhost.canonical/0.1","harness":"copilot-cli","native_id":sid,"started_at":"2025-11-04T10:00:00.000Z"}),
        json!({"id":u(1),"kind":"observation","subtype":"session.model_change","text":"gpt-5","parent":sid,"ts":"2025-11-04T10:00:00.100Z"}),
        json!({"id":u(2),"kind":"user","text":"hi","parent":u(1),"ts":"2025-11-04T10:00:01.000Z"}),
        json!({"id":u(3),"kind":"assistant","text":"","message_id":u(30),"parent":u(2),"ts":"2025-11-04T10:00:02.000Z"}),
        json!({"id":"call_a","kind":"tool_call","call_id":"call_a","name":"bash","arguments":{"command":"ls"},"parent":u(3),"ts":"2025-11-04T10:00:02.000Z"}),
        json!({"id":u(5),"kind":"tool_result","call_id":"call_a","content":"x","ok":true,"parent":"call_a","ts":"2025-11-04T10:00:03.000Z"}),
        json!({"id":u(6),"kind":"assistant","text":"done","message_id":u(60),"parent":u(5),"ts":"2025-11-04T10:00:04.000Z"}),
    ];
    let options = WriteOptions { cwd: None, native_id: Some(sid.clone()), home_path: None };
    let written = write_doc(&doc_of(&doc), options);
    assert_eq!(written.native_id, sid);
    assert!(written.diagnostics.is_empty(), "{:?}", written.diagnostics);
    let lines = check_events(&written.artifacts[0].bytes);
    assert_eq!(lines[1]["type"], "session.model_change");
    assert_eq!(lines[1]["data"], json!({"newModel": "gpt-5"}));
    let back = read(install(&written).path(), &written.artifacts[0].path);
    let first: Vec<Record> = doc.iter().map(|v| serde_json::from_value(v.clone()).unwrap()).collect();
    let strip = |r: &Record| (r.id.clone(), r.body.clone(), r.parent.clone(), r.ts.clone());
    let a: Vec<_> = first.iter().skip(1).map(strip).collect();
    let b: Vec<_> = back.records.iter().skip(1).map(strip).collect();
    assert_eq!(a, b);
}

#[test]
fn write_streams_the_event_log() {
    let (source, locator) = copilot_1_0_as_flat("long-output");
    let doc = kit::document(&read(source.path(), &locator).records);
    let mut writer = CopilotCliFlat::write(write_options()).unwrap();
    let mut lines = doc.lines();
    let head: String = lines.by_ref().take(3).map(|l| format!("{l}\n")).collect();
    let chunks = writer.push(&head).unwrap();
    assert_eq!(chunks.len(), 1, "session.start and the first records go out before the rest is pushed");
    let mut bytes = chunks[0].bytes.clone();
    let rest: String = lines.map(|l| format!("{l}\n")).collect();
    for chunk in writer.push(&rest).unwrap() {
        bytes.extend_from_slice(&chunk.bytes);
    }
    let done = writer.finish().unwrap();
    for chunk in &done.chunks {
        assert!(chunk.path.ends_with(".jsonl") && !chunk.path.contains("/events"));
        bytes.extend_from_slice(&chunk.bytes);
    }
    let whole = write_doc(&doc, write_options());
    assert_eq!(bytes, whole.artifacts[0].bytes, "streamed in pieces = written at once");
}

fn lab_session() -> trajhost_codec_sdk::WrittenFiles {
    let (source, locator) = copilot_1_0_as_flat("simple");
    write_doc(&kit::document(&read(source.path(), &locator).records), write_options())
}

#[test]
fn prepare_into_an_empty_home_creates_one_flat_file() {
    let written = lab_session();
    let target_dir = tempfile::tempdir().unwrap();
    let home_path = target_dir.path().display().to_string();
    target::set_for_tests(TargetChoice { model: Some("gpt-5".into()), provider: None, allow_untested: false });
    let options = WriteOptions {
        cwd: Some("/home/user/project".into()),
        native_id: Some(written.native_id.clone()),
        home_path: Some(home_path.clone()),
    };
    let plan = prepare(&written, target_dir.path(), options.clone()).unwrap();
    assert_eq!(plan.native_id, written.native_id);
    assert_eq!(plan.operations.len(), 1, "the event log only: no folder, workspace.yaml or database");
    assert_eq!(
        plan.resume_command.as_deref().unwrap(),
        format!("cd /home/user/project && HOME={home_path} copilot --model gpt-5 --resume {}", written.native_id)
    );
    kit::apply_new_files(&plan, target_dir.path());
    let events = target_dir.path().join(&written.artifacts[0].path);
    assert_eq!(events, target_dir.path().join(format!("{STATE}/{}.jsonl", written.native_id)));
    let lines = check_events(&std::fs::read(&events).unwrap());
    assert_eq!(lines[0]["data"]["selectedModel"], "gpt-5");
    let original = std::str::from_utf8(&written.artifacts[0].bytes).unwrap();
    let installed = std::fs::read_to_string(&events).unwrap();
    let start = installed.lines().next().unwrap();
    let data = &start[start.find("{\"sessionId\"").unwrap()..start.find("},\"id\"").unwrap() + 1];
    assert_eq!(
        keys_in_order(data),
        ["sessionId", "version", "producer", "copilotVersion", "startTime", "selectedModel"]
    );
    assert_eq!(original.split_once('\n').unwrap().1, installed.split_once('\n').unwrap().1, "only the first line");
    let found = kit::discover::<CopilotCliFlat>(target_dir.path());
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].native_version.as_deref(), Some(CLI_VERSION));

    // A second prepare of the same export is refused, naming the file.
    let err = format!("{:?}", prepare(&written, target_dir.path(), options.clone()).unwrap_err());
    assert!(err.contains("already exists") && err.contains(&written.artifacts[0].path), "{err}");

    // A provider cannot be honoured.
    target::set_for_tests(TargetChoice { model: None, provider: Some("openai".into()), allow_untested: false });
    let fresh = tempfile::tempdir().unwrap();
    let err = prepare(&written, fresh.path(), options).unwrap_err();
    assert!(format!("{err:?}").contains("provider"), "{err:?}");
    target::set_for_tests(TargetChoice::default());
}

#[test]
fn prepare_into_a_home_holding_a_flat_session_changes_nothing_else() {
    let target_dir = kit::copy_of(&home());
    // Only the flat layout: the fixture's session folder is the other codec's.
    std::fs::remove_dir_all(target_dir.path().join(STATE).join("7a1d0c55-0000-4000-8000-0000000d1125")).unwrap();
    std::fs::write(target_dir.path().join(".copilot/config.json"), "{\"model\": \"claude-sonnet-4.5\"}\n").unwrap();
    let before = kit::tree_digest(target_dir.path());
    target::set_for_tests(TargetChoice::default());
    let written = lab_session();
    let plan = prepare(&written, target_dir.path(), write_options()).unwrap();
    assert_eq!(plan.resume_command.as_deref().unwrap(), format!("copilot --resume {}", written.native_id));
    kit::apply_new_files(&plan, target_dir.path());
    let mut after = kit::tree_digest(target_dir.path());
    let new = after.remove(&written.artifacts[0].path);
    assert!(new.is_some(), "{:?}", after.keys().collect::<Vec<_>>());
    kit::assert_same_tree(&before, &after, "every other file byte-identical");
    let lines = check_events(&std::fs::read(target_dir.path().join(&written.artifacts[0].path)).unwrap());
    assert_eq!(lines[0]["data"]["selectedModel"], "claude-sonnet-4.5", "the target's configured model");
    let found = kit::discover::<CopilotCliFlat>(target_dir.path());
    assert_eq!(found.sessions.len(), 2);
    let back = read(target_dir.path(), &written.artifacts[0].path);
    let (source, locator) = copilot_1_0_as_flat("simple");
    let first = read(source.path(), &locator);
    assert_eq!(users(&back.records), users(&first.records));
    assert_eq!(assistant_texts(&back.records), assistant_texts(&first.records));
}

#[test]
fn prepare_refuses_a_home_in_the_session_folder_layout_and_names_the_file() {
    target::set_for_tests(TargetChoice::default());
    let written = lab_session();
    // A home Copilot CLI 1.0.102 used: session folders and session-store.db.
    let folders = kit::copy_of(&kit::fixtures("copilot-cli", "1.0.102").join("simple"));
    let before = kit::tree_digest(folders.path());
    let err = format!("{:?}", prepare(&written, folders.path(), write_options()).unwrap_err());
    assert!(err.contains("3bd5aa99-2a3b-4c83-b3c5-c4b94a54e40d/events.jsonl"), "{err}");
    assert!(err.contains("copilot-cli@0.1.0") && err.contains("0.0.380"), "{err}");
    assert!(err.contains("Unsupported"), "{err}");
    kit::assert_same_tree(&before, &kit::tree_digest(folders.path()), "a refused prepare changes nothing");

    // The hand-written mixed home: one flat file beside one folder.
    let err = format!("{:?}", prepare(&written, &home(), write_options()).unwrap_err());
    assert!(err.contains(".copilot/session-state/7a1d0c55-0000-4000-8000-0000000d1125/events.jsonl"), "{err}");

    // Only the index of a 1.x Copilot.
    let index = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(index.path().join(STATE)).unwrap();
    std::fs::write(index.path().join(".copilot/session-store.db"), b"").unwrap();
    let err = format!("{:?}", prepare(&written, index.path(), write_options()).unwrap_err());
    assert!(err.contains(".copilot/session-store.db"), "{err}");

    // The lock folder Copilot keeps is no session.
    let locks = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(locks.path().join(STATE).join(".session-operation-locks")).unwrap();
    prepare(&written, locks.path(), write_options()).unwrap();

    // This session already in a folder of its own.
    let taken = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(taken.path().join(STATE).join(&written.native_id)).unwrap();
    let err = format!("{:?}", prepare(&written, taken.path(), write_options()).unwrap_err());
    assert!(err.contains("already holds this session"), "{err}");
}

/// The real Copilot CLI 0.0.354 sessions (fixtures/copilot-cli/0.0.354, lab):
/// (scenario, session id).
const V0354: [(&str, &str); 3] = [
    ("simple", "995a5a13-9754-4861-a3cb-ac7b5ed6077b"),
    ("parallel", "ab3f22ce-b2af-4916-b0b6-ccfb00cdb994"),
    ("multibyte", "db2f1dcd-5f66-49bd-a4d7-87d186cb6b23"),
];

#[test]
fn real_0_0_354_sessions_are_written_back_event_by_event() {
    for (scenario, id) in V0354 {
        let home = kit::fixtures("copilot-cli", "0.0.354").join(scenario);
        let locator = format!("{STATE}/{id}.jsonl");
        let first = read(&home, &locator);
        assert!(first.diagnostics.iter().all(|d| d.code == "unmapped-record-type"), "{:?}", first.diagnostics);
        assert_eq!(first.meta().native_version.as_deref(), Some("0.0.354"));
        let options = WriteOptions { cwd: None, native_id: Some(id.to_string()), home_path: None };
        let written = write_doc(&kit::document(&first.records), options);
        // What 0.0.354 writes about its own runtime when it resumes is all that is left out.
        let resumed = kit::raw_lines(&home.join(&locator)).iter().any(|e| e["type"] == "session.resume");
        let lost =
            if resumed { vec![("not-carried".to_string(), "observation/session.resume".to_string())] } else { vec![] };
        assert_eq!(codes(&written.diagnostics), lost, "{scenario}");
        assert_eq!(written.artifacts[0].path, locator);
        let ours = check_events(&written.artifacts[0].bytes);
        let theirs: Vec<Value> = kit::raw_lines(&home.join(&locator))
            .into_iter()
            .filter(|e| e["type"] != "session.resume")
            .map(|mut e| {
                // The model a resume switched from: the observation keeps the new one.
                e["data"].as_object_mut().unwrap().remove("previousModel");
                e
            })
            .collect();
        assert_eq!(ours.len(), theirs.len(), "{scenario}");
        for (o, t) in ours.iter().zip(&theirs) {
            assert_eq!((&o["type"], &o["data"]), (&t["type"], &t["data"]), "{scenario}");
            match t["type"].as_str().unwrap() {
                // Copilot logs the start a few ms after its startTime, and a
                // call's start 1 ms after its request; ids of these two are
                // not records of their own.
                "session.start" => assert_eq!(o["timestamp"], t["data"]["startTime"]),
                "tool.execution_start" => {}
                _ => assert_eq!((&o["id"], &o["timestamp"]), (&t["id"], &t["timestamp"]), "{scenario}: {t}"),
            }
        }
    }
}

/// What a home real Copilot CLI 0.0.354 used holds besides its session
/// (the suite's prepare checks leave it byte-identical): a config without a
/// model, so the log is installed as written.
#[test]
fn prepare_into_a_home_real_copilot_0_0_354_used_installs_the_log_as_written() {
    let target_dir = kit::copy_of(&kit::fixtures("copilot-cli", "0.0.354").join("simple"));
    target::set_for_tests(TargetChoice::default());
    let written = lab_session();
    let plan = prepare(&written, target_dir.path(), write_options()).unwrap();
    kit::apply_new_files(&plan, target_dir.path());
    let installed = std::fs::read(target_dir.path().join(&written.artifacts[0].path)).unwrap();
    assert_eq!(installed, written.artifacts[0].bytes, "no model configured: the log as written");
}
