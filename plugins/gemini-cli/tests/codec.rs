//! What is particular to Gemini CLI's sessions, against sessions written by
//! the real Gemini CLI (fixtures/gemini-cli) and synthetic lines. What every
//! codec must do is the testkit's suite, in tests/conformance.rs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_gemini_cli::{GeminiCli, KNOWN_RECORD_TYPES};
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, Severity};
use trajhost_codec_testkit::suite::Lab;
use trajhost_codec_testkit::{
    self as kit, Read, Spans, assistants, observations, raw_lines, tool_calls, tool_results, users,
};

const CHATS: &str = ".gemini/tmp/project/chats";
const CWD: &str = "/home/user/project";

/// The lab fixtures, as tests/conformance.json names them.
fn lab() -> Lab<GeminiCli> {
    Lab::new(include_str!("conformance.json"))
}

fn read(home: &Path, locator: &str) -> Read {
    kit::read::<GeminiCli>(home, locator)
}

// ---------------------------------------------------------------- info

// ---------------------------------------------------------------- discover

#[test]
fn discover_takes_summaries_the_registry_and_reports_oddities() {
    let dir = lab().copy("simple");
    let file = lab().table.scenario("simple").file.clone().unwrap();
    let chats = dir.path().join(CHATS);
    let main = chats.join(file);
    let mut text = std::fs::read_to_string(&main).unwrap();
    text.push_str(&format!("{}\n", json!({"$set": {"summary": "Secret word lookup"}})));
    std::fs::write(&main, text).unwrap();
    // Without `.project_root`, the project registry names the root.
    std::fs::remove_file(dir.path().join(".gemini/tmp/project/.project_root")).unwrap();
    // Not sessions: an empty file, a legacy JSON session, a file with no header, other files.
    std::fs::write(chats.join("session-2026-01-01T00-00-00000000.jsonl"), "").unwrap();
    std::fs::write(chats.join("session-2026-01-01T00-00-11111111.json"), "{}").unwrap();
    std::fs::write(chats.join("session-2026-01-01T00-00-22222222.jsonl"), "{\"$set\":{\"lastUpdated\":\"x\"}}\n")
        .unwrap();
    std::fs::write(chats.join("notes.txt"), "x").unwrap();
    std::fs::create_dir_all(dir.path().join(".gemini/tmp/bin")).unwrap();

    let found = GeminiCli::discover(&Dir::native(dir.path())).unwrap();
    assert_eq!(found.sessions.len(), 1, "{:?}", found.sessions);
    assert_eq!(found.sessions[0].title.as_deref(), Some("Secret word lookup"));
    assert_eq!(found.sessions[0].cwd.as_deref(), Some(CWD));
    let at = |name: &str| format!("{CHATS}/{name}");
    let expected = [
        ("empty-session-file", at("session-2026-01-01T00-00-00000000.jsonl")),
        ("legacy-json-session", at("session-2026-01-01T00-00-11111111.json")),
        ("malformed-head", at("session-2026-01-01T00-00-22222222.jsonl")),
        ("unrecognized-file", at("notes.txt")),
    ];
    kit::check_named_files(&found.diagnostics, &expected);
}

#[test]
fn a_renamed_session_file_is_read_by_its_header() {
    let dir = lab().copy("simple");
    let (file, id) = (lab().table.scenario("simple").file.clone().unwrap(), lab().id("simple"));
    let chats = dir.path().join(CHATS);
    std::fs::rename(chats.join(file), chats.join("copy.jsonl")).unwrap();
    std::fs::create_dir(chats.join("not-a-session")).unwrap();
    let found = kit::discover::<GeminiCli>(dir.path());
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].native_id, id);
    assert_eq!(found.diagnostics.len(), 1, "{:?}", found.diagnostics);
    assert!(kit::file_diag(&found.diagnostics, "unrecognized-file", &format!("{CHATS}/not-a-session")).is_some());
    let read = kit::conformance::<GeminiCli>(dir.path(), &format!("{CHATS}/copy.jsonl"), Spans::Lines);
    assert_eq!(read.meta().native_id, id);
}

// ---------------------------------------------------------------- read

/// The call is re-emitted and checkpointed, its response stored in the
/// call, a user message and twice in the resume checkpoint: the suite
/// finds one of each; the repeats are counted.
#[test]
fn repeats_are_counted_and_the_session_context_kept_once() {
    let read = lab().read("simple");
    let dup = read.diag("duplicate-tool-response").expect("repeats are counted");
    assert_eq!((dup.count, dup.severity), (3, Severity::Info));
    assert_eq!(lab().read("parallel").diag("duplicate-tool-response").unwrap().count, 2, "one message, two responses");
    let obs = observations(&read.records);
    let contexts: Vec<_> = obs.iter().filter(|(s, _)| *s == "session_context").collect();
    assert_eq!(contexts.len(), 1, "{obs:?}");
    assert!(contexts[0].1.unwrap().starts_with("<session_context>"));
    assert_eq!(obs.iter().filter(|(s, _)| *s == "resume").count(), 1, "the resume wrote a second header");
    let result = read.records.iter().find(|r| matches!(r.body, Body::ToolResult { .. })).unwrap();
    assert_eq!(result.parent.as_deref(), Some(tool_calls(&read.records)[0].0));
}

#[test]
fn a_failing_shell_call_is_recorded_as_a_success() {
    // The suite's table expects `ok`: Gemini CLI records the shell call's
    // status as `success` despite the exit code.
    let raw = raw_lines(&lab().path("failing-tool"));
    let status = raw.iter().find_map(|l| l["toolCalls"][0]["status"].as_str()).unwrap();
    assert_eq!(status, "success");
}

