//! The Cline VS Code task codec against hand-written homes
//! (fixtures/cline/vscode), run natively through `Dir::native`.

use std::path::{Path, PathBuf};

use serde_json::json;
use trajhost_codec_cline_vscode::{ClineVscode, KNOWN_BLOCKS, KNOWN_ROLES};
use trajhost_codec_sdk::Codec;
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_testkit::{
    self as kit, Read, Spans, assistants, kinds, observations_of, tool_calls, tool_results, users,
};

const CODE: &str = ".config/Code/User/globalStorage/saoudrizwan.claude-dev";
const MAC: &str = "Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev";
const CURSOR: &str = ".config/Cursor/User/globalStorage/saoudrizwan.claude-dev";
const CODIUM: &str = ".config/VSCodium/User/globalStorage/saoudrizwan.claude-dev";

/// Under this crate's checkout (not the testkit's, which a shared target
/// dir may have compiled elsewhere).
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/cline/vscode/home")
}

fn locator(root: &str, id: &str) -> String {
    format!("{root}/tasks/{id}/api_conversation_history.json")
}

fn read(root: &str, id: &str) -> (tempfile::TempDir, Read) {
    let home = kit::copy_of(&fixture());
    let read = kit::conformance::<ClineVscode>(home.path(), &locator(root, id), Spans::Bytes);
    kit::check_handling(&read, KNOWN_BLOCKS, |_| 0);
    (home, read)
}

#[test]
fn info_describes_the_layout() {
    let info = ClineVscode::info();
    assert_eq!((info.harness.as_str(), info.codec_version.as_str()), ("cline", "0.1.0-vscode"));
    assert_eq!(info.native_versions, ">=0.0.0, <4.0.0");
    assert!(info.writes.is_empty());
    let windows = "AppData/Roaming/Code/User/globalStorage/saoudrizwan.claude-dev";
    let codespaces = ".vscode-remote/data/User/globalStorage/saoudrizwan.claude-dev";
    for root in [CODE, MAC, CURSOR, CODIUM, windows, codespaces, ".cline/data"] {
        assert!(info.session_globs.iter().any(|g| kit::glob_matches(g, &locator(root, "17"))), "{root}");
    }
    assert!(!info.session_globs.iter().any(|g| kit::glob_matches(g, ".cline/data/sessions/a/a.messages.json")));
    assert_eq!(KNOWN_ROLES.len(), 2);
}

#[test]
fn discover_lists_every_editor_and_names_what_it_cannot_place() {
    let home = kit::copy_of(&fixture());
    let found = kit::discover::<ClineVscode>(home.path());
    let ids: Vec<&str> = found.sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert_eq!(ids, ["1710000000000", "1720000000000", "1735000000000", "1760000000000"]);
    let legacy = &found.sessions[0];
    assert_eq!(legacy.cwd.as_deref(), Some("/home/user/docs"), "cwdOnTaskInitialization");
    assert_eq!(legacy.title.as_deref(), Some("Summarize the changelog"));
    assert_eq!(legacy.started_at.as_deref(), Some("2024-03-09T16:00:00.000Z"), "the id is the creation time");
    assert_eq!(legacy.updated_at.as_deref(), Some("2024-03-09T16:01:40.000Z"), "the index's ts");
    let api = std::fs::metadata(home.path().join(locator(CODE, "1710000000000"))).unwrap().len();
    assert_eq!(legacy.size, api, "the task's own files");
    let recent = &found.sessions[3];
    assert_eq!(recent.native_version.as_deref(), Some("3.51.1"), "the last environment entry");
    assert_eq!(recent.cwd.as_deref(), Some("/home/user/shop"), "from the environment details");
    assert_eq!(recent.title.as_deref(), Some("Add a /health endpoint to the shop API"));
    assert_eq!(found.sessions[2].native_version, None);

    let diag = |code: &str, file: &str| kit::file_diag(&found.diagnostics, code, file).is_some();
    assert!(diag("unrecognized-file", &format!("{CODE}/tasks/1710000000000/notes.txt")), "{:?}", found.diagnostics);
    assert!(diag("no-api-history", &format!("{CODE}/tasks/1710000200000")), "{:?}", found.diagnostics);
    assert_eq!(found.diagnostics.len(), 2, "{:?}", found.diagnostics);

    let dir = Dir::native(home.path());
    for s in &found.sessions {
        let inspected = ClineVscode::inspect(&dir, &s.locator).unwrap();
        let strip = |r: &trajhost_codec_sdk::SessionRef| {
            format!("{:?}", (&r.native_id, &r.cwd, &r.title, &r.native_version, &r.started_at, &r.updated_at))
        };
        assert_eq!(strip(&inspected), strip(s));
    }
}

