//! `trajhost-bench --browse N`: the terminal UI's list over N sessions: the
//! rows built from the archive's index, then filtered by a harness, by
//! words, and by a search's hits. The goal: each under 100 ms at 25,000.

use std::path::PathBuf;
use std::time::Instant;

use trajhost::archive::ArchivedSession;
use trajhost::browse::{self, Filter, Row as ListRow};

use crate::Row;

/// The goal for listing and each filter, in milliseconds.
pub const GOAL_MS: f64 = 100.0;

pub fn run(sessions: usize) -> Vec<Row> {
    let harnesses = ["claude-code", "codex", "gemini-cli", "opencode", "pi", "copilot-cli"];
    let archived: Vec<ArchivedSession> = (0..sessions)
        .map(|i| ArchivedSession {
            id: i as i64,
            harness: harnesses[i % harnesses.len()].to_string(),
            native_id: format!("{i:08x}-0000-4000-8000-{i:012x}"),
            machine: None,
            home: PathBuf::from("/home/user"),
            locator: format!("sessions/{i}.jsonl"),
            codec: "x@0.1.0".into(),
            native_version: None,
            cwd: Some(format!("/home/user/work/project-{}", i % 300)),
            title: Some(format!("Fix the parser of module {} and write its tests", i % 997)),
            started_at: None,
            updated_at: Some(format!("2026-{:02}-{:02}T10:00:00Z", 1 + i % 12, 1 + i % 28)),
            records: 40,
            snapshot_id: String::new(),
            archived_at: String::new(),
        })
        .collect();
    let timed = |f: &mut dyn FnMut() -> usize| {
        let started = Instant::now();
        let n = f();
        (started.elapsed().as_secs_f64() * 1000.0, n)
    };
    let mut rows = Vec::new();
    let (list_ms, _) = timed(&mut || ListRow::from_archive(&archived).len());
    let list = ListRow::from_archive(&archived);
    rows.push(row(format!("browse: list {sessions} sessions (archive index → sorted rows)"), list_ms, sessions));
    let filters = [
        ("harness codex", Filter { harness: Some("codex".into()), ..Filter::default() }),
        ("words \"parser 42 project-7\"", Filter { words: "parser 42 project-7".into(), ..Filter::default() }),
        (
            "500 search hits",
            Filter {
                only: Some(
                    list.iter()
                        .step_by((sessions / 500).max(1))
                        .map(|r| (r.harness.clone(), r.native_id.clone()))
                        .collect(),
                ),
                ..Filter::default()
            },
        ),
    ];
    for (name, filter) in filters {
        let (ms, kept) = timed(&mut || browse::filter(&list, &filter).len());
        rows.push(row(format!("browse: filter {sessions} sessions by {name} ({kept} kept)"), ms, sessions));
    }
    rows
}

fn row(measure: String, ms: f64, _sessions: usize) -> Row {
    Row {
        measure,
        trajhost: format!("{ms:.1} ms"),
        reference: String::new(),
        ratio: None,
        target: format!("< {GOAL_MS:.0} ms"),
        holds: Some(ms < GOAL_MS),
    }
}