#[test]
fn long_output_without_its_spill_file_keeps_the_truncated_text() {
    let dir = lab().copy("long-output");
    std::fs::remove_dir_all(dir.path().join(".gemini/tmp/project/tool-outputs")).unwrap();
    let read = read(dir.path(), &lab().locator("long-output"));
    let results = tool_results(&read.records);
    assert!(results[0].1.starts_with("Output too large. Showing first 8,000"));
    assert!(results[0].1.contains("LONG-OUTPUT-BEGIN LEMON-512"));
    assert_eq!(read.diag("persisted-output-missing").unwrap().severity, Severity::Info);
}

#[test]
fn message_ids_name_records_and_results_their_calls() {
    for (scenario, _) in lab().ids() {
        for r in &lab().read(scenario).records {
            match &r.body {
                Body::Assistant(x) => {
                    assert_eq!(Some(r.id.as_str()), x.message_id.as_deref());
                    assert_eq!(x.stop_reason, None, "not recorded");
                }
                Body::ToolResult { call_id, .. } => assert_eq!(r.id, format!("{call_id}#result")),
                _ => {}
            }
            assert_eq!(r.agent, None);
        }
    }
}

/// The suite checks the lines' types; messages inside checkpoints too.
#[test]
fn messages_inside_checkpoints_have_known_types() {
    let known: BTreeSet<&str> = KNOWN_RECORD_TYPES.iter().map(|(k, _)| *k).collect();
    for (scenario, _) in lab().ids() {
        for line in raw_lines(&lab().path(scenario)) {
            for message in line["$set"]["messages"].as_array().into_iter().flatten() {
                let kind = message["type"].as_str().unwrap();
                assert!(known.contains(kind), "{scenario}: message type {kind:?} in a checkpoint");
            }
        }
    }
}

// ---------------------------------------------------------------- damage

// ---------------------------------------------------------------- synthetic shapes

const SID: &str = "aaaaaaaa-0000-0000-0000-000000000000";
const FILE: &str = "session-2026-01-01T00-00-aaaaaaaa.jsonl";

fn synthetic(lines: &[Value]) -> tempfile::TempDir {
    let dir = kit::home_with_lines(&format!("{CHATS}/{FILE}"), lines);
    std::fs::write(dir.path().join(".gemini/tmp/project/.project_root"), "/w\n").unwrap();
    dir
}

fn header() -> Value {
    json!({"sessionId": SID, "projectHash": "h", "startTime": "2026-01-01T00:00:00.000Z", "lastUpdated": "2026-01-01T00:00:00.000Z", "kind": "main"})
}

fn message(id: &str, kind: &str, content: Value) -> Value {
    json!({"id": id, "timestamp": "2026-01-01T00:00:01.000Z", "type": kind, "content": content})
}

/// A `gemini` message with a thought, its model and tokens, a failed call
/// and a cancelled one without a result.
fn answer_with_thoughts_and_calls() -> Value {
    let mut answer = message("g1", "gemini", json!("Let me look."));
    answer["thoughts"] =
        json!([{"subject": "Plan", "description": "read it", "timestamp": "2026-01-01T00:00:02.000Z"}]);
    answer["model"] = json!("gemini-2.5-pro");
    answer["tokens"] = json!({"input": 50, "output": 7, "cached": 30, "thoughts": 4, "tool": 0, "total": 61});
    answer["toolCalls"] = json!([
        {"id": "c1", "name": "read_file", "args": {"file_path": "/w/x"}, "status": "error", "timestamp": "2026-01-01T00:00:03.000Z",
         "result": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"error": "File not found"}}}]},
        {"id": "c2", "name": "run_shell_command", "args": {"command": "ls"}, "status": "cancelled", "result": null},
    ]);
    answer
}

