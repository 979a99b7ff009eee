//! What is particular to mini-swe-agent's trajectories, against the files
//! the real `mini` 2.4.6 wrote (fixtures/mini-swe-agent/2.4.6) and synthetic
//! variations of them. What every codec must do is the testkit's suite, in
//! tests/conformance.rs.

use std::path::Path;

use serde_json::{Value, json};
use trajhost_codec_mini_swe_agent::{MiniSweAgent, STORE};
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_sdk::{Codec, CodecError, Severity};
use trajhost_codec_testkit::suite::Lab;
use trajhost_codec_testkit::{self as kit, assistants, tool_calls, tool_results};

fn lab() -> Lab<MiniSweAgent> {
    Lab::new(include_str!("conformance.json"))
}

const LOCATOR: &str = ".config/mini-swe-agent/last_mini_run.traj.json";

fn document(scenario: &str) -> Value {
    serde_json::from_slice(&std::fs::read(lab().path(scenario)).unwrap()).unwrap()
}

/// A home holding `doc` as the default trajectory, written as mini writes
/// it (`json.dumps(indent=2)`-like).
fn home_with(doc: &Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), LOCATOR, doc);
    dir
}

fn write(home: &Path, locator: &str, doc: &Value) {
    let path = home.join(locator);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_vec_pretty(doc).unwrap()).unwrap();
}

fn observations(records: &[Record]) -> Vec<(&str, Option<&str>)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Observation { subtype, text } => Some((subtype.as_str(), text.as_deref())),
            _ => None,
        })
        .collect()
}

#[test]
fn meta_takes_the_version_the_task_and_the_first_reply_time() {
    let read = lab().read("simple");
    let meta = read.meta();
    assert_eq!(meta.native_version.as_deref(), Some("2.4.6"));
    assert_eq!(meta.title.as_deref(), Some("Read hello.txt and tell me the secret word."));
    // `environment.cwd` is "": the process's directory, not recorded.
    assert_eq!(meta.cwd, None);
    let doc = document("simple");
    let first = doc["messages"].as_array().unwrap().iter().find_map(|m| m["extra"]["timestamp"].as_f64()).unwrap();
    let started = trajhost_codec_sdk::time::rfc3339_epoch_secs(first).unwrap();
    assert_eq!(meta.started_at.as_deref(), Some(started.as_str()));
    // The system prompt and the task carry no time; the rest do.
    for r in &read.records[1..] {
        let timed = !matches!(r.body, Body::System { .. } | Body::User { .. });
        assert_eq!(r.ts.is_some(), timed, "{r:?}");
    }
}

