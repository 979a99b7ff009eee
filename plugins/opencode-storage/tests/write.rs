//! The order of a multi-step message, and the writer of the per-project tree
//! (OpenCode < 0.6), against sessions of the real OpenCode 0.5.29
//! (fixtures/opencode/0.5.29, written by the lab) and the hand-written trees.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_opencode_storage::{OpenCodeStorage, WRITES, WRITES_FOR, writes_for};
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::Operation;
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, CodecError, Plan, Severity, WriteOptions, WrittenFiles};
use trajhost_codec_testkit::{self as kit, Read, Spans, assistants, document, kinds};

const CWD: &str = "/home/user/project";
const TREE: &str = ".local/share/opencode/project/global/storage/session";
const SCENARIOS: [&str; 3] = ["simple", "parallel", "multibyte"];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/opencode")
}

fn real(scenario: &str) -> PathBuf {
    fixtures().join("0.5.29").join(scenario)
}

/// The one session of a home: (locator, read).
fn only_session(home: &Path) -> (String, Read) {
    let found = kit::discover::<OpenCodeStorage>(home);
    assert_eq!(found.sessions.len(), 1, "{:?}", found.sessions);
    let locator = found.sessions[0].locator.clone();
    let read = kit::read::<OpenCodeStorage>(home, &locator);
    (locator, read)
}

/// The conversation in order: what each record says, kind by kind.
fn conversation(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::User { text, .. } => Some(format!("user: {text}")),
            Body::Assistant(a) if !a.text.is_empty() => Some(format!("assistant: {}", a.text)),
            Body::Reasoning(x) => Some(format!("reasoning: {}", x.text.as_deref().unwrap_or(""))),
            Body::ToolCall { name, arguments, .. } => Some(format!("call: {name} {arguments}")),
            Body::ToolResult { content, ok, .. } => Some(format!("result: {content} {ok:?}")),
            Body::Compaction { summary, .. } => Some(format!("compaction: {summary}")),
            _ => None,
        })
        .collect()
}

fn options() -> WriteOptions {
    WriteOptions { cwd: Some(CWD.into()), native_id: None, home_path: None }
}

fn write(records: &[Record], options: WriteOptions) -> WrittenFiles {
    trajhost_codec_sdk::write_document::<OpenCodeStorage>(&document(records), options).unwrap()
}

/// The export's files as they are (`convert` reads them back so).
fn export_home(written: &WrittenFiles) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for a in &written.artifacts {
        kit::create_new_file(dir.path(), &a.path, &a.bytes);
    }
    dir
}

fn prepare(written: &WrittenFiles, target: &Path, options: WriteOptions) -> Result<Plan, CodecError> {
    trajhost_codec_sdk::prepare_artifacts::<OpenCodeStorage>(written.artifacts.clone(), &Dir::native(target), options)
}

