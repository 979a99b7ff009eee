//! What is particular to Copilot CLI's event logs, against sessions written
//! by the real GitHub Copilot CLI (fixtures/copilot-cli) and synthetic
//! events. What every codec must do is the testkit's suite, in
//! tests/conformance.rs.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_copilot_cli::CopilotCli;
use trajhost_codec_sdk::Codec;
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_testkit::suite::Lab;
use trajhost_codec_testkit::{
    self as kit, Read, Spans, assistants, observations, raw_lines, tool_calls, tool_results, users,
};

use support::*;

/// The codec `support` writes and prepares with.
type Tested = CopilotCli;

const CWD: &str = "/home/user/project";

/// The lab fixtures, as tests/conformance.json names them.
fn lab() -> Lab<CopilotCli> {
    Lab::new(include_str!("conformance.json"))
}

fn locator(id: &str) -> String {
    format!("{STATE}/{id}/events.jsonl")
}

fn read(home: &Path, locator: &str) -> Read {
    kit::read::<CopilotCli>(home, locator)
}

fn systems(records: &[Record]) -> Vec<&str> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::System { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

// ---------------------------------------------------------------- info

// ---------------------------------------------------------------- discover

/// The title is the workspace's name (here the first prompt).
#[test]
fn the_title_is_the_workspace_name() {
    for (scenario, id) in lab().ids() {
        let session = kit::discover::<CopilotCli>(&lab().home(scenario)).sessions.remove(0);
        let yaml = std::fs::read_to_string(lab().home(scenario).join(STATE).join(id).join("workspace.yaml")).unwrap();
        let name = yaml.lines().find_map(|l| l.strip_prefix("name: ")).unwrap();
        let name = name.strip_prefix('\'').and_then(|n| n.strip_suffix('\'')).unwrap_or(name);
        assert_eq!(session.title.as_deref(), Some(name));
        // One usage record per model call.
        let raw = raw_lines(&lab().home(scenario).join(locator(id)));
        let usage_records = raw.iter().filter(|l| l["type"] == "session.usage_record").count();
        assert_eq!(assistants(&lab().read(scenario).records).len(), usage_records, "{scenario}");
    }
}

#[test]
fn discover_uses_the_workspace_and_reports_oddities() {
    let dir = lab().copy("simple");
    let id = lab().id("simple");
    let state = dir.path().join(STATE);
    let yaml = state.join(id).join("workspace.yaml");
    let text = std::fs::read_to_string(&yaml)
        .unwrap()
        .replace("name: Read hello.txt and tell me the secret word.", "name: 'Secret: word'");
    std::fs::write(&yaml, text.replace("cwd: /home/user/project", "cwd: /elsewhere")).unwrap();
    // Not sessions: a directory without an event log, an empty log, a log without session.start.
    std::fs::create_dir_all(state.join("aaaaaaaa-0000-0000-0000-000000000000")).unwrap();
    std::fs::create_dir_all(state.join("bbbbbbbb-0000-0000-0000-000000000000")).unwrap();
    std::fs::write(state.join("bbbbbbbb-0000-0000-0000-000000000000/events.jsonl"), "").unwrap();
    std::fs::create_dir_all(state.join("cccccccc-0000-0000-0000-000000000000")).unwrap();
    std::fs::write(
        state.join("cccccccc-0000-0000-0000-000000000000/events.jsonl"),
        "{\"type\":\"session.idle\",\"data\":{}}\n",
    )
    .unwrap();
    std::fs::write(state.join("stray.txt"), "{}").unwrap();
    // A flat event log is the older layout's (plugins/copilot-cli-flat), not an oddity here.
    std::fs::write(state.join("dddddddd-0000-0000-0000-000000000000.jsonl"), "{}").unwrap();

    let found = CopilotCli::discover(&Dir::native(dir.path())).unwrap();
    assert_eq!(found.sessions.len(), 1, "{:?}", found.sessions);
    assert_eq!(found.sessions[0].title.as_deref(), Some("Secret: word"));
    assert_eq!(found.sessions[0].cwd.as_deref(), Some("/elsewhere"), "workspace.yaml wins");
    let at = |name: &str| format!("{STATE}/{name}");
    let expected = [
        ("no-event-log", at("aaaaaaaa-0000-0000-0000-000000000000")),
        ("empty-session-file", at("bbbbbbbb-0000-0000-0000-000000000000/events.jsonl")),
        ("malformed-head", at("cccccccc-0000-0000-0000-000000000000/events.jsonl")),
        ("unrecognized-file", at("stray.txt")),
    ];
    kit::check_named_files(&found.diagnostics, &expected);

    // Without workspace.yaml, session.start and the first prompt say it.
    std::fs::remove_file(&yaml).unwrap();
    let found = CopilotCli::discover(&Dir::native(dir.path())).unwrap();
    let session = found.sessions.iter().find(|s| s.native_id == id).unwrap();
    assert_eq!(session.cwd.as_deref(), Some(CWD));
    assert_eq!(session.title.as_deref(), Some("Read hello.txt and tell me the secret word."));
}

// ---------------------------------------------------------------- read

#[test]
fn the_system_prompt_resume_and_message_ids_of_a_session() {
    let read = lab().read("simple");
    let records = &read.records;
    let system = systems(records);
    assert_eq!(system.len(), 1);
    assert!(system[0].starts_with("You are the GitHub Copilot CLI"));
    assert_eq!(assistants(records)[0].message_id.as_deref(), Some("d0e529b3-fc8b-496c-8090-5af3a54f20a7"));
    assert_eq!(observations(records), [("session.resume", None)]);
    // The system prompt stands between prompt and answer, lifecycle and usage events resolved away.
    let system_id = records.iter().find(|r| matches!(r.body, Body::System { .. })).unwrap().id.clone();
    let answer = records.iter().find(|r| r.id == "1eef003f-0682-4acb-a122-f822e66f5ead").unwrap();
    assert_eq!(answer.parent.as_deref(), Some(system_id.as_str()));
}

#[test]
fn a_failing_shell_is_logged_as_a_success_with_its_exit_code() {
    // The suite's table expects `ok`: Copilot CLI records `success: true`
    // for a shell that ran, whatever its exit code.
    let raw = raw_lines(&lab().path("failing-tool"));
    let complete = raw.iter().find(|l| l["type"] == "tool.execution_complete").unwrap();
    assert_eq!(complete["data"]["success"], true);
    assert_eq!(complete["data"]["shellExecution"]["exitCode"], 3);
}

// ---------------------------------------------------------------- damage

/// The suite checks the torn tail; the torn message's usage record then
/// finds no message.
#[test]
fn a_torn_message_leaves_its_usage_record_unmatched() {
    let dir = lab().copy("simple");
    let id = lab().id("simple");
    kit::tear_at(&dir.path().join(locator(id)), "NOTOOL ANSWER");
    let read = read(dir.path(), &locator(id));
    assert_eq!(read.diag("unmatched-usage-record").unwrap().count, 1);
}

// ---------------------------------------------------------------- synthetic shapes

const SID: &str = "s1";

fn synthetic(events: &[Value]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join(STATE).join(SID);
    std::fs::create_dir_all(&session).unwrap();
    let text: String = events.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(session.join("events.jsonl"), text).unwrap();
    std::fs::write(session.join("workspace.yaml"), "id: s1\ncwd: /w\nname: Synthetic\n").unwrap();
    dir
}

fn event(kind: &str, id: &str, parent: Option<&str>, data: Value) -> Value {
    json!({"type": kind, "data": data, "id": id, "timestamp": "2026-01-01T00:00:00.000Z", "parentId": parent})
}

#[test]
fn reasoning_usage_errors_compaction_and_unknown_events() {
    let dir = synthetic(&[
        event(
            "session.start",
            "e0",
            None,
            json!({"sessionId": SID, "version": 1, "copilotVersion": "0.0.400", "startTime": "2026-01-01T00:00:00.000Z", "context": {"cwd": "/w", "branch": "main"}}),
        ),
        event(
            "user.message",
            "e1",
            Some("e0"),
            json!({"content": "look", "transformedContent": "<date/>look", "attachments": [{"type": "file", "path": "/w/a.txt"}, {"type": "blob", "mimeType": "image/png"}]}),
        ),
        event("assistant.reasoning", "e2", Some("e1"), json!({"reasoningId": "r1", "content": "thinking hard"})),
        event(
            "session.usage_record",
            "e3",
            Some("e2"),
            json!({"usage": {"model": "claude-sonnet-4.5", "inputTokens": 120, "outputTokens": 9, "cacheReadTokens": 80, "cacheWriteTokens": 10, "apiCallId": "api1"}}),
        ),
        event(
            "assistant.message",
            "e4",
            Some("e3"),
            json!({"messageId": "m1", "content": "Reading.", "reasoningText": "thinking hard", "reasoningOpaque": "SIG",
            "toolRequests": [{"toolCallId": "c1", "name": "view", "arguments": {"path": "/w/x"}, "type": "function"}], "apiCallId": "api1"}),
        ),
        event(
            "tool.execution_start",
            "e5",
            Some("e4"),
            json!({"toolCallId": "c1", "toolName": "view", "arguments": {"path": "/w/x"}}),
        ),
        event(
            "tool.execution_complete",
            "e6",
            Some("e5"),
            json!({"toolCallId": "c1", "success": false, "error": {"message": "Path does not exist", "code": "failure"}}),
        ),
        event(
            "tool.user_requested",
            "e7",
            Some("e6"),
            json!({"toolCallId": "u1", "toolName": "bash", "arguments": {"command": "ls"}}),
        ),
        event(
            "assistant.message",
            "e8",
            Some("e7"),
            json!({"messageId": "m2", "content": "Done.", "encryptedContent": "ENC", "outputTokens": 3}),
        ),
        event(
            "session.compaction_complete",
            "e9",
            Some("e8"),
            json!({"success": true, "summaryContent": "<summary>so far</summary>", "trigger": "threshold"}),
        ),
        event("session.error", "e10", Some("e9"), json!({"errorType": "rate_limit", "message": "Rate limited"})),
        event("abort", "e11", Some("e10"), json!({"reason": "user_initiated"})),
        event("session.model_change", "e12", Some("e11"), json!({"newModel": "gpt-5"})),
        event("hook.end", "e13", Some("e12"), json!({})),
        event(
            "session.usage_record",
            "e14",
            Some("e13"),
            json!({"usage": {"model": "gpt-5", "inputTokens": 1, "outputTokens": 1, "apiCallId": "orphan"}}),
        ),
        json!({"type": "brand.new_event", "data": {}, "id": "e15", "timestamp": "2026-01-01T00:00:01.000Z", "parentId": "e14", "agentId": "sub-1"}),
        json!({"type": "user.message", "data": {"content": "from a subagent"}, "id": "e16", "timestamp": "2026-01-01T00:00:01.000Z", "parentId": "e15", "agentId": "sub-1"}),
    ]);
    let read = read(dir.path(), &format!("{STATE}/{SID}/events.jsonl"));
    let kinds: Vec<(&str, &str)> = read.records.iter().map(|r| (r.body.kind(), r.id.as_str())).collect();
    assert_eq!(
        kinds,
        [
            ("meta", SID),
            ("user", "e1"),
            ("reasoning", "e2"),
            ("reasoning", "e4#reasoning"),
            ("assistant", "e4"),
            ("tool_call", "c1"),
            ("tool_result", "e6"),
            ("tool_call", "u1"),
            ("reasoning", "e8#reasoning"),
            ("assistant", "e8"),
            ("compaction", "e9"),
            ("observation", "e10"),
            ("observation", "e11"),
            ("observation", "e12"),
            ("user", "e16"),
        ]
    );
    let Body::Meta(meta) = &read.records[0].body else { panic!() };
    assert_eq!(
        (meta.native_version.as_deref(), meta.git_branch.as_deref(), meta.title.as_deref()),
        (Some("0.0.400"), Some("main"), Some("Synthetic"))
    );
    let by_id = |id: &str| read.records.iter().find(|r| r.id == id).unwrap();
    let Body::User { text, attachments } = &by_id("e1").body else { panic!() };
    assert_eq!(text, "look");
    assert_eq!(
        attachments.iter().map(|a| (a.kind.as_str(), a.media_type.as_deref())).collect::<Vec<_>>(),
        [("file", None), ("blob", Some("image/png"))]
    );
    // The message's reasoning text was logged already: only the opaque part remains.
    let Body::Reasoning(r) = &by_id("e4#reasoning").body else { panic!() };
    assert_eq!((r.text.as_deref(), r.opaque.as_deref(), r.encrypted), (None, Some("SIG"), true));
    let Body::Reasoning(r) = &by_id("e8#reasoning").body else { panic!() };
    assert_eq!((r.text.as_deref(), r.opaque.as_deref(), r.encrypted), (None, Some("ENC"), true));
    let answers = assistants(&read.records);
    assert_eq!(answers[0].model.as_deref(), Some("claude-sonnet-4.5"), "from the usage record");
    let u = answers[0].usage.as_ref().unwrap();
    assert_eq!((u.input, u.output, u.cache_read, u.cache_write), (Some(30), Some(9), Some(80), Some(10)));
    let u = answers[1].usage.as_ref().unwrap();
    assert_eq!((u.input, u.output, u.cache_read), (None, Some(3), None), "only the message's own output count");
    assert_eq!(tool_results(&read.records), [("c1", "Path does not exist", Some(false))]);
    assert_eq!(
        tool_calls(&read.records).iter().map(|c| (c.0, c.1)).collect::<Vec<_>>(),
        [("c1", "view"), ("u1", "bash")]
    );
    let Body::Compaction { summary, trigger } = &by_id("e9").body else { panic!() };
    assert_eq!((summary.as_str(), trigger.as_deref()), ("<summary>so far</summary>", Some("threshold")));
    assert_eq!(
        observations(&read.records),
        [
            ("session.error", Some("Rate limited")),
            ("abort", Some("user_initiated")),
            ("session.model_change", Some("gpt-5"))
        ]
    );
    assert_eq!(by_id("e16").agent.as_deref(), Some("sub-1"));
    // Unmapped and unknown events resolve to their parents.
    assert_eq!(by_id("e16").parent.as_deref(), Some("e12"));
    assert_eq!(by_id("u1").parent.as_deref(), Some("e6"));

    let details = |code: &str| -> Vec<(String, u32)> {
        read.diagnostics.iter().filter(|d| d.code == code).map(|d| (d.detail.clone(), d.count)).collect()
    };
    assert_eq!(details("unknown-record-type"), [("brand.new_event".to_string(), 1)]);
    assert_eq!(details("unmapped-record-type"), [("hook.end".to_string(), 1)]);
    assert_eq!(details("unmatched-usage-record"), [("apiCallId".to_string(), 1)]);
}

// ---------------------------------------------------------------- 1.0.45

/// fixtures/copilot-cli/1.0.45 (hand-written): the runtime's tool result
/// object and a call seen only at execution.
fn v1045_home() -> PathBuf {
    // This crate's own checkout (the testkit's `fixtures()` is resolved
    // where the testkit was compiled).
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/copilot-cli/1.0.45/home")
}

const V1045: &str = "5e0f3a21-7c44-4b1e-9d2a-0c45aa000145";

#[test]
fn results_as_text_for_the_llm_and_calls_seen_only_at_execution() {
    let home = v1045_home();
    let found = kit::discover::<CopilotCli>(&home);
    assert_eq!(found.sessions.len(), 1, "{:?}", found.diagnostics);
    assert_eq!(found.sessions[0].native_version.as_deref(), Some("1.0.45"));
    assert_eq!(found.sessions[0].cwd.as_deref(), Some("/home/dev/site"), "from session.start without workspace.yaml");

    let read = kit::conformance::<CopilotCli>(&home, &locator(V1045), Spans::Lines);
    let records = &read.records;
    assert_eq!(users(records), ["add a robots.txt that allows everything"]);
    let calls = tool_calls(records);
    assert_eq!(calls.len(), 2);
    assert_eq!((calls[0].0, calls[0].1), ("tc-create", "create"));
    assert_eq!(
        calls[0].2,
        &json!({"path": "/home/dev/site/robots.txt", "file_text": "User-agent: *\nAllow: /\n"}),
        "JSON text arguments are read as the object they hold"
    );
    assert_eq!((calls[1].0, calls[1].1), ("tc-check", "bash"), "a call without a request is a call");
    assert_eq!(calls[1].2, &json!({"command": "curl -s localhost:8080/robots.txt"}));
    assert_eq!(
        tool_results(records),
        [
            ("tc-create", "Created file /home/dev/site/robots.txt with 24 characters", Some(true)),
            ("tc-check", "curl: (7) Failed to connect to localhost port 8080", Some(false)),
        ]
    );
    assert_eq!(
        kit::assistant_texts(records),
        [
            "I'll create robots.txt.",
            "robots.txt is in place; the local server is not running, so I could not fetch it."
        ]
    );
    let problems: Vec<&str> = read
        .diagnostics
        .iter()
        .filter(|d| d.severity != trajhost_codec_sdk::Severity::Info)
        .map(|d| d.code.as_str())
        .collect();
    assert!(problems.is_empty(), "{:?}", read.diagnostics);
}

#[test]
fn a_call_started_before_its_request_is_one_call_and_odd_results_still_read() {
    let dir = synthetic(&[
        event(
            "session.start",
            "e0",
            None,
            json!({"sessionId": SID, "copilotVersion": "1.0.45", "context": {"cwd": "/w"}}),
        ),
        event("user.message", "e1", Some("e0"), json!({"content": "go"})),
        event(
            "tool.execution_start",
            "e2",
            Some("e1"),
            json!({"toolCallId": "c1", "toolName": "view", "arguments": {"path": "/w/a"}}),
        ),
        event(
            "assistant.message",
            "e3",
            Some("e2"),
            json!({"messageId": "m1", "content": "", "toolRequests": [{"toolCallId": "c1", "name": "view", "arguments": {"path": "/w/a"}}]}),
        ),
        event(
            "tool.execution_complete",
            "e4",
            Some("e3"),
            json!({"toolCallId": "c1", "success": true, "result": {"contents": [{"type": "text", "text": "A"}, {"type": "image"}, {"type": "text", "text": "B"}]}}),
        ),
        event(
            "user.message",
            "e4b",
            Some("e4"),
            json!({"content": "<reminder>tests are slow</reminder>", "source": "system"}),
        ),
        event(
            "tool.execution_start",
            "e5",
            Some("e4b"),
            json!({"toolCallId": "c2", "toolName": "bash", "arguments": "not json"}),
        ),
        event(
            "tool.execution_complete",
            "e6",
            Some("e5"),
            json!({"toolCallId": "c2", "error": "denied by policy", "result": {"resultType": "denied"}}),
        ),
    ]);
    let read = read(dir.path(), &format!("{STATE}/{SID}/events.jsonl"));
    kit::check_unique_ids(&read);
    let calls = tool_calls(&read.records);
    assert_eq!(calls.iter().map(|c| c.0).collect::<Vec<_>>(), ["c1", "c2"], "c1 once");
    assert_eq!(calls[1].2, &json!("not json"), "arguments that are no JSON object stay text");
    assert_eq!(tool_results(&read.records), [("c1", "A\nB", Some(true)), ("c2", "denied by policy", Some(false))]);
    assert!(read.diag("missing-field").is_none(), "{:?}", read.diagnostics);
    // A message the runtime sent as the user is context.
    assert_eq!(users(&read.records), ["go"]);
    assert_eq!(kit::observations_of(&read.records, "user.message/system"), ["<reminder>tests are slow</reminder>"]);
}

#[test]
fn flat_event_logs_are_left_to_the_flat_layout() {
    // fixtures/copilot-cli/flat: one flat file (plugins/copilot-cli-flat) beside one session directory.
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/copilot-cli/flat/home");
    let found = kit::discover::<CopilotCli>(&home);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    let ids: Vec<&str> = found.sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert_eq!(ids, ["7a1d0c55-0000-4000-8000-0000000d1125"]);
    let read = kit::conformance::<CopilotCli>(&home, &found.sessions[0].locator, Spans::Lines);
    assert_eq!(kit::assistant_texts(&read.records), ["There are no scripts yet."]);
}

#[test]
fn a_prompt_hook_is_an_observation_that_carries_the_prompt() {
    // The shape of letta-ai/trajectory's `copilot-cli/tool-calls` fixture: the
    // prompt only in a `userPromptSubmitted` hook's input.
    let dir = synthetic(&[
        event("session.start", "e0", None, json!({"sessionId": SID, "context": {"cwd": "/w"}})),
        event(
            "hook.start",
            "e1",
            Some("e0"),
            json!({"hookType": "userPromptSubmitted", "input": {"sessionId": SID, "prompt": "Refresh the page.", "cwd": "/w"}}),
        ),
        event("hook.start", "e2", Some("e1"), json!({"hookType": "preToolUse", "input": {"toolName": "bash"}})),
        event("assistant.message", "e3", Some("e2"), json!({"messageId": "m1", "content": "On it."})),
    ]);
    let read = read(dir.path(), &format!("{STATE}/{SID}/events.jsonl"));
    assert!(users(&read.records).is_empty(), "a hook is no prompt of its own");
    assert_eq!(kit::observations_of(&read.records, "hook.start/userPromptSubmitted"), ["Refresh the page."]);
    assert_eq!(kit::observations_of(&read.records, "hook.start/preToolUse"), [""]);
    assert_eq!(read.records[3].parent.as_deref(), Some("e2"));
}

// ---------------------------------------------------------------- write, prepare

use trajhost_codec_sdk::WriteOptions;
use trajhost_codec_sdk::target::{self, TargetChoice};

fn write_options(cwd: Option<&str>) -> WriteOptions {
    WriteOptions { cwd: cwd.map(str::to_string), native_id: None, home_path: None }
}

/// What Copilot's own loader requires of every line (lab, 1.0.102): UUID
/// ids chained by `parentId`, `messageId` and `success` where required.
fn check_events(bytes: &[u8]) -> Vec<Value> {
    let lines = chained_events(bytes);
    for line in &lines {
        assert!(line["timestamp"].is_string());
        match line["type"].as_str().unwrap() {
            "assistant.message" => assert!(line["data"]["messageId"].is_string(), "{line}"),
            "tool.execution_complete" => assert!(line["data"]["success"].is_boolean(), "{line}"),
            _ => {}
        }
    }
    lines
}

#[test]
fn round_trip_of_every_lab_scenario_keeps_the_records() {
    for (name, id) in lab().ids() {
        let first = lab().read(name);
        let written = write_doc(&kit::document(&first.records), write_options(None));
        assert_eq!(written.artifacts.len(), 2, "{name}");
        let events = &written.artifacts[0];
        assert_eq!(events.path, format!("{STATE}/{}/events.jsonl", written.native_id));
        assert_eq!(written.artifacts[1].path, format!("{STATE}/{}/workspace.yaml", written.native_id));
        assert_ne!(written.native_id, id, "a new session id");
        let lines = check_events(&events.bytes);
        assert_eq!(lines[0]["data"]["sessionId"], written.native_id.as_str());
        assert_eq!(lines[0]["data"]["context"]["cwd"], CWD);
        assert_eq!(lines[0]["data"]["copilotVersion"], "1.0.102");

        let home = install(&written);
        let second = read(home.path(), &events.path);
        assert!(second.diagnostics.is_empty(), "{name}: {:?}", second.diagnostics);
        let (m1, m2) = (first.meta(), second.meta());
        assert_eq!(
            (&m1.cwd, &m1.title, &m1.git_branch, &m1.started_at),
            (&m2.cwd, &m2.title, &m2.git_branch, &m2.started_at)
        );
        assert_eq!(m2.native_id, written.native_id);
        // Every record but what Copilot logs only about its own runtime
        // (`session.resume`, listed as not carried) survives with its id,
        // body and parent.
        let strip = |r: &Record| (r.id.clone(), r.body.clone(), r.parent.clone(), r.ts.clone());
        let kept: Vec<_> = first
            .records
            .iter()
            .skip(1)
            .filter(|r| !matches!(&r.body, Body::Observation { subtype, .. } if subtype == "session.resume"))
            .map(strip)
            .collect();
        let back: Vec<_> = second.records.iter().skip(1).map(strip).collect();
        // Parents of records after a dropped observation point at the record before it.
        let resumes: BTreeSet<String> = first
            .records
            .iter()
            .filter(|r| matches!(&r.body, Body::Observation { subtype, .. } if subtype == "session.resume"))
            .map(|r| r.id.clone())
            .collect();
        assert_eq!(kept.len(), back.len(), "{name}");
        for (a, b) in kept.iter().zip(&back) {
            assert_eq!((&a.0, &a.1, &a.3), (&b.0, &b.1, &b.3), "{name}");
            // The session's own id is the new one.
            let parent = a.2.clone().map(|p| if p == id { written.native_id.clone() } else { p });
            if !a.2.as_ref().is_some_and(|p| resumes.contains(p)) {
                assert_eq!(parent, b.2, "{name}: parent of {}", a.0);
            }
        }
        let lost = codes(&written.diagnostics);
        let want: Vec<(String, String)> =
            if resumes.is_empty() { vec![] } else { vec![("not-carried".into(), "observation/session.resume".into())] };
        assert_eq!(lost, want, "{name}");
        assert_eq!(written.diagnostics.iter().map(|d| d.count).sum::<u32>() as usize, resumes.len());
    }
}

#[test]
fn write_streams_is_deterministic_and_repairs_what_copilot_requires() {
    let first = lab().read("parallel");
    let doc = kit::document(&first.records);
    let a = write_doc(&doc, write_options(None));
    let b = write_doc(&doc, write_options(None));
    assert_eq!(a.artifacts[0].bytes, b.artifacts[0].bytes);
    assert_eq!(a.native_id, b.native_id);

    // A foreign session: no message id, no ok, a call without an assistant
    // message, an unanswered call, an orphan result, foreign opaque reasoning.
    let foreign = [
        json!({"id":"m","kind":"meta","schema":"trajhost.canonical/0.1","harness":"claude-code","native_id":"x","cwd":"/w","title":"Fix it","started_at":"2026-11-30T04:00:00.000Z"}),
        json!({"id":"u","kind":"user","text":"hi","ts":"2026-11-30T04:00:01.000Z","attachments":[{"kind":"image"}]}),
        json!({"id":"r","kind":"reasoning","text":"think","opaque":"sig","encrypted":false}),
        json!({"id":"a","kind":"assistant","text":"","model":"claude-x","stop_reason":"tool_use","usage":{"input":5,"output":1,"cache_read":2,"cost_usd":0.1}}),
        json!({"id":"c","kind":"tool_call","call_id":"toolu_1","name":"Bash","arguments":{"command":"ls"}}),
        json!({"id":"t","kind":"tool_result","call_id":"toolu_1","content":"a.txt"}),
        json!({"id":"c2","kind":"tool_call","call_id":"toolu_2","name":"Read","arguments":{"path":"a.txt"}}),
        json!({"id":"o","kind":"tool_result","call_id":"toolu_404","content":"?","ok":false}),
        json!({"id":"x","kind":"observation","subtype":"hook","text":"ran"}),
        json!({"id":"u2","kind":"user","text":"go on"}),
        json!({"id":"r2","kind":"reasoning","opaque":"enc","encrypted":true}),
        json!({"id":"a2","kind":"assistant","text":"done","usage":{"output":3}}),
    ];
    let doc: String = foreign.iter().map(|v| v.to_string() + "\n").collect();
    let written = write_doc(&doc, write_options(None));
    kit::check_diags_include(
        &written.diagnostics,
        &[
            ("not-carried", "attachments"),
            ("not-carried", "opaque-reasoning"),
            ("not-carried", "stop-reason"),
            ("not-carried", "usage.cost_usd"),
            ("not-carried", "orphan-tool-result"),
            ("not-carried", "observation/hook"),
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
            "session.usage_record",
            "assistant.message",
            "tool.execution_start",
            "tool.execution_complete",
            "assistant.message",
            "tool.execution_start",
            "tool.execution_complete",
            "user.message",
            "assistant.message",
        ]
    );
    assert_eq!(lines[2]["data"]["usage"]["inputTokens"], 7, "cache included");
    assert_eq!(lines[3]["data"]["apiCallId"], lines[2]["data"]["usage"]["apiCallId"]);
    assert_eq!(lines[3]["data"]["reasoningText"], "think");
    assert!(lines[3]["data"].get("reasoningOpaque").is_none());
    assert_eq!(lines[8]["data"]["success"], false, "the unanswered call gets an error result");
    assert_eq!(lines[8]["data"]["toolCallId"], "toolu_2");
    assert_eq!(lines[10]["data"]["outputTokens"], 3);

    let home = install(&written);
    let back = read(home.path(), &written.artifacts[0].path);
    assert_eq!(back.meta().title.as_deref(), Some("Fix it"));
    assert_eq!(users(&back.records), ["hi", "go on"]);
    assert_eq!(
        tool_results(&back.records),
        [("toolu_1", "a.txt", Some(true)), ("toolu_2", super_no_result(), Some(false))]
    );
    let usage = assistants(&back.records)[0].usage.clone().unwrap();
    assert_eq!((usage.input, usage.output, usage.cache_read), (Some(5), Some(1), Some(2)));
    assert_eq!(assistants(&back.records)[0].model.as_deref(), Some("claude-x"));

    // Another harness's system prompt is kept in the log and reported: Copilot sends its own.
    let doc = [
        json!({"id":"m","kind":"meta","schema":"trajhost.canonical/0.1","harness":"codex","native_id":"x","cwd":"/w"}),
        json!({"id":"s","kind":"system","text":"You are Codex."}),
        json!({"id":"u","kind":"user","text":"hi"}),
    ];
    let doc: String = doc.iter().map(|v| v.to_string() + "\n").collect();
    let written = write_doc(&doc, write_options(None));
    kit::check_diags_include(&written.diagnostics, &[("not-carried", "system-prompt"), ("no-timestamp", "startTime")]);
    let back = read(install(&written).path(), &written.artifacts[0].path);
    assert_eq!(systems(&back.records), ["You are Codex."]);
}

fn super_no_result() -> &'static str {
    "The tool call was interrupted: no result was recorded."
}

