//! The Hermes codec against sessions written by the real hermes-agent 0.19.0
//! (fixtures/hermes/0.19.0), run natively through `Dir::native`. Every test
//! works on a copy of the fixture home, so the ones that add rows or a live
//! WAL never touch the fixture.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::json;
use trajhost_codec_hermes::{Handling, Hermes, KNOWN_ROLES};
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, Severity};
use trajhost_codec_testkit::suite::Lab;
use trajhost_codec_testkit::{self as kit, Spans, assistants, kinds, tool_calls, tool_results, users};

#[path = "codec/write.rs"]
mod write;

const DB: &str = ".hermes/state.db";

/// The lab's sessions, as the conformance table names them.
fn lab() -> Lab<Hermes> {
    Lab::new(include_str!("conformance.json"))
}

fn locator(id: &str) -> String {
    format!("{DB}#{id}")
}

/// Opens a private copy of a database with rusqlite for test setup.
fn sqlite(path: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).unwrap()
}

/// Rows of one query over a copy of the scenario's database (never the
/// fixture itself).
fn raw_rows(scenario: &str, sql: &str) -> Vec<Vec<rusqlite::types::Value>> {
    let home = lab().copy(scenario);
    let conn = sqlite(&home.path().join(DB));
    let mut stmt = conn.prepare(sql).unwrap();
    let n = stmt.column_count();
    stmt.query_map([], |row| (0..n).map(|i| row.get::<_, rusqlite::types::Value>(i)).collect())
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn text(v: &rusqlite::types::Value) -> String {
    match v {
        rusqlite::types::Value::Text(s) => s.clone(),
        other => panic!("not text: {other:?}"),
    }
}

// ---------------------------------------------------------------- info

// ---------------------------------------------------------------- discover

#[test]
fn discover_finds_each_fixture_session() {
    for (scenario, id) in lab().ids() {
        let home = lab().copy(scenario);
        let db_size = std::fs::metadata(home.path().join(DB)).unwrap().len();
        let found = Hermes::discover(&Dir::native(home.path())).unwrap();
        assert!(found.diagnostics.is_empty(), "{scenario}: {:?}", found.diagnostics);
        assert_eq!(found.sessions.len(), 1, "{scenario}");
        let s = &found.sessions[0];
        assert_eq!(s.native_id, id);
        assert_eq!(s.locator, locator(id));
        assert_eq!(s.cwd.as_deref(), Some("/home/user/project"));
        assert_eq!(s.native_version.as_deref(), Some("22"), "schema_version of hermes-agent 0.19.0");
        assert_eq!(s.size, db_size);

        let row = &raw_rows(
            scenario,
            "SELECT started_at, max((SELECT max(timestamp) FROM messages), coalesce(ended_at, 0)) FROM sessions",
        )[0];
        let secs = |v: &rusqlite::types::Value| match v {
            rusqlite::types::Value::Real(f) => *f,
            other => panic!("{other:?}"),
        };
        let started = trajhost_codec_hermes::rfc3339_utc((secs(&row[0]) * 1000.0).round() as i64);
        let updated = trajhost_codec_hermes::rfc3339_utc((secs(&row[1]) * 1000.0).round() as i64);
        assert_eq!(s.started_at.as_deref(), Some(started.as_str()), "{scenario}");
        assert_eq!(s.updated_at.as_deref(), Some(updated.as_str()), "{scenario}");
        assert!(s.started_at.as_deref().unwrap().starts_with("2026-11-30T04:"), "{scenario}");
        assert!(s.updated_at > s.started_at);

        // No title in these sessions: the first prompt is the title.
        let prompt =
            text(&raw_rows(scenario, "SELECT content FROM messages WHERE role = 'user' ORDER BY id LIMIT 1")[0][0]);
        let title = s.title.as_deref().unwrap();
        assert!(title.chars().count() <= 80, "{title}");
        assert!(prompt.starts_with(title.trim_end_matches('…')), "{scenario}: {title:?} vs {prompt:?}");

        // `inspect` says the same, with and without the session id.
        for loc in [s.locator.clone(), DB.to_string()] {
            let one = Hermes::inspect(&Dir::native(home.path()), &loc).unwrap();
            assert_eq!(one.native_id, s.native_id);
            assert_eq!(one.locator, s.locator);
            assert_eq!(
                (&one.started_at, &one.updated_at, one.size, &one.title),
                (&s.started_at, &s.updated_at, s.size, &s.title)
            );
        }
    }
}

// ---------------------------------------------------------------- read

#[test]
fn read_starts_with_meta_and_the_system_prompt() {
    for (scenario, id) in lab().ids() {
        let read = lab().read_copy(scenario);
        let Body::Meta(meta) = &read.records[0].body else { panic!("{scenario}: first record is not meta") };
        assert_eq!(meta.harness, "hermes");
        assert_eq!(meta.native_id, id);
        assert_eq!(meta.native_version.as_deref(), Some("22"));
        assert_eq!(meta.cwd.as_deref(), Some("/home/user/project"));
        assert_eq!(meta.codec.as_deref(), Some(concat!("hermes@", env!("CARGO_PKG_VERSION"))));
        assert!(meta.started_at.is_some());
        assert_eq!(read.records[0].id, id);
        let Body::System { text } = &read.records[1].body else { panic!("{scenario}: no system prompt") };
        assert!(text.starts_with("You are Hermes Agent"), "{scenario}");
        assert!(read.diagnostics.is_empty(), "{scenario}: {:?}", read.diagnostics);
    }
}

#[test]
fn simple_session_has_prompt_call_result_and_answer() {
    let read = lab().read_copy("simple");
    assert_eq!(
        kinds(&read.records),
        ["meta", "system", "user", "assistant", "tool_call", "tool_result", "assistant", "user", "assistant"]
    );
    assert_eq!(
        users(&read.records),
        ["Read hello.txt and tell me the secret word.", "What was the secret word again? [notool]"]
    );
    let calls = tool_calls(&read.records);
    assert_eq!(calls.len(), 1);
    let (call_id, name, arguments) = calls[0];
    assert_eq!(call_id, "call_lab_4c97568dff5d438d");
    assert_eq!(name, "terminal");
    assert_eq!(arguments, &json!({"command": "cat hello.txt"}));
    let results = tool_results(&read.records);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].0, call_id, "the result links to its call");
    assert!(results[0].1.contains("PAPAYA-42"));
    assert_eq!(results[0].2, None, "Hermes stores no success flag");
    let result = read.records.iter().find(|r| r.body.kind() == "tool_result").unwrap();
    assert_eq!(result.parent.as_deref(), Some(call_id));

    let answers = assistants(&read.records);
    assert_eq!(answers.len(), 3);
    assert_eq!(answers[0].text, "", "the tool-calling turn has no text");
    assert_eq!(answers[0].stop_reason.as_deref(), Some("tool_calls"));
    assert!(answers[1].text.starts_with("FINAL ANSWER: the tool returned:"));
    assert!(answers[1].text.contains("PAPAYA-42"));
    assert!(answers[2].text.starts_with("NOTOOL ANSWER:"));
    for a in &answers {
        assert_eq!(a.model.as_deref(), Some("fake-model"));
        assert_eq!(a.usage, None, "Hermes records only session totals");
    }
    // The call hangs off the assistant record of its row.
    let call = read.records.iter().find(|r| r.body.kind() == "tool_call").unwrap();
    let owner = read.records.iter().position(|r| Some(&r.id) == call.parent.as_ref()).unwrap();
    assert_eq!(read.records[owner].body.kind(), "assistant");
    // Timestamps are RFC 3339 and ascend.
    let ts: Vec<&str> = read.records[2..].iter().map(|r| r.ts.as_deref().unwrap()).collect();
    assert!(ts.windows(2).all(|w| w[0] <= w[1]), "{ts:?}");
}