fn json_file(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

// ---------------------------------------------------------------- order

/// The suite checks what each lab scenario holds; the first step of its
/// OpenCode message only called, the answer is the second's.
#[test]
fn real_0_5_29_sessions_answer_in_the_second_step_of_one_message() {
    for scenario in SCENARIOS {
        let (_, read) = only_session(&real(scenario));
        let answers = assistants(&read.records);
        assert_eq!(answers[0].text, "", "{scenario}: the first step only called");
        assert!(answers[1].text.starts_with("FINAL ANSWER: the tool returned: "), "{scenario}");
        assert_eq!(answers[0].message_id, answers[1].message_id, "one OpenCode message");
    }
}

/// A message of two steps with their own usage and reasoning (the shape of
/// 0.5.29's: `step-start, tool, step-finish, step-start, text, step-finish`).
fn two_step_home() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = ".local/share/opencode/project/home-u-app/storage/session";
    let s = "ses_two";
    let file = |path: String, value: Value| kit::create_new_file(dir.path(), &path, value.to_string().as_bytes());
    file(
        format!("{root}/info/{s}.json"),
        json!({"id": s, "version": "0.5.29", "title": "t", "time": {"created": 1000, "updated": 9000}}),
    );
    file(
        format!("{root}/message/{s}/msg_1.json"),
        json!({"id": "msg_1", "role": "user", "sessionID": s, "time": {"created": 1000}}),
    );
    file(
        format!("{root}/part/{s}/msg_1/prt_1.json"),
        json!({"id": "prt_1", "type": "text", "text": "look", "messageID": "msg_1", "sessionID": s}),
    );
    let tokens = |n: u64| json!({"input": n, "output": 1, "reasoning": 0, "cache": {"write": 0, "read": 0}});
    file(
        format!("{root}/message/{s}/msg_2.json"),
        json!({"id": "msg_2", "role": "assistant", "sessionID": s, "system": [], "mode": "build",
               "path": {"cwd": "/home/u/app", "root": "/home/u/app"}, "cost": 0.5, "tokens": tokens(20),
               "modelID": "m", "providerID": "p", "time": {"created": 2000, "completed": 5000}}),
    );
    let parts = [
        json!({"id": "prt_2a", "type": "step-start"}),
        json!({"id": "prt_2b", "type": "tool", "tool": "bash", "callID": "call_1",
               "state": {"status": "completed", "input": {"command": "ls"}, "output": "a.txt\n", "metadata": {"exit": 0},
                         "title": "ls", "time": {"start": 2100, "end": 2200}}}),
        json!({"id": "prt_2c", "type": "step-finish", "tokens": tokens(10), "cost": 0.2}),
        json!({"id": "prt_2d", "type": "step-start"}),
        json!({"id": "prt_2e", "type": "reasoning", "text": "one file", "time": {"start": 3000, "end": 3001}}),
        json!({"id": "prt_2f", "type": "text", "text": "There is a.txt.", "time": {"start": 3100, "end": 3100}}),
        json!({"id": "prt_2g", "type": "step-finish", "tokens": tokens(20), "cost": 0.3}),
    ];
    for mut p in parts {
        let id = p["id"].as_str().unwrap().to_string();
        p["messageID"] = "msg_2".into();
        p["sessionID"] = s.into();
        file(format!("{root}/part/{s}/msg_2/{id}.json"), p);
    }
    dir
}

#[test]
fn each_step_of_a_message_is_a_run_of_its_own() {
    let home = two_step_home();
    let (locator, _) = only_session(home.path());
    let read = kit::conformance::<OpenCodeStorage>(home.path(), &locator, Spans::Bytes);
    assert_eq!(
        kinds(&read.records),
        ["meta", "user", "assistant", "tool_call", "tool_result", "reasoning", "assistant"]
    );
    assert_eq!(
        conversation(&read.records),
        [
            "user: look",
            "call: bash {\"command\":\"ls\"}",
            "result: a.txt\n Some(true)",
            "reasoning: one file",
            "assistant: There is a.txt."
        ]
    );
    let ids: Vec<&str> = read.records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["ses_two", "msg_1", "msg_2", "prt_2b", "prt_2b#result", "prt_2e", "prt_2d#step"]);
    let call = &read.records[3];
    assert_eq!(call.parent.as_deref(), Some("msg_2"));
    // Each step has its own usage (its step-finish) and time.
    let steps = assistants(&read.records);
    assert_eq!(steps[0].usage.as_ref().map(|u| (u.input, u.cost_usd)), Some((Some(10), Some(0.2))));
    assert_eq!(steps[1].usage.as_ref().map(|u| (u.input, u.cost_usd)), Some((Some(20), Some(0.3))));
    assert_eq!(read.records[6].ts.as_deref(), Some("1970-01-01T00:00:03.000Z"));
    assert_eq!(read.records[6].parent.as_deref(), Some("msg_2"));
    assert_eq!(kit::span_json(home.path(), read.records[6].src.as_ref().unwrap())["id"], "prt_2d");
}

#[test]
fn without_step_markers_text_after_a_tool_is_a_later_step() {
    // The oldest tree: a call, then the answer, and no step parts.
    let home = fixtures().join("storage-oldest/home");
    let locator = ".local/share/opencode/project/home-user-old/storage/session/info/ses_0ld5e551on.json";
    let read = kit::read::<OpenCodeStorage>(&home, locator);
    assert_eq!(kinds(&read.records), ["meta", "user", "assistant", "tool_call", "tool_result", "assistant"]);
    assert_eq!(conversation(&read.records).last().unwrap(), "assistant: README.md and src/.");
}

