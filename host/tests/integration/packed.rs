//! Archives as homes, through the CLI: a real fixture home packed as tar.gz,
//! tar.zst and zip reads like its folder; the hostile suite errs clearly or
//! is safe, leaves nothing behind, and the next command is served.

use std::path::PathBuf;
use std::process::{Command, Output};

use trajhost::inventory::{self, SessionQuery};
use trajhost_unpack::testkit;

use crate::common::*;

const CLAUDE: &str = "2.1.197";
const CLAUDE_ID: &str = "61ec73f4-b0bb-4d28-a8cc-bfda17c07ec0";

/// A place where an archive's command runs: its own TMPDIR (where the
/// private dirs go) and cwd, both of which must be empty afterwards.
struct Place {
    root: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        let root = tempfile::tempdir().unwrap();
        for dir in ["tmp", "cwd", "outside", "archives", "data"] {
            std::fs::create_dir(root.path().join(dir)).unwrap();
        }
        Place { root }
    }
    fn path(&self, name: &str) -> PathBuf {
        self.root.path().join(name)
    }
    fn archive(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.path("archives").join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_trajhost"))
            .arg("--data-dir")
            .arg(self.path("data"))
            .args(args)
            .current_dir(self.path("cwd"))
            .env("TMPDIR", self.path("tmp"))
            .env("HOME", self.path("cwd"))
            .env_remove("TRAJHOST_HOME")
            .env("TRAJHOST_CACHE_DIR", shared_cache())
            .output()
            .expect("running trajhost")
    }
    /// Nothing left in the private dirs' parent, the cwd or beside them.
    fn assert_clean(&self, what: &str) {
        for dir in ["tmp", "cwd", "outside"] {
            let left: Vec<_> = std::fs::read_dir(self.path(dir)).unwrap().map(|e| e.unwrap().path()).collect();
            assert!(left.is_empty(), "{what}: left in {dir}: {left:?}");
        }
        let mut top: Vec<String> = std::fs::read_dir(self.root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        top.sort();
        assert_eq!(top, ["archives", "cwd", "data", "outside", "tmp"], "{what}");
    }
}

/// The Claude Code fixture home as a tar stream under a top folder `me/`.
fn claude_tar() -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    builder.append_dir_all("me", fixture_home("claude-code", CLAUDE, "simple")).unwrap();
    builder.into_inner().unwrap()
}

fn claude_zip() -> Vec<u8> {
    let home = fixture_home("claude-code", CLAUDE, "simple");
    let session = format!(".claude/projects/-home-user-project/{CLAUDE_ID}.jsonl");
    let bytes = std::fs::read(home.join(&session)).unwrap();
    let config = std::fs::read(home.join(".claude.json")).unwrap();
    testkit::zip(&[(&format!("me/{session}"), &bytes), ("me/.claude.json", &config)])
}

fn snapshot(out: &Output) -> String {
    assert!(out.status.success(), "{}", stderr(out));
    let summary: serde_json::Value = serde_json::from_str(stdout(out).lines().last().unwrap()).unwrap();
    summary["snapshot_id"].as_str().expect("a snapshot id").to_string()
}

#[test]
fn a_packed_claude_home_reads_like_its_folder_in_every_format() {
    let place = Place::new();
    let folder = fixture_home("claude-code", CLAUDE, "simple");
    let from_folder = snapshot(&place.run(&["read", CLAUDE_ID, "--home", folder.to_str().unwrap(), "--json"]));
    let tar = claude_tar();
    for (name, bytes) in [
        ("home.tgz", testkit::gzip(&tar)),
        ("home.tar.zst", testkit::zstd(&tar)),
        ("home.tar", tar.clone()),
        ("home.zip", claude_zip()),
    ] {
        let archive = place.archive(name, &bytes);
        let archive = archive.to_str().unwrap();
        let listed = place.run(&["sessions", "--home", archive, "--json"]);
        assert!(listed.status.success(), "{name}: {}", stderr(&listed));
        let sessions: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
        let ids: Vec<&str> =
            sessions.as_array().unwrap().iter().map(|s| s["native_id"].as_str().unwrap_or_default()).collect();
        assert!(ids.contains(&CLAUDE_ID), "{name}: {sessions}");
        assert_eq!(
            snapshot(&place.run(&["read", CLAUDE_ID, "--home", archive, "--json"])),
            from_folder,
            "{name} by id"
        );
        let member = format!("{archive}#me/.claude/projects/-home-user-project/{CLAUDE_ID}.jsonl");
        assert_eq!(snapshot(&place.run(&["read", &member, "--json"])), from_folder, "{name} by member path");
        place.assert_clean(name);
    }
}

