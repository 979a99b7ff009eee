//! The OpenHands codec against conversations written by the real
//! `openhands` CLI (fixtures/openhands/1.16.0), run natively through
//! `Dir::native`, plus synthetic variations of them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_openhands::util::rfc3339_ms;
use trajhost_codec_openhands::{KNOWN_EVENT_KINDS, OpenHands};
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, Diagnostic, ReadOptions};

/// (scenario, conversation id, first prompt) of the scenarios the lab has
/// generated; every scenario folder present is also checked generically.
const SCENARIOS: [(&str, &str, &str); 5] = [
    ("simple", "fd9b1653f768424e8c62f5940edd4ec2", "Read hello.txt and tell me the secret word."),
    ("parallel", "3ae13d9f41194f8d940ffe1d46ba1db0", "Read hello.txt and second.txt and tell me both words."),
    ("failing-tool", "cac2e970452a49bf9a64cc4a363e8736", "Run cat missing.txt and tell me what happened."),
    (
        "multibyte",
        "f0f56adf94464464848dbd8450048b3b",
        "Lies bitte unicode.txt — 読んでください 🍍, and tell me the sentinel (café with a combining acute: cafe\u{301}).",
    ),
    ("long-output", "f3925d1d99c94551be1b126fb66adf69", "Print long.txt with cat and tell me how it begins."),
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/openhands/1.16.0")
}

fn home(scenario: &str) -> PathBuf {
    fixtures().join(scenario)
}

/// Every scenario folder of the fixture version.
fn all_scenarios() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn locator(id: &str) -> String {
    format!(".openhands/conversations/{id}/base_state.json")
}

fn scenario(name: &str) -> (&'static str, &'static str, &'static str) {
    *SCENARIOS.iter().find(|(s, _, _)| *s == name).unwrap()
}

struct Read {
    records: Vec<Record>,
    diagnostics: Vec<Diagnostic>,
}

fn read_with(home: &Path, locator: &str, options: ReadOptions) -> Read {
    let mut read = Read { records: Vec::new(), diagnostics: Vec::new() };
    trajhost_codec_sdk::read_all::<OpenHands>(Dir::native(home), locator, options, |batch| {
        for line in batch.records.lines() {
            read.records.push(serde_json::from_str(line).unwrap_or_else(|e| panic!("bad record {line}: {e}")));
        }
        read.diagnostics.extend(batch.diagnostics.iter().cloned());
    })
    .unwrap_or_else(|e| panic!("read {locator}: {e:?}"));
    read
}

fn read(home: &Path, locator: &str) -> Read {
    read_with(home, locator, ReadOptions { max_batch_records: 1000, max_batch_bytes: 1 << 20 })
}

fn read_scenario(name: &str) -> Read {
    let (_, id, _) = scenario(name);
    read(&home(name), &locator(id))
}

/// The one session of a scenario home, as discovered.
fn only_session(home: &Path) -> trajhost_codec_sdk::SessionRef {
    let mut found = OpenHands::discover(&Dir::native(home)).unwrap().sessions;
    assert_eq!(found.len(), 1);
    found.pop().unwrap()
}

fn users(records: &[Record]) -> Vec<&str> {
    records.iter().filter_map(|r| if let Body::User { text, .. } = &r.body { Some(text.as_str()) } else { None }).collect()
}

fn assistants(records: &[Record]) -> Vec<&trajhost_codec_sdk::canonical::Assistant> {
    records.iter().filter_map(|r| if let Body::Assistant(a) = &r.body { Some(a) } else { None }).collect()
}

fn tool_calls(records: &[Record]) -> Vec<(&str, &str, &Value)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::ToolCall { call_id, name, arguments } => Some((call_id.as_str(), name.as_str(), arguments)),
            _ => None,
        })
        .collect()
}

fn tool_results(records: &[Record]) -> Vec<(&str, &str, Option<bool>)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::ToolResult { call_id, content, ok } => Some((call_id.as_str(), content.as_str(), *ok)),
            _ => None,
        })
        .collect()
}