#[test]
fn thoughts_notices_rewinds_errors_and_unknown_shapes() {
    let answer = answer_with_thoughts_and_calls();
    let dir = synthetic(&[
        header(),
        message(
            "u1",
            "user",
            json!([{"text": "hi "}, {"text": "there"}, {"inlineData": {"mimeType": "image/png", "data": "AAAA"}}]),
        ),
        answer,
        // A response with no recorded call result: read from the user message.
        message(
            "u2",
            "user",
            json!([{"functionResponse": {"id": "c2", "name": "run_shell_command", "response": {"output": "cancelled by user"}}}]),
        ),
        message("i1", "info", json!("Switched model")),
        message("w1", "warning", json!([{"text": "Low quota"}])),
        message("e1", "error", json!("API error 500")),
        json!({"$rewindTo": "i1"}),
        message("x1", "brand-new-type", json!("?")),
        message(
            "g2",
            "gemini",
            json!([{"text": "thinking", "thought": true}, {"brandNewPart": {}}, {"text": "Done."}]),
        ),
        json!({"$set": {"brandNewKey": 1, "memoryScratchpad": "m"}}),
        json!({"something": "else"}),
    ]);
    let read = read(dir.path(), &format!("{CHATS}/{FILE}"));
    let kinds: Vec<(&str, &str)> = read.records.iter().map(|r| (r.body.kind(), r.id.as_str())).collect();
    assert_eq!(
        kinds,
        [
            ("meta", SID),
            ("user", "u1"),
            ("reasoning", "g1#thought0"),
            ("assistant", "g1"),
            ("tool_call", "c1"),
            ("tool_call", "c2"),
            ("tool_result", "c1#result"),
            ("tool_result", "c2#result"),
            ("observation", "i1"),
            ("observation", "w1"),
            ("observation", "e1"),
            ("observation", kinds[11].1),
            ("reasoning", "g2#thought0"),
            ("assistant", "g2"),
        ]
    );
    let by_id = |id: &str| read.records.iter().find(|r| r.id == id).unwrap();
    let Body::User { text, attachments } = &by_id("u1").body else { panic!() };
    assert_eq!(text, "hi there");
    assert_eq!((attachments[0].kind.as_str(), attachments[0].media_type.as_deref()), ("image", Some("image/png")));
    let Body::Reasoning(r) = &by_id("g1#thought0").body else { panic!() };
    assert_eq!(r.text.as_deref(), Some("**Plan** read it"));
    assert_eq!(by_id("g1#thought0").ts.as_deref(), Some("2026-01-01T00:00:02.000Z"));
    let answers = assistants(&read.records);
    assert_eq!(answers[0].model.as_deref(), Some("gemini-2.5-pro"));
    let usage = answers[0].usage.as_ref().unwrap();
    assert_eq!((usage.input, usage.output, usage.cache_read, usage.reasoning), (Some(20), Some(7), Some(30), Some(4)));
    assert_eq!(answers[1].text, "Done.");
    assert_eq!(answers[1].usage, None, "no tokens recorded");
    assert_eq!(answers[1].model, None);
    assert_eq!(tool_results(&read.records), [("c1", "File not found", Some(false)), ("c2", "cancelled by user", None)]);
    assert_eq!(by_id("c1#result").ts.as_deref(), Some("2026-01-01T00:00:03.000Z"));
    assert_eq!(observations(&read.records)[3], ("rewind", Some("i1")));
    assert_eq!(observations(&read.records)[0], ("info", Some("Switched model")));

    let details = |code: &str| -> Vec<(String, u32)> {
        read.diagnostics.iter().filter(|d| d.code == code).map(|d| (d.detail.clone(), d.count)).collect()
    };
    assert_eq!(
        details("unknown-record-type"),
        [
            ("$set.brandNewKey".to_string(), 1),
            ("(unrecognized line)".to_string(), 1),
            ("brand-new-type".to_string(), 1)
        ]
    );
    assert_eq!(details("unknown-content-part"), [("gemini/brandNewPart".to_string(), 1)]);
    assert_eq!(details("unmapped-record-type"), [("$set.memoryScratchpad".to_string(), 1)]);
    assert!(read.diagnostics.iter().all(|d| d.code != "duplicate-tool-response"));
}

#[test]
fn checkpoints_add_only_new_messages() {
    let mut call =
        message("g1", "gemini", json!([{"functionCall": {"id": "c1", "name": "glob", "args": {"pattern": "*"}}}]));
    call["model"] = json!("m");
    let dir = synthetic(&[
        header(),
        message("u1", "user", json!([{"text": "first"}])),
        call.clone(),
        message(
            "g1_response",
            "user",
            json!([{"functionResponse": {"id": "c1", "name": "glob", "response": {"output": "a.txt"}}}]),
        ),
        // Compression: a summary the history did not hold, then the tail again.
        json!({"$set": {"messages": [
            message("s1", "user", json!([{"text": "Summary of the conversation so far"}])),
            call,
            message("g1_response", "user", json!([{"functionResponse": {"id": "c1", "name": "glob", "response": {"output": "a.txt"}}}])),
        ], "lastUpdated": "x"}}),
    ]);
    let read = read(dir.path(), &format!("{CHATS}/{FILE}"));
    assert_eq!(users(&read.records), ["first", "Summary of the conversation so far"]);
    assert_eq!(tool_calls(&read.records).len(), 1);
    assert_eq!(tool_results(&read.records), [("c1", "a.txt", None)]);
    assert_eq!(read.diag("duplicate-tool-response").unwrap().count, 1);
    let summary = read.records.iter().find(|r| r.id == "s1").unwrap();
    let set_offset = std::fs::read_to_string(dir.path().join(CHATS).join(FILE)).unwrap().find("{\"$set\"").unwrap();
    assert_eq!(summary.src.as_ref().unwrap().offset, set_offset as u64);
}

#[test]
fn subagent_sessions_follow_the_main_one() {
    let mut call = message("g1", "gemini", json!(""));
    call["toolCalls"] = json!([{"id": "c1", "name": "codebase_investigator", "args": {"objective": "find"}, "status": "success",
        "agentId": "child-1", "result": [{"functionResponse": {"id": "c1", "name": "codebase_investigator", "response": {"output": "found"}}}]}]);
    let dir = synthetic(&[header(), message("u1", "user", json!("go")), call]);
    let sub = dir.path().join(CHATS).join(SID);
    std::fs::create_dir_all(&sub).unwrap();
    let child = [
        json!({"sessionId": "child-1", "projectHash": "h", "startTime": "2026-01-01T00:00:05.000Z", "lastUpdated": "x", "kind": "subagent"}),
        message("cu1", "user", json!("find the file")),
        message("cg1", "gemini", json!("Found it")),
    ];
    let text: String = child.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(sub.join("child-1.jsonl"), &text).unwrap();

    let found = GeminiCli::discover(&Dir::native(dir.path())).unwrap();
    assert_eq!(found.sessions.len(), 1, "subagent files are not sessions");
    let main_len = std::fs::metadata(dir.path().join(CHATS).join(FILE)).unwrap().len();
    assert_eq!(found.sessions[0].size, main_len + text.len() as u64);
    assert_eq!(found.sessions[0].cwd.as_deref(), Some("/w"));

    let read = read(dir.path(), &format!("{CHATS}/{FILE}"));
    let metas: Vec<&Record> = read.records.iter().filter(|r| matches!(r.body, Body::Meta(_))).collect();
    assert_eq!(metas.len(), 2);
    let Body::Meta(child_meta) = &metas[1].body else { panic!() };
    assert_eq!(child_meta.native_id, "child-1");
    assert_eq!(child_meta.parent_session.as_deref(), Some(SID));
    assert_eq!(child_meta.parent_call.as_deref(), Some("c1"));
    assert_eq!(metas[1].agent.as_deref(), Some("child-1"));
    let first_child = read.records.iter().position(|r| r.id == "child-1").unwrap();
    assert!(read.records[..first_child].iter().all(|r| r.agent.is_none()));
    assert!(read.records[first_child..].iter().all(|r| r.agent.as_deref() == Some("child-1")));
    assert!(assistants(&read.records).iter().any(|a| a.text == "Found it"));
}

