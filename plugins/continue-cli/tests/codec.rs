//! What is particular to Continue CLI's store, beyond the conformance
//! suite: the index, the placeholder title, the shapes the lab's sessions do
//! not hold (thinking, system and tool messages, image parts, context items,
//! unfinished calls), broken documents, and prepare's index entry.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_continue_cli::ContinueCli;
use trajhost_codec_continue_cli::layout::INDEX;
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, Operation, WriteOptions};
use trajhost_codec_testkit::suite::apply_files;
use trajhost_codec_testkit::{self as kit, Spans, tool_calls, tool_results, users};

const SIMPLE_ID: &str = "20bfd23f-914d-463a-99ef-15defeff424c";
const CWD: &str = "/home/user/project";

/// This crate's own checkout of the lab's `simple` home.
fn simple() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/continue-cli/1.5.47/simple")
}

fn locator(id: &str) -> String {
    format!(".continue/sessions/{id}.json")
}

fn home_with(id: &str, doc: &Value) -> tempfile::TempDir {
    kit::home_with_document(&locator(id), doc)
}

#[test]
fn the_index_gives_the_start_and_the_placeholder_title_is_no_title() {
    let found = kit::discover::<ContinueCli>(&simple());
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    assert_eq!(found.sessions.len(), 1);
    let s = &found.sessions[0];
    assert_eq!(s.native_id, SIMPLE_ID);
    assert_eq!(s.cwd.as_deref(), Some(CWD));
    // dateCreated "1796592068620" (epoch ms, a string)
    assert_eq!(s.started_at.as_deref(), Some("2026-12-06T21:21:08.620Z"));
    assert_eq!(s.title.as_deref(), Some("Read hello.txt and tell me the secret word."), "the first prompt");
    let read = kit::read::<ContinueCli>(&simple(), &locator(SIMPLE_ID));
    assert_eq!(read.meta().title, None, "\"Untitled Session\" is no title");
    assert_eq!(read.meta().native_version, None);
}

#[test]
fn a_session_the_index_does_not_list_is_still_a_session() {
    let home = kit::copy_of(&simple());
    std::fs::remove_file(home.path().join(INDEX)).unwrap();
    let found = kit::discover::<ContinueCli>(home.path());
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].started_at, None);
}

#[test]
fn broken_and_foreign_files_are_named_not_skipped() {
    let home = kit::copy_of(&simple());
    let dir = home.path().join(".continue/sessions");
    std::fs::write(dir.join("11111111-1111-4111-8111-111111111111.json"), "{\"sessionId\":\"x\",\"history\":[")
        .unwrap();
    std::fs::write(dir.join("22222222-2222-4222-8222-222222222222.json"), "").unwrap();
    std::fs::write(dir.join("notes.txt"), "x").unwrap();
    let found = kit::discover::<ContinueCli>(home.path());
    assert_eq!(found.sessions.len(), 1, "{:?}", found.sessions);
    for name in ["11111111-1111-4111-8111-111111111111.json", "22222222-2222-4222-8222-222222222222.json", "notes.txt"]
    {
        assert!(
            found.diagnostics.iter().any(|d| d.file.as_deref() == Some(&format!(".continue/sessions/{name}"))),
            "{name}: {:?}",
            found.diagnostics
        );
    }
    assert!(
        kit::try_read::<ContinueCli>(home.path(), &locator("11111111-1111-4111-8111-111111111111"), kit::one_batch())
            .is_err()
    );
    assert!(kit::try_read::<ContinueCli>(home.path(), INDEX, kit::one_batch()).is_err(), "the index is no session");
}

