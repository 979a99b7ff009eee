//! The single-JSON writer and its `prepare`, against the session the real
//! Gemini CLI 0.25.0 wrote (fixtures/gemini-cli/0.25.0/simple) and the lab
//! fixtures of other harnesses read by their own codecs, run natively.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_claude_code::ClaudeCode;
use trajhost_codec_codex::Codex;
use trajhost_codec_gemini_cli::GeminiCli;
use trajhost_codec_gemini_cli_json::prepare::JSONL_CODEC;
use trajhost_codec_gemini_cli_json::write::{CANCELLED_RESULT, project_hash};
use trajhost_codec_gemini_cli_json::{GeminiCliJson, WRITES_FOR};
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::CreateFile;
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::target::{TargetChoice, set_for_tests};
use trajhost_codec_sdk::{Codec, CodecError, Operation, Plan, Severity, WriteOptions, WrittenFiles};
use trajhost_codec_testkit::{
    self as kit, Read, Spans, assistant_texts, assistants, observations, reasonings, tool_calls, tool_results, users,
};

const CWD: &str = "/home/user/project";
/// SHA-256 of [`CWD`]: the lab's project directory.
const HASH: &str = "9dad1e4e08b0b11cbcd860257e8bdfa6b8e5f01790e10a6a0b1f4870c13e686b";
const REAL_ID: &str = "f4a10c33-aac8-4841-91b2-87e99e2e6dcd";
const REAL_FILE: &str = "session-2026-12-06T03-56-f4a10c33.json";

/// This crate's own checkout of the fixtures.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn real_home() -> PathBuf {
    fixtures().join("gemini-cli/0.25.0/simple")
}

fn real_locator() -> String {
    format!(".gemini/tmp/{HASH}/chats/{REAL_FILE}")
}

fn read_real() -> Read {
    kit::read::<GeminiCliJson>(&real_home(), &real_locator())
}

fn no_options() -> WriteOptions {
    WriteOptions { cwd: None, native_id: None, home_path: None }
}

fn with_cwd() -> WriteOptions {
    WriteOptions { cwd: Some(CWD.into()), ..no_options() }
}

fn write(document: &str, options: WriteOptions) -> WrittenFiles {
    kit::suite::write::<GeminiCliJson>(document, options)
}

fn session_artifact(written: &WrittenFiles) -> &trajhost_codec_sdk::Artifact {
    written.artifacts.iter().find(|a| a.path.ends_with(".json")).expect("a session document")
}

/// Puts written artifacts into a fresh home and reads the session back
/// (with every testkit check).
fn read_back(written: &WrittenFiles) -> (tempfile::TempDir, Read) {
    let tmp = kit::install(written);
    let back = kit::conformance::<GeminiCliJson>(tmp.path(), &session_artifact(written).path, Spans::Bytes);
    (tmp, back)
}

/// A record without what a rewrite changes by design: its source span, and
/// for `meta` the session id and codec.
fn comparable(record: &Record) -> Value {
    let mut v = serde_json::to_value(record).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("src");
    if o.get("kind") == Some(&json!("meta")) {
        for k in ["id", "native_id", "codec"] {
            o.remove(k);
        }
    }
    v
}

/// The keys of a pretty-printed JSON document, in order, with their depth
/// (`JSON.stringify(…, null, 2)` puts each on its own line).
fn keys_in_order(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .filter_map(|line| {
            let trimmed = line.trim_start();
            let depth = line.len() - trimmed.len();
            let rest = trimmed.strip_prefix('"')?;
            let end = rest.find("\": ")?;
            Some((depth, rest[..end].to_string()))
        })
        .collect()
}

fn without_keys(mut v: Value, keys: &[&str]) -> Value {
    fn strip(v: &mut Value, keys: &[&str]) {
        match v {
            Value::Object(o) => {
                for k in keys {
                    o.remove(*k);
                }
                o.values_mut().for_each(|x| strip(x, keys));
            }
            Value::Array(a) => a.iter_mut().for_each(|x| strip(x, keys)),
            _ => {}
        }
    }
    strip(&mut v, keys);
    v
}

// ---------------------------------------------------------------- info

