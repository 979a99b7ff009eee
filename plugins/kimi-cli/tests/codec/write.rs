//! `write` and `prepare`: every lab scenario read → written → read back
//! value for value; synthetic documents for what the scenarios lack;
//! install plans into a fresh home and into one where Kimi CLI already has
//! sessions and other work directories.

use std::path::Path;

use serde_json::{Value, json};
use trajhost_codec_kimi_cli::KimiCli;
use trajhost_codec_kimi_cli::write::uuid_of;
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::target::{self, TargetChoice};
use trajhost_codec_sdk::{Artifact, CodecError, Operation, Plan, WriteOptions, WrittenFiles};
use trajhost_codec_testkit as kit;

use super::{SCENARIOS, WORK_DIR, home, id_of, locator, read, read_scenario};

const CWD: &str = "/home/user/project";

fn options(cwd: Option<&str>, native_id: Option<&str>) -> WriteOptions {
    WriteOptions { cwd: cwd.map(str::to_string), native_id: native_id.map(str::to_string), home_path: None }
}

fn write(doc: &str, options: WriteOptions) -> WrittenFiles {
    kit::suite::write::<KimiCli>(doc, options)
}

fn not_carried(written: &WrittenFiles) -> Vec<(String, u32)> {
    written.diagnostics.iter().filter(|d| d.code == "not-carried").map(|d| (d.detail.clone(), d.count)).collect()
}

/// A home holding the written files and a `kimi.json` naming `cwd`.
fn home_with(written: &WrittenFiles, cwd: &str) -> tempfile::TempDir {
    let home = kit::install(written);
    let kimi = json!({"work_dirs": [{"path": cwd, "kaos": "local", "last_session_id": written.native_id}]});
    std::fs::write(home.path().join(".kimi/kimi.json"), kimi.to_string()).unwrap();
    home
}

fn written_locator(written: &WrittenFiles, cwd: &str) -> String {
    let folder = trajhost_codec_sdk::hash::md5_hex(cwd.as_bytes());
    format!(".kimi/sessions/{folder}/{}/context.jsonl", written.native_id)
}

/// What a read holds, ids and source spans aside: each record's body, time
/// and agent, in order.
fn values(records: &[Record]) -> Vec<(Body, Option<String>)> {
    records.iter().filter(|r| !matches!(r.body, Body::Meta(_))).map(|r| (r.body.clone(), r.ts.clone())).collect()
}

/// The suite's round trip keeps every record value for value; the session
/// is written as Kimi writes one (wire, context, state), and written again
/// from its read-back gives the same bytes.
#[test]
fn every_scenario_is_written_as_kimi_writes_it_and_again_the_same() {
    for (name, _) in SCENARIOS {
        let first = read_scenario(name);
        let written = write(&kit::document(&first.records), options(None, None));
        let paths: Vec<&str> = written.artifacts.iter().map(|a| a.path.rsplit('/').next().unwrap()).collect();
        assert_eq!(paths, ["wire.jsonl", "context.jsonl", "state.json"], "{name}");
        let home = home_with(&written, CWD);
        let second = read(home.path(), &written_locator(&written, CWD));
        assert_eq!(values(&second.records), values(&first.records), "{name}");
        let again = write(&kit::document(&second.records), options(None, Some(&written.native_id)));
        for (a, b) in written.artifacts.iter().zip(&again.artifacts) {
            assert_eq!(a.path, b.path);
            assert_eq!(String::from_utf8_lossy(&a.bytes), String::from_utf8_lossy(&b.bytes), "{name}: {}", a.path);
        }
    }
}