#[test]
fn long_output_is_read_in_full() {
    let read = lab().read_copy("long-output");
    let stored = text(&raw_rows("long-output", "SELECT content FROM messages WHERE role = 'tool'")[0][0]);
    let results = tool_results(&read.records);
    assert_eq!(results[0].1, stored);
    assert!(stored.len() > 50_000);
    assert!(results[0].1.contains("LONG-OUTPUT-BEGIN LEMON-512"));
}

#[test]
fn ids_are_stable_unique_and_native() {
    for (scenario, id) in lab().ids() {
        let a = lab().read_copy(scenario);
        let b = lab().read_copy(scenario);
        assert_eq!(a.records, b.records, "{scenario}");
        let ids: Vec<&str> = a.records.iter().map(|r| r.id.as_str()).collect();
        let unique: BTreeSet<&str> = ids.iter().copied().collect();
        assert_eq!(unique.len(), ids.len(), "{scenario}: {ids:?}");
        let message_ids: BTreeSet<i64> = raw_rows(scenario, "SELECT id FROM messages")
            .iter()
            .map(|r| match r[0] {
                rusqlite::types::Value::Integer(i) => i,
                _ => unreachable!(),
            })
            .collect();
        for r in &a.records {
            let src = r.src.as_ref().unwrap();
            assert_eq!(src.file, DB);
            assert_eq!(src.len, 0);
            match &r.body {
                Body::Meta(_) | Body::System { .. } => {}
                Body::ToolCall { call_id, .. } => assert_eq!(&r.id, call_id),
                _ => {
                    // `<session>:<messages.id>`, and src.offset is that row id.
                    let rowid: i64 =
                        r.id.strip_prefix(&format!("{id}:")).unwrap().split('#').next().unwrap().parse().unwrap();
                    assert!(message_ids.contains(&rowid));
                    assert_eq!(src.offset, rowid as u64);
                }
            }
        }
    }
}