#[test]
fn other_roles_parts_context_and_unfinished_calls() {
    let id = "33333333-3333-4333-8333-333333333333";
    let doc = json!({
        "sessionId": id, "title": "Fix the build", "workspaceDirectory": "/w",
        "history": [
            {"message": {"role": "system", "content": "You are cn."}, "contextItems": []},
            {"message": {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "imageUrl", "imageUrl": {"url": "data:image/png;base64,AA=="}}]},
             "contextItems": [{"content": "fn main() {}", "name": "main.rs", "description": "src/main.rs"}]},
            {"message": {"role": "thinking", "content": "hmm"}, "contextItems": []},
            {"message": {"role": "assistant", "content": "", "toolCalls": [
                {"id": "c1", "type": "function", "function": {"name": "Bash", "arguments": "{\"command\":\"ls\"}"}},
                {"id": "c2", "type": "function", "function": {"name": "Read", "arguments": "not json"}}]},
             "contextItems": [],
             "toolCallStates": [
                {"toolCallId": "c1", "status": "canceled", "output": [{"content": "stopped", "name": "Tool Result"}]},
                {"toolCallId": "c2", "status": "calling"}]},
            {"message": {"role": "tool", "content": "late", "toolCallId": "c2"}, "contextItems": []},
            {"message": {"role": "critic", "content": "?"}, "contextItems": []}
        ]
    });
    let home = home_with(id, &doc);
    let read = kit::conformance::<ContinueCli>(home.path(), &locator(id), Spans::Bytes);
    assert_eq!(read.meta().title.as_deref(), Some("Fix the build"));
    assert_eq!(
        kit::kinds(&read.records),
        [
            "meta",
            "system",
            "user",
            "observation",
            "reasoning",
            "assistant",
            "tool_call",
            "tool_call",
            "tool_result",
            "tool_result"
        ]
    );
    assert_eq!(users(&read.records), ["look"]);
    let Body::User { attachments, .. } = &read.records[2].body else { panic!() };
    assert_eq!(attachments.len(), 1);
    let calls = tool_calls(&read.records);
    assert_eq!(calls[0].2, &json!({"command": "ls"}));
    assert_eq!(calls[1].2, &json!("not json"), "arguments that are no JSON stay a string");
    assert_eq!(tool_results(&read.records), [("c1", "stopped", Some(false)), ("c2", "late", None)]);
    assert!(read.diag("unfinished-tool-call").is_some());
    assert!(read.diag_with("unknown-record-type", "critic").is_some());
}

fn options(cwd: Option<&str>, home: Option<&Path>) -> WriteOptions {
    WriteOptions {
        cwd: cwd.map(str::to_string),
        native_id: None,
        home_path: home.map(|h| h.to_string_lossy().into_owned()),
    }
}

#[test]
fn prepare_appends_to_the_index_and_rewrites_the_cwd() {
    let read = kit::read::<ContinueCli>(&simple(), &locator(SIMPLE_ID));
    let written = trajhost_codec_sdk::write_document::<ContinueCli>(&read.document, options(None, None)).unwrap();
    // A target whose index lists another session.
    let target = kit::copy_of(&simple());
    let plan = trajhost_codec_sdk::prepare_artifacts::<ContinueCli>(
        written.artifacts.clone(),
        &Dir::native(target.path()),
        options(Some("/srv/other"), Some(target.path())),
    )
    .unwrap();
    let Operation::AddJsonEntry(entry) = &plan.operations[1] else { panic!("{:?}", plan.operations) };
    assert_eq!(entry.path, INDEX);
    assert_eq!(entry.match_member.as_deref(), Some("sessionId"));
    apply_files(&plan, &written, target.path());
    let index: Vec<Value> = serde_json::from_slice(&std::fs::read(target.path().join(INDEX)).unwrap()).unwrap();
    assert_eq!(index.len(), 2);
    assert_eq!(index[0]["sessionId"], SIMPLE_ID, "the existing entry stays first, as it was");
    assert_eq!(index[1]["sessionId"], plan.native_id.as_str());
    assert_eq!(index[1]["dateCreated"], "1796592068620", "the source's start");
    assert_eq!(index[1]["workspaceDirectory"], "/srv/other");
    let back = kit::read::<ContinueCli>(target.path(), &locator(&plan.native_id));
    assert_eq!(back.meta().cwd.as_deref(), Some("/srv/other"));
    assert_eq!(
        plan.resume_command.as_deref(),
        Some(format!("cd /srv/other && HOME={} cn --fork {}", target.path().display(), plan.native_id).as_str())
    );
    // Never twice.
    let again = trajhost_codec_sdk::prepare_artifacts::<ContinueCli>(
        written.artifacts.clone(),
        &Dir::native(target.path()),
        options(None, None),
    );
    assert!(format!("{:?}", again.unwrap_err()).contains("never overwritten"));
}

#[test]
fn an_unanswered_call_is_written_errored() {
    let read = kit::read::<ContinueCli>(&simple(), &locator(SIMPLE_ID));
    let document: String =
        read.document.lines().filter(|l| !l.contains("\"tool_result\"")).map(|l| format!("{l}\n")).collect();
    let written = trajhost_codec_sdk::write_document::<ContinueCli>(&document, options(None, None)).unwrap();
    assert!(kit::diag_with(&written.diagnostics, "placeholder", "toolCallStates.output (no result)").is_some());
    let session = written.artifacts.iter().find(|a| !a.path.ends_with("sessions.json")).unwrap();
    let doc: Value = serde_json::from_slice(&session.bytes).unwrap();
    let state = &doc["history"][1]["toolCallStates"][0];
    assert_eq!(state["status"], "errored");
    assert_eq!(state["toolCallId"], "call_lab_eeb20d65ee554bd8");
    assert!(ContinueCli::info().writes.contains(&"continue-cli-session-json".to_string()));
}
