//! The Cline codec against sessions written by the real `cline` 3.0.65 CLI
//! (fixtures/cline/3.0.65), run natively through `Dir::native`. Tests work
//! on a copy of the fixture home, so the ones that write to the index (a
//! live WAL) never touch the fixture.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_cline::{Cline, KNOWN_BLOCKS, KNOWN_ROLES};
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, Severity};
use trajhost_codec_testkit::{self as kit, Read, Spans, assistants, kinds, tool_calls, tool_results, users};

const INDEX: &str = ".cline/data/db/sessions.db";

fn fixtures() -> PathBuf {
    kit::fixtures("cline", "3.0.65")
}

/// (scenario, session id)
const SCENARIOS: [(&str, &str); 5] = [
    ("simple", "1796013198212_v0vps"),
    ("parallel", "1796013270160_h85j3"),
    ("failing-tool", "1796013293504_l2zmx"),
    ("multibyte", "1796013310188_jri6j"),
    ("long-output", "1796013324910_8wbb8"),
];

fn locator(id: &str) -> String {
    format!(".cline/data/sessions/{id}/{id}.messages.json")
}

fn id_of(scenario: &str) -> &'static str {
    SCENARIOS.iter().find(|(s, _)| *s == scenario).unwrap().1
}

/// A private copy of a fixture home.
fn home(scenario: &str) -> tempfile::TempDir {
    kit::copy_of(&fixtures().join(scenario))
}

fn read(home: &Path, locator: &str) -> Read {
    kit::read::<Cline>(home, locator)
}

fn read_scenario(scenario: &str) -> Read {
    let home = home(scenario);
    read(home.path(), &locator(id_of(scenario)))
}

fn raw(scenario: &str) -> Value {
    let id = id_of(scenario);
    serde_json::from_slice(&std::fs::read(fixtures().join(scenario).join(locator(id))).unwrap()).unwrap()
}

fn manifest(scenario: &str) -> Value {
    let id = id_of(scenario);
    serde_json::from_slice(
        &std::fs::read(fixtures().join(scenario).join(format!(".cline/data/sessions/{id}/{id}.json"))).unwrap(),
    )
    .unwrap()
}

// ---------------------------------------------------------------- info

#[test]
fn info_describes_the_codec() {
    let info = Cline::info();
    assert_eq!(info.harness, "cline");
    assert_eq!(info.codec_version, env!("CARGO_PKG_VERSION"));
    assert_eq!(info.native_versions, ">=3.0.0, <4.0.0");
    assert!(info.native_version_source.contains("sessionHistoryOrigin"));
    assert_eq!(info.writes, vec!["cline-session-json".to_string()]);
    assert_eq!(info.session_globs, vec![".cline/data/sessions/*/*.messages.json".to_string()]);
    assert_eq!(info.canonical_schema, trajhost_codec_sdk::canonical::SCHEMA);
}

// ---------------------------------------------------------------- discover

#[test]
fn discover_finds_each_fixture_session() {
    for (scenario, id) in SCENARIOS {
        let home = home(scenario);
        let found = Cline::discover(&Dir::native(home.path())).unwrap();
        assert!(found.diagnostics.is_empty(), "{scenario}: {:?}", found.diagnostics);
        assert_eq!(found.sessions.len(), 1, "{scenario}");
        let s = &found.sessions[0];
        let m = manifest(scenario);
        assert_eq!(s.native_id, id);
        assert_eq!(s.locator, locator(id));
        assert_eq!(s.cwd.as_deref(), Some("/home/user/project"));
        assert_eq!(s.native_version.as_deref(), Some("3.0.65"));
        assert_eq!(s.started_at.as_deref(), m["started_at"].as_str());
        assert!(s.updated_at > s.started_at, "{scenario}: {:?}", s.updated_at);
        assert_eq!(s.title.as_deref(), m["metadata"]["title"].as_str());
        let dir = home.path().join(format!(".cline/data/sessions/{id}"));
        let size: u64 = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum();
        assert_eq!(s.size, size);

        let one = Cline::inspect(&Dir::native(home.path()), &s.locator).unwrap();
        assert_eq!(
            (&one.native_id, &one.started_at, &one.updated_at, one.size, &one.title),
            (&s.native_id, &s.started_at, &s.updated_at, s.size, &s.title)
        );
    }
}