fn event_paths(home: &Path, id: &str) -> Vec<PathBuf> {
    let dir = home.join(format!(".openhands/conversations/{id}/events"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("event-"))
        .collect();
    files.sort();
    files
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn copy_of(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&home(name), dir.path());
    dir
}

/// Writes `event` as the next event file of a conversation.
fn add_event(home: &Path, id: &str, event: Value) {
    let index = event_paths(home, id).len();
    let name = format!("event-{index:05}-{}.json", event["id"].as_str().unwrap());
    std::fs::write(home.join(format!(".openhands/conversations/{id}/events/{name}")), event.to_string()).unwrap();
}

#[test]
fn info_describes_the_codec() {
    let info = OpenHands::info();
    assert_eq!(info.harness, "openhands");
    assert_eq!(info.codec_version, env!("CARGO_PKG_VERSION"));
    assert_eq!(info.native_versions, ">=1.0.0, <2.0.0");
    assert!(info.native_version_source.contains("nothing in the store records a version"));
    assert!(info.writes.is_empty());
    assert_eq!(info.session_globs, vec![".openhands/conversations/*/base_state.json".to_string()]);
    assert_eq!(info.canonical_schema, trajhost_codec_sdk::canonical::SCHEMA);
}

#[test]
fn discover_finds_each_fixture_conversation() {
    for name in all_scenarios() {
        let home = home(&name);
        let found = OpenHands::discover(&Dir::native(&home)).unwrap();
        // A checkout does not keep the files' times, so the local offset may
        // not be recoverable; the lab ran in UTC either way.
        assert!(found.diagnostics.iter().all(|d| d.code == "naive-time-read-as-utc"), "{name}: {:?}", found.diagnostics);
        assert_eq!(found.sessions.len(), 1, "{name}");
        let s = &found.sessions[0];
        assert_eq!(s.locator, locator(&s.native_id));
        assert_eq!(s.cwd.as_deref(), Some("/home/user/project"), "{name}: workspace.working_dir");
        assert_eq!(s.native_version, None, "{name}: nothing records one");
        let events = event_paths(&home, &s.native_id);
        let first: Value = serde_json::from_str(&std::fs::read_to_string(&events[0]).unwrap()).unwrap();
        // The lab ran in UTC: the naive stamp plus `Z`, to the millisecond.
        let stamp = first["timestamp"].as_str().unwrap();
        assert_eq!(s.started_at.as_deref().unwrap(), format!("{}Z", &stamp[..23]), "{name}");
        let dir = home.join(format!(".openhands/conversations/{}", s.native_id));
        let state = dir.join("base_state.json");
        let mtimes = events.iter().chain(std::iter::once(&state)).map(|p| {
            std::fs::metadata(p).unwrap().modified().unwrap().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
        });
        assert_eq!(s.updated_at.as_deref(), Some(rfc3339_ms(mtimes.max().unwrap()).as_str()));
        let size: u64 = std::fs::read_dir(dir.join("events")).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum::<u64>()
            + std::fs::metadata(dir.join("base_state.json")).unwrap().len();
        assert_eq!(s.size, size);
        if let Some((_, id, prompt)) = SCENARIOS.iter().find(|(n, _, _)| *n == name) {
            assert_eq!(s.native_id, *id);
            assert!(prompt.starts_with(s.title.as_deref().unwrap().trim_end_matches('…')), "{name}");
        }
        let one = OpenHands::inspect(&Dir::native(&home), &s.locator).unwrap();
        assert_eq!((one.native_id, one.started_at, one.updated_at, one.size), (s.native_id.clone(), s.started_at.clone(), s.updated_at.clone(), s.size));
    }
}

#[test]
fn every_scenario_reads_prompt_tool_call_result_and_answer() {
    for name in all_scenarios() {
        let home = home(&name);
        let session = only_session(&home);
        let read = read(&home, &session.locator);
        let records = &read.records;
        let Body::Meta(meta) = &records[0].body else { panic!("{name}: meta first") };
        assert_eq!((meta.native_id.as_str(), meta.harness.as_str()), (session.native_id.as_str(), "openhands"));
        assert_eq!(meta.cwd.as_deref(), Some("/home/user/project"));
        assert!(matches!(records[1].body, Body::System { .. }), "{name}: the system prompt event");
        assert!(!users(records).is_empty(), "{name}");
        let calls = tool_calls(records);
        assert!(!calls.is_empty(), "{name}");
        for (call_id, tool, args) in &calls {
            assert!(call_id.starts_with("call_lab_"));
            assert!(["terminal", "file_editor"].contains(tool), "{name}: {tool}");
            assert!(args.is_object());
        }
        let results = tool_results(records);
        assert_eq!(results.len(), calls.len(), "{name}");
        let ids: BTreeSet<&str> = calls.iter().map(|c| c.0).collect();
        assert!(results.iter().all(|r| ids.contains(r.0) && r.2.is_some()), "{name}: {results:?}");
        // A result's parent is the action event, which is its call's record.
        for r in records.iter().filter(|r| matches!(r.body, Body::ToolResult { .. })) {
            let parent = r.parent.as_deref().unwrap();
            assert!(records.iter().any(|c| c.id == parent && matches!(c.body, Body::ToolCall { .. })), "{name}");
        }
        let answers = assistants(records);
        assert!(answers.iter().any(|a| a.text.starts_with("FINAL ANSWER: the tool returned:")), "{name}");
        for a in &answers {
            assert_eq!(a.model.as_deref(), Some("openai/fake-model"), "{name}: from base_state stats");
            let usage = a.usage.as_ref().unwrap();
            assert_eq!((usage.input, usage.output), (Some(100), Some(20)));
            assert!(a.message_id.as_deref().unwrap().starts_with("chatcmpl-lab"));
        }
        for r in &records[1..] {
            assert!(r.ts.as_deref().is_some_and(|t| t.starts_with("2026-11-30T0") && t.ends_with('Z')), "{name}: {r:?}");
            assert!(r.src.as_ref().unwrap().file.contains("/events/event-"));
        }
        assert!(read.diagnostics.iter().all(|d| d.code == "naive-time-read-as-utc"), "{name}: {:?}", read.diagnostics);
    }
}

#[test]
fn simple_has_both_turns() {
    let records = read_scenario("simple").records;
    assert_eq!(users(&records), ["Read hello.txt and tell me the secret word.", "What was the secret word again? [notool]"]);
    let kinds: Vec<&str> = records.iter().map(|r| r.body.kind()).collect();
    assert_eq!(kinds, ["meta", "system", "user", "assistant", "tool_call", "tool_result", "assistant", "user", "assistant"]);
    let calls = tool_calls(&records);
    assert_eq!(calls[0].1, "terminal");
    assert_eq!(calls[0].2, &json!({"command": "cat hello.txt", "security_risk": "UNKNOWN"}));
    assert_eq!(tool_results(&records), [(calls[0].0, "Hello from the lab workspace. The secret word is PAPAYA-42.", Some(true))]);
    let answers = assistants(&records);
    assert_eq!(answers[0].text, "", "the tool call's response had no thought");
    assert!(answers[2].text.starts_with("NOTOOL ANSWER") && answers[2].text.contains("PAPAYA-42"));
    assert_eq!(records[4].id, "8a5677ee-be56-449a-83fa-036a8ad37235", "event ids are record ids");
    assert_eq!(records[3].id, "8a5677ee-be56-449a-83fa-036a8ad37235#1");
    assert_eq!(records[2].ts.as_deref(), Some("2026-11-30T04:36:44.649Z"));
}

#[test]
fn parallel_calls_share_one_assistant_record() {
    let records = read_scenario("parallel").records;
    let calls = tool_calls(&records);
    assert_eq!(calls.iter().map(|c| c.1).collect::<Vec<_>>(), ["terminal", "file_editor"]);
    assert_eq!(calls[1].2, &json!({"command": "view", "path": "/home/user/project/second.txt", "security_risk": "UNKNOWN"}));
    let kinds: Vec<&str> = records.iter().map(|r| r.body.kind()).collect();
    assert_eq!(kinds, ["meta", "system", "user", "assistant", "tool_call", "tool_call", "tool_result", "tool_result", "assistant"]);
    let results = tool_results(&records);
    assert_eq!(results.iter().map(|r| r.0).collect::<Vec<_>>(), calls.iter().map(|c| c.0).collect::<Vec<_>>());
    assert!(results[0].1.contains("PAPAYA-42") && results[1].1.contains("KIWI-58"));
}

#[test]
fn multibyte_and_long_output_are_intact() {
    let records = read_scenario("multibyte").records;
    assert_eq!(users(&records), [scenario("multibyte").2]);
    let result = tool_results(&records)[0].1;
    assert!(result.contains("日本語のテキスト：秘密の言葉は「桃」。"));
    assert!(result.contains("Emoji: 🍍🥭🎉 👩\u{200d}💻 🏳\u{fe0f}\u{200d}🌈"));
    assert!(result.contains("Combining marks: e\u{301} a\u{308} n\u{303} o\u{302}\u{323}\n"));
    assert!(result.contains("Sentinel: CHERRY-本-91 ✓"));
    let records = read_scenario("long-output").records;
    let result = tool_results(&records)[0].1;
    assert!(result.contains("LONG-OUTPUT-BEGIN LEMON-512"));
    assert!(assistants(&records).iter().any(|a| a.text.contains("LEMON-512")));
}

#[test]
fn a_failing_command_is_not_ok() {
    // The lab's failing-tool scenario (is_error false, exit_code 3), when
    // present; else the simple one with its observation turned into a
    // failed command.
    let (home, id) = if fixtures().join("failing-tool").exists() {
        let home = tempfile::tempdir().unwrap();
        copy_dir(&fixtures().join("failing-tool"), home.path());
        let id = only_session(home.path()).native_id;
        (home, id)
    } else {
        let home = copy_of("simple");
        let (_, id, _) = scenario("simple");
        let path = event_paths(home.path(), id).into_iter().find(|p| p.to_string_lossy().contains("event-00003")).unwrap();
        let mut event: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        event["observation"]["exit_code"] = json!(3);
        event["observation"]["content"][0]["text"] = json!("cat: missing.txt: No such file or directory");
        std::fs::write(&path, event.to_string()).unwrap();
        (home, id.to_string())
    };
    let records = read(home.path(), &locator(&id)).records;
    let results = tool_results(&records);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].2, Some(false));
    assert!(results[0].1.contains("No such file or directory"));
}

