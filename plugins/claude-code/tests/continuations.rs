//! One conversation kept as several sessions: Claude Code 1.0.x's forked
//! `--resume` files (fixtures/claude-code/1.0.100, made by the real CLI in
//! the lab) and the `continued-in` record of Claude Code >= 2.1.261
//! (fixtures/claude-code/continued-in, written by hand). `discover` links
//! them with info diagnostics the host reads (`continues`, `continued-in`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::json;
use trajhost_codec_claude_code::ClaudeCode;
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_sdk::{Diagnostic, Severity};
use trajhost_codec_testkit::{self as kit, Read, Spans, raw_lines, tool_results, users};

const PROJECT: &str = ".claude/projects/-home-user-project";
/// Turn 1; resumed into the second; resumed again into the third.
const FIRST: &str = "3f785eb6-f4c4-4326-b89f-1deb67a47f92";
const SECOND: &str = "519e1bdc-f7df-4acf-aa61-52f2c82397f4";
const THIRD: &str = "39a9b31b-b06b-4c85-84e3-810bef45bbc3";

fn resumed() -> PathBuf {
    kit::fixtures("claude-code", "1.0.100").join("resumed")
}

fn locator(id: &str) -> String {
    format!("{PROJECT}/{id}.jsonl")
}

fn read(home: &Path, id: &str) -> Read {
    kit::read::<ClaudeCode>(home, &locator(id))
}

/// The `(code, detail, file)` of the linking diagnostics of a discovery.
fn links(diagnostics: &[Diagnostic]) -> Vec<(String, String, String)> {
    diagnostics
        .iter()
        .filter(|d| d.code == "continues" || d.code == "continued-in")
        .map(|d| {
            assert_eq!(d.severity, Severity::Info, "{d:?}");
            assert_eq!(d.offset, None);
            (d.code.clone(), d.detail.clone(), d.file.clone().unwrap())
        })
        .collect()
}

fn continues(later: &str, earlier: &str) -> (String, String, String) {
    ("continues".into(), earlier.into(), locator(later))
}

// ---------------------------------------------------------------- 1.0.x forks

#[test]
fn each_fork_continues_the_session_it_resumed() {
    let found = kit::discover::<ClaudeCode>(&resumed());
    let ids: BTreeSet<&str> = found.sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert_eq!(ids, BTreeSet::from([FIRST, SECOND, THIRD]));
    let mut got = links(&found.diagnostics);
    got.sort();
    let mut want = vec![continues(SECOND, FIRST), continues(THIRD, SECOND)];
    want.sort();
    assert_eq!(got, want, "{:?}", found.diagnostics);
    assert_eq!(found.diagnostics.len(), 2, "{:?}", found.diagnostics);
    // `file` is exactly the later session's locator.
    for (_, _, file) in &got {
        assert!(found.sessions.iter().any(|s| &s.locator == file));
    }
    // The `simple` fixture is the first resume alone.
    let simple = kit::discover::<ClaudeCode>(&kit::fixtures("claude-code", "1.0.100").join("simple"));
    assert_eq!(links(&simple.diagnostics), vec![continues(SECOND, FIRST)]);
}

#[test]
fn the_fork_files_read_cleanly() {
    for id in [FIRST, SECOND, THIRD] {
        let read = kit::conformance::<ClaudeCode>(&resumed(), &locator(id), Spans::Lines);
        assert!(read.diagnostics.iter().all(|d| d.severity == Severity::Info), "{id}: {:?}", read.diagnostics);
        assert_eq!(read.meta().native_version.as_deref(), Some("1.0.100"));
    }
}

/// What `read --follow` gives: the sessions oldest first, each record id
/// once (a later file's copy of a line is the same record).
fn follow(home: &Path, chain: &[&str]) -> Vec<Record> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (n, id) in chain.iter().enumerate() {
        for record in read(home, id).records {
            if matches!(record.body, Body::Meta(_)) && n > 0 {
                continue;
            }
            if seen.insert(record.id.clone()) {
                out.push(record);
            }
        }
    }
    out
}

#[test]
fn copied_lines_are_the_same_records_in_every_file() {
    let first = read(&resumed(), FIRST).records;
    let second = read(&resumed(), SECOND).records;
    let third = read(&resumed(), THIRD).records;
    let conversational = |r: &Record| {
        matches!(r.body, Body::User { .. } | Body::Assistant(_) | Body::ToolCall { .. } | Body::ToolResult { .. })
    };
    // Every record of an earlier file is in the later one, with the same body.
    for (earlier, later) in [(&first, &second), (&second, &third)] {
        for record in earlier.iter().filter(|r| conversational(r)) {
            let copy = later.iter().find(|r| r.id == record.id).unwrap_or_else(|| panic!("{} not copied", record.id));
            assert_eq!(copy.body, record.body, "{}", record.id);
            assert_eq!(copy.parent, record.parent, "{}", record.id);
        }
    }

    let whole = follow(&resumed(), &[FIRST, SECOND, THIRD]);
    assert_eq!(
        users(&whole),
        vec![
            "Read hello.txt and tell me the secret word.",
            "What was the secret word again? [notool]",
            "Loader check: what was the secret word? [notool]",
        ]
    );
    assert_eq!(tool_results(&whole).len(), 1);
    let answers: Vec<&str> = kit::assistant_texts(&whole).into_iter().filter(|t| !t.is_empty()).collect();
    assert_eq!(answers.len(), 3);
    assert!(answers[0].starts_with("FINAL ANSWER"));
    assert!(answers[1].starts_with("NOTOOL ANSWER") && answers[2].starts_with("NOTOOL ANSWER"));
    // The third file alone already holds the whole history.
    let third_only: Vec<&str> = users(&third);
    assert_eq!(third_only, users(&whole));
}

