//! The Kimi CLI codec against sessions written by the real Kimi CLI
//! (fixtures/kimi-cli/1.51.0), run natively through `Dir::native`, plus
//! synthetic variations of them (rotations, subagents, odd parts).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_kimi_cli::util::rfc3339_ms;
use trajhost_codec_kimi_cli::{Handling, KNOWN_CONTEXT_ROLES, KNOWN_WIRE_TYPES, KimiCli};
use trajhost_codec_sdk::canonical::{Body, Meta, Record};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, Diagnostic, ReadOptions};

const WORK_DIR: &str = ".kimi/sessions/90722f2638004be06d790eaac9ac1f8a";

/// (scenario, session id, first prompt)
const SCENARIOS: [(&str, &str, &str); 5] = [
    ("simple", "7d2dbe13-18df-48c4-bb2e-e59f9ba000ac", "Read hello.txt and tell me the secret word."),
    ("parallel", "2002db22-08eb-4cf6-b093-e4780784a111", "Read hello.txt and second.txt and tell me both words."),
    ("failing-tool", "27844b61-3879-4a19-b8aa-e236585dd290", "Run cat missing.txt and tell me what happened."),
    (
        "multibyte",
        "0a1aef4b-488f-42b0-a036-0f7d873a1bd4",
        "Lies bitte unicode.txt — 読んでください 🍍, and tell me the sentinel (café with a combining acute: cafe\u{301}).",
    ),
    ("long-output", "2a040832-5461-4aa7-9b34-562d6e78b611", "Print long.txt with cat and tell me how it begins."),
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/kimi-cli/1.51.0")
}

fn home(scenario: &str) -> PathBuf {
    fixtures().join(scenario)
}

fn session_dir(id: &str) -> String {
    format!("{WORK_DIR}/{id}")
}

fn locator(id: &str) -> String {
    format!("{WORK_DIR}/{id}/context.jsonl")
}

fn scenario(name: &str) -> (&'static str, &'static str, &'static str) {
    *SCENARIOS.iter().find(|(s, _, _)| *s == name).unwrap()
}

struct Read {
    records: Vec<Record>,
    diagnostics: Vec<Diagnostic>,
    batches: usize,
}

fn read_with(home: &Path, locator: &str, options: ReadOptions) -> Read {
    let mut read = Read { records: Vec::new(), diagnostics: Vec::new(), batches: 0 };
    trajhost_codec_sdk::read_all::<KimiCli>(Dir::native(home), locator, options, |batch| {
        read.batches += 1;
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

fn users(records: &[Record]) -> Vec<&str> {
    records.iter().filter_map(|r| if let Body::User { text, .. } = &r.body { Some(text.as_str()) } else { None }).collect()
}

fn assistant_texts(records: &[Record]) -> Vec<&str> {
    records.iter().filter_map(|r| if let Body::Assistant(a) = &r.body { Some(a.text.as_str()) } else { None }).collect()
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

fn metas(records: &[Record]) -> Vec<&Meta> {
    records.iter().filter_map(|r| if let Body::Meta(m) = &r.body { Some(m) } else { None }).collect()
}

fn diag<'a>(read: &'a Read, code: &str, detail: &str) -> Option<&'a Diagnostic> {
    read.diagnostics.iter().find(|d| d.code == code && d.detail == detail)
}

fn raw_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect()
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

fn append(path: &Path, lines: &[Value]) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).create(true).open(path).unwrap();
    for l in lines {
        writeln!(f, "{}", serde_json::to_string(l).unwrap()).unwrap();
    }
}

fn mtime_ms(path: &Path) -> i64 {
    std::fs::metadata(path).unwrap().modified().unwrap().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
}

// ---------------------------------------------------------------- info

#[test]
fn info_describes_the_codec() {
    let info = KimiCli::info();
    assert_eq!(info.harness, "kimi-cli");
    assert_eq!(info.codec_version, env!("CARGO_PKG_VERSION"));
    assert!(semver_range_covers(&info.native_versions, "1.10"));
    assert!(info.native_version_source.contains("protocol_version"));
    assert!(info.writes.is_empty());
    assert_eq!(info.session_globs, vec![".kimi/sessions/*/*/context.jsonl".to_string()]);
    assert_eq!(info.canonical_schema, trajhost_codec_sdk::canonical::SCHEMA);
}