// ---------------------------------------------------------------- no header line

/// This crate's own checkout of the fixtures (not the testkit's
/// `fixtures_root()`, which names the checkout the testkit was built from).
fn headerless_home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/gemini-cli/headerless-jsonl/home")
}

const NO_ID: &str = ".gemini/tmp/3a5c7e9b1d2f4a6c8e0b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4c/chats/session-2025-11-20T14-30-5e8a1c3f.jsonl";
const REPEATED: &str = ".gemini/tmp/repeated/chats/session-2025-11-21T09-00-c0ffee12.jsonl";

#[test]
fn a_file_without_its_header_line_is_still_a_session() {
    let found = kit::discover::<GeminiCli>(&headerless_home());
    let mut sessions = found.sessions.clone();
    sessions.sort_by(|a, b| a.locator.cmp(&b.locator));
    assert_eq!(sessions.len(), 2, "{:?}", found.diagnostics);
    // No id anywhere: the file name names it. A `sessionId` on the messages wins.
    assert_eq!(sessions[0].native_id, "session-2025-11-20T14-30-5e8a1c3f");
    assert_eq!(sessions[0].started_at.as_deref(), Some("2025-11-20T14:30:05.000Z"));
    assert_eq!(sessions[0].title.as_deref(), Some("rename the helper to parseArgs"));
    assert_eq!(sessions[1].native_id, "c0ffee12-3456-4789-abcd-ef0123456789");
    for locator in [NO_ID, REPEATED] {
        assert!(kit::file_diag(&found.diagnostics, "no-session-header", locator).is_some(), "{:?}", found.diagnostics);
    }

    let read = kit::conformance::<GeminiCli>(&headerless_home(), NO_ID, Spans::Lines);
    assert_eq!(read.meta().native_id, "session-2025-11-20T14-30-5e8a1c3f");
    assert_eq!(users(&read.records), vec!["rename the helper to parseArgs"]);
    let texts: Vec<&str> = assistants(&read.records).iter().map(|a| a.text.as_str()).collect();
    assert_eq!(texts, vec!["I will search for the helper first.", "Renamed in src/cli.ts."]);
    assert_eq!(tool_calls(&read.records).len(), 1);
    assert!(tool_results(&read.records).is_empty(), "the calls recorded no result");
    assert!(read.diag("no-session-header").is_some());

    let read = kit::conformance::<GeminiCli>(&headerless_home(), REPEATED, Spans::Lines);
    assert_eq!(read.meta().native_id, "c0ffee12-3456-4789-abcd-ef0123456789");
    assert_eq!(users(&read.records), vec!["what time is it"]);
    let texts: Vec<&str> = assistants(&read.records).iter().map(|a| a.text.as_str()).collect();
    assert_eq!(texts, vec!["I cannot see a clock.", "Try the date command."], "`model` reads as `gemini`");
}

// ---------------------------------------------------------------- write

use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::{AddJsonEntry, CreateFile};
use trajhost_codec_sdk::{CodecError, Operation, Plan, WriteOptions, WrittenFiles};

fn no_options() -> WriteOptions {
    WriteOptions { cwd: None, native_id: None, home_path: None }
}

fn write(document: &str, options: WriteOptions) -> WrittenFiles {
    kit::suite::write::<GeminiCli>(document, options)
}

fn session_artifact(written: &WrittenFiles) -> &trajhost_codec_sdk::Artifact {
    written.artifacts.iter().find(|a| a.path.ends_with(".jsonl")).expect("a session file")
}

/// Puts written artifacts into a fresh home and reads the session back.
fn read_back(written: &WrittenFiles) -> (tempfile::TempDir, Read) {
    kit::read_installed::<GeminiCli>(written, &session_artifact(written).path)
}

/// A record without what a rewrite changes by design: its source span, the
/// ids of records named by their place in the file (`<file>@<offset>`:
/// resume headers), and for `meta` the session id and codec.
fn comparable(record: &Record) -> Value {
    let mut v = serde_json::to_value(record).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("src");
    if o.get("id").and_then(Value::as_str).is_some_and(|id| id.contains(".jsonl@")) {
        o.remove("id");
    }
    if o.get("kind") == Some(&json!("meta")) {
        for k in ["id", "native_id", "codec"] {
            o.remove(k);
        }
    }
    v
}

/// The suite round-trips every record; the session goes with its marker.
#[test]
fn a_written_session_is_its_file_and_the_project_root_marker() {
    for (name, _) in lab().ids() {
        let written = write(&lab().read(name).document, no_options());
        assert_eq!(written.artifacts.len(), 2, "{name}: the session file and its .project_root");
    }
}