#[test]
fn assistant_records_carry_the_response() {
    let read = lab().read("simple");
    let doc = document("simple");
    let replies: Vec<&Value> =
        doc["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "assistant").collect();
    let assistants = assistants(&read.records);
    assert_eq!(assistants.len(), replies.len());
    for (a, m) in assistants.iter().zip(&replies) {
        let response = &m["extra"]["response"];
        assert_eq!(a.message_id.as_deref(), response["id"].as_str());
        assert_eq!(a.model.as_deref(), Some("fake-model"));
        assert_eq!(a.stop_reason.as_deref(), Some("tool_calls"));
        let usage = a.usage.as_ref().unwrap();
        assert_eq!((usage.input, usage.output), (Some(100), Some(20)));
        // Cost tracking ignored its errors: a cost of 0.0 is no cost.
        assert_eq!(usage.cost_usd, None);
    }
    // Tool calls keep the model's call ids, and results answer them.
    let calls = tool_calls(&read.records);
    let ids: Vec<&str> = calls.iter().map(|c| c.0).collect();
    let stored: Vec<&str> = replies.iter().map(|m| m["tool_calls"][0]["id"].as_str().unwrap()).collect();
    assert_eq!(ids, stored);
    assert!(ids.iter().all(|id| id.starts_with("call_lab_")), "{ids:?}");
}

#[test]
fn the_submit_command_and_the_exit_record() {
    for scenario in ["simple", "parallel", "failing-tool", "long-output"] {
        let read = lab().read(scenario);
        let calls = tool_calls(&read.records);
        assert_eq!(calls.last().unwrap().2["command"], "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT");
        // mini does not run the submit command: returncode -1 and the exception say so.
        let (_, content, ok) = *tool_results(&read.records).last().unwrap();
        assert_eq!((content, ok), ("action was not executed", Some(false)), "{scenario}");
        assert_eq!(observations(&read.records), [("exit/Submitted", None)], "{scenario}");
        assert_eq!(read.records.last().unwrap().body.kind(), "observation");
    }
}

#[test]
fn a_submission_is_the_exit_records_text() {
    let mut doc = document("simple");
    let messages = doc["messages"].as_array_mut().unwrap();
    messages.last_mut().unwrap()["extra"]["submission"] = json!("diff --git a/x b/x");
    messages.last_mut().unwrap()["extra"]["exit_status"] = json!("LimitsExceeded");
    let home = home_with(&doc);
    let read = kit::read::<MiniSweAgent>(home.path(), LOCATOR);
    assert_eq!(observations(&read.records), [("exit/LimitsExceeded", Some("diff --git a/x b/x"))]);
}

#[test]
fn the_return_code_gives_ok() {
    let read = lab().read("failing-tool");
    let results = tool_results(&read.records);
    assert_eq!(results[0].1, "cat: missing.txt: No such file or directory\n");
    assert_eq!(results[0].2, Some(false));
    let read = lab().read("simple");
    assert_eq!(tool_results(&read.records)[0].2, Some(true));
}

#[test]
fn long_output_is_head_elision_and_tail() {
    let read = lab().read("long-output");
    let content = tool_results(&read.records)[0].1;
    let doc = document("long-output");
    let rendered: Value = serde_json::from_str(doc["messages"][3]["content"].as_str().unwrap()).unwrap();
    let elided = rendered["elided_chars"].as_u64().unwrap();
    assert!(content.starts_with(rendered["output_head"].as_str().unwrap()));
    assert!(content.ends_with(rendered["output_tail"].as_str().unwrap()));
    assert!(content.contains(&format!("[… {elided} characters elided …]")), "{}", &content[..200]);
}

/// mini's observation template renders output with Jinja's `tojson`, which
/// escapes every non-ASCII character (`\uXXXX`): the model sees escapes
/// (the lab's multibyte scenario cannot pass for that reason), the codec
/// reads the characters.
#[test]
fn escaped_output_reads_as_characters() {
    let mut doc = document("simple");
    let text = "日本語 🍍🥭🎉 e\u{301} CHERRY-本-91 ✓\n";
    let escaped: String = serde_json::to_string(text)
        .unwrap()
        .chars()
        .flat_map(|c| {
            if c.is_ascii() {
                vec![c.to_string()]
            } else {
                c.encode_utf16(&mut [0; 2]).iter().map(|u| format!("\\u{u:04x}")).collect()
            }
        })
        .collect();
    doc["messages"][3]["content"] = json!(format!("{{\n  \"returncode\": 0,\n  \"output\": {escaped}\n}}"));
    let home = home_with(&doc);
    let read = kit::read::<MiniSweAgent>(home.path(), LOCATOR);
    assert_eq!(tool_results(&read.records)[0].1, text);
}

/// A custom observation template that is not the default JSON: the content
/// is taken as it is, and `ok` from `extra.returncode`.
#[test]
fn a_custom_observation_is_read_as_it_is() {
    let mut doc = document("simple");
    doc["messages"][3]["content"] = json!("<returncode>2</returncode>\n<output>nope</output>");
    doc["messages"][3]["extra"]["returncode"] = json!(2);
    let home = home_with(&doc);
    let read = kit::read::<MiniSweAgent>(home.path(), LOCATOR);
    let results = tool_results(&read.records);
    assert_eq!(results[0].1, "<returncode>2</returncode>\n<output>nope</output>");
    assert_eq!(results[0].2, Some(false));
}

#[test]
fn ids_are_the_contents_not_the_file_name() {
    // Every run overwrites last_mini_run: two runs are two sessions.
    let ids: std::collections::BTreeSet<&str> = lab().ids().into_iter().map(|(_, id)| id).collect();
    assert_eq!(ids.len(), 4);
    // A later step of the same run (the document rewritten longer) keeps the id.
    let mut doc = document("simple");
    let first = kit::read::<MiniSweAgent>(&lab().home("simple"), LOCATOR).meta().native_id.clone();
    let messages = doc["messages"].as_array_mut().unwrap();
    let exit = messages.pop().unwrap();
    messages.push(json!({"role": "user", "content": "one more"}));
    messages.push(exit);
    let home = home_with(&doc);
    assert_eq!(kit::read::<MiniSweAgent>(home.path(), LOCATOR).meta().native_id, first);
}

#[test]
fn discover_lists_output_files_and_leaves_the_config_alone() {
    let home = lab().copy("simple");
    let store = home.path().join(STORE);
    std::fs::write(store.join(".env"), "MSWEA_CONFIGURED=true\n").unwrap();
    std::fs::write(store.join("mini.yaml"), "agent: {}\n").unwrap();
    std::fs::write(store.join("notes.txt"), "x").unwrap();
    std::fs::write(store.join("broken.traj.json"), "{\"info\": ").unwrap();
    write(home.path(), &format!("{STORE}/fix-bug.traj.json"), &document("parallel"));
    let found = kit::discover::<MiniSweAgent>(home.path());
    let locators: Vec<&str> = found.sessions.iter().map(|s| s.locator.as_str()).collect();
    assert_eq!(locators, [format!("{STORE}/fix-bug.traj.json").as_str(), LOCATOR]);
    assert_eq!(found.sessions[0].native_id, lab().id("parallel"));
    let mut named: Vec<(&str, &str)> =
        found.diagnostics.iter().map(|d| (d.code.as_str(), d.file.as_deref().unwrap_or(""))).collect();
    named.sort();
    let broken = format!("{STORE}/broken.traj.json");
    let notes = format!("{STORE}/notes.txt");
    assert_eq!(named.len(), 2, "{:?}", found.diagnostics);
    assert!(named.iter().any(|(_, f)| *f == broken), "{named:?}");
    assert!(named.contains(&("unrecognized-file", notes.as_str())), "{named:?}");
}

#[test]
fn damaged_documents() {
    // Not JSON, not mini's, no messages: read refuses, naming why.
    for text in [
        "{\"info\": {",
        "{\"messages\": [], \"trajectory_format\": \"other-1\"}",
        "{\"info\": {\"mini_version\": \"2.4.6\"}}",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCATOR);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        let err = kit::try_read::<MiniSweAgent>(dir.path(), LOCATOR, kit::one_batch()).unwrap_err();
        assert!(matches!(err, CodecError::Malformed(_)), "{text}: {err:?}");
    }
    // A message that is no object and a role never seen: reported, the rest read.
    let mut doc = document("simple");
    let messages = doc["messages"].as_array_mut().unwrap();
    messages.insert(2, json!("stray"));
    messages.insert(3, json!({"role": "critic", "content": "hmm"}));
    let home = home_with(&doc);
    let read = kit::read::<MiniSweAgent>(home.path(), LOCATOR);
    let codes: Vec<(&str, Severity)> = read.diagnostics.iter().map(|d| (d.code.as_str(), d.severity)).collect();
    assert!(codes.contains(&("malformed-message", Severity::Error)), "{codes:?}");
    assert!(codes.contains(&("unknown-record-type", Severity::Warning)), "{codes:?}");
    assert_eq!(tool_results(&read.records).len(), 2);
}