/// `>=1.0.0, <2.0.0` covers `1.10` (read as 1.10.0) — checked by hand, the
/// test crate has no semver dependency.
fn semver_range_covers(range: &str, version: &str) -> bool {
    range == ">=1.0.0, <2.0.0" && version.starts_with("1.")
}

// ---------------------------------------------------------------- discover

#[test]
fn discover_finds_each_fixture_session() {
    for (name, id, prompt) in SCENARIOS {
        let home = home(name);
        let found = KimiCli::discover(&Dir::native(&home)).unwrap();
        assert!(found.diagnostics.is_empty(), "{name}: {:?}", found.diagnostics);
        assert_eq!(found.sessions.len(), 1, "{name}");
        let s = &found.sessions[0];
        assert_eq!(s.native_id, id);
        assert_eq!(s.locator, locator(id));
        assert_eq!(s.cwd.as_deref(), Some("/home/user/project"));
        assert_eq!(s.native_version.as_deref(), Some("1.10"));
        let state: Value = serde_json::from_str(&std::fs::read_to_string(home.join(session_dir(id)).join("state.json")).unwrap()).unwrap();
        assert_eq!(s.title.as_deref(), state["custom_title"].as_str(), "{name}: state.json custom_title");
        assert!(prompt.starts_with(s.title.as_deref().unwrap().trim_end_matches('…')), "{name}");

        let dir = home.join(session_dir(id));
        let wire = raw_lines(&dir.join("wire.jsonl"));
        let first_ts = wire.iter().find_map(|l| l["timestamp"].as_f64()).unwrap();
        assert_eq!(s.started_at.as_deref(), Some(rfc3339_ms((first_ts * 1000.0).round() as i64).as_str()));
        assert!(s.started_at.as_deref().unwrap().starts_with("2026-11-30T04:"));
        let updated = mtime_ms(&dir.join("context.jsonl")).max(mtime_ms(&dir.join("wire.jsonl")));
        assert_eq!(s.updated_at.as_deref(), Some(rfc3339_ms(updated).as_str()));
        let size: u64 = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum();
        assert_eq!(s.size, size);

        let one = KimiCli::inspect(&Dir::native(&home), &s.locator).unwrap();
        assert_eq!((one.native_id, one.cwd, one.started_at, one.updated_at, one.size, one.title), (
            s.native_id.clone(),
            s.cwd.clone(),
            s.started_at.clone(),
            s.updated_at.clone(),
            s.size,
            s.title.clone()
        ));
    }
}

#[test]
fn discover_skips_empty_sessions_and_falls_back_to_the_first_prompt() {
    let home = copy_of("simple");
    let (_, id, prompt) = scenario("simple");
    // A session folder Kimi created but never used.
    let empty = home.path().join(WORK_DIR).join("00000000-0000-0000-0000-000000000000");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("context.jsonl"), "").unwrap();
    std::fs::write(empty.join("wire.jsonl"), "{\"type\": \"metadata\", \"protocol_version\": \"1.10\"}\n").unwrap();
    // No state.json: the title is the first TurnBegin input.
    std::fs::remove_file(home.path().join(session_dir(id)).join("state.json")).unwrap();
    let found = KimiCli::discover(&Dir::native(home.path())).unwrap();
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].title.as_deref(), Some(prompt));
    assert!(found.diagnostics.iter().any(|d| d.code == "empty-session"), "{:?}", found.diagnostics);
}

#[test]
fn discover_without_kimi_json_has_no_cwd_and_an_empty_home_has_no_sessions() {
    let home = copy_of("simple");
    std::fs::remove_file(home.path().join(".kimi/kimi.json")).unwrap();
    let found = KimiCli::discover(&Dir::native(home.path())).unwrap();
    assert_eq!(found.sessions[0].cwd, None);
    let empty = tempfile::tempdir().unwrap();
    let found = KimiCli::discover(&Dir::native(empty.path())).unwrap();
    assert!(found.sessions.is_empty() && found.diagnostics.is_empty());
}

// ---------------------------------------------------------------- read: the fixtures