#[test]
fn write_produces_the_file_gemini_cli_names_and_loads() {
    let source = lab().read("simple");
    let written = write(&source.document, no_options());
    let id = &written.native_id;
    assert_eq!(id.len(), 36);
    assert_eq!(&id[14..15], "4");
    let artifact = session_artifact(&written);
    assert_eq!(artifact.path, format!("{CHATS}/session-2026-11-30T04-15-{}.jsonl", &id[..8]));
    let marker = written.artifacts.iter().find(|a| a.path.ends_with(".project_root")).unwrap();
    assert_eq!(marker.path, ".gemini/tmp/project/.project_root");
    assert_eq!(marker.bytes, CWD.as_bytes());
    let lines: Vec<Value> =
        std::str::from_utf8(&artifact.bytes).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let h = &lines[0];
    assert_eq!(h["sessionId"], id.as_str());
    assert_eq!(h["projectHash"], "9dad1e4e08b0b11cbcd860257e8bdfa6b8e5f01790e10a6a0b1f4870c13e686b");
    assert_eq!(h["startTime"], "2026-11-30T04:15:48.630Z");
    assert_eq!(h["kind"], "main");
    // One line per message id; the call carries its result and status.
    let ids: Vec<&str> = lines.iter().filter_map(|l| l["id"].as_str()).collect();
    assert_eq!(ids.len(), ids.iter().collect::<BTreeSet<_>>().len());
    let call = lines.iter().find(|l| l["toolCalls"].is_array()).unwrap();
    assert_eq!(call["type"], "gemini");
    let tc = &call["toolCalls"][0];
    assert_eq!(tc["name"], "run_shell_command");
    assert_eq!(tc["status"], "success");
    let out = tc["result"][0]["functionResponse"]["response"]["output"].as_str().unwrap();
    assert!(out.contains("PAPAYA-42"));
    // No separate user copy of the response (the resume rebuilds it from the call).
    assert!(!lines.iter().any(|l| l["type"] == "user" && l["content"][0]["functionResponse"].is_object()));
    // The resume is a second header, the last line sets lastUpdated.
    assert_eq!(lines.iter().filter(|l| l["sessionId"].is_string()).count(), 2);
    assert_eq!(lines.last().unwrap()["$set"]["lastUpdated"], "2026-11-30T04:15:56.956Z");
    // Deterministic, and the chosen id and cwd are used.
    let again = write(&source.document, no_options());
    assert_eq!(session_artifact(&again).bytes, artifact.bytes);
    let chosen = "0193a1b2-0000-4000-8000-000000000001";
    let w = write(
        &source.document,
        WriteOptions { cwd: Some("/srv/My Work/".into()), native_id: Some(chosen.into()), ..no_options() },
    );
    assert_eq!(w.native_id, chosen);
    assert_eq!(session_artifact(&w).path, ".gemini/tmp/my-work/chats/session-2026-11-30T04-15-0193a1b2.jsonl");
    let err = trajhost_codec_sdk::write_document::<GeminiCli>(
        &source.document,
        WriteOptions { native_id: Some("nope".into()), ..no_options() },
    )
    .unwrap_err();
    assert!(matches!(err, CodecError::Other(_)), "{err:?}");
}

/// A session of another harness with what Gemini CLI has no place for.
fn foreign_document() -> String {
    let records = [
        json!({"id":"m","kind":"meta","schema":"trajhost.canonical/0.1","harness":"claude-code","native_id":"abc","cwd":CWD,"title":"Secret word","started_at":"2026-11-30T04:05:50.000Z"}),
        json!({"id":"s1","kind":"system","text":"You are Claude Code"}),
        json!({"id":"u1","kind":"user","text":"Read hello.txt and tell me the secret word.","attachments":[{"kind":"image"}],"ts":"2026-11-30T04:05:51.000Z"}),
        json!({"id":"r1","kind":"reasoning","text":"I should read the file.","opaque":"sig","ts":"2026-11-30T04:05:52.000Z"}),
        json!({"id":"a1","kind":"assistant","text":"Let me read it.","model":"claude-sonnet-4-5","message_id":"msg_1","stop_reason":"tool_use","usage":{"input":10,"output":5,"cache_read":100,"cache_write":20},"ts":"2026-11-30T04:05:52.000Z"}),
        json!({"id":"c1","kind":"tool_call","call_id":"toolu_01","name":"Bash","arguments":{"command":"cat hello.txt"},"ts":"2026-11-30T04:05:52.000Z"}),
        json!({"id":"c1r","kind":"tool_result","call_id":"toolu_01","content":"PAPAYA-42","ts":"2026-11-30T04:05:53.000Z"}),
        json!({"id":"c2","kind":"tool_call","call_id":"toolu_02","name":"Read","arguments":"raw text","ts":"2026-11-30T04:05:54.000Z"}),
        json!({"id":"c2r","kind":"tool_result","call_id":"toolu_02","content":"no such file","ok":false,"ts":"2026-11-30T04:05:55.000Z"}),
        json!({"id":"x","kind":"tool_result","call_id":"toolu_99","content":"orphan","ts":"2026-11-30T04:05:55.000Z"}),
        json!({"id":"o1","kind":"observation","subtype":"system/turn_duration","ts":"2026-11-30T04:05:56.000Z"}),
        json!({"id":"k1","kind":"compaction","summary":"earlier","ts":"2026-11-30T04:05:56.500Z"}),
        json!({"id":"a2","kind":"assistant","text":"FINAL ANSWER: PAPAYA-42","model":"claude-sonnet-4-5","ts":"2026-11-30T04:05:57.000Z"}),
        json!({"id":"sm","kind":"meta","schema":"trajhost.canonical/0.1","harness":"claude-code","native_id":"agent-1","agent":"agent-1"}),
        json!({"id":"sa","kind":"user","text":"subagent prompt","agent":"agent-1"}),
        json!({"id":"z","kind":"future_kind"}),
    ];
    records.iter().map(|r| format!("{r}\n")).collect()
}

