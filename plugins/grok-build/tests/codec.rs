//! What is particular to Grok Build's sessions, against sessions written by
//! the real `grok` CLI (fixtures/grok-build/1.0.41) and synthetic
//! variations of them. What every codec must do is the testkit's suite, in
//! tests/conformance.rs.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Value, json};
use trajhost_codec_grok_build::{GrokBuild, KNOWN_UPDATE_TYPES};
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{Codec, ReadOptions};
use trajhost_codec_testkit::suite::Lab;
use trajhost_codec_testkit::{
    self as kit, Read, Spans, assistants, observations_of, raw_lines, tool_calls, tool_results, users,
};

const CWD_DIR: &str = ".grok/sessions/%2Fhome%2Fuser%2Fproject";

/// The lab fixtures, as tests/conformance.json names them.
fn lab() -> Lab<GrokBuild> {
    Lab::new(include_str!("conformance.json"))
}

fn session_dir(id: &str) -> String {
    format!("{CWD_DIR}/{id}")
}

fn locator(id: &str) -> String {
    format!("{CWD_DIR}/{id}/chat_history.jsonl")
}

fn read(home: &Path, locator: &str) -> Read {
    kit::read::<GrokBuild>(home, locator)
}

fn append(path: &Path, lines: &[Value]) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).create(true).open(path).unwrap();
    for l in lines {
        writeln!(f, "{}", serde_json::to_string(l).unwrap()).unwrap();
    }
}

/// The suite checks discover against read; start, update and title come
/// from the session's summary.json.
#[test]
fn discover_takes_times_and_title_from_the_summary() {
    for (name, id) in lab().ids() {
        let s = kit::discover::<GrokBuild>(&lab().home(name)).sessions.remove(0);
        let dir = lab().home(name).join(session_dir(id));
        let summary: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
        assert_eq!(s.started_at.as_deref(), summary["created_at"].as_str());
        assert_eq!(s.updated_at.as_deref(), summary["last_active_at"].as_str());
        assert_eq!(s.title.as_deref(), summary["generated_title"].as_str());
    }
}

#[test]
fn discover_names_what_is_no_session_and_identifies_renamed_folders_by_their_summary() {
    let dir = lab().copy("simple");
    let id = lab().id("simple");
    let cwd = dir.path().join(CWD_DIR);
    std::fs::rename(cwd.join(id), cwd.join("copy")).unwrap();
    std::fs::create_dir(cwd.join("empty-session")).unwrap();
    // A journal-only folder is another codec's layout: neither listed nor named.
    std::fs::create_dir(cwd.join("journal-only")).unwrap();
    std::fs::write(cwd.join("journal-only/updates.jsonl"), "{}\n").unwrap();
    std::fs::write(cwd.join("notes.txt"), "x").unwrap();
    std::fs::write(dir.path().join(".grok/sessions/stray.json"), "{}").unwrap();
    let found = kit::discover::<GrokBuild>(dir.path());
    assert_eq!(found.sessions.len(), 1, "{:?}", found.diagnostics);
    assert_eq!(found.sessions[0].native_id, id, "summary.json names a renamed folder's session");
    let expected = [
        ("no-chat-history", format!("{CWD_DIR}/empty-session")),
        ("unrecognized-file", format!("{CWD_DIR}/notes.txt")),
        ("unrecognized-file", ".grok/sessions/stray.json".to_string()),
    ];
    kit::check_named_files(&found.diagnostics, &expected);
    let read = kit::conformance::<GrokBuild>(dir.path(), &format!("{CWD_DIR}/copy/chat_history.jsonl"), Spans::Lines);
    assert_eq!(read.meta().native_id, id);
}

#[test]
fn discover_without_summary_decodes_the_cwd_folder() {
    let home = lab().copy("simple");
    let id = lab().id("simple");
    let dir = home.path().join(session_dir(id));
    std::fs::remove_file(dir.join("summary.json")).unwrap();
    let found = GrokBuild::discover(&Dir::native(home.path())).unwrap();
    let s = &found.sessions[0];
    assert_eq!(s.cwd.as_deref(), Some("/home/user/project"));
    assert_eq!((s.started_at.as_deref(), s.title.as_deref(), s.native_version.as_deref()), (None, None, None));
    let mtime = |f: &str| {
        std::fs::metadata(dir.join(f))
            .unwrap()
            .modified()
            .unwrap()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64
    };
    assert_eq!(
        s.updated_at.as_deref(),
        Some(rfc3339_ms(mtime("chat_history.jsonl").max(mtime("updates.jsonl"))).as_str())
    );
    // The session still reads, its start from the journal.
    let read = read(home.path(), &locator(id));
    let Body::Meta(meta) = &read.records[0].body else { panic!() };
    assert!(meta.started_at.as_deref().unwrap().starts_with("2026-11-30T04:18:16"));
}

