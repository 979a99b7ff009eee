//! What is particular to Codex's rollouts, against rollouts written by the
//! real Codex CLI (fixtures/codex/0.171.0) and synthetic variations of
//! them, run natively through `Dir::native`; write and prepare against
//! copies of those homes. What every codec must do is the testkit's suite,
//! in tests/conformance.rs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_codex::Codex;
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::sqlite::Value as SqlValue;
use trajhost_codec_sdk::{Codec, CodecError, Operation, Plan, ReadOptions, WriteOptions};
use trajhost_codec_testkit::suite::Lab;
use trajhost_codec_testkit::{
    self as kit, Read, Spans, assistant_texts, diag_with as diag, tool_calls as calls, tool_results as results, users,
};

const CWD: &str = "/home/user/project";

/// The lab scenarios, as conformance.json names them.
const SCENARIOS: [&str; 5] = ["simple", "parallel", "failing-tool", "multibyte", "long-output"];

fn lab() -> Lab<Codex> {
    Lab::new(include_str!("conformance.json"))
}

fn home(scenario: &str) -> PathBuf {
    lab().home(scenario)
}

fn read_with(home: &Path, locator: &str, options: ReadOptions) -> Read {
    kit::read_with::<Codex>(home, locator, options)
}

fn read(home: &Path, locator: &str) -> Read {
    kit::read::<Codex>(home, locator)
}

fn read_scenario(scenario: &str) -> Read {
    lab().read(scenario)
}

#[test]
fn discover_names_every_file_that_is_not_a_session_and_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let day = tmp.path().join(".codex/sessions/2026/01/02");
    std::fs::create_dir_all(&day).unwrap();
    let valid = lab().path("simple");
    std::fs::copy(&valid, day.join(valid.file_name().unwrap())).unwrap();
    std::fs::write(day.join("notes.txt"), "x").unwrap();
    std::fs::create_dir(day.join("rollout-2026-01-02T00-00-09-dir.jsonl")).unwrap();
    std::fs::write(day.join("rollout-2026-01-02T00-00-00-01a22aa5-cfcc-7311-a9b5-d6de00c468b3.jsonl"), "").unwrap();
    std::fs::write(day.join("rollout-2026-01-02T00-00-01-01a22aa5-cfcc-7311-a9b5-d6de00c468b4.jsonl.zst"), "z")
        .unwrap();
    std::fs::write(day.join("rollout-2026-01-02T00-00-02-not-json.jsonl"), "not json\n").unwrap();
    let not_meta = r#"{"timestamp":"2026-01-02T00:00:03.000Z","type":"event_msg","payload":{"type":"task_started"}}"#;
    std::fs::write(day.join("rollout-2026-01-02T00-00-03-no-meta.jsonl"), format!("{not_meta}\n")).unwrap();
    std::fs::write(tmp.path().join(".codex/sessions/2026/stray.json"), "{}").unwrap();
    let found = Codex::discover(&Dir::native(tmp.path())).unwrap();
    assert_eq!(found.sessions.len(), 1, "one bad file does not end the discovery: {:?}", found.diagnostics);
    assert_eq!(found.sessions[0].native_id, lab().id("simple"));
    let named = |code: &str, name: &str| {
        let file = if name.contains('/') {
            format!(".codex/sessions/{name}")
        } else {
            format!(".codex/sessions/2026/01/02/{name}")
        };
        kit::file_diag(&found.diagnostics, code, &file)
            .unwrap_or_else(|| panic!("no {code} for {file}: {:#?}", found.diagnostics))
    };
    assert_eq!(named("unrecognized-file", "notes.txt").detail, "not a rollout file name (rollout-*.jsonl)");
    named("unrecognized-file", "rollout-2026-01-02T00-00-09-dir.jsonl");
    named("unrecognized-file", "2026/stray.json");
    named("empty-session-file", "rollout-2026-01-02T00-00-00-01a22aa5-cfcc-7311-a9b5-d6de00c468b3.jsonl");
    named("compressed-rollout", "rollout-2026-01-02T00-00-01-01a22aa5-cfcc-7311-a9b5-d6de00c468b4.jsonl.zst");
    let not_json = named("malformed-head", "rollout-2026-01-02T00-00-02-not-json.jsonl");
    assert!(not_json.detail.contains("not a rollout line"), "{}", not_json.detail);
    assert_eq!(
        named("malformed-head", "rollout-2026-01-02T00-00-03-no-meta.jsonl").detail,
        "no session_meta line at the head"
    );
    assert_eq!(found.diagnostics.len(), 7, "{:#?}", found.diagnostics);
    for d in &found.diagnostics {
        assert!(!d.detail.contains("not json") && !d.detail.contains("task_started"), "no content in {d:?}");
    }
    // inspect says why such a file is no session.
    let err = Codex::inspect(
        &Dir::native(tmp.path()),
        ".codex/sessions/2026/01/02/rollout-2026-01-02T00-00-02-not-json.jsonl",
    )
    .unwrap_err();
    assert!(matches!(&err, CodecError::Malformed(m) if m.contains("not a Codex rollout")), "{err:?}");
    // A home without .codex has no sessions and no error.
    let empty = tempfile::tempdir().unwrap();
    let nothing = Codex::discover(&Dir::native(empty.path())).unwrap();
    assert!(nothing.sessions.is_empty() && nothing.diagnostics.is_empty());
    let err = Codex::inspect(&Dir::native(tmp.path()), "../etc/passwd").unwrap_err();
    assert!(matches!(err, CodecError::NotFound(_)), "{err:?}");
}

const ODD_DAY: &str = ".codex/sessions/2025/10/28";
const ODD_ROLLOUT: &str = "rollout-2025-10-28T04-00-00-compact-codex-001.jsonl";
const ODD_ID: &str = "019a2a1c-4b7e-7d30-9c61-5f0e2d8a7b14";

fn odd_home() -> PathBuf {
    kit::fixtures("codex", "0.77.0").join("odd-name")
}

#[test]
fn a_rollout_whose_name_has_no_thread_id_is_listed_by_its_content() {
    let home = odd_home();
    let locator = format!("{ODD_DAY}/{ODD_ROLLOUT}");
    let found = kit::discover::<Codex>(&home);
    assert_eq!(found.sessions.len(), 1, "{:?}", found.sessions);
    let s = &found.sessions[0];
    assert_eq!((s.native_id.as_str(), s.locator.as_str()), (ODD_ID, locator.as_str()));
    assert_eq!(s.native_version.as_deref(), Some("0.77.0"));
    assert_eq!(s.cwd.as_deref(), Some(CWD));
    assert_eq!(s.title.as_deref(), Some("Read hello.txt and tell me the secret word."));
    assert_eq!(s.started_at.as_deref(), Some("2025-10-28T04:00:00.098Z"));
    // The two files of the day directory that are not rollouts are named.
    let codes: Vec<(&str, &str)> =
        found.diagnostics.iter().map(|d| (d.code.as_str(), d.file.as_deref().unwrap_or(""))).collect();
    assert_eq!(
        codes,
        [
            ("unrecognized-file", format!("{ODD_DAY}/notes.txt").as_str()),
            ("malformed-head", format!("{ODD_DAY}/rollout-2025-10-28T05-00-00-notes.jsonl").as_str()),
        ]
    );
    assert!(found.diagnostics.iter().all(|d| matches!(d.severity, trajhost_codec_sdk::Severity::Warning)));
    // inspect and read of that path work, by the same id.
    let inspected = Codex::inspect(&Dir::native(&home), &locator).unwrap();
    assert_eq!(format!("{inspected:?}"), format!("{s:?}"));
    let read = kit::conformance::<Codex>(&home, &locator, Spans::Lines);
    assert_eq!(read.meta().native_id, ODD_ID);
    assert!(
        read.diagnostics.iter().all(|d| d.code != "session-id-mismatch" && d.code != "no-session-meta"),
        "{:?}",
        read.diagnostics
    );
    assert_eq!(users(&read.records), ["Read hello.txt and tell me the secret word."]);
    let calls = calls(&read.records);
    assert_eq!(calls.len(), 1);
    assert_eq!((calls[0].0, calls[0].1), ("call_7Qm2b9XkVn4rT1sLp8dE3aYw", "shell"));
    assert_eq!(calls[0].2["command"], json!(["bash", "-lc", "cat hello.txt"]));
    let results = results(&read.records);
    assert!(results.len() == 1 && results[0].1.contains("QUINCE-77"), "{results:?}");
    assert_eq!(assistant_texts(&read.records), ["The secret word is QUINCE-77."]);
}