#[test]
fn a_locator_without_the_session_id_reads_the_only_session() {
    for (scenario, id) in lab().ids() {
        let home = lab().copy(scenario);
        assert_eq!(
            kit::read::<Hermes>(home.path(), DB).records,
            kit::read::<Hermes>(home.path(), &locator(id)).records,
            "{scenario}"
        );
    }
}

#[test]
fn fixture_roles_are_all_known() {
    let known: BTreeSet<&str> = KNOWN_ROLES.iter().map(|(k, _)| *k).collect();
    let mut seen = BTreeSet::new();
    for (scenario, _) in lab().ids() {
        for row in raw_rows(scenario, "SELECT DISTINCT role FROM messages") {
            let role = text(&row[0]);
            assert!(known.contains(role.as_str()), "{scenario}: role {role:?} is not in KNOWN_ROLES");
            seen.insert(role);
        }
        let read = lab().read_copy(scenario);
        assert!(read.diag("unknown-record-type").is_none(), "{scenario}");
        assert!(read.diag("unknown-content-part").is_none(), "{scenario}");
    }
    for role in ["user", "assistant", "tool"] {
        assert!(seen.contains(role), "{role}");
    }
    assert!(KNOWN_ROLES.iter().all(|(_, h)| matches!(h, Handling::Mapped(_))));
}

// ---------------------------------------------------------------- store left intact

#[test]
fn reading_leaves_the_database_byte_identical() {
    let home = lab().copy("simple");
    let db = home.path().join(DB);
    let wal = home.path().join(format!("{DB}-wal"));
    assert!(db.is_file());
    // The fixture's WAL (the CLI may leave an empty one beside the database)
    // is checkpointed: absent or empty. A live WAL is the next test's case.
    assert!(std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0) == 0, "the fixture's WAL is checkpointed");
    // Every file of the home, `-wal` and `-shm` included, byte-identical;
    // none added.
    kit::check_store_untouched::<Hermes>(home.path(), &locator(lab().id("simple")));
}

