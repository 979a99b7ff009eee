//! The journal-only Grok Build codec against a hand-written store
//! (fixtures/grok-build/updates-only, see its PROVENANCE.md), run natively
//! through `Dir::native`.

use std::path::PathBuf;

use serde_json::json;
use trajhost_codec_grok_build_updates::{GrokBuildUpdates, KNOWN_UPDATE_TYPES};
use trajhost_codec_sdk::Codec;
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_testkit::{
    self as kit, Spans, assistants, kinds, observations_of, reasonings, tool_calls, tool_results, users,
};

const ID: &str = "019fd000-1111-7222-8333-444455556666";

fn home() -> PathBuf {
    kit::fixtures("grok-build", "updates-only").join("home")
}

fn locator() -> String {
    format!(".grok/sessions/%2Fhome%2Fuser%2Fdemo/{ID}/updates.jsonl")
}

#[test]
fn info_names_the_harness_and_layout() {
    let info = GrokBuildUpdates::info();
    assert_eq!((info.harness.as_str(), info.codec_version.as_str()), ("grok-build", "0.1.0-updates"));
    assert!(info.writes.is_empty());
    assert!(kit::glob_matches(&info.session_globs[0], &locator()));
}

#[test]
fn discovers_only_folders_without_a_chat_history() {
    let discovery = kit::discover::<GrokBuildUpdates>(&home());
    assert!(discovery.diagnostics.is_empty(), "{:?}", discovery.diagnostics);
    assert_eq!(discovery.sessions.len(), 1);
    let s = &discovery.sessions[0];
    assert_eq!((s.native_id.as_str(), s.locator.as_str()), (ID, locator().as_str()));
    assert_eq!(s.cwd.as_deref(), Some("/home/user/demo"));
    assert_eq!(s.native_version.as_deref(), Some("1"));
    assert_eq!(s.title.as_deref(), Some("Notes listing"));
    let inspected = GrokBuildUpdates::inspect(&Dir::native(home()), &locator()).unwrap();
    assert_eq!(format!("{inspected:?}"), format!("{s:?}"));
}

#[test]
fn rebuilds_the_conversation_from_the_chunks() {
    let read = kit::read::<GrokBuildUpdates>(&home(), &locator());
    kit::check_spans(&home(), &read, Spans::Lines);
    assert_eq!(read.meta().git_branch.as_deref(), Some("main"));
    assert_eq!(users(&read.records), ["List the notes folder, please.", "thanks"]);
    let texts: Vec<&str> = assistants(&read.records).iter().map(|a| a.text.as_str()).collect();
    assert_eq!(texts, ["Listing it now.", "notes/ holds a.md and b.md.", "You're welcome."]);
    assert_eq!(assistants(&read.records)[0].model.as_deref(), Some("grok-4.5"));
    assert_eq!(reasonings(&read.records)[0].text.as_deref(), Some("Use ls on notes/."));
    let calls: Vec<(&str, &str)> = tool_calls(&read.records).iter().map(|c| (c.0, c.1)).collect();
    assert_eq!(calls, [("call-1", "run_terminal_cmd"), ("call-2", "Run cat c.md"), ("call-3", "read_file")]);
    assert_eq!(tool_calls(&read.records)[0].2, &json!({"command": "ls notes"}));
    assert_eq!(
        tool_results(&read.records),
        [
            ("call-1", "a.md\nb.md\n", Some(true)),
            ("call-2", "cat: notes/c.md: No such file", Some(false)),
            ("call-3", "# A (PLUM-3)", Some(true)),
        ]
    );
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
fn ids_are_stable_across_batchings() {
    let one = kit::read::<GrokBuildUpdates>(&home(), &locator());
    let small = kit::read_with::<GrokBuildUpdates>(&home(), &locator(), kit::options(3, 1 << 20));
    assert_eq!(one.records, small.records);
    let ids: std::collections::BTreeSet<&str> = one.records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), one.records.len());
}

#[test]
fn a_torn_tail_is_reported() {
    let copy = kit::copy_of(&home());
    let path = copy.path().join(locator());
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"method\":\"session/update\",\"params\":{\"upd");
    std::fs::write(&path, text).unwrap();
    let read = kit::read::<GrokBuildUpdates>(copy.path(), &locator());
    assert_eq!(read.diag("torn-tail").unwrap().count, 1);
    assert_eq!(users(&read.records).len(), 2);
}

#[test]
fn sniffs_and_reads_a_loose_journal() {
    let bytes = std::fs::read(home().join(locator())).unwrap();
    assert_eq!(GrokBuildUpdates::sniff("x.jsonl", &bytes).unwrap().native_id.as_deref(), Some(ID));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x.jsonl"), &bytes).unwrap();
    let read = kit::read::<GrokBuildUpdates>(dir.path(), "x.jsonl");
    assert_eq!(read.meta().native_id, ID);
    assert_eq!(users(&read.records).len(), 2);
}

#[test]
fn every_kind_is_listed_once() {
    let mut seen = std::collections::BTreeSet::new();
    for (name, _) in KNOWN_UPDATE_TYPES {
        assert!(seen.insert(*name), "{name} listed twice");
    }
}