#[test]
fn every_scenario_reads_prompt_tool_call_result_and_answer() {
    for (name, id, prompt) in SCENARIOS {
        let read = read_scenario(name);
        let records = &read.records;
        let Body::Meta(meta) = &records[0].body else { panic!("{name}: meta first") };
        assert_eq!(meta.native_id, id);
        assert_eq!(meta.harness, "kimi-cli");
        assert_eq!(meta.native_version.as_deref(), Some("1.10"));
        assert_eq!(meta.cwd.as_deref(), Some("/home/user/project"));
        assert!(prompt.starts_with(meta.title.as_deref().unwrap().trim_end_matches('…')), "{name}");
        assert_eq!(metas(records).len(), 1, "{name}: no subagents");

        assert_eq!(users(records).first().copied(), Some(prompt), "{name}");
        let calls = tool_calls(records);
        assert!(!calls.is_empty(), "{name}");
        for (call_id, tool, args) in &calls {
            assert!(call_id.starts_with("call_lab_"), "{name}");
            assert!(["Shell", "ReadFile"].contains(tool), "{name}: {tool}");
            assert!(args.is_object(), "{name}: arguments parsed from the JSON string");
        }
        let results = tool_results(records);
        assert_eq!(results.len(), calls.len(), "{name}: one result per call");
        let call_ids: BTreeSet<&str> = calls.iter().map(|c| c.0).collect();
        for (call_id, _, ok) in &results {
            assert!(call_ids.contains(call_id), "{name}: result links to a call");
            assert!(ok.is_some(), "{name}: the wire records is_error");
        }
        let answers = assistant_texts(records);
        assert!(answers.iter().any(|t| t.starts_with("FINAL ANSWER: the tool returned:")), "{name}: {answers:?}");
        // The system prompt is a record of its own.
        assert!(matches!(records[1].body, Body::System { .. }), "{name}");
        // Every conversational record has a time from the wire and a source span.
        for r in &records[1..] {
            let src = r.src.as_ref().unwrap();
            assert_eq!(src.file, locator(id));
            if !matches!(r.body, Body::System { .. }) {
                assert!(r.ts.as_deref().is_some_and(|t| t.starts_with("2026-11-30T04:")), "{name}: {r:?}");
            }
        }
        // Every step's usage and provider message id.
        for r in records {
            if let Body::Assistant(a) = &r.body {
                let usage = a.usage.as_ref().expect("usage from StatusUpdate");
                assert_eq!((usage.input, usage.output), (Some(100), Some(20)));
                assert!(a.message_id.as_deref().unwrap().starts_with("chatcmpl-lab"));
                assert_eq!(a.model, None, "Kimi CLI records no model per message");
            }
        }
        assert!(read.diagnostics.iter().all(|d| d.code != "unknown-record-type"), "{name}: {:?}", read.diagnostics);
        assert!(read.diagnostics.iter().all(|d| d.code != "unmatched-wire-event"), "{name}: {:?}", read.diagnostics);
    }
}

#[test]
fn simple_has_both_turns_and_the_secret_word() {
    let read = read_scenario("simple");
    let records = &read.records;
    assert_eq!(users(records), ["Read hello.txt and tell me the secret word.", "What was the secret word again? [notool]"]);
    let calls = tool_calls(records);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].1, "Shell");
    assert_eq!(calls[0].2, &json!({"command": "cat hello.txt", "description": "Run cat hello.txt"}));
    let results = tool_results(records);
    assert_eq!(results[0].0, calls[0].0);
    assert_eq!(results[0].1, "<system>Command executed successfully.</system>\nHello from the lab workspace. The secret word is PAPAYA-42.\n");
    assert_eq!(results[0].2, Some(true));
    let answers = assistant_texts(records);
    assert_eq!(answers.len(), 3, "tool-call step, answer, resumed answer");
    assert!(answers[2].starts_with("NOTOOL ANSWER") && answers[2].contains("PAPAYA-42"));
    // Wire times: the user turn, the tool call step, the tool result.
    let kinds: Vec<&str> = records.iter().map(|r| r.body.kind()).collect();
    assert_eq!(kinds, ["meta", "system", "user", "assistant", "tool_call", "tool_result", "assistant", "user", "assistant"]);
    assert_eq!(records[2].ts.as_deref(), Some("2026-11-30T04:19:30.772Z"));
    assert_eq!(records[4].ts.as_deref(), Some("2026-11-30T04:19:31.960Z"));
    assert_eq!(records[5].ts.as_deref(), Some("2026-11-30T04:19:31.978Z"));
    assert_eq!(records[7].ts.as_deref(), Some("2026-11-30T04:19:45.346Z"));
    // Bookkeeping lines are reported with their counts.
    assert_eq!(diag(&read, "unmapped-record-type", "context:_checkpoint").unwrap().count, 5);
    assert_eq!(diag(&read, "unmapped-record-type", "context:_usage").unwrap().count, 6);
}

