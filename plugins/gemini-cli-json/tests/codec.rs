//! The legacy JSON codec against hand-written sessions
//! (fixtures/gemini-cli/legacy-json), run natively through `Dir::native`.

use std::path::{Path, PathBuf};

use trajhost_codec_gemini_cli_json::GeminiCliJson;
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, Severity};
use trajhost_codec_testkit::{
    self as kit, Spans, assistant_texts, assistants, glob_matches, observations, reasonings, tool_calls, tool_results,
    users,
};

const HASH: &str = "9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c0e2b4d6f8a1c3e5b7d9f0a2c4e6b8d0f";
const BIG: &str = "session-2025-09-14T10-02-7c1e9a42.json";
const BIG_ID: &str = "7c1e9a42-5b3d-4f60-9e21-0a8b6c4d2f13";
const SMALL: &str = ".gemini/tmp/webapp/chats/session-2025-10-01T08-00-d41f0b2e.json";
const SMALL_ID: &str = "d41f0b2e-8c6a-4e37-b1d9-5f2a7e0c3b68";

/// This crate's own checkout of the fixtures (not the testkit's
/// `fixtures_root()`, which names the checkout the testkit was built from).
fn home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/gemini-cli/legacy-json/home")
}

fn big() -> String {
    format!(".gemini/tmp/{HASH}/chats/{BIG}")
}

#[test]
fn info_names_the_harness_and_its_own_version() {
    let info = GeminiCliJson::info();
    assert_eq!(info.harness, "gemini-cli");
    assert_eq!(info.codec_version, "0.1.0-json");
    assert_eq!(info.writes, vec!["gemini-cli-json".to_string()]);
    assert!(glob_matches(&info.session_globs[0], &big()));
    assert!(!glob_matches(&info.session_globs[0], ".gemini/tmp/x/chats/session-a.jsonl"));
}

#[test]
fn discover_lists_both_sessions_with_their_facts() {
    let found = kit::discover::<GeminiCliJson>(&home());
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    let mut sessions = found.sessions;
    sessions.sort_by(|a, b| a.locator.cmp(&b.locator));
    assert_eq!(sessions.len(), 2);
    let (big_ref, small_ref) = (&sessions[0], &sessions[1]);
    assert_eq!(big_ref.native_id, BIG_ID);
    assert_eq!(big_ref.locator, big());
    assert_eq!(big_ref.cwd, None, "a hash directory names no root");
    assert_eq!(big_ref.started_at.as_deref(), Some("2025-09-14T10:02:11.000Z"));
    assert_eq!(big_ref.updated_at.as_deref(), Some("2025-09-14T10:03:40.000Z"));
    assert_eq!(big_ref.title.as_deref(), Some("Count the lines of notes.txt"));
    assert_eq!(big_ref.native_version, None);
    assert_eq!(small_ref.native_id, SMALL_ID);
    assert_eq!(small_ref.cwd.as_deref(), Some("/home/user/webapp"));
    assert_eq!(small_ref.title.as_deref(), Some("Greeting"));
    for s in [big_ref, small_ref] {
        assert_eq!(
            format!("{:?}", GeminiCliJson::inspect(&Dir::native(home()), &s.locator).unwrap()),
            format!("{s:?}")
        );
    }
}

#[test]
fn discover_names_broken_session_files_and_leaves_jsonl_alone() {
    let dir = kit::copy_of(&home());
    let chats = dir.path().join(".gemini/tmp/webapp/chats");
    std::fs::write(chats.join("session-2025-10-02T09-00-deadbeef.json"), "{\"sessionId\":\"x\",\"messages\":").unwrap();
    std::fs::write(chats.join("session-2025-10-03T09-00-00000000.json"), "").unwrap();
    std::fs::write(chats.join("session-2025-10-04T09-00-11111111.json"), "{\"sessionId\":\"y\"}").unwrap();
    // No `sessionId`: named by the file, with a warning.
    std::fs::write(chats.join("session-2025-10-06T09-00-33333333.json"), "{\"messages\":[]}").unwrap();
    // The JSONL codec's files and other names are not this layout.
    std::fs::write(chats.join("session-2025-10-05T09-00-22222222.jsonl"), "{}\n").unwrap();
    std::fs::write(chats.join("notes.txt"), "x").unwrap();
    let found = kit::discover::<GeminiCliJson>(dir.path());
    assert_eq!(found.sessions.len(), 3);
    assert!(found.sessions.iter().any(|s| s.native_id == "session-2025-10-06T09-00-33333333"));
    let named: Vec<(&str, &str)> =
        found.diagnostics.iter().map(|d| (d.code.as_str(), d.file.as_deref().unwrap())).collect();
    let at = |n: &str| format!(".gemini/tmp/webapp/chats/{n}");
    assert_eq!(
        named,
        vec![
            ("malformed-head", at("session-2025-10-02T09-00-deadbeef.json").as_str()),
            ("empty-session-file", at("session-2025-10-03T09-00-00000000.json").as_str()),
            ("malformed-head", at("session-2025-10-04T09-00-11111111.json").as_str()),
            ("no-session-id", at("session-2025-10-06T09-00-33333333.json").as_str()),
        ]
    );
}

#[test]
fn fixture_sessions_pass_the_testkit_checks() {
    for locator in [big(), SMALL.to_string()] {
        kit::conformance::<GeminiCliJson>(&home(), &locator, Spans::Bytes);
    }
}

