//! Secrets planted in sessions of six harnesses (lab fixtures: user text,
//! tool call arguments, tool results holding a `.env` dump, and Claude Code
//! 2.1.332's model-request records) never leave through sync, search, export
//! (OTLP with content, ATIF) or view, and each is counted; `convert` carries
//! them (the user's own handoff) unless `--redact`. The shared PostgreSQL
//! archive is checked the same way in postgres.rs.

use std::path::{Path, PathBuf};

use trajhost_redact::planted::{Planted, dotenv, planted};

use crate::common::*;

/// `(harness, version)` of the `simple` lab fixtures secrets are planted in.
const PLANTED_IN: [(&str, &str); 6] = [
    ("claude-code", "2.1.332"),
    ("codex", "0.171.0"),
    ("gemini-cli", "0.61.0"),
    ("pi", "0.73.1"),
    ("copilot-cli", "1.0.102"),
    ("qwen-code", "0.24.4"),
];

/// Rules that must each have masked something.
const RULES_SEEN: [&str; 8] = [
    "aws-access-token",
    "github-pat",
    "slack-bot-token",
    "stripe-access-token",
    "private-key",
    "jwt",
    "url-password",
    "anthropic-api-key",
];

/// A home holding the six fixtures with secrets planted in their JSON files.
pub struct PlantedHome {
    pub home: tempfile::TempDir,
    pub secrets: Vec<Planted>,
}

/// Text as it appears inside a JSON string.
fn json_inner(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap();
    quoted[1..quoted.len() - 1].to_string()
}

pub fn planted_home() -> PlantedHome {
    let home = tempfile::tempdir().unwrap();
    for (harness, version) in PLANTED_IN {
        copy_tree(&fixture_home(harness, version, "simple"), home.path());
    }
    let secrets = planted();
    // What the `.env` dump leaves out (several lines, whole commands) goes into the prompt.
    let dump = dotenv();
    let multi_line: String =
        secrets.iter().filter(|p| !dump.contains(&p.text)).map(|p| format!("\n{}\n", p.text)).collect();
    let fine_grained = secrets.iter().find(|p| p.rule == "github-fine-grained-pat").unwrap().text.clone();
    assert!(!fine_grained.contains(['"', '\\', '\n']), "{fine_grained}");
    // The scripted conversation: the prompt names hello.txt, a tool reads it
    // and returns PAPAYA-42, and the answer repeats it.
    let swaps = [
        ("PAPAYA-42".to_string(), json_inner(&dump)),
        ("Read hello.txt".to_string(), json_inner(&format!("Read hello.txt{multi_line}"))),
        // The tool call's command (plain text at any depth of JSON nesting).
        ("cat hello.txt".to_string(), format!("cat hello.txt; {fine_grained}")),
    ];
    for file in tree_hashes(home.path()).into_keys() {
        let path = home.path().join(&file);
        let is_json = path.extension().is_some_and(|e| e == "jsonl" || e == "json");
        if !is_json {
            continue;
        }
        let mut text = std::fs::read_to_string(&path).unwrap();
        for (from, to) in &swaps {
            text = text.replace(from, to);
        }
        std::fs::write(&path, text).unwrap();
    }
    PlantedHome { home, secrets }
}

/// The secrets (raw and as JSON escapes them) found in `text`.
pub fn leaked(secrets: &[Planted], text: &str) -> Vec<String> {
    secrets
        .iter()
        .filter(|p| text.contains(&p.secret) || text.contains(&json_inner(&p.secret)))
        .map(|p| format!("{} ({}…)", p.rule, &p.secret[..p.secret.len().min(12)]))
        .collect()
}

fn all_output(out: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    tree_hashes(dir).into_keys().map(|p| dir.join(p)).collect()
}

/// Every file under `dir` that holds a secret, with the secrets.
fn leaks_in_files(secrets: &[Planted], dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for path in files_under(dir) {
        let bytes = std::fs::read(&path).unwrap_or_default();
        let found = leaked(secrets, &String::from_utf8_lossy(&bytes));
        if !found.is_empty() {
            out.push(format!("{}: {found:?}", path.display()));
        }
    }
    out
}