#[test]
fn parallel_calls_each_get_their_result() {
    let records = read_scenario("parallel").records;
    let calls = tool_calls(&records);
    assert_eq!(calls.iter().map(|c| c.1).collect::<Vec<_>>(), ["Shell", "ReadFile"]);
    assert_eq!(calls[1].2, &json!({"path": "/home/user/project/second.txt"}));
    let results = tool_results(&records);
    assert_eq!(results.iter().map(|r| r.0).collect::<Vec<_>>(), calls.iter().map(|c| c.0).collect::<Vec<_>>());
    assert!(results[0].1.contains("PAPAYA-42") && results[1].1.contains("KIWI-58"));
    assert!(assistant_texts(&records).last().unwrap().contains("KIWI-58"));
}

#[test]
fn failing_tool_is_not_ok() {
    let records = read_scenario("failing-tool").records;
    let results = tool_results(&records);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].2, Some(false), "wire ToolResult.return_value.is_error");
    assert!(results[0].1.contains("No such file or directory"));
}

#[test]
fn multibyte_text_is_intact() {
    let records = read_scenario("multibyte").records;
    let (_, _, prompt) = scenario("multibyte");
    assert_eq!(users(&records), [prompt]);
    let result = tool_results(&records)[0].1;
    assert!(result.contains("日本語のテキスト：秘密の言葉は「桃」。"));
    assert!(result.contains("Emoji: 🍍🥭🎉 👩\u{200d}💻 🏳\u{fe0f}\u{200d}🌈"));
    assert!(result.contains("Combining marks: e\u{301} a\u{308} n\u{303} o\u{302}\u{323}\n"));
    assert!(result.contains("한국어: 안녕하세요."));
    assert!(result.contains("Sentinel: CHERRY-本-91 ✓"));
    assert!(assistant_texts(&records).last().unwrap().contains("CHERRY-本-91"));
}

#[test]
fn long_output_is_kept_whole() {
    let records = read_scenario("long-output").records;
    let result = tool_results(&records)[0].1;
    assert!(result.contains("LONG-OUTPUT-BEGIN LEMON-512"));
    assert!(result.len() > 50_000, "{}", result.len());
}

#[test]
fn ids_are_unique_and_stable_across_reads_and_batch_sizes() {
    for (name, id, _) in SCENARIOS {
        let a = read_scenario(name);
        let b = read_with(&home(name), &locator(id), ReadOptions { max_batch_records: 1, max_batch_bytes: 1 });
        assert_eq!(a.records, b.records, "{name}");
        assert!(b.batches >= a.records.len() / 3, "{name}: small batches");
        let ids: BTreeSet<&str> = a.records.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids.len(), a.records.len(), "{name}: unique ids");
        assert_eq!(a.records[0].id, id);
    }
}

#[test]
fn fixtures_hold_only_known_record_types() {
    let roles: BTreeSet<&str> = KNOWN_CONTEXT_ROLES.iter().map(|(r, _)| *r).collect();
    let types: BTreeSet<&str> = KNOWN_WIRE_TYPES.iter().map(|(t, _)| *t).collect();
    for (name, id, _) in SCENARIOS {
        let dir = home(name).join(session_dir(id));
        for line in raw_lines(&dir.join("context.jsonl")) {
            let role = line["role"].as_str().unwrap();
            assert!(roles.contains(role), "{name}: context role {role} is new to the codec");
        }
        for line in raw_lines(&dir.join("wire.jsonl")) {
            let kind = line["message"]["type"].as_str().or(line["type"].as_str()).unwrap();
            assert!(types.contains(kind), "{name}: wire type {kind} is new to the codec");
        }
    }
    // Every reported type really is reported, never mapped silently.
    assert!(KNOWN_CONTEXT_ROLES.iter().any(|(r, h)| *r == "_usage" && *h == Handling::Reported));
}

