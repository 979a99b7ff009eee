//! The Oh My Pi codec against sessions written by the real Oh My Pi CLI
//! (fixtures/oh-my-pi/18.2.3), run natively through `Dir::native`. The
//! reading and writing rules are Pi's (`trajhost-pi-core`, tested with the
//! Pi codec); these tests cover what Oh My Pi adds: the title slot, its
//! folder rule, its entry types and `model_change` shape.

use std::collections::BTreeSet;

use serde_json::{Value, json};
use trajhost_codec_omp::core::testkit::check_chain;
use trajhost_codec_omp::{KNOWN_MESSAGE_ROLES, Omp};
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::Operation;
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, Severity, WriteOptions};
use trajhost_codec_testkit::suite::Lab;
use trajhost_codec_testkit::{self as kit, copy_dir, document, kinds, raw_lines, read};

const DIR: &str = ".omp/agent/sessions/-project";
const CWD: &str = "/home/user/project";

/// The lab's sessions, as the conformance table names them.
fn lab() -> Lab<Omp> {
    Lab::new(include_str!("conformance.json"))
}

/// The header follows the title slot; `custom` entries (extension state)
/// are counted, not emitted.
#[test]
fn the_title_slot_comes_first_and_custom_entries_are_counted() {
    for (scenario, _) in lab().ids() {
        let read = lab().read(scenario);
        assert_eq!(read.records[0].src.as_ref().unwrap().offset, 256, "the header follows the title slot");
        let unmapped: Vec<&str> =
            read.diagnostics.iter().filter(|d| d.code == "unmapped-record-type").map(|d| d.detail.as_str()).collect();
        assert!(
            unmapped.contains(&"custom/tool_execution_start") && unmapped.contains(&"custom/session_exit"),
            "{unmapped:?}"
        );
        assert!(
            read.diagnostics.iter().all(|d| d.code == "unmapped-record-type" || d.code == "tool-output-truncated"),
            "{:?}",
            read.diagnostics
        );
    }
}

#[test]
fn setting_changes_are_observations_and_a_result_skips_the_execution_entry() {
    let read = lab().read("simple");
    let Body::Observation { subtype, text } = &read.records[1].body else { panic!() };
    assert_eq!((subtype.as_str(), text.as_deref()), ("model_change", Some("fake/fake-model")));
    let Body::Observation { subtype, text } = &read.records[2].body else { panic!() };
    assert_eq!((subtype.as_str(), text.as_deref()), ("thinking_level_change", None));
    // The result's parent skips the tool_execution_start entry.
    assert_eq!(read.records[6].parent.as_deref(), Some("b0e7c127"));
    let counted = read.diagnostics.iter().find(|d| d.detail == "custom/session_exit").unwrap();
    assert_eq!(counted.count, 2);
    // The long result is what the model saw (head and tail); the full
    // output is in the artifacts folder, and the cut is said.
    let long = lab().read("long-output");
    let cut = long.diagnostics.iter().find(|d| d.code == "tool-output-truncated").unwrap();
    assert_eq!((cut.detail.as_str(), cut.severity), ("tool/bash", Severity::Info));
}

/// The suite checks the entry types; here, the message roles.
#[test]
fn fixture_message_roles_are_all_known() {
    let roles: BTreeSet<&str> = KNOWN_MESSAGE_ROLES.iter().map(|(k, _)| *k).collect();
    for (scenario, _) in lab().ids() {
        for line in raw_lines(&lab().path(scenario)) {
            if line["type"] == "message" {
                let role = line["message"]["role"].as_str().unwrap();
                assert!(roles.contains(role), "{scenario}: role {role:?} was never seen");
            }
        }
    }
}

