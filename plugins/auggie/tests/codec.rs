//! What is particular to Auggie's store, beyond the conformance suite: the
//! session's times and title, node shapes the lab's sessions do not hold
//! (unknown node types, a result before any call, arguments that are no
//! JSON), broken documents, prepare's cwd rewrite and refusal, and the
//! declared info.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_auggie::Auggie;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, WriteOptions};
use trajhost_codec_testkit::suite::apply_files;
use trajhost_codec_testkit::{self as kit, Spans, tool_calls, tool_results, users};

const SIMPLE_ID: &str = "8e625d45-89bb-4bec-9a86-41c01c7cd1b2";
const CWD: &str = "/home/user/project";

fn simple() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/auggie/0.36.0/simple")
}

fn locator(id: &str) -> String {
    format!(".augment/sessions/{id}.json")
}

fn home_with(id: &str, doc: &Value) -> tempfile::TempDir {
    kit::home_with_document(&locator(id), doc)
}

#[test]
fn the_first_time_and_modified_are_the_sessions_times_and_the_first_prompt_its_title() {
    let found = kit::discover::<Auggie>(&simple());
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    assert_eq!(found.sessions.len(), 1, "task lists and .auggie.json are no sessions");
    let s = &found.sessions[0];
    assert_eq!(s.native_id, SIMPLE_ID);
    assert_eq!(s.cwd.as_deref(), Some(CWD));
    // `created` is 04:02:25.231Z, written once the first response node (04:02:25.230Z) had arrived.
    assert_eq!(s.started_at.as_deref(), Some("2026-12-07T04:02:25.230Z"));
    assert_eq!(s.updated_at.as_deref(), Some("2026-12-07T04:02:29.237Z"));
    assert_eq!(s.title.as_deref(), Some("Read hello.txt and tell me the secret word."));
    let read = kit::read::<Auggie>(&simple(), &locator(SIMPLE_ID));
    assert_eq!(read.meta().title, None, "the store keeps no title");
    assert_eq!(read.meta().native_version, None);
}

#[test]
fn broken_and_foreign_files_are_named_not_skipped() {
    let home = kit::copy_of(&simple());
    let dir = home.path().join(".augment/sessions");
    std::fs::write(dir.join("11111111-1111-4111-8111-111111111111.json"), "{\"sessionId\":\"x\",\"chatHistory\":[")
        .unwrap();
    std::fs::write(dir.join("22222222-2222-4222-8222-222222222222.json"), "").unwrap();
    std::fs::write(dir.join("33333333-3333-4333-8333-333333333333.json"), "{\"sessionId\":\"y\"}").unwrap();
    std::fs::write(dir.join("notes.txt"), "x").unwrap();
    let found = kit::discover::<Auggie>(home.path());
    assert_eq!(found.sessions.len(), 1, "{:?}", found.sessions);
    for name in [
        "11111111-1111-4111-8111-111111111111.json",
        "22222222-2222-4222-8222-222222222222.json",
        "33333333-3333-4333-8333-333333333333.json",
        "notes.txt",
    ] {
        assert!(
            found.diagnostics.iter().any(|d| d.file.as_deref() == Some(&format!(".augment/sessions/{name}"))),
            "{name}: {:?}",
            found.diagnostics
        );
    }
    let err = kit::try_read::<Auggie>(home.path(), &locator("11111111-1111-4111-8111-111111111111"), kit::one_batch())
        .unwrap_err();
    let err = format!("{err:?}");
    assert!(
        err.contains("11111111-1111-4111-8111-111111111111.json") && err.contains("not an Auggie session"),
        "{err}"
    );
    let err = kit::try_read::<Auggie>(home.path(), &locator("33333333-3333-4333-8333-333333333333"), kit::one_batch())
        .unwrap_err();
    assert!(format!("{err:?}").contains("chatHistory"), "{err:?}");
    assert!(kit::try_read::<Auggie>(home.path(), "../etc/passwd.json", kit::one_batch()).is_err());
}