#[test]
fn a_renamed_copy_outside_the_tree_reads_as_the_same_session() {
    // What the host does with a loose file it recognized by content: grant
    // its directory and pass the bare name.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(lab().path("simple"), tmp.path().join("sent-to-me.jsonl")).unwrap();
    let copy = Codex::inspect(&Dir::native(tmp.path()), "sent-to-me.jsonl").unwrap();
    assert_eq!(copy.native_id, lab().id("simple"));
    let original = read_scenario("simple");
    let loose = read(tmp.path(), "sent-to-me.jsonl");
    // Records without a native id are named by their byte location, which
    // includes the locator: compare bodies and offsets.
    let strip = |r: &Read| {
        r.records.iter().skip(1).map(|r| (r.body.clone(), r.src.as_ref().map(|s| s.offset))).collect::<Vec<_>>()
    };
    assert_eq!(strip(&loose), strip(&original), "the same bytes give the same records");
    // A loose file that is no rollout is refused, naming it.
    std::fs::write(tmp.path().join("x.jsonl"), "hello\n").unwrap();
    let err = kit::try_read::<Codex>(tmp.path(), "x.jsonl", kit::one_batch()).unwrap_err();
    assert!(matches!(&err, CodecError::Malformed(m) if m.starts_with("x.jsonl: not a Codex rollout")), "{err:?}");
}

/// Each turn is bracketed by `task_started` and `task_complete` with its
/// `turn_context`; the injected developer instructions and environment
/// context are system records; records keep Codex's own ids (messages
/// `msg_`, outputs `fco_`, calls their call id) and a second read in small
/// batches gives the same document.
#[test]
fn turns_context_and_ids_are_codexs_own() {
    for name in SCENARIOS {
        let read = read_scenario(name);
        let r = &read.records;
        let observations: Vec<&str> = r
            .iter()
            .filter_map(|r| match &r.body {
                Body::Observation { subtype, .. } => Some(subtype.as_str()),
                _ => None,
            })
            .collect();
        let turns = lab().users(name).len();
        for subtype in ["task_started", "task_complete", "turn_context"] {
            assert_eq!(observations.iter().filter(|s| **s == subtype).count(), turns, "{name}: {subtype}");
        }
        let systems: Vec<&Record> = r.iter().filter(|r| r.body.kind() == "system").collect();
        assert!(
            systems
                .iter()
                .any(|s| matches!(&s.body, Body::System { text } if text.starts_with("<environment_context>"))),
            "{name}"
        );
        for r in r {
            match &r.body {
                Body::User { .. } | Body::System { .. } => assert!(r.id.starts_with("msg_"), "{}", r.id),
                Body::ToolResult { .. } => assert!(r.id.starts_with("fco_"), "{}", r.id),
                _ => {}
            }
        }
        let again = read_with(&home(name), &lab().locator(name), kit::options(3, 4096));
        assert!(again.batches > 3, "small batches are honoured");
        assert_eq!(read.document, again.document, "{name}: re-read differs");
    }
}

// ---------------------------------------------------------------------------
// Older and richer rollouts than the fixtures: reasoning, custom tools,
// double-logged events, compaction, aborted turns, torn tails.