#[test]
fn prepare_into_a_fresh_home_sets_the_chosen_model_and_refuses_a_provider() {
    let first = lab().read("simple");
    let written = write_doc(&kit::document(&first.records), write_options(None));
    let target_dir = tempfile::tempdir().unwrap();
    let home_path = target_dir.path().display().to_string();
    target::set_for_tests(TargetChoice { model: Some("gpt-5 mini".into()), provider: None, allow_untested: false });
    let options =
        WriteOptions { cwd: None, native_id: Some(written.native_id.clone()), home_path: Some(home_path.clone()) };
    let plan = prepare(&written, target_dir.path(), options.clone()).unwrap();
    assert_eq!(plan.native_id, written.native_id);
    assert_eq!(plan.operations.len(), 2, "the event log and workspace.yaml, no database");
    assert_eq!(
        plan.resume_command.as_deref().unwrap(),
        format!("cd {CWD} && HOME={home_path} copilot --model 'gpt-5 mini' --resume={}", written.native_id)
    );
    kit::apply_new_files(&plan, target_dir.path());
    let events = target_dir.path().join(&written.artifacts[0].path);
    let lines = check_events(&std::fs::read(&events).unwrap());
    assert_eq!(lines[0]["data"]["selectedModel"], "gpt-5 mini");
    // Only the first line changed.
    let original = std::str::from_utf8(&written.artifacts[0].bytes).unwrap();
    let installed = std::fs::read_to_string(&events).unwrap();
    assert_eq!(original.split_once('\n').unwrap().1, installed.split_once('\n').unwrap().1);
    let back = read(target_dir.path(), &written.artifacts[0].path);
    assert_eq!(users(&back.records), users(&first.records));

    // A second prepare of the same export is refused.
    let err = prepare(&written, target_dir.path(), options.clone()).unwrap_err();
    assert!(format!("{err:?}").contains("already exists"), "{err:?}");

    // A provider cannot be honoured.
    target::set_for_tests(TargetChoice { model: None, provider: Some("openai".into()), allow_untested: false });
    let fresh = tempfile::tempdir().unwrap();
    let err = prepare(&written, fresh.path(), options).unwrap_err();
    assert!(format!("{err:?}").contains("provider"), "{err:?}");
    target::set_for_tests(TargetChoice::default());
}