#[test]
fn ids_are_unique_and_stable_across_reads_and_batch_sizes() {
    for name in all_scenarios() {
        let home = home(&name);
        let session = only_session(&home);
        let a = read(&home, &session.locator);
        let b = read_with(&home, &session.locator, ReadOptions { max_batch_records: 1, max_batch_bytes: 1 });
        assert_eq!(a.records, b.records, "{name}");
        let ids: BTreeSet<&str> = a.records.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids.len(), a.records.len(), "{name}");
        assert_eq!(a.records[0].id, session.native_id);
    }
}

#[test]
fn fixtures_hold_only_known_event_kinds() {
    let kinds: BTreeSet<&str> = KNOWN_EVENT_KINDS.iter().map(|(k, _)| *k).collect();
    for name in all_scenarios() {
        let home = home(&name);
        let id = only_session(&home).native_id;
        for path in event_paths(&home, &id) {
            let event: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let kind = event["kind"].as_str().unwrap();
            assert!(kinds.contains(kind), "{name}: event kind {kind} is new to the codec");
        }
    }
}

#[test]
fn other_event_kinds_map_or_are_reported() {
    let home = copy_of("simple");
    let (_, id, _) = scenario("simple");
    let ts = "2026-11-30T04:37:20.000000";
    add_event(home.path(), id, json!({"id": "e-think", "timestamp": ts, "source": "agent", "kind": "ActionEvent",
        "thought": [{"type": "text", "text": "Let me look."}], "reasoning_content": "Hidden chain.", "thinking_blocks": [],
        "action": {"command": "ls", "kind": "TerminalAction"}, "tool_name": "terminal", "tool_call_id": "c9",
        "tool_call": {"id": "c9", "name": "terminal", "arguments": "{\"command\": \"ls\"}", "origin": "completion"},
        "llm_response_id": "resp-9", "security_risk": "UNKNOWN"}));
    add_event(home.path(), id, json!({"id": "e-reject", "timestamp": ts, "source": "user", "kind": "UserRejectObservation",
        "tool_name": "terminal", "tool_call_id": "c9", "rejection_reason": "Not now.", "action_id": "e-think"}));
    add_event(home.path(), id, json!({"id": "e-cond", "timestamp": ts, "source": "environment", "kind": "CondensationSummaryEvent", "summary": "Earlier: PAPAYA-42."}));
    add_event(home.path(), id, json!({"id": "e-state", "timestamp": ts, "source": "environment", "kind": "ConversationStateUpdateEvent", "key": "execution_status", "value": "finished"}));
    add_event(home.path(), id, json!({"id": "e-new", "timestamp": ts, "source": "environment", "kind": "TeleportEvent"}));
    let read = read(home.path(), &locator(id));
    let n = read.records.len();
    let kinds: Vec<&str> = read.records[n - 5..].iter().map(|r| r.body.kind()).collect();
    assert_eq!(kinds, ["reasoning", "assistant", "tool_call", "tool_result", "compaction"]);
    let Body::Reasoning(r) = &read.records[n - 5].body else { panic!() };
    assert_eq!(r.text.as_deref(), Some("Hidden chain."));
    let Body::Assistant(a) = &read.records[n - 4].body else { panic!() };
    assert_eq!((a.text.as_str(), a.usage.as_ref(), a.model.as_deref()), ("Let me look.", None, None), "no usage recorded for resp-9");
    assert_eq!(tool_results(&read.records[n - 2..]), [("c9", "Not now.", Some(false))]);
    assert_eq!(read.records[n - 2].parent.as_deref(), Some("e-think"));
    let reported = read.diagnostics.iter().find(|d| d.code == "unmapped-record-type").unwrap();
    assert_eq!(reported.detail, "ConversationStateUpdateEvent");
    let unknown = read.diagnostics.iter().find(|d| d.code == "unknown-record-type").unwrap();
    assert_eq!(unknown.detail, "TeleportEvent");
}