#[test]
fn reading_with_a_live_wal_sees_it_and_changes_nothing() {
    let home = lab().copy("simple");
    // A writer that keeps its connection (and so its WAL) open, as a running
    // Hermes does, with one committed message not yet checkpointed.
    let read = kit::read_with_live_wal(
        home.path(),
        DB,
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES (?1, 'user', 'one more — ✓', 1796012400.0)",
        [lab().id("simple")],
        || kit::read::<Hermes>(home.path(), &locator(lab().id("simple"))),
    );
    assert_eq!(users(&read.records).last(), Some(&"one more — ✓"));
}

// ---------------------------------------------------------------- synthetic stores

/// The simple fixture's database with extra rows.
fn synthetic(extra: &[&str]) -> tempfile::TempDir {
    let home = lab().copy("simple");
    let conn = sqlite(&home.path().join(DB));
    for sql in extra {
        conn.execute_batch(sql).unwrap();
    }
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
    drop(conn);
    home
}

#[test]
fn unknown_roles_and_parts_are_reported_not_dropped_silently() {
    let sid = lab().id("simple");
    let home = synthetic(&[
        &format!(
            "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('{sid}', 'brand-new-role', 'x', 1796012500.0)"
        ),
        &format!(
            "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('{sid}', 'brand-new-role', 'y', 1796012501.0)"
        ),
        &format!(
            "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('{sid}', 'user', \
             char(0) || 'json:[{{\"type\":\"text\",\"text\":\"look\"}},{{\"type\":\"image_url\",\"image_url\":{{\"url\":\"data:image/png;base64,AAAA\"}}}},{{\"type\":\"hologram\"}}]', 1796012502.0)"
        ),
        &format!(
            "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('{sid}', 'system', 'be brief', 1796012503.0)"
        ),
    ]);
    let read = kit::read::<Hermes>(home.path(), &locator(sid));
    let unknown: Vec<(&str, u32, Severity)> = read
        .diagnostics
        .iter()
        .filter(|d| d.code == "unknown-record-type")
        .map(|d| (d.detail.as_str(), d.count, d.severity))
        .collect();
    assert_eq!(unknown, [("brand-new-role", 2, Severity::Warning)]);
    let part = read.diag("unknown-content-part").unwrap();
    assert_eq!((part.detail.as_str(), part.count), ("user/hologram", 1));
    let last_user = read.records.iter().rev().find(|r| r.body.kind() == "user").unwrap();
    let Body::User { text, attachments } = &last_user.body else { unreachable!() };
    assert_eq!(text, "look");
    assert_eq!(attachments.len(), 1);
    assert_eq!(attachments[0].media_type.as_deref(), Some("image/png"));
    assert_eq!(read.records.last().unwrap().body, Body::System { text: "be brief".into() });
    // The diagnostics carry no content.
    assert!(read.diagnostics.iter().all(|d| !d.detail.contains('x') || d.detail.contains("brand")));
}

#[test]
fn rewound_rows_are_counted_and_compaction_copies_emitted_once() {
    let sid = lab().id("simple");
    // Undo the last exchange (rows 5 and 6), then compact: archive rows
    // 1..4, insert a summary and re-insert row 4 (the protected tail).
    let home = synthetic(&[
        "UPDATE messages SET active = 0 WHERE id IN (5, 6)",
        "UPDATE messages SET active = 0, compacted = 1 WHERE id <= 4",
        &format!(
            "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('{sid}', 'user', '[summary] the word is PAPAYA-42', 1796012360.0)"
        ),
        "INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, finish_reason) \
         SELECT session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, finish_reason FROM messages WHERE id = 4",
    ]);
    let read = kit::read::<Hermes>(home.path(), &locator(sid));
    let rewound = read.diag("rewound-message").unwrap();
    assert_eq!((rewound.count, rewound.severity), (2, Severity::Info));
    let dup = read.diag("duplicate-message").unwrap();
    assert_eq!(dup.count, 1);
    assert_eq!(
        users(&read.records),
        ["Read hello.txt and tell me the secret word.", "[summary] the word is PAPAYA-42"]
    );
    let finals: Vec<&str> =
        assistants(&read.records).iter().map(|a| a.text.as_str()).filter(|t| t.starts_with("FINAL")).collect();
    assert_eq!(finals.len(), 1, "the re-inserted tail is emitted once");
}