#[test]
fn prepare_into_a_home_with_other_sessions_uses_its_model_and_changes_nothing_else() {
    let target_dir = lab().copy("parallel");
    std::fs::write(target_dir.path().join(".copilot/settings.json"), "// managed\n{\"model\": \"claude-opus-5\"}\n")
        .unwrap();
    let before = kit::files_of(target_dir.path());
    target::set_for_tests(TargetChoice::default());
    let first = lab().read("multibyte");
    let written = write_doc(&kit::document(&first.records), write_options(None));
    let options = WriteOptions { cwd: Some("/srv/other dir".into()), native_id: None, home_path: None };
    let plan = prepare(&written, target_dir.path(), options).unwrap();
    assert_eq!(
        plan.resume_command.as_deref().unwrap(),
        format!("cd '/srv/other dir' && copilot --resume={}", written.native_id)
    );
    kit::apply_new_files(&plan, target_dir.path());
    let after = kit::files_of(target_dir.path());
    let new: Vec<_> = after.iter().filter(|(p, b)| before.get(*p) != Some(*b)).map(|(p, _)| p.clone()).collect();
    assert_eq!(
        new,
        [
            format!("{STATE}/{}/events.jsonl", written.native_id),
            format!("{STATE}/{}/workspace.yaml", written.native_id)
        ]
    );
    assert!(before.iter().all(|(p, b)| after.get(p) == Some(b)), "every other file byte-identical");
    let lines = check_events(&std::fs::read(target_dir.path().join(&written.artifacts[0].path)).unwrap());
    assert_eq!(lines[0]["data"]["selectedModel"], "claude-opus-5");
    assert_eq!(lines[0]["data"]["context"]["cwd"], "/srv/other dir");
    // Both sessions are listed; the new one under its new working directory.
    let found = kit::discover::<CopilotCli>(target_dir.path());
    assert_eq!(found.sessions.len(), 2);
    let back = read(target_dir.path(), &written.artifacts[0].path);
    assert_eq!(back.meta().cwd.as_deref(), Some("/srv/other dir"));
    assert_eq!(kit::assistant_texts(&back.records), kit::assistant_texts(&first.records));
}