// ---------------------------------------------------------------- read: variations

#[test]
fn unknown_types_are_diagnosed_by_name() {
    let home = copy_of("simple");
    let (_, id, _) = scenario("simple");
    let dir = home.path().join(session_dir(id));
    append(&dir.join("context.jsonl"), &[json!({"role": "_mystery", "content": "x"})]);
    append(
        &dir.join("wire.jsonl"),
        &[
            json!({"timestamp": 1796012390.0, "message": {"type": "FutureEvent", "payload": {}}}),
            json!({"timestamp": 1796012391.0, "message": {"type": "BtwBegin", "payload": {"id": "b", "question": "q"}}}),
        ],
    );
    let read = read(home.path(), &locator(id));
    let unknown: Vec<&str> =
        read.diagnostics.iter().filter(|d| d.code == "unknown-record-type").map(|d| d.detail.as_str()).collect();
    assert_eq!(unknown, ["context:_mystery", "wire:FutureEvent"]);
    assert_eq!(diag(&read, "unmapped-record-type", "wire:BtwBegin").unwrap().count, 1);
}

#[test]
fn a_torn_last_line_is_a_torn_tail() {
    let home = copy_of("simple");
    let (_, id, _) = scenario("simple");
    let path = home.path().join(session_dir(id)).join("context.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"role\":\"assistant\",\"content\":\"half");
    std::fs::write(&path, text).unwrap();
    let read = read(home.path(), &locator(id));
    assert_eq!(read.diagnostics.iter().find(|d| d.code == "torn-tail").unwrap().count, 1);
    assert_eq!(users(&read.records).len(), 2);
}

#[test]
fn parts_think_images_and_injected_system_text() {
    let home = copy_of("simple");
    let (_, id, _) = scenario("simple");
    let dir = home.path().join(session_dir(id));
    append(
        &dir.join("context.jsonl"),
        &[
            json!({"role": "user", "content": [
                {"type": "text", "text": "<system>Plan mode is on.</system>"},
                {"type": "text", "text": "Look at this 🖼"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
            ]}),
            json!({"role": "assistant", "content": [
                {"type": "think", "think": "Hmm, a picture."},
                {"type": "text", "text": "A picture."}
            ]}),
        ],
    );
    let records = read(home.path(), &locator(id)).records;
    let n = records.len();
    let tail: Vec<&str> = records[n - 4..].iter().map(|r| r.body.kind()).collect();
    assert_eq!(tail, ["observation", "user", "reasoning", "assistant"]);
    let Body::Observation { subtype, text } = &records[n - 4].body else { panic!() };
    assert_eq!((subtype.as_str(), text.as_deref()), ("system-reminder", Some("<system>Plan mode is on.</system>")));
    let Body::User { text, attachments } = &records[n - 3].body else { panic!() };
    assert_eq!(text, "Look at this 🖼");
    assert_eq!(attachments[0].kind, "image");
    assert_eq!(attachments[0].media_type.as_deref(), Some("image/png"));
    let Body::Reasoning(r) = &records[n - 2].body else { panic!() };
    assert_eq!(r.text.as_deref(), Some("Hmm, a picture."));
    let Body::Assistant(a) = &records[n - 1].body else { panic!() };
    assert_eq!(a.text, "A picture.");
    // No wire step for it: no usage, no time — never zeros.
    assert_eq!((a.usage.as_ref(), records[n - 1].ts.as_deref()), (None, None));
}

#[test]
fn a_revert_rotation_is_read_once() {
    let home = copy_of("simple");
    let (_, id, _) = scenario("simple");
    let dir = home.path().join(session_dir(id));
    let original = std::fs::read_to_string(dir.join("context.jsonl")).unwrap();
    // `/undo` to checkpoint 1: the old file is rotated, the new one holds its
    // lines up to that checkpoint, then the conversation goes on.
    std::fs::write(dir.join("context_1.jsonl"), &original).unwrap();
    let kept: Vec<&str> = original.lines().take(3).collect();
    let mut new = kept.join("\n");
    new.push('\n');
    new.push_str("{\"role\":\"user\",\"content\":\"Try again, please.\"}\n");
    std::fs::write(dir.join("context.jsonl"), new).unwrap();
    let read = read(home.path(), &locator(id));
    assert_eq!(
        users(&read.records),
        ["Read hello.txt and tell me the secret word.", "What was the secret word again? [notool]", "Try again, please."]
    );
    assert_eq!(read.records.iter().filter(|r| matches!(r.body, Body::System { .. })).count(), 1);
    assert_eq!(diag(&read, "carried-over-line", "context:user").unwrap().count, 1);
    let files: Vec<&str> = read.records[1..].iter().map(|r| r.src.as_ref().unwrap().file.rsplit('/').next().unwrap()).collect();
    assert_eq!(files.first(), Some(&"context_1.jsonl"));
    assert_eq!(files.last(), Some(&"context.jsonl"));
    let ids: BTreeSet<&str> = read.records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), read.records.len());
    // Discovery counts the rotated file's bytes too.
    let found = KimiCli::discover(&Dir::native(home.path())).unwrap();
    assert!(found.sessions[0].size > original.len() as u64);
}