#[test]
fn a_compressed_summary_row_is_a_compaction() {
    let sid = lab().id("simple");
    let home = synthetic(&[
        "ALTER TABLE messages ADD COLUMN _compressed_summary INTEGER NOT NULL DEFAULT 0",
        &format!(
            "INSERT INTO messages (session_id, role, content, timestamp, _compressed_summary) VALUES ('{sid}', 'user', 'Summary: PAPAYA-42', 1796012370.0, 1)"
        ),
    ]);
    let read = kit::read::<Hermes>(home.path(), &locator(sid));
    assert_eq!(
        read.records.last().unwrap().body,
        Body::Compaction { summary: "Summary: PAPAYA-42".into(), trigger: None }
    );
}

#[test]
fn models_follow_session_model_usage() {
    let sid = lab().id("simple");
    // A second model from the time of the last answer on.
    let home = synthetic(&[&format!(
        "INSERT INTO session_model_usage (session_id, model, first_seen, last_seen) VALUES ('{sid}', 'other-model', 1796012357.0, 1796012358.0)"
    )]);
    let read = kit::read::<Hermes>(home.path(), &locator(sid));
    let models: Vec<Option<&str>> = assistants(&read.records).iter().map(|a| a.model.as_deref()).collect();
    assert_eq!(models, [Some("fake-model"), Some("fake-model"), Some("other-model")]);
}

#[test]
fn several_sessions_are_listed_and_need_an_id_in_the_locator() {
    let home = synthetic(&[
        "INSERT INTO sessions (id, source, started_at, cwd, title) VALUES ('20261201_000000_abcdef', 'cli', 1796083200.0, '/w', 'Named')",
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('20261201_000000_abcdef', 'user', 'hi', 1796083201.0)",
        "INSERT INTO sessions (id, source, started_at) VALUES ('20261201_000001_000000', 'cli', 1796083300.0)",
    ]);
    let found = Hermes::discover(&Dir::native(home.path())).unwrap();
    let ids: Vec<&str> = found.sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert_eq!(ids, [lab().id("simple"), "20261201_000000_abcdef"]);
    assert_eq!(found.sessions[1].title.as_deref(), Some("Named"));
    assert_eq!(found.sessions[1].cwd.as_deref(), Some("/w"));
    let empty = found.diagnostics.iter().find(|d| d.code == "empty-session").unwrap();
    assert_eq!(empty.count, 1);
    assert!(matches!(Hermes::inspect(&Dir::native(home.path()), DB), Err(trajhost_codec_sdk::CodecError::NotFound(_))));
    let read = kit::read::<Hermes>(home.path(), &locator("20261201_000000_abcdef"));
    assert_eq!(kinds(&read.records), ["meta", "user"]);
}

#[test]
fn a_database_that_cannot_be_read_is_named_and_the_others_are_still_listed() {
    let home = lab().copy("simple");
    let profile = home.path().join(".hermes/profiles/broken");
    std::fs::create_dir_all(&profile).unwrap();
    std::fs::write(profile.join("state.db"), "not a database at all, just text").unwrap();
    std::fs::create_dir_all(home.path().join(".hermes/profiles/never-ran")).unwrap();
    let found = kit::discover::<Hermes>(home.path());
    assert_eq!(found.sessions.len(), 1, "{:?}", found.diagnostics);
    let d = kit::file_diag(&found.diagnostics, "unreadable-database", ".hermes/profiles/broken/state.db")
        .unwrap_or_else(|| panic!("{:?}", found.diagnostics));
    assert_eq!(d.detail, "sqlite");
    assert_eq!(found.diagnostics.len(), 1, "a profile without a database is no problem: {:?}", found.diagnostics);
}