#[test]
fn discover_without_the_index_uses_the_manifests() {
    let home = home("simple");
    std::fs::remove_file(home.path().join(INDEX)).unwrap();
    let found = Cline::discover(&Dir::native(home.path())).unwrap();
    let s = &found.sessions[0];
    assert_eq!(s.native_id, id_of("simple"));
    assert_eq!(s.native_version.as_deref(), Some("3.0.65"));
    assert_eq!(s.cwd.as_deref(), Some("/home/user/project"));
    assert_eq!(s.title.as_deref(), Some("Read hello.txt and tell me the secret word."));
    let d = found.diagnostics.iter().find(|d| d.code == "not-in-index").unwrap();
    assert_eq!((d.count, d.severity), (1, Severity::Info));
}

#[test]
fn discover_names_each_problem_file() {
    let home = home("simple");
    let sessions = home.path().join(".cline/data/sessions");
    std::fs::write(sessions.join("stray.json"), "{}").unwrap();
    std::fs::create_dir(sessions.join("no-messages")).unwrap();
    std::fs::create_dir(sessions.join("bad-manifest")).unwrap();
    std::fs::write(sessions.join("bad-manifest/bad-manifest.messages.json"), "[]").unwrap();
    std::fs::write(sessions.join("bad-manifest/bad-manifest.json"), "not json").unwrap();
    let found = kit::discover::<Cline>(home.path());
    assert_eq!(found.sessions.len(), 2, "{:?}", found.diagnostics);
    let named: BTreeSet<(&str, &str)> =
        found.diagnostics.iter().map(|d| (d.code.as_str(), d.file.as_deref().expect("names its file"))).collect();
    let at = |name: &str| format!(".cline/data/sessions/{name}");
    let expected = [
        ("unrecognized-file", at("stray.json")),
        ("no-messages-file", at("no-messages")),
        ("not-in-index", at("bad-manifest")),
        ("malformed-manifest", at("bad-manifest/bad-manifest.json")),
    ];
    let expected: BTreeSet<(&str, &str)> = expected.iter().map(|(c, f)| (*c, f.as_str())).collect();
    assert_eq!(named, expected);
}

#[test]
fn every_fixture_session_passes_the_testkit_checks() {
    for (scenario, id) in SCENARIOS {
        let home = home(scenario);
        kit::conformance::<Cline>(home.path(), &locator(id), Spans::Bytes);
    }
}

#[test]
fn discover_of_a_home_without_cline_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let found = Cline::discover(&Dir::native(dir.path())).unwrap();
    assert!(found.sessions.is_empty() && found.diagnostics.is_empty());
}

// ---------------------------------------------------------------- read

#[test]
fn read_starts_with_meta_and_the_system_prompt() {
    for (scenario, id) in SCENARIOS {
        let read = read_scenario(scenario);
        let Body::Meta(meta) = &read.records[0].body else { panic!("{scenario}: first record is not meta") };
        assert_eq!(meta.harness, "cline");
        assert_eq!(meta.native_id, id);
        assert_eq!(meta.native_version.as_deref(), Some("3.0.65"));
        assert_eq!(meta.cwd.as_deref(), Some("/home/user/project"));
        assert_eq!(meta.codec.as_deref(), Some(concat!("cline@", env!("CARGO_PKG_VERSION"))));
        let Body::System { text } = &read.records[1].body else { panic!("{scenario}: no system prompt") };
        assert_eq!(Some(text.as_str()), raw(scenario)["system_prompt"].as_str());
        assert!(read.diagnostics.is_empty(), "{scenario}: {:?}", read.diagnostics);
    }
}