#[test]
fn a_home_without_cline_is_empty() {
    let home = tempfile::tempdir().unwrap();
    let found = kit::discover::<ClineVscode>(home.path());
    assert!(found.sessions.is_empty() && found.diagnostics.is_empty(), "{found:?}");
}

#[test]
fn legacy_api_history_reads_typed_prompts() {
    let (_home, read) = read(CODE, "1710000000000");
    assert_eq!(kinds(&read.records), ["meta", "user", "assistant", "user", "assistant"]);
    assert_eq!(users(&read.records), ["Summarize the changelog — ✓", "Which one matters most?"]);
    let meta = read.meta();
    assert_eq!((meta.cwd.as_deref(), meta.codec.as_deref()), (Some("/home/user/docs"), Some("cline@0.1.0-vscode")));
}

#[test]
fn native_tool_calls_with_text_results_skips_interruptions_and_feedback() {
    let (_home, read) = read(MAC, "1760000000000");
    #[rustfmt::skip]
    let expected = [
        "meta", "user", "observation", "observation",
        "reasoning", "assistant", "tool_call", "tool_call",
        "tool_result", "observation", "observation",
        "assistant", "tool_call",
        "tool_result", "user", "observation",
        "assistant", "observation",
        "observation", "user", "observation",
        "assistant", "tool_call",
        "tool_result", "observation",
        "assistant", "tool_call",
    ];
    assert_eq!(kinds(&read.records), expected);
    assert_eq!(
        users(&read.records),
        ["Add a /health endpoint to the shop API", "return JSON, not text", "use jsonify"]
    );
    let results = tool_results(&read.records);
    let ids: Vec<&str> = results.iter().map(|r| r.0).collect();
    assert_eq!(ids, ["toolu_a1", "toolu_a3", "toolu_a4"], "toolu_a2 was skipped, toolu_a5 never answered");
    assert!(results[0].1.starts_with("[read_file for 'src/app.py'] Result:\nfrom flask"), "{}", results[0].1);
    assert_eq!((results[0].2, results[2].2), (None, Some(false)), "the error wrapper is a failure");
    assert_eq!(observations_of(&read.records, "interrupted"), ["[Response interrupted by user]"]);
    assert_eq!(observations_of(&read.records, "tool_skipped").len(), 1);
    assert_eq!(observations_of(&read.records, "environment_details").len(), 5);
    let said: Vec<&str> = assistants(&read.records).iter().map(|a| a.text.trim()).filter(|t| !t.is_empty()).collect();
    assert_eq!(said, ["Let me read the app.", "Using jsonify now.", "The file is read-only; done what I can."]);
    let first = assistants(&read.records)[0];
    assert_eq!(first.model.as_deref(), Some("claude-x-1"));
    let u = first.usage.as_ref().unwrap();
    assert_eq!((u.input, u.output, u.cache_read), (Some(12), Some(80), Some(900)));
    let Body::Reasoning(r) = &read.records[4].body else { panic!() };
    assert_eq!((r.text.as_deref(), r.opaque.as_deref()), (Some("I need to see the app first."), Some("sig-1")));
    let ts: Vec<Option<&str>> = read.records[1..5].iter().map(|r| r.ts.as_deref()).collect();
    assert_eq!(ts[0], Some("2025-10-09T08:53:20.010Z"), "the first UI message");
    assert_eq!(ts[3], Some("2025-10-09T08:53:23.000Z"), "the first UI message after message 0");
    let meta = read.meta();
    assert_eq!(meta.native_version.as_deref(), Some("3.51.1"));
    assert_eq!(meta.started_at.as_deref(), Some("2025-10-09T08:53:20.000Z"));
    assert!(read.diag_with("unmapped-file", "context_history.json").is_some(), "{:?}", read.diagnostics);
}

#[test]
fn xml_tool_uses_pair_with_their_results() {
    let (_home, read) = read(CURSOR, "1735000000000");
    #[rustfmt::skip]
    let expected = [
        "meta", "user", "observation", "observation", "assistant", "tool_call", "tool_result", "observation",
        "assistant", "tool_call", "tool_result", "user", "observation", "assistant",
        "assistant", "observation", "tool_call", "tool_result", "user", "observation",
    ];
    assert_eq!(kinds(&read.records), expected);
    let calls = tool_calls(&read.records);
    assert_eq!((calls[0].1, calls[0].2), ("read_file", &json!({"path": "build.sh"})));
    assert_eq!((calls[1].1, calls[1].2), ("attempt_completion", &json!({"result": "It runs make all."})));
    let results = tool_results(&read.records);
    assert_eq!(results[0].0, calls[0].0);
    assert_eq!(results[0].1, "[read_file for 'build.sh'] Result:\n#!/bin/sh\nmake all", "content from the next block");
    assert_eq!(results[1].0, calls[1].0);
    assert_eq!(users(&read.records), ["What does @/build.sh do?", "and the tests?", "use the Makefile"]);
    assert_eq!(observations_of(&read.records, "interrupted"), ["[Response interrupted by user feedback]"]);
    assert_eq!((calls[2].1, calls[2].2), ("write_to_file", &json!({"path": "test.sh", "content": "make test"})));
    assert!(results[2].1.ends_with("<feedback>\nuse the Makefile\n</feedback>"), "{}", results[2].1);
    let mentions = observations_of(&read.records, "mentions");
    assert_eq!(mentions, ["<file_content path=\"build.sh\">\n#!/bin/sh\nmake all\n</file_content>"]);
    assert!(assistants(&read.records)[0].text.contains("<read_file>"), "the text stays as the model wrote it");
}