#[test]
fn the_written_context_is_what_kimi_writes() {
    let first = read_scenario("simple");
    let written = write(&kit::document(&first.records), options(None, None));
    let context = String::from_utf8(written.artifacts[1].bytes.clone()).unwrap();
    let lines: Vec<Value> = context.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let roles: Vec<&str> = lines.iter().map(|l| l["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        ["_system_prompt", "_checkpoint", "user", "assistant", "tool", "assistant", "_checkpoint", "user", "assistant"]
    );
    assert_eq!(lines[2]["content"], "Read hello.txt and tell me the secret word.");
    let call = &lines[3]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "Shell");
    let args: Value = serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args["command"], "cat hello.txt");
    assert_eq!(lines[3]["content"], json!([]));
    assert_eq!(lines[4]["tool_call_id"], call["id"]);
    let wire = String::from_utf8(written.artifacts[0].bytes.clone()).unwrap();
    let events: Vec<Value> = wire.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(events[0], json!({"type": "metadata", "protocol_version": "1.10"}));
    let kinds: Vec<&str> = events[1..].iter().map(|e| e["message"]["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "TurnBegin",
            "StepBegin",
            "ToolCall",
            "StatusUpdate",
            "ToolResult",
            "StepBegin",
            "ContentPart",
            "StatusUpdate",
            "TurnEnd",
            "TurnBegin",
            "StepBegin",
            "ContentPart",
            "StatusUpdate",
            "TurnEnd"
        ]
    );
    // Lines as Kimi writes them, byte for byte where the values are the same.
    let native =
        std::fs::read_to_string(home("simple").join(super::session_dir(&id_of("simple"))).join("context.jsonl"))
            .unwrap();
    let native: Vec<&str> = native.lines().collect();
    let ours: Vec<&str> = context.lines().collect();
    assert!(ours[0] == native[0], "system prompt: {:?}", &ours[0][..200]);
    assert_eq!(ours[1], native[1], "first checkpoint");
    assert_eq!(ours[2], native[2], "prompt");
    assert_eq!(&ours[3][..40], &native[5][..40], "a tool-call step");
    assert_eq!(ours[5], native[10], "the answer");
    assert_eq!(wire.lines().next(), Some(r#"{"type": "metadata", "protocol_version": "1.10"}"#));
    assert!(wire.lines().nth(1).unwrap().starts_with(
        r#"{"timestamp": 1796015685.045, "message": {"type": "TurnBegin", "payload": {"user_input": "Read"#
    ));
    let state = std::fs::read(home("simple").join(super::session_dir(&id_of("simple"))).join("state.json")).unwrap();
    assert_eq!(String::from_utf8_lossy(&written.artifacts[2].bytes), String::from_utf8_lossy(&state));
}

#[test]
fn the_wire_streams_as_records_arrive() {
    let first = read_scenario("parallel");
    let doc = kit::document(&first.records);
    let mut writer = <KimiCli as trajhost_codec_sdk::Codec>::write(options(None, None)).unwrap();
    let mut pieces = 0;
    for line in doc.lines() {
        let chunks = writer.push(&format!("{line}\n")).unwrap();
        assert!(chunks.iter().all(|c| c.path.ends_with("/wire.jsonl")), "only the wire before the end");
        pieces += chunks.len();
    }
    assert!(pieces >= 4, "{pieces} wire pieces: one per record that adds events");
    let done = writer.finish().unwrap();
    assert!(done.chunks.iter().any(|c| c.path.ends_with("/context.jsonl")));
}

fn record(id: &str, body: Value) -> String {
    let mut r = json!({"id": id});
    r.as_object_mut().unwrap().extend(body.as_object().unwrap().clone());
    r.to_string() + "\n"
}

fn meta(harness: &str) -> String {
    record(
        "s",
        json!({"kind": "meta", "schema": "trajhost.canonical/0.1", "harness": harness, "native_id": "src-1",
               "cwd": "/w", "title": "A title", "started_at": "2026-11-30T04:05:50Z"}),
    )
}

#[test]
fn another_harness_keeps_its_conversation_and_names_what_kimi_cannot_hold() {
    let doc = [
        meta("claude-code"),
        record("r0", json!({"kind": "system", "text": "You are Claude."})),
        record("r1", json!({"kind": "user", "text": "Look", "attachments": [{"kind": "image", "media_type": "image/png"}], "ts": "2026-11-30T04:05:51.250Z"})),
        record("r2", json!({"kind": "reasoning", "text": "Let me think.", "opaque": "sig", "encrypted": false})),
        record("r3", json!({"kind": "assistant", "text": "Reading.", "model": "claude-x", "stop_reason": "tool_use", "usage": {"input": 10, "output": 2, "cost_usd": 0.5}})),
        record("r4", json!({"kind": "tool_call", "call_id": "toolu_1", "name": "Bash", "arguments": {"command": "cat a"}})),
        record("r5", json!({"kind": "tool_call", "call_id": "toolu_2", "name": "Bash", "arguments": {"command": "cat b"}})),
        record("r6", json!({"kind": "tool_result", "call_id": "toolu_1", "content": "A", "ok": true})),
        record("r7", json!({"kind": "observation", "subtype": "hook", "text": "ran"})),
        record("r8", json!({"kind": "tool_result", "call_id": "toolu_9", "content": "?"})),
        record("r9", json!({"kind": "reasoning", "opaque": "enc", "encrypted": true})),
        record("r10", json!({"kind": "assistant", "text": "Done."})),
        record("r11", json!({"kind": "compaction", "summary": "They read a and b."})),
        record("r12", json!({"kind": "user", "text": "More?"})),
        record("r13", json!({"kind": "tool_call", "call_id": "toolu_3", "name": "Read", "arguments": "{\"path\":\"c\"}"})),
        record("a1", json!({"kind": "meta", "schema": "trajhost.canonical/0.1", "harness": "claude-code", "native_id": "agent-1", "agent": "agent-1"})),
        record("a2", json!({"kind": "user", "text": "sub", "agent": "agent-1"})),
        record("x", json!({"kind": "future-kind", "text": "?"})),
    ]
    .concat();
    let written = write(&doc, options(None, None));
    let mut lost = not_carried(&written);
    lost.sort();
    assert_eq!(
        lost,
        [
            ("attachments".to_string(), 1),
            ("model".to_string(), 1),
            ("observation/hook".to_string(), 1),
            ("orphan-tool-result".to_string(), 1),
            ("reasoning-signature".to_string(), 1),
            ("stop-reason".to_string(), 1),
            ("subagent-transcript".to_string(), 1),
            ("system-prompt".to_string(), 1),
            ("unknown-kind/future-kind".to_string(), 1),
            ("usage.cost_usd".to_string(), 1),
        ]
    );
    let untranslated = kit::diag(&written.diagnostics, "untranslated-reasoning").unwrap();
    assert_eq!(untranslated.count, 1);
    assert_eq!(kit::diag(&written.diagnostics, "synthesized").unwrap().count, 2, "toolu_2 and toolu_3");
    // Before the compaction: context_1.jsonl; after it: context.jsonl.
    let names: Vec<&str> = written.artifacts.iter().map(|a| a.path.rsplit('/').next().unwrap()).collect();
    assert_eq!(names, ["wire.jsonl", "context_1.jsonl", "context.jsonl", "state.json"]);
    let live = String::from_utf8(written.artifacts[2].bytes.clone()).unwrap();
    assert!(!live.contains("Reading."), "the compacted history is not in the live context");

    let home = home_with(&written, "/w");
    let back = read(home.path(), &written_locator(&written, "/w"));
    let c = kit::conversation(&back.records);
    assert_eq!(c.users, ["Look", "More?"]);
    assert_eq!(
        c.calls,
        [
            ("Bash".to_string(), json!({"command": "cat a"})),
            ("Bash".to_string(), json!({"command": "cat b"})),
            ("Read".to_string(), json!({"path": "c"}))
        ]
    );
    assert_eq!(c.results[0], "A");
    assert_eq!(c.results.len(), 3, "two synthesized error results");
    assert_eq!(c.assistant_texts.iter().filter(|t| !t.is_empty()).collect::<Vec<_>>(), ["Reading.", "Done."]);
    let r = kit::reasonings(&back.records);
    assert_eq!((r.len(), r[0].text.as_deref(), r[0].opaque.as_deref()), (1, Some("Let me think."), None));
    let a = kit::assistants(&back.records);
    assert_eq!(a[0].usage.as_ref().map(|u| (u.input, u.output)), Some((Some(10), Some(2))));
    let results = kit::tool_results(&back.records);
    assert_eq!(results.iter().map(|r| r.2).collect::<Vec<_>>(), [Some(true), Some(false), Some(false)]);
    let compactions: Vec<&Body> = back.records.iter().map(|r| &r.body).filter(|b| b.kind() == "compaction").collect();
    assert!(matches!(compactions[..], [Body::Compaction { summary, .. }] if summary == "They read a and b."));
    assert_eq!(back.records[2].ts.as_deref(), Some("2026-11-30T04:05:51.250Z"), "the prompt's time");
    assert_eq!(back.meta().title.as_deref(), Some("A title"));
    assert!(back.records.iter().all(|r| r.agent.is_none()));
}

#[test]
fn kimi_reminders_reasoning_and_signatures_come_back() {
    let doc = [
        meta("kimi-cli"),
        record("r0", json!({"kind": "system", "text": "You are Kimi."})),
        record(
            "r1",
            json!({"kind": "observation", "subtype": "system-reminder", "text": "<system>Plan mode is on.</system>"}),
        ),
        record("r2", json!({"kind": "user", "text": "Plan it"})),
        record("r3", json!({"kind": "reasoning", "text": "Thinking.", "opaque": "sig-1", "encrypted": true})),
        record("r4", json!({"kind": "assistant", "text": "A plan."})),
    ]
    .concat();
    let written = write(&doc, options(None, None));
    assert_eq!(not_carried(&written), []);
    let home = home_with(&written, "/w");
    let back = read(home.path(), &written_locator(&written, "/w"));
    let kinds: Vec<&str> = back.records.iter().map(|r| r.body.kind()).collect();
    assert_eq!(kinds, ["meta", "system", "observation", "user", "reasoning", "assistant"]);
    let Body::Reasoning(r) = &back.records[4].body else { panic!() };
    assert_eq!((r.text.as_deref(), r.opaque.as_deref()), (Some("Thinking."), Some("sig-1")));
    let context = String::from_utf8(written.artifacts[1].bytes.clone()).unwrap();
    assert!(context.lines().nth(2).unwrap().contains("Plan mode is on."), "the reminder is in the prompt's message");
}

#[test]
fn write_needs_an_absolute_cwd_and_a_plain_id() {
    let doc = meta("x").replace("\"cwd\":\"/w\",", "") + &record("r1", json!({"kind": "user", "text": "hi"}));
    let err = trajhost_codec_sdk::write_document::<KimiCli>(&doc, options(None, None)).unwrap_err();
    assert!(matches!(&err, CodecError::Malformed(m) if m.contains("cwd")), "{err:?}");
    assert!(trajhost_codec_sdk::write_document::<KimiCli>(&doc, options(Some("rel"), None)).is_err());
    assert!(trajhost_codec_sdk::write_document::<KimiCli>(&doc, options(Some("/w"), Some("../x"))).is_err());
    let ok = write(&doc, options(Some("/w"), None));
    assert_eq!(ok.native_id, uuid_of(meta("x").replace("\"cwd\":\"/w\",", "").trim_end().as_bytes()));
    assert_eq!(ok.native_id.len(), 36);
    assert_eq!(&ok.native_id[14..15], "4");
}

// ---------------------------------------------------------------- prepare

fn written_simple() -> WrittenFiles {
    write(&kit::document(&read_scenario("simple").records), options(None, None))
}

fn prepare(written: &WrittenFiles, target: &Path, cwd: Option<&str>) -> Result<Plan, CodecError> {
    let mut options = options(cwd, Some(&written.native_id));
    options.home_path = Some(target.display().to_string());
    trajhost_codec_sdk::prepare_artifacts::<KimiCli>(written.artifacts.clone(), &Dir::native(target), options)
}

/// What the host does with a plan (enough for these tests): copies the
/// artifacts and appends the `work_dirs` entry unless one has its `path`.
fn apply(plan: &Plan, artifacts: &[Artifact], home: &Path) {
    for op in &plan.operations {
        match op {
            Operation::CopyArtifact(c) => {
                let bytes = &artifacts.iter().find(|a| a.path == c.artifact).unwrap().bytes;
                kit::create_new_file(home, &c.path, bytes);
            }
            Operation::AddJsonEntry(e) => {
                let path = home.join(&e.path);
                let mut doc: Value = match std::fs::read(&path) {
                    Ok(bytes) => serde_json::from_slice(&bytes).unwrap(),
                    Err(_) => serde_json::from_str(e.initial.as_deref().unwrap()).unwrap(),
                };
                let value: Value = serde_json::from_str(&e.value).unwrap();
                let list = doc.pointer_mut(&e.pointer).unwrap().as_array_mut().unwrap();
                let member = e.match_member.as_deref().unwrap();
                if !list.iter().any(|x| x[member] == value[member]) {
                    list.push(value);
                }
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
            }
            other => panic!("unexpected operation {other:?}"),
        }
    }
}

fn entry(plan: &Plan) -> &trajhost_codec_sdk::AddJsonEntry {
    plan.operations.iter().find_map(|op| if let Operation::AddJsonEntry(e) = op { Some(e) } else { None }).unwrap()
}

#[test]
fn prepare_into_a_fresh_home() {
    let written = written_simple();
    let target = tempfile::tempdir().unwrap();
    let plan = prepare(&written, target.path(), Some(CWD)).unwrap();
    assert_eq!(plan.native_id, written.native_id);
    let dir = format!("{WORK_DIR}/{}", written.native_id);
    let copies: Vec<(&str, String)> = plan
        .operations
        .iter()
        .filter_map(|op| {
            if let Operation::CopyArtifact(c) = op { Some((c.artifact.as_str(), c.path.clone())) } else { None }
        })
        .collect();
    assert_eq!(copies.len(), 3);
    for (artifact, path) in &copies {
        assert_eq!(artifact, path, "same cwd: the paths as written");
        assert!(path.starts_with(&dir));
    }
    let e = entry(&plan);
    assert_eq!((e.path.as_str(), e.pointer.as_str(), e.key.as_deref()), (".kimi/kimi.json", "/work_dirs", None));
    assert_eq!(e.match_member.as_deref(), Some("path"));
    assert_eq!(
        serde_json::from_str::<Value>(&e.value).unwrap(),
        json!({"path": CWD, "kaos": "local", "last_session_id": written.native_id})
    );
    assert_eq!(serde_json::from_str::<Value>(e.initial.as_deref().unwrap()).unwrap(), json!({"work_dirs": []}));
    assert_eq!(
        plan.resume_command.as_deref(),
        Some(
            format!(
                "cd {CWD} && HOME={} kimi -w {CWD} -r {}",
                trajhost_codec_sdk::shell::shell_quote(&target.path().display().to_string()),
                written.native_id
            )
            .as_str()
        )
    );
    apply(&plan, &written.artifacts, target.path());
    let found = kit::discover::<KimiCli>(target.path());
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].cwd.as_deref(), Some(CWD));
    let back = read(target.path(), &locator(&written.native_id));
    assert_eq!(kit::users(&back.records).len(), 2);

    // Installed once: a second plan is refused, under any work directory.
    for cwd in [CWD, "/elsewhere"] {
        let err = prepare(&written, target.path(), Some(cwd)).unwrap_err();
        assert!(
            matches!(&err, CodecError::Other(m) if m.contains(&written.native_id) && m.contains("exists")),
            "{err:?}"
        );
    }
    // No work directory to file it under.
    assert!(matches!(prepare(&written, tempfile::tempdir().unwrap().path(), None), Err(CodecError::Malformed(_))));
}