// ---------------------------------------------------------------- write

#[test]
fn info_names_what_it_writes_and_for_which_versions() {
    assert_eq!(OpenCodeStorage::info().writes, vec![WRITES.to_string()]);
    assert_eq!(<OpenCodeStorage as Codec>::WRITES_FOR, WRITES_FOR);
    assert_eq!(WRITES_FOR, ">=0.0.1, <0.6.0");
    for (version, holds) in
        [("0.5.29", true), ("0.3.58", true), ("0.6.0", false), ("0.15.8", false), ("1.18.33", false)]
    {
        assert_eq!(writes_for(version), holds, "{version}");
    }
}

/// The hand-written trees whose records the format holds (the suite
/// round-trips the real sessions).
fn sources() -> Vec<(String, PathBuf, String)> {
    let mut out: Vec<(String, PathBuf, String)> = Vec::new();
    let storage = fixtures().join("storage/home");
    for (name, locator) in [
        ("compaction", ".local/share/opencode/storage/session/4b1e0c2d9a7f/ses_s_orders_child.json"),
        ("tiny", ".local/share/opencode/storage/session/global/ses_tiny.json"),
    ] {
        out.push((name.into(), storage.clone(), locator.into()));
    }
    let oldest = fixtures().join("storage-oldest/home");
    for id in ["ses_0ld5e551on", "ses_v1inl1ne"] {
        let locator = format!(".local/share/opencode/project/home-user-old/storage/session/info/{id}.json");
        out.push((id.into(), oldest.clone(), locator));
    }
    out
}

#[test]
fn round_trip_keeps_the_conversation_in_order() {
    for (name, home, locator) in sources() {
        let first = kit::read::<OpenCodeStorage>(&home, &locator);
        let written = write(&first.records, options());
        let out = export_home(&written);
        let (back_locator, second) = only_session(out.path());
        assert_eq!(back_locator, format!("{TREE}/info/{}.json", written.native_id), "{name}");
        kit::conformance::<OpenCodeStorage>(out.path(), &back_locator, Spans::Bytes);
        let mut got = conversation(&second.records);
        if name == "ses_v1inl1ne" {
            // A call that never finished gets an error result (defaulted).
            let interrupted = got.iter().position(|x| x == "result: Tool execution was interrupted Some(false)");
            got.remove(interrupted.expect("the unfinished call's result"));
        }
        assert_eq!(got, conversation(&first.records), "{name}");
        let (a, b) = (first.meta(), second.meta());
        let title = a.title.clone().unwrap_or_else(|| "Imported session".into());
        assert_eq!((b.title.as_deref(), b.cwd.as_deref()), (Some(title.as_str()), Some(CWD)), "{name}");
        let version = a.native_version.clone().filter(|v| writes_for(v)).unwrap_or_else(|| "0.5.29".into());
        assert_eq!(b.native_version.as_deref(), Some(version.as_str()), "{name}");
        assert!(second.diagnostics.iter().all(|d| d.severity == Severity::Info), "{name}: {:?}", second.diagnostics);
        // The same session gives the same files.
        let again = write(&first.records, options());
        assert_eq!(format!("{:?}", again.artifacts), format!("{:?}", written.artifacts), "{name}");
    }
}

/// `{key: shape}` of an object, recursively: what fields a file has.
fn shape(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let opaque = matches!(k.as_str(), "input" | "metadata" | "system");
                    (k.clone(), if opaque { json!("…") } else { shape(v) })
                })
                .collect(),
        ),
        Value::Array(_) => json!("[…]"),
        Value::Number(_) => json!(0),
        Value::String(_) => json!(""),
        other => other.clone(),
    }
}

/// The shapes of a session's files by what they are (`info`, `message/<role>`,
/// `part/<role>/<type>`, `part/<role>/tool/<status>`).
fn shapes(home: &Path, tree: &str) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    let mut stack = vec![home.join(tree)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let value = json_file(&path);
            let rel = path.strip_prefix(home.join(tree)).unwrap().to_string_lossy().to_string();
            let role = |message: &str| {
                let file =
                    home.join(tree).join(format!("message/{}/{message}.json", value["sessionID"].as_str().unwrap()));
                json_file(&file)["role"].as_str().unwrap().to_string()
            };
            let key = if rel.starts_with("info/") {
                "info".to_string()
            } else if rel.starts_with("message/") {
                format!("message/{}", value["role"].as_str().unwrap())
            } else if value["type"] == "tool" {
                let role = role(value["messageID"].as_str().unwrap());
                format!("part/{role}/tool/{}", value["state"]["status"].as_str().unwrap())
            } else {
                format!("part/{}/{}", role(value["messageID"].as_str().unwrap()), value["type"].as_str().unwrap())
            };
            out.insert(key, shape(&value));
        }
    }
    out
}

