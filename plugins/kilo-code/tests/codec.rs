//! What is Kilo Code's own in a codec whose modules are OpenCode's: the
//! harness, paths and versions it reads and writes, the resume command, and
//! the content that tells its store and documents from OpenCode's (both
//! codecs see a loose file; only one may claim it). How messages and parts
//! are read is OpenCode's, tested in plugins/opencode.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_kilo_code::{CODEC, KiloCode, layout::DB};
use trajhost_codec_opencode::OpenCode;
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::Operation;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, WriteOptions};
use trajhost_codec_testkit::{self as kit, document, users};

const CWD: &str = "/home/user/project";
const SIMPLE: &str = "ses_db21a62bbffej57hAZOh0itQTN";

fn fixture(harness: &str, version: &str, scenario: &str) -> PathBuf {
    kit::fixtures(harness, version).join(scenario)
}

fn head(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    bytes[..bytes.len().min(64 << 10)].to_vec()
}

#[test]
fn meta_names_kilo_code_and_the_kilo_version() {
    let home = kit::copy_of(&fixture("kilo-code", "7.7.7", "simple"));
    let read = kit::read::<KiloCode>(home.path(), &format!("{DB}#{SIMPLE}"));
    let meta = read.meta();
    assert_eq!((meta.harness.as_str(), meta.codec.as_deref()), ("kilo-code", Some(CODEC)));
    assert_eq!(meta.native_version.as_deref(), Some("7.7.7"));
    assert_eq!(users(&read.records)[0], "Read hello.txt and tell me the secret word.");
}

#[test]
fn each_codec_finds_only_its_own_store() {
    // Copies: opening a store in WAL mode checkpoints it on close.
    let kilo = kit::copy_of(&fixture("kilo-code", "7.7.7", "simple"));
    let opencode = kit::copy_of(&fixture("opencode", "1.18.33", "simple"));
    assert!(kit::discover::<KiloCode>(opencode.path()).sessions.is_empty());
    assert!(kit::discover::<OpenCode>(kilo.path()).sessions.is_empty());
    assert_eq!(kit::discover::<KiloCode>(kilo.path()).sessions.len(), 1);
}

#[test]
fn sniff_tells_a_kilo_store_and_document_from_opencode_ones() {
    let kilo = head(&fixture("kilo-code", "7.7.7", "simple").join(".local/share/kilo/kilo.db"));
    let opencode = head(&fixture("opencode", "1.18.33", "simple").join(".local/share/opencode/opencode.db"));
    // `kilo_board` is Kilo's: its store is Kilo's alone, and a store without it OpenCode's.
    assert!(KiloCode::sniff("kilo.db", &kilo).is_some());
    assert!(OpenCode::sniff("kilo.db", &kilo).is_none());
    assert!(OpenCode::sniff("opencode.db", &opencode).is_some());
    assert!(KiloCode::sniff("opencode.db", &opencode).is_none());
    // An export document (the same JSON for both): by the version it names.
    let doc = |version: &str| {
        serde_json::to_vec(&json!({"info": {"id": "ses_abc", "version": version}, "messages": []})).unwrap()
    };
    let sniffed = KiloCode::sniff("export.json", &doc("7.7.7")).unwrap();
    assert_eq!((sniffed.native_version.as_deref(), sniffed.native_id.as_deref()), (Some("7.7.7"), Some("ses_abc")));
    assert!(OpenCode::sniff("export.json", &doc("7.7.7")).is_none());
    assert!(KiloCode::sniff("export.json", &doc("1.18.33")).is_none());
    assert!(OpenCode::sniff("export.json", &doc("1.18.33")).is_some());
    let unversioned = serde_json::to_vec(&json!({"info": {"id": "ses_abc"}, "messages": []})).unwrap();
    assert!(KiloCode::sniff("export.json", &unversioned).is_none());
}

#[test]
fn a_written_session_is_an_import_document_kilo_loads() {
    // An OpenCode session: another harness, so the document claims Kilo's version.
    let source = kit::copy_of(&fixture("opencode", "1.18.33", "simple"));
    let found = kit::discover::<OpenCode>(source.path());
    let read = kit::read::<OpenCode>(source.path(), &found.sessions[0].locator);
    let options = || WriteOptions { cwd: Some(CWD.into()), native_id: None, home_path: None };
    let written = trajhost_codec_sdk::write_document::<KiloCode>(&document(&read.records), options()).unwrap();
    assert_eq!(written.artifacts[0].path, format!(".local/share/trajhost/kilo-import/{}.json", written.native_id));
    let doc: Value = serde_json::from_slice(&written.artifacts[0].bytes).unwrap();
    assert_eq!(doc["info"]["version"], "7.7.7");
    for message in doc["messages"].as_array().unwrap() {
        assert_eq!(message["info"]["agent"], "code", "Kilo's default agent");
    }
    // A fresh home: no default model, so the command asks for one.
    let fresh = tempfile::tempdir().unwrap();
    let home_path = fresh.path().display().to_string();
    let options = WriteOptions { home_path: Some(home_path.clone()), ..options() };
    let plan = trajhost_codec_sdk::prepare_artifacts::<KiloCode>(
        written.artifacts.clone(),
        &Dir::native(fresh.path()),
        options.clone(),
    )
    .unwrap();
    let Operation::CreateFile(file) = &plan.operations[0] else { panic!() };
    assert_eq!(
        plan.resume_command.as_deref().unwrap(),
        format!(
            "cd {CWD} && kilo import {home_path}/{} && kilo --session {} -m '<provider>/<model>'",
            file.path, written.native_id
        )
    );
    // A Kilo home with a default model in ~/.config/kilo/kilo.json: user messages take it.
    let target = kit::copy_of(&fixture("kilo-code", "7.7.7", "simple"));
    let plan = trajhost_codec_sdk::prepare_artifacts::<KiloCode>(
        written.artifacts.clone(),
        &Dir::native(target.path()),
        options.clone(),
    )
    .unwrap();
    assert!(plan.resume_command.as_deref().unwrap().ends_with(&format!("kilo --session {}", written.native_id)));
    let Operation::CreateFile(file) = &plan.operations[0] else { panic!() };
    let doc: Value = serde_json::from_slice(&file.bytes).unwrap();
    for m in doc["messages"].as_array().unwrap().iter().filter(|m| m["info"]["role"] == "user") {
        assert_eq!(m["info"]["model"], json!({"providerID": "fake", "modelID": "fake-model"}));
    }
    // Kilo's own session written back keeps its version.
    let kilo = kit::read::<KiloCode>(target.path(), &format!("{DB}#{SIMPLE}"));
    let again = trajhost_codec_sdk::write_document::<KiloCode>(&document(&kilo.records), options).unwrap();
    let doc: Value = serde_json::from_slice(&again.artifacts[0].bytes).unwrap();
    assert_eq!(doc["info"]["version"], "7.7.7");
}

/// The host declares every built-in's `info` (crates/registry/src/builtin-info.json, checked against the
/// components by the host's integration tests): this codec's entry says what `info` says.
#[test]
fn the_declared_info_is_current() {
    let declared: Value = serde_json::from_str(include_str!("../../../crates/registry/src/builtin-info.json")).unwrap();
    let info = KiloCode::info();
    let expected = json!({
        "harness": info.harness, "codec_version": info.codec_version, "native_versions": info.native_versions,
        "native_version_source": info.native_version_source, "reads": info.reads, "writes": info.writes,
        "session_globs": info.session_globs, "canonical_schema": info.canonical_schema,
    });
    assert_eq!(declared["trajhost-codec-kilo-code"], expected);
}