#[test]
fn a_session_packed_outside_any_layout_is_found_by_its_content() {
    let place = Place::new();
    let folder = fixture_home("claude-code", CLAUDE, "simple");
    let bytes = std::fs::read(folder.join(format!(".claude/projects/-home-user-project/{CLAUDE_ID}.jsonl"))).unwrap();
    let tar = testkit::tar(&[
        testkit::file("bug-report/README.md", b"the session that broke"),
        testkit::file("bug-report/session.jsonl", &bytes),
        testkit::file("bug-report/notes.json", b"{\"not\": \"a session\"}"),
    ]);
    let archive = place.archive("report.tgz", &testkit::gzip(&tar));
    let archive = archive.to_str().unwrap();
    let listed = place.run(&["sessions", "--home", archive, "--json"]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    let sessions: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(sessions.as_array().map(Vec::len), Some(1), "{sessions}");
    assert_eq!(sessions[0]["harness"], "claude-code", "{sessions}");
    assert_eq!(sessions[0]["native_id"], CLAUDE_ID, "{sessions}");
    let from_folder = snapshot(&place.run(&["read", CLAUDE_ID, "--home", folder.to_str().unwrap(), "--json"]));
    assert_eq!(snapshot(&place.run(&["read", &CLAUDE_ID[..8], "--home", archive, "--json"])), from_folder);
    place.assert_clean("loose session");
}

#[test]
fn a_packed_claude_home_converts_to_codex_and_syncs_keyed_by_the_archive() {
    let place = Place::new();
    let archive = place.archive("home.tgz", &testkit::gzip(&claude_tar()));
    let member = format!("{}#me/.claude/projects/-home-user-project/{CLAUDE_ID}.jsonl", archive.display());
    let out = place.path("archives").join("export");
    let converted = place.run(&["convert", &member, "--to", "codex", "--out", out.to_str().unwrap(), "--json"]);
    assert!(converted.status.success(), "{}", stderr(&converted));
    let manifest: serde_json::Value = serde_json::from_slice(&converted.stdout).unwrap();
    assert_eq!(manifest["target"]["harness"], "codex", "{manifest}");
    place.assert_clean("convert");

    let sync = |label: &str| {
        let synced = place.run(&["sync", "--home", archive.to_str().unwrap(), "--json"]);
        assert!(synced.status.success(), "{label}: {}", stderr(&synced));
        place.assert_clean(label);
        serde_json::from_slice::<serde_json::Value>(&synced.stdout).unwrap()
    };
    let first = sync("first sync");
    assert_eq!(first["sessions_added"], 1, "{first}");
    let second = sync("second sync");
    assert_eq!(second["sessions_added"], 0, "the same archive is the same home: {second}");
    assert_eq!(second["sessions_failed"], 0, "{second}");
    // Listed under the archive, and read from the kept bytes once the private dir is gone.
    let listed = place.run(&["sessions", "--archived", "--home", archive.to_str().unwrap(), "--json"]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    let archived: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(archived.as_array().map(Vec::len), Some(1), "{archived}");
    assert_eq!(archived[0]["native_id"], CLAUDE_ID, "{archived}");
    assert_eq!(archived[0]["source_exists"], false, "{archived}");
    place.assert_clean("sessions --archived");
    let folder = fixture_home("claude-code", CLAUDE, "simple");
    let from_folder = snapshot(&place.run(&["read", CLAUDE_ID, "--home", folder.to_str().unwrap(), "--json"]));
    assert_eq!(snapshot(&place.run(&["read", CLAUDE_ID, "--json"])), from_folder, "read back from the kept bytes");
}

#[test]
fn the_hostile_suite_errs_clearly_or_is_safe_and_leaves_nothing() {
    let place = Place::new();
    for case in testkit::hostile_suite(true) {
        let archive = place.archive(case.name, &case.bytes);
        let out = place.run(&["sessions", "--home", archive.to_str().unwrap(), "--json"]);
        let code = out.status.code().expect("exited, not killed by a signal");
        assert!(code < 128, "{}: exit {code}", case.name);
        let err = stderr(&out);
        assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{}: raw control characters in {err:?}", case.name);
        if case.refused {
            assert_eq!(code, 1, "{}: {err}", case.name);
            assert!(err.contains(case.name), "{}: the error names the archive: {err}", case.name);
        } else {
            assert_eq!(code, 0, "{}: {err}", case.name);
        }
        place.assert_clean(case.name);
    }
}

#[test]
fn after_a_hostile_archive_the_same_process_serves_the_next() {
    let place = Place::new();
    let host = CatalogHost::new();
    let catalog = host.catalog();
    let markers = trajhost::packed::home_markers(&catalog);
    assert!(markers.iter().any(|m| m.starts_with(".claude")), "{markers:?}");
    let good = place.archive("home.tgz", &testkit::gzip(&claude_tar()));
    for case in testkit::hostile_suite(false).into_iter().filter(|c| c.refused) {
        let hostile = place.archive(case.name, &case.bytes);
        let error = trajhost::packed::open(&hostile, &markers, &Default::default()).expect_err(case.name);
        assert!(error.to_string().contains(case.name), "{error}");
        let packed = trajhost::packed::open(&good, &markers, &Default::default()).expect("the next archive");
        let inventory = inventory::discover(
            &catalog,
            &SessionQuery { home: packed.home().to_path_buf(), harness: Some("claude-code".into()), cwd: None },
        )
        .unwrap();
        assert_eq!(inventory.sessions.len(), 1, "after {}", case.name);
        assert!(packed.home().ends_with("me"), "{}", packed.home().display());
    }
}