#[test]
fn oh_my_pi_entry_types_map_to_records() {
    let dir = tempfile::tempdir().unwrap();
    let locator = format!("{DIR}/2026-11-30T04-13-30-512Z_01a22aa8-0000-7000-8000-000000000001.jsonl");
    let path = dir.path().join(&locator);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let e = |kind: &str, id: &str, parent: Option<&str>, fields: Value| {
        let mut v = json!({"type": kind, "id": id, "parentId": parent, "timestamp": "2026-11-30T04:13:31.000Z"});
        for (k, val) in fields.as_object().unwrap() {
            v[k] = val.clone();
        }
        v.to_string()
    };
    let mut text = trajhost_codec_omp::core::write::title_slot("My title", "2026-11-30T04:13:30.512Z");
    text.push('\n');
    assert_eq!(text.len(), 256);
    text.push_str(&json!({"type":"session","version":3,"id":"01a22aa8-0000-7000-8000-000000000001","timestamp":"2026-11-30T04:13:30.512Z","cwd":CWD}).to_string());
    text.push('\n');
    for line in [
        e("session_init", "a0000001", None, json!({"systemPrompt": "SYSTEM", "task": "t", "tools": []})),
        e("mode_change", "a0000002", Some("a0000001"), json!({"mode": "plan"})),
        e("model_usage", "a0000003", Some("a0000002"), json!({"purpose": "title"})),
        e("reset_boundary", "a0000004", Some("a0000003"), json!({})),
        e("message", "a0000005", Some("a0000004"), json!({"message": {"role": "developer", "content": "DEV"}})),
        e("title_change", "a0000006", Some("a0000005"), json!({"title": "T2", "source": "user"})),
        e("credential_pin", "a0000007", Some("a0000006"), json!({"provider": "x", "hash": "h"})),
    ] {
        text.push_str(&line);
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();
    let read = read::<Omp>(dir.path(), &locator);
    let Body::Meta(meta) = &read.records[0].body else { panic!() };
    assert_eq!(meta.title.as_deref(), Some("My title"));
    assert_eq!(kinds(&read.records), ["meta", "system", "observation", "compaction", "system", "observation"]);
    let reported: BTreeSet<&str> = read.diagnostics.iter().map(|d| d.detail.as_str()).collect();
    assert_eq!(reported, BTreeSet::from(["model_usage", "credential_pin"]));
    assert!(read.diagnostics.iter().all(|d| d.code == "unmapped-record-type" && d.severity == Severity::Info));
}

/// The suite round-trips the records; a written session has Oh My Pi's
/// title slot, folder, model change, attribution and provider.
#[test]
fn a_written_session_has_a_title_slot_and_oh_my_pis_fields() {
    for (scenario, _) in lab().ids() {
        let first = lab().read(scenario);
        let options = WriteOptions { cwd: Some(CWD.into()), native_id: None, home_path: None };
        let written = trajhost_codec_sdk::write_document::<Omp>(&document(&first.records), options).unwrap();
        let artifact = &written.artifacts[0];
        let header = check_chain(&artifact.bytes);
        assert_eq!(header["id"], written.native_id.as_str());
        let first_line: Value = serde_json::from_slice(artifact.bytes.split(|b| *b == b'\n').next().unwrap()).unwrap();
        assert_eq!(first_line["type"], "title");
        // Without a home, /home/user/project is written in Pi's absolute form.
        assert!(artifact.path.starts_with(".omp/agent/sessions/--home-user-project--/"), "{}", artifact.path);
        let lines: Vec<Value> =
            std::str::from_utf8(&artifact.bytes).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let model_change = lines.iter().find(|l| l["type"] == "model_change").unwrap();
        assert_eq!(model_change["model"], "fake/fake-model");
        assert!(lines.iter().filter(|l| l["message"]["role"] == "user").all(|l| l["message"]["attribution"] == "user"));
        assert!(
            lines.iter().filter(|l| l["message"]["role"] == "assistant").all(|l| l["message"]["provider"] == "fake")
        );
    }
}

#[test]
fn prepare_uses_the_home_relative_folder() {
    let target = tempfile::tempdir().unwrap();
    copy_dir(&lab().home("simple"), target.path());
    let first = lab().read("parallel");
    let written = trajhost_codec_sdk::write_document::<Omp>(
        &document(&first.records),
        WriteOptions { cwd: Some(CWD.into()), native_id: None, home_path: None },
    )
    .unwrap();
    let options = WriteOptions {
        cwd: Some(CWD.into()),
        native_id: Some(written.native_id.clone()),
        home_path: Some("/home/user".into()),
    };
    let plan =
        trajhost_codec_sdk::prepare_artifacts::<Omp>(written.artifacts.clone(), &Dir::native(target.path()), options)
            .unwrap();
    let Operation::CreateFile(file) = &plan.operations[0] else { panic!() };
    let name = written.artifacts[0].path.rsplit('/').next().unwrap();
    assert_eq!(file.path, format!("{DIR}/{name}"));
    assert_eq!(file.bytes, written.artifacts[0].bytes);
    assert_eq!(plan.operations.len(), 1);
    assert_eq!(
        plan.resume_command.as_deref(),
        Some(format!("cd {CWD} && omp --resume /home/user/{DIR}/{name}").as_str())
    );

    let options =
        WriteOptions { cwd: Some("/tmp/work/x".into()), native_id: None, home_path: Some("/home/user".into()) };
    let plan =
        trajhost_codec_sdk::prepare_artifacts::<Omp>(written.artifacts, &Dir::native(target.path()), options).unwrap();
    let Operation::CreateFile(file) = &plan.operations[0] else { panic!() };
    assert!(file.path.starts_with(".omp/agent/sessions/-tmp-work-x/"), "{}", file.path);
    let header = check_chain(&file.bytes);
    assert_eq!(header["cwd"], "/tmp/work/x");
}

#[test]
fn subagent_transcripts_in_the_artifacts_folder_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&lab().home("simple"), dir.path());
    let artifacts = dir.path().join(lab().locator("simple").strip_suffix(".jsonl").unwrap());
    std::fs::create_dir_all(&artifacts).unwrap();
    std::fs::write(artifacts.join("0-scout.jsonl"), "{}\n").unwrap();
    std::fs::write(artifacts.join("1.bash.log"), "x").unwrap();
    let read = read::<Omp>(dir.path(), &lab().locator("simple"));
    let d = read.diagnostics.iter().find(|d| d.code == "subagent-transcript-not-read").unwrap();
    assert_eq!(d.count, 1);
    // Discovery lists the session only, not the nested transcript.
    assert_eq!(Omp::discover(&Dir::native(dir.path())).unwrap().sessions.len(), 1);
}