#[test]
fn the_writer_names_its_format_and_versions() {
    let info = GeminiCliJson::info();
    assert_eq!(<GeminiCliJson as Codec>::WRITES_FOR, ">=0.1.0, <0.39.0");
    assert_eq!(WRITES_FOR, info.native_versions, "it writes the versions it reads");
}

// ---------------------------------------------------------------- write

/// The sessions the real Gemini CLI 0.25.0 wrote: (scenario, home, locator).
fn real_sessions() -> Vec<(String, PathBuf, String)> {
    ["simple", "parallel", "multibyte"]
        .iter()
        .map(|scenario| {
            let home = fixtures().join("gemini-cli/0.25.0").join(scenario);
            let found = kit::discover::<GeminiCliJson>(&home);
            assert_eq!(found.sessions.len(), 1, "{scenario}");
            (scenario.to_string(), home, found.sessions[0].locator.clone())
        })
        .collect()
}

/// A document without its session id and the UI's metadata of each call
/// (`resultDisplay`, `displayName`, `description`, `renderOutputAsMarkdown`:
/// what 0.25's tool registry knows of a tool).
fn without_ui(mut doc: Value) -> Value {
    doc.as_object_mut().unwrap().remove("sessionId");
    for message in doc["messages"].as_array_mut().unwrap() {
        for call in message.get_mut("toolCalls").and_then(Value::as_array_mut).into_iter().flatten() {
            for key in ["resultDisplay", "displayName", "description", "renderOutputAsMarkdown"] {
                call.as_object_mut().unwrap().remove(key);
            }
        }
    }
    doc
}

#[test]
fn real_sessions_are_written_back_as_gemini_cli_0_25_wrote_them() {
    for (scenario, home, locator) in real_sessions() {
        let source = kit::read::<GeminiCliJson>(&home, &locator);
        let written = write(&source.document, with_cwd());
        let real_id = locator.rsplit('-').next().unwrap().trim_end_matches(".json");
        assert!(!written.native_id.starts_with(real_id), "{scenario}: a fresh session id");
        let artifact = session_artifact(&written);
        let minutes = &locator.rsplit('/').next().unwrap()["session-".len().."session-2026-12-06T03-56".len()];
        assert_eq!(
            artifact.path,
            format!(".gemini/tmp/{HASH}/chats/session-{minutes}-{}.json", &written.native_id[..8]),
            "{scenario}"
        );
        let marker = written.artifacts.iter().find(|a| a.path.ends_with(".project_root")).unwrap();
        assert_eq!(marker.path, format!(".gemini/tmp/{HASH}/.project_root"));
        assert_eq!(marker.bytes, CWD.as_bytes());

        let real_text = std::fs::read_to_string(home.join(&locator)).unwrap();
        let ours_text = std::str::from_utf8(&artifact.bytes).unwrap();
        // Field by field, in Gemini CLI's order; `resultDisplay` (what its UI
        // showed of a result, optional) is the one key not written.
        let real_keys: Vec<(usize, String)> =
            keys_in_order(&real_text).into_iter().filter(|(_, k)| k != "resultDisplay").collect();
        assert_eq!(keys_in_order(ours_text), real_keys, "{scenario}");
        // And value by value, but for the new id and the UI's tool metadata.
        let real: Value = serde_json::from_str(&real_text).unwrap();
        let ours: Value = serde_json::from_str(ours_text).unwrap();
        assert_eq!(ours["sessionId"], written.native_id.as_str());
        assert_eq!(without_ui(ours.clone()), without_ui(real), "{scenario}");
        for call in ours["messages"].as_array().unwrap().iter().filter_map(|m| m["toolCalls"].as_array()).flatten() {
            assert_eq!((&call["displayName"], &call["description"]), (&call["name"], &json!("")), "{scenario}");
        }
        // Like Gemini CLI's file: no newline at the end.
        assert!(ours_text.ends_with("\n}"));
        // Deterministic.
        assert_eq!(session_artifact(&write(&source.document, with_cwd())).bytes, artifact.bytes);
    }
}