#[test]
fn written_files_have_the_fields_of_0_5_29s() {
    for scenario in SCENARIOS {
        let (locator, first) = only_session(&real(scenario));
        let written = write(&first.records, options());
        let out = export_home(&written);
        let real_tree = locator.rsplit_once("/info/").unwrap().0.to_string();
        assert_eq!(real_tree, TREE);
        assert_eq!(shapes(out.path(), TREE), shapes(&real(scenario), TREE), "{scenario}");
        // Ids: OpenCode's forms, increasing in conversation order; the
        // files as 0.5.29 writes them (two-space indents, no final newline).
        let session = &written.native_id;
        assert!(session.starts_with("ses_") && session.len() == 30, "{session}");
        let mut last = String::new();
        for a in &written.artifacts {
            assert!(a.bytes.starts_with(b"{\n  \"") && a.bytes.ends_with(b"}"), "{}", a.path);
            let name = a.path.rsplit('/').next().unwrap().trim_end_matches(".json").to_string();
            if a.path.contains("/message/") {
                assert!(name.starts_with("msg_") && name.len() == 30 && name > last, "{name} after {last}");
                last = name;
            }
        }
        let info = json_file(&out.path().join(format!("{TREE}/info/{session}.json")));
        let source = json_file(&real(scenario).join(&locator));
        assert_eq!(info["title"], source["title"]);
        assert_eq!(info["version"], "0.5.29");
        assert_eq!(info["time"]["created"], source["time"]["created"]);
    }
}

#[test]
fn a_foreign_session_is_written_step_by_step() {
    let foreign = [
        json!({"id":"m","kind":"meta","schema":"trajhost.canonical/0.1","harness":"codex","native_id":"x","native_version":"0.171.0","cwd":"/w","started_at":"2026-11-30T04:00:00.000Z"}),
        json!({"id":"s","kind":"system","text":"You are Codex."}),
        json!({"id":"u","kind":"user","text":"hi","ts":"2026-11-30T04:00:01.000Z","attachments":[{"kind":"image"}]}),
        json!({"id":"c","kind":"tool_call","call_id":"call_1","name":"shell","arguments":{"cmd":["ls"]}}),
        json!({"id":"r","kind":"tool_result","call_id":"call_1","content":"a.txt","ok":true}),
        json!({"id":"a2","kind":"assistant","text":"done","model":"gpt-5","usage":{"input":7,"output":2}}),
        json!({"id":"k","kind":"compaction","summary":"SUMMARY","trigger":"auto"}),
        json!({"id":"c2","kind":"tool_call","call_id":"call_2","name":"shell","arguments":"raw"}),
    ];
    let doc: String = foreign.iter().map(|v| v.to_string() + "\n").collect();
    let written = trajhost_codec_sdk::write_document::<OpenCodeStorage>(
        &doc,
        WriteOptions { cwd: None, native_id: Some("ses_fixedId1".into()), home_path: None },
    )
    .unwrap();
    assert_eq!(written.native_id, "ses_fixedId1");
    kit::check_diags_include(
        &written.diagnostics,
        &[
            ("not-carried", "system"),
            ("not-carried", "attachment"),
            ("not-carried", "compaction-trigger"),
            ("defaulted", "tool.state (no result: error)"),
            ("defaulted", "assistant.tokens"),
        ],
    );
    let out = export_home(&written);
    let (_, read) = only_session(out.path());
    assert_eq!(read.meta().cwd.as_deref(), Some("/w"));
    assert_eq!(read.meta().native_version.as_deref(), Some("0.5.29"), "not an OpenCode version");
    assert_eq!(
        kinds(&read.records),
        [
            "meta",
            "user",
            "assistant",
            "tool_call",
            "tool_result",
            "assistant",
            "compaction",
            "assistant",
            "tool_call",
            "tool_result"
        ]
    );
    assert_eq!(
        conversation(&read.records),
        [
            "user: hi",
            "call: shell {\"cmd\":[\"ls\"]}",
            "result: a.txt Some(true)",
            "assistant: done",
            "compaction: SUMMARY",
            "call: shell {\"input\":\"raw\"}",
            "result: Tool execution was interrupted Some(false)"
        ]
    );
    let done = assistants(&read.records)[1];
    assert_eq!((done.model.as_deref(), done.usage.as_ref().and_then(|u| u.input)), (Some("gpt-5"), Some(7)));
    // Refused: a native id that is no OpenCode session id.
    let bad = trajhost_codec_sdk::write_document::<OpenCodeStorage>(
        &doc,
        WriteOptions { cwd: None, native_id: Some("../x".into()), home_path: None },
    );
    assert!(bad.is_err());
}