#[test]
fn a_title_entry_inside_the_chain_keeps_the_chain_whole() {
    // The shape of letta-ai/trajectory's `omp/tool-calls` fixture: a `title`
    // entry with an id and a parent after the header, not the title slot.
    let dir = tempfile::tempdir().unwrap();
    let locator = format!("{DIR}/2026-11-30T04-13-30-512Z_01a22aa8-0000-7000-8000-000000000002.jsonl");
    let path = dir.path().join(&locator);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let e = |kind: &str, id: &str, parent: Option<&str>, fields: Value| {
        let mut v = json!({"type": kind, "id": id, "parentId": parent, "timestamp": "2026-11-30T04:13:31.000Z"});
        for (k, val) in fields.as_object().unwrap() {
            v[k] = val.clone();
        }
        v.to_string() + "\n"
    };
    let mut text = json!({"type":"session","version":3,"id":"01a22aa8-0000-7000-8000-000000000002","timestamp":"2026-11-30T04:13:30.512Z","cwd":CWD}).to_string() + "\n";
    text += &e("session_init", "b0000001", None, json!({"systemPrompt": "SYSTEM", "cliVersion": "1.0.0"}));
    text += &e("title", "b0000002", Some("b0000001"), json!({"title": "notes demo"}));
    text += &e("message", "b0000003", Some("b0000002"), json!({"message": {"role": "user", "content": "hi"}}));
    std::fs::write(&path, text).unwrap();
    let read = read::<Omp>(dir.path(), &locator);
    assert_eq!(kinds(&read.records), ["meta", "system", "observation", "user"]);
    assert!(read.diag("off-branch-entry").is_none(), "{:?}", read.diagnostics);
    assert_eq!(kit::observations_of(&read.records, "title"), ["notes demo"]);
    assert_eq!(read.records[3].parent.as_deref(), Some("b0000002"));
}
