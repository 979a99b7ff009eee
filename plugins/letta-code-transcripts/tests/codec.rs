//! The reflection-transcript codec against hand-written homes
//! (fixtures/letta-code/transcripts), run natively through `Dir::native`.

use std::path::{Path, PathBuf};

use serde_json::json;
use trajhost_codec_letta_code_transcripts::{KNOWN_KINDS, LettaCodeTranscripts as Codec_};
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::{Codec, Severity};
use trajhost_codec_testkit::{self as kit, Spans, assistants, kinds, tool_calls, tool_results, users};

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
fn info_describes_the_layout() {
    let info = Codec_::info();
    assert_eq!(info.harness, "letta-code");
    assert_eq!(info.codec_version, "0.1.0-transcripts");
    assert_eq!(info.native_versions, ">=0.0.0, <1.0.0");
    assert!(info.writes.is_empty());
    assert_eq!(info.session_globs, [".letta/transcripts/*/*/transcript.jsonl"]);
    assert!(kit::glob_matches(&info.session_globs[0], &locator("conv-main")));
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

    for session in &found.sessions {
        let inspected = Codec_::inspect(&trajhost_codec_sdk::fs::Dir::native(home.path()), &session.locator).unwrap();
        assert_eq!(format!("{inspected:?}"), format!("{session:?}"));
    }
}

#[test]
fn a_home_without_transcripts_is_empty() {
    let home = tempfile::tempdir().unwrap();
    let found = kit::discover::<Codec_>(home.path());
    assert!(found.sessions.is_empty() && found.diagnostics.is_empty(), "{found:?}");
}

#[test]
fn a_conversation_reads_prompts_reasoning_calls_and_results() {
    let home = kit::copy_of(&fixture());
    let read = kit::conformance::<Codec_>(home.path(), &locator("conv-main"), Spans::Lines);
    assert_eq!(
        kinds(&read.records),
        ["meta", "user", "reasoning", "assistant", "tool_call", "tool_result", "assistant", "user"]
    );
    assert_eq!(users(&read.records), ["Find where the port is configured — ✓", "Thanks."]);
    let texts: Vec<&str> = assistants(&read.records).iter().map(|a| a.text.as_str()).collect();
    assert_eq!(texts, ["Let me search for it.", "The port is set in src/config.ts (8088)."]);
    assert_eq!(assistants(&read.records)[0].message_id.as_deref(), Some("message-a1"));
    let calls = tool_calls(&read.records);
    assert_eq!((calls[0].0, calls[0].1), ("call-grep-1", "Grep"));
    assert_eq!(calls[0].2, &json!({"pattern": "PORT", "path": "src"}));
    assert_eq!(tool_results(&read.records), [("call-grep-1", "src/config.ts:3:export const PORT = 8088;", Some(true))]);
    assert_eq!(read.records[1].ts.as_deref(), Some("2026-03-02T09:00:00.000Z"));
    let meta = read.meta();
    assert_eq!((meta.harness.as_str(), meta.native_id.as_str()), ("letta-code", "conv-main"));
    assert_eq!(meta.codec.as_deref(), Some("letta-code@0.1.0-transcripts"));
    assert!(read.diag_with("unmapped-file", "state.json").is_some(), "{:?}", read.diagnostics);
    kit::check_handling(&read, KNOWN_KINDS, |_| 0);
}

#[test]
fn robustness_rows_are_mapped_or_reported() {
    let home = kit::copy_of(&fixture());
    let read = kit::conformance::<Codec_>(home.path(), &locator("conv-rough"), Spans::Lines);
    assert_eq!(
        kinds(&read.records),
        ["meta", "user", "observation", "tool_call", "tool_result", "tool_call", "assistant"]
    );
    let Body::Observation { subtype, text } = &read.records[2].body else { panic!() };
    assert_eq!((subtype.as_str(), text.as_deref()), ("error", Some("stream interrupted, retrying")));
    let calls = tool_calls(&read.records);
    assert_eq!(calls[1].0, "call-logs");
    assert_eq!(calls[1].2, &json!("make logs"), "arguments that are not JSON stay a string");
    let results = tool_results(&read.records);
    assert_eq!(results.len(), 1);
    assert_eq!((results[0].0, results[0].1, results[0].2), (calls[0].0, "make: *** [deploy] Error 2", Some(false)));
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
fn a_loose_copy_is_sniffed_and_read() {
    let bytes = std::fs::read(fixture().join(locator("conv-main"))).unwrap();
    let sniffed = Codec_::sniff("/tmp/copy/conv-main/transcript.jsonl", &bytes).unwrap();
    assert_eq!(sniffed.native_id.as_deref(), Some("conv-main"));
    assert!(Codec_::sniff("/tmp/other.jsonl", b"{\"type\":\"user\",\"message\":{}}\n").is_none());

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("shared.jsonl"), &bytes).unwrap();
    let read = kit::read::<Codec_>(dir.path(), "shared.jsonl");
    assert_eq!(read.meta().native_id, "shared");
    assert_eq!(users(&read.records).len(), 2);
}
