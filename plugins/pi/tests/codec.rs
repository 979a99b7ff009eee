//! What is particular to Pi's sessions, against sessions written by the
//! real Pi CLI (fixtures/pi/0.73.1) and synthetic entries. What every codec
//! must do is the testkit's suite, in tests/conformance.rs.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::{Value, json};
use trajhost_codec_pi::core::testkit::check_chain;
use trajhost_codec_pi::{Handling, KNOWN_MESSAGE_ROLES, KNOWN_RECORD_TYPES, Pi};
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::Operation;
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, SessionReader, Severity, WriteOptions};
use trajhost_codec_testkit::suite::Lab;
use trajhost_codec_testkit::{
    self as kit, Spans, assistants, document, kinds, options, raw_lines, read, read_with, tool_calls, tool_results,
    users,
};

const DIR: &str = ".pi/agent/sessions/--home-user-project--";
const CWD: &str = "/home/user/project";

/// The lab's sessions, as the conformance table names them.
fn lab() -> Lab<Pi> {
    Lab::new(include_str!("conformance.json"))
}

/// A home holding one synthetic session file with `lines` after a header.
fn synthetic(lines: &[Value]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let id = "01a22aa6-0000-7000-8000-000000000001";
    let locator = format!("{DIR}/2026-11-30T04-10-51-921Z_{id}.jsonl");
    let path = dir.path().join(&locator);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut text =
        json!({"type":"session","version":3,"id":id,"timestamp":"2026-11-30T04:10:51.921Z","cwd":CWD}).to_string();
    text.push('\n');
    for line in lines {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();
    (dir, locator)
}

fn entry(kind: &str, id: &str, parent: Option<&str>, fields: Value) -> Value {
    let mut v = json!({"type": kind, "id": id, "parentId": parent, "timestamp": "2026-11-30T04:10:52.000Z"});
    for (k, val) in fields.as_object().unwrap() {
        v[k] = val.clone();
    }
    v
}

fn user(id: &str, parent: Option<&str>, text: &str) -> Value {
    entry(
        "message",
        id,
        parent,
        json!({"message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}}),
    )
}

fn answer(id: &str, parent: &str, text: &str) -> Value {
    entry(
        "message",
        id,
        Some(parent),
        json!({"message": {"role": "assistant", "content": [{"type": "text", "text": text}], "api": "openai-completions",
          "provider": "fake", "model": "fake-model", "stopReason": "stop", "timestamp": 2}}),
    )
}

// ---------------------------------------------------------------- info, discover

#[test]
fn the_version_is_the_headers_format_version() {
    let source = Pi::info().native_version_source;
    assert!(source.contains("header") && source.contains("does not record"), "{source}");
}

#[test]
fn discover_names_every_file_that_is_no_session_and_reads_renamed_ones_by_their_header() {
    let dir = lab().copy("simple");
    let id = lab().id("simple");
    let folder = dir.path().join(DIR);
    std::fs::rename(dir.path().join(lab().locator("simple")), folder.join("renamed.jsonl")).unwrap();
    std::fs::write(folder.join("empty.jsonl"), "").unwrap();
    std::fs::write(folder.join("no-header.jsonl"), "{\"type\":\"message\"}\n").unwrap();
    std::fs::write(folder.join("notes.txt"), "x").unwrap();
    std::fs::create_dir(folder.join("stray")).unwrap();
    std::fs::write(dir.path().join(".pi/agent/sessions/loose.jsonl"), "{}").unwrap();
    let found = kit::discover::<Pi>(dir.path());
    assert_eq!(found.sessions.len(), 1, "{:?}", found.diagnostics);
    assert_eq!(found.sessions[0].native_id, id, "the header names a renamed file's session");
    let at = |name: &str| format!("{DIR}/{name}");
    let expected = [
        ("empty-session-file", at("empty.jsonl")),
        ("malformed-head", at("no-header.jsonl")),
        ("unrecognized-file", at("notes.txt")),
        ("unrecognized-file", at("stray")),
        ("unrecognized-file", ".pi/agent/sessions/loose.jsonl".to_string()),
    ];
    kit::check_named_files(&found.diagnostics, &expected);
    let read = kit::conformance::<Pi>(dir.path(), &at("renamed.jsonl"), Spans::Lines);
    assert_eq!(read.meta().native_id, id);
}

// ---------------------------------------------------------------- read

#[test]
fn responses_keep_the_providers_id_and_nothing_reads_as_an_error() {
    for (scenario, _) in lab().ids() {
        let read = lab().read(scenario);
        for a in assistants(&read.records) {
            assert!(a.message_id.as_deref().is_some_and(|m| m.starts_with("chatcmpl-")));
        }
        assert!(read.diagnostics.iter().all(|d| d.severity != Severity::Error), "{scenario}: {:?}", read.diagnostics);
    }
}

/// Model and thinking-level changes are observations; parents follow the
/// native parentId chain.
#[test]
fn setting_changes_are_observations_and_parents_follow_the_chain() {
    let read = lab().read("simple");
    assert_eq!(assistants(&read.records)[0].stop_reason.as_deref(), Some("toolUse"));
    let Body::Observation { subtype, text } = &read.records[1].body else { panic!() };
    assert_eq!((subtype.as_str(), text.as_deref()), ("model_change", Some("fake/fake-model")));
    let Body::Observation { subtype, text } = &read.records[2].body else { panic!() };
    assert_eq!((subtype.as_str(), text.as_deref()), ("thinking_level_change", Some("off")));
    assert_eq!(read.records[3].id, "4c24691d");
    assert_eq!(read.records[5].parent.as_deref(), Some("0b0b76ff"));
    assert!(read.diagnostics.is_empty(), "{:?}", read.diagnostics);
}

#[test]
fn a_long_output_keeps_the_tail_pi_kept() {
    let read = lab().read("long-output");
    let result = tool_results(&read.records)[0].1;
    // Pi kept the tail (its full output went to a file under /tmp, outside the home).
    assert_eq!(result.chars().count(), 51_277);
    let cut = read.diag("tool-output-truncated").unwrap();
    assert_eq!((cut.detail.as_str(), cut.count), ("tool/bash", 1));
}

#[test]
fn one_record_caps_give_a_batch_a_record() {
    for (scenario, _) in lab().ids() {
        let a = lab().read(scenario);
        let b = read_with::<Pi>(&lab().home(scenario), &lab().locator(scenario), options(1, 1));
        assert!(b.batches > a.records.len() / 2, "{scenario}: {} batches", b.batches);
    }
}

// ---------------------------------------------------------------- types

/// The suite checks the entry types; here, the message roles.
#[test]
fn fixture_message_roles_are_all_known() {
    let roles: BTreeSet<&str> = KNOWN_MESSAGE_ROLES.iter().map(|(k, _)| *k).collect();
    for (scenario, _) in lab().ids() {
        for line in raw_lines(&lab().path(scenario)) {
            if line["type"] == "message" {
                let role = line["message"]["role"].as_str().unwrap();
                assert!(roles.contains(role), "{scenario}: message role {role:?} was never seen");
            }
        }
    }
}

#[test]
fn unknown_and_unmapped_types_are_reported_with_counts() {
    let (dir, locator) = synthetic(&[
        user("a0000001", None, "hi"),
        entry("custom", "a0000002", Some("a0000001"), json!({"customType": "ext-state", "data": {}})),
        entry("hologram", "a0000003", Some("a0000002"), json!({})),
        entry("hologram", "a0000004", Some("a0000003"), json!({})),
        entry("message", "a0000005", Some("a0000004"), json!({"message": {"role": "telepathy"}})),
        answer("a0000006", "a0000005", "ok"),
    ]);
    let read = read::<Pi>(dir.path(), &locator);
    let unknown = read.diag("unknown-record-type").unwrap();
    assert_eq!((unknown.detail.as_str(), unknown.count, unknown.severity), ("hologram", 2, Severity::Warning));
    assert!(read.diagnostics.iter().any(|d| d.code == "unknown-record-type" && d.detail == "message/telepathy"));
    let unmapped = read.diag("unmapped-record-type").unwrap();
    assert_eq!((unmapped.detail.as_str(), unmapped.count), ("custom/ext-state", 1));
    // The answer's parent skips the entries that produced no record.
    let last = read.records.last().unwrap();
    assert_eq!(last.parent.as_deref(), Some("a0000001"));
    for (kind, handling) in KNOWN_RECORD_TYPES {
        assert!(matches!(handling, Handling::Mapped(_) | Handling::Reported), "{kind}");
    }
}

#[test]
fn only_the_active_branch_is_read_and_the_rest_is_counted() {
    // a1 ─ a2 ─ a3 (abandoned) ; a2 ─ b3 ─ b4 (the last entry: the active leaf)
    let (dir, locator) = synthetic(&[
        user("a0000001", None, "first"),
        answer("a0000002", "a0000001", "answer one"),
        user("a0000003", Some("a0000002"), "abandoned"),
        user("b0000003", Some("a0000002"), "second"),
        answer("b0000004", "b0000003", "answer two"),
    ]);
    let read = read::<Pi>(dir.path(), &locator);
    assert_eq!(users(&read.records), ["first", "second"]);
    let off = read.diag("off-branch-entry").unwrap();
    assert_eq!((off.detail.as_str(), off.count), ("message", 1));
}

#[test]
fn a_compaction_comes_before_the_entries_it_keeps() {
    let (dir, locator) = synthetic(&[
        user("a0000001", None, "old"),
        answer("a0000002", "a0000001", "old answer"),
        user("a0000003", Some("a0000002"), "kept"),
        answer("a0000004", "a0000003", "kept answer"),
        entry(
            "compaction",
            "a0000005",
            Some("a0000004"),
            json!({"summary": "SUMMARY", "firstKeptEntryId": "a0000003", "tokensBefore": 9}),
        ),
        user("a0000006", Some("a0000005"), "after"),
    ]);
    let read = read::<Pi>(dir.path(), &locator);
    let texts: Vec<String> = read
        .records
        .iter()
        .skip(1)
        .map(|r| match &r.body {
            Body::User { text, .. } => text.clone(),
            Body::Assistant(a) => a.text.clone(),
            Body::Compaction { summary, .. } => format!("[{summary}]"),
            other => other.kind().to_string(),
        })
        .collect();
    assert_eq!(texts, ["old", "old answer", "[SUMMARY]", "kept", "kept answer", "after"]);
    let compaction = read.records.iter().find(|r| r.body.kind() == "compaction").unwrap();
    assert_eq!(compaction.id, "a0000005");
}

#[test]
fn torn_tail_is_a_warning_and_the_rest_is_read() {
    let dir = lab().copy("simple");
    let path = dir.path().join(lab().locator("simple"));
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(b"{\"type\":\"message\",\"id\":\"ffff");
    std::fs::write(&path, bytes).unwrap();
    let read = read::<Pi>(dir.path(), &lab().locator("simple"));
    assert_eq!(read.diag("torn-tail").unwrap().severity, Severity::Warning);
    assert_eq!(users(&read.records).len(), 2);
}

// ---------------------------------------------------------------- write, prepare

fn write_options(cwd: &str) -> WriteOptions {
    WriteOptions { cwd: Some(cwd.into()), native_id: None, home_path: None }
}

/// The suite round-trips every record; the file is named from its header.
#[test]
fn a_written_session_is_named_from_its_header() {
    for (scenario, _) in lab().ids() {
        let first = lab().read(scenario);
        let written = trajhost_codec_sdk::write_document::<Pi>(&document(&first.records), write_options(CWD)).unwrap();
        assert_eq!(written.artifacts.len(), 1);
        let artifact = &written.artifacts[0];
        let header = check_chain(&artifact.bytes);
        assert_eq!(header["id"], written.native_id.as_str());
        assert_eq!(header["cwd"], CWD);
        let name = artifact.path.rsplit('/').next().unwrap();
        let ts = header["timestamp"].as_str().unwrap().replace([':', '.'], "-");
        assert_eq!(name, format!("{ts}_{}.jsonl", written.native_id), "file name agrees with the header");
        assert!(artifact.path.starts_with(&format!("{DIR}/")), "{}", artifact.path);
    }
}

#[test]
fn write_is_deterministic_and_fills_what_pi_requires() {
    let first = lab().read("simple");
    let doc = document(&first.records);
    let a = trajhost_codec_sdk::write_document::<Pi>(&doc, write_options(CWD)).unwrap();
    let b = trajhost_codec_sdk::write_document::<Pi>(&doc, write_options(CWD)).unwrap();
    assert_eq!(a.artifacts[0].bytes, b.artifacts[0].bytes);
    assert_eq!(a.native_id, b.native_id);

    // A foreign session: no usage, no ok, a system prompt, an orphan result.
    let foreign = [
        json!({"id":"m","kind":"meta","schema":"trajhost.canonical/0.1","harness":"codex","native_id":"x","cwd":"/w","started_at":"2026-11-30T04:00:00.000Z"}),
        json!({"id":"s","kind":"system","text":"You are Codex."}),
        json!({"id":"u","kind":"user","text":"hi","ts":"2026-11-30T04:00:01.000Z"}),
        json!({"id":"a","kind":"assistant","text":"","model":"gpt-5"}),
        json!({"id":"c","kind":"tool_call","call_id":"call_1","name":"shell","arguments":{"cmd":["ls"]}}),
        json!({"id":"r","kind":"tool_result","call_id":"call_1","content":"a.txt"}),
        json!({"id":"o","kind":"tool_result","call_id":"call_404","content":"?"}),
        json!({"id":"a2","kind":"assistant","text":"done","model":"gpt-5","usage":{"input":5,"output":1}}),
    ];
    let doc: String = foreign.iter().map(|v| v.to_string() + "\n").collect();
    let written =
        trajhost_codec_sdk::write_document::<Pi>(&doc, WriteOptions { cwd: None, native_id: None, home_path: None })
            .unwrap();
    let artifact = &written.artifacts[0];
    assert!(artifact.path.starts_with(".pi/agent/sessions/--w--/2026-11-30T04-00-00-000Z_"));
    check_chain(&artifact.bytes);
    kit::check_diags_include(
        &written.diagnostics,
        &[
            ("not-carried", "system"),
            ("not-carried", "orphan-tool-result"),
            ("defaulted", "usage"),
            ("defaulted", "toolResult.isError"),
        ],
    );
    let lines: Vec<Value> =
        std::str::from_utf8(&artifact.bytes).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let call_msg = &lines[2]["message"];
    assert_eq!(call_msg["role"], "assistant");
    assert_eq!(call_msg["stopReason"], "toolUse");
    assert_eq!(
        call_msg["content"][0],
        json!({"type":"toolCall","id":"call_1","name":"shell","arguments":{"cmd":["ls"]}})
    );
    assert_eq!(lines[3]["message"]["toolName"], "shell");
    assert_eq!(lines[3]["message"]["isError"], false);
    assert_eq!(lines.len(), 5, "header, user, call, result, answer");
}

#[test]
fn prepare_plans_one_new_file_in_the_cwd_folder() {
    let target = lab().copy("simple");
    let first = lab().read("parallel");
    let written = trajhost_codec_sdk::write_document::<Pi>(&document(&first.records), write_options(CWD)).unwrap();
    let home_path = target.path().display().to_string();
    let options = WriteOptions {
        cwd: Some(CWD.into()),
        native_id: Some(written.native_id.clone()),
        home_path: Some(home_path.clone()),
    };
    let plan =
        trajhost_codec_sdk::prepare_artifacts::<Pi>(written.artifacts.clone(), &Dir::native(target.path()), options)
            .unwrap();
    assert_eq!(plan.native_id, written.native_id);
    assert_eq!(plan.operations.len(), 1);
    let Operation::CreateFile(file) = &plan.operations[0] else { panic!("expected create-file") };
    assert_eq!(file.path, written.artifacts[0].path);
    assert_eq!(file.bytes, written.artifacts[0].bytes);
    assert!(!target.path().join(&file.path).exists());
    let resume = plan.resume_command.unwrap();
    assert_eq!(resume, format!("cd {CWD} && pi --session {home_path}/{}", file.path));

    // Another cwd: another folder, and the header names it.
    let options =
        WriteOptions { cwd: Some("/srv/other dir".into()), native_id: None, home_path: Some(home_path.clone()) };
    let plan =
        trajhost_codec_sdk::prepare_artifacts::<Pi>(written.artifacts.clone(), &Dir::native(target.path()), options)
            .unwrap();
    let Operation::CreateFile(file) = &plan.operations[0] else { panic!() };
    assert!(file.path.starts_with(".pi/agent/sessions/--srv-other dir--/"), "{}", file.path);
    assert_eq!(check_chain(&file.bytes)["cwd"], "/srv/other dir");
    assert!(plan.resume_command.unwrap().starts_with("cd '/srv/other dir' && pi --session"));

    // An existing session is never overwritten.
    let path = target.path().join(&written.artifacts[0].path);
    std::fs::write(&path, b"x").unwrap();
    let options = WriteOptions { cwd: Some(CWD.into()), native_id: None, home_path: Some(home_path) };
    let err =
        trajhost_codec_sdk::prepare_artifacts::<Pi>(written.artifacts.clone(), &Dir::native(target.path()), options)
            .unwrap_err();
    assert!(format!("{err:?}").contains("already exists"), "{err:?}");
}

// ---------------------------------------------------------------- layout (core unit rules, run here: the core crate is not a default member)

#[test]
fn folder_file_and_time_rules() {
    use trajhost_codec_pi::core::{layout, time};
    assert_eq!(layout::legacy_dir_name("/home/user/project"), "--home-user-project--");
    assert_eq!(layout::omp_dir_name("/home/user/project", Some("/home/user")), "-project");
    assert_eq!(layout::omp_dir_name("/home/user", Some("/home/user")), "-");
    assert_eq!(layout::omp_dir_name("/tmp/x/y", Some("/home/user")), "-tmp-x-y");
    assert_eq!(layout::omp_dir_name("/home/userx", Some("/home/user")), "--home-userx--");
    assert_eq!(layout::file_name(1_796_011_851_921, "id"), "2026-11-30T04-10-51-921Z_id.jsonl");
    for ms in [0, 951_782_400_000, 1_796_011_851_921] {
        assert_eq!(time::parse_rfc3339(&time::rfc3339_utc(ms)), Some(ms));
    }
    assert_eq!(time::parse_rfc3339("2026-11-30T05:10:51+01:00"), Some(1_796_011_851_000));
    assert!(layout::check_locator("../x.jsonl").is_err());
}

// ---------------------------------------------------------------- format version 1

/// A format v1 file (fixtures/pi/format-v1, hand-written): no entry ids.
fn v1_home() -> PathBuf {
    // This crate's own checkout (the testkit's `fixtures()` is resolved
    // where the testkit was compiled).
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pi/format-v1/home")
}

const V1: &str = ".pi/agent/sessions/--srv-app--/2024-02-01T08-00-00-000Z_6f1c2d3e-0000-4000-8000-00000000a001.jsonl";

#[test]
fn the_range_covers_every_format_version() {
    let range = Pi::info().native_versions;
    assert_eq!(range, ">=1.0.0, <4.0.0", "format versions 1, 2 and 3");
    assert_eq!(trajhost_codec_pi::core::OMP.native_versions, range, "Oh My Pi reads the same versions");
}

#[test]
fn a_format_v1_file_reads_as_a_list() {
    let home = v1_home();
    let found = kit::discover::<Pi>(&home);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    assert_eq!(found.sessions.len(), 1);
    let s = &found.sessions[0];
    assert_eq!(s.native_id, "6f1c2d3e-0000-4000-8000-00000000a001");
    assert_eq!(s.native_version.as_deref(), Some("1"), "a header without version is format 1");
    assert_eq!(s.cwd.as_deref(), Some("/srv/app"));
    assert_eq!(s.title.as_deref(), Some("Which port does the server listen on?"));

    let read = kit::conformance::<Pi>(&home, V1, kit::Spans::Lines);
    assert!(read.diagnostics.is_empty(), "{:?}", read.diagnostics);
    let records = &read.records;
    assert_eq!(
        kinds(records),
        [
            "meta",
            "observation",
            "observation",
            "user",
            "reasoning",
            "assistant",
            "tool_call",
            "tool_result",
            "assistant",
            "compaction",
            "user",
            "assistant",
            "tool_call",
            "tool_result",
            "assistant",
            "observation",
            "observation",
        ],
        "the compaction comes before the entry its firstKeptEntryIndex names"
    );
    assert_eq!(users(records), ["Which port does the server listen on?", "And the log level?"]);
    // The v1 header's model and thinking level, as the entries of later versions say them.
    assert_eq!(
        kit::observations_of(records, "model_change"),
        ["anthropic/claude-sonnet-4-20250514", "anthropic/claude-opus-4-20250514"]
    );
    assert_eq!(kit::observations_of(records, "thinking_level_change"), ["low", "high"]);
    assert_eq!(records[1].id, "6f1c2d3e-0000-4000-8000-00000000a001#model_change");
    let Body::Compaction { summary, .. } = &records[9].body else { panic!() };
    assert_eq!(summary, "The server listens on port 8080 (config.toml).");
    let calls: Vec<(&str, &str)> = tool_calls(records).iter().map(|(id, name, _)| (*id, *name)).collect();
    assert_eq!(calls, [("call_cfg", "read"), ("call_grep", "bash")]);
    assert_eq!(
        tool_results(records),
        [("call_cfg", "port = 8080", Some(true)), ("call_grep", "grep: config.toml: Permission denied", Some(false))]
    );
    assert_eq!(assistants(records)[0].usage.as_ref().and_then(|u| u.input), Some(40));

    // Each entry's parent is the entry before it; the first has none.
    let entries: Vec<&trajhost_codec_sdk::canonical::Record> =
        records.iter().filter(|r| !r.id.contains('#') && r.body.kind() != "meta").collect();
    assert_eq!(entries.len(), 11);
    let ids: BTreeSet<&str> = records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), records.len(), "unique ids");
    let user1 = &records[3];
    assert_eq!(user1.parent, None);
    assert_eq!(records[5].parent.as_deref(), Some(user1.id.as_str()), "the first answer follows the prompt");
    let by_offset = |r: &&trajhost_codec_sdk::canonical::Record| r.src.as_ref().unwrap().offset;
    let mut in_file = entries.clone();
    in_file.sort_by_key(by_offset);
    for pair in in_file.windows(2) {
        assert_eq!(pair[1].parent.as_deref(), Some(pair[0].id.as_str()), "{} follows {}", pair[1].id, pair[0].id);
    }
}

/// A grown file continues from its resume point only when the appended
/// entries extend the branch read before; a new branch off an earlier
/// entry, or an appended compaction that keeps entries from before the
/// point, changes records before it: `read_from` declines and the host
/// reads the file whole.
#[test]
fn a_resume_point_continues_the_branch_and_declines_a_new_one() {
    let (dir, locator) = synthetic(&[user("b0000001", None, "first"), answer("b0000002", "b0000001", "first answer")]);
    let path = dir.path().join(&locator);
    let options = trajhost_codec_sdk::ReadOptions { max_batch_records: 64, max_batch_bytes: 1 << 20 };
    let mut reader = Pi::read(Dir::native(dir.path()), &locator, options).unwrap();
    while reader.next_batch().unwrap().is_some() {}
    let point = reader.resume_point().expect("a point at the end");
    let original = std::fs::read(&path).unwrap();
    let grown = |lines: &[Value]| {
        let mut bytes = original.clone();
        for line in lines {
            bytes.extend_from_slice(format!("{line}\n").as_bytes());
        }
        std::fs::write(&path, bytes).unwrap();
    };
    let continued = |point: &trajhost_codec_sdk::ResumePoint| {
        Pi::read_from(Dir::native(dir.path()), &locator, point.clone(), options).map(|mut rest| {
            let mut lines = Vec::new();
            while let Some(batch) = rest.next_batch().unwrap() {
                lines.extend(batch.records.lines().map(String::from));
            }
            lines
        })
    };

    // Extending the leaf: the new entries follow.
    grown(&[user("b0000003", Some("b0000002"), "second"), answer("b0000004", "b0000003", "second answer")]);
    let lines = continued(&point).unwrap();
    assert_eq!(lines.len(), 3, "meta and the two new records: {lines:?}");
    assert!(lines[1].contains("second") && lines[2].contains("second answer"));

    // A branch off the first prompt: the branch read before is no longer the file's.
    grown(&[user("b0000003", Some("b0000001"), "instead")]);
    let declined = continued(&point).expect_err("a new branch is declined");
    assert!(matches!(declined, trajhost_codec_sdk::CodecError::Unsupported(_)), "{declined:?}");

    // A compaction that keeps the first prompt: its record goes before it.
    grown(&[entry(
        "compaction",
        "b0000003",
        Some("b0000002"),
        json!({"summary": "SUMMARY", "firstKeptEntryId": "b0000001", "tokensBefore": 9}),
    )]);
    let declined = continued(&point).expect_err("such a compaction is declined");
    assert!(matches!(declined, trajhost_codec_sdk::CodecError::Unsupported(_)), "{declined:?}");
}