#[test]
fn a_fork_is_found_by_its_opening_summary_when_its_chain_does_not_show() {
    // The second file without the copied history and with its new turn's
    // link to the first file cut: only the summary's leafUuid is left.
    let dir = kit::copy_of(&resumed());
    let project = dir.path().join(PROJECT);
    std::fs::remove_file(project.join(format!("{THIRD}.jsonl"))).unwrap();
    let path = project.join(format!("{SECOND}.jsonl"));
    let lines = raw_lines(&path);
    assert_eq!(lines[0]["type"], "summary");
    let leaf = lines[0]["leafUuid"].as_str().unwrap().to_string();
    let first_lines = raw_lines(&project.join(format!("{FIRST}.jsonl")));
    assert_eq!(first_lines.last().unwrap()["uuid"], leaf.as_str(), "the leaf is the first file's last record");
    let mut kept = vec![lines[0].clone()];
    for mut line in lines.into_iter().skip(5) {
        if line["parentUuid"] == leaf.as_str() {
            line["parentUuid"] = json!(null);
        }
        kept.push(line);
    }
    std::fs::write(&path, kept.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let found = kit::discover::<ClaudeCode>(dir.path());
    assert_eq!(links(&found.diagnostics), vec![continues(SECOND, FIRST)]);

    // Without the summary nothing links them.
    std::fs::write(&path, kept[1..].iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let found = kit::discover::<ClaudeCode>(dir.path());
    assert!(links(&found.diagnostics).is_empty(), "{:?}", found.diagnostics);
}

#[test]
fn sessions_that_share_no_history_are_not_linked() {
    // Two sessions of one project, from the 2.1.332 lab runs.
    let dir = kit::copy_of(&kit::fixtures("claude-code", "2.1.332").join("simple"));
    let other = kit::fixtures("claude-code", "2.1.332").join("parallel").join(PROJECT);
    for entry in std::fs::read_dir(&other).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(PROJECT).join(entry.file_name())).unwrap();
    }
    let found = kit::discover::<ClaudeCode>(dir.path());
    assert_eq!(found.sessions.len(), 2);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
}

// ---------------------------------------------------------------- continued-in

const EARLIER: &str = "5b0c6a2e-1f4d-4c8e-9a31-2d7e8f6c0a01";
const LATER: &str = "5b0c6a2e-1f4d-4c8e-9a31-2d7e8f6c0b02";
const APP: &str = ".claude/projects/-home-user-app";

fn continued_in_home() -> PathBuf {
    kit::fixtures_root().join("claude-code/continued-in/home")
}

#[test]
fn a_continued_in_record_links_the_session_to_its_successor() {
    let home = continued_in_home();
    let found = kit::discover::<ClaudeCode>(&home);
    assert_eq!(found.sessions.len(), 2);
    let earlier = format!("{APP}/{EARLIER}.jsonl");
    assert_eq!(links(&found.diagnostics), vec![("continued-in".to_string(), LATER.to_string(), earlier.clone())]);
    assert_eq!(found.diagnostics.len(), 1);

    let read = kit::conformance::<ClaudeCode>(&home, &earlier, Spans::Lines);
    assert!(read.diagnostics.is_empty(), "{:?}", read.diagnostics);
    assert_eq!(kit::observations_of(&read.records, "continued-in"), vec![LATER]);
    assert_eq!(users(&read.records), vec!["Start the long migration in the background."]);
}

#[test]
fn a_continued_in_record_the_conversation_went_on_after_is_void() {
    let dir = kit::copy_of(&continued_in_home());
    let path = dir.path().join(format!("{APP}/{EARLIER}.jsonl"));
    let mut lines = raw_lines(&path);
    let mut prompt = lines[0].clone();
    prompt["uuid"] = json!("a1000000-0000-4000-8000-000000000003");
    prompt["parentUuid"] = json!("a1000000-0000-4000-8000-000000000002");
    let mut answer = lines[1].clone();
    answer["uuid"] = json!("a1000000-0000-4000-8000-000000000004");
    answer["parentUuid"] = json!("a1000000-0000-4000-8000-000000000003");
    answer["message"]["id"] = json!("msg_hand_a2");
    lines.extend([prompt, answer]);
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let found = kit::discover::<ClaudeCode>(dir.path());
    assert!(links(&found.diagnostics).is_empty(), "{:?}", found.diagnostics);
}

#[test]
fn a_continued_in_record_is_found_in_the_tail_of_a_large_file() {
    let dir = kit::copy_of(&continued_in_home());
    let path = dir.path().join(format!("{APP}/{EARLIER}.jsonl"));
    let mut lines = raw_lines(&path);
    let marker = lines.pop().unwrap();
    // Pad with attachments so that the head does not reach the end.
    let mut parent = "a1000000-0000-4000-8000-000000000002".to_string();
    for n in 0..200 {
        let uuid = format!("c0000000-0000-4000-8000-{n:012}");
        let mut pad = lines[0].clone();
        pad["type"] = json!("attachment");
        pad["uuid"] = json!(uuid);
        pad["parentUuid"] = json!(parent);
        pad["attachment"] = json!({"type": "date", "date": "x".repeat(1000)});
        pad.as_object_mut().unwrap().remove("message");
        lines.push(pad);
        parent = uuid;
    }
    lines.push(marker);
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() > 150 * 1024);
    let found = kit::discover::<ClaudeCode>(dir.path());
    let earlier = format!("{APP}/{EARLIER}.jsonl");
    assert_eq!(links(&found.diagnostics), vec![("continued-in".to_string(), LATER.to_string(), earlier)]);
}