/// A rollout of an older Codex (0.4x): `user_message` / `agent_message`
/// events mirroring the response items, `token_count` after the tool
/// outputs, `exec_command_end` carrying the exit code, a custom tool call,
/// encrypted reasoning, a compaction and an aborted turn.
fn older_rollout(id: &str) -> String {
    let lines = vec![
        json!({"timestamp":"2025-10-01T10:00:00.000Z","type":"session_meta","payload":{"id":id,"timestamp":"2025-10-01T10:00:00.000Z","cwd":"/work","originator":"codex_cli_rs","cli_version":"0.46.0","instructions":null,"source":"cli","model_provider":"openai","git":{"branch":"main"}}}),
        json!({"timestamp":"2025-10-01T10:00:00.100Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/work</cwd>\n</environment_context>"}]}}),
        json!({"timestamp":"2025-10-01T10:00:00.200Z","type":"turn_context","payload":{"cwd":"/work","approval_policy":"on-request","sandbox_policy":{"mode":"workspace-write"},"model":"gpt-5-codex","effort":"medium","summary":"auto"}}),
        json!({"timestamp":"2025-10-01T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Fix the bug"},{"type":"input_image","image_url":"data:image/png;base64,AAAA"}]}}),
        json!({"timestamp":"2025-10-01T10:00:01.001Z","type":"event_msg","payload":{"type":"user_message","message":"Fix the bug","images":[]}}),
        json!({"timestamp":"2025-10-01T10:00:02.000Z","type":"event_msg","payload":{"type":"agent_reasoning","text":"Looking"}}),
        json!({"timestamp":"2025-10-01T10:00:02.001Z","type":"response_item","payload":{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Looking at the code"}],"content":null,"encrypted_content":"gAAAAB-secret"}}),
        json!({"timestamp":"2025-10-01T10:00:02.002Z","type":"response_item","payload":{"type":"function_call","id":"fc_1","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls\"]}","call_id":"call_1"}}),
        json!({"timestamp":"2025-10-01T10:00:02.003Z","type":"response_item","payload":{"type":"custom_tool_call","id":"ctc_1","status":"completed","call_id":"call_2","name":"apply_patch","input":"*** Begin Patch\n*** End Patch"}}),
        json!({"timestamp":"2025-10-01T10:00:03.000Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"call_1","stdout":"a\n","stderr":"","exit_code":1,"duration":{"secs":0,"nanos":1}}}),
        json!({"timestamp":"2025-10-01T10:00:03.001Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"a\\n\",\"metadata\":{\"exit_code\":1}}"}}),
        json!({"timestamp":"2025-10-01T10:00:03.002Z","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"call_2","stdout":"","stderr":"","success":true}}),
        json!({"timestamp":"2025-10-01T10:00:03.003Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"call_2","output":"Done!"}}),
        json!({"timestamp":"2025-10-01T10:00:03.004Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1000,"cached_input_tokens":800,"output_tokens":50,"reasoning_output_tokens":30,"total_tokens":1050},"last_token_usage":{"input_tokens":1000,"cached_input_tokens":800,"output_tokens":50,"reasoning_output_tokens":30,"total_tokens":1050},"model_context_window":272000},"rate_limits":null}}),
        json!({"timestamp":"2025-10-01T10:00:04.000Z","type":"event_msg","payload":{"type":"agent_message","message":"Fixed it."}}),
        json!({"timestamp":"2025-10-01T10:00:04.001Z","type":"response_item","payload":{"type":"message","id":"msg_2","role":"assistant","content":[{"type":"output_text","text":"Fixed it."}]}}),
        json!({"timestamp":"2025-10-01T10:00:04.002Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"primary":null}}}),
        json!({"timestamp":"2025-10-01T10:00:04.003Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":2200,"cached_input_tokens":1000,"output_tokens":60,"reasoning_output_tokens":30,"total_tokens":2260},"last_token_usage":{"input_tokens":1200,"cached_input_tokens":200,"output_tokens":10,"reasoning_output_tokens":0,"total_tokens":1210},"model_context_window":272000},"rate_limits":null}}),
        json!({"timestamp":"2025-10-01T10:00:04.004Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"1","last_agent_message":"Fixed it."}}),
        json!({"timestamp":"2025-10-01T10:00:05.000Z","type":"compacted","payload":{"message":"Summary: the bug was fixed.","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Fix the bug"}]}]}}),
        json!({"timestamp":"2025-10-01T10:00:05.001Z","type":"event_msg","payload":{"type":"context_compacted"}}),
        json!({"timestamp":"2025-10-01T10:00:06.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Now add a test"}]}}),
        json!({"timestamp":"2025-10-01T10:00:06.001Z","type":"event_msg","payload":{"type":"user_message","message":"Now add a test","images":[]}}),
        json!({"timestamp":"2025-10-01T10:00:07.000Z","type":"response_item","payload":{"type":"reasoning","id":"rs_2","summary":[],"encrypted_content":"gAAAAB-more"}}),
        json!({"timestamp":"2025-10-01T10:00:07.001Z","type":"event_msg","payload":{"type":"error","message":"stream disconnected"}}),
        json!({"timestamp":"2025-10-01T10:00:07.002Z","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}),
        json!({"timestamp":"2025-10-01T10:00:08.000Z","type":"brand_new_line_type","payload":{}}),
        json!({"timestamp":"2025-10-01T10:00:08.001Z","type":"event_msg","payload":{"type":"brand_new_event"}}),
    ];
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    // A torn tail: the CLI was writing when the copy was taken.
    text.push_str(r#"{"timestamp":"2025-10-01T10:00:09.000Z","type":"response_item","payload":{"type":"mess"#);
    text
}

const OLD_ID: &str = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";

fn older_home() -> (tempfile::TempDir, String) {
    let tmp = tempfile::tempdir().unwrap();
    let locator = format!(".codex/sessions/2025/10/01/rollout-2025-10-01T10-00-00-{OLD_ID}.jsonl");
    let path = tmp.path().join(&locator);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, older_rollout(OLD_ID)).unwrap();
    (tmp, locator)
}

#[test]
fn read_maps_an_older_richer_rollout() {
    let (tmp, locator) = older_home();
    let read = read(tmp.path(), &locator);
    let r = &read.records;
    let kinds: Vec<&str> = r.iter().map(|r| r.body.kind()).collect();
    assert_eq!(
        kinds,
        [
            "meta",
            "system",
            "observation",
            "user",
            "reasoning",
            "assistant",
            "tool_call",
            "tool_call",
            "tool_result",
            "tool_result",
            "assistant",
            "observation",
            "compaction",
            "user",
            "reasoning",
            "assistant",
            "observation",
            "observation",
        ],
        "{:#?}",
        r
    );
    let Body::Meta(meta) = &r[0].body else { unreachable!() };
    assert_eq!((meta.native_version.as_deref(), meta.git_branch.as_deref()), (Some("0.46.0"), Some("main")));
    assert_eq!(meta.title.as_deref(), Some("Fix the bug"));
    // User text once (the user_message event is a copy), image as attachment.
    assert_eq!(users(r), ["Fix the bug", "Now add a test"]);
    let Body::User { attachments, .. } = &r[3].body else { unreachable!() };
    assert_eq!(attachments[0].media_type.as_deref(), Some("image/png"));
    // Encrypted reasoning is opaque; its summary readable.
    let Body::Reasoning(reasoning) = &r[4].body else { unreachable!() };
    assert_eq!(reasoning.text.as_deref(), Some("Looking at the code"));
    assert_eq!(reasoning.opaque.as_deref(), Some("gAAAAB-secret"));
    assert!(reasoning.encrypted);
    // The first response: no text, both calls, usage from the token_count
    // after the outputs, cached input split out.
    let Body::Assistant(first) = &r[5].body else { unreachable!() };
    assert_eq!(first.text, "");
    assert_eq!(first.model.as_deref(), Some("gpt-5-codex"));
    let usage = first.usage.as_ref().unwrap();
    assert_eq!(
        (usage.input, usage.cache_read, usage.output, usage.reasoning, usage.cache_write),
        (Some(200), Some(800), Some(50), Some(30), None)
    );
    assert_eq!(r[4].parent.as_deref(), Some(r[5].id.as_str()));
    let calls = calls(r);
    assert_eq!(calls[0], ("call_1", "shell", &json!({"command": ["bash", "-lc", "ls"]})));
    assert_eq!(calls[1], ("call_2", "apply_patch", &json!("*** Begin Patch\n*** End Patch")));
    // Outcomes from exec_command_end / patch_apply_end.
    let results = results(r);
    assert_eq!(results[0], ("call_1", "{\"output\":\"a\\n\",\"metadata\":{\"exit_code\":1}}", Some(false)));
    assert_eq!(results[1], ("call_2", "Done!", Some(true)));
    // The second response: its text once, its own usage (the info-less
    // token_count in between is skipped).
    let Body::Assistant(second) = &r[10].body else { unreachable!() };
    assert_eq!((second.text.as_str(), second.message_id.as_deref()), ("Fixed it.", Some("msg_2")));
    assert_eq!(r[10].id, "msg_2");
    let usage = second.usage.as_ref().unwrap();
    assert_eq!((usage.input, usage.cache_read, usage.output), (Some(1000), Some(200), Some(10)));
    // Compaction with its summary.
    assert!(matches!(&r[12].body, Body::Compaction { summary, .. } if summary == "Summary: the bug was fixed."));
    // The aborted response: reasoning only, no usage recorded → None.
    let Body::Assistant(aborted) = &r[15].body else { unreachable!() };
    assert!(aborted.usage.is_none());
    assert!(
        matches!(&r[16].body, Body::Observation { subtype, text } if subtype == "error" && text.as_deref() == Some("stream disconnected"))
    );
    assert!(
        matches!(&r[17].body, Body::Observation { subtype, text } if subtype == "turn_aborted" && text.as_deref() == Some("interrupted"))
    );
    // Nothing dropped silently.
    let d = &read.diagnostics;
    assert_eq!(diag(d, "unmapped-record-type", "event_msg/user_message").unwrap().count, 2);
    // The answer's event came first and made the record; the item is its
    // mirror and names it.
    assert!(diag(d, "unmapped-record-type", "event_msg/agent_message").is_none());
    assert_eq!(diag(d, "mirrored-message", "response_item/message/assistant").unwrap().count, 1);
    assert!(diag(d, "unmapped-record-type", "event_msg/agent_reasoning").is_some());
    assert!(diag(d, "unmapped-record-type", "event_msg/context_compacted").is_some());
    assert!(diag(d, "unknown-record-type", "brand_new_line_type").is_some());
    assert!(diag(d, "unknown-record-type", "event_msg/brand_new_event").is_some());
    assert!(diag(d, "torn-tail", "unterminated last line").is_some());
}

#[test]
fn held_back_responses_stay_bounded() {
    // A response whose usage never comes, followed by many tool outputs.
    let id = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c";
    let mut text = format!(
        "{}\n",
        json!({"timestamp":"2025-10-01T10:00:00.000Z","type":"session_meta","payload":{"id":id,"timestamp":"2025-10-01T10:00:00.000Z","cwd":"/w","cli_version":"0.46.0"}})
    );
    for i in 0..2000 {
        text.push_str(&format!("{}\n", json!({"timestamp":"2025-10-01T10:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":format!("c{i}")}})));
        text.push_str(&format!("{}\n", json!({"timestamp":"2025-10-01T10:00:01.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":format!("c{i}"),"output":"x"}})));
    }
    let tmp = tempfile::tempdir().unwrap();
    let locator = format!(".codex/sessions/2025/10/01/rollout-2025-10-01T10-00-00-{id}.jsonl");
    std::fs::create_dir_all(tmp.path().join(&locator).parent().unwrap()).unwrap();
    std::fs::write(tmp.path().join(&locator), text).unwrap();
    let read = read_with(tmp.path(), &locator, kit::options(100, 1 << 20));
    assert_eq!(calls(&read.records).len(), 2000);
    assert_eq!(results(&read.records).len(), 2000);
    assert!(read.batches >= 20, "batches are cut while responses are held back");
}

// ---------------------------------------------------------------------------
// write

fn write(document: &str, options: WriteOptions) -> trajhost_codec_sdk::WrittenFiles {
    kit::suite::write::<Codex>(document, options)
}

fn no_options() -> WriteOptions {
    WriteOptions { cwd: None, native_id: None, home_path: None }
}

/// Puts written artifacts into a fresh home and reads the rollout back.
fn read_back(written: &trajhost_codec_sdk::WrittenFiles) -> (tempfile::TempDir, Read) {
    kit::read_installed::<Codex>(written, &written.artifacts[0].path)
}

fn rollout_lines(bytes: &[u8]) -> Vec<Value> {
    std::str::from_utf8(bytes).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn write_produces_a_rollout_codex_accepts() {
    let read = read_scenario("simple");
    let written = write(&read.document, no_options());
    assert_eq!(written.artifacts.len(), 1);
    let artifact = &written.artifacts[0];
    let id = &written.native_id;
    // A UUIDv7 whose time is the session start.
    assert!(id.starts_with("01a22aa5-cf") && &id[14..15] == "7", "{id}");
    assert_ne!(id, lab().id("simple"), "a fresh thread id");
    assert_eq!(artifact.path, format!(".codex/sessions/2026/11/30/rollout-2026-11-30T04-10-39-{id}.jsonl"));
    let lines = rollout_lines(&artifact.bytes);
    let meta = &lines[0];
    assert_eq!(meta["type"], "session_meta");
    assert_eq!(meta["payload"]["id"], id.as_str());
    assert_eq!(meta["payload"]["timestamp"], "2026-11-30T04:10:39.446Z");
    assert_eq!(meta["payload"]["cwd"], CWD);
    assert_eq!(meta["payload"]["cli_version"], "0.171.0");
    assert_eq!(meta["payload"]["source"], "cli");
    assert!(meta["payload"]["model_provider"].is_string());
    // Native key order, monotonic ordinals, the shapes of a real rollout.
    let text = std::str::from_utf8(&artifact.bytes).unwrap();
    assert!(text.lines().all(|l| l.starts_with(r#"{"timestamp":""#)));
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["ordinal"], i as u64);
    }
    let shape: Vec<String> = lines
        .iter()
        .map(|l| match l["payload"]["type"].as_str() {
            Some(t) if l["type"] != "turn_context" => format!("{}/{t}", l["type"].as_str().unwrap()),
            _ => l["type"].as_str().unwrap().to_string(),
        })
        .collect();
    assert_eq!(
        shape,
        [
            "session_meta",
            "event_msg/task_started",
            "turn_context",
            "response_item/message",
            "response_item/message",
            "response_item/message",
            "response_item/function_call",
            "event_msg/token_count",
            "response_item/function_call_output",
            "response_item/message",
            "event_msg/token_count",
            "event_msg/task_complete",
            "event_msg/task_started",
            "turn_context",
            "response_item/message",
            "response_item/message",
            "event_msg/token_count",
            "event_msg/task_complete",
        ]
    );
    let call = lines.iter().find(|l| l["payload"]["type"] == "function_call").unwrap();
    assert_eq!(call["payload"]["arguments"], r#"{"cmd":"cat hello.txt"}"#, "arguments as a JSON string");
    let output = lines.iter().find(|l| l["payload"]["type"] == "function_call_output").unwrap();
    assert_eq!(output["payload"]["call_id"], call["payload"]["call_id"]);
    assert_eq!(lines[2]["payload"]["model"], "fake-model");
    // Deterministic: the same document gives the same bytes.
    let again = write(&read.document, no_options());
    assert_eq!(again.native_id, written.native_id);
    assert_eq!(again.artifacts[0].bytes, artifact.bytes);
    // Options: the chosen id and cwd.
    let chosen = "01a22aa5-0000-7000-8000-000000000001";
    let w = write(
        &read.document,
        WriteOptions { cwd: Some("/elsewhere".into()), native_id: Some(chosen.into()), home_path: None },
    );
    assert_eq!(w.native_id, chosen);
    assert!(w.artifacts[0].path.ends_with(&format!("-{chosen}.jsonl")));
    assert_eq!(rollout_lines(&w.artifacts[0].bytes)[0]["payload"]["cwd"], "/elsewhere");
    let err = trajhost_codec_sdk::write_document::<Codex>(
        &read.document,
        WriteOptions { native_id: Some("not-a-uuid".into()), ..no_options() },
    )
    .unwrap_err();
    assert!(matches!(err, CodecError::Other(_)), "{err:?}");
}

/// The suite's round trip keeps the conversation; a rollout keeps the call
/// ids, the system context, usage and model too, and names the exit status
/// it cannot carry.
#[test]
fn write_then_read_keeps_call_ids_context_and_usage() {
    for name in SCENARIOS {
        let source = read_scenario(name);
        let written = write(&source.document, no_options());
        let (_tmp, back) = read_back(&written);
        assert!(back.diagnostics.iter().all(|d| d.code != "unknown-record-type"), "{name}: {:?}", back.diagnostics);
        let strip = |c: Vec<(&str, &str, &Value)>| {
            c.into_iter().map(|(id, n, a)| (id.to_string(), n.to_string(), a.clone())).collect::<Vec<_>>()
        };
        assert_eq!(strip(calls(&back.records)), strip(calls(&source.records)), "{name}");
        let answered =
            |r: Vec<(&str, &str, Option<bool>)>| r.into_iter().map(|(id, ..)| id.to_string()).collect::<Vec<_>>();
        assert_eq!(answered(results(&back.records)), answered(results(&source.records)), "{name}");
        // System context, usage and model carry over too.
        let systems = |r: &[Record]| r.iter().filter(|r| r.body.kind() == "system").count();
        assert_eq!(systems(&back.records), systems(&source.records), "{name}");
        let usages = |r: &[Record]| {
            r.iter()
                .filter_map(|r| match &r.body {
                    Body::Assistant(a) => Some((a.model.clone(), a.usage.clone())),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(usages(&back.records), usages(&source.records), "{name}");
        // What did not carry is named: the recorded exit status.
        assert!(diag(&written.diagnostics, "not-carried", "tool-result-status").is_some(), "{name}");
        assert!(written.diagnostics.iter().all(|d| d.code == "not-carried"), "{name}: {:?}", written.diagnostics);
    }
}

#[test]
fn write_then_read_keeps_an_older_richer_rollout() {
    let (tmp, locator) = older_home();
    let source = read(tmp.path(), &locator);
    let written = write(&source.document, no_options());
    let (_tmp, back) = read_back(&written);
    assert_eq!(users(&back.records), users(&source.records));
    assert_eq!(assistant_texts(&back.records), assistant_texts(&source.records));
    assert_eq!(calls(&back.records), calls(&source.records));
    let lines = rollout_lines(&written.artifacts[0].bytes);
    // The custom tool stays a custom tool, with a matching output type.
    assert!(lines.iter().any(
        |l| l["payload"]["type"] == "custom_tool_call" && l["payload"]["input"] == "*** Begin Patch\n*** End Patch"
    ));
    assert!(
        lines.iter().any(|l| l["payload"]["type"] == "custom_tool_call_output" && l["payload"]["call_id"] == "call_2")
    );
    // Codex's own encrypted reasoning goes back to Codex; the summary too.
    let reasoning: Vec<&Value> = lines.iter().filter(|l| l["payload"]["type"] == "reasoning").collect();
    assert_eq!(reasoning.len(), 2);
    assert_eq!(reasoning[0]["payload"]["encrypted_content"], "gAAAAB-secret");
    assert_eq!(reasoning[0]["payload"]["summary"][0]["text"], "Looking at the code");
    // Compaction as a compacted line.
    assert!(lines.iter().any(|l| l["type"] == "compacted" && l["payload"]["message"] == "Summary: the bug was fixed."));
    let back_compactions = back.records.iter().filter(|r| r.body.kind() == "compaction").count();
    assert_eq!(back_compactions, 1);
    // Usage: canonical input excludes the cache; the rollout's includes it.
    let token_counts: Vec<&Value> = lines.iter().filter(|l| l["payload"]["type"] == "token_count").collect();
    assert_eq!(token_counts[0]["payload"]["info"]["last_token_usage"]["input_tokens"], 1000);
    assert_eq!(token_counts[0]["payload"]["info"]["last_token_usage"]["cached_input_tokens"], 800);
    let d = &written.diagnostics;
    assert!(diag(d, "not-carried", "image-attachment").is_some());
    assert!(diag(d, "not-carried", "observation/error").is_some());
    assert!(diag(d, "not-carried", "observation/turn_aborted").is_some());
}

/// A session as another harness (Claude Code) reads it: thinking with a
/// signature, redacted thinking, Anthropic ids, a failed tool, an image,
/// a subagent transcript.
fn foreign_document() -> String {
    let records = vec![
        json!({"id":"s1","kind":"meta","schema":"trajhost.canonical/0.1","harness":"claude-code","native_id":"61ec73f4-b0bb-4d28-a8cc-bfda17c07ec0","native_version":"2.1.197","cwd":"/home/user/project","started_at":"2026-11-30T04:05:54.384Z","git_branch":"main"}),
        json!({"id":"u1","kind":"system","text":"You are Claude Code.","ts":"2026-11-30T04:05:54.400Z"}),
        json!({"id":"u2","kind":"user","text":"Read hello.txt and tell me the secret word.","attachments":[{"kind":"image","media_type":"image/png"}],"ts":"2026-11-30T04:05:54.500Z"}),
        json!({"id":"r1","kind":"reasoning","text":"I should read the file.","opaque":"EqQBCkYIBxgCKkB-signature","encrypted":false,"ts":"2026-11-30T04:05:55.000Z"}),
        json!({"id":"r2","kind":"reasoning","opaque":"redacted-blob","encrypted":true,"ts":"2026-11-30T04:05:55.000Z"}),
        json!({"id":"msg_01ABC","kind":"assistant","text":"Let me read it.","model":"claude-sonnet-4-5-20250929","message_id":"msg_01ABC","stop_reason":"tool_use","usage":{"input":10,"output":5,"cache_read":100,"cache_write":20},"ts":"2026-11-30T04:05:55.100Z"}),
        json!({"id":"toolu_01","kind":"tool_call","call_id":"toolu_01","name":"Bash","arguments":{"command":"cat hello.txt","description":"Read"},"parent":"msg_01ABC","ts":"2026-11-30T04:05:55.100Z"}),
        json!({"id":"toolu_02","kind":"tool_call","call_id":"toolu_02","name":"Read","arguments":{"file_path":"/home/user/project/missing.txt"},"parent":"msg_01ABC","ts":"2026-11-30T04:05:55.100Z"}),
        json!({"id":"u3","kind":"tool_result","call_id":"toolu_01","content":"Hello from the lab workspace. The secret word is PAPAYA-42.","ok":true,"ts":"2026-11-30T04:05:56.000Z"}),
        json!({"id":"u4","kind":"tool_result","call_id":"toolu_02","content":"File does not exist.","ok":false,"ts":"2026-11-30T04:05:56.000Z"}),
        json!({"id":"u5","kind":"tool_result","call_id":"toolu_99","content":"orphan","ts":"2026-11-30T04:05:56.000Z"}),
        json!({"id":"a1","kind":"meta","schema":"trajhost.canonical/0.1","harness":"claude-code","native_id":"agent-1","agent":"agent-1"}),
        json!({"id":"a2","kind":"user","text":"subagent prompt","agent":"agent-1"}),
        json!({"id":"msg_01DEF","kind":"assistant","text":"FINAL ANSWER: PAPAYA-42","model":"claude-sonnet-4-5-20250929","message_id":"msg_01DEF","usage":{"input":3,"output":7},"ts":"2026-11-30T04:05:57.000Z"}),
        json!({"id":"o1","kind":"observation","subtype":"system/turn_duration","ts":"2026-11-30T04:05:57.100Z"}),
        json!({"id":"z1","kind":"future_kind","ts":"2026-11-30T04:05:57.200Z"}),
    ];
    records.iter().map(|r| format!("{r}\n")).collect()
}

#[test]
fn write_from_another_harness_names_what_does_not_carry() {
    let written = write(&foreign_document(), WriteOptions { cwd: Some("/target/cwd".into()), ..no_options() });
    let d = &written.diagnostics;
    kit::check_reported(
        d,
        "not-carried",
        &[
            "opaque-reasoning",
            "image-attachment",
            "subagent-transcript",
            "foreign-system-prompt",
            "tool-result-status",
            "orphan-tool-result",
            "stop-reason",
            "observation/system/turn_duration",
            "unknown-kind/future_kind",
        ],
    );
    assert_eq!(diag(d, "not-carried", "opaque-reasoning").unwrap().count, 2);
    assert_eq!(diag(d, "not-carried", "tool-result-status").unwrap().count, 2);
    let text = std::str::from_utf8(&written.artifacts[0].bytes).unwrap();
    for absent in ["signature", "redacted-blob", "msg_01ABC", "You are Claude Code", "subagent prompt", "orphan"] {
        assert!(!text.contains(absent), "{absent} was written");
    }
    let lines = rollout_lines(&written.artifacts[0].bytes);
    assert_eq!(lines[0]["payload"]["cwd"], "/target/cwd");
    assert_eq!(lines[0]["payload"]["git"]["branch"], "main");
    let context = lines.iter().find(|l| l["type"] == "turn_context").unwrap();
    assert_eq!(context["payload"]["model"], "claude-sonnet-4-5-20250929");

    let (_tmp, back) = read_back(&written);
    assert_eq!(users(&back.records), ["Read hello.txt and tell me the secret word."]);
    assert_eq!(assistant_texts(&back.records), ["Let me read it.", "FINAL ANSWER: PAPAYA-42"]);
    let calls = calls(&back.records);
    assert_eq!(calls[0], ("toolu_01", "Bash", &json!({"command": "cat hello.txt", "description": "Read"})));
    assert_eq!(calls[1].1, "Read");
    let results = results(&back.records);
    assert_eq!(results[0], ("toolu_01", "Hello from the lab workspace. The secret word is PAPAYA-42.", None));
    assert_eq!(results.len(), 2);
    // The readable thinking went over as a reasoning summary.
    assert!(back.records.iter().any(|r| matches!(&r.body, Body::Reasoning(x) if x.text.as_deref() == Some("I should read the file.") && x.opaque.is_none())));
    // Usage survives the round trip through Codex's cache-inclusive input.
    let usage: Vec<_> = back
        .records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Assistant(a) if !a.text.is_empty() => a.usage.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(
        (usage[0].input, usage[0].output, usage[0].cache_read, usage[0].cache_write),
        (Some(10), Some(5), Some(100), Some(20))
    );
    assert_eq!((usage[1].input, usage[1].output), (Some(3), Some(7)));
}

#[test]
fn write_refuses_a_malformed_document() {
    let err = trajhost_codec_sdk::write_document::<Codex>("{not json\n", no_options()).unwrap_err();
    assert!(matches!(err, CodecError::Malformed(_)), "{err:?}");
}

// ---------------------------------------------------------------------------
// prepare

/// A copy of a fixture's `.codex` state (config and databases, no sessions)
/// in a fresh home, with the fixture's own thread rows kept or removed.
fn target_home(scenario: &str, keep_rows: bool) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let codex = tmp.path().join(".codex");
    std::fs::create_dir_all(&codex).unwrap();
    for entry in std::fs::read_dir(home(scenario).join(".codex")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, codex.join(path.file_name().unwrap())).unwrap();
        }
    }
    if !keep_rows {
        let conn = rusqlite::Connection::open(codex.join("state_5.sqlite")).unwrap();
        conn.execute("DELETE FROM threads", []).unwrap();
    }
    tmp
}

/// Executes a plan the way the host does: files created, rows inserted.
fn execute(plan: &Plan, home: &Path) {
    for op in &plan.operations {
        match op {
            Operation::CreateFile(f) => kit::create_new_file(home, &f.path, &f.bytes),
            Operation::InsertRows(ins) => {
                let conn = rusqlite::Connection::open(home.join(&ins.database)).unwrap();
                let sql = format!(
                    "INSERT INTO \"{}\" ({}) VALUES ({})",
                    ins.table,
                    ins.columns.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", "),
                    vec!["?"; ins.columns.len()].join(", ")
                );
                for row in &ins.rows {
                    let values = row.iter().map(|v| match v {
                        SqlValue::Null => rusqlite::types::Value::Null,
                        SqlValue::Integer(i) => rusqlite::types::Value::Integer(*i),
                        SqlValue::Real(f) => rusqlite::types::Value::Real(*f),
                        SqlValue::Text(s) => rusqlite::types::Value::Text(s.clone()),
                        SqlValue::Blob(b) => rusqlite::types::Value::Blob(b.clone()),
                    });
                    conn.execute(&sql, rusqlite::params_from_iter(values)).unwrap();
                }
            }
            other => panic!("the Codex plan uses create-file and insert-rows only, not {other:?}"),
        }
    }
}

fn prepare(written: &trajhost_codec_sdk::WrittenFiles, target: &Path, home_path: &str) -> Result<Plan, CodecError> {
    let options =
        WriteOptions { cwd: None, native_id: Some(written.native_id.clone()), home_path: Some(home_path.into()) };
    trajhost_codec_sdk::prepare_artifacts::<Codex>(written.artifacts.clone(), &Dir::native(target), options)
}

#[test]
fn prepare_plans_the_rollout_and_its_threads_row() {
    for name in SCENARIOS {
        let source = read_scenario(name);
        let written = write(&source.document, no_options());
        let target = target_home(name, false);
        let home_path = target.path().to_str().unwrap().to_string();
        let plan = prepare(&written, target.path(), &home_path).unwrap();
        let prompt = &lab().users(name)[0];
        assert_eq!(plan.native_id, written.native_id);
        assert_eq!(plan.operations.len(), 2, "{name}");
        let Operation::CreateFile(file) = &plan.operations[0] else { panic!("{name}: first op") };
        assert_eq!(file.path, written.artifacts[0].path);
        let Operation::InsertRows(rows) = &plan.operations[1] else { panic!("{name}: second op") };
        assert_eq!(
            (rows.database.as_str(), rows.table.as_str(), rows.rows.len()),
            (".codex/state_5.sqlite", "threads", 1)
        );
        let value = |column: &str| rows.rows[0][rows.columns.iter().position(|c| c == column).unwrap()].clone();
        let expected_path = format!("{home_path}/{}", file.path);
        assert!(matches!(value("rollout_path"), SqlValue::Text(p) if p == expected_path), "{name}");
        assert!(matches!(value("id"), SqlValue::Text(id) if id == written.native_id));
        // The target is configured for provider `fake`: the thread takes it,
        // in the row and in the rollout (Codex refuses a provider change).
        assert!(matches!(value("model_provider"), SqlValue::Text(p) if p == "fake"));
        let meta = &rollout_lines(&file.bytes)[0];
        assert_eq!(meta["payload"]["model_provider"], "fake");
        assert_eq!(file.bytes.len(), written.artifacts[0].bytes.len() - "openai".len() + "fake".len());
        assert!(matches!(value("title"), SqlValue::Text(t) if t == *prompt));
        assert!(matches!(value("preview"), SqlValue::Text(t) if t == *prompt));
        assert!(matches!(value("created_at_ms"), SqlValue::Integer(1_796_011_800_000..=1_796_011_900_000)));
        let resume = plan.resume_command.as_deref().unwrap();
        assert!(resume.contains(&format!("codex exec --skip-git-repo-check resume {}", written.native_id)), "{resume}");

        // Executed, the row reads like one Codex wrote: compare with the
        // fixture's own row.
        execute(&plan, target.path());
        let conn = rusqlite::Connection::open(target.path().join(".codex/state_5.sqlite")).unwrap();
        let ours: (String, String, String, String, String, i64, i64, String) = conn
            .query_row(
                "SELECT rollout_path, cwd, title, first_user_message, cli_version, created_at, updated_at_ms, history_mode FROM threads WHERE id = ?",
                [&written.native_id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?)),
            )
            .unwrap();
        assert_eq!(ours.0, expected_path);
        assert!(target.path().join(&file.path).is_file(), "{name}: the row names the created file");
        let fixture = open_untouched(&home(name).join(".codex/state_5.sqlite"));
        let theirs: (String, String, String, String, i64) = fixture
            .query_row("SELECT cwd, title, first_user_message, cli_version, created_at FROM threads", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .unwrap();
        assert_eq!((ours.1.clone(), ours.2.clone(), ours.3.clone(), ours.4.clone(), ours.5), theirs, "{name}");
        assert_eq!(ours.7, "legacy", "the rollout is the history; no paginated projection");
        // The installed session is discovered and read in the target.
        let found = Codex::discover(&Dir::native(target.path())).unwrap();
        assert_eq!(found.sessions.len(), 1);
        assert_eq!(found.sessions[0].native_id, written.native_id);
        // Preparing it again is refused: the thread is registered.
        let err = prepare(&written, target.path(), &home_path).unwrap_err();
        assert!(matches!(&err, CodecError::Other(m) if m.contains("already registered")), "{err:?}");
    }
}

#[test]
fn prepare_into_a_home_without_a_state_database_plans_the_file_only() {
    let source = read_scenario("simple");
    let written = write(&source.document, no_options());
    let target = tempfile::tempdir().unwrap();
    let plan = prepare(&written, target.path(), "/home/someone").unwrap();
    assert_eq!(plan.operations.len(), 1);
    let Operation::CreateFile(file) = &plan.operations[0] else { panic!() };
    // No config: Codex's default provider.
    assert_eq!(rollout_lines(&file.bytes)[0]["payload"]["model_provider"], "openai");
    assert_eq!(file.bytes, written.artifacts[0].bytes);
    let resume = plan.resume_command.unwrap();
    assert!(resume.starts_with("CODEX_HOME=/home/someone/.codex codex exec"), "{resume}");
    // A configured provider is taken even without a state database: Codex
    // 0.171 refuses to resume a rollout recorded under another provider.
    std::fs::create_dir_all(target.path().join(".codex")).unwrap();
    std::fs::write(target.path().join(".codex/config.toml"), "model_provider = \"fake\"\n").unwrap();
    let plan = prepare(&written, target.path(), "/home/someone").unwrap();
    assert_eq!(plan.operations.len(), 1);
    let Operation::CreateFile(file) = &plan.operations[0] else { panic!() };
    let text = std::str::from_utf8(&file.bytes).unwrap();
    assert!(text.lines().next().unwrap().contains(r#""model_provider":"fake"}"#), "key order kept");
    assert_eq!(
        text.lines().skip(1).collect::<Vec<_>>(),
        std::str::from_utf8(&written.artifacts[0].bytes).unwrap().lines().skip(1).collect::<Vec<_>>()
    );
}

fn state_with_threads(columns: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join(".codex")).unwrap();
    let conn = rusqlite::Connection::open(tmp.path().join(".codex/state_5.sqlite")).unwrap();
    conn.execute(&format!("CREATE TABLE threads ({columns})"), []).unwrap();
    tmp
}

const OLD_THREADS: &str = "id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, created_at INTEGER NOT NULL, \
    updated_at INTEGER NOT NULL, source TEXT NOT NULL, model_provider TEXT NOT NULL, cwd TEXT NOT NULL, \
    title TEXT NOT NULL, sandbox_policy TEXT NOT NULL, approval_mode TEXT NOT NULL, \
    tokens_used INTEGER NOT NULL DEFAULT 0, has_user_event INTEGER NOT NULL DEFAULT 0, \
    archived INTEGER NOT NULL DEFAULT 0, archived_at INTEGER, git_sha TEXT, git_branch TEXT, git_origin_url TEXT";

#[test]
fn prepare_fails_closed_on_an_unknown_threads_schema() {
    let source = read_scenario("simple");
    let written = write(&source.document, no_options());
    // An unknown column.
    let target = state_with_threads(&format!("{OLD_THREADS}, mystery_column TEXT NOT NULL"));
    let err = prepare(&written, target.path(), "/h").unwrap_err();
    let CodecError::Unsupported(message) = &err else { panic!("{err:?}") };
    assert!(message.contains(".codex/state_5.sqlite") && message.contains("mystery_column"), "{message}");
    // A missing column Codex needs.
    let target = state_with_threads("id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, created_at INTEGER NOT NULL");
    let CodecError::Unsupported(message) = prepare(&written, target.path(), "/h").unwrap_err() else { panic!() };
    assert!(message.contains("missing columns") && message.contains("model_provider"), "{message}");
    // A known column turned NOT NULL without a default that the row does not fill.
    let target = state_with_threads(&format!("{OLD_THREADS}, agent_role TEXT NOT NULL"));
    let CodecError::Unsupported(message) = prepare(&written, target.path(), "/h").unwrap_err() else { panic!() };
    assert!(message.contains("agent_role"), "{message}");
    // An older, smaller schema is fine: the row fills what exists.
    let target = state_with_threads(OLD_THREADS);
    let plan = prepare(&written, target.path(), "/h").unwrap();
    let Operation::InsertRows(rows) = &plan.operations[1] else { panic!() };
    assert!(!rows.columns.contains(&"preview".to_string()));
    execute(&plan, target.path());
    // The highest state database is the one Codex uses.
    std::fs::write(target.path().join(".codex/state_4.sqlite"), b"").unwrap();
    let written2 = write(
        &source.document,
        WriteOptions { native_id: Some("01a22aa5-0000-7000-8000-000000000002".into()), ..no_options() },
    );
    let plan = prepare(&written2, target.path(), "/h").unwrap();
    let Operation::InsertRows(rows) = &plan.operations[1] else { panic!() };
    assert_eq!(rows.database, ".codex/state_5.sqlite");
}

#[test]
fn prepare_checks_its_artifacts_and_options() {
    let source = read_scenario("simple");
    let written = write(&source.document, no_options());
    let target = target_home("simple", false);
    // Another id than the written one.
    let options =
        WriteOptions { cwd: None, native_id: Some(lab().id("parallel").into()), home_path: Some("/h".into()) };
    let err =
        trajhost_codec_sdk::prepare_artifacts::<Codex>(written.artifacts.clone(), &Dir::native(target.path()), options)
            .unwrap_err();
    assert!(matches!(err, CodecError::Malformed(_)), "{err:?}");
    // A state database needs the home path for the row.
    let options = WriteOptions { cwd: None, native_id: None, home_path: None };
    let err =
        trajhost_codec_sdk::prepare_artifacts::<Codex>(written.artifacts.clone(), &Dir::native(target.path()), options)
            .unwrap_err();
    assert!(matches!(&err, CodecError::Unsupported(m) if m.contains("home-path")), "{err:?}");
    // No rollout among the artifacts.
    let options = WriteOptions { cwd: None, native_id: None, home_path: Some("/h".into()) };
    let other = vec![trajhost_codec_sdk::Artifact { path: "elsewhere.jsonl".into(), bytes: b"{}\n".to_vec() }];
    assert!(trajhost_codec_sdk::prepare_artifacts::<Codex>(other, &Dir::native(target.path()), options).is_err());
}

#[test]
fn config_provider_reads_the_active_profile() {
    use trajhost_codec_codex::prepare::config_provider;
    assert_eq!(
        config_provider("model = \"x\"\nmodel_provider = \"fake\" # loopback\n[model_providers.fake]\nname = \"F\"\n")
            .as_deref(),
        Some("fake")
    );
    assert_eq!(
        config_provider("model_provider = 'a'\nprofile = \"p\"\n[profiles.p]\nmodel_provider = \"b\"\n[profiles.q]\nmodel_provider = \"c\"\n").as_deref(),
        Some("b")
    );
    assert_eq!(config_provider("[profiles.p]\nmodel_provider = \"b\"\n"), None);
    assert_eq!(config_provider(""), None);
}

// ---------------------------------------------------------------- newer shapes and homes

/// A fixture home of this checkout (the testkit's `fixtures_root` follows
/// wherever the shared build compiled the testkit from).
fn own_fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/codex").join(path)
}

const LEAD: &str = "0199b100-0000-7000-8000-00000000aa01";
const WORKER: &str = "0199b100-0000-7000-8000-00000000cc02";

fn subagent_locator(stamp: &str, id: &str) -> String {
    format!(".codex/sessions/2026/10/05/rollout-2026-10-05T{stamp}-{id}.jsonl")
}

#[test]
fn a_message_logged_twice_is_one_record_whichever_copy_comes_first() {
    let home = own_fixture("0.157.1-subagent/home");
    let read = kit::conformance::<Codex>(&home, &subagent_locator("00-00-00", LEAD), Spans::Lines);
    assert_eq!(users(&read.records), ["Update the dependency pins"]);
    assert_eq!(assistant_texts(&read.records), ["I'll ask a worker to pin them."]);
    let answer = read.records.iter().find(|r| matches!(r.body, Body::Assistant(_))).unwrap();
    assert_eq!(answer.id, "msg_lead_1");
    let Body::Assistant(a) = &answer.body else { unreachable!() };
    assert_eq!(a.usage.as_ref().and_then(|u| u.output), Some(20));
    let d = &read.diagnostics;
    assert_eq!(diag(d, "mirrored-message", "response_item/message/user").unwrap().count, 1);
    assert_eq!(diag(d, "unmapped-record-type", "event_msg/agent_message").unwrap().count, 1);
}

#[test]
fn a_subagent_rollout_is_its_own_thread_linked_by_recorded_ids() {
    let home = own_fixture("0.157.1-subagent/home");
    let found = kit::discover::<Codex>(&home);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    let ids: BTreeSet<&str> = found.sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert_eq!(ids, BTreeSet::from([LEAD, WORKER]), "the thread of the first session_meta, not session_id");

    let locator = subagent_locator("00-02-00", WORKER);
    let read = kit::conformance::<Codex>(&home, &locator, Spans::Lines);
    let meta = read.meta();
    assert_eq!(meta.native_id, WORKER);
    assert_eq!(meta.parent_session.as_deref(), Some(LEAD));
    assert_eq!(meta.native_version.as_deref(), Some("0.157.1"));
    // Prompt and answer only as events.
    assert_eq!(users(&read.records), ["Pin serde and tokio in Cargo.toml"]);
    assert_eq!(assistant_texts(&read.records), ["Pinned serde and tokio."]);
    assert_eq!(calls(&read.records).len(), 1);
    assert_eq!(results(&read.records), [("call_1", "Updated serde v1.0.210 -> v1.0.219", None)]);
    // The inherited history's session_meta is a marker naming its thread.
    assert_eq!(kit::observations_of(&read.records, "session_meta"), [LEAD]);
    // Newer item kinds: observations of what they are, not tool calls.
    assert_eq!(kit::observations_of(&read.records, "tool_search_call"), [r#"{"query":"cargo"}"#]);
    assert_eq!(kit::observations_of(&read.records, "tool_search_output"), ["cargo_update"]);
    assert_eq!(
        kit::observations_of(&read.records, "web_search_call"),
        [r#"{"type":"search","query":"tokio latest version"}"#]
    );
    assert_eq!(kit::observations_of(&read.records, "agent_message"), ["Done: serde and tokio pinned"]);
    assert_eq!(kit::observations_of(&read.records, "image_generation_call"), ["a dependency graph"]);
    let d = &read.diagnostics;
    assert_eq!(diag(d, "unmapped-record-type", "world_state").unwrap().count, 1);
    assert_eq!(diag(d, "unmapped-record-type", "inter_agent_communication_metadata").unwrap().count, 1);
    assert!(!d.iter().any(|d| d.code == "unknown-record-type"), "{d:?}");
}

#[test]
fn every_codex_home_of_a_home_is_searched() {
    let home = own_fixture("multi-home/home");
    let found = kit::discover::<Codex>(&home);
    let mut listed: Vec<(&str, &str)> =
        found.sessions.iter().map(|s| (s.native_id.as_str(), s.locator.as_str())).collect();
    listed.sort();
    assert_eq!(
        listed,
        [
            (
                "0199c200-0000-7000-8000-0000000000a1",
                ".codex/sessions/2026/05/01/rollout-2026-05-01T09-00-00-0199c200-0000-7000-8000-0000000000a1.jsonl"
            ),
            (
                "0199c200-0000-7000-8000-0000000000b2",
                ".codex-work/sessions/2026/05/02/rollout-2026-05-02T09-00-00-0199c200-0000-7000-8000-0000000000b2.jsonl"
            ),
            (
                "0199c200-0000-7000-8000-0000000000c3",
                ".codex-work/archived_sessions/rollout-2026-04-30T09-00-00-0199c200-0000-7000-8000-0000000000c3.jsonl"
            ),
            (
                "0199c200-0000-7000-8000-0000000000d4",
                ".config/agent-accounts/codex/alice/sessions/2026/05/03/rollout-2026-05-03T09-00-00-0199c200-0000-7000-8000-0000000000d4.jsonl"
            ),
            (
                "0199c200-0000-7000-8000-0000000000e5",
                ".config/agent-accounts/codex/alice/sessions/2026/05/rollout-imported-copy.jsonl"
            ),
        ]
    );
    let codes: Vec<(&str, &str)> =
        found.diagnostics.iter().map(|d| (d.code.as_str(), d.file.as_deref().unwrap_or(""))).collect();
    assert_eq!(codes, [("unrecognized-file", ".codex-work/sessions/2026/05/02/notes.txt")]);
    for s in &found.sessions {
        let inspected = Codex::inspect(&Dir::native(&home), &s.locator).unwrap();
        assert_eq!(format!("{inspected:?}"), format!("{s:?}"));
        let read = kit::conformance::<Codex>(&home, &s.locator, Spans::Lines);
        assert_eq!(read.meta().native_id, s.native_id);
        assert_eq!(users(&read.records).len(), 1);
        assert_eq!(assistant_texts(&read.records).len(), 1);
    }
    // Each glob `info` reports maps its rollouts back to this home.
    let globs = Codex::info().session_globs;
    for s in &found.sessions[..4] {
        assert!(globs.iter().any(|g| kit::glob_matches(g, &s.locator)), "{} under no glob", s.locator);
    }
}

// ---------------------------------------------------------------- the TypeScript CLI's documents

/// fixtures/codex/0.1.2504-document (hand-written): the TypeScript CLI's
/// `rollout-<date>-<id>.json` documents, an older snapshot beside the whole
/// session.
const DOC_ID: &str = "7f1d2c3b-5a6e-4c1d-9b2a-3e4f5a6b7c8d";
const DOC: &str = ".codex/sessions/rollout-2025-04-20-7f1d2c3b-5a6e-4c1d-9b2a-3e4f5a6b7c8d.json";
const OLD_DOC: &str = ".codex/sessions/rollout-2025-04-19-7f1d2c3b-5a6e-4c1d-9b2a-3e4f5a6b7c8d.json";

fn document_home() -> PathBuf {
    own_fixture("0.1.2504-document/home")
}

#[test]
fn a_typescript_rollout_document_is_discovered_by_its_newest_snapshot() {
    let home = document_home();
    let found = kit::discover::<Codex>(&home);
    assert_eq!(found.sessions.len(), 1, "{:?}", found.sessions);
    let s = &found.sessions[0];
    assert_eq!((s.native_id.as_str(), s.locator.as_str()), (DOC_ID, DOC));
    assert_eq!(s.native_version, None, "the document records no version");
    assert_eq!((s.cwd.as_deref(), s.started_at.as_deref()), (None, None));
    assert_eq!(s.updated_at.as_deref(), Some("2025-04-20T00:02:13.677Z"), "when the document was written");
    assert_eq!(s.title.as_deref(), Some("Read hello.txt and tell me the secret word — café ✓"));
    assert_eq!(s.size, std::fs::metadata(home.join(DOC)).unwrap().len());
    // The older snapshot of the same session is named, not listed.
    let codes: Vec<(&str, &str, trajhost_codec_sdk::Severity)> =
        found.diagnostics.iter().map(|d| (d.code.as_str(), d.file.as_deref().unwrap_or(""), d.severity)).collect();
    assert_eq!(codes, [("superseded-rollout-document", OLD_DOC, trajhost_codec_sdk::Severity::Info)]);
    let inspected = Codex::inspect(&Dir::native(&home), DOC).unwrap();
    assert_eq!(format!("{inspected:?}"), format!("{s:?}"));
    // The old snapshot is still a session when named.
    assert_eq!(Codex::inspect(&Dir::native(&home), OLD_DOC).unwrap().native_id, DOC_ID);
    let globs = Codex::info().session_globs;
    assert!(globs.iter().any(|g| kit::glob_matches(g, DOC)), "{DOC} under no glob");
}

#[test]
fn a_typescript_rollout_document_reads_call_result_answer_in_order() {
    let home = document_home();
    let read = kit::conformance::<Codex>(&home, DOC, Spans::Bytes);
    let meta = read.meta();
    assert_eq!((meta.native_id.as_str(), meta.native_version.as_deref()), (DOC_ID, None));
    assert_eq!(meta.title.as_deref(), Some("Read hello.txt and tell me the secret word — café ✓"));
    assert_eq!(
        kit::kinds(&read.records),
        [
            "meta",
            "system",
            "user",
            "reasoning",
            "assistant",
            "tool_call",
            "tool_result",
            "assistant",
            "user",
            "assistant",
            "tool_call",
            "tool_result",
            "assistant",
            "tool_call",
            "tool_result",
            "assistant",
        ]
    );
    assert!(matches!(&read.records[1].body, Body::System { text } if text == "Prefer short answers."));
    assert_eq!(
        users(&read.records),
        ["Read hello.txt and tell me the secret word — café ✓", "Now list the folder, then cat missing.txt."]
    );
    let calls = calls(&read.records);
    let names: Vec<(&str, &str)> = calls.iter().map(|c| (c.0, c.1)).collect();
    assert_eq!(
        names,
        [
            ("call_Xq3vT8mK2pL9sR4wN6yB1cZd", "shell"),
            ("call_Lm4nP7qR1sT5uV8wX2yZ6aBc", "local_shell"),
            ("call_Gh5jK8lM2nP6qR9sT3uV7wXy", "shell"),
        ]
    );
    assert_eq!(calls[0].2["command"], json!(["cat", "hello.txt"]));
    assert_eq!(calls[1].2["command"], json!(["ls"]));
    // Results: the JSON text the model was sent; ok from its exit code.
    let results = results(&read.records);
    let got: Vec<(&str, Option<bool>)> = results.iter().map(|r| (r.0, r.2)).collect();
    assert_eq!(
        got,
        [
            ("call_Xq3vT8mK2pL9sR4wN6yB1cZd", Some(true)),
            ("call_Lm4nP7qR1sT5uV8wX2yZ6aBc", Some(true)),
            ("call_Gh5jK8lM2nP6qR9sT3uV7wXy", Some(false)),
        ]
    );
    assert!(results[0].1.contains("MANGO-17") && results[2].1.contains("No such file or directory"));
    let answers: Vec<&str> = assistant_texts(&read.records).into_iter().filter(|t| !t.is_empty()).collect();
    assert_eq!(
        answers,
        ["The secret word is MANGO-17.", "The folder holds hello.txt only; missing.txt does not exist."]
    );
    // Every answer comes after the results it speaks of.
    let result = read
        .records
        .iter()
        .position(|r| matches!(&r.body, Body::ToolResult { call_id, .. } if call_id == "call_Xq3vT8mK2pL9sR4wN6yB1cZd"))
        .unwrap();
    let answer = read
        .records
        .iter()
        .position(|r| matches!(&r.body, Body::Assistant(a) if a.text == "The secret word is MANGO-17."))
        .unwrap();
    assert!(result < answer);
    let reasoning = kit::reasonings(&read.records);
    assert!(reasoning[0].text.as_deref().unwrap().contains("I'll cat hello.txt"));
    // Each record's span is its item in the document.
    let bytes = std::fs::read(home.join(DOC)).unwrap();
    for r in &read.records[2..] {
        let src = r.src.as_ref().unwrap();
        let item: Value = serde_json::from_slice(&bytes[src.offset as usize..(src.offset + src.len) as usize]).unwrap();
        assert!(item["type"].is_string(), "{}: {item}", r.id);
    }
    assert!(
        read.diagnostics.iter().all(|d| d.severity == trajhost_codec_sdk::Severity::Info),
        "{:?}",
        read.diagnostics
    );
}

#[test]
fn a_loose_or_torn_rollout_document_is_sniffed_and_read() {
    let bytes = std::fs::read(document_home().join(DOC)).unwrap();
    // Sniffed from its head, under a `.json` name only.
    let sniffed = Codex::sniff("sent-to-me.json", &bytes[..bytes.len().min(65536)]).unwrap();
    assert_eq!((sniffed.native_id.as_deref(), sniffed.native_version), (Some(DOC_ID), None));
    assert!(Codex::sniff("sent-to-me.jsonl", &bytes).is_none());
    assert!(Codex::sniff("other.json", br#"{"info": {"id": "ses_1"}, "messages": []}"#).is_none());
    // A renamed copy, with the model and provider later builds record.
    let tmp = tempfile::tempdir().unwrap();
    let mut doc: Value = serde_json::from_slice(&bytes).unwrap();
    doc["session"]["model"] = json!("o4-mini");
    doc["session"]["provider"] = json!("openai");
    std::fs::write(tmp.path().join("sent-to-me.json"), serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let read = kit::conformance::<Codex>(tmp.path(), "sent-to-me.json", Spans::Bytes);
    assert_eq!(read.meta().native_id, DOC_ID);
    assert!(kit::assistants(&read.records).iter().all(|a| a.model.as_deref() == Some("o4-mini")));
    // A document cut short: the whole items are read, with a warning.
    let cut = kit::find(&bytes, b"local_shell_call_output").unwrap();
    std::fs::write(tmp.path().join("torn.json"), &bytes[..cut]).unwrap();
    let torn = read_with(tmp.path(), "torn.json", kit::one_batch());
    assert!(torn.diag("truncated-document").is_some_and(|d| d.severity == trajhost_codec_sdk::Severity::Warning));
    assert_eq!(users(&torn.records).len(), 2);
    assert_eq!(calls(&torn.records).len(), 2);
    assert_eq!(results(&torn.records).len(), 1);
    // Not a document.
    std::fs::write(tmp.path().join("x.json"), "[1, 2]").unwrap();
    let err = kit::try_read::<Codex>(tmp.path(), "x.json", kit::one_batch()).unwrap_err();
    assert!(matches!(&err, CodecError::Malformed(m) if m.contains("not a Codex rollout document")), "{err:?}");
}

// ---------------------------------------------------------------- a version outside every range

/// fixtures/codex/0.0.0-test: the lab's `simple` rollout with `cli_version`
/// `0.0.0-test` (a development build) and another thread id.
#[test]
fn a_rollout_of_a_version_outside_every_range_reads_like_any_other() {
    let home = own_fixture("0.0.0-test/simple");
    let id = "0e0e0e0e-0000-7000-8000-000000007e57";
    let found = kit::discover::<Codex>(&home);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    assert_eq!(found.sessions.len(), 1);
    let s = &found.sessions[0];
    assert_eq!((s.native_id.as_str(), s.native_version.as_deref()), (id, Some("0.0.0-test")));
    let bytes = std::fs::read(home.join(&s.locator)).unwrap();
    let sniffed = Codex::sniff(&s.locator, &bytes[..bytes.len().min(65536)]).unwrap();
    assert_eq!(sniffed.native_version.as_deref(), Some("0.0.0-test"));
    let read = kit::conformance::<Codex>(&home, &s.locator, Spans::Lines);
    assert_eq!(read.meta().native_version.as_deref(), Some("0.0.0-test"));
    // The same conversation as the 0.171.0 rollout it was made from.
    let original = read_scenario("simple");
    let bodies = |r: &Read| r.records.iter().skip(1).map(|r| r.body.clone()).collect::<Vec<_>>();
    assert_eq!(bodies(&read), bodies(&original));
    assert_eq!(users(&read.records), lab().users("simple"));
    assert!(results(&read.records)[0].1.contains("PAPAYA-42"));
    assert!(
        read.diagnostics.iter().all(|d| d.severity == trajhost_codec_sdk::Severity::Info),
        "{:?}",
        read.diagnostics
    );
}

/// Opens a fixture's database without touching it: `immutable=1` keeps
/// SQLite from creating `-wal`/`-shm` files beside it while other tests copy
/// the fixture.
fn open_untouched(db: &Path) -> rusqlite::Connection {
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI;
    rusqlite::Connection::open_with_flags(format!("file:{}?immutable=1", db.display()), flags).unwrap()
}