/// The injected context is not said by the person; the system prompt comes
/// first; conversation records come from the chat history, call ids from
/// the lab's model.
#[test]
fn context_and_reminders_are_observations_and_the_system_prompt_leads() {
    for (name, id) in lab().ids() {
        let read = lab().read(name);
        let records = &read.records;
        assert_eq!(records[0].id, id);
        assert!(matches!(records[1].body, Body::System { .. }));
        assert_eq!(observations_of(records, "user-context").len(), 1, "{name}");
        assert!(observations_of(records, "user-context")[0].starts_with("<user_info>"));
        assert_eq!(observations_of(records, "synthetic/system_reminder").len(), 1, "{name}");
        assert!(tool_calls(records).iter().all(|c| c.0.starts_with("call_lab_")), "{name}");
        for r in records {
            if matches!(
                r.body,
                Body::User { .. } | Body::Assistant(_) | Body::ToolCall { .. } | Body::ToolResult { .. }
            ) {
                assert_eq!(r.src.as_ref().unwrap().file, locator(id));
            }
        }
    }
}

#[test]
fn a_turn_of_one_model_call_has_its_usage_on_the_answer_else_an_observation() {
    let records = lab().read("simple").records;
    let answers = assistants(&records);
    // Turn 1 made two model calls: its usage is a turn-usage observation;
    // turn 2 made one: its usage is the answer's.
    assert_eq!(answers[0].usage, None);
    assert_eq!(answers[1].usage, None);
    let usage = answers[2].usage.as_ref().unwrap();
    assert_eq!((usage.input, usage.output, usage.cache_read), (Some(100), Some(20), Some(0)));
    let turn = observations_of(&records, "turn-usage");
    assert_eq!(turn.len(), 1);
    let turn: Value = serde_json::from_str(turn[0]).unwrap();
    assert_eq!((turn["inputTokens"].as_u64(), turn["modelCalls"].as_u64()), (Some(200), Some(2)));
    // Times from the journal: prompt, tool call, result, answer text.
    let ts: Vec<Option<&str>> = records[4..9].iter().map(|r| r.ts.as_deref()).collect();
    assert_eq!(
        ts,
        [
            Some("2026-11-30T04:18:16.745Z"),
            Some("2026-11-30T04:18:16.812Z"),
            Some("2026-11-30T04:18:16.812Z"),
            Some("2026-11-30T04:18:16.853Z"),
            Some("2026-11-30T04:18:16.861Z")
        ]
    );
}

/// The suite checks the chat history's item types; the journal's updates
/// are known too.
#[test]
fn fixture_journals_hold_only_known_update_types() {
    let updates: BTreeSet<&str> = KNOWN_UPDATE_TYPES.iter().map(|(t, _)| *t).collect();
    for (name, id) in lab().ids() {
        for line in raw_lines(&lab().home(name).join(session_dir(id)).join("updates.jsonl")) {
            let kind = line["params"]["update"]["sessionUpdate"].as_str().unwrap();
            assert!(updates.contains(kind), "{name}: sessionUpdate {kind} is new to the codec");
        }
    }
}

#[test]
fn unknown_types_are_diagnosed_by_name() {
    let home = lab().copy("simple");
    let id = lab().id("simple");
    let dir = home.path().join(session_dir(id));
    append(&dir.join("chat_history.jsonl"), &[json!({"type": "hologram", "content": "x"})]);
    append(
        &dir.join("updates.jsonl"),
        &[
            json!({"timestamp": 1796012300, "method": "_x.ai/session/update", "params": {"sessionId": id, "update": {"sessionUpdate": "warp_drive"}}}),
        ],
    );
    let read = read(home.path(), &locator(id));
    let unknown: Vec<&str> =
        read.diagnostics.iter().filter(|d| d.code == "unknown-record-type").map(|d| d.detail.as_str()).collect();
    assert_eq!(unknown, ["chat_history:hologram", "updates:warp_drive"]);
    assert_eq!(
        read.diagnostics.iter().find(|d| d.detail == "updates:background_tasks").unwrap().code,
        "unmapped-record-type"
    );
}