fn sessions(data: &Path, home: &Path) -> Vec<serde_json::Value> {
    let out = trajhost(data, &["sessions", "--home", home.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn planted_secrets_never_leave_through_sync_search_export_or_view_and_are_counted() {
    let planted = planted_home();
    let home = planted.home.path();
    let secrets = &planted.secrets;
    let data = tempfile::tempdir().unwrap();
    let listed = sessions(data.path(), home);
    let harnesses: std::collections::BTreeSet<&str> = listed.iter().filter_map(|s| s["harness"].as_str()).collect();
    assert_eq!(harnesses.len(), 6, "{harnesses:?}");

    // The planting worked: read (no redaction by default) shows every secret, tool arguments included.
    let mut plain = String::new();
    for s in &listed {
        let out = trajhost(data.path(), &["read", s["path"].as_str().unwrap(), "--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        plain.push_str(&String::from_utf8_lossy(&out.stdout));
    }
    assert_eq!(leaked(secrets, &plain).len(), secrets.len(), "every planted secret reads back unmasked");
    assert!(
        plain.lines().any(|l| l.contains("\"kind\":\"tool_call\"") && !leaked(secrets, l).is_empty()),
        "a secret sits in tool call arguments"
    );
    // read --redact masks them, and says how many.
    for s in &listed {
        let out = trajhost(data.path(), &["read", s["path"].as_str().unwrap(), "--json", "--redact"]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(leaked(secrets, &all_output(&out)), Vec::<String>::new(), "read --redact of {}", s["path"]);
        assert!(stderr(&out).contains("redacted "), "{}", stderr(&out));
    }

    // sync: records, full-text index and titles are masked; each rule counted.
    let sync = trajhost(data.path(), &["sync", "--home", home.to_str().unwrap(), "--json"]);
    assert!(sync.status.success(), "{}", stderr(&sync));
    let report: serde_json::Value = serde_json::from_slice(&sync.stdout).unwrap();
    let counted = report["redactions"].as_object().unwrap();
    for rule in RULES_SEEN {
        assert!(counted.get(rule).and_then(|n| n.as_u64()).unwrap_or(0) > 0, "{rule} not counted: {counted:?}");
    }
    let archive = data.path().join("archive.db");
    let db = rusqlite::Connection::open_with_flags(&archive, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let tables: Vec<String> = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut evidence_leaks = 0;
    for table in &tables {
        let mut stmt = db.prepare(&format!("SELECT * FROM \"{table}\"")).unwrap();
        let columns = stmt.column_count();
        let mut rows = stmt.query([]).unwrap();
        while let Some(row) = rows.next().unwrap() {
            let mut text = String::new();
            for i in 0..columns {
                match row.get_ref(i).unwrap() {
                    rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => {
                        text.push_str(&String::from_utf8_lossy(t))
                    }
                    _ => {}
                }
            }
            let found = leaked(secrets, &text);
            if table == "blobs" {
                // The embedded archive's evidence is the user's own bytes, byte-exact (0600).
                evidence_leaks += found.len();
            } else {
                assert_eq!(found, Vec::<String>::new(), "a secret in the archive's {table} table");
            }
        }
    }
    assert!(evidence_leaks > 0, "the embedded archive's raw evidence stays byte-exact by default");
    drop(db);

    // search: hits around the masked secrets, none shown.
    for query in ["GITHUB_TOKEN", "hello.txt", "BEGIN"] {
        for extra in [&[][..], &["--json"][..]] {
            let mut args = vec!["search", query];
            args.extend(extra);
            let out = trajhost(data.path(), &args);
            assert_eq!(leaked(secrets, &all_output(&out)), Vec::<String>::new(), "search {query} {extra:?}");
        }
    }
    let hits = trajhost(data.path(), &["search", "GITHUB_TOKEN", "--json"]);
    assert!(String::from_utf8_lossy(&hits.stdout).contains("[REDACTED:"), "{}", stdout(&hits));

    // export: OTLP with content and ATIF, to files and stdout.
    let work = tempfile::tempdir().unwrap();
    for (format, extra) in [("otlp-json", &["--content"][..]), ("atif", &[][..])] {
        let file = work.path().join(format!("all.{format}"));
        let mut args = vec!["export", "--all", "--home", home.to_str().unwrap(), "--format", format];
        args.extend(extra);
        let out = trajhost(data.path(), &[&args[..], &["--out", file.to_str().unwrap()]].concat());
        assert!(out.status.success(), "{format}: {}", stderr(&out));
        assert!(stderr(&out).contains("redacted "), "{format}: {}", stderr(&out));
        let written = std::fs::read_to_string(&file).unwrap();
        assert!(written.contains("[REDACTED:"), "{format}");
        assert_eq!(leaked(secrets, &written), Vec::<String>::new(), "export {format}");
        assert_eq!(leaked(secrets, &all_output(&out)), Vec::<String>::new(), "export {format} output");
        // --no-redact lets them out, and says so.
        let loose = trajhost(data.path(), &[&args[..], &["--no-redact"]].concat());
        assert!(stderr(&loose).contains("--no-redact"), "{}", stderr(&loose));
        assert!(!leaked(secrets, &stdout(&loose)).is_empty(), "export {format} --no-redact");
    }

    // view: every session's page.
    for s in &listed {
        let page = work.path().join(format!("{}.html", s["harness"].as_str().unwrap()));
        let out = trajhost(data.path(), &["view", s["path"].as_str().unwrap(), "--out", page.to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(leaked(secrets, &std::fs::read_to_string(&page).unwrap()), Vec::<String>::new(), "{page:?}");
    }
    assert_eq!(leaks_in_files(secrets, work.path()), Vec::<String>::new());
}

#[test]
fn with_redact_evidence_the_embedded_archive_holds_no_secret_at_all() {
    let planted = planted_home();
    let data = tempfile::tempdir().unwrap();
    std::fs::write(data.path().join("config.toml"), "[redact]\nredact_evidence = true\n").unwrap();
    let sync = trajhost(data.path(), &["sync", "--home", planted.home.path().to_str().unwrap()]);
    assert!(sync.status.success(), "{}", stderr(&sync));
    assert!(stderr(&sync).contains("redacted "), "{}", stderr(&sync));
    // Every byte the archive wrote, evidence included (the database and its WAL).
    let archive_files: Vec<PathBuf> =
        files_under(data.path()).into_iter().filter(|p| p.to_string_lossy().contains("archive.db")).collect();
    assert!(!archive_files.is_empty());
    for file in archive_files {
        let bytes = std::fs::read(&file).unwrap();
        assert_eq!(leaked(&planted.secrets, &String::from_utf8_lossy(&bytes)), Vec::<String>::new(), "{file:?}");
    }
    // The masked evidence still reads back: a session read from the archive alone.
    let listed = trajhost(data.path(), &["sessions", "--archived", "--json"]);
    assert!(listed.status.success(), "{}", stderr(&listed));
}

#[test]
fn search_masks_snippets_of_an_archive_synced_without_redaction() {
    let planted = planted_home();
    let data = tempfile::tempdir().unwrap();
    let sync = trajhost(data.path(), &["sync", "--home", planted.home.path().to_str().unwrap(), "--no-redact"]);
    assert!(sync.status.success(), "{}", stderr(&sync));
    assert!(stderr(&sync).contains("--no-redact"), "{}", stderr(&sync));
    let raw = trajhost(data.path(), &["search", "GITHUB_TOKEN", "--json", "--no-redact"]);
    assert!(!leaked(&planted.secrets, &stdout(&raw)).is_empty(), "the archive holds them: {}", stdout(&raw));
    let out = trajhost(data.path(), &["search", "GITHUB_TOKEN", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(leaked(&planted.secrets, &all_output(&out)), Vec::<String>::new());
    assert!(stderr(&out).contains("redacted "), "{}", stderr(&out));
}

#[test]
fn convert_carries_secrets_unless_redact() {
    let planted = planted_home();
    let data = tempfile::tempdir().unwrap();
    let listed = sessions(data.path(), planted.home.path());
    let claude = listed.iter().find(|s| s["harness"] == "claude-code").unwrap()["path"].as_str().unwrap().to_string();
    let work = tempfile::tempdir().unwrap();
    let own = work.path().join("own");
    let out = trajhost(data.path(), &["convert", &claude, "--to", "codex", "--out", own.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!leaks_in_files(&planted.secrets, &own).is_empty(), "the user's own handoff carries the session as is");

    let masked = work.path().join("masked");
    let out = trajhost(
        data.path(),
        &["convert", &claude, "--to", "codex", "--out", masked.to_str().unwrap(), "--redact", "--json"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(leaks_in_files(&planted.secrets, &masked), Vec::<String>::new());
    let manifest: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(manifest["redactions"].as_object().is_some_and(|m| !m.is_empty()), "{manifest}");

    // prepare --redact masks an export written without it.
    let target = tempfile::tempdir().unwrap();
    let out = trajhost(
        data.path(),
        &["prepare", own.to_str().unwrap(), "--home", target.path().to_str().unwrap(), "--redact", "--no-probe"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(leaks_in_files(&planted.secrets, target.path()), Vec::<String>::new());
}

/// The false alarms redaction must not raise: ids and opaque blobs come
/// through export unchanged.
#[test]
fn ids_digests_and_opaque_blobs_pass_through_export_unchanged() {
    let data = tempfile::tempdir().unwrap();
    let home = fixture_home("codex", "0.171.0", "simple");
    let with = trajhost(data.path(), &["export", "--all", "--home", home.to_str().unwrap(), "--format", "atif"]);
    let without = trajhost(
        data.path(),
        &["export", "--all", "--home", home.to_str().unwrap(), "--format", "atif", "--no-redact"],
    );
    assert!(with.status.success() && without.status.success(), "{}", stderr(&with));
    assert_eq!(stdout(&with), stdout(&without), "a session without secrets exports byte-identical");
    assert!(!stderr(&with).contains("redacted "), "{}", stderr(&with));
}
