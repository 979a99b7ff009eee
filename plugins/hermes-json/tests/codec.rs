//! The Hermes session-file codec against a hand-written home
//! (`fixtures/hermes/session-json`, see its PROVENANCE.md), natively.

use std::path::{Path, PathBuf};

use serde_json::json;
use trajhost_codec_hermes_json::{HermesJson, KNOWN_ROLES, sniff};
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, Severity};
use trajhost_codec_testkit::{self as kit, Spans, assistants, kinds, tool_calls, tool_results, users};

const LOG: &str = ".hermes/sessions/session_20260430_101500_a1b2c3.json";
const TRANSCRIPT: &str = ".hermes/sessions/20260430_120000_deadbeef.jsonl";
const PROFILE_LOG: &str = ".hermes/profiles/work/sessions/session_20260501_090000_ffee00.json";

/// The fixture home, by this crate's own path (a shared target dir may
/// have compiled the testkit elsewhere).
fn home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hermes/session-json/home")
}

#[test]
fn info_names_the_layout() {
    let info = HermesJson::info();
    assert_eq!((info.harness.as_str(), info.codec_version.as_str()), ("hermes", "0.1.0-json"));
    assert!(info.writes.is_empty());
    for path in [LOG, TRANSCRIPT, PROFILE_LOG] {
        assert!(info.session_globs.iter().any(|g| kit::glob_matches(g, path)), "{path}");
    }
    assert!(!info.session_globs.iter().any(|g| kit::glob_matches(g, ".hermes/state.db")));
}

#[test]
fn discover_lists_logs_and_transcripts_of_every_profile() {
    let home = home();
    let found = kit::discover::<HermesJson>(&home);
    let locators: Vec<&str> = found.sessions.iter().map(|s| s.locator.as_str()).collect();
    assert_eq!(locators, [TRANSCRIPT, LOG, PROFILE_LOG]);
    let log = &found.sessions[1];
    assert_eq!(log.native_id, "20260430_101500_a1b2c3");
    assert_eq!(log.started_at.as_deref(), Some("2026-04-30T10:15:00.123Z"));
    assert_eq!(log.updated_at.as_deref(), Some("2026-04-30T10:16:30.000Z"));
    assert_eq!(log.title.as_deref(), Some("how many lines in README.md? (ACORN-4)"));
    assert_eq!(log.native_version, None);
    let t = &found.sessions[0];
    assert_eq!(t.native_id, "20260430_120000_deadbeef");
    assert_eq!(t.started_at.as_deref(), Some("2026-04-30T12:00:00.000Z"));
    assert_eq!(t.title.as_deref(), Some("remind me about the BIRCH-7 meeting"));
    let p = &found.sessions[2];
    assert_eq!(p.cwd.as_deref(), Some("/home/u/work"));
    // sessions.json is the gateway's index; the stray file is named.
    assert_eq!(found.diagnostics.len(), 1, "{:?}", found.diagnostics);
    let d = kit::file_diag(&found.diagnostics, "unrecognized-file", ".hermes/sessions/stray.txt").unwrap();
    assert_eq!(d.severity, Severity::Warning);
    for s in &found.sessions {
        let one = HermesJson::inspect(&Dir::native(&home), &s.locator).unwrap();
        assert_eq!(format!("{one:?}"), format!("{s:?}"));
    }
}