#[test]
fn reasoning_backend_calls_compaction_and_synthetic_items() {
    let home = lab().copy("simple");
    let id = lab().id("simple");
    let dir = home.path().join(session_dir(id));
    append(
        &dir.join("chat_history.jsonl"),
        &[
            json!({"type": "user", "content": [{"type": "text", "text": "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nThe word was PAPAYA-42."}], "synthetic_reason": "compaction_meta"}),
            json!({"type": "user", "content": [{"type": "text", "text": "<user_query>\nAnd then? 🍍\n</user_query>"}, {"type": "image", "url": "data:image/jpeg;base64,AA"}], "prompt_index": 2}),
            json!({"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Think first."}], "encrypted_content": "gAAA"}),
            json!({"type": "backend_tool_call", "kind": {"tool_type": "web_search", "id": "ws_1", "action": {"type": "search", "query": "papaya"}, "status": "completed"}}),
            json!({"type": "assistant", "content": "Done.", "model_id": "grok-x"}),
        ],
    );
    let records = read(home.path(), &locator(id)).records;
    let n = records.len();
    let kinds: Vec<&str> = records[n - 5..].iter().map(|r| r.body.kind()).collect();
    assert_eq!(kinds, ["compaction", "user", "reasoning", "observation", "assistant"]);
    let Body::Compaction { summary, .. } = &records[n - 5].body else { panic!() };
    assert!(summary.ends_with("The word was PAPAYA-42."));
    let Body::User { text, attachments } = &records[n - 4].body else { panic!() };
    assert_eq!(text, "And then? 🍍");
    assert_eq!(attachments[0].media_type.as_deref(), Some("image/jpeg"));
    let Body::Reasoning(r) = &records[n - 3].body else { panic!() };
    assert_eq!((r.text.as_deref(), r.opaque.as_deref(), r.encrypted), (Some("Think first."), Some("gAAA"), true));
    // A server-side web search is what the provider did, not a client call.
    let Body::Observation { subtype, text } = &records[n - 2].body else { panic!() };
    assert_eq!(subtype, "backend-tool/web_search");
    let kind: Value = serde_json::from_str(text.as_deref().unwrap()).unwrap();
    assert_eq!((kind["id"].as_str(), kind["action"]["query"].as_str()), (Some("ws_1"), Some("papaya")));
    assert!(tool_calls(&records).iter().all(|c| c.0 != "ws_1"));
    let Body::Assistant(a) = &records[n - 1].body else { panic!() };
    assert_eq!((a.text.as_str(), a.model.as_deref(), a.usage.as_ref()), ("Done.", Some("grok-x"), None));
}

#[test]
fn a_missing_journal_leaves_times_and_ok_unset() {
    let home = lab().copy("failing-tool");
    let id = lab().id("failing-tool");
    std::fs::remove_file(home.path().join(session_dir(id)).join("updates.jsonl")).unwrap();
    let read = read(home.path(), &locator(id));
    assert_eq!(tool_results(&read.records)[0].2, None);
    assert!(read.records[1..].iter().all(|r| r.ts.is_none()));
    assert!(assistants(&read.records).iter().all(|a| a.usage.is_none()));
    assert!(observations_of(&read.records, "turn-usage").is_empty());
}

#[test]
fn a_torn_last_line_is_a_torn_tail() {
    let home = lab().copy("simple");
    let id = lab().id("simple");
    let path = home.path().join(session_dir(id)).join("chat_history.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"type\":\"assistant\",\"content\":\"hal");
    std::fs::write(&path, text).unwrap();
    let read = read(home.path(), &locator(id));
    assert_eq!(read.diagnostics.iter().find(|d| d.code == "torn-tail").unwrap().count, 1);
    assert_eq!(users(&read.records).len(), 2);
}

#[test]
fn a_locator_outside_the_layout_is_refused() {
    let home = lab().home("simple");
    for bad in [
        "../x/chat_history.jsonl",
        ".grok/sessions/x/updates.jsonl",
        "/abs/chat_history.jsonl",
        ".grok/sessions/a/b/chat_history.jsonl",
    ] {
        assert!(
            GrokBuild::read(Dir::native(&home), bad, ReadOptions { max_batch_records: 10, max_batch_bytes: 1000 })
                .is_err(),
            "{bad}"
        );
    }
}