#[test]
fn a_copilot_session_with_reasoning_compaction_and_notes_round_trips() {
    let u = |n: u32| format!("00000000-0000-4000-8000-{n:012}");
    let sid = u(0);
    let doc = [
        json!({"id":sid,"kind":"meta","schema":"trajhost.canonical/0.1","harness":"copilot-cli","native_id":sid,"cwd":"/w","git_branch":"main","title":"Named: by me","started_at":"2026-11-30T04:00:00.000Z"}),
        json!({"id":u(1),"kind":"system","text":"You are Copilot.","parent":sid,"ts":"2026-11-30T04:00:00.100Z"}),
        json!({"id":u(2),"kind":"user","text":"hi","parent":u(1),"ts":"2026-11-30T04:00:01.000Z"}),
        json!({"id":u(3),"kind":"observation","subtype":"user.message/system","text":"<reminder/>","parent":u(2),"ts":"2026-11-30T04:00:01.000Z"}),
        json!({"id":u(4),"kind":"reasoning","text":"step one","encrypted":false,"parent":u(3),"ts":"2026-11-30T04:00:02.000Z"}),
        json!({"id":format!("{}#reasoning", u(5)),"kind":"reasoning","text":"step two","opaque":"blob","encrypted":false,"parent":u(5),"ts":"2026-11-30T04:00:03.000Z"}),
        json!({"id":u(5),"kind":"assistant","text":"","model":"gpt-4o","message_id":"m1","usage":{"input":10,"output":2,"cache_read":4,"cache_write":1},"parent":u(4),"ts":"2026-11-30T04:00:03.000Z"}),
        json!({"id":"call_a","kind":"tool_call","call_id":"call_a","name":"bash","arguments":{"command":"ls"},"parent":u(5),"ts":"2026-11-30T04:00:03.000Z"}),
        json!({"id":u(6),"kind":"tool_result","call_id":"call_a","content":"x","ok":false,"parent":"call_a","ts":"2026-11-30T04:00:04.000Z"}),
        json!({"id":u(7),"kind":"assistant","text":"done","message_id":"m2","usage":{"output":3},"parent":u(6),"ts":"2026-11-30T04:00:05.000Z"}),
        json!({"id":u(8),"kind":"observation","subtype":"abort","text":"user","parent":u(7),"ts":"2026-11-30T04:00:06.000Z"}),
        json!({"id":u(9),"kind":"compaction","summary":"Earlier: hi, ls.","trigger":"manual","parent":u(8),"ts":"2026-11-30T04:00:07.000Z"}),
        json!({"id":u(10),"kind":"user","text":"again","parent":u(9),"ts":"2026-11-30T04:00:08.000Z"}),
        json!({"id":u(11),"kind":"assistant","text":"ok","message_id":"m3","usage":{"input":5,"output":1},"parent":u(10),"ts":"2026-11-30T04:00:09.000Z"}),
    ];
    let text: String = doc.iter().map(|v| v.to_string() + "\n").collect();
    let options = WriteOptions { cwd: None, native_id: Some(sid.clone()), home_path: None };
    let written = write_doc(&text, options);
    assert_eq!(written.native_id, sid);
    assert_eq!(codes(&written.diagnostics), [("placeholder".to_string(), "usage.model".to_string())]);
    check_events(&written.artifacts[0].bytes);
    let home = install(&written);
    let back = read(home.path(), &written.artifacts[0].path);
    assert!(back.diagnostics.is_empty(), "{:?}", back.diagnostics);
    let first: Vec<Record> = doc.iter().map(|v| serde_json::from_value(v.clone()).unwrap()).collect();
    let (m1, m2) = (first[0].body.clone(), back.meta());
    let Body::Meta(m1) = m1 else { panic!() };
    assert_eq!(
        (&m1.cwd, &m1.title, &m1.git_branch, &m1.started_at),
        (&m2.cwd, &m2.title, &m2.git_branch, &m2.started_at)
    );
    let strip = |r: &Record| (r.id.clone(), r.body.clone(), r.parent.clone(), r.ts.clone());
    let a: Vec<_> = first.iter().skip(1).map(strip).collect();
    let b: Vec<_> = back.records.iter().skip(1).map(strip).collect();
    assert_eq!(a, b);
}