#[test]
fn profiles_are_discovered() {
    let home = lab().copy("simple");
    let profile = home.path().join(".hermes/profiles/work");
    std::fs::create_dir_all(&profile).unwrap();
    std::fs::copy(home.path().join(DB), profile.join("state.db")).unwrap();
    let found = Hermes::discover(&Dir::native(home.path())).unwrap();
    let locators: Vec<&str> = found.sessions.iter().map(|s| s.locator.as_str()).collect();
    let sid = lab().id("simple");
    assert_eq!(locators, [locator(sid), format!(".hermes/profiles/work/state.db#{sid}")]);
    let read = kit::read::<Hermes>(home.path(), locators[1]);
    assert!(read.records.iter().all(|r| r.src.as_ref().unwrap().file == ".hermes/profiles/work/state.db"));
}

// ---------------------------------------------------------------- profiles

/// `fixtures/hermes/profiles`: the default profile's state.db beside a named
/// profile's, and a profile that never ran (see its PROVENANCE.md). By this
/// crate's own path: a shared target dir may have compiled the testkit
/// elsewhere.
#[test]
fn profiles_are_discovered_beside_the_default_database() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hermes/profiles/home");
    let home = kit::copy_of(&fixture);
    let found = Hermes::discover(&Dir::native(home.path())).unwrap();
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    let got: Vec<(&str, &str, Option<&str>)> =
        found.sessions.iter().map(|s| (s.native_id.as_str(), s.locator.as_str(), s.cwd.as_deref())).collect();
    assert_eq!(
        got,
        [
            ("20260504_100000_aaaa01", ".hermes/state.db#20260504_100000_aaaa01", Some("/home/u/default-proj")),
            (
                "20260504_110000_bbbb02",
                ".hermes/profiles/work/state.db#20260504_110000_bbbb02",
                Some("/home/u/work-proj")
            ),
        ],
        "locators are relative to HOME, the profile's database named"
    );
    assert!(found.sessions.iter().all(|s| s.native_version.as_deref() == Some("22")));
    let read = kit::read::<Hermes>(home.path(), &found.sessions[1].locator);
    assert_eq!(users(&read.records), ["work profile prompt ELM-2"]);
    assert_eq!(read.records[1].src.as_ref().unwrap().file, ".hermes/profiles/work/state.db");
    for s in &found.sessions {
        let one = Hermes::inspect(&Dir::native(home.path()), &s.locator).unwrap();
        assert_eq!(one.native_id, s.native_id);
        kit::conformance::<Hermes>(home.path(), &s.locator, Spans::Rows);
    }
}

/// An early state.db (schema_version 4): the first columns only.
#[test]
fn an_early_schema_is_read_by_its_columns() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".hermes")).unwrap();
    let conn = rusqlite::Connection::open(home.path().join(DB)).unwrap();
    conn.execute_batch(
        "CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (4);
         CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT, system_prompt TEXT,
           parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL);
         CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL,
           content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL);
         INSERT INTO sessions VALUES ('20250901_080000_abc', 'cli', 'old-model', 'be brief', NULL, 1756713600.0, NULL);
         INSERT INTO messages (session_id, role, content, timestamp) VALUES
           ('20250901_080000_abc', 'user', 'early prompt YEW-3', 1756713601.0),
           ('20250901_080000_abc', 'assistant', 'early answer', 1756713602.0);",
    )
    .unwrap();
    drop(conn);
    let found = Hermes::discover(&Dir::native(home.path())).unwrap();
    assert_eq!(found.sessions.len(), 1, "{:?}", found.diagnostics);
    assert_eq!(found.sessions[0].native_version.as_deref(), Some("4"));
    let read = kit::read::<Hermes>(home.path(), &found.sessions[0].locator);
    assert_eq!(kinds(&read.records), ["meta", "system", "user", "assistant"]);
    assert_eq!(users(&read.records), ["early prompt YEW-3"]);
    assert_eq!(assistants(&read.records)[0].model.as_deref(), Some("old-model"));
}