#[test]
fn unknown_nodes_odd_arguments_and_a_damaged_exchange() {
    let id = "44444444-4444-4444-8444-444444444444";
    let doc = json!({
        "sessionId": id, "created": "2026-01-02T03:04:05.000Z", "modified": "2026-01-02T03:04:09.000Z",
        "chatHistory": [
            {"exchange": {"request_message": "look", "response_text": "", "request_id": "r1",
                "request_nodes": [{"id": 1, "type": 0, "text_node": {"content": "look"}},
                                  {"id": 2, "type": 4, "ide_state_node": {"workspace_folders": [{"folder_root": "/w"}]}},
                                  {"id": 3, "type": 2, "image_node": {}}],
                "response_nodes": [{"id": 1, "type": 5, "content": "", "tool_use": {"tool_use_id": "c1", "tool_name": "view", "input_json": "not json"}},
                                   {"id": 2, "type": 8, "content": ""}]}},
            {"exchange": "torn"},
            {"exchange": {"request_message": "", "response_text": "done", "request_id": "r2",
                "request_nodes": [{"id": 1, "type": 1, "tool_result_node": {"tool_use_id": "c1", "content": "no", "is_error": true}}],
                "response_nodes": [{"id": 0, "type": 0, "content": "done", "timestamp_ms": 1767323049000i64}]}}
        ],
        "agentState": {"modelId": "claude-x"}
    });
    let home = home_with(id, &doc);
    let read = kit::conformance::<Auggie>(home.path(), &locator(id), Spans::Bytes);
    assert_eq!(read.meta().cwd.as_deref(), Some("/w"));
    assert_eq!(kit::kinds(&read.records), ["meta", "user", "assistant", "tool_call", "tool_result", "assistant"]);
    assert_eq!(users(&read.records), ["look"]);
    assert_eq!(tool_calls(&read.records)[0].2, &json!("not json"), "arguments that are no JSON stay a string");
    assert_eq!(tool_results(&read.records), [("c1", "no", Some(false))]);
    assert!(read.diag_with("unknown-record-type", "request/2").is_some());
    assert!(read.diag_with("unknown-record-type", "response/8").is_some());
    assert!(read.diag("malformed-message").is_some(), "the torn exchange is named");
}

fn options(cwd: Option<&str>, home: Option<&Path>) -> WriteOptions {
    WriteOptions {
        cwd: cwd.map(str::to_string),
        native_id: None,
        home_path: home.map(|h| h.to_string_lossy().into_owned()),
    }
}

#[test]
fn prepare_files_a_new_session_beside_the_old_and_rewrites_the_cwd() {
    let read = kit::read::<Auggie>(&simple(), &locator(SIMPLE_ID));
    let written = trajhost_codec_sdk::write_document::<Auggie>(&read.document, options(None, None)).unwrap();
    assert_eq!(written.artifacts.len(), 1);
    assert_ne!(written.native_id, SIMPLE_ID, "a new id, so the source can stay beside it");
    let target = kit::copy_of(&simple());
    let plan = trajhost_codec_sdk::prepare_artifacts::<Auggie>(
        written.artifacts.clone(),
        &Dir::native(target.path()),
        options(Some("/srv/other"), Some(target.path())),
    )
    .unwrap();
    apply_files(&plan, &written, target.path());
    let found = kit::discover::<Auggie>(target.path());
    assert_eq!(found.sessions.len(), 2);
    let back = kit::read::<Auggie>(target.path(), &locator(&plan.native_id));
    assert_eq!(back.meta().cwd.as_deref(), Some("/srv/other"));
    assert_eq!(users(&back.records), users(&read.records));
    let old = std::fs::read(simple().join(locator(SIMPLE_ID))).unwrap();
    assert_eq!(std::fs::read(target.path().join(locator(SIMPLE_ID))).unwrap(), old, "the old session is untouched");
    assert_eq!(
        plan.resume_command.as_deref(),
        Some(format!("cd /srv/other && HOME={} auggie --resume {}", target.path().display(), plan.native_id).as_str())
    );
    let again = trajhost_codec_sdk::prepare_artifacts::<Auggie>(
        written.artifacts.clone(),
        &Dir::native(target.path()),
        options(None, None),
    );
    assert!(format!("{:?}", again.unwrap_err()).contains("never overwritten"));
}