#[test]
fn simple_session_has_prompt_call_result_and_answer() {
    let read = read_scenario("simple");
    assert_eq!(
        kinds(&read.records),
        ["meta", "system", "user", "assistant", "tool_call", "tool_result", "assistant", "user", "assistant"]
    );
    assert_eq!(
        users(&read.records),
        ["Read hello.txt and tell me the secret word.", "What was the secret word again? [notool]"]
    );
    let calls = tool_calls(&read.records);
    assert_eq!(calls, [("call_lab_f2487033ec294424", "run_commands", &json!({"commands": ["cat hello.txt"]}))]);
    let results = tool_results(&read.records);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].0, "call_lab_f2487033ec294424");
    // The stored structured result, as stored (what the model was sent).
    assert_eq!(
        results[0].1,
        r#"[{"query":"cat hello.txt","result":"Hello from the lab workspace. The secret word is PAPAYA-42.\n","success":true}]"#
    );
    assert_eq!(results[0].2, Some(true), "from the operation's success flag");
    let result = read.records.iter().find(|r| r.body.kind() == "tool_result").unwrap();
    assert_eq!(result.parent.as_deref(), Some("call_lab_f2487033ec294424"));

    let answers = assistants(&read.records);
    assert_eq!(answers.len(), 3);
    assert_eq!(answers[0].text, "");
    assert!(answers[1].text.starts_with("FINAL ANSWER: the tool returned:") && answers[1].text.contains("PAPAYA-42"));
    assert!(answers[2].text.starts_with("NOTOOL ANSWER:"));
    // Models as Cline recorded them (the ACP resume recorded its default).
    let models: Vec<Option<&str>> = answers.iter().map(|a| a.model.as_deref()).collect();
    assert_eq!(models, [Some("fake-model"), Some("fake-model"), Some("gpt-4o")]);
    for a in &answers {
        let u = a.usage.as_ref().unwrap();
        assert_eq!(
            (u.input, u.output, u.cache_read, u.cache_write, u.cost_usd),
            (Some(100), Some(20), Some(0), Some(0), None)
        );
        assert!(a.message_id.as_deref().unwrap().starts_with("msg_"));
    }
    let ts: Vec<&str> = read.records[2..].iter().map(|r| r.ts.as_deref().unwrap()).collect();
    assert!(ts.windows(2).all(|w| w[0] <= w[1]), "{ts:?}");
}

#[test]
fn parallel_calls_are_both_kept_with_their_results() {
    let read = read_scenario("parallel");
    let calls = tool_calls(&read.records);
    assert_eq!(calls.len(), 2);
    assert_eq!((calls[0].1, calls[0].2), ("run_commands", &json!({"commands": ["cat hello.txt"]})));
    assert_eq!(
        (calls[1].1, calls[1].2),
        ("read_files", &json!({"files": [{"path": "/home/user/project/second.txt"}]}))
    );
    let results = tool_results(&read.records);
    assert_eq!(results.len(), 2);
    assert_eq!((results[0].0, results[1].0), (calls[0].0, calls[1].0));
    assert!(results[0].1.contains("PAPAYA-42") && results[1].1.contains("KIWI-58"));
    let answer = &assistants(&read.records).last().unwrap().text;
    assert!(answer.starts_with("FINAL ANSWER") && answer.contains("PAPAYA-42") && answer.contains("KIWI-58"));
}

#[test]
fn failing_tool_result_is_not_ok() {
    let read = read_scenario("failing-tool");
    let results = tool_results(&read.records);
    assert_eq!(results.len(), 1);
    assert!(results[0].1.contains("No such file or directory") && results[0].1.contains("\"success\":false"));
    assert_eq!(results[0].2, Some(false));
    assert_eq!(tool_calls(&read.records)[0].2, &json!({"commands": ["cat missing.txt; exit 3"]}));
    assert!(assistants(&read.records).last().unwrap().text.starts_with("FINAL ANSWER"));
}

#[test]
fn multibyte_text_is_intact() {
    let read = read_scenario("multibyte");
    assert_eq!(
        users(&read.records)[0],
        "Lies bitte unicode.txt — 読んでください 🍍, and tell me the sentinel (café with a combining acute: cafe\u{301})."
    );
    let results = tool_results(&read.records);
    for needle in [
        "日本語のテキスト",
        "👩\u{200d}💻",
        "🏳️\u{200d}🌈",
        "CHERRY-本-91 ✓",
        "e\u{301} a\u{308} n\u{303} o\u{302}\u{323}",
    ] {
        assert!(results[0].1.contains(needle), "{needle}");
        assert!(assistants(&read.records).last().unwrap().text.contains(needle), "{needle}");
    }
}