#[test]
fn a_prompt_goes_out_before_the_session_ends() {
    let (_, first) = only_session(&real("simple"));
    let lines: Vec<String> = document(&first.records).lines().map(str::to_string).collect();
    let mut writer = OpenCodeStorage::write(options()).unwrap();
    // meta and the first prompt: the prompt's message and part are ready.
    let chunks = writer.push(&(lines[..2].join("\n") + "\n")).unwrap();
    assert_eq!(chunks.len(), 2, "{:?}", chunks.iter().map(|c| &c.path).collect::<Vec<_>>());
    assert!(chunks[0].path.contains("/message/") && chunks[1].path.contains("/part/"));
    let rest = writer.push(&(lines[2..].join("\n") + "\n")).unwrap();
    let written = writer.finish().unwrap();
    assert!(written.chunks.iter().any(|c| c.path.contains("/info/")));
    assert!(!rest.iter().chain(&written.chunks).any(|c| chunks.iter().any(|d| d.path == c.path)));
}

// ---------------------------------------------------------------- prepare

/// The suite installs into an empty home and reads back; the plan copies
/// the export as it is, and marks the project tree as 0.5.29 does.
#[test]
fn prepare_into_an_empty_home_marks_the_project_tree() {
    let (_, first) = only_session(&real("simple"));
    let written = write(&first.records, options());
    let target = tempfile::tempdir().unwrap();
    let home_path = target.path().display().to_string();
    let options = WriteOptions { home_path: Some(home_path.clone()), ..options() };
    let plan = prepare(&written, target.path(), options).unwrap();
    assert_eq!(plan.native_id, written.native_id);
    // The cwd is no git repository: the `global` project, and its tree's
    // migration marker as 0.5.29 leaves it.
    let project = ".local/share/opencode/project/global/storage";
    assert_eq!(plan.operations.len(), written.artifacts.len() + 1);
    for op in &plan.operations {
        match op {
            Operation::CopyArtifact(c) => assert_eq!(c.path, c.artifact, "the export's layout is the target's"),
            Operation::CreateFile(f) => {
                assert_eq!((f.path.as_str(), f.bytes.as_slice()), (&*format!("{project}/migration"), &b"3"[..]))
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        plan.resume_command.as_deref().unwrap(),
        format!("cd {CWD} && XDG_DATA_HOME={home_path}/.local/share opencode run --session {}", written.native_id)
    );
}

#[test]
fn prepare_files_the_session_under_its_git_root() {
    let (_, first) = only_session(&real("simple"));
    let target = tempfile::tempdir().unwrap();
    let home = target.path().display().to_string();
    // A cwd inside a git repository below the home: OpenCode's project is the root's path.
    std::fs::create_dir_all(target.path().join("src/my repo/.git")).unwrap();
    std::fs::create_dir_all(target.path().join("src/my repo/sub")).unwrap();
    let cwd = format!("{home}/src/my repo/sub");
    let written = write(&first.records, WriteOptions { cwd: Some(cwd.clone()), ..options() });
    let plan = prepare(
        &written,
        target.path(),
        WriteOptions { cwd: Some(cwd.clone()), home_path: Some(home.clone()), ..options() },
    )
    .unwrap();
    let slug = format!("{}-src-my-repo", home.trim_start_matches('/').replace(['/', '.'], "-"));
    let tree = format!(".local/share/opencode/project/{slug}/storage/session/");
    assert!(
        plan.operations.iter().all(|op| match op {
            Operation::CopyArtifact(c) => c.path.starts_with(&tree),
            Operation::CreateFile(f) => f.path.ends_with(&format!("{slug}/storage/migration")),
            _ => false,
        }),
        "{tree}: {:?}",
        plan.operations
    );
    assert!(plan.resume_command.unwrap().starts_with(&format!("cd '{cwd}' && ")));
    // Outside the home: the project tree the home already has for that root.
    let other = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(other.path().join(".local/share/opencode/project/srv-repo")).unwrap();
    let options = WriteOptions { cwd: Some("/srv/repo/lib".into()), home_path: Some("/nowhere".into()), ..options() };
    let plan = prepare(&written, other.path(), options).unwrap();
    let Operation::CopyArtifact(c) = &plan.operations[0] else { panic!() };
    assert!(c.path.starts_with(".local/share/opencode/project/srv-repo/storage/session/"), "{}", c.path);
}

/// The suite installs beside other sessions; into a project tree that
/// exists, the plan is the session's files and no marker.
#[test]
fn prepare_into_an_existing_project_tree_adds_only_the_sessions_files() {
    let source = kit::read::<OpenCodeStorage>(
        &fixtures().join("storage/home"),
        ".local/share/opencode/storage/session/global/ses_tiny.json",
    );
    let written = write(&source.records, options());
    let target = kit::copy_of(&real("parallel"));
    let plan = prepare(&written, target.path(), options()).unwrap();
    assert_eq!(plan.operations.len(), written.artifacts.len());
    assert!(plan.operations.iter().all(|op| matches!(op, Operation::CopyArtifact(_))), "{:?}", plan.operations);
}

#[test]
fn prepare_fails_closed_on_layouts_it_does_not_know() {
    let (_, first) = only_session(&real("simple"));
    let written = write(&first.records, options());
    let refused = |setup: &dyn Fn(&Path), names: &[&str]| {
        let target = kit::copy_of(&real("multibyte"));
        setup(target.path());
        let before = kit::tree_digest(target.path());
        let err = format!("{:?}", prepare(&written, target.path(), options()).unwrap_err());
        for name in names {
            assert!(err.contains(name), "{name} in {err}");
        }
        assert_eq!(kit::tree_digest(target.path()), before);
    };
    let data = ".local/share/opencode";
    let tree = format!("{data}/project/global/storage");
    refused(&|h| std::fs::write(h.join(data).join("opencode.db"), b"").unwrap(), &["opencode.db", "opencode@0.1.0"]);
    refused(
        &|h| std::fs::create_dir_all(h.join(data).join("storage/session")).unwrap(),
        &[".local/share/opencode/storage", "0.6"],
    );
    refused(&|h| std::fs::write(h.join(&tree).join("migration"), b"7").unwrap(), &["storage/migration", "\\\"7\\\""]);
    let newest = format!("{tree}/session/info/ses_0000000000000newest.json");
    refused(
        &|h| std::fs::write(h.join(&newest), json!({"id": "ses_0", "time": {}, "projectID": "p"}).to_string()).unwrap(),
        &["ses_0000000000000newest.json", "projectID"],
    );
    refused(
        &|h| {
            std::fs::write(h.join(&newest), json!({"id": "ses_0", "time": {}, "version": "0.9.1"}).to_string()).unwrap()
        },
        &["ses_0000000000000newest.json", "version 0.9.1"],
    );
    // Artifacts of another shape, and another session than asked for.
    let target = tempfile::tempdir().unwrap();
    let mut odd = written.artifacts.clone();
    odd.push(trajhost_codec_sdk::Artifact { path: format!("{TREE}/share/x.json"), bytes: b"{}".to_vec() });
    let err = trajhost_codec_sdk::prepare_artifacts::<OpenCodeStorage>(odd, &Dir::native(target.path()), options());
    assert!(format!("{err:?}").contains("share/x.json"), "{err:?}");
    assert!(
        prepare(&written, target.path(), WriteOptions { native_id: Some("ses_other".into()), ..options() }).is_err()
    );
}