#[test]
fn tool_result_blocks_and_images() {
    let (_home, read) = read(CODIUM, "1720000000000");
    assert_eq!(
        kinds(&read.records),
        ["meta", "user", "assistant", "tool_call", "tool_result", "tool_call", "tool_result", "assistant"]
    );
    let Body::User { text, attachments } = &read.records[1].body else { panic!() };
    assert_eq!(text, "Why does this page look broken?");
    assert_eq!((attachments[0].kind.as_str(), attachments[0].media_type.as_deref()), ("image", Some("image/png")));
    assert_eq!(
        tool_results(&read.records),
        [("toolu_v1", "main.css\nold.css", None), ("toolu_v2", "Error reading file: ENOENT", Some(false))]
    );
}

#[test]
fn a_loose_copy_is_sniffed_and_read() {
    let bytes = std::fs::read(fixture().join(locator(CURSOR, "1735000000000"))).unwrap();
    let sniffed = ClineVscode::sniff("/tmp/t/1735000000000/api_conversation_history.json", &bytes).unwrap();
    assert_eq!(sniffed.native_id.as_deref(), Some("1735000000000"));
    assert!(ClineVscode::sniff("/tmp/other.json", b"[{\"role\":\"user\",\"content\":\"hi\"}]").is_none());
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("api_conversation_history.json"), &bytes).unwrap();
    let read = kit::read::<ClineVscode>(dir.path(), "api_conversation_history.json");
    assert_eq!(users(&read.records).len(), 3);
    assert_eq!(read.meta().cwd.as_deref(), Some("/home/user/shop"));
}

#[test]
fn a_broken_history_is_an_error_naming_the_file() {
    let home = kit::copy_of(&fixture());
    let path = home.path().join(locator(CODE, "1710000000000"));
    std::fs::write(&path, b"[{\"role\":").unwrap();
    let err =
        kit::try_read::<ClineVscode>(home.path(), &locator(CODE, "1710000000000"), kit::one_batch()).err().unwrap();
    assert!(format!("{err:?}").contains("api_conversation_history.json"), "{err:?}");
}

/// fixtures/cline/vscode-text-results (hand-written): a task of Cline's
/// text protocol whose command spans lines and holds `]`.
#[test]
fn a_text_result_of_a_multi_line_command_with_brackets_is_a_tool_result() {
    let home =
        kit::copy_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/cline/vscode-text-results/home"));
    let read = kit::conformance::<ClineVscode>(home.path(), &locator(CODE, "1745000000000"), Spans::Bytes);
    assert_eq!(read.meta().native_version.as_deref(), Some("3.13.1"));
    // What the person typed: the task and the feedback, never a result.
    assert_eq!(users(&read.records), ["Run the checks in run.sh and tell me if they pass.", "thanks, that is all"]);
    let calls = tool_calls(&read.records);
    let names: Vec<&str> = calls.iter().map(|c| c.1).collect();
    assert_eq!(names, ["execute_command", "attempt_completion"]);
    let command = "if [ -f run.sh ]; then\n  sh run.sh --check\nfi";
    assert_eq!(calls[0].2["command"], json!(command));
    let results = tool_results(&read.records);
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].0, calls[0].0, "the result answers the execute_command call");
    assert!(results[0].1.starts_with(&format!("[execute_command for '{command}'] Result:")));
    assert!(results[0].1.contains("CHECK-OK-7731"));
    assert_eq!(results[1].0, calls[1].0);
    // Call, result, then the answer that quotes it.
    let at = |kind: &str| read.records.iter().position(|r| r.body.kind() == kind).unwrap();
    assert!(at("tool_call") < at("tool_result"));
    let answer = read
        .records
        .iter()
        .position(|r| matches!(&r.body, Body::Assistant(a) if a.text.contains("The checks pass")))
        .unwrap();
    assert!(at("tool_result") < answer);
    assert_eq!(observations_of(&read.records, "environment_details").len(), 3);
    assert!(read.diag("result-without-call").is_none(), "{:?}", read.diagnostics);
}