#[test]
fn write_from_another_harness_names_what_does_not_carry() {
    let written = write(&foreign_document(), no_options());
    let d = &written.diagnostics;
    kit::check_reported(
        d,
        "not-carried",
        &[
            "system",
            "attachments",
            "opaque-reasoning",
            "stop-reason",
            "usage.cache_write",
            "orphan-tool-result",
            "observation/system/turn_duration",
            "compaction",
            "subagent-transcript",
            "unknown-kind/future_kind",
        ],
    );
    assert_eq!(kit::diag_with(d, "not-carried", "subagent-transcript").unwrap().count, 2);
    assert!(kit::diag_with(d, "reshaped", "tool_call.arguments").is_some());
    assert!(kit::diag_with(d, "placeholder", "toolCalls.status").is_some());
    assert!(kit::diag(d, "untranslated-reasoning").is_none(), "readable reasoning is carried as thoughts");
    let text = std::str::from_utf8(&session_artifact(&written).bytes).unwrap();
    for absent in ["You are Claude Code", "subagent prompt", "orphan", "\"sig\""] {
        assert!(!text.contains(absent), "{absent} was written");
    }
    let (_tmp, back) = read_back(&written);
    assert_eq!(back.meta().title.as_deref(), Some("Secret word"));
    assert_eq!(users(&back.records), ["Read hello.txt and tell me the secret word."]);
    let texts: Vec<&str> = assistants(&back.records).iter().map(|a| a.text.as_str()).collect();
    assert_eq!(texts, ["Let me read it.", "", "FINAL ANSWER: PAPAYA-42"]);
    let calls = tool_calls(&back.records);
    assert_eq!(calls[0], ("toolu_01", "Bash", &json!({"command": "cat hello.txt"})));
    assert_eq!(calls[1], ("toolu_02", "Read", &json!({"input": "raw text"})));
    assert_eq!(
        tool_results(&back.records),
        [("toolu_01", "PAPAYA-42", Some(true)), ("toolu_02", "no such file", Some(false))]
    );
    let thought = back.records.iter().find_map(|r| match &r.body {
        Body::Reasoning(x) => x.text.clone(),
        _ => None,
    });
    assert_eq!(thought.as_deref(), Some("I should read the file."));
    let usage = assistants(&back.records)[0].usage.clone().unwrap();
    assert_eq!((usage.input, usage.output, usage.cache_read), (Some(10), Some(5), Some(100)));
    assert_eq!(assistants(&back.records)[0].model.as_deref(), Some("claude-sonnet-4-5"));
}

