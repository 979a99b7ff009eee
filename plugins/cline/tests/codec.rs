//! What is particular to Cline's sessions, against sessions written by the
//! real `cline` 3.0.65 CLI (fixtures/cline/3.0.65) and hand-written ones.
//! What every codec must do is the testkit's suite, in tests/conformance.rs.
//! Tests work on a copy of the fixture home, so the ones that write to the
//! index (a live WAL) never touch the fixture.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Value, json};
use trajhost_codec_cline::{Cline, KNOWN_BLOCKS};
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, Severity};
use trajhost_codec_testkit::suite::Lab;
use trajhost_codec_testkit::{self as kit, Spans, assistants, tool_calls, tool_results, users};

const INDEX: &str = ".cline/data/db/sessions.db";

/// The lab's sessions, as the conformance table names them.
fn lab() -> Lab<Cline> {
    Lab::new(include_str!("conformance.json"))
}

fn locator(id: &str) -> String {
    format!(".cline/data/sessions/{id}/{id}.messages.json")
}

fn raw(scenario: &str) -> Value {
    let id = lab().id(scenario);
    serde_json::from_slice(&std::fs::read(lab().home(scenario).join(locator(id))).unwrap()).unwrap()
}

fn manifest(scenario: &str) -> Value {
    let id = lab().id(scenario);
    serde_json::from_slice(
        &std::fs::read(lab().home(scenario).join(format!(".cline/data/sessions/{id}/{id}.json"))).unwrap(),
    )
    .unwrap()
}

// ---------------------------------------------------------------- info

// ---------------------------------------------------------------- discover

/// The suite checks discover against read and inspect; the start and the
/// title are the manifest's, the update after the start.
#[test]
fn discover_takes_start_and_title_from_the_manifest() {
    for (scenario, _) in lab().ids() {
        let s = kit::discover::<Cline>(&lab().home(scenario)).sessions.remove(0);
        let m = manifest(scenario);
        assert_eq!(s.started_at.as_deref(), m["started_at"].as_str());
        assert!(s.updated_at > s.started_at, "{scenario}: {:?}", s.updated_at);
        assert_eq!(s.title.as_deref(), m["metadata"]["title"].as_str());
    }
}

#[test]
fn discover_without_the_index_uses_the_manifests() {
    let home = lab().copy("simple");
    std::fs::remove_file(home.path().join(INDEX)).unwrap();
    let found = Cline::discover(&Dir::native(home.path())).unwrap();
    let s = &found.sessions[0];
    assert_eq!(s.native_id, lab().id("simple"));
    assert_eq!(s.native_version.as_deref(), Some("3.0.65"));
    assert_eq!(s.cwd.as_deref(), Some("/home/user/project"));
    assert_eq!(s.title.as_deref(), Some("Read hello.txt and tell me the secret word."));
    let d = found.diagnostics.iter().find(|d| d.code == "not-in-index").unwrap();
    assert_eq!((d.count, d.severity), (1, Severity::Info));
}

#[test]
fn discover_names_each_problem_file() {
    let home = lab().copy("simple");
    let sessions = home.path().join(".cline/data/sessions");
    std::fs::write(sessions.join("stray.json"), "{}").unwrap();
    std::fs::create_dir(sessions.join("no-messages")).unwrap();
    std::fs::create_dir(sessions.join("bad-manifest")).unwrap();
    std::fs::write(sessions.join("bad-manifest/bad-manifest.messages.json"), "[]").unwrap();
    std::fs::write(sessions.join("bad-manifest/bad-manifest.json"), "not json").unwrap();
    let found = kit::discover::<Cline>(home.path());
    assert_eq!(found.sessions.len(), 2, "{:?}", found.diagnostics);
    let at = |name: &str| format!(".cline/data/sessions/{name}");
    let expected = [
        ("unrecognized-file", at("stray.json")),
        ("no-messages-file", at("no-messages")),
        ("not-in-index", at("bad-manifest")),
        ("malformed-manifest", at("bad-manifest/bad-manifest.json")),
    ];
    kit::check_named_files(&found.diagnostics, &expected);
}

// ---------------------------------------------------------------- read