#[test]
fn read_only() {
    assert!(MiniSweAgent::info().writes.is_empty());
}

#[test]
fn sniff_reads_the_head_of_a_long_trajectory() {
    let bytes = std::fs::read(lab().path("long-output")).unwrap();
    assert!(bytes.len() > 64 << 10);
    let sniffed = MiniSweAgent::sniff("anywhere/run.json", &bytes[..64 << 10]).unwrap();
    assert_eq!(sniffed.native_version.as_deref(), Some("2.4.6"));
    // The messages are not all in the head: no id.
    assert_eq!(sniffed.native_id, None);
    let whole = std::fs::read(lab().path("simple")).unwrap();
    let sniffed = MiniSweAgent::sniff("copy.json", &whole).unwrap();
    assert_eq!(sniffed.native_id.as_deref(), Some(lab().id("simple")));
}

/// The store keeps `model_kwargs.api_key` in plain text: the fixtures hold
/// the lab's dummy key and nothing else.
#[test]
fn fixtures_hold_only_the_dummy_key() {
    for (scenario, _) in lab().ids() {
        let doc = document(scenario);
        assert_eq!(doc["info"]["config"]["model"]["model_kwargs"]["api_key"], "dummy", "{scenario}");
        let text = std::fs::read_to_string(lab().path(scenario)).unwrap();
        assert_eq!(text.matches("api_key").count(), 1, "{scenario}");
    }
}

/// The host declares every built-in's `info` (crates/registry/src/builtin-info.json, checked against the
/// components by the host's integration tests): this codec's entry says what `info` says.
#[test]
fn the_declared_info_is_current() {
    let declared: Value = serde_json::from_str(include_str!("../../../crates/registry/src/builtin-info.json")).unwrap();
    let info = MiniSweAgent::info();
    let entry = &declared["trajhost-codec-mini-swe-agent"];
    assert_eq!(entry["harness"], info.harness.as_str());
    assert_eq!(entry["codec_version"], info.codec_version.as_str());
    assert_eq!(entry["native_versions"], info.native_versions.as_str());
    assert_eq!(entry["native_version_source"], info.native_version_source.as_str());
    assert_eq!(entry["reads"], json!(info.reads));
    assert_eq!(entry["writes"], json!(info.writes));
    assert_eq!(entry["session_globs"], json!(info.session_globs));
    assert_eq!(entry["canonical_schema"], info.canonical_schema.as_str());
}