/// Gemini CLI's resume leaves user messages that start with `/` or `?` out
/// of the history (typed commands): another harness's prompt that starts so
/// is guarded, reported, and reads back as it was.
#[test]
fn a_prompt_that_looks_like_a_command_is_guarded_and_reads_back_whole() {
    let records = [
        json!({"id":"m","kind":"meta","schema":"trajhost.canonical/0.1","harness":"aider","native_id":"s1","cwd":CWD}),
        json!({"id":"u1","kind":"user","text":"/run cat hello.txt","ts":"2026-11-30T04:05:50.000Z"}),
        json!({"id":"u2","kind":"user","text":"  ? what does it say","ts":"2026-11-30T04:05:51.000Z"}),
        json!({"id":"u3","kind":"user","text":"a path /tmp/x is fine","ts":"2026-11-30T04:05:52.000Z"}),
    ];
    let document: String = records.iter().map(|r| format!("{r}\n")).collect();
    let written = write(&document, no_options());
    let reshaped = kit::diag_with(&written.diagnostics, "reshaped", "user.text").expect("a reshaped diagnostic");
    assert_eq!(reshaped.count, 2);
    let text = std::str::from_utf8(&session_artifact(&written).bytes).unwrap();
    let prompts: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "user")
        .map(|v| v["content"][0]["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(prompts, ["\u{200B}/run cat hello.txt", "\u{200B}  ? what does it say", "a path /tmp/x is fine"]);
    for prompt in &prompts {
        // Gemini CLI's rule: JavaScript's trim, then `/` or `?` first.
        let trimmed = prompt.trim_matches(|c: char| c.is_whitespace() || c == '\u{FEFF}');
        assert!(!trimmed.starts_with('/') && !trimmed.starts_with('?'), "{prompt:?} would be skipped");
    }
    let (_tmp, back) = read_back(&written);
    assert_eq!(users(&back.records), ["/run cat hello.txt", "  ? what does it say", "a path /tmp/x is fine"]);
}

#[test]
fn write_needs_a_working_directory() {
    let doc = "{\"id\":\"m\",\"kind\":\"meta\",\"schema\":\"trajhost.canonical/0.1\",\"harness\":\"x\",\"native_id\":\"a\"}\n\
               {\"id\":\"u\",\"kind\":\"user\",\"text\":\"hi\"}\n";
    let err = trajhost_codec_sdk::write_document::<GeminiCli>(doc, no_options()).unwrap_err();
    assert!(format!("{err:?}").contains("--cwd"), "{err:?}");
    let ok = write(doc, WriteOptions { cwd: Some("/w".into()), ..no_options() });
    assert!(session_artifact(&ok).path.starts_with(".gemini/tmp/w/chats/session-1970-01-01T00-00-"));
    let bad = trajhost_codec_sdk::write_document::<GeminiCli>("{nope\n", no_options()).unwrap_err();
    assert!(matches!(bad, CodecError::Malformed(_)), "{bad:?}");
}

// ---------------------------------------------------------------- prepare

fn prepare(written: &WrittenFiles, target: &Path, options: WriteOptions) -> Result<Plan, CodecError> {
    trajhost_codec_sdk::prepare_artifacts::<GeminiCli>(written.artifacts.clone(), &Dir::native(target), options)
}

fn target_options(target: &Path) -> WriteOptions {
    WriteOptions { cwd: Some(CWD.into()), native_id: None, home_path: Some(target.to_string_lossy().into_owned()) }
}

/// Applies a plan the way the host does (files created, JSON entries added).
fn execute(plan: &Plan, home: &Path) {
    for op in &plan.operations {
        match op {
            Operation::CreateFile(CreateFile { path, bytes }) => kit::create_new_file(home, path, bytes),
            Operation::AddJsonEntry(AddJsonEntry { path, pointer, key, value, initial, .. }) => {
                let path = home.join(path);
                let mut doc: Value = match std::fs::read(&path) {
                    Ok(bytes) => serde_json::from_slice(&bytes).unwrap(),
                    Err(_) => serde_json::from_str(initial.as_deref().unwrap()).unwrap(),
                };
                let at = doc.pointer_mut(pointer).unwrap().as_object_mut().unwrap();
                let key = key.clone().unwrap();
                let value: Value = serde_json::from_str(value).unwrap();
                assert!(at.get(&key).is_none_or(|v| *v == value), "changes an existing entry");
                at.insert(key, value);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
            }
            other => panic!("unexpected operation {other:?}"),
        }
    }
}

#[test]
fn prepare_into_a_fresh_home_registers_the_project() {
    let written = write(&lab().read("parallel").document, no_options());
    let target = tempfile::tempdir().unwrap();
    trajhost_codec_sdk::target::set_for_tests(Default::default());
    let plan = prepare(&written, target.path(), target_options(target.path())).unwrap();
    assert_eq!(plan.native_id, written.native_id);
    let entry = plan.operations.iter().find_map(|op| match op {
        Operation::AddJsonEntry(e) => Some(e),
        _ => None,
    });
    let entry = entry.expect("a registry entry");
    assert_eq!(
        (entry.path.as_str(), entry.pointer.as_str(), entry.key.as_deref()),
        (".gemini/projects.json", "/projects", Some(CWD))
    );
    assert_eq!(entry.value, "\"project\"");
    assert_eq!(
        plan.resume_command.as_deref(),
        Some(
            format!("cd {CWD} && GEMINI_CLI_HOME={} gemini --resume {}", target.path().display(), written.native_id)
                .as_str()
        )
    );
    execute(&plan, target.path());
    assert_eq!(std::fs::read_to_string(target.path().join(".gemini/tmp/project/.project_root")).unwrap(), CWD);
    assert_eq!(std::fs::read_to_string(target.path().join(".gemini/history/project/.project_root")).unwrap(), CWD);
    // Discovered and read in the target like a session Gemini CLI wrote.
    let found = kit::discover::<GeminiCli>(target.path());
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].native_id, written.native_id);
    let back = read(target.path(), &found.sessions[0].locator);
    assert_eq!(back.meta().cwd.as_deref(), Some(CWD));
    assert_eq!(tool_calls(&back.records).len(), 2);
    // A second prepare of the same session is refused.
    let err = prepare(&written, target.path(), target_options(target.path())).unwrap_err();
    assert!(format!("{err:?}").contains("never overwritten"), "{err:?}");
}

#[test]
fn prepare_into_a_home_with_gemini_sessions_adds_only_the_file() {
    let written = write(&lab().read("simple").document, no_options());
    let target = lab().copy("failing-tool");
    let before = kit::files_of(target.path());
    trajhost_codec_sdk::target::set_for_tests(Default::default());
    let plan = prepare(&written, target.path(), target_options(target.path())).unwrap();
    // The registry maps the cwd already and its markers exist: one new file.
    assert_eq!(plan.operations.len(), 1, "{:?}", plan.operations);
    let Operation::CreateFile(f) = &plan.operations[0] else { panic!() };
    assert!(f.path.starts_with(".gemini/tmp/project/chats/session-2026-11-30T04-15-"), "{}", f.path);
    execute(&plan, target.path());
    let after = kit::files_of(target.path());
    kit::assert_files_kept(&before, &after);
    assert_eq!(after.len(), before.len() + 1);
    let found = kit::discover::<GeminiCli>(target.path());
    assert_eq!(found.sessions.len(), 2);
}

#[test]
fn prepare_claims_a_new_slug_beside_another_project() {
    let written = write(&lab().read("simple").document, no_options());
    let target = lab().copy("simple");
    let other = "/srv/other/project";
    trajhost_codec_sdk::target::set_for_tests(Default::default());
    let options = WriteOptions { cwd: Some(other.into()), ..target_options(target.path()) };
    let plan = prepare(&written, target.path(), options).unwrap();
    let entry = plan.operations.iter().find_map(|op| match op {
        Operation::AddJsonEntry(e) => Some(e),
        _ => None,
    });
    assert_eq!(entry.unwrap().value, "\"project-1\"", "`project` belongs to /home/user/project");
    let file = plan.operations.iter().find_map(|op| match op {
        Operation::CreateFile(f) if f.path.ends_with(".jsonl") => Some(f),
        _ => None,
    });
    let file = file.unwrap();
    assert!(file.path.starts_with(".gemini/tmp/project-1/chats/"));
    let header: Value = serde_json::from_slice(file.bytes.split(|b| *b == b'\n').next().unwrap()).unwrap();
    let hash = trajhost_codec_gemini_cli::write::project_hash(other);
    assert_eq!(header["projectHash"], hash.as_str());
    assert!(!std::str::from_utf8(&file.bytes).unwrap().contains("9dad1e4e08b0b11cbcd8"), "every header rewritten");
    execute(&plan, target.path());
    let registry: Value =
        serde_json::from_slice(&std::fs::read(target.path().join(".gemini/projects.json")).unwrap()).unwrap();
    assert_eq!(registry["projects"][CWD], "project");
    assert_eq!(registry["projects"][other], "project-1");
}

