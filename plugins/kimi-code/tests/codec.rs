//! The Kimi Code codec against a hand-written store
//! (fixtures/kimi-cli/kimi-code-1.4, see its PROVENANCE.md), run natively
//! through `Dir::native`: what the conformance suite (tests/conformance.rs)
//! does not pin of its ops, observations and usage, stray files, a loose
//! journal.

use std::path::PathBuf;

use trajhost_codec_kimi_code::{KNOWN_LOOP_EVENTS, KNOWN_OP_TYPES, KimiCode};
use trajhost_codec_sdk::Codec;
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_testkit::{self as kit, assistants, observations_of, reasonings, users};

const SESSION: &str = ".kimi-code/sessions/wd_demo_5f2c9a1e7b30/session_7d3e2f10-4a5b-4c6d-8e9f-0a1b2c3d4e5f";
const ID: &str = "7d3e2f10-4a5b-4c6d-8e9f-0a1b2c3d4e5f";

fn home() -> PathBuf {
    kit::fixtures("kimi-cli", "kimi-code-1.4").join("home")
}

fn main_locator() -> String {
    format!("{SESSION}/agents/main/wire.jsonl")
}

fn sub_locator() -> String {
    format!("{SESSION}/agents/agent-0/wire.jsonl")
}

#[test]
fn the_folder_gives_the_start_and_only_the_main_agent_a_title() {
    let discovery = kit::discover::<KimiCode>(&home());
    let mut sessions = discovery.sessions.clone();
    sessions.sort_by(|a, b| a.native_id.cmp(&b.native_id));
    assert_eq!(sessions.len(), 2, "{sessions:?}");
    assert_eq!(sessions[0].started_at.as_deref(), Some("2026-08-02T10:00:00.000Z"), "state.json's createdAt");
    assert_eq!(sessions[1].title, None);
}

#[test]
fn reads_the_main_agent() {
    let read = kit::read::<KimiCode>(&home(), &main_locator());
    assert_eq!(read.meta().parent_session, None);
    let texts: Vec<&str> = assistants(&read.records).iter().map(|a| a.text.as_str()).collect();
    // One answer per step: text, a call-only step, the final text, the Agent call.
    assert_eq!(texts, ["Counting the lines.", "", "fruit.txt lists 4 fruits (MANGO-4).", ""]);
    let first = assistants(&read.records)[0];
    assert_eq!(first.message_id.as_deref(), Some("chatcmpl-1"));
    assert_eq!(first.stop_reason.as_deref(), Some("tool_use"));
    let usage = first.usage.as_ref().unwrap();
    assert_eq!(
        (usage.input, usage.output, usage.cache_read, usage.cache_write),
        (Some(900), Some(40), Some(8000), Some(0))
    );
    assert_eq!(reasonings(&read.records)[0].text.as_deref(), Some("I should count the lines."));
    assert_eq!(observations_of(&read.records, "injection/todo_list_reminder").len(), 1);
    assert_eq!(observations_of(&read.records, "plan-mode"), ["enter", "exit"]);
    assert_eq!(kit::observations(&read.records).iter().filter(|o| o.0 == "interrupt").count(), 1);
    let Body::Compaction { summary, trigger } = &read.records.last().unwrap().body else { panic!() };
    assert_eq!((summary.as_str(), trigger.as_deref()), ("Earlier: fruit.txt has 4 fruits (MANGO-4).", Some("manual")));
    let unknown: Vec<&str> =
        read.diagnostics.iter().filter(|d| d.code == "unknown-record-type").map(|d| d.detail.as_str()).collect();
    assert_eq!(unknown, ["op:hologram.projected"]);
    assert!(read.diag_with("unmapped-record-type", "op:turn.prompt").is_some());
}

#[test]
fn reads_a_subagent_as_its_own_session() {
    let read = kit::read::<KimiCode>(&home(), &sub_locator());
    let meta = read.meta();
    assert_eq!(meta.native_id, format!("{ID}:agent-0"));
    assert_eq!(meta.parent_session.as_deref(), Some(ID));
    assert_eq!(observations_of(&read.records, "system-trigger/subagent"), ["Count the fruit in fruit.txt"]);
    assert!(read.records.iter().all(|r| r.agent.is_none()));
}

#[test]
fn unplaceable_files_are_named_and_the_rest_still_listed() {
    let copy = kit::copy_of(&home());
    let sessions = copy.path().join(".kimi-code/sessions");
    std::fs::write(sessions.join("stray.txt"), "x").unwrap();
    std::fs::create_dir_all(sessions.join("wd_demo_5f2c9a1e7b30/notes")).unwrap();
    let agent = copy.path().join(SESSION).join("agents/agent-1");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::write(agent.join("wire.jsonl"), "{\"type\":\"turn.prompt\"}\n").unwrap();
    let discovery = kit::discover::<KimiCode>(copy.path());
    assert_eq!(discovery.sessions.len(), 3);
    let named: Vec<(&str, &str)> =
        discovery.diagnostics.iter().map(|d| (d.code.as_str(), d.file.as_deref().unwrap_or(""))).collect();
    assert!(named.contains(&("unrecognized-file", ".kimi-code/sessions/stray.txt")), "{named:?}");
    assert!(named.contains(&("unrecognized-file", ".kimi-code/sessions/wd_demo_5f2c9a1e7b30/notes")), "{named:?}");
    let bad = format!("{SESSION}/agents/agent-1/wire.jsonl");
    assert!(named.contains(&("malformed-head", bad.as_str())), "{named:?}");
}

#[test]
fn sniffs_a_loose_journal_and_reads_it() {
    let bytes = std::fs::read(home().join(main_locator())).unwrap();
    let sniffed = KimiCode::sniff("main.jsonl", &bytes[..bytes.len().min(64 * 1024)]).unwrap();
    assert_eq!(sniffed.native_version.as_deref(), Some("1.4"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.jsonl"), &bytes).unwrap();
    let read = kit::read::<KimiCode>(dir.path(), "main.jsonl");
    assert_eq!(users(&read.records).len(), 2);
    assert_eq!(read.meta().native_id, "main");
}

#[test]
fn every_type_is_listed_once() {
    let mut seen = std::collections::BTreeSet::new();
    for (name, _) in KNOWN_OP_TYPES.iter().chain(KNOWN_LOOP_EVENTS) {
        assert!(seen.insert(*name), "{name} listed twice");
    }
}