/// The suite prepares beside sessions of the same work directory; into a
/// home of another one, the files go under its md5 and one entry is
/// appended to `kimi.json`.
#[test]
fn prepare_into_another_work_directory_adds_its_entry() {
    let written = written_simple();
    let target = kit::copy_of(&home("parallel"));
    let other = "/srv/new project";
    let plan = prepare(&written, target.path(), Some(other)).unwrap();
    let folder = trajhost_codec_sdk::hash::md5_hex(other.as_bytes());
    for op in &plan.operations {
        if let Operation::CopyArtifact(c) = op {
            assert!(c.path.starts_with(&format!(".kimi/sessions/{folder}/{}/", written.native_id)), "{}", c.path);
        }
    }
    assert!(plan.resume_command.as_deref().unwrap().starts_with("cd '/srv/new project' && "));
    apply(&plan, &written.artifacts, target.path());
    let kimi: Value = serde_json::from_slice(&std::fs::read(target.path().join(".kimi/kimi.json")).unwrap()).unwrap();
    let dirs: Vec<&str> = kimi["work_dirs"].as_array().unwrap().iter().map(|w| w["path"].as_str().unwrap()).collect();
    assert_eq!(dirs, [CWD, other]);
    let found = kit::discover::<KimiCli>(target.path());
    assert!(found.sessions.iter().any(|s| s.native_id == written.native_id && s.cwd.as_deref() == Some(other)));
}

