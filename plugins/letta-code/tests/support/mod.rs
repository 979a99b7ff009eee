//! The write tests' plumbing, shared by both local-backend codecs
//! (`plugins/letta-code-entries` includes this file by path): write in
//! batches, prepare, apply a plan as the host does, and look at the files.
//! The including test file names its codec `Tested`.

// Each codec's tests use a part of it.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Artifact, Codec, CodecError, Operation, Plan, WriteOptions, Written};
use trajhost_codec_testkit::{self as kit, Read, assistants, observations_of, tool_calls, tool_results, users};

use super::Tested;
use super::layout::{self, MESSAGES};

pub const LOCATOR: &str = ".letta/lc-local-backend/conversations/Y29udmVyc2F0aW9uOmxvY2FsLWNvbnYtMQ/messages.jsonl";
pub const CWD: &str = "/home/user/project";

pub fn options(home: Option<&Path>) -> WriteOptions {
    WriteOptions { cwd: Some(CWD.into()), native_id: None, home_path: home.map(|h| h.to_string_lossy().into_owned()) }
}

/// Writes `document` pushing `lines` canonical lines at a time; the pieces
/// of one path are joined.
pub fn write_in(document: &str, options: WriteOptions, lines: usize) -> Written {
    let mut writer = Tested::write(options).unwrap();
    let mut pieces: Vec<Artifact> = Vec::new();
    let all: Vec<&str> = document.lines().collect();
    let mut add = |chunks: Vec<Artifact>| {
        for chunk in chunks {
            match pieces.iter_mut().find(|p| p.path == chunk.path) {
                Some(p) => p.bytes.extend_from_slice(&chunk.bytes),
                None => pieces.push(chunk),
            }
        }
    };
    for batch in all.chunks(lines.max(1)) {
        add(writer.push(&(batch.join("\n") + "\n")).unwrap());
    }
    let mut written = writer.finish().unwrap();
    add(std::mem::take(&mut written.chunks));
    written.chunks = pieces;
    written
}

/// Writing `document` in batches of 1, 2, 3 and 7 lines gives the native
/// id and the two files (messages.jsonl, conversation.json) of writing it
/// whole, byte for byte; returns the whole.
pub fn check_pieces_equal_the_whole(document: &str) -> Written {
    let whole = write(document, options(None));
    for lines in [1, 2, 3, 7] {
        let pieces = write_in(document, options(None), lines);
        assert_eq!(pieces.native_id, whole.native_id);
        assert_eq!(pieces.chunks.len(), 2, "messages.jsonl and conversation.json");
        for (a, b) in pieces.chunks.iter().zip(&whole.chunks) {
            assert_eq!((&a.path, &a.bytes), (&b.path, &b.bytes), "batches of {lines}");
        }
    }
    whole
}

pub fn write(document: &str, options: WriteOptions) -> Written {
    write_in(document, options, usize::MAX)
}

pub fn prepare(written: &Written, target: &Path) -> Result<Plan, CodecError> {
    prepare_with(written, target, options(Some(target)))
}

pub fn prepare_with(written: &Written, target: &Path, options: WriteOptions) -> Result<Plan, CodecError> {
    trajhost_codec_sdk::prepare_artifacts::<Tested>(written.chunks.clone(), &Dir::native(target), options)
}

/// Applies a plan natively, as the host would (create only; JSON entries
/// appended or added).
pub fn apply(plan: &Plan, written: &Written, home: &Path) {
    for op in &plan.operations {
        match op {
            Operation::CreateFile(f) => kit::create_new_file(home, &f.path, &f.bytes),
            Operation::CopyArtifact(c) => {
                let bytes = &written.chunks.iter().find(|a| a.path == c.artifact).unwrap().bytes;
                kit::create_new_file(home, &c.path, bytes);
            }
            Operation::AddJsonEntry(e) => {
                let path = home.join(&e.path);
                let mut doc: Value = match std::fs::read(&path) {
                    Ok(bytes) => serde_json::from_slice(&bytes).unwrap(),
                    Err(_) => serde_json::from_str(e.initial.as_deref().expect("initial")).unwrap(),
                };
                let value: Value = serde_json::from_str(&e.value).unwrap();
                let at = doc.pointer_mut(&e.pointer).unwrap();
                match (&e.key, at) {
                    (Some(key), Value::Object(map)) => {
                        assert!(map.get(key).is_none_or(|v| *v == value), "{key} holds another value");
                        map.insert(key.clone(), value);
                    }
                    (None, Value::Array(items)) => {
                        let member = e.match_member.as_deref().unwrap();
                        if !items.iter().any(|i| i.get(member) == value.get(member)) {
                            items.push(value);
                        }
                    }
                    other => panic!("cannot add at {}: {other:?}", e.pointer),
                }
                std::fs::write(&path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
            }
            other => panic!("unexpected operation {other:?}"),
        }
    }
}

pub fn read_back(home: &Path, native_id: &str) -> Read {
    kit::read::<Tested>(home, &layout::conversation_file(native_id, MESSAGES))
}

/// Writes `document`, installs it into a fresh home and reads it back.
pub fn installed(document: &str) -> (tempfile::TempDir, Written, Plan, Read) {
    let target = tempfile::tempdir().unwrap();
    let written = write(document, options(None));
    let plan = prepare(&written, target.path()).unwrap();
    apply(&plan, &written, target.path());
    let back = read_back(target.path(), &plan.native_id);
    (target, written, plan, back)
}

pub fn calls(read: &Read) -> Vec<(String, String, Value)> {
    tool_calls(&read.records).into_iter().map(|(id, n, a)| (id.to_string(), n.to_string(), a.clone())).collect()
}

/// The JSON lines of a written or installed file.
pub fn lines_of(bytes: &[u8]) -> Vec<Value> {
    bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()).map(|l| serde_json::from_slice(l).unwrap()).collect()
}

