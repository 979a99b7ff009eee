//! The Hermes session-file codec against a hand-written home
//! (`fixtures/hermes/session-json`, see its PROVENANCE.md), natively.

use std::path::{Path, PathBuf};

use serde_json::json;
use trajhost_codec_hermes_json::{HermesJson, sniff};
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_testkit::{self as kit, assistants, kinds, users};

const LOG: &str = ".hermes/sessions/session_20260430_101500_a1b2c3.json";
const TRANSCRIPT: &str = ".hermes/sessions/20260430_120000_deadbeef.jsonl";
const PROFILE_LOG: &str = ".hermes/profiles/work/sessions/session_20260501_090000_ffee00.json";

/// The fixture home, by this crate's own path (a shared target dir may
/// have compiled the testkit elsewhere).
fn home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hermes/session-json/home")
}

#[test]
fn discover_lists_logs_and_transcripts_of_every_profile() {
    // Ids, titles, cwd and inspect are the conformance suite's.
    let home = home();
    let found = kit::discover::<HermesJson>(&home);
    let locators: Vec<&str> = found.sessions.iter().map(|s| s.locator.as_str()).collect();
    assert_eq!(locators, [TRANSCRIPT, LOG, PROFILE_LOG]);
    let log = &found.sessions[1];
    assert_eq!(log.started_at.as_deref(), Some("2026-04-30T10:15:00.123Z"));
    assert_eq!(log.updated_at.as_deref(), Some("2026-04-30T10:16:30.000Z"));
    assert_eq!(found.sessions[0].started_at.as_deref(), Some("2026-04-30T12:00:00.000Z"));
    // sessions.json is the gateway's index; the stray file is named.
    assert_eq!(found.diagnostics.len(), 1, "{:?}", found.diagnostics);
    let d = kit::file_diag(&found.diagnostics, "unrecognized-file", ".hermes/sessions/stray.txt").unwrap();
    assert_eq!(d.severity, Severity::Warning);
}

#[test]
fn a_log_reads_as_its_messages() {
    // The conversation and kinds are the conformance suite's.
    let home = home();
    let read = kit::read::<HermesJson>(&home, LOG);
    let Body::System { text } = &read.records[1].body else { panic!() };
    assert_eq!(text, "You are Hermes, a test agent. MARIGOLD-SYS");
    let user = read.records.iter().filter(|r| r.body.kind() == "user").nth(1).unwrap();
    let Body::User { attachments, .. } = &user.body else { panic!() };
    assert_eq!(attachments[0].media_type.as_deref(), Some("image/png"));
    assert_eq!(assistants(&read.records)[0].stop_reason.as_deref(), Some("tool_calls"));
    // Reasoning once although both fields hold it; the Codex items opaque.
    let reasoning: Vec<_> = read
        .records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Reasoning(x) => Some(x),
            _ => None,
        })
        .collect();
    assert_eq!(reasoning[0].text.as_deref(), Some("Use wc."));
    assert!(reasoning[1].text.is_none() && reasoning[1].encrypted);
    // A record's span is its message's JSON inside the document.
    let raw = std::fs::read(home.join(LOG)).unwrap();
    let result = read.records.iter().find(|r| r.body.kind() == "tool_result").unwrap();
    let src = result.src.as_ref().unwrap();
    let bytes = &raw[src.offset as usize..(src.offset + src.len) as usize];
    assert_eq!(serde_json::from_slice::<serde_json::Value>(bytes).unwrap()["tool_call_id"], "call_wc");
    // A gateway transcript's records take their lines' times.
    let read = kit::read::<HermesJson>(&home, TRANSCRIPT);
    assert_eq!(read.records[1].ts.as_deref(), Some("2026-04-30T12:00:05.000Z"));
}

#[test]
fn unknown_roles_and_broken_logs_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join(".hermes/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let doc = json!({"session_id": "s1", "session_start": "2026-05-01T00:00:00", "messages": [
        {"role": "user", "content": "[summary] earlier work", "_compressed_summary": true},
        {"role": "user", "content": "hi"}, {"role": "critic", "content": "meh"},
        {"role": "tool", "content": "late output", "tool_call_id": "call_gone"}]});
    std::fs::write(sessions.join("session_s1.json"), doc.to_string()).unwrap();
    std::fs::write(sessions.join("session_s2.json"), b"[1, 2]").unwrap();
    let found = kit::discover::<HermesJson>(dir.path());
    assert_eq!(found.sessions.len(), 1);
    assert!(kit::file_diag(&found.diagnostics, "malformed-head", ".hermes/sessions/session_s2.json").is_some());
    let read = kit::read::<HermesJson>(dir.path(), ".hermes/sessions/session_s1.json");
    // A result whose call a compression removed stays a tool result.
    assert_eq!(kinds(&read.records), ["meta", "compaction", "user", "tool_result"]);
    assert_eq!(read.diag("orphan-tool-result").map(|d| d.count), Some(1));
    assert_eq!(users(&read.records), ["hi"]);
    assert_eq!(read.diag_with("unknown-record-type", "critic").map(|d| d.count), Some(1));
}

#[test]
fn sniff_tells_hermes_files_apart() {
    let log = std::fs::read(home().join(LOG)).unwrap();
    let got = sniff("x.json", &log).expect("a log");
    assert_eq!(got.native_id.as_deref(), Some("20260430_101500_a1b2c3"));
    assert!(sniff("x.jsonl", br#"{"role":"session_meta","tools":[]}"#).is_some());
    assert!(sniff("x.json", br#"{"sessionId":"a","messages":[]}"#).is_none(), "Gemini CLI's shape");
    assert!(sniff("x.json", br#"{"session_id":"a","items":[]}"#).is_none());
}

#[test]
fn exports_of_state_db_rows_are_read() {
    // Ids, titles, cwd, the conversation and kinds are the conformance suite's.
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hermes/session-export/home");
    let found = kit::discover::<HermesJson>(&home);
    let ids: Vec<&str> = found.sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert_eq!(ids, ["hermes-export-0001", "hermes-export-0002"]);
    assert_eq!(found.sessions[0].started_at.as_deref(), Some("2026-07-02T13:46:40.000Z"));
    let read = kit::read::<HermesJson>(&home, ".hermes/sessions/session_hermes-export-0001.json");
    assert_eq!(read.records[2].ts.as_deref(), Some("2026-07-02T13:46:41.250Z"));
    let read = kit::read::<HermesJson>(&home, ".hermes/sessions/session_hermes-export-0002.json");
    let Body::User { attachments, .. } = &read.records[1].body else { panic!() };
    assert_eq!(attachments[0].media_type.as_deref(), Some("image/jpeg"));
    assert_eq!(read.diag("rewound-message").map(|d| d.count), Some(1));
}