#[test]
fn the_big_session_maps_prompts_calls_results_and_notices() {
    let read = kit::read::<GeminiCliJson>(&home(), &big());
    let meta = read.meta();
    assert_eq!(meta.native_id, BIG_ID);
    assert_eq!(meta.harness, "gemini-cli");
    assert_eq!(meta.codec.as_deref(), Some("gemini-cli@0.1.0-json"));
    assert_eq!(users(&read.records), vec!["Count the lines of notes.txt", "Thanks — and this screenshot?"]);
    assert_eq!(
        assistant_texts(&read.records).into_iter().filter(|t| !t.is_empty()).collect::<Vec<_>>(),
        vec!["notes.txt has 12 lines; missing.txt does not exist.", "It shows a terminal."]
    );
    let first = assistants(&read.records)[0];
    let usage = first.usage.as_ref().expect("usage");
    assert_eq!(
        (usage.input, usage.output, usage.cache_read, usage.reasoning),
        (Some(200), Some(18), Some(20), Some(6))
    );
    assert_eq!(first.model.as_deref(), Some("gemini-2.5-pro"));
    assert_eq!(reasonings(&read.records)[0].text.as_deref(), Some("**Counting** I will run wc on the file."));
    let calls = tool_calls(&read.records);
    assert_eq!(calls.iter().map(|c| c.1).collect::<Vec<_>>(), vec!["run_shell_command", "read_file"]);
    assert_eq!(calls[0].2["command"], "wc -l notes.txt");
    let results = tool_results(&read.records);
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].2, Some(true));
    assert_eq!(results[1].2, Some(false));
    let contents: Vec<&str> = read
        .records
        .iter()
        .filter_map(|r| match &r.body {
            Body::ToolResult { content, .. } => Some(content.as_str()),
            _ => None,
        })
        .collect();
    assert!(contents[0].contains("Output: 12 notes.txt"));
    assert_eq!(contents[1], "File not found: /srv/missing.txt");
    assert_eq!(observations(&read.records), vec![("info", Some("Request cancelled."))]);
    // The image prompt keeps its attachment.
    let image = read.records.iter().find(|r| r.id == "u-2").unwrap();
    assert!(matches!(&image.body, Body::User { attachments, .. } if attachments[0].kind == "image"));
    // `model` with only `parts`, and an unknown type: reported, not guessed.
    assert_eq!(read.diag_with("unrecognized-content", "model.parts").map(|d| d.severity), Some(Severity::Warning));
    assert!(read.diag_with("unknown-record-type", "compression").is_some());
    assert!(!read.records.iter().any(|r| r.id == "m-3" || r.id == "x-1"));
}

#[test]
fn spans_point_at_each_message() {
    let read = kit::read::<GeminiCliJson>(&home(), &big());
    for record in read.records.iter().skip(1) {
        let value = kit::span_json(&home(), record.src.as_ref().unwrap());
        assert!(value.get("type").is_some(), "{} points at a message: {value}", record.id);
    }
    let answer = read.records.iter().find(|r| r.id == "g-2").unwrap();
    assert_eq!(kit::span_json(&home(), answer.src.as_ref().unwrap())["id"], "g-2");
}

#[test]
fn content_parts_skip_thoughts() {
    let read = kit::read::<GeminiCliJson>(&home(), SMALL);
    assert_eq!(read.meta().title.as_deref(), Some("Greeting"));
    assert_eq!(read.meta().cwd.as_deref(), Some("/home/user/webapp"));
    assert_eq!(users(&read.records), vec!["hello there"]);
    assert_eq!(assistant_texts(&read.records), vec!["Hi! How can I help?"]);
    assert_eq!(reasonings(&read.records)[0].text.as_deref(), Some("thinking"));
}

#[test]
fn sniff_claims_documents_not_json_lines() {
    let big = std::fs::read(home().join(big())).unwrap();
    let got = GeminiCliJson::sniff("copy.json", &big).expect("claimed");
    assert_eq!(got.native_id.as_deref(), Some(BIG_ID));
    let small = std::fs::read(home().join(SMALL)).unwrap();
    assert_eq!(GeminiCliJson::sniff("x", &small).unwrap().native_id.as_deref(), Some(SMALL_ID));
    let jsonl = b"{\"sessionId\":\"a\",\"projectHash\":\"b\"}\n{\"id\":\"1\",\"type\":\"user\",\"content\":\"hi\"}\n";
    assert!(GeminiCliJson::sniff("x.jsonl", jsonl).is_none());
    assert!(GeminiCliJson::sniff("x.json", b"{\"session_id\":\"a\",\"messages\":[]}").is_none());
    assert!(GeminiCliJson::sniff("x.json", b"[1,2]").is_none());
}

#[test]
fn a_sniffed_copy_is_read_where_it_lies() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(home().join(big()), dir.path().join("copy.json")).unwrap();
    let s = GeminiCliJson::inspect(&Dir::native(dir.path()), "copy.json").unwrap();
    assert_eq!(s.native_id, BIG_ID);
    let read = kit::read::<GeminiCliJson>(dir.path(), "copy.json");
    assert_eq!(users(&read.records).len(), 2);
}

#[test]
fn a_call_with_an_empty_result_has_no_result_record() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join(".gemini/tmp/p/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let doc = r#"{"sessionId":"s-1","messages":[
        {"id":"u","type":"user","content":"go"},
        {"id":"g","type":"gemini","content":"Running.","toolCalls":[
            {"id":"c1","name":"run_shell_command","args":{"command":"sleep 9"},"status":"cancelled","result":[]},
            {"id":"c2","name":"read_file","args":{},"status":"success","result":""}]}]}"#;
    std::fs::write(chats.join("session-x.json"), doc).unwrap();
    let read = kit::conformance::<GeminiCliJson>(dir.path(), ".gemini/tmp/p/chats/session-x.json", Spans::Bytes);
    assert_eq!(tool_calls(&read.records).len(), 2);
    assert!(tool_results(&read.records).is_empty());
}