/// The suite's round trip keeps the lab's sessions record for record; a
/// hand-written document keeps every value too, and the written session
/// takes its cwd from the export's `.project_root`.
#[test]
fn write_then_read_is_value_lossless_on_gemini_documents() {
    let small = ".gemini/tmp/webapp/chats/session-2025-10-01T08-00-d41f0b2e.json";
    let legacy = fixtures().join("gemini-cli/legacy-json/home");
    let mut documents: Vec<(PathBuf, String)> = vec![(legacy, small.to_string())];
    let (_, home, locator) = real_sessions().remove(0);
    documents.push((home, locator));
    for (home, locator) in documents {
        let source = kit::read::<GeminiCliJson>(&home, &locator);
        let written = write(&source.document, with_cwd());
        assert!(written.diagnostics.iter().all(|d| d.code != "not-carried"), "{:?}", written.diagnostics);
        let (_tmp, back) = read_back(&written);
        assert_eq!(back.meta().native_id, written.native_id);
        assert_eq!(back.meta().cwd.as_deref(), Some(CWD), "from the export's .project_root");
        let a: Vec<Value> = source.records.iter().skip(1).map(comparable).collect();
        let b: Vec<Value> = back.records.iter().skip(1).map(comparable).collect();
        assert_eq!(a, b, "{locator}");
        assert_eq!(back.meta().title, source.meta().title);
        assert_eq!(back.meta().started_at, source.meta().started_at);
        assert!(back.diagnostics.iter().all(|d| d.severity == Severity::Info), "{:?}", back.diagnostics);
    }
}

/// A lab fixture of another harness, read by its own codec.
struct Foreign {
    name: String,
    read: Read,
}

fn foreign_sessions() -> Vec<Foreign> {
    fn all<C: Codec>(harness: &str, version: &str, out: &mut Vec<Foreign>) {
        for scenario in ["simple", "parallel", "failing-tool", "multibyte", "long-output"] {
            let home = fixtures().join(harness).join(version).join(scenario);
            let found = kit::discover::<C>(&home);
            assert_eq!(found.sessions.len(), 1, "{harness} {scenario}");
            let read = kit::read::<C>(&home, &found.sessions[0].locator);
            out.push(Foreign { name: format!("{harness}@{version}/{scenario}"), read });
        }
    }
    let mut out = Vec::new();
    all::<Codex>("codex", "0.171.0", &mut out);
    all::<ClaudeCode>("claude-code", "2.1.197", &mut out);
    all::<GeminiCli>("gemini-cli", "0.61.0", &mut out);
    out
}