#[test]
fn a_log_reads_as_its_messages() {
    let home = home();
    let read = kit::read::<HermesJson>(&home, LOG);
    assert_eq!(
        kinds(&read.records),
        [
            "meta",
            "system",
            "user",
            "reasoning",
            "reasoning",
            "assistant",
            "tool_call",
            "tool_result",
            "assistant",
            "user",
            "assistant"
        ]
    );
    let meta = read.meta();
    assert_eq!(meta.native_id, "20260430_101500_a1b2c3");
    assert_eq!(meta.codec.as_deref(), Some("hermes@0.1.0-json"));
    let Body::System { text } = &read.records[1].body else { panic!() };
    assert_eq!(text, "You are Hermes, a test agent. MARIGOLD-SYS");
    assert_eq!(users(&read.records), ["how many lines in README.md? (ACORN-4)", "and this screenshot?"]);
    let user = read.records.iter().filter(|r| r.body.kind() == "user").nth(1).unwrap();
    let Body::User { attachments, .. } = &user.body else { panic!() };
    assert_eq!(attachments[0].media_type.as_deref(), Some("image/png"));
    let a = assistants(&read.records);
    assert_eq!(a.len(), 3);
    assert_eq!(a[1].text, "README.md has 42 lines.");
    assert_eq!(a[0].model.as_deref(), Some("test/model-x"));
    assert_eq!(a[0].stop_reason.as_deref(), Some("tool_calls"));
    assert!(a.iter().all(|a| a.usage.is_none()));
    assert_eq!(tool_calls(&read.records), [("call_wc", "terminal", &json!({"command": "wc -l README.md"}))]);
    assert_eq!(tool_results(&read.records), [("call_wc", "42 README.md", None)]);
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
    assert!(read.diag("orphan-tool-result").is_none());
    assert_eq!(read.diag_with("unmapped-record-type", "session_meta").map(|d| d.count), Some(1));
    assert!(read.diag("unknown-record-type").is_none());
    // A record's span is its message's JSON inside the document.
    let raw = std::fs::read(home.join(LOG)).unwrap();
    let result = read.records.iter().find(|r| r.body.kind() == "tool_result").unwrap();
    let src = result.src.as_ref().unwrap();
    let bytes = &raw[src.offset as usize..(src.offset + src.len) as usize];
    assert_eq!(serde_json::from_slice::<serde_json::Value>(bytes).unwrap()["tool_call_id"], "call_wc");
    kit::conformance::<HermesJson>(&home, LOG, Spans::Bytes);
}

#[test]
fn a_gateway_transcript_reads_line_by_line() {
    let home = home();
    let read = kit::read::<HermesJson>(&home, TRANSCRIPT);
    assert_eq!(kinds(&read.records), ["meta", "user", "assistant", "tool_call", "tool_result", "assistant"]);
    assert_eq!(users(&read.records), ["remind me about the BIRCH-7 meeting"]);
    assert_eq!(assistants(&read.records)[1].model.as_deref(), Some("test/model-y"), "session_meta's model");
    assert_eq!(read.records[1].ts.as_deref(), Some("2026-04-30T12:00:05.000Z"));
    assert_eq!(tool_results(&read.records), [("call_cron", "scheduled", None)]);
    kit::conformance::<HermesJson>(&home, TRANSCRIPT, Spans::Lines);
    kit::conformance::<HermesJson>(&home, PROFILE_LOG, Spans::Bytes);
}

#[test]
fn every_role_of_the_fixture_is_known() {
    let home = home();
    let read = kit::read::<HermesJson>(&home, LOG);
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(home.join(LOG)).unwrap()).unwrap();
    let messages = doc["messages"].as_array().unwrap().clone();
    kit::check_handling(&read, KNOWN_ROLES, |role| messages.iter().filter(|m| m["role"] == role).count() as u32);
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
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hermes/session-export/home");
    let found = kit::discover::<HermesJson>(&home);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    let ids: Vec<&str> = found.sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert_eq!(ids, ["hermes-export-0001", "hermes-export-0002"]);
    let one = &found.sessions[0];
    assert_eq!(one.title.as_deref(), Some("Export with a session row"));
    assert_eq!(one.cwd.as_deref(), Some("/srv/export"));
    assert_eq!(one.started_at.as_deref(), Some("2026-07-02T13:46:40.000Z"));
    assert_eq!(found.sessions[1].title.as_deref(), Some("Describe this picture (ROWAN-8)."));

    let locator = ".hermes/sessions/session_hermes-export-0001.json";
    let read = kit::read::<HermesJson>(&home, locator);
    assert_eq!(
        kinds(&read.records),
        ["meta", "system", "user", "reasoning", "assistant", "tool_call", "tool_result", "assistant"]
    );
    assert_eq!(read.meta().native_id, "hermes-export-0001");
    assert_eq!(assistants(&read.records)[1].model.as_deref(), Some("test/model-z"));
    assert_eq!(read.records[2].ts.as_deref(), Some("2026-07-02T13:46:41.250Z"));
    kit::conformance::<HermesJson>(&home, locator, Spans::Bytes);

    let locator = ".hermes/sessions/session_hermes-export-0002.json";
    let read = kit::read::<HermesJson>(&home, locator);
    assert_eq!(kinds(&read.records), ["meta", "user", "assistant", "user"]);
    assert_eq!(users(&read.records), ["Describe this picture (ROWAN-8).", "Thanks."]);
    let Body::User { attachments, .. } = &read.records[1].body else { panic!() };
    assert_eq!(attachments[0].media_type.as_deref(), Some("image/jpeg"));
    assert_eq!(read.diag("rewound-message").map(|d| d.count), Some(1));
    kit::conformance::<HermesJson>(&home, locator, Spans::Bytes);
}
