//! The archive through the CLI, on homes made of real lab sessions: sync
//! (incremental, appends, rewrites, the failing-file schedule), search with
//! filters, reading and converting a session whose source is gone, schema
//! migration, watch, and sources left untouched.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::*;

const CLAUDE: &str = "61ec73f4-b0bb-4d28-a8cc-bfda17c07ec0";
const CLAUDE_FILE: &str = ".claude/projects/-home-user-project/61ec73f4-b0bb-4d28-a8cc-bfda17c07ec0.jsonl";
const CODEX: &str = "01a22aa5-cfcc-7311-a9b5-d6de00c468b2";
const HERMES: &str = "20261130_041901_233928";

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A home holding the lab's `simple` sessions of Claude Code and Codex
/// (JSONL) and Hermes (SQLite).
fn lab_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    for (harness, version) in [("claude-code", "2.1.197"), ("codex", "0.171.0"), ("hermes", "0.19.0")] {
        copy_tree(&fixture_home(harness, version, "simple"), home.path());
    }
    home
}

fn sync(data: &Path, home: &Path) -> Value {
    let out = trajhost(data, &["sync", "--home", home.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)))
}

fn archived(data: &Path) -> Vec<Value> {
    let out = trajhost(data, &["sessions", "--archived", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str::<Vec<Value>>(&stdout(&out)).unwrap()
}

/// `read ID --json` record lines (without the summary line).
fn read_records(data: &Path, id: &str, home: &Path) -> Vec<String> {
    let out = trajhost(data, &["read", id, "--home", home.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "read {id}: {}", stderr(&out));
    stdout(&out).lines().filter(|l| !l.starts_with(r#"{"codec""#)).map(String::from).collect()
}

#[test]
fn sync_keeps_every_lab_session_and_a_second_sync_stats_only() {
    let home = lab_home();
    let data = tempfile::tempdir().unwrap();
    let before = tree_hashes(home.path());
    let first = sync(data.path(), home.path());
    assert_eq!(first["sessions_added"], 3, "{first}");
    assert_eq!(first["sessions_failed"], 0, "{first}");
    assert!(first["bytes_parsed"].as_u64().unwrap() > 10_000, "{first}");
    assert!(first["records_added"].as_u64().unwrap() >= 30, "{first}");
    let sessions = archived(data.path());
    let mut ids: Vec<&str> = sessions.iter().map(|s| s["native_id"].as_str().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, [CODEX, HERMES, CLAUDE]);
    assert!(sessions.iter().all(|s| s["source_exists"] == true && s["records"].as_u64().unwrap() > 5));

    // Nothing changed: one stat per file, no codec read, no byte parsed.
    let second = sync(data.path(), home.path());
    assert_eq!(second["bytes_parsed"], 0, "{second}");
    assert_eq!(second["files_read"], 0, "{second}");
    assert_eq!(second["harnesses_changed"], serde_json::json!([]), "{second}");
    assert_eq!(second["sessions_added"], 0, "{second}");
    // The three session files, Hermes's state.db and its -wal.
    assert_eq!(second["files_stated"], first["files_stated"], "{second}");
    assert_eq!(tree_hashes(home.path()), before, "sync changed a source file");
}

#[test]
fn an_append_keeps_only_the_new_bytes_and_a_rewrite_starts_a_new_generation() {
    let home = lab_home();
    let data = tempfile::tempdir().unwrap();
    sync(data.path(), home.path());
    let file = home.path().join(CLAUDE_FILE);
    let text = std::fs::read_to_string(&file).unwrap();
    // One more real record: the last user line again, as a new message.
    let user_line = text.lines().rfind(|l| l.contains(r#""type":"user""#)).unwrap();
    let mut record: Value = serde_json::from_str(user_line).unwrap();
    let last_uuid = text.lines().last().and_then(|l| serde_json::from_str::<Value>(l).ok()).unwrap()["uuid"].clone();
    record["uuid"] = "0b0b0b0b-0000-4000-8000-000000000001".into();
    record["parentUuid"] = last_uuid;
    record["message"]["content"] = "Please also mention PERSIMMON-77.".into();
    let appended = format!("{}\n", serde_json::to_string(&record).unwrap());
    std::fs::write(&file, format!("{text}{appended}")).unwrap();

    let after_append = sync(data.path(), home.path());
    assert_eq!(after_append["sessions_updated"], 1, "{after_append}");
    assert_eq!(after_append["harnesses_changed"], serde_json::json!(["claude-code"]), "{after_append}");
    assert_eq!(
        after_append["evidence_bytes"],
        appended.len() as u64,
        "only the appended bytes are kept: {after_append}"
    );
    assert_eq!(after_append["records_added"], 1, "{after_append}");
    assert_eq!(after_append["records_changed"], 0, "{after_append}");

    let live = read_records(data.path(), CLAUDE, home.path());
    // A rewrite (same size, other bytes before the cursor) is kept whole, as a new generation.
    let rewritten = std::fs::read_to_string(&file).unwrap().replace("PAPAYA-42", "PAPAYA-43");
    std::fs::write(&file, &rewritten).unwrap();
    let after_rewrite = sync(data.path(), home.path());
    assert_eq!(after_rewrite["sessions_updated"], 1, "{after_rewrite}");
    assert_eq!(after_rewrite["evidence_bytes"], rewritten.len() as u64, "{after_rewrite}");
    assert!(after_rewrite["records_changed"].as_u64().unwrap() >= 1, "{after_rewrite}");
    let live_rewritten = read_records(data.path(), CLAUDE, home.path());
    assert_ne!(live, live_rewritten);

    // With the source gone, the kept generations give back the rewritten session.
    std::fs::remove_file(&file).unwrap();
    let restored = read_records(data.path(), CLAUDE, home.path());
    assert_eq!(restored, live_rewritten);
    let search = trajhost(data.path(), &["search", "PAPAYA-43", "--json"]);
    assert!(stdout(&search).contains(CLAUDE), "{}", stdout(&search));
    let stale = trajhost(data.path(), &["search", "PAPAYA-42", "--harness", "claude-code", "--json"]);
    assert_eq!(stale.status.code(), Some(3), "the rewritten records left the index: {}", stdout(&stale));
}

#[test]
fn failing_files_do_not_starve_a_valid_session_and_recover_when_fixed() {
    let home = tempfile::tempdir().unwrap();
    copy_tree(&fixture_home("claude-code", "2.1.197", "simple"), home.path());
    let project = home.path().join(".claude/projects/-home-user-project");
    let valid = project.join(format!("{CLAUDE}.jsonl"));
    let old = std::time::SystemTime::now() - Duration::from_secs(86_400);
    std::fs::File::options().write(true).open(&valid).unwrap().set_modified(old).unwrap();
    // 25 newer files that are not Claude Code transcripts.
    let bad: Vec<PathBuf> = (0..25).map(|i| project.join(format!("00000000-0000-4000-8000-{i:012}.jsonl"))).collect();
    for path in &bad {
        std::fs::write(path, "this is not a transcript\n").unwrap();
    }
    let data = tempfile::tempdir().unwrap();
    let first = sync(data.path(), home.path());
    assert_eq!(first["sessions_added"], 1, "the valid session is archived in the first pass: {first}");
    assert_eq!(first["files_failed"], 25, "{first}");
    assert_eq!(archived(data.path())[0]["native_id"], CLAUDE);

    // Nothing changed: no failed file is looked at again.
    let idle = sync(data.path(), home.path());
    assert_eq!(idle["bytes_parsed"], 0, "{idle}");
    assert_eq!(idle["files_failed"], 0, "{idle}");

    // One bad file is fixed (a real session under its name): it is archived; the others are not retried.
    let fixed_id = "00000000-0000-4000-8000-000000000007";
    let session = std::fs::read_to_string(&valid).unwrap().replace(CLAUDE, fixed_id);
    std::fs::write(&bad[7], session).unwrap();
    let next = sync(data.path(), home.path());
    assert_eq!(next["sessions_added"], 1, "{next}");
    assert_eq!(next["files_failed"], 0, "{next}");
    assert_eq!(next["failures_skipped"], 24, "{next}");
    assert!(archived(data.path()).iter().any(|s| s["native_id"] == fixed_id));
}

#[test]
fn search_ranks_hits_and_filters_by_harness_kind_cwd_and_date() {
    let home = lab_home();
    let data = tempfile::tempdir().unwrap();
    sync(data.path(), home.path());
    let search = |args: &[&str]| -> Vec<Value> {
        let mut all = vec!["search"];
        all.extend_from_slice(args);
        all.push("--json");
        let out = trajhost(data.path(), &all);
        assert!(out.status.code() == Some(0) || out.status.code() == Some(3), "{}", stderr(&out));
        serde_json::from_str(&stdout(&out)).unwrap()
    };
    let hits = search(&["secret word"]);
    let harnesses: std::collections::BTreeSet<&str> = hits.iter().map(|h| h["harness"].as_str().unwrap()).collect();
    assert_eq!(harnesses.into_iter().collect::<Vec<_>>(), ["claude-code", "codex", "hermes"]);
    for hit in &hits {
        let snippet = hit["snippet"].as_str().unwrap();
        assert!(snippet.contains("\u{2}secret\u{3}"), "match marked: {snippet}");
    }
    let ranks: Vec<f64> = hits.iter().map(|h| h["rank"].as_f64().unwrap()).collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "bm25 order: {ranks:?}");

    let codex = search(&["PAPAYA-42", "--harness", "codex"]);
    assert!(!codex.is_empty() && codex.iter().all(|h| h["harness"] == "codex" && h["native_id"] == CODEX));
    let results = search(&["PAPAYA-42", "--kind", "tool_result"]);
    assert!(results.len() >= 3 && results.iter().all(|h| h["kind"] == "tool_result"), "{results:?}");
    assert_eq!(search(&["PAPAYA-42", "--kind", "user"]).len(), 0);
    assert_eq!(search(&["secret", "--limit", "2"]).len(), 2);
    // The lab sessions are from 2026-11-30, in /home/user/project.
    assert!(!search(&["secret", "--since", "2026-11-30"]).is_empty());
    assert!(search(&["secret", "--since", "2026-12-01T00:00:00Z"]).is_empty());
    assert!(!search(&["secret", "--cwd", "/home/user"]).is_empty());
    assert!(search(&["secret", "--cwd", "/home/user/proj"]).is_empty(), "cwd filters by path, not by prefix");
    // The terminal view marks matches; a query of punctuation only is a clear error.
    let plain = trajhost(data.path(), &["search", "hello.txt"]);
    assert!(stdout(&plain).contains("[hello.txt]") || stdout(&plain).contains("[hello]"), "{}", stdout(&plain));
    let empty = trajhost(data.path(), &["search", "--", "-*"]);
    assert_eq!(empty.status.code(), Some(1));
    assert!(stderr(&empty).contains("nothing to search for"), "{}", stderr(&empty));
}

#[test]
fn an_archived_session_reads_and_converts_after_its_source_is_deleted() {
    let home = lab_home();
    let data = tempfile::tempdir().unwrap();
    sync(data.path(), home.path());
    let live: Vec<Vec<String>> =
        [CLAUDE, CODEX, HERMES].iter().map(|id| read_records(data.path(), id, home.path())).collect();
    // The harness deletes its history (Hermes: its whole database).
    std::fs::remove_dir_all(home.path().join(".claude")).unwrap();
    std::fs::remove_dir_all(home.path().join(".codex")).unwrap();
    std::fs::remove_dir_all(home.path().join(".hermes")).unwrap();
    for (id, before) in [CLAUDE, CODEX, HERMES].iter().zip(&live) {
        let after = read_records(data.path(), id, home.path());
        assert_eq!(&after, before, "{id} reads from the kept evidence exactly as it read from its source");
    }
    assert!(archived(data.path()).iter().all(|s| s["source_exists"] == false));
    // And continues elsewhere: the Hermes (SQLite) session to Codex, installed into a fresh home.
    let out = tempfile::tempdir().unwrap();
    let export = out.path().join("export");
    let convert =
        trajhost(data.path(), &["convert", HERMES, "--to", "codex", "--out", export.to_str().unwrap(), "--json"]);
    assert!(convert.status.success(), "{}", stderr(&convert));
    let target = tempfile::tempdir().unwrap();
    let prepare =
        trajhost(data.path(), &["prepare", export.to_str().unwrap(), "--home", target.path().to_str().unwrap()]);
    assert!(prepare.status.success(), "{}", stderr(&prepare));
    let manifest: Value = serde_json::from_slice(&std::fs::read(export.join("export.json")).unwrap()).unwrap();
    let id = manifest["target"]["native_id"].as_str().unwrap();
    let read = trajhost(data.path(), &["read", id, "--home", target.path().to_str().unwrap(), "--json"]);
    assert!(stdout(&read).contains("Read hello.txt and tell me the secret word."), "{}", stdout(&read));
    // The id resolves from the index: no home given, and $HOME holds nothing.
    let empty = tempfile::tempdir().unwrap();
    let by_index = Command::new(env!("CARGO_BIN_EXE_trajhost"))
        .args(["--data-dir", data.path().to_str().unwrap(), "read", "61ec73f4", "--json"])
        .env("HOME", empty.path())
        .env("TRAJHOST_CACHE_DIR", shared_cache())
        .output()
        .unwrap();
    assert!(by_index.status.success(), "{}", stderr(&by_index));
}

#[test]
fn a_schema_1_archive_migrates_keeping_every_record_hash() {
    use sha2::{Digest, Sha256};
    use trajhost::archive::sqlite::{SCHEMA_VERSION, SqliteArchive};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("archive.db");
    let data = tempfile::tempdir().unwrap();
    let lines = read_records(data.path(), CLAUDE, &fixture_home("claude-code", "2.1.197", "simple"));
    {
        let old = SqliteArchive::open_at(&path, 1).unwrap();
        assert_eq!(old.schema_version().unwrap(), 1);
        let conn = old.connection();
        conn.execute("INSERT INTO homes (path) VALUES ('/home/user')", []).unwrap();
        conn.execute(
            "INSERT INTO sessions (home_id, harness, native_id, locator, codec, records, snapshot_id, archived_at)
             VALUES (1, 'claude-code', ?1, 'x.jsonl', 'claude-code@0.1.0', ?2, 'sha256:x', '2026-12-01T00:00:00Z')",
            rusqlite::params![CLAUDE, lines.len() as i64],
        )
        .unwrap();
        for (seq, line) in lines.iter().enumerate() {
            let record: Value = serde_json::from_str(line).unwrap();
            conn.execute(
                "INSERT INTO records (session_id, seq, record_id, kind, json, sha256) VALUES (1, ?1, ?2, ?3, ?4, ?5)",
                rusqlite::params![
                    seq as i64,
                    record["id"].as_str().unwrap(),
                    record["kind"].as_str().unwrap(),
                    line,
                    hex::encode(Sha256::digest(line.as_bytes()))
                ],
            )
            .unwrap();
        }
    }
    let hashes = |archive: &SqliteArchive| -> Vec<(i64, String, String)> {
        let mut stmt = archive.connection().prepare("SELECT seq, json, sha256 FROM records ORDER BY seq").unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect()
    };
    let before = hashes(&SqliteArchive::open_at(&path, 1).unwrap());
    let migrated = SqliteArchive::open(&path).unwrap();
    assert_eq!(migrated.schema_version().unwrap(), SCHEMA_VERSION);
    let after = hashes(&migrated);
    assert_eq!(after, before, "every record and its hash survive the migration");
    for (_, json, sha) in &after {
        assert_eq!(&hex::encode(Sha256::digest(json.as_bytes())), sha);
    }
    // The new index was filled from the kept records.
    use trajhost::archive::ArchiveStore;
    let hits = migrated
        .search(&trajhost::archive::store::SearchQuery { text: "PAPAYA".into(), limit: 10, ..Default::default() })
        .unwrap();
    assert!(hits.len() >= 2, "{hits:?}");
    // An archive of a newer schema is refused, naming it.
    migrated.connection().pragma_update(None, "user_version", SCHEMA_VERSION + 1).unwrap();
    drop(migrated);
    let error = SqliteArchive::open(&path).err().expect("a newer schema is refused").to_string();
    assert!(error.contains("newer than this trajhost") && error.contains("archive.db"), "{error}");
}

#[test]
fn watch_archives_a_new_session_within_seconds_and_leaves_sources_untouched() {
    let home = tempfile::tempdir().unwrap();
    copy_tree(&fixture_home("codex", "0.171.0", "simple"), home.path());
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_trajhost"))
        .args(["--data-dir", data.path().to_str().unwrap(), "watch", "--home", home.path().to_str().unwrap(), "--json"])
        .env("TRAJHOST_CACHE_DIR", shared_cache())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().unwrap()));
    let first: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(first["sessions_added"], 1, "the first sync: {first}");
    let stores: Vec<String> =
        first["watching"]["stores"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect();
    assert!(
        stores.iter().all(|s| s.contains("/.codex/") || s.ends_with("/.codex")),
        "only stores, never the home: {stores:?}"
    );
    // Claude Code's store appears, with a session in it (copied in as a harness would write it).
    let before = tree_hashes(home.path());
    let started = Instant::now();
    copy_tree(&fixture_home("claude-code", "2.1.197", "simple"), home.path());
    let mut seen = false;
    while started.elapsed() < Duration::from_secs(20) {
        let Some(Ok(line)) = lines.next() else { break };
        let report: Value = serde_json::from_str(&line).unwrap();
        if report["sessions_added"].as_u64().unwrap_or(0) > 0
            && archived(data.path()).iter().any(|s| s["native_id"] == CLAUDE)
        {
            seen = true;
            break;
        }
    }
    let took = started.elapsed();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(seen, "the new session was not archived within 20 s");
    eprintln!("watch archived a new session in {:.1} s", took.as_secs_f64());
    let mut expected = before;
    expected.extend(tree_hashes(&fixture_home("claude-code", "2.1.197", "simple")));
    assert_eq!(tree_hashes(home.path()), expected, "watch changed a source file");
}

/// `read ID --json`'s summary line.
fn read_summary(data: &Path, id: &str, home: &Path) -> Value {
    let out = trajhost(data, &["read", id, "--home", home.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "read {id}: {}", stderr(&out));
    let line = stdout(&out).lines().find(|l| l.starts_with(r#"{"codec""#)).map(String::from).unwrap();
    serde_json::from_str(&line).unwrap()
}

/// Syncs after `appended` bytes were appended to a file of `before` bytes, and
/// checks the invariant: no more than the appended bytes and `slack` (one
/// record, and what the codec reads again for `meta`) parsed, and the archive
/// holds what a whole read of the file gives.
fn sync_continues(data: &Path, home: &Path, id: &str, appended: u64, before: u64, slack: u64) {
    let after = sync(data, home);
    assert_eq!(after["sessions_updated"], 1, "{after}");
    let parsed = after["bytes_parsed"].as_u64().unwrap();
    assert!(
        parsed <= appended + slack,
        "{id}: {parsed} bytes parsed for {appended} appended to {before} (allowed beyond them: {slack})"
    );
    assert!(after["records_added"].as_u64().unwrap() >= 1, "{after}");
    assert_eq!(after["evidence_bytes"], appended, "{after}");
    let whole = read_summary(data, id, home);
    let kept = archived(data).into_iter().find(|s| s["native_id"] == id).unwrap();
    assert_eq!(kept["snapshot_id"], whole["snapshot_id"], "{id} after {appended} bytes appended");
    assert_eq!(kept["records"], whole["records"], "{id} after {appended} bytes appended");
}

/// Claude Code, the session the bench's append row grows. Its codec reads
/// the file's head (in 64 KiB steps, until the session's facts) and its last
/// 64 KiB again for `meta`, as a whole read does (a title is appended late),
/// so the bound here is the appended bytes, one record and those two
/// windows, against a file grown to over 1 MiB first.
#[test]
fn a_claude_code_append_is_parsed_from_its_resume_point() {
    const SESSION: &str = "61ec73f4-b0bb-4d28-a8cc-bfda17c07ec0";
    const META_WINDOWS: u64 = 2 * 64 * 1024;
    let home = tempfile::tempdir().unwrap();
    copy_tree(&fixture_home("claude-code", "2.1.197", "simple"), home.path());
    let file = home.path().join(format!(".claude/projects/-home-user-project/{SESSION}.jsonl"));
    let text = std::fs::read_to_string(&file).unwrap();
    let longest = text.lines().map(str::len).max().unwrap() as u64 + 1;
    let line_of = |kind: &str| -> Value {
        serde_json::from_str(text.lines().find(|l| l.contains(&format!(r#""type":"{kind}""#))).unwrap()).unwrap()
    };
    let (user, assistant) = (line_of("user"), line_of("assistant"));
    let mut parent: Value =
        text.lines().rev().find_map(|l| serde_json::from_str::<Value>(l).ok()?.get("uuid").cloned()).unwrap();
    let mut n = 0;
    // A prompt and its answer, copies of real lines under new uuids, chained on.
    let mut turn = || {
        let mut lines = String::new();
        for template in [&user, &assistant] {
            let mut record = template.clone();
            let uuid = format!("0c0c0c0c-0000-4000-8000-{n:012}");
            record["uuid"] = uuid.clone().into();
            record["parentUuid"] = parent.clone();
            if let Some(message) = record.get_mut("message").and_then(|m| m.as_object_mut())
                && message.contains_key("id")
            {
                message.insert("id".into(), format!("msg_appended_{n}").into());
            }
            parent = uuid.into();
            n += 1;
            lines.push_str(&serde_json::to_string(&record).unwrap());
            lines.push('\n');
        }
        lines
    };
    let mut grown = String::new();
    while grown.len() < 1 << 20 {
        grown.push_str(&turn());
    }
    std::fs::OpenOptions::new().append(true).open(&file).unwrap().write_all(grown.as_bytes()).unwrap();
    let data = tempfile::tempdir().unwrap();
    assert_eq!(sync(data.path(), home.path())["sessions_added"], 1);
    for _ in 0..2 {
        let appended = turn();
        let before = std::fs::metadata(&file).unwrap().len();
        std::fs::OpenOptions::new().append(true).open(&file).unwrap().write_all(appended.as_bytes()).unwrap();
        sync_continues(data.path(), home.path(), SESSION, appended.len() as u64, before, longest + META_WINDOWS);
    }
}

#[test]
fn an_append_is_parsed_from_the_codecs_resume_point_and_archives_what_a_whole_read_gives() {
    const DROID: &str = "0a734e8d-dba5-4efd-8e2f-0375c7a0848e";
    let home = tempfile::tempdir().unwrap();
    copy_tree(&fixture_home("factory-droid", "0.225.1", "simple"), home.path());
    let file = home.path().join(format!(".factory/sessions/-home-user-project/{DROID}.jsonl"));
    let data = tempfile::tempdir().unwrap();
    let first = sync(data.path(), home.path());
    assert_eq!(first["sessions_added"], 1, "{first}");

    // Appends of real lines: the first user message again under a new id, then an answer.
    let text = std::fs::read_to_string(&file).unwrap();
    let longest = text.lines().map(str::len).max().unwrap() as u64 + 1;
    let line_of = |role: &str| text.lines().find(|l| l.contains(&format!(r#""role":"{role}""#))).unwrap();
    let mut appended_total = String::new();
    for (n, role) in ["user", "assistant"].into_iter().enumerate() {
        let mut record: Value = serde_json::from_str(line_of(role)).unwrap();
        record["id"] = format!("0b0b0b0b-0000-4000-8000-00000000000{n}").into();
        let appended = format!("{}\n", serde_json::to_string(&record).unwrap());
        let before = std::fs::metadata(&file).unwrap().len();
        std::fs::OpenOptions::new().append(true).open(&file).unwrap().write_all(appended.as_bytes()).unwrap();
        appended_total.push_str(&appended);

        sync_continues(data.path(), home.path(), DROID, appended.len() as u64, before, longest);
    }
    let live = read_records(data.path(), DROID, home.path());

    // A rewrite before the cursor (its bytes shift the kept end's) is read whole.
    let rewritten = std::fs::read_to_string(&file).unwrap().replacen("PAPAYA-42", "PAPAYA-4343", 1);
    std::fs::write(&file, &rewritten).unwrap();
    let after_rewrite = sync(data.path(), home.path());
    assert!(after_rewrite["bytes_parsed"].as_u64().unwrap() >= rewritten.len() as u64, "{after_rewrite}");
    let rewritten_live = read_records(data.path(), DROID, home.path());
    assert_ne!(live, rewritten_live);
    let whole = read_summary(data.path(), DROID, home.path());

    // With the source gone, the archive gives back the same records.
    std::fs::remove_file(&file).unwrap();
    assert_eq!(read_records(data.path(), DROID, home.path()), rewritten_live);
    let kept = archived(data.path()).into_iter().find(|s| s["native_id"] == DROID).unwrap();
    assert_eq!(kept["snapshot_id"], whole["snapshot_id"]);
    assert!(appended_total.len() > 100);
}
