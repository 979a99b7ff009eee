//! The Kimi Code codec against a hand-written store
//! (fixtures/kimi-cli/kimi-code-1.4, see its PROVENANCE.md), run natively
//! through `Dir::native`, plus damaged copies of it.

use std::path::PathBuf;

use serde_json::json;
use trajhost_codec_kimi_code::{KNOWN_LOOP_EVENTS, KNOWN_OP_TYPES, KimiCode};
use trajhost_codec_sdk::Codec;
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_testkit::{
    self as kit, Spans, assistants, kinds, observations_of, reasonings, tool_calls, tool_results, users,
};

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
fn info_names_the_harness_and_layout() {
    let info = KimiCode::info();
    assert_eq!(info.harness, "kimi-cli");
    assert_eq!(info.codec_version, "0.1.0-kimi-code");
    assert_eq!(info.native_versions, ">=1.0.0, <2.0.0");
    assert!(info.writes.is_empty());
    assert!(kit::glob_matches(&info.session_globs[0], &main_locator()));
    assert!(kit::glob_matches(&info.session_globs[0], &sub_locator()));
    assert!(!kit::glob_matches(&info.session_globs[0], ".kimi/sessions/abc/def/context.jsonl"));
}

#[test]
fn discovers_each_agent_as_a_session() {
    let discovery = kit::discover::<KimiCode>(&home());
    assert!(discovery.diagnostics.is_empty(), "{:?}", discovery.diagnostics);
    let mut sessions = discovery.sessions.clone();
    sessions.sort_by(|a, b| a.native_id.cmp(&b.native_id));
    let ids: Vec<&str> = sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert_eq!(ids, [ID.to_string(), format!("{ID}:agent-0")]);
    let main = &sessions[0];
    assert_eq!(main.locator, main_locator());
    assert_eq!(main.cwd.as_deref(), Some("/home/user/demo"));
    assert_eq!(main.title.as_deref(), Some("Count the fruit"));
    assert_eq!(main.started_at.as_deref(), Some("2026-08-02T10:00:00.000Z"));
    assert_eq!(main.native_version.as_deref(), Some("1.4"));
    assert_eq!(sessions[1].title, None);
    for s in &sessions {
        let inspected = KimiCode::inspect(&Dir::native(home()), &s.locator).unwrap();
        assert_eq!(format!("{inspected:?}"), format!("{s:?}"));
    }
}

#[test]
fn reads_the_main_agent() {
    let read = kit::read::<KimiCode>(&home(), &main_locator());
    kit::check_spans(&home(), &read, Spans::Lines);
    let meta = read.meta();
    assert_eq!((meta.native_id.as_str(), meta.harness.as_str()), (ID, "kimi-cli"));
    assert_eq!(meta.parent_session, None);
    assert_eq!(users(&read.records), ["How many fruits are in fruit.txt?", "now ask a subagent"]);
    let texts: Vec<&str> = assistants(&read.records).iter().map(|a| a.text.as_str()).collect();
    // One answer per step: text, a call-only step, the final text, the Agent call.
    assert_eq!(texts, ["Counting the lines.", "", "fruit.txt lists 4 fruits (MANGO-4).", ""]);
    let first = assistants(&read.records)[0];
    assert_eq!(first.model.as_deref(), Some("kimi-k2"));
    assert_eq!(first.message_id.as_deref(), Some("chatcmpl-1"));
    assert_eq!(first.stop_reason.as_deref(), Some("tool_use"));
    let usage = first.usage.as_ref().unwrap();
    assert_eq!(
        (usage.input, usage.output, usage.cache_read, usage.cache_write),
        (Some(900), Some(40), Some(8000), Some(0))
    );
    assert_eq!(reasonings(&read.records)[0].text.as_deref(), Some("I should count the lines."));
    let calls: Vec<(&str, &str)> = tool_calls(&read.records).iter().map(|c| (c.0, c.1)).collect();
    assert_eq!(calls, [("Bash_0", "Bash"), ("Bash_1", "Bash"), ("Agent_2", "Agent")]);
    assert_eq!(tool_calls(&read.records)[0].2, &json!({"command": "wc -l fruit.txt"}));
    let results = tool_results(&read.records);
    assert_eq!(results[0], ("Bash_0", "4 fruit.txt\n", Some(true)));
    assert_eq!(results[1].2, Some(false));
    assert_eq!(results.len(), 3);
    assert_eq!(observations_of(&read.records, "injection/todo_list_reminder").len(), 1);
    assert_eq!(observations_of(&read.records, "plan-mode"), ["enter", "exit"]);
    assert_eq!(kit::observations(&read.records).iter().filter(|o| o.0 == "interrupt").count(), 1);
    let Body::Compaction { summary, trigger } = &read.records.last().unwrap().body else { panic!() };
    assert_eq!((summary.as_str(), trigger.as_deref()), ("Earlier: fruit.txt has 4 fruits (MANGO-4).", Some("manual")));
    // The step's records in journal order: reasoning, answer, call, result.
    let k = kinds(&read.records);
    let at = k.iter().position(|k| *k == "reasoning").unwrap();
    assert_eq!(k[at..at + 4], ["reasoning", "assistant", "tool_call", "tool_result"]);
    assert_eq!(k[..2], ["meta", "system"]);
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
    assert!(users(&read.records).is_empty());
    assert_eq!(observations_of(&read.records, "system-trigger/subagent"), ["Count the fruit in fruit.txt"]);
    assert_eq!(tool_results(&read.records), [("Read_0", "apple\npear\nkiwi\nfig\n", Some(true))]);
    assert_eq!(assistants(&read.records).last().unwrap().text, "4 fruits: apple, pear, kiwi, fig.");
    assert!(read.records.iter().all(|r| r.agent.is_none()));
}

#[test]
fn ids_are_stable_across_batchings() {
    let one = kit::read::<KimiCode>(&home(), &main_locator());
    let small = kit::read_with::<KimiCode>(&home(), &main_locator(), kit::options(3, 1 << 20));
    assert_eq!(one.records, small.records);
    let ids: std::collections::BTreeSet<&str> = one.records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), one.records.len());
}

#[test]
fn a_torn_tail_and_a_corrupt_line_are_reported() {
    let copy = kit::copy_of(&home());
    let path = copy.path().join(main_locator());
    let offset = kit::corrupt_line(&path, 5, 20);
    let read = kit::read::<KimiCode>(copy.path(), &main_locator());
    kit::check_corrupt_line(&read, offset);
    assert_eq!(users(&read.records), ["now ask a subagent"]);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"type\":\"context.append_message\",\"message\":{\"role\":\"user\",\"content\":\"PINE");
    std::fs::write(&path, text).unwrap();
    let read = kit::read::<KimiCode>(copy.path(), &main_locator());
    assert_eq!(read.diag("torn-tail").unwrap().count, 1);
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
