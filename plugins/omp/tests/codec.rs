//! The Oh My Pi codec against sessions written by the real Oh My Pi CLI
//! (fixtures/oh-my-pi/18.2.3), run natively through `Dir::native`. The
//! reading and writing rules are Pi's (`trajhost-pi-core`, tested with the
//! Pi codec); these tests cover what Oh My Pi adds: the title slot, its
//! folder rule, its entry types and `model_change` shape.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::{Value, json};
use trajhost_codec_omp::core::testkit::check_chain;
use trajhost_codec_omp::{KNOWN_MESSAGE_ROLES, KNOWN_RECORD_TYPES, Omp};
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::Operation;
use trajhost_codec_sdk::canonical::{Body, Usage};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, Severity, WriteOptions};
use trajhost_codec_testkit::{
    self as kit, Read, Spans, assistants, conversation, copy_dir, document, kinds, options, raw_lines, read, read_with,
    tool_calls, tool_results, users,
};

const DIR: &str = ".omp/agent/sessions/-project";
const CWD: &str = "/home/user/project";

fn fixtures() -> PathBuf {
    kit::fixtures("oh-my-pi", "18.2.3")
}

/// (scenario, session id, file time)
const SCENARIOS: [(&str, &str, &str); 5] = [
    ("simple", "01a22aa8-6c10-7000-baef-816036f403be", "2026-11-30T04-13-30-512Z"),
    ("parallel", "01a22aa8-e45c-7000-86af-7f00b19f9cd4", "2026-11-30T04-14-01-308Z"),
    ("failing-tool", "01a22aa9-21ab-7000-8fe0-dc992bc6b7ab", "2026-11-30T04-14-17-003Z"),
    ("multibyte", "01a22aa9-5b4b-7000-8883-9760045123ac", "2026-11-30T04-14-31-755Z"),
    ("long-output", "01a22aa9-89bb-7000-b490-c94dcb3048dc", "2026-11-30T04-14-43-643Z"),
];

fn home(scenario: &str) -> PathBuf {
    fixtures().join(scenario)
}

fn locator(scenario: &str) -> String {
    let (_, id, ts) = SCENARIOS.iter().find(|(s, _, _)| *s == scenario).unwrap();
    format!("{DIR}/{ts}_{id}.jsonl")
}

fn read_scenario(scenario: &str) -> Read {
    read::<Omp>(&home(scenario), &locator(scenario))
}

#[test]
fn info_describes_the_codec() {
    let info = Omp::info();
    assert_eq!(info.harness, "oh-my-pi");
    assert_eq!(info.reads, vec!["omp-session-jsonl".to_string()]);
    assert_eq!(info.writes, info.reads);
    assert_eq!(info.session_globs, vec![".omp/agent/sessions/*/*.jsonl".to_string()]);
    assert!(info.native_version_source.contains("does not record"));
}

#[test]
fn discover_finds_each_fixture_session_and_skips_artifact_folders() {
    for (scenario, id, _) in SCENARIOS {
        let found = Omp::discover(&Dir::native(home(scenario))).unwrap();
        assert!(found.diagnostics.is_empty(), "{scenario}: {:?}", found.diagnostics);
        assert_eq!(found.sessions.len(), 1, "{scenario}");
        let s = &found.sessions[0];
        assert_eq!((s.native_id.as_str(), s.locator.clone()), (id, locator(scenario)));
        assert_eq!(s.cwd.as_deref(), Some(CWD));
        assert_eq!(s.native_version.as_deref(), Some("3"));
        // The title slot is empty (--no-title): the first prompt stands in.
        assert!(s.title.as_deref().is_some_and(|t| !t.is_empty()));
    }
}

#[test]
fn every_scenario_has_prompt_call_result_answer_model_and_usage() {
    for (scenario, id, _) in SCENARIOS {
        let read = read_scenario(scenario);
        let Body::Meta(meta) = &read.records[0].body else { panic!("{scenario}") };
        assert_eq!((meta.harness.as_str(), meta.native_id.as_str()), ("oh-my-pi", id));
        assert_eq!(read.records[0].src.as_ref().unwrap().offset, 256, "the header follows the title slot");
        assert!(!users(&read.records).is_empty());
        let calls = tool_calls(&read.records);
        let results = tool_results(&read.records);
        assert_eq!(calls.len(), results.len(), "{scenario}");
        for (call_id, _, _) in &results {
            assert!(calls.iter().any(|(c, _, _)| c == call_id));
        }
        assert!(calls.iter().all(|(_, _, a)| a["i"] == ""), "{scenario}: arguments kept as recorded");
        let answers = assistants(&read.records);
        assert!(answers.iter().any(|a| a.text.starts_with("FINAL ANSWER")));
        for a in answers {
            assert_eq!(a.model.as_deref(), Some("fake-model"));
            let want = Usage {
                input: Some(100),
                output: Some(20),
                cache_read: Some(0),
                cache_write: Some(0),
                reasoning: None,
                cost_usd: Some(0.0),
            };
            assert_eq!(a.usage.as_ref(), Some(&want));
        }
        // `custom` entries (tool_execution_start, session_exit) are extension
        // state: counted, not emitted.
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
        let ids: BTreeSet<&str> = read.records.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids.len(), read.records.len());
        assert_eq!(read_with::<Omp>(&home(scenario), &locator(scenario), options(1, 1)).records, read.records);
    }
}