#[test]
fn a_compaction_becomes_one_compaction_record() {
    let home = copy_of("simple");
    let (_, id, _) = scenario("simple");
    let dir = home.path().join(session_dir(id));
    let original = std::fs::read_to_string(dir.join("context.jsonl")).unwrap();
    let lines: Vec<&str> = original.lines().collect();
    std::fs::write(dir.join("context_1.jsonl"), &original).unwrap();
    let last_answer = lines.iter().rev().find(|l| l.contains("NOTOOL ANSWER")).unwrap();
    let summary = json!({"role": "user", "content": [
        {"type": "text", "text": "<system>Previous context has been compacted. Here is the compaction output:</system>"},
        {"type": "text", "text": "The user asked for the secret word; it is PAPAYA-42."}
    ]});
    let new = [
        lines[0].to_string(),
        lines[1].to_string(),
        summary.to_string(),
        last_answer.to_string(),
        "{\"role\": \"_usage\", \"token_count\": 50}".to_string(),
        "{\"role\":\"user\",\"content\":\"And now?\"}".to_string(),
    ];
    std::fs::write(dir.join("context.jsonl"), new.join("\n") + "\n").unwrap();
    let read = read(home.path(), &locator(id));
    let compactions: Vec<&str> =
        read.records.iter().filter_map(|r| if let Body::Compaction { summary, .. } = &r.body { Some(summary.as_str()) } else { None }).collect();
    assert_eq!(compactions, ["The user asked for the secret word; it is PAPAYA-42."]);
    assert_eq!(assistant_texts(&read.records).iter().filter(|t| t.starts_with("NOTOOL")).count(), 1, "the preserved answer is read once");
    assert_eq!(users(&read.records).last(), Some(&"And now?"));
}

