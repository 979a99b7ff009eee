//! What is particular to the journal-only Grok Build codec, against a
//! hand-written store (fixtures/grok-build/updates-only, see its
//! PROVENANCE.md). What every codec must do is the testkit's suite, in
//! tests/conformance.rs.

use std::path::PathBuf;

use trajhost_codec_grok_build_updates::{GrokBuildUpdates, KNOWN_UPDATE_TYPES};
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_testkit::{self as kit, kinds, observations_of, reasonings};

const ID: &str = "019fd000-1111-7222-8333-444455556666";

fn home() -> PathBuf {
    kit::fixtures("grok-build", "updates-only").join("home")
}

fn locator() -> String {
    format!(".grok/sessions/%2Fhome%2Fuser%2Fdemo/{ID}/updates.jsonl")
}

/// The suite checks the session discover lists; the folder beside it holds
/// a chat history, the grok-build codec's.
#[test]
fn discovers_only_folders_without_a_chat_history() {
    let discovery = kit::discover::<GrokBuildUpdates>(&home());
    assert!(discovery.diagnostics.is_empty(), "{:?}", discovery.diagnostics);
    let ids: Vec<&str> = discovery.sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert_eq!(ids, [ID]);
}

#[test]
fn reasoning_retries_usage_and_unknown_kinds() {
    // The suite checks the prompts, calls, results and answers.
    let read = kit::read::<GrokBuildUpdates>(&home(), &locator());
    assert_eq!(read.meta().git_branch.as_deref(), Some("main"));
    assert_eq!(reasonings(&read.records)[0].text.as_deref(), Some("Use ls on notes/."));
    let k = kinds(&read.records);
    assert_eq!(k[..5], ["meta", "user", "reasoning", "assistant", "tool_call"]);
    assert_eq!(observations_of(&read.records, "retry"), ["API error (status 503)"]);
    let usage: serde_json::Value = serde_json::from_str(observations_of(&read.records, "turn-usage")[0]).unwrap();
    assert_eq!(usage["modelCalls"], 3);
    let unknown: Vec<&str> =
        read.diagnostics.iter().filter(|d| d.code == "unknown-record-type").map(|d| d.detail.as_str()).collect();
    assert_eq!(unknown, ["updates:warp_drive"]);
    assert!(read.diag_with("unmapped-record-type", "updates:task_backgrounded").is_some());
    let user = read.records.iter().find(|r| matches!(r.body, Body::User { .. })).unwrap();
    assert_eq!(user.ts.as_deref(), Some("2026-08-06T08:00:00.010Z"));
}

#[test]
fn every_kind_is_listed_once() {
    let mut seen = std::collections::BTreeSet::new();
    for (name, _) in KNOWN_UPDATE_TYPES {
        assert!(seen.insert(*name), "{name} listed twice");
    }
}