#[test]
fn prepare_takes_the_model_and_refuses_other_providers() {
    let written = write(&lab().read("simple").document, no_options());
    let target = tempfile::tempdir().unwrap();
    trajhost_codec_sdk::target::set_for_tests(trajhost_codec_sdk::target::TargetChoice {
        model: Some("gemini-2.5-pro".into()),
        provider: Some("Google".into()),
        allow_untested: false,
    });
    let plan =
        prepare(&written, target.path(), WriteOptions { home_path: None, ..target_options(target.path()) }).unwrap();
    assert_eq!(
        plan.resume_command.as_deref(),
        Some(format!("cd {CWD} && gemini -m gemini-2.5-pro --resume {}", written.native_id).as_str())
    );
    trajhost_codec_sdk::target::set_for_tests(trajhost_codec_sdk::target::TargetChoice {
        provider: Some("openai".into()),
        ..Default::default()
    });
    let err = prepare(&written, target.path(), target_options(target.path())).unwrap_err();
    assert!(format!("{err:?}").contains("Gemini API"), "{err:?}");
    trajhost_codec_sdk::target::set_for_tests(trajhost_codec_sdk::target::TargetChoice {
        model: Some(" bad\n".into()),
        ..Default::default()
    });
    assert!(prepare(&written, target.path(), target_options(target.path())).is_err());
    trajhost_codec_sdk::target::set_for_tests(Default::default());
    // The requested native id must be the written one.
    let err = prepare(
        &written,
        target.path(),
        WriteOptions {
            native_id: Some("0193a1b2-0000-4000-8000-000000000001".into()),
            ..target_options(target.path())
        },
    )
    .unwrap_err();
    assert!(matches!(err, CodecError::Malformed(_)), "{err:?}");
    // No credentials or settings are ever planned.
    let plan = prepare(&written, target.path(), target_options(target.path())).unwrap();
    assert!(plan.operations.iter().all(|op| match op {
        Operation::CreateFile(f) => !f.path.contains("settings") && !f.path.contains("oauth"),
        _ => true,
    }));
}

#[test]
fn prepare_reuses_a_project_directory_whose_marker_names_the_cwd() {
    let written = write(&lab().read("simple").document, no_options());
    let target = tempfile::tempdir().unwrap();
    let dir = target.path().join(".gemini/tmp/older");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(".project_root"), format!("{CWD}\n")).unwrap();
    trajhost_codec_sdk::target::set_for_tests(Default::default());
    let plan = prepare(&written, target.path(), target_options(target.path())).unwrap();
    let paths: Vec<String> = plan
        .operations
        .iter()
        .map(|op| match op {
            Operation::AddJsonEntry(e) => format!("json {} {}", e.path, e.value),
            Operation::CreateFile(f) => f.path.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(paths.len(), 3, "{paths:?}");
    assert_eq!(paths[0], r#"json .gemini/projects.json "older""#);
    assert_eq!(paths[1], ".gemini/history/older/.project_root");
    assert!(paths[2].starts_with(".gemini/tmp/older/chats/session-"));

    // A registry entry whose directory belongs to another project is not used.
    let target = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(target.path().join(".gemini/tmp/project")).unwrap();
    std::fs::write(target.path().join(".gemini/projects.json"), format!(r#"{{"projects":{{"{CWD}":"project"}}}}"#))
        .unwrap();
    std::fs::write(target.path().join(".gemini/tmp/project/.project_root"), "/somewhere/else").unwrap();
    let err = prepare(&written, target.path(), target_options(target.path())).unwrap_err();
    assert!(format!("{err:?}").contains("another project"), "{err:?}");
    // A registry Gemini CLI could not read is not added to.
    std::fs::write(target.path().join(".gemini/projects.json"), "not json").unwrap();
    assert!(matches!(prepare(&written, target.path(), target_options(target.path())), Err(CodecError::Malformed(_))));
}

#[test]
fn write_then_read_keeps_thoughts_notices_and_rewinds() {
    let answer = answer_with_thoughts_and_calls();
    let dir = synthetic(&[
        header(),
        message("u1", "user", json!([{"text": "hi "}, {"text": "there"}])),
        answer,
        message("i1", "info", json!("Switched model")),
        message("w1", "warning", json!([{"text": "Low quota"}])),
        json!({"$rewindTo": "i1"}),
        json!({"$set": {"summary": "A short chat"}}),
        message("g2", "gemini", json!([{"text": "thinking", "thought": true}, {"text": "Done."}])),
    ]);
    let source = read(dir.path(), &format!("{CHATS}/{FILE}"));
    let written = write(&source.document, no_options());
    assert!(written.diagnostics.iter().all(|d| d.code != "not-carried"), "{:?}", written.diagnostics);
    let (_tmp, back) = read_back(&written);
    let a: Vec<Value> = source.records.iter().map(comparable).collect();
    let b: Vec<Value> = back.records.iter().map(comparable).collect();
    assert_eq!(a, b);
    assert_eq!(back.meta().title.as_deref(), Some("A short chat"));
    assert_eq!(observations(&back.records)[2], ("rewind", Some("i1")));
    // The call without a result stays without one.
    assert_eq!(tool_results(&back.records), [("c1", "File not found", Some(false))]);
    let text = std::str::from_utf8(&session_artifact(&written).bytes).unwrap();
    assert!(text.contains(r#""status":"cancelled""#));
}