#[test]
fn format_0_role_tagged_messages() {
    let home = kit::fixtures("grok-build", "format-0").join("home");
    let id = "019f6000-0000-7000-8000-0000000000a0";
    let locator = format!(".grok/sessions/%2Fhome%2Fuser%2Flegacy/{id}/chat_history.jsonl");
    let discovery = GrokBuild::discover(&Dir::native(&home)).unwrap();
    assert_eq!(discovery.sessions.len(), 1);
    assert_eq!(discovery.sessions[0].native_version.as_deref(), Some("0"));
    let read = read(&home, &locator);
    let kinds: Vec<&str> = read.records.iter().map(|r| r.body.kind()).collect();
    assert_eq!(
        kinds,
        ["meta", "system", "observation", "user", "reasoning", "assistant", "tool_call", "tool_result", "assistant"]
    );
    let Body::User { text, attachments } = &read.records[3].body else { panic!() };
    assert_eq!(text, "How many lines does notes.txt have?");
    assert_eq!(attachments[0].media_type.as_deref(), Some("image/png"));
    assert_eq!(tool_calls(&read.records), [("call_a1", "run_terminal_cmd", &json!({"command": "wc -l notes.txt"}))]);
    assert_eq!(tool_results(&read.records)[0].1, "7 notes.txt\n");
    assert_eq!(assistants(&read.records)[1].text, "notes.txt has 7 lines (KIWI-7).");
    let unknown: Vec<&str> =
        read.diagnostics.iter().filter(|d| d.code == "unknown-record-type").map(|d| d.detail.as_str()).collect();
    assert_eq!(unknown, ["chat_history:role/critic"]);
}

// ------------------------------------------------------------------ write and prepare

use trajhost_codec_sdk::canonical::Record;
use trajhost_codec_sdk::target::{TargetChoice, set_for_tests};
use trajhost_codec_sdk::{Operation, Plan, WriteOptions, WrittenFiles};

fn write_options() -> WriteOptions {
    WriteOptions { cwd: None, native_id: None, home_path: None }
}

fn write(document: &str, options: WriteOptions) -> WrittenFiles {
    kit::suite::write::<GrokBuild>(document, options)
}

/// The artifacts as files of a home, as an export directory holds them.
fn home_of(written: &WrittenFiles) -> tempfile::TempDir {
    kit::install(written)
}

fn written_locator(written: &WrittenFiles) -> String {
    written.artifacts.iter().map(|a| a.path.clone()).find(|p| p.ends_with("/chat_history.jsonl")).unwrap()
}

/// What conversion compares (the host's fidelity categories), per record.
fn values(records: &[Record]) -> Vec<String> {
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    for r in records {
        match &r.body {
            Body::User { text, attachments } => out.push(format!("user {} {}", norm(text), attachments.len())),
            Body::Assistant(a) if !a.text.trim().is_empty() => out.push(format!("assistant {}", norm(&a.text))),
            Body::ToolCall { call_id, name, arguments } => out.push(format!("call {call_id} {name} {arguments}")),
            Body::ToolResult { call_id, content, .. } => out.push(format!("result {call_id} {}", norm(content))),
            Body::Reasoning(x) => out.push(format!("reasoning {:?} {:?}", x.text, x.opaque)),
            Body::System { text } => out.push(format!("system {}", norm(text))),
            Body::Compaction { summary, .. } => out.push(format!("compaction {}", norm(summary))),
            Body::Observation { subtype, text } if subtype != "turn-usage" => {
                out.push(format!("observation {subtype} {text:?}"))
            }
            _ => {}
        }
    }
    out
}

/// An item with its calls' argument strings parsed (the writer writes
/// compact JSON; the model's own spacing is not kept).
fn parsed_item(line: &str) -> Value {
    let mut v: Value = serde_json::from_str(line).unwrap();
    if let Some(calls) = v.get_mut("tool_calls").and_then(Value::as_array_mut) {
        for c in calls {
            let args: Value = serde_json::from_str(c["arguments"].as_str().unwrap()).unwrap();
            c["arguments"] = args;
        }
    }
    v
}