/// The system prompt is the document's; meta points at the messages file
/// with an empty span; message ids are Cline's.
#[test]
fn the_system_prompt_and_message_ids_are_the_documents() {
    for (scenario, id) in lab().ids() {
        let read = lab().read_copy(scenario);
        let src = read.records[0].src.as_ref().unwrap();
        assert_eq!((src.file.as_str(), src.len), (locator(id).as_str(), 0));
        let Body::System { text } = &read.records[1].body else { panic!("{scenario}: no system prompt") };
        assert_eq!(Some(text.as_str()), raw(scenario)["system_prompt"].as_str());
        assert!(read.diagnostics.is_empty(), "{scenario}: {:?}", read.diagnostics);
        for a in assistants(&read.records) {
            assert!(a.message_id.as_deref().unwrap().starts_with("msg_"), "{scenario}");
        }
    }
}

/// The suite checks the roles; these are their content blocks.
#[test]
fn fixture_blocks_are_all_known() {
    let blocks: BTreeSet<&str> = KNOWN_BLOCKS.iter().map(|(k, _)| *k).collect();
    let mut seen = BTreeSet::new();
    for (scenario, _) in lab().ids() {
        for m in raw(scenario)["messages"].as_array().unwrap() {
            for b in m["content"].as_array().unwrap() {
                let kind = b["type"].as_str().unwrap();
                assert!(blocks.contains(kind), "{scenario}: block {kind:?} is not in KNOWN_BLOCKS");
                seen.insert(kind.to_string());
            }
        }
        assert!(lab().read_copy(scenario).diag("unknown-content-block").is_none());
    }
    for kind in ["text", "tool_use", "tool_result"] {
        assert!(seen.contains(kind), "{kind}");
    }
}

#[test]
fn discovery_with_a_live_wal_sees_it_and_changes_nothing() {
    // The suite checks a read leaves the store byte-identical; here with a
    // live WAL beside the index.
    let home = lab().copy("simple");
    let wal = home.path().join(format!("{INDEX}-wal"));
    assert!(std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0) == 0);
    let writer = rusqlite::Connection::open(home.path().join(INDEX)).unwrap();
    writer.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    writer
        .execute("UPDATE sessions SET metadata_json = json_set(metadata_json, '$.title', 'Renamed — ✓')", [])
        .unwrap();
    assert!(std::fs::metadata(&wal).unwrap().len() > 0);
    let before = kit::tree_digest(home.path());
    let found = Cline::discover(&Dir::native(home.path())).unwrap();
    assert_eq!(found.sessions[0].title.as_deref(), Some("Renamed — ✓"));
    kit::assert_same_tree(&before, &kit::tree_digest(home.path()), "discovery with a live WAL");
    drop(writer);
}

#[test]
fn unknown_roles_and_blocks_are_reported_and_other_blocks_mapped() {
    let home = lab().copy("simple");
    let id = lab().id("simple");
    let path = home.path().join(locator(id));
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let messages = doc["messages"].as_array_mut().unwrap();
    messages.push(json!({"id": "m-x", "role": "narrator", "content": "x", "ts": 1796013300000u64}));
    messages.push(json!({"id": "m-y", "role": "user", "ts": 1796013300001u64, "content": [
        {"type": "text", "text": "see — ✓"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
        {"type": "file", "path": "/w/a.txt", "content": "file body"},
        {"type": "hologram"}]}));
    messages.push(json!({"id": "m-z", "role": "assistant", "ts": 1796013300002u64, "content": [
        {"type": "thinking", "thinking": "hmm", "signature": "sig"},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "ok"}]}));
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    let read = kit::read::<Cline>(home.path(), &locator(id));
    let unknown = read.diag("unknown-record-type").unwrap();
    assert_eq!((unknown.detail.as_str(), unknown.count, unknown.severity), ("narrator", 1, Severity::Warning));
    let block = read.diag("unknown-content-block").unwrap();
    assert_eq!((block.detail.as_str(), block.count), ("user/hologram", 1));
    let tail: Vec<&Record> = read.records.iter().rev().take(5).collect::<Vec<_>>().into_iter().rev().collect();
    let Body::User { text, attachments } = &tail[0].body else { panic!("{:?}", tail[0]) };
    assert_eq!((text.as_str(), attachments[0].media_type.as_deref()), ("see — ✓", Some("image/png")));
    assert_eq!(tail[1].body, Body::Observation { subtype: "file".into(), text: Some("/w/a.txt\nfile body".into()) });
    let Body::Reasoning(r) = &tail[2].body else { panic!() };
    assert_eq!((r.text.as_deref(), r.opaque.as_deref(), r.encrypted), (Some("hmm"), Some("sig"), false));
    let Body::Reasoning(r) = &tail[3].body else { panic!() };
    assert_eq!((r.text.as_deref(), r.opaque.as_deref(), r.encrypted), (None, Some("opaque"), true));
    let Body::Assistant(a) = &tail[4].body else { panic!() };
    assert_eq!((a.text.as_str(), a.usage.as_ref(), a.model.as_deref()), ("ok", None, None));
}