#[test]
fn long_output_is_read_in_full() {
    let read = read_scenario("long-output");
    let stored = &raw("long-output")["messages"][2]["content"][0]["content"][0]["result"];
    let results = tool_results(&read.records);
    let parsed: Value = serde_json::from_str(results[0].1).unwrap();
    assert_eq!(&parsed[0]["result"], stored);
    assert!(stored.as_str().unwrap().starts_with("LONG-OUTPUT-BEGIN LEMON-512"));
    assert!(stored.as_str().unwrap().ends_with("LONG-OUTPUT-END LIME-1024\n"));
    assert!(stored.as_str().unwrap().len() > 45_000);
}

#[test]
fn ids_are_stable_unique_native_and_spans_slice_messages() {
    for (scenario, id) in SCENARIOS {
        let home = home(scenario);
        let a = read(home.path(), &locator(id));
        let b = read(home.path(), &locator(id));
        assert_eq!(a.records, b.records, "{scenario}");
        let ids: Vec<&str> = a.records.iter().map(|r| r.id.as_str()).collect();
        let unique: BTreeSet<&str> = ids.iter().copied().collect();
        assert_eq!(unique.len(), ids.len(), "{scenario}: {ids:?}");
        let bytes = std::fs::read(home.path().join(locator(id))).unwrap();
        for r in &a.records {
            let src = r.src.as_ref().unwrap();
            assert_eq!(src.file, locator(id));
            let span = &bytes[src.offset as usize..(src.offset + src.len) as usize];
            match &r.body {
                Body::Meta(_) => assert_eq!((r.id.as_str(), src.len), (id, 0)),
                Body::System { text } => assert_eq!(&serde_json::from_slice::<String>(span).unwrap(), text),
                body => {
                    let message: Value = serde_json::from_slice(span).unwrap();
                    match body {
                        Body::ToolCall { call_id, .. } => {
                            assert_eq!(&r.id, call_id);
                            assert!(message["content"].as_array().unwrap().iter().any(|b| b["id"] == call_id.as_str()));
                        }
                        _ => assert_eq!(r.id.split('#').next(), message["id"].as_str()),
                    }
                }
            }
        }
    }
}

#[test]
fn fixture_roles_and_blocks_are_all_known() {
    let roles: BTreeSet<&str> = KNOWN_ROLES.iter().map(|(k, _)| *k).collect();
    let blocks: BTreeSet<&str> = KNOWN_BLOCKS.iter().map(|(k, _)| *k).collect();
    let mut seen = BTreeSet::new();
    for (scenario, _) in SCENARIOS {
        for m in raw(scenario)["messages"].as_array().unwrap() {
            let role = m["role"].as_str().unwrap();
            assert!(roles.contains(role), "{scenario}: role {role:?} is not in KNOWN_ROLES");
            for b in m["content"].as_array().unwrap() {
                let kind = b["type"].as_str().unwrap();
                assert!(blocks.contains(kind), "{scenario}: block {kind:?} is not in KNOWN_BLOCKS");
                seen.insert(kind.to_string());
            }
        }
        let read = read_scenario(scenario);
        assert!(read.diag("unknown-record-type").is_none() && read.diag("unknown-content-block").is_none());
    }
    for kind in ["text", "tool_use", "tool_result"] {
        assert!(seen.contains(kind), "{kind}");
    }
}

#[test]
fn reading_leaves_the_index_and_the_files_byte_identical() {
    let home = home("simple");
    let id = id_of("simple");
    // Every file of the home (index, its `-wal`/`-shm`, the session files)
    // byte-identical; none added.
    kit::check_store_untouched::<Cline>(home.path(), &locator(id));
    let wal = home.path().join(format!("{INDEX}-wal"));
    assert!(std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0) == 0);

    // With a live WAL beside the index: read, and nothing changes.
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
    let home = home("simple");
    let id = id_of("simple");
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
    let read = read(home.path(), &locator(id));
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
    let read = read(home.path(), ".cline/data/sessions/1790000000000_txres/1790000000000_txres.messages.json");
    let calls = tool_calls(&read.records);
    assert_eq!((calls.len(), calls[0].1), (1, "read_file"));
    assert_eq!(calls[0].2, &json!({"path": "src/a.rs"}));
    let results = tool_results(&read.records);
    assert_eq!(results[0].0, calls[0].0);
    assert_eq!(results.len(), 2);
    assert!(read.diag("result-without-call").is_some());
    assert_eq!(users(&read.records), ["How many TODOs are left in src?"]);
}