#[test]
fn subagents_are_read_after_the_session_and_bound_to_their_call() {
    let home = copy_of("simple");
    let (_, id, _) = scenario("simple");
    let dir = home.path().join(session_dir(id));
    let agent = "a1b2c3";
    let parent_call = "call_lab_4924e485ebda47a8";
    append(
        &dir.join("wire.jsonl"),
        &[json!({"timestamp": 1796012371.97, "message": {"type": "SubagentEvent", "payload": {
            "parent_tool_call_id": parent_call, "agent_id": agent, "subagent_type": "coder",
            "event": {"type": "StepBegin", "payload": {"n": 1}}}}})],
    );
    let child = dir.join("subagents").join(agent);
    std::fs::create_dir_all(&child).unwrap();
    append(
        &child.join("context.jsonl"),
        &[
            json!({"role": "user", "content": "Find the word."}),
            json!({"role": "assistant", "content": "", "tool_calls": [{"type": "function", "id": "sub_call_1", "function": {"name": "ReadFile", "arguments": "{\"path\": \"hello.txt\"}"}}]}),
            json!({"role": "tool", "content": [{"type": "text", "text": "PAPAYA-42"}], "tool_call_id": "sub_call_1"}),
            json!({"role": "assistant", "content": "It is PAPAYA-42."}),
        ],
    );
    append(
        &child.join("wire.jsonl"),
        &[
            json!({"type": "metadata", "protocol_version": "1.10"}),
            json!({"timestamp": 1796012371.5, "message": {"type": "TurnBegin", "payload": {"user_input": "Find the word."}}}),
            json!({"timestamp": 1796012371.6, "message": {"type": "StepBegin", "payload": {"n": 1}}}),
            json!({"timestamp": 1796012371.7, "message": {"type": "ToolCall", "payload": {"type": "function", "id": "sub_call_1", "function": {"name": "ReadFile", "arguments": "{}"}}}}),
            json!({"timestamp": 1796012371.8, "message": {"type": "ToolResult", "payload": {"tool_call_id": "sub_call_1", "return_value": {"is_error": false, "output": "PAPAYA-42"}}}}),
        ],
    );
    std::fs::write(child.join("meta.json"), json!({"agent_id": agent, "subagent_type": "coder", "description": "Find the secret word", "created_at": 1796012371.4}).to_string()).unwrap();
    let read = read(home.path(), &locator(id));
    let records = &read.records;
    let metas = metas(records);
    assert_eq!(metas.len(), 2);
    let child_meta = metas[1];
    assert_eq!(child_meta.native_id, agent);
    assert_eq!(child_meta.parent_session.as_deref(), Some(id));
    assert_eq!(child_meta.parent_call.as_deref(), Some(parent_call));
    assert_eq!(child_meta.title.as_deref(), Some("Find the secret word"));
    let first_child = records.iter().position(|r| r.agent.is_some()).unwrap();
    assert!(matches!(records[first_child].body, Body::Meta(_)));
    assert!(records[first_child..].iter().all(|r| r.agent.as_deref() == Some(agent)), "the child's records come last");
    assert!(records[..first_child].iter().all(|r| r.agent.is_none()), "kept out of the parent's records");
    let child_results = tool_results(&records[first_child..]);
    assert_eq!(child_results, [("sub_call_1", "PAPAYA-42", Some(true))]);
    assert_eq!(users(&records[first_child..]), ["Find the word."]);
    assert_eq!(records[first_child + 1].ts.as_deref(), Some("2026-11-30T04:19:31.500Z"));
    assert!(records[first_child..].iter().all(|r| r.src.as_ref().is_none_or(|s| s.file.contains("/subagents/a1b2c3/"))));
    let ids: BTreeSet<&str> = records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), records.len());
    assert!(read.diagnostics.iter().all(|d| d.code != "unknown-record-type"));
    // Subagent folders are not sessions of their own.
    assert_eq!(KimiCli::discover(&Dir::native(home.path())).unwrap().sessions.len(), 1);
}

#[test]
fn a_missing_wire_leaves_times_usage_and_ok_unset() {
    let home = copy_of("simple");
    let (_, id, _) = scenario("simple");
    std::fs::remove_file(home.path().join(session_dir(id)).join("wire.jsonl")).unwrap();
    let read = read(home.path(), &locator(id));
    assert_eq!(users(&read.records).len(), 2);
    assert!(tool_results(&read.records).iter().all(|r| r.2.is_none()));
    assert!(read.records.iter().all(|r| r.ts.is_none()));
    assert!(read.records.iter().all(|r| !matches!(&r.body, Body::Assistant(a) if a.usage.is_some())));
    let Body::Meta(meta) = &read.records[0].body else { panic!() };
    assert_eq!(meta.native_version, None);
}

#[test]
fn a_locator_outside_the_layout_is_refused() {
    let home = home("simple");
    for bad in ["../etc/context.jsonl", ".kimi/sessions/x/wire.jsonl", "/abs/context.jsonl", ".kimi/sessions/a/b/context.jsonl"] {
        assert!(KimiCli::read(Dir::native(&home), bad, ReadOptions { max_batch_records: 10, max_batch_bytes: 1000 }).is_err(), "{bad}");
    }
}