#[test]
fn write_streams_the_event_log_and_ends_with_workspace_yaml() {
    let first = lab().read("long-output");
    let doc = kit::document(&first.records);
    let mut writer = CopilotCli::write(write_options(None)).unwrap();
    let mut lines = doc.lines();
    let head: String = lines.by_ref().take(3).map(|l| format!("{l}\n")).collect();
    let chunks = writer.push(&head).unwrap();
    assert_eq!(chunks.len(), 1, "session.start and the first records go out before the rest is pushed");
    assert!(chunks[0].path.ends_with("/events.jsonl"));
    let mut bytes = chunks[0].bytes.clone();
    let rest: String = lines.map(|l| format!("{l}\n")).collect();
    for chunk in writer.push(&rest).unwrap() {
        bytes.extend_from_slice(&chunk.bytes);
    }
    let done = writer.finish().unwrap();
    for chunk in done.chunks.iter().filter(|c| c.path.ends_with("/events.jsonl")) {
        bytes.extend_from_slice(&chunk.bytes);
    }
    assert!(done.chunks.last().unwrap().path.ends_with("/workspace.yaml"));
    let whole = write_doc(&doc, write_options(None));
    assert_eq!(bytes, whole.artifacts[0].bytes, "streamed in pieces = written at once");
}