fn artifact<'a>(written: &'a WrittenFiles, name: &str) -> &'a [u8] {
    &written.artifacts.iter().find(|a| a.path.ends_with(&format!("/{name}"))).unwrap().bytes
}

fn not_carried(written: &WrittenFiles) -> BTreeSet<String> {
    written.diagnostics.iter().filter(|d| d.code == "not-carried").map(|d| d.detail.clone()).collect()
}

#[test]
fn every_scenario_round_trips_value_lossless_but_for_what_is_declared() {
    for (name, id) in lab().ids() {
        let prompt = lab().users(name)[0].clone();
        let source = lab().read(name);
        let written = write(&source.document, write_options());
        let paths: Vec<&str> = written.artifacts.iter().map(|a| a.path.as_str()).collect();
        assert_eq!(paths.len(), 3, "{name}: {paths:?}");
        assert!(paths.iter().all(|p| p.starts_with(CWD_DIR)), "{name}: {paths:?}");
        let back = read(home_of(&written).path(), &written_locator(&written));
        assert_eq!(values(&back.records), values(&source.records), "{name}");
        assert_eq!(users(&back.records)[0], prompt, "{name}");
        // The same source's chat_history bytes, line for line.
        let original = std::fs::read_to_string(lab().home(name).join(locator(id))).unwrap();
        let ours = std::str::from_utf8(&written.artifacts[0].bytes).unwrap();
        assert_eq!(original.lines().count(), ours.lines().count(), "{name}");
        for (a, b) in original.lines().zip(ours.lines()) {
            assert_eq!(parsed_item(a), parsed_item(b), "{name}");
        }
        // The journal carries times, outcomes and usage.
        assert_eq!(tool_results(&back.records), tool_results(&source.records), "{name}");
        let usage = |r: &Read| assistants(&r.records).iter().map(|a| a.usage.clone()).collect::<Vec<_>>();
        assert_eq!(usage(&back), usage(&source), "{name}");
        let turns = observations_of(&source.records, "turn-usage").len();
        assert!(usage(&source).iter().flatten().count() + turns > 0, "{name}");
        assert_eq!(observations_of(&back.records, "turn-usage"), observations_of(&source.records, "turn-usage"));
        let times = |r: &Read| {
            r.records
                .iter()
                .filter(|x| matches!(x.body, Body::User { .. } | Body::ToolCall { .. } | Body::ToolResult { .. }))
                .map(|x| x.ts.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(times(&back), times(&source), "{name}");
        assert!(times(&source).iter().all(Option::is_some), "{name}");
        // Only the times of what the journal has no line for are declared lost.
        let lost = not_carried(&written);
        assert!(lost.iter().all(|l| l == "timestamps"), "{name}: {lost:?}");
        assert_eq!(back.meta().native_id, written.native_id);
        assert_eq!(back.meta().cwd.as_deref(), Some("/home/user/project"));
        assert_eq!(back.meta().title, source.meta().title, "{name}");
    }
}

#[test]
fn write_is_deterministic_and_streams() {
    let source = lab().read("simple");
    let a = write(&source.document, write_options());
    let b = write(&source.document, write_options());
    assert_eq!(a.native_id, b.native_id);
    assert_eq!(a.artifacts[0].bytes, b.artifacts[0].bytes);
    assert!(trajhost_codec_sdk::paths::is_uuid(&a.native_id));
    assert!(a.native_id.starts_with("01a22aac-"), "UUIDv7 of the session's start: {}", a.native_id);
    // Lines leave the writer before finish.
    let mut writer = GrokBuild::write(write_options()).unwrap();
    let lines: Vec<&str> = source.document.lines().collect();
    let early: usize = lines.chunks(4).map(|c| writer.push(&(c.join("\n") + "\n")).unwrap().len()).sum();
    assert!(early > 0);
    let done = writer.finish().unwrap();
    assert!(done.chunks.iter().any(|c| c.path.ends_with("/summary.json")));
    let summary: Value = serde_json::from_slice(artifact(&a, "summary.json")).unwrap();
    assert_eq!(summary["info"]["id"], a.native_id.as_str());
    assert_eq!(summary["current_model_id"], "fake-model");
    assert_eq!(summary["chat_format_version"], 1);
    assert_eq!(summary["num_messages"], 9);
    assert_eq!(summary["session_summary"], "Read hello.txt and tell me the secret word.");
    for key in ["created_at", "updated_at"] {
        assert!(summary[key].as_str().unwrap().starts_with("2026-11-30T04:18:1"), "{key}");
    }
}

/// A session of another harness: its system prompt and encrypted
/// reasoning are not Grok's; calls join the answer before them.
fn foreign(opaque_only: bool) -> String {
    let meta = json!({"id": "s:meta", "kind": "meta", "schema": "trajhost.canonical/0.1", "harness": "claude-code",
        "native_id": "s", "cwd": "/work/a b", "started_at": "2026-11-30T04:05:50Z", "title": "Fix it"});
    let src = json!({"file": "x", "offset": 0, "len": 1});
    let lines = vec![
        meta,
        json!({"id": "0", "kind": "system", "text": "You are Claude.", "src": src}),
        json!({"id": "1", "kind": "user", "text": "Fix the build", "ts": "2026-11-30T04:05:51Z", "src": src,
            "attachments": [{"kind": "image", "media_type": "image/png"}]}),
        json!({"id": "2", "kind": "reasoning", "text": if opaque_only { Value::Null } else { "Think.".into() },
            "opaque": "sig", "encrypted": true, "src": src}),
        json!({"id": "3", "kind": "assistant", "text": "Looking.", "model": "claude-x",
            "usage": {"input": 1, "output": 2}, "src": src}),
        json!({"id": "4", "kind": "tool_call", "call_id": "c1", "name": "Bash", "arguments": {"command": "make"}, "src": src}),
        json!({"id": "5", "kind": "tool_call", "call_id": "c2", "name": "Read", "arguments": {"path": "a"}, "src": src}),
        json!({"id": "6", "kind": "tool_result", "call_id": "c1", "content": "ok", "ok": true, "src": src}),
        json!({"id": "7", "kind": "tool_result", "call_id": "c2", "content": "text", "src": src}),
        json!({"id": "8", "kind": "tool_call", "call_id": "c3", "name": "Bash", "arguments": {"command": "ls"}, "src": src}),
        json!({"id": "9", "kind": "tool_result", "call_id": "c3", "content": "a b", "src": src}),
        json!({"id": "10", "kind": "observation", "subtype": "mode", "text": "plan", "src": src}),
        json!({"id": "11", "kind": "assistant", "text": "Fixed.", "model": "claude-x", "src": src}),
    ];
    lines.iter().map(|l| l.to_string() + "\n").collect()
}

#[test]
fn a_foreign_session_is_written_as_grok_items() {
    let written = write(&foreign(false), write_options());
    assert!(written.artifacts[0].path.starts_with(".grok/sessions/%2Fwork%2Fa%20b/"), "{}", written.artifacts[0].path);
    let items: Vec<Value> = std::str::from_utf8(&written.artifacts[0].bytes)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let types: Vec<&str> = items.iter().map(|i| i["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        ["user", "reasoning", "assistant", "tool_result", "tool_result", "assistant", "tool_result", "assistant"]
    );
    assert_eq!(items[0]["content"][0]["text"], "<user_query>\nFix the build\n</user_query>");
    assert_eq!(items[0]["prompt_index"], 0);
    assert_eq!(items[1]["summary"][0]["text"], "Think.");
    assert!(items[1].get("encrypted_content").is_none(), "another harness's signature is not xAI's");
    assert_eq!(items[2]["tool_calls"].as_array().unwrap().len(), 2);
    assert_eq!(items[2]["tool_calls"][0]["arguments"], r#"{"command":"make"}"#);
    assert_eq!(items[5]["content"], "");
    assert_eq!(items[5]["tool_calls"][0]["id"], "c3");
    let lost = not_carried(&written);
    for what in ["system", "attachment", "opaque-reasoning", "observation/mode"] {
        assert!(lost.contains(what), "{what}: {lost:?}");
    }
    assert!(!lost.iter().any(|l| l.starts_with("usage")), "one model call in the turn: {lost:?}");
    assert!(kit::diag(&written.diagnostics, "untranslated-reasoning").is_none());
    let summary: Value = serde_json::from_slice(artifact(&written, "summary.json")).unwrap();
    assert_eq!(summary["current_model_id"], "grok-4.5", "Grok's own default, not the source's model");
    assert_eq!(summary["generated_title"], "Fix it");
    assert_eq!(summary["info"]["cwd"], "/work/a b");
    let back = read(home_of(&written).path(), &written_locator(&written));
    assert_eq!(users(&back.records), ["Fix the build"]);
    assert_eq!(tool_calls(&back.records).len(), 3);
    assert_eq!(kit::assistant_texts(&back.records), ["Looking.", "Fixed."]);
    assert_eq!(assistants(&back.records).len(), 3, "the empty answer that carries the third call");
    assert_eq!(assistants(&back.records)[0].usage.as_ref().map(|u| (u.input, u.output)), Some((Some(1), Some(2))));
    assert_eq!(tool_results(&back.records).iter().map(|r| r.2).collect::<Vec<_>>(), [Some(true), None, None]);
    let prompt_ts = back.records.iter().find(|r| matches!(r.body, Body::User { .. })).unwrap().ts.clone();
    assert_eq!(prompt_ts.as_deref(), Some("2026-11-30T04:05:51.000Z"));
    // Reasoning that is only another harness's blob cannot be held.
    let written = write(&foreign(true), write_options());
    assert!(kit::diag(&written.diagnostics, "untranslated-reasoning").is_some());
    let items = std::str::from_utf8(&written.artifacts[0].bytes).unwrap();
    assert!(!items.contains("\"reasoning\""));
}

#[test]
fn write_refuses_what_it_cannot_honour() {
    set_for_tests(TargetChoice { provider: Some("openai".into()), ..Default::default() });
    assert!(GrokBuild::write(write_options()).is_err());
    set_for_tests(TargetChoice { model: Some("grok-4.6".into()), ..Default::default() });
    let written = write(&foreign(false), write_options());
    let summary: Value = serde_json::from_slice(artifact(&written, "summary.json")).unwrap();
    assert_eq!(summary["current_model_id"], "grok-4.6");
    set_for_tests(TargetChoice::default());
    let options = WriteOptions { native_id: Some("not-a-uuid".into()), ..write_options() };
    assert!(trajhost_codec_sdk::write_document::<GrokBuild>(&foreign(false), options).is_err());
    let no_cwd = foreign(false).replacen(r#""cwd":"/work/a b","#, "", 1);
    assert!(trajhost_codec_sdk::write_document::<GrokBuild>(&no_cwd, write_options()).is_err());
    let options = WriteOptions { cwd: Some("/elsewhere".into()), ..write_options() };
    assert!(write(&no_cwd, options).artifacts[0].path.starts_with(".grok/sessions/%2Felsewhere/"));
}

fn prepare(
    written: &WrittenFiles,
    target: &Path,
    options: WriteOptions,
) -> Result<Plan, trajhost_codec_sdk::CodecError> {
    trajhost_codec_sdk::prepare_artifacts::<GrokBuild>(written.artifacts.clone(), &Dir::native(target), options)
}

/// Applies a plan the way the host would (files only; this codec makes no
/// other operation).
fn install(plan: &Plan, written: &WrittenFiles, target: &Path) {
    for op in &plan.operations {
        let (path, bytes) = match op {
            Operation::CopyArtifact(c) => {
                (c.path.clone(), written.artifacts.iter().find(|a| a.path == c.artifact).unwrap().bytes.clone())
            }
            Operation::CreateFile(f) => (f.path.clone(), f.bytes.clone()),
            other => panic!("unexpected operation {other:?}"),
        };
        kit::create_new_file(target, &path, &bytes);
    }
}

#[test]
fn prepare_into_a_fresh_home() {
    set_for_tests(TargetChoice::default());
    let source = lab().read("simple");
    let written = write(&source.document, write_options());
    let target = tempfile::tempdir().unwrap();
    let options = WriteOptions { home_path: Some("/home/someone".into()), ..write_options() };
    let plan = prepare(&written, target.path(), options.clone()).unwrap();
    assert_eq!(plan.native_id, written.native_id);
    assert_eq!(plan.operations.len(), 3);
    assert!(matches!(&plan.operations[0], Operation::CopyArtifact(c) if c.artifact == written.artifacts[0].path));
    assert!(matches!(&plan.operations[1], Operation::CopyArtifact(c) if c.artifact == written.artifacts[1].path));
    assert_eq!(
        plan.resume_command.as_deref(),
        Some(format!("cd /home/user/project && GROK_HOME=/home/someone/.grok grok -r {}", written.native_id).as_str())
    );
    install(&plan, &written, target.path());
    let found = kit::discover::<GrokBuild>(target.path());
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].native_id, written.native_id);
    let back = read(target.path(), &found.sessions[0].locator);
    assert_eq!(values(&back.records), values(&source.records));
    // Installed once: a second prepare is refused, naming the session.
    let err = prepare(&written, target.path(), options).unwrap_err();
    assert!(format!("{err:?}").contains(&written.native_id), "{err:?}");
}

#[test]
fn prepare_takes_the_chosen_or_configured_model_and_moves_to_the_cwd() {
    let source = lab().read("simple");
    let written = write(&source.document, write_options());
    let target = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(target.path().join(".grok")).unwrap();
    std::fs::write(target.path().join(".grok/config.toml"), "[models]\ndefault = \"grok-4.6\"\n").unwrap();
    let summary_of = |plan: &Plan| -> Value {
        plan.operations
            .iter()
            .find_map(|op| match op {
                Operation::CreateFile(f) if f.path.ends_with("/summary.json") => {
                    Some(serde_json::from_slice(&f.bytes).unwrap())
                }
                _ => None,
            })
            .unwrap()
    };
    set_for_tests(TargetChoice::default());
    let plan = prepare(&written, target.path(), write_options()).unwrap();
    assert_eq!(summary_of(&plan)["current_model_id"], "grok-4.6");
    set_for_tests(TargetChoice { model: Some("my-model".into()), ..Default::default() });
    let options = WriteOptions { cwd: Some("/srv/other dir".into()), ..write_options() };
    let plan = prepare(&written, target.path(), options).unwrap();
    let summary = summary_of(&plan);
    assert_eq!(summary["current_model_id"], "my-model");
    assert_eq!(summary["info"]["cwd"], "/srv/other dir");
    assert!(plan.operations.iter().all(|op| match op {
        Operation::CreateFile(f) => f.path.starts_with(".grok/sessions/%2Fsrv%2Fother%20dir/"),
        Operation::CopyArtifact(c) => c.path.starts_with(".grok/sessions/%2Fsrv%2Fother%20dir/"),
        _ => false,
    }));
    assert!(plan.resume_command.unwrap().starts_with("cd '/srv/other dir' && grok -r "));
    set_for_tests(TargetChoice { provider: Some("xai".into()), ..Default::default() });
    assert!(prepare(&written, target.path(), write_options()).is_err());
    set_for_tests(TargetChoice { model: Some(" bad\n".into()), ..Default::default() });
    assert!(prepare(&written, target.path(), write_options()).is_err());
    set_for_tests(TargetChoice::default());
    // Only the folder's two files are accepted.
    let mut other = written.artifacts.clone();
    other.push(trajhost_codec_sdk::Artifact { path: format!("{}/auth.json", CWD_DIR), bytes: b"{}".to_vec() });
    assert!(
        trajhost_codec_sdk::prepare_artifacts::<GrokBuild>(other, &Dir::native(target.path()), write_options())
            .is_err()
    );
}

#[test]
fn prepare_into_a_home_with_other_sessions_leaves_them_byte_identical() {
    set_for_tests(TargetChoice::default());
    let target = lab().copy("simple");
    // The source is another scenario, so its id is new to the target.
    let source = lab().read("parallel");
    let written = write(&source.document, write_options());
    let before = kit::files_of(target.path());
    let plan = prepare(&written, target.path(), write_options()).unwrap();
    assert_eq!(kit::files_of(target.path()), before, "prepare reads only");
    install(&plan, &written, target.path());
    let after = kit::files_of(target.path());
    kit::assert_files_kept(&before, &after);
    assert_eq!(after.len(), before.len() + 3);
    let mut ids: Vec<String> =
        kit::discover::<GrokBuild>(target.path()).sessions.into_iter().map(|s| s.native_id).collect();
    ids.sort();
    let mut expected = vec![lab().id("simple").to_string(), written.native_id.clone()];
    expected.sort();
    assert_eq!(ids, expected);
    // The target's own session, written again under its id, is refused.
    let own = lab().read("simple");
    let again = write(&own.document, WriteOptions { native_id: Some(lab().id("simple").into()), ..write_options() });
    assert!(prepare(&again, target.path(), write_options()).is_err());
}
