//! What is particular to the reflection-transcript codec, against
//! hand-written homes (fixtures/letta-code/transcripts). What every codec
//! must do is the testkit's suite, in tests/conformance.rs.

use std::path::{Path, PathBuf};

use serde_json::json;
use trajhost_codec_letta_code_transcripts::{KNOWN_KINDS, LettaCodeTranscripts as Codec_};
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::{Codec, Severity};
use trajhost_codec_testkit::{self as kit, assistants, tool_calls, users};

const AGENT: &str = ".letta/transcripts/agent-5c1d";

/// Under this crate's checkout (not the testkit's, which a shared target
/// dir may have compiled elsewhere).
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/letta-code/transcripts/home")
}

fn locator(conversation: &str) -> String {
    format!("{AGENT}/{conversation}/transcript.jsonl")
}

#[test]
fn discover_lists_conversations_and_names_everything_else() {
    let home = kit::copy_of(&fixture());
    let found = kit::discover::<Codec_>(home.path());
    let ids: Vec<&str> = found.sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert_eq!(ids, ["conv-main", "conv-rough"]);
    let main = &found.sessions[0];
    assert_eq!(main.locator, locator("conv-main"));
    assert_eq!(main.title.as_deref(), Some("Find where the port is configured — ✓"));
    assert_eq!(main.started_at.as_deref(), Some("2026-03-02T09:00:00.000Z"));
    assert_eq!(main.native_version, None);
    let state = std::fs::metadata(home.path().join(AGENT).join("conv-main/state.json")).unwrap().len();
    let transcript = std::fs::metadata(home.path().join(locator("conv-main"))).unwrap().len();
    assert_eq!(main.size, state + transcript, "the session's own files");
    assert_eq!(found.sessions[1].title.as_deref(), Some("Deploy the preview."), "a bad first line is skipped");

    let file_diag = |code: &str, file: &str| kit::file_diag(&found.diagnostics, code, file).is_some();
    assert!(file_diag("unrecognized-file", &format!("{AGENT}/conv-main/notes.txt")), "{:?}", found.diagnostics);
    assert!(file_diag("unmapped-directory", &format!("{AGENT}/multi-reflection-payloads")), "{:?}", found.diagnostics);
    assert!(file_diag("empty-session-file", &locator("conv-empty")), "{:?}", found.diagnostics);
    assert_eq!(found.diagnostics.len(), 3, "{:?}", found.diagnostics);
}

/// The suite checks what the conversation holds; message ids and times
/// are the rows', and the state file beside is named.
#[test]
fn a_conversation_keeps_message_ids_and_names_its_state_file() {
    let read = kit::read::<Codec_>(&fixture(), &locator("conv-main"));
    assert_eq!(assistants(&read.records)[0].message_id.as_deref(), Some("message-a1"));
    assert_eq!(read.records[1].ts.as_deref(), Some("2026-03-02T09:00:00.000Z"));
    assert!(read.diag_with("unmapped-file", "state.json").is_some(), "{:?}", read.diagnostics);
    kit::check_handling(&read, KNOWN_KINDS, |_| 0);
}

#[test]
fn robustness_rows_are_mapped_or_reported() {
    // The suite checks the conversation's kinds, calls and results.
    let home = kit::copy_of(&fixture());
    let read = kit::read::<Codec_>(home.path(), &locator("conv-rough"));
    let Body::Observation { subtype, text } = &read.records[2].body else { panic!() };
    assert_eq!((subtype.as_str(), text.as_deref()), ("error", Some("stream interrupted, retrying")));
    let calls = tool_calls(&read.records);
    assert_eq!(calls[1].0, "call-logs");
    assert_eq!(calls[1].2, &json!("make logs"), "arguments that are not JSON stay a string");
    assert!(calls[0].0.contains("transcript.jsonl@"), "no source_line_id: the line location");

    let path = home.path().join(locator("conv-rough"));
    let bad = read.diag("malformed-line").unwrap();
    assert_eq!((bad.offset, bad.count, bad.severity), (Some(0), 1, Severity::Error));
    let unknown = read.diag("unknown-record-type").unwrap();
    assert_eq!((unknown.detail.as_str(), unknown.count, unknown.severity), ("heartbeat", 1, Severity::Warning));
    let bytes = std::fs::read(&path).unwrap();
    let tail = kit::find(&bytes, b"{\"kind\":\"user\",\"text\":\"cut off").unwrap() as u64;
    let torn = read.diag("torn-tail").unwrap();
    assert_eq!((torn.offset, torn.count), (Some(tail), 1));
}

#[test]
fn a_loose_copy_is_named_by_its_file() {
    // The suite sniffs and reads a copy in a folder named after the
    // conversation; a file of another name is named after the file.
    let bytes = std::fs::read(fixture().join(locator("conv-main"))).unwrap();
    assert!(Codec_::sniff("/tmp/other.jsonl", b"{\"type\":\"user\",\"message\":{}}\n").is_none());

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("shared.jsonl"), &bytes).unwrap();
    let read = kit::read::<Codec_>(dir.path(), "shared.jsonl");
    assert_eq!(read.meta().native_id, "shared");
    assert_eq!(users(&read.records).len(), 2);
}