#[test]
fn an_unanswered_call_gets_an_error_result_and_a_promptless_session_is_refused() {
    let id = "55555555-5555-4555-8555-555555555555";
    let doc = json!({
        "sessionId": id, "created": "2026-01-02T03:04:05.000Z",
        "chatHistory": [
            {"exchange": {"request_message": "go", "request_id": "r1",
                "request_nodes": [{"id": 1, "type": 0, "text_node": {"content": "go"}},
                                  {"id": 2, "type": 4, "ide_state_node": {"workspace_folders": [{"folder_root": "/w"}]}}],
                "response_nodes": [{"id": 1, "type": 5, "tool_use": {"tool_use_id": "c1", "tool_name": "view", "input_json": "{}"}}]}},
            {"exchange": {"request_message": "never mind", "request_id": "r2",
                "request_nodes": [{"id": 1, "type": 0, "text_node": {"content": "never mind"}}],
                "response_nodes": [{"id": 0, "type": 0, "content": "ok"}]}}
        ]
    });
    let home = home_with(id, &doc);
    let read = kit::read::<Auggie>(home.path(), &locator(id));
    let written = trajhost_codec_sdk::write_document::<Auggie>(&read.document, options(None, None)).unwrap();
    assert!(kit::diag_with(&written.diagnostics, "placeholder", "tool_result_node (no result)").is_some());
    let out: Value = serde_json::from_slice(&written.artifacts[0].bytes).unwrap();
    let result = &out["chatHistory"][1]["exchange"]["request_nodes"];
    assert!(
        result
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["tool_result_node"]["tool_use_id"] == "c1" && n["tool_result_node"]["is_error"] == true),
        "{result}"
    );

    let empty = json!({"sessionId": id, "chatHistory": [
        {"exchange": {"request_message": "", "request_nodes": [], "response_nodes": [{"id": 0, "type": 0, "content": "hi"}]}}]});
    let bytes = serde_json::to_vec_pretty(&empty).unwrap();
    let artifact = trajhost_codec_sdk::Artifact { path: locator(id), bytes };
    let target = tempfile::tempdir().unwrap();
    let err = trajhost_codec_sdk::prepare_artifacts::<Auggie>(
        vec![artifact],
        &Dir::native(target.path()),
        options(Some("/w"), None),
    )
    .unwrap_err();
    assert!(format!("{err:?}").contains("nothing to resume"), "{err:?}");
}

/// The host declares every built-in's `info` (crates/registry/src/builtin-info.json, checked against the
/// components by the host's integration tests): this codec's entry says what `info` says.
#[test]
fn the_declared_info_is_current() {
    let declared: Value = serde_json::from_str(include_str!("../../../crates/registry/src/builtin-info.json")).unwrap();
    let info = Auggie::info();
    let expected = json!({
        "harness": info.harness, "codec_version": info.codec_version, "native_versions": info.native_versions,
        "native_version_source": info.native_version_source, "reads": info.reads, "writes": info.writes,
        "session_globs": info.session_globs, "canonical_schema": info.canonical_schema,
    });
    assert_eq!(declared["trajhost-codec-auggie"], expected);
}

#[test]
fn a_chosen_model_goes_into_the_command_and_a_provider_is_refused() {
    use trajhost_codec_sdk::target::{self, TargetChoice};
    let read = kit::read::<Auggie>(&simple(), &locator(SIMPLE_ID));
    let written = trajhost_codec_sdk::write_document::<Auggie>(&read.document, options(None, None)).unwrap();
    let target_home = tempfile::tempdir().unwrap();
    target::set_for_tests(TargetChoice { model: Some("opus-x".into()), provider: None, allow_untested: false });
    let plan = trajhost_codec_sdk::prepare_artifacts::<Auggie>(
        written.artifacts.clone(),
        &Dir::native(target_home.path()),
        options(None, None),
    )
    .unwrap();
    assert_eq!(
        plan.resume_command.as_deref(),
        Some(format!("cd {CWD} && auggie -m opus-x --resume {}", plan.native_id).as_str())
    );
    target::set_for_tests(TargetChoice { model: None, provider: Some("openai".into()), allow_untested: false });
    let err = trajhost_codec_sdk::prepare_artifacts::<Auggie>(
        written.artifacts.clone(),
        &Dir::native(target_home.path()),
        options(None, None),
    )
    .unwrap_err();
    assert!(format!("{err:?}").contains("leave --provider out"), "{err:?}");
    target::set_for_tests(TargetChoice::default());
}