// ---------------------------------------------------------------- write and prepare

#[path = "codec/write.rs"]
mod write;

// ---------------------------------------------------------------- Cline's text results

/// fixtures/cline/cli-text-results (hand-written): a native `tool_use`
/// answered, as the extension's history does, by a text block
/// `[execute_command for '…'] Result:` (the command holds `]` and `\`).
#[test]
fn a_text_result_block_is_the_tool_result_of_its_call() {
    let home = kit::copy_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/cline/cli-text-results/home"));
    let locator = ".cline/data/sessions/1790000000000_txres/1790000000000_txres.messages.json";
    let found = kit::discover::<Cline>(home.path());
    assert_eq!(found.sessions.len(), 1, "{:?}", found.diagnostics);
    assert_eq!(found.sessions[0].locator, locator);
    let read = kit::conformance::<Cline>(home.path(), locator, Spans::Bytes);
    assert_eq!(users(&read.records), ["How many TODOs are left in src?"], "a result is no prompt");
    let calls = tool_calls(&read.records);
    assert_eq!(calls.len(), 1);
    assert_eq!((calls[0].0, calls[0].1), ("toolu_01CountTodos", "execute_command"));
    let results = tool_results(&read.records);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].0, "toolu_01CountTodos");
    assert!(
        results[0].1.starts_with("[execute_command for 'grep -rn") && results[0].1.ends_with("17 TODO-COUNT-SENTINEL")
    );
    assert_eq!(results[0].2, None, "the text records no outcome");
    // The context after it is an observation, not a prompt.
    assert_eq!(kit::observations_of(&read.records, "environment_details").len(), 1);
    let at = |kind: &str| read.records.iter().rposition(|r| r.body.kind() == kind).unwrap();
    assert!(at("tool_call") < at("tool_result") && at("tool_result") < at("assistant"));
    assert!(read.diag("result-without-call").is_none(), "{:?}", read.diagnostics);
}

/// The text protocol's XML tool uses are calls, and a text result without
/// any call left is still a result (named in an info diagnostic).
#[test]
fn xml_tool_uses_are_calls_and_text_results_answer_them() {
    let home = kit::copy_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/cline/cli-text-results/home"));
    let path = home.path().join(".cline/data/sessions/1790000000000_txres/1790000000000_txres.messages.json");
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    doc["messages"][1]["content"] =
        json!([{"type": "text", "text": "<read_file>\n<path>src/a.rs</path>\n</read_file>"}]);
    doc["messages"][2]["content"][0]["text"] = json!("[read_file for 'src/a.rs'] Result:\nfn main() {}");
    doc["messages"][3]["content"] = json!([
        {"type": "text", "text": "Done."},
    ]);
    doc["messages"].as_array_mut().unwrap().push(json!({"id": "u3", "role": "user", "content": [
        {"type": "text", "text": "[list_files for 'src'] Result:\na.rs"},
    ]}));
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    let read =
        kit::read::<Cline>(home.path(), ".cline/data/sessions/1790000000000_txres/1790000000000_txres.messages.json");
    let calls = tool_calls(&read.records);
    assert_eq!((calls.len(), calls[0].1), (1, "read_file"));
    assert_eq!(calls[0].2, &json!({"path": "src/a.rs"}));
    let results = tool_results(&read.records);
    assert_eq!(results[0].0, calls[0].0);
    assert_eq!(results.len(), 2);
    assert!(read.diag("result-without-call").is_some());
    assert_eq!(users(&read.records), ["How many TODOs are left in src?"]);
}