#[test]
fn lab_sessions_of_other_harnesses_round_trip() {
    for Foreign { name, read: source } in foreign_sessions() {
        let written = write(&source.document, no_options());
        let (_tmp, back) = read_back(&written);
        assert_eq!(back.meta().cwd, source.meta().cwd, "{name}: the lab's cwd");
        if source.meta().title.is_some() {
            assert_eq!(back.meta().title, source.meta().title, "{name}");
        }
        assert!(back.diagnostics.iter().all(|d| d.severity == Severity::Info), "{name}: {:?}", back.diagnostics);
        // What the resumed model is sent survives: prompts, answers, calls, results.
        let prompts = |r: &Read| users(&r.records).into_iter().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(prompts(&back), prompts(&source), "{name}");
        let said = |r: &Read| {
            assistant_texts(&r.records).into_iter().filter(|t| !t.is_empty()).map(str::to_string).collect::<Vec<_>>()
        };
        assert_eq!(said(&back), said(&source), "{name}");
        let calls = |r: &Read| {
            tool_calls(&r.records)
                .into_iter()
                .map(|(id, n, a)| {
                    let a = if a.is_object() { a.clone() } else { json!({ "input": a }) };
                    (id.to_string(), n.to_string(), a)
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(calls(&back), calls(&source), "{name}");
        let results = |r: &Read| {
            let mut v: Vec<(String, String)> =
                tool_results(&r.records).into_iter().map(|(id, c, _)| (id.to_string(), c.to_string())).collect();
            v.sort();
            v
        };
        assert_eq!(results(&back), results(&source), "{name}");
        for (id, _, ok) in tool_results(&source.records) {
            let back_ok = tool_results(&back.records).into_iter().find(|r| r.0 == id).unwrap().2;
            assert_eq!(back_ok, Some(ok.unwrap_or(true)), "{name}: {id}");
        }
        let thoughts = |r: &Read| {
            reasonings(&r.records).iter().filter_map(|x| x.text.clone()).filter(|t| !t.is_empty()).collect::<Vec<_>>()
        };
        assert_eq!(thoughts(&back), thoughts(&source), "{name}");
        // The lab's sentinel reaches the file.
        let text = std::str::from_utf8(&session_artifact(&written).bytes).unwrap();
        assert!(
            ["PAPAYA-42", "KIWI-58", "CHERRY-本-91", "LEMON-512", "missing.txt"].iter().any(|s| text.contains(s)),
            "{name}"
        );
    }
}

/// A session of another harness with what Gemini CLI 0.2x has no place for.
fn foreign_document() -> String {
    let records = [
        json!({"id":"m","kind":"meta","schema":"trajhost.canonical/0.1","harness":"claude-code","native_id":"abc","cwd":CWD,"title":"Secret word","started_at":"2026-11-30T04:05:50.000Z"}),
        json!({"id":"s1","kind":"system","text":"You are Claude Code"}),
        json!({"id":"u1","kind":"user","text":"Read hello.txt and tell me the secret word.","attachments":[{"kind":"image"}],"ts":"2026-11-30T04:05:51.000Z"}),
        json!({"id":"r1","kind":"reasoning","text":"I should read the file.","opaque":"sig","ts":"2026-11-30T04:05:52.000Z"}),
        json!({"id":"a1","kind":"assistant","text":"Let me read it.","model":"claude-sonnet-4-5","message_id":"msg_1","stop_reason":"tool_use","usage":{"input":10,"output":5,"cache_read":100,"cache_write":20},"ts":"2026-11-30T04:05:52.000Z"}),
        json!({"id":"c1","kind":"tool_call","call_id":"toolu_01","name":"Bash","arguments":{"command":"cat hello.txt"},"ts":"2026-11-30T04:05:52.000Z"}),
        json!({"id":"c2","kind":"tool_call","call_id":"toolu_02","name":"Read","arguments":"raw text","ts":"2026-11-30T04:05:52.000Z"}),
        json!({"id":"n1","kind":"user","text":"(a note typed while the tools ran)","ts":"2026-11-30T04:05:52.500Z"}),
        json!({"id":"c1r","kind":"tool_result","call_id":"toolu_01","content":"PAPAYA-42","ts":"2026-11-30T04:05:53.000Z"}),
        json!({"id":"c2r","kind":"tool_result","call_id":"toolu_02","content":"no such file","ok":false,"ts":"2026-11-30T04:05:55.000Z"}),
        json!({"id":"c2d","kind":"tool_result","call_id":"toolu_02","content":"again","ts":"2026-11-30T04:05:55.100Z"}),
        json!({"id":"x","kind":"tool_result","call_id":"toolu_99","content":"orphan","ts":"2026-11-30T04:05:55.200Z"}),
        json!({"id":"o1","kind":"observation","subtype":"system/turn_duration","ts":"2026-11-30T04:05:56.000Z"}),
        json!({"id":"o2","kind":"observation","subtype":"info","text":"Switched model","ts":"2026-11-30T04:05:56.100Z"}),
        json!({"id":"k1","kind":"compaction","summary":"earlier","ts":"2026-11-30T04:05:56.500Z"}),
        json!({"id":"a2","kind":"assistant","text":"FINAL ANSWER: PAPAYA-42","model":"claude-sonnet-4-5","ts":"2026-11-30T04:05:57.000Z"}),
        json!({"id":"c3","kind":"tool_call","call_id":"toolu_03","name":"Bash","arguments":{"command":"sleep 99"},"ts":"2026-11-30T04:05:58.000Z"}),
        json!({"id":"a3","kind":"assistant","text":"Still waiting.","ts":"2026-11-30T04:05:59.000Z"}),
        json!({"id":"r2","kind":"reasoning","text":"The user left.","ts":"2026-11-30T04:06:00.000Z"}),
        json!({"id":"sm","kind":"meta","schema":"trajhost.canonical/0.1","harness":"claude-code","native_id":"agent-1","agent":"agent-1"}),
        json!({"id":"sa","kind":"user","text":"subagent prompt","agent":"agent-1"}),
        json!({"id":"z","kind":"future_kind"}),
    ];
    records.iter().map(|r| format!("{r}\n")).collect()
}

#[test]
fn write_from_another_harness_names_what_does_not_carry() {
    let written = write(&foreign_document(), no_options());
    let d = &written.diagnostics;
    kit::check_reported(
        d,
        "not-carried",
        &[
            "system",
            "attachments",
            "opaque-reasoning",
            "stop-reason",
            "usage.cache_write",
            "orphan-tool-result",
            "duplicate-tool-result",
            "observation/system/turn_duration",
            "compaction",
            "subagent-transcript",
            "unknown-kind/future_kind",
        ],
    );
    assert_eq!(kit::diag_with(d, "not-carried", "subagent-transcript").unwrap().count, 2);
    assert!(kit::diag_with(d, "reshaped", "tool_call.arguments").is_some());
    assert!(kit::diag_with(d, "placeholder", "toolCalls.status").is_some());
    assert!(kit::diag_with(d, "placeholder", "toolCalls.result (cancelled)").is_some());
    let text = std::str::from_utf8(&session_artifact(&written).bytes).unwrap();
    for absent in ["You are Claude Code", "subagent prompt", "orphan", "\"sig\"", "again"] {
        assert!(!text.contains(absent), "{absent} was written");
    }
    let doc: Value = serde_json::from_str(text).unwrap();
    assert_eq!(doc["summary"], "Secret word");
    assert_eq!(doc["lastUpdated"], "2026-11-30T04:06:00.000Z");
    let types: Vec<&str> = doc["messages"].as_array().unwrap().iter().map(|m| m["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["user", "gemini", "user", "info", "gemini", "gemini", "gemini"]);
    // Both results went into their calls, behind the note typed meanwhile:
    // no user message carries a functionResponse.
    let calls = &doc["messages"][1]["toolCalls"];
    assert_eq!(calls[0]["status"], "success");
    assert_eq!(calls[0]["result"][0]["functionResponse"]["response"]["output"], "PAPAYA-42");
    assert_eq!(calls[1]["status"], "error");
    assert_eq!(calls[1]["result"][0]["functionResponse"]["response"]["error"], "no such file");
    assert_eq!(calls[1]["args"], json!({"input": "raw text"}));
    assert!(doc["messages"].as_array().unwrap().iter().all(|m| m["type"] != "user" || m["content"].is_string()));
    // The call never answered is cancelled, as Gemini CLI records one.
    let last = &doc["messages"][4]["toolCalls"][0];
    assert_eq!(last["status"], "cancelled");
    assert_eq!(last["result"][0]["functionResponse"]["response"]["error"], CANCELLED_RESULT);
    let tokens = &doc["messages"][1]["tokens"];
    assert_eq!(*tokens, json!({"input": 110, "output": 5, "cached": 100, "tool": 0, "total": 115}));
    assert_eq!(doc["messages"][4]["content"], "FINAL ANSWER: PAPAYA-42");
    assert!(doc["messages"][4].get("tokens").is_none(), "a message with calls and no usage has no tokens");
    assert_eq!(doc["messages"][5]["tokens"], Value::Null, "no usage recorded: null, as 0.25 writes it");
    // Reasoning at the end keeps its place, in a message of its own.
    assert_eq!(doc["messages"][6]["content"], "");
    assert_eq!(doc["messages"][6]["thoughts"][0]["description"], "The user left.");

    let (_tmp, back) = read_back(&written);
    assert_eq!(back.meta().title.as_deref(), Some("Secret word"));
    assert_eq!(
        users(&back.records),
        ["Read hello.txt and tell me the secret word.", "(a note typed while the tools ran)"]
    );
    let texts: Vec<&str> = assistants(&back.records).iter().map(|a| a.text.as_str()).collect();
    assert_eq!(texts, ["Let me read it.", "FINAL ANSWER: PAPAYA-42", "Still waiting."]);
    assert_eq!(tool_calls(&back.records)[0], ("toolu_01", "Bash", &json!({"command": "cat hello.txt"})));
    assert_eq!(
        tool_results(&back.records),
        [
            ("toolu_01", "PAPAYA-42", Some(true)),
            ("toolu_02", "no such file", Some(false)),
            ("toolu_03", CANCELLED_RESULT, Some(false))
        ]
    );
    let thoughts: Vec<&str> = reasonings(&back.records).iter().filter_map(|r| r.text.as_deref()).collect();
    assert_eq!(thoughts, ["I should read the file.", "The user left."]);
    assert_eq!(observations(&back.records), [("info", Some("Switched model"))]);
    let usage = assistants(&back.records)[0].usage.clone().unwrap();
    assert_eq!((usage.input, usage.output, usage.cache_read), (Some(10), Some(5), Some(100)));
}

#[test]
fn write_needs_a_working_directory_and_a_uuid() {
    let doc = "{\"id\":\"m\",\"kind\":\"meta\",\"schema\":\"trajhost.canonical/0.1\",\"harness\":\"x\",\"native_id\":\"a\"}\n\
               {\"id\":\"u\",\"kind\":\"user\",\"text\":\"hi\"}\n";
    let err = trajhost_codec_sdk::write_document::<GeminiCliJson>(doc, no_options()).unwrap_err();
    assert!(format!("{err:?}").contains("--cwd"), "{err:?}");
    let ok = write(doc, WriteOptions { cwd: Some("/w/".into()), ..no_options() });
    let hash = project_hash("/w");
    assert!(session_artifact(&ok).path.starts_with(&format!(".gemini/tmp/{hash}/chats/session-1970-01-01T00-00-")));
    assert!(kit::diag_with(&ok.diagnostics, "placeholder", "startTime").is_some());
    let chosen = "0193a1b2-0000-4000-8000-000000000001";
    let w = write(doc, WriteOptions { cwd: Some("/w".into()), native_id: Some(chosen.into()), home_path: None });
    assert_eq!(w.native_id, chosen);
    let err = trajhost_codec_sdk::write_document::<GeminiCliJson>(
        doc,
        WriteOptions { cwd: Some("/w".into()), native_id: Some("nope".into()), home_path: None },
    )
    .unwrap_err();
    assert!(matches!(err, CodecError::Other(_)), "{err:?}");
    let bad = trajhost_codec_sdk::write_document::<GeminiCliJson>("{nope\n", no_options()).unwrap_err();
    assert!(matches!(bad, CodecError::Malformed(_)), "{bad:?}");
}

// ---------------------------------------------------------------- prepare

fn prepare(written: &WrittenFiles, target: &Path, options: WriteOptions) -> Result<Plan, CodecError> {
    trajhost_codec_sdk::prepare_artifacts::<GeminiCliJson>(written.artifacts.clone(), &Dir::native(target), options)
}

fn target_options(target: &Path) -> WriteOptions {
    WriteOptions { cwd: Some(CWD.into()), native_id: None, home_path: Some(target.to_string_lossy().into_owned()) }
}

fn the_file(plan: &Plan) -> &CreateFile {
    assert_eq!(plan.operations.len(), 1, "{:?}", plan.operations);
    match &plan.operations[0] {
        Operation::CreateFile(f) => f,
        other => panic!("{other:?}"),
    }
}

fn written_real() -> WrittenFiles {
    write(&read_real().document, with_cwd())
}

#[test]
fn prepare_into_a_fresh_home_adds_one_file_under_the_cwd_hash() {
    let written = written_real();
    let target = tempfile::tempdir().unwrap();
    set_for_tests(Default::default());
    let plan = prepare(&written, target.path(), target_options(target.path())).unwrap();
    assert_eq!(plan.native_id, written.native_id);
    let file = the_file(&plan);
    assert_eq!(file.path, session_artifact(&written).path);
    assert!(file.path.starts_with(&format!(".gemini/tmp/{HASH}/chats/session-")));
    assert_eq!(file.bytes, session_artifact(&written).bytes);
    assert_eq!(
        plan.resume_command.as_deref(),
        Some(
            format!("cd {CWD} && GEMINI_CLI_HOME={} gemini --resume {}", target.path().display(), written.native_id)
                .as_str()
        )
    );
    kit::apply_new_files(&plan, target.path());
    // No registry, no .project_root: the 0.2x layout.
    assert!(!target.path().join(".gemini/projects.json").exists());
    assert!(!target.path().join(format!(".gemini/tmp/{HASH}/.project_root")).exists());
}

#[test]
fn prepare_into_a_home_with_a_real_0_25_session_adds_only_the_file() {
    let written = write(&foreign_document(), no_options());
    let target = kit::copy_of(&real_home());
    let before = kit::tree_digest(target.path());
    set_for_tests(Default::default());
    let plan = prepare(&written, target.path(), target_options(target.path())).unwrap();
    let file = the_file(&plan);
    assert!(file.path.starts_with(&format!(".gemini/tmp/{HASH}/chats/session-2026-11-30T04-05-")), "{}", file.path);
    kit::apply_new_files(&plan, target.path());
    let after = kit::tree_digest(target.path());
    for (path, digest) in &before {
        assert_eq!(after.get(path), Some(digest), "{path} changed");
    }
    assert_eq!(after.len(), before.len() + 1);
    let found = kit::discover::<GeminiCliJson>(target.path());
    let ids: BTreeSet<&str> = found.sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert_eq!(ids, BTreeSet::from([REAL_ID, written.native_id.as_str()]));
}

#[test]
fn prepare_refuses_a_home_in_the_jsonl_layout_naming_the_codec_that_writes_it() {
    let written = written_real();
    let target = kit::copy_of(&fixtures().join("gemini-cli/0.61.0/simple"));
    let before = kit::tree_digest(target.path());
    set_for_tests(Default::default());
    let err = prepare(&written, target.path(), target_options(target.path())).unwrap_err();
    let message = format!("{err:?}");
    assert!(message.contains(".gemini/tmp/project/chats/session-2026-11-30T04-15-d6e3a419.jsonl"), "{message}");
    assert!(message.contains("JSONL layout (0.39 and later)"), "{message}");
    assert!(message.contains(&format!("--codec {JSONL_CODEC}")), "{message}");
    kit::assert_same_tree(&before, &kit::tree_digest(target.path()), "a refused prepare");
}

#[test]
fn prepare_follows_the_project_registry_of_0_29_to_0_38() {
    let written = written_real();
    set_for_tests(Default::default());
    let registry = format!(r#"{{"projects":{{"{CWD}":"project"}}}}"#);
    // A slug directory in use: its chats directory gets the file.
    let target = tempfile::tempdir().unwrap();
    let chats = target.path().join(".gemini/tmp/project/chats");
    std::fs::create_dir_all(&chats).unwrap();
    std::fs::write(target.path().join(".gemini/projects.json"), &registry).unwrap();
    std::fs::write(target.path().join(".gemini/tmp/project/.project_root"), CWD).unwrap();
    std::fs::write(chats.join("session-2026-01-01T00-00-0badcafe.json"), "{}").unwrap();
    let plan = prepare(&written, target.path(), target_options(target.path())).unwrap();
    assert!(the_file(&plan).path.starts_with(".gemini/tmp/project/chats/session-"), "{}", the_file(&plan).path);
    // A slug directory with only its marker: the hash directory, which those
    // builds copy into it at their next start.
    std::fs::remove_dir_all(&chats).unwrap();
    let plan = prepare(&written, target.path(), target_options(target.path())).unwrap();
    assert!(the_file(&plan).path.starts_with(&format!(".gemini/tmp/{HASH}/chats/")));
    // Another cwd's entry changes nothing.
    std::fs::write(target.path().join(".gemini/projects.json"), r#"{"projects":{"/elsewhere":"x"}}"#).unwrap();
    let plan = prepare(&written, target.path(), target_options(target.path())).unwrap();
    assert!(the_file(&plan).path.starts_with(&format!(".gemini/tmp/{HASH}/chats/")));
    // A registry Gemini CLI could not read: where it keeps sessions is unknown.
    std::fs::write(target.path().join(".gemini/projects.json"), "not json").unwrap();
    let err = prepare(&written, target.path(), target_options(target.path())).unwrap_err();
    assert!(matches!(err, CodecError::Malformed(_)) && format!("{err:?}").contains("projects.json"), "{err:?}");
}

#[test]
fn prepare_under_another_cwd_rewrites_the_project_hash() {
    let written = written_real();
    let target = tempfile::tempdir().unwrap();
    set_for_tests(Default::default());
    let other = "/srv/other project";
    let plan =
        prepare(&written, target.path(), WriteOptions { cwd: Some(other.into()), ..target_options(target.path()) })
            .unwrap();
    let file = the_file(&plan);
    let hash = project_hash(other);
    assert!(file.path.starts_with(&format!(".gemini/tmp/{hash}/chats/")));
    let doc: Value = serde_json::from_slice(&file.bytes).unwrap();
    assert_eq!(doc["projectHash"], hash.as_str());
    let before: Value = serde_json::from_slice(&session_artifact(&written).bytes).unwrap();
    assert_eq!(without_keys(doc, &["projectHash"]), without_keys(before, &["projectHash"]));
    assert!(plan.resume_command.unwrap().starts_with("cd '/srv/other project' && "));
}

#[test]
fn prepare_takes_the_model_and_refuses_other_providers() {
    let written = written_real();
    let target = tempfile::tempdir().unwrap();
    set_for_tests(TargetChoice {
        model: Some("gemini-2.5-pro".into()),
        provider: Some("Google".into()),
        ..Default::default()
    });
    let plan =
        prepare(&written, target.path(), WriteOptions { home_path: None, ..target_options(target.path()) }).unwrap();
    assert_eq!(
        plan.resume_command.as_deref(),
        Some(format!("cd {CWD} && gemini -m gemini-2.5-pro --resume {}", written.native_id).as_str())
    );
    set_for_tests(TargetChoice { provider: Some("openai".into()), ..Default::default() });
    let err = prepare(&written, target.path(), target_options(target.path())).unwrap_err();
    assert!(format!("{err:?}").contains("Gemini API"), "{err:?}");
    set_for_tests(TargetChoice { model: Some(" bad\n".into()), ..Default::default() });
    assert!(prepare(&written, target.path(), target_options(target.path())).is_err());
    set_for_tests(Default::default());
    let err = prepare(
        &written,
        target.path(),
        WriteOptions {
            native_id: Some("0193a1b2-0000-4000-8000-000000000001".into()),
            ..target_options(target.path())
        },
    )
    .unwrap_err();
    assert!(matches!(err, CodecError::Malformed(_)), "{err:?}");
}

#[test]
fn prepare_refuses_a_document_gemini_cli_would_not_list() {
    let doc = "{\"id\":\"m\",\"kind\":\"meta\",\"schema\":\"trajhost.canonical/0.1\",\"harness\":\"x\",\"native_id\":\"a\",\"cwd\":\"/w\"}\n\
               {\"id\":\"o\",\"kind\":\"observation\",\"subtype\":\"info\",\"text\":\"only a notice\"}\n";
    let written = write(doc, no_options());
    let target = tempfile::tempdir().unwrap();
    set_for_tests(Default::default());
    let err = prepare(&written, target.path(), target_options(target.path())).unwrap_err();
    assert!(format!("{err:?}").contains("no user or gemini message"), "{err:?}");
}

#[test]
fn the_written_document_is_what_the_reader_and_sniff_expect() {
    let written = written_real();
    let bytes = &session_artifact(&written).bytes;
    let sniffed = GeminiCliJson::sniff("copy.json", &bytes[..bytes.len().min(64 << 10)]).expect("claimed");
    assert_eq!(sniffed.native_id.as_deref(), Some(written.native_id.as_str()));
    let (_tmp, back) = read_back(&written);
    assert!(back.records.iter().all(|r| !matches!(r.body, Body::System { .. })));
}

/// Gemini CLI 0.25's resume, too, leaves a user message that starts with `/`
/// or `?` out of the history: such a prompt from another harness is guarded,
/// reported, and reads back as it was.
#[test]
fn a_prompt_that_looks_like_a_command_is_guarded_and_reads_back_whole() {
    let records = [
        json!({"id":"m","kind":"meta","schema":"trajhost.canonical/0.1","harness":"aider","native_id":"s1","cwd":CWD}),
        json!({"id":"u1","kind":"user","text":"/run cat hello.txt","ts":"2026-11-30T04:05:50.000Z"}),
        json!({"id":"u2","kind":"user","text":"read /tmp/x","ts":"2026-11-30T04:05:51.000Z"}),
    ];
    let document: String = records.iter().map(|r| format!("{r}\n")).collect();
    let written = write(&document, with_cwd());
    let reshaped = kit::diag_with(&written.diagnostics, "reshaped", "user.text").expect("a reshaped diagnostic");
    assert_eq!(reshaped.count, 1);
    let doc: Value = serde_json::from_slice(&session_artifact(&written).bytes).unwrap();
    let prompts: Vec<&str> = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["type"] == "user")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(prompts, ["\u{200B}/run cat hello.txt", "read /tmp/x"]);
    let (_tmp, back) = read_back(&written);
    assert_eq!(users(&back.records), ["/run cat hello.txt", "read /tmp/x"]);
}