/// Copilot 1.0.102 refuses (exit 1, nothing sent) a session whose
/// `startTime` has microseconds and an offset, as Deep Agents' sessions
/// have: every timestamp is written with milliseconds and `Z`.
#[test]
fn write_gives_every_timestamp_in_copilots_own_form() {
    let doc = [
        serde_json::json!({"id": "m", "kind": "meta", "schema": "trajhost.canonical/0.1", "harness": "deep-agents",
                           "native_id": "t1", "cwd": "/home/user/project", "started_at": "2026-11-30T05:20:57.916053+00:00"}),
        serde_json::json!({"id": "u1", "kind": "user", "text": "Read a.txt", "ts": "2026-11-30T06:21:12.003456+01:00"}),
        serde_json::json!({"id": "a1", "kind": "assistant", "text": "Done."}),
    ]
    .iter()
    .map(|v| v.to_string() + "\n")
    .collect::<String>();
    let written = write_doc(&doc, write_options(None));
    let events = String::from_utf8(written.artifacts[0].bytes.clone()).unwrap();
    let times: Vec<(String, String)> = events
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| (v["type"].as_str().unwrap().to_string(), v["timestamp"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(times[0], ("session.start".to_string(), "2026-11-30T05:20:57.916Z".to_string()));
    assert_eq!(times[1], ("user.message".to_string(), "2026-11-30T05:21:12.003Z".to_string()));
    assert_eq!(times[2].1, "2026-11-30T05:21:12.003Z", "a record without a time takes the last one");
    assert!(events.contains(r#""startTime":"2026-11-30T05:20:57.916Z""#), "{events}");
    let yaml = &written.artifacts.iter().find(|a| a.path.ends_with("workspace.yaml")).unwrap().bytes;
    assert!(
        String::from_utf8_lossy(yaml).contains("created_at: 2026-11-30T05:20:57.916Z"),
        "{}",
        String::from_utf8_lossy(yaml)
    );
}

// ---------------------------------------------------------------- 0.0.420

/// fixtures/copilot-cli/0.0.420 (hand-written): requests without a
/// `toolCallId`, executions no request announced, a request logged twice.
#[test]
fn each_call_is_one_call_however_requests_and_executions_log_it() {
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/copilot-cli/0.0.420/home");
    let id = "5e0f3a21-7c44-4b1e-9d2a-0c45aa000420";
    let found = kit::discover::<CopilotCli>(&home);
    assert_eq!(found.sessions.len(), 1, "{:?}", found.diagnostics);
    assert_eq!(found.sessions[0].native_version.as_deref(), Some("0.0.420"));
    let read = kit::conformance::<CopilotCli>(&home, &locator(id), Spans::Lines);
    let records = &read.records;
    assert_eq!(users(records), ["run the tests", "and the linter?"]);
    let calls: Vec<(&str, &str)> = tool_calls(records).iter().map(|c| (c.0, c.1)).collect();
    // The request without an id is named after its message; its execution
    // (toolu_vrtx_01PytestRun) makes no second call.
    let pytest = calls[0].0;
    assert!(pytest.ends_with("#call0"), "{pytest}");
    assert_eq!(calls, [(pytest, "bash"), ("toolu_vrtx_02RuffCheck", "bash"), ("toolu_vrtx_03Intent", "report_intent")]);
    assert_eq!(tool_calls(records)[0].2, &json!({"command": "pytest -q", "description": "Run the tests"}));
    let results = tool_results(records);
    let got: Vec<(&str, Option<bool>)> = results.iter().map(|r| (r.0, r.2)).collect();
    assert_eq!(
        got,
        [(pytest, Some(true)), ("toolu_vrtx_03Intent", Some(true)), ("toolu_vrtx_02RuffCheck", Some(false))]
    );
    assert!(results[0].1.contains("PYTEST-SENTINEL-42") && results[2].1.contains("RUFF-SENTINEL-7"));
    // Each result after its call, each answer after the result it quotes.
    let position = |f: &dyn Fn(&Body) -> bool| records.iter().position(|r| f(&r.body)).unwrap();
    for (call, _) in &calls {
        let c = position(&|b| matches!(b, Body::ToolCall { call_id, .. } if call_id == call));
        let r = position(&|b| matches!(b, Body::ToolResult { call_id, .. } if call_id == call));
        assert!(c < r, "{call}");
    }
    for (sentinel, call) in [("PYTEST-SENTINEL-42", pytest), ("RUFF-SENTINEL-7", "toolu_vrtx_02RuffCheck")] {
        let r = position(&|b| matches!(b, Body::ToolResult { call_id, .. } if call_id == call));
        let a = position(&|b| matches!(b, Body::Assistant(a) if a.text.contains(sentinel)));
        assert!(r < a, "{sentinel}");
    }
    let problems: Vec<&str> = read
        .diagnostics
        .iter()
        .filter(|d| d.severity != trajhost_codec_sdk::Severity::Info)
        .map(|d| d.code.as_str())
        .collect();
    assert!(problems.is_empty(), "{:?}", read.diagnostics);
}