pub fn json_at(home: &Path, path: &str) -> Value {
    serde_json::from_slice(&std::fs::read(home.join(path)).unwrap()).unwrap()
}

/// `back`, the installed copy of `source`, holds the same conversation:
/// user and assistant texts, models, usage, tool calls and results, and the
/// reminders Letta Code injects.
pub fn assert_same_conversation(back: &Read, source: &Read, what: &str) {
    assert_eq!(users(&back.records), users(&source.records), "{what}: user text");
    assert!(!users(&back.records).is_empty());
    let texts = |r: &Read| assistants(&r.records).iter().map(|a| a.text.clone()).collect::<Vec<_>>();
    assert_eq!(texts(back), texts(source), "{what}: assistant text");
    let models = |r: &Read| assistants(&r.records).iter().map(|a| a.model.clone()).collect::<Vec<_>>();
    assert_eq!(models(back), models(source), "{what}: models");
    let usage = |r: &Read| assistants(&r.records).iter().map(|a| a.usage.clone()).collect::<Vec<_>>();
    assert_eq!(usage(back), usage(source), "{what}: usage");
    assert_eq!(calls(back), calls(source), "{what}: tool calls");
    assert!(!calls(back).is_empty());
    assert_eq!(tool_results(&back.records), tool_results(&source.records), "{what}: tool results");
    assert_eq!(
        observations_of(&back.records, "system-reminder"),
        observations_of(&source.records, "system-reminder"),
        "{what}: injected reminders"
    );
}

/// A fresh `home`'s settings list the one new agent on its local backend,
/// and the plan resumes conversation `id` there.
pub fn assert_fresh_home_settings(home: &Path, agent_id: &str, plan: &Plan) {
    let settings = json_at(home, ".letta/settings.json");
    assert_eq!(
        settings["agents"],
        json!([{
            "agentId": agent_id,
            "baseUrl": format!("local:{}/.letta/lc-local-backend", home.display()),
            "memfs": true,
            "systemPromptPreset": "default",
        }])
    );
    assert_eq!(
        plan.resume_command.as_deref().unwrap(),
        format!(
            "cd {CWD} && HOME={} LETTA_LOCAL_BACKEND_EXPERIMENTAL=1 letta --backend local --conversation {} \
             --output-format json -p \"<prompt>\"",
            home.display(),
            plan.native_id
        )
    );
}

/// Adding a conversation to a home left every file byte-identical but
/// `settings.json`, where only one agent entry was added.
pub fn assert_only_an_agent_added(before: &BTreeMap<String, Vec<u8>>, after: &BTreeMap<String, Vec<u8>>) {
    for (path, bytes) in before {
        if path != SETTINGS {
            assert_eq!(after.get(path), Some(bytes), "{path} changed");
        }
    }
    assert_eq!(after.len(), before.len() + 4, "messages, manifest, conversation, agent");
    let old: Value = serde_json::from_slice(&before[SETTINGS]).unwrap();
    let new: Value = serde_json::from_slice(&after[SETTINGS]).unwrap();
    for (key, value) in old.as_object().unwrap() {
        if key != "agents" {
            assert_eq!(&new[key], value, "{key}");
        }
    }
    assert_eq!(new["agents"].as_array().unwrap().len(), 2);
    assert_eq!(new["agents"][0], old["agents"][0]);
}

const SETTINGS: &str = ".letta/settings.json";