#[test]
fn prepare_takes_a_configured_model_and_refuses_what_kimi_cannot_honour() {
    let written = written_simple();
    let target = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(target.path().join(".kimi")).unwrap();
    std::fs::copy(home("simple").join(".kimi/config.toml"), target.path().join(".kimi/config.toml")).unwrap();
    let with = |model: Option<&str>, provider: Option<&str>| {
        target::set_for_tests(TargetChoice {
            model: model.map(str::to_string),
            provider: provider.map(str::to_string),
            allow_untested: false,
        });
        let plan = prepare(&written, target.path(), Some(CWD));
        target::set_for_tests(TargetChoice::default());
        plan
    };
    let plan = with(Some("fake"), None).unwrap();
    assert!(plan.resume_command.as_deref().unwrap().ends_with(&format!("-r {} -m fake", written.native_id)));
    let err = with(Some("gpt-9"), None).unwrap_err();
    assert!(matches!(&err, CodecError::Other(m) if m.contains("gpt-9") && m.contains("fake")), "{err:?}");
    // The provider the (default) model is configured with is honoured as it is.
    assert!(with(None, Some("fake")).unwrap().resume_command.unwrap().ends_with(&written.native_id));
    let err = with(None, Some("openai")).unwrap_err();
    assert!(matches!(&err, CodecError::Other(m) if m.contains("no provider option")), "{err:?}");
    // No config at all: no model can be named.
    let bare = tempfile::tempdir().unwrap();
    target::set_for_tests(TargetChoice { model: Some("fake".into()), provider: None, allow_untested: false });
    let err = prepare(&written, bare.path(), Some(CWD)).unwrap_err();
    target::set_for_tests(TargetChoice::default());
    assert!(matches!(&err, CodecError::Other(m) if m.contains("config.toml")), "{err:?}");
}

#[test]
fn prepare_refuses_artifacts_that_are_not_one_session() {
    let written = written_simple();
    let target = tempfile::tempdir().unwrap();
    let mut odd = written.artifacts.clone();
    odd[0].path = format!("../{}", odd[0].path);
    let options = options(Some(CWD), Some(&written.native_id));
    assert!(
        trajhost_codec_sdk::prepare_artifacts::<KimiCli>(odd, &Dir::native(target.path()), options.clone()).is_err()
    );
    let mut two = written.artifacts.clone();
    two[0].path = two[0].path.replace(&written.native_id, "other-id");
    assert!(
        trajhost_codec_sdk::prepare_artifacts::<KimiCli>(two, &Dir::native(target.path()), options.clone()).is_err()
    );
    let wrong = WriteOptions { native_id: Some("another".into()), ..options };
    assert!(
        trajhost_codec_sdk::prepare_artifacts::<KimiCli>(written.artifacts.clone(), &Dir::native(target.path()), wrong)
            .is_err()
    );
}
