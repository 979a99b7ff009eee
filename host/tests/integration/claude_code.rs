//! The built-in Claude Code codec, run as a wasm component on sessions the
//! real Claude Code CLI wrote (fixtures/claude-code/).

use trajhost::canonical::{Body, Record};
use trajhost::catalog::Catalog;
use trajhost::inventory::{self, SessionQuery};
use trajhost::registry::Registry;
use trajhost::runtime::{Mode, Runtime};

use crate::common::*;

const VERSION: &str = "2.1.197";

struct Read {
    records: Vec<Record>,
    diagnostics: Vec<String>,
    native_id: String,
}

fn read_fixture(scenario: &str) -> Read {
    let data = tempfile::tempdir().unwrap();
    let registry = Registry::new(data.path());
    let runtime = Runtime::new(test_limits(), Some(&shared_cache()), Mode::Production).unwrap();
    let catalog = Catalog::open(&runtime, &registry).unwrap();
    let home = fixture_home("claude-code", VERSION, scenario);
    let inventory = inventory::discover(
        &catalog,
        &SessionQuery { home: home.clone(), harness: Some("claude-code".into()), cwd: None },
    )
    .unwrap();
    assert_eq!(inventory.sessions.len(), 1, "{scenario}: {:?}", inventory.sessions);
    let found = &inventory.sessions[0];
    assert_eq!(found.session.native_version.as_deref(), Some(VERSION));
    assert_eq!(found.session.cwd.as_deref(), Some("/home/user/project"));
    assert!(
        found.session.started_at.as_deref().is_some_and(|t| t.starts_with("2026-")),
        "{:?}",
        found.session.started_at
    );
    assert!(found.session.updated_at.is_some());
    assert!(found.session.size > 0);
    let (_, mut stream) = inventory::open(&catalog, found, None, inventory::default_read_options()).unwrap();
    let mut records = Vec::new();
    let mut diagnostics = Vec::new();
    while let Some(batch) = stream.next_batch().unwrap() {
        for line in batch.records.lines() {
            records.push(serde_json::from_str::<Record>(line).unwrap_or_else(|e| panic!("not canonical: {e}: {line}")));
        }
        diagnostics.extend(batch.diagnostics.iter().map(|d| format!("{}:{}", d.code, d.detail)));
    }
    Read { records, diagnostics, native_id: found.session.native_id.clone() }
}

fn users(read: &Read) -> Vec<&str> {
    read.records
        .iter()
        .filter_map(|r| match &r.body {
            Body::User { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn tool_calls(read: &Read) -> Vec<(&str, &str, &serde_json::Value)> {
    read.records
        .iter()
        .filter_map(|r| match &r.body {
            Body::ToolCall { call_id, name, arguments } => Some((call_id.as_str(), name.as_str(), arguments)),
            _ => None,
        })
        .collect()
}

fn tool_results(read: &Read) -> Vec<(&str, &str, Option<bool>)> {
    read.records
        .iter()
        .filter_map(|r| match &r.body {
            Body::ToolResult { call_id, content, ok } => Some((call_id.as_str(), content.as_str(), *ok)),
            _ => None,
        })
        .collect()
}

fn assistants(read: &Read) -> Vec<&trajhost::canonical::Assistant> {
    read.records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Assistant(a) => Some(a),
            _ => None,
        })
        .collect()
}

#[test]
fn simple_session_has_every_part_of_the_exchange() {
    let read = read_fixture("simple");
    let Body::Meta(meta) = &read.records[0].body else { panic!("first record is not meta: {:?}", read.records[0]) };
    assert_eq!(meta.harness, "claude-code");
    assert_eq!(meta.native_id, read.native_id);
    assert_eq!(meta.native_version.as_deref(), Some(VERSION));

    assert_eq!(
        users(&read),
        ["Read hello.txt and tell me the secret word.", "What was the secret word again? [notool]"]
    );
    let calls = tool_calls(&read);
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].1, "Bash");
    assert_eq!(calls[0].2["command"], "cat hello.txt");
    let results = tool_results(&read);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].0, calls[0].0, "the result answers the call");
    assert!(results[0].1.contains("PAPAYA-42"), "{}", results[0].1);
    let answers = assistants(&read);
    assert!(answers.iter().any(|a| a.text.contains("FINAL ANSWER") && a.text.contains("PAPAYA-42")));
    for a in &answers {
        assert!(a.model.as_deref().is_some_and(|m| !m.is_empty()), "model recorded: {a:?}");
        let usage = a.usage.as_ref().expect("usage recorded");
        assert!(usage.output.is_some_and(|n| n > 0), "{usage:?}");
    }
    // Timestamps on the conversational records, raw-byte spans everywhere.
    for r in read.records.iter().filter(|r| !matches!(r.body, Body::Meta(_))) {
        if matches!(r.body, Body::User { .. } | Body::Assistant(_) | Body::ToolCall { .. } | Body::ToolResult { .. }) {
            assert!(r.ts.as_deref().is_some_and(|t| t.starts_with("2026-")), "no timestamp on {r:?}");
        }
        assert!(r.src.is_some(), "no source span on {r:?}");
    }
}