#[test]
fn simple_session_details() {
    let read = read_scenario("simple");
    assert_eq!(
        kinds(&read.records),
        [
            "meta",
            "observation",
            "observation",
            "user",
            "assistant",
            "tool_call",
            "tool_result",
            "assistant",
            "user",
            "assistant"
        ]
    );
    let Body::Observation { subtype, text } = &read.records[1].body else { panic!() };
    assert_eq!((subtype.as_str(), text.as_deref()), ("model_change", Some("fake/fake-model")));
    let Body::Observation { subtype, text } = &read.records[2].body else { panic!() };
    assert_eq!((subtype.as_str(), text.as_deref()), ("thinking_level_change", None));
    assert_eq!(tool_calls(&read.records)[0].2, &json!({"command": "cat hello.txt", "i": ""}));
    let result = tool_results(&read.records)[0];
    assert!(result.1.contains("PAPAYA-42") && result.2 == Some(true));
    // The result's parent skips the tool_execution_start entry.
    assert_eq!(read.records[6].parent.as_deref(), Some("b0e7c127"));
    let counted = read.diagnostics.iter().find(|d| d.detail == "custom/session_exit").unwrap();
    assert_eq!(counted.count, 2);

    let failing = read_scenario("failing-tool");
    assert_eq!(tool_results(&failing.records)[0].2, Some(false));
    let multibyte = read_scenario("multibyte");
    assert!(tool_results(&multibyte.records)[0].1.contains("CHERRY-本-91 ✓"));
    let long = read_scenario("long-output");
    let result = tool_results(&long.records)[0].1;
    assert!(result.starts_with("LONG-OUTPUT-BEGIN LEMON-512") && result.contains("LONG-OUTPUT-END LIME-1024"));
    // The result is what the model saw (head and tail); the full output is
    // in the artifacts folder, and the cut is said.
    assert!(result.contains("Read artifact://0 for full output"));
    let cut = long.diagnostics.iter().find(|d| d.code == "tool-output-truncated").unwrap();
    assert_eq!((cut.detail.as_str(), cut.severity), ("tool/bash", Severity::Info));
}

#[test]
fn fixture_entry_types_and_roles_are_all_known() {
    let known: BTreeSet<&str> = KNOWN_RECORD_TYPES.iter().map(|(k, _)| *k).collect();
    let roles: BTreeSet<&str> = KNOWN_MESSAGE_ROLES.iter().map(|(k, _)| *k).collect();
    for (scenario, _, _) in SCENARIOS {
        for line in raw_lines(&home(scenario).join(locator(scenario))) {
            let kind = line["type"].as_str().unwrap();
            assert!(known.contains(kind), "{scenario}: entry type {kind:?} was never seen: map or report it");
            if kind == "message" {
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

#[test]
fn round_trip_keeps_the_conversation_and_writes_a_title_slot() {
    for (scenario, _, _) in SCENARIOS {
        let first = read_scenario(scenario);
        let options = WriteOptions { cwd: Some(CWD.into()), native_id: None, home_path: None };
        let written = trajhost_codec_sdk::write_document::<Omp>(&document(&first.records), options.clone()).unwrap();
        assert_eq!(
            trajhost_codec_sdk::write_document::<Omp>(&document(&first.records), options).unwrap().artifacts[0].bytes,
            written.artifacts[0].bytes
        );
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

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(&artifact.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &artifact.bytes).unwrap();
        let second = read::<Omp>(dir.path(), &artifact.path);
        assert_eq!(conversation(&first.records), conversation(&second.records), "{scenario}");
        let strip = |r: &trajhost_codec_sdk::canonical::Record| (r.id.clone(), r.body.clone());
        let a: Vec<_> = first.records.iter().skip(1).map(strip).collect();
        let b: Vec<_> = second.records.iter().skip(1).map(strip).collect();
        assert_eq!(a, b, "{scenario}");
    }
}

#[test]
fn prepare_uses_the_home_relative_folder() {
    let target = tempfile::tempdir().unwrap();
    copy_dir(&home("simple"), target.path());
    let first = read_scenario("parallel");
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
    copy_dir(&home("simple"), dir.path());
    let artifacts = dir.path().join(locator("simple").strip_suffix(".jsonl").unwrap());
    std::fs::create_dir_all(&artifacts).unwrap();
    std::fs::write(artifacts.join("0-scout.jsonl"), "{}\n").unwrap();
    std::fs::write(artifacts.join("1.bash.log"), "x").unwrap();
    let read = read::<Omp>(dir.path(), &locator("simple"));
    let d = read.diagnostics.iter().find(|d| d.code == "subagent-transcript-not-read").unwrap();
    assert_eq!(d.count, 1);
    // Discovery lists the session only, not the nested transcript.
    assert_eq!(Omp::discover(&Dir::native(dir.path())).unwrap().sessions.len(), 1);
}

#[test]
fn every_fixture_session_passes_the_testkit_checks() {
    for (scenario, _, _) in SCENARIOS {
        kit::conformance::<Omp>(&home(scenario), &locator(scenario), Spans::Lines);
    }
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