#[test]
fn a_malformed_event_file_is_diagnosed_and_skipped() {
    let home = copy_of("simple");
    let (_, id, _) = scenario("simple");
    let path = event_paths(home.path(), id).into_iter().find(|p| p.to_string_lossy().contains("event-00004")).unwrap();
    std::fs::write(&path, "{\"id\": \"half").unwrap();
    let read = read(home.path(), &locator(id));
    assert_eq!(read.diagnostics.iter().find(|d| d.code == "malformed-event").unwrap().count, 1);
    assert_eq!(assistants(&read.records).len(), 2);
}

#[test]
fn local_times_are_converted_with_the_recovered_offset() {
    // The same conversation stamped in UTC+02:00: the files' times say so.
    let home = copy_of("simple");
    let (_, id, _) = scenario("simple");
    for path in event_paths(home.path(), id) {
        let mut event: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let (ms, _) = trajhost_codec_openhands::util::parse_iso(event["timestamp"].as_str().unwrap()).unwrap();
        let local = rfc3339_ms(ms + 2 * 3_600_000);
        event["timestamp"] = json!(local.trim_end_matches('Z'));
        std::fs::write(&path, event.to_string()).unwrap();
        let mtime = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms as u64 + 50);
        std::fs::File::options().write(true).open(&path).unwrap().set_modified(mtime).unwrap();
    }
    let s = only_session(home.path());
    assert_eq!(s.started_at.as_deref(), Some("2026-11-30T04:36:44.523Z"));
    let read = read(home.path(), &locator(id));
    assert_eq!(read.records[2].ts.as_deref(), Some("2026-11-30T04:36:44.649Z"));
    assert!(read.diagnostics.is_empty(), "{:?}", read.diagnostics);
}

#[test]
fn a_locator_outside_the_layout_is_refused() {
    let home = home("simple");
    for bad in ["../x/base_state.json", "/abs/base_state.json", ".openhands/conversations/x/events", ".openhands/conversations/nope/base_state.json"] {
        assert!(OpenHands::read(Dir::native(&home), bad, ReadOptions { max_batch_records: 10, max_batch_bytes: 1000 }).is_err(), "{bad}");
    }
}