#[test]
fn source_spans_point_at_the_raw_lines() {
    let read = read_fixture("simple");
    let home = fixture_home("claude-code", VERSION, "simple");
    for r in &read.records {
        let Some(src) = &r.src else { continue };
        let bytes = std::fs::read(home.join(&src.file)).unwrap();
        let raw = &bytes[src.offset as usize..(src.offset + src.len) as usize];
        let line: serde_json::Value = serde_json::from_slice(raw.strip_suffix(b"\n").unwrap_or(raw))
            .unwrap_or_else(|e| panic!("span of {} is not one JSON line: {e}", r.id));
        assert!(line.get("type").is_some(), "{line}");
    }
}

#[test]
fn record_ids_are_stable_across_reads() {
    let first: Vec<String> = read_fixture("simple").records.iter().map(|r| r.id.clone()).collect();
    let second: Vec<String> = read_fixture("simple").records.iter().map(|r| r.id.clone()).collect();
    assert_eq!(first, second);
    let unique: std::collections::BTreeSet<&String> = first.iter().collect();
    assert_eq!(unique.len(), first.len(), "ids are unique");
}

#[test]
fn parallel_tool_calls_each_get_their_result() {
    let read = read_fixture("parallel");
    let calls = tool_calls(&read);
    let results = tool_results(&read);
    assert!(calls.len() >= 2, "{calls:?}");
    for (id, _, _) in &calls {
        assert!(results.iter().any(|(rid, _, _)| rid == id), "call {id} has no result");
    }
}

#[test]
fn failing_tool_is_marked_not_ok() {
    let read = read_fixture("failing-tool");
    let results = tool_results(&read);
    assert!(results.iter().any(|(_, _, ok)| *ok == Some(false)), "{results:?}");
}

#[test]
fn multibyte_text_is_intact() {
    let read = read_fixture("multibyte");
    let all: String = read
        .records
        .iter()
        .map(|r| match &r.body {
            Body::User { text, .. } => text.clone(),
            Body::Assistant(a) => a.text.clone(),
            Body::ToolResult { content, .. } => content.clone(),
            _ => String::new(),
        })
        .collect();
    assert!(all.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)), "CJK present");
    assert!(all.chars().any(|c| c as u32 >= 0x1f300), "emoji present");
    assert!(all.chars().any(|c| ('\u{0300}'..='\u{036f}').contains(&c)), "combining marks present");
}

#[test]
fn long_tool_output_arrives_whole() {
    let read = read_fixture("long-output");
    let longest = tool_results(&read).iter().map(|(_, content, _)| content.len()).max().unwrap_or(0);
    // Claude Code spills large outputs to tool-results/ and keeps a preview in
    // the transcript; the codec carries what the transcript holds.
    assert!(longest > 1000, "longest tool result is {longest} bytes");
}

#[test]
fn every_fixture_reads_without_unknown_record_types() {
    for scenario in ["simple", "parallel", "failing-tool", "multibyte", "long-output"] {
        let read = read_fixture(scenario);
        assert!(
            !read.diagnostics.iter().any(|d| d.starts_with("unknown-record-type")),
            "{scenario}: {:?}",
            read.diagnostics
        );
    }
}

#[test]
fn discovery_stats_each_candidate_once() {
    let data = tempfile::tempdir().unwrap();
    let registry = Registry::new(data.path());
    let runtime = Runtime::new(test_limits(), Some(&shared_cache()), Mode::Production).unwrap();
    let catalog = Catalog::open(&runtime, &registry).unwrap();
    let codec = catalog.for_harness("claude-code")[0].clone();
    let home = fixture_home("claude-code", VERSION, "long-output");
    let mut instance = catalog.instantiate(&codec).unwrap();
    let discovery = instance.discover(&home).unwrap();
    let used = instance.usage().capabilities;
    assert_eq!(discovery.sessions.len(), 1);
    // Sizes and times come from the one stat per entry that `list` makes.
    assert_eq!(used.stat_calls, 0, "{used:?}");
    assert!(used.entries_listed >= 1 && used.list_calls >= 1, "{used:?}");
    assert!(used.opens <= 2 * discovery.sessions.len() as u64 + 2, "{used:?}");
}
