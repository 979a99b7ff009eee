//! `prepare` knows which version of the target will resume the session
//! (`--target-version`, the version `convert --to H@V` recorded, the target
//! home's newest session, the CLI on PATH), picks the writer for it, and says
//! `verified: true` only when the ledger lists that version for that writer.

use std::path::Path;

use crate::common::*;

const CLAUDE_FIXTURE_FILE: &str = ".claude/projects/-home-user-project/61ec73f4-b0bb-4d28-a8cc-bfda17c07ec0.jsonl";

/// An export of the Codex lab session for `to` (`HARNESS[@VERSION]`).
fn codex_export(data: &Path, to: &str) -> (std::path::PathBuf, serde_json::Value) {
    let export = data.join("export");
    let home = fixture_home("codex", "0.171.0", "simple");
    let converted = trajhost(data, &["sessions", "--home", home.to_str().unwrap(), "--json"]);
    let sessions: Vec<serde_json::Value> = serde_json::from_slice(&converted.stdout).unwrap();
    let file = sessions[0]["path"].as_str().unwrap().to_string();
    let out = trajhost(data, &["convert", &file, "--to", to, "--out", export.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "convert: {}", stderr(&out));
    (export, serde_json::from_slice(&out.stdout).unwrap())
}

fn prepare_json(data: &Path, export: &Path, home: &Path, extra: &[&str], env: &[(&str, &str)]) -> serde_json::Value {
    let mut args = vec!["prepare", export.to_str().unwrap(), "--home", home.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let out = trajhost_with_env(data, &args, env);
    assert!(out.status.success(), "prepare {extra:?}: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The target versions the embedded ledger lists for `codec`, as `plugin list --json` shows them.
fn ledger_targets(data: &Path, codec: &str) -> Vec<String> {
    let out = trajhost(data, &["plugin", "list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let row = rows
        .iter()
        .find(|r| format!("{}@{}", r["harness"].as_str().unwrap(), r["codec_version"].as_str().unwrap()) == codec)
        .unwrap_or_else(|| panic!("{codec} not listed"));
    row["verified"]["target"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect()
}

/// A PATH holding nothing but the tools a shell script needs (no harness CLI).
fn bare_path() -> String {
    "/usr/bin:/bin".into()
}

#[test]
fn a_home_whose_newest_session_says_9_9_9_is_not_verified_and_says_why() {
    let data = tempfile::tempdir().unwrap();
    let (export, _) = codex_export(data.path(), "claude-code");
    let home = tempfile::tempdir().unwrap();
    copy_tree(&fixture_home("claude-code", "2.1.197", "simple"), home.path());
    let file = home.path().join(CLAUDE_FIXTURE_FILE);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("\"version\":\"2.1.197\""));
    std::fs::write(&file, text.replace("\"version\":\"2.1.197\"", "\"version\":\"9.9.9\"")).unwrap();
    let before = std::fs::read(&file).unwrap();
    let other = tempfile::tempdir().unwrap();
    copy_tree(home.path(), other.path());

    let plan = prepare_json(data.path(), &export, home.path(), &["--no-probe"], &[]);
    assert_eq!(plan["target_version"]["version"], "9.9.9", "{plan}");
    assert_eq!(plan["target_version"]["from"]["kind"], "home-session", "{plan}");
    assert_eq!(plan["verified"], false, "{plan}");
    let reason = plan["verified_reason"].as_str().unwrap();
    assert!(reason.starts_with("untested version 9.9.9; claude-code@0.1.0 verified: "), "{reason}");
    assert!(reason.contains("no codec writes claude-code 9.9.9"), "{reason}");
    assert_eq!(std::fs::read(&file).unwrap(), before, "the home's own session changed");

    // The human output says the same in one line.
    let out = trajhost(
        data.path(),
        &["prepare", export.to_str().unwrap(), "--home", other.path().to_str().unwrap(), "--no-probe", "--dry-run"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let human = stdout(&out);
    assert!(human.lines().any(|l| l.starts_with("not verified: untested version 9.9.9;")), "{human}");
    assert!(human.contains("target    claude-code 9.9.9 (recorded by the home's newest session"), "{human}");
}

#[test]
fn verified_follows_the_ledger_for_the_version_given() {
    let data = tempfile::tempdir().unwrap();
    let (export, _) = codex_export(data.path(), "claude-code");
    let listed = ledger_targets(data.path(), "claude-code@0.1.0");
    for version in ["2.1.197", "1.0.100", "2.1.332", "2.0.0"] {
        let home = tempfile::tempdir().unwrap();
        let plan = prepare_json(data.path(), &export, home.path(), &["--target-version", version, "--dry-run"], &[]);
        assert_eq!(plan["target_version"]["from"]["kind"], "flag", "{plan}");
        assert_eq!(plan["codec"], "claude-code@0.1.0", "{plan}");
        let expected = listed.iter().any(|v| v == version);
        assert_eq!(plan["verified"], expected, "{version}: ledger lists {listed:?}: {plan}");
    }
}

#[test]
fn the_version_chosen_at_convert_travels_with_the_export() {
    let data = tempfile::tempdir().unwrap();
    let (export, manifest) = codex_export(data.path(), "claude-code@1.0.100");
    assert_eq!(manifest["target"]["native_version"], "1.0.100", "{manifest}");
    let home = tempfile::tempdir().unwrap();
    let plan = prepare_json(data.path(), &export, home.path(), &["--dry-run"], &[("PATH", &bare_path())]);
    assert_eq!(plan["target_version"]["version"], "1.0.100", "{plan}");
    assert_eq!(plan["target_version"]["from"]["kind"], "export", "{plan}");
    // The flag wins over the export.
    let plan = prepare_json(data.path(), &export, home.path(), &["--dry-run", "--target-version", "2.1.197"], &[]);
    assert_eq!(plan["target_version"]["version"], "2.1.197", "{plan}");
}

#[test]
fn the_cli_on_path_is_asked_for_its_version_unless_no_probe() {
    use std::os::unix::fs::PermissionsExt;
    let data = tempfile::tempdir().unwrap();
    let (export, _) = codex_export(data.path(), "claude-code");
    let bin = tempfile::tempdir().unwrap();
    let claude = bin.path().join("claude");
    std::fs::write(&claude, "#!/bin/sh\necho '1.0.100 (Claude Code)'\n").unwrap();
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.path().display(), bare_path());

    let home = tempfile::tempdir().unwrap();
    let plan = prepare_json(data.path(), &export, home.path(), &["--dry-run"], &[("PATH", &path)]);
    assert_eq!(plan["target_version"]["version"], "1.0.100", "{plan}");
    assert_eq!(plan["target_version"]["from"]["kind"], "cli", "{plan}");
    assert!(plan["target_version"]["from"]["command"].as_str().unwrap().ends_with("claude --version"), "{plan}");

    let plan = prepare_json(data.path(), &export, home.path(), &["--dry-run", "--no-probe"], &[("PATH", &path)]);
    assert_eq!(plan["target_version"]["version"], serde_json::Value::Null, "{plan}");
    assert_eq!(plan["verified"], false, "{plan}");
    assert!(plan["verified_reason"].as_str().unwrap().starts_with("target version unknown"), "{plan}");

    // A CLI that hangs is stopped, and the version stays unknown.
    std::fs::write(&claude, "#!/bin/sh\nsleep 60\n").unwrap();
    let started = std::time::Instant::now();
    let plan = prepare_json(data.path(), &export, home.path(), &["--dry-run"], &[("PATH", &path)]);
    assert_eq!(plan["target_version"]["version"], serde_json::Value::Null, "{plan}");
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "the probe was not stopped");
}
