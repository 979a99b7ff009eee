//! Several codecs of one harness side by side (an older layout, a sibling
//! product), several homes of one harness under one HOME, and homes the
//! environment moves out of HOME: through the CLI, with the built-in codecs.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{fixture_home, repo_root, shared_cache, stderr, stdout, trajhost};

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

fn sessions_json(data: &Path, home: &Path, harness: &str) -> Vec<Value> {
    let output = trajhost(data, &["sessions", "--home", home.to_str().unwrap(), "--harness", harness, "--json"]);
    assert!(output.status.success(), "sessions failed: {}", stderr(&output));
    serde_json::from_str(&stdout(&output)).expect("sessions --json is one array")
}

/// The codec named in `read --json`'s meta record.
fn codec_that_read(data: &Path, path: &str) -> String {
    let output = trajhost(data, &["read", path, "--json"]);
    assert!(output.status.success(), "read {path} failed: {}", stderr(&output));
    let meta: Value = serde_json::from_str(stdout(&output).lines().next().expect("a meta record")).unwrap();
    assert_eq!(meta["kind"], "meta");
    meta["codec"].as_str().expect("meta names its codec").to_string()
}

/// Runs `trajhost` as a user whose HOME is `home`, with `env` set (and the
/// variables that move harness homes cleared unless given).
fn trajhost_as(data: &Path, home: &Path, env: &[(&str, &Path)], args: &[&str]) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_trajhost"));
    command
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .env("HOME", home)
        .env("TRAJHOST_CACHE_DIR", shared_cache())
        .env_remove("TRAJHOST_HOME")
        .env_remove("CODEX_HOME")
        .env_remove("CLAUDE_CONFIG_DIR");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("running trajhost")
}

#[test]
fn each_session_is_read_by_the_codec_of_its_layout() {
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    // Kimi CLI's ~/.kimi beside Kimi Code's ~/.kimi-code; Grok Build
    // sessions with chat_history.jsonl beside ones with only updates.jsonl.
    copy_tree(&fixture_home("kimi-cli", "1.51.0", "simple"), home.path());
    copy_tree(&repo_root().join("fixtures/kimi-cli/kimi-code-1.4/home"), home.path());
    copy_tree(&fixture_home("grok-build", "1.0.41", "simple"), home.path());
    copy_tree(&repo_root().join("fixtures/grok-build/updates-only/home"), home.path());

    for (harness, layouts) in [
        ("kimi-cli", [(".kimi/", "kimi-cli@0.1.0"), (".kimi-code/", "kimi-cli@0.1.0-kimi-code")]),
        ("grok-build", [("/chat_history.jsonl", "grok-build@0.1.0"), ("/updates.jsonl", "grok-build@0.1.0-updates")]),
    ] {
        let sessions = sessions_json(data.path(), home.path(), harness);
        for (marker, codec) in layouts {
            let of_layout: Vec<&Value> =
                sessions.iter().filter(|s| s["locator"].as_str().unwrap().contains(marker)).collect();
            assert!(!of_layout.is_empty(), "{harness}: no session in the {marker} layout: {sessions:#?}");
            for session in of_layout {
                assert_eq!(session["codec"], codec, "{harness}: {session:#?}");
                assert_eq!(codec_that_read(data.path(), session["path"].as_str().unwrap()), codec);
            }
        }
    }

    let output = trajhost(data.path(), &["plugin", "list", "--json"]);
    let codecs: Vec<Value> = serde_json::from_str(&stdout(&output)).unwrap();
    let ids: Vec<String> = codecs.iter().map(|c| format!("{}@{}", c["harness"], c["codec_version"])).collect();
    for id in [r#""kimi-cli"@"0.1.0""#, r#""kimi-cli"@"0.1.0-kimi-code""#, r#""grok-build"@"0.1.0-updates""#] {
        assert!(ids.iter().any(|i| i == id), "plugin list lacks {id}: {ids:?}");
    }
    for codec in &codecs {
        assert!(!codec["native_versions"].as_str().unwrap().is_empty(), "{codec:#?} has no range");
    }
}

/// `.codex` with a sibling `.codex-work` that holds a copy of one session
/// and an account home with another, plus `$CODEX_HOME` outside HOME.
#[test]
fn codex_homes_under_one_home_list_each_session_once() {
    let data = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let simple = fixture_home("codex", "0.171.0", "simple").join(".codex");
    for dir in [".codex", ".codex-work"] {
        std::fs::create_dir_all(home.join(dir)).unwrap();
        copy_tree(&simple, &home.join(dir));
    }
    // The copy in .codex-work grew: it is the one listed.
    let rollout = |base: &Path| -> PathBuf {
        let mut found = Vec::new();
        collect_rollouts(base, &mut found);
        found.pop().expect("a rollout")
    };
    let grown = rollout(&home.join(".codex-work"));
    let mut bytes = std::fs::read(&grown).unwrap();
    bytes.extend_from_slice(b"\n");
    std::fs::write(&grown, bytes).unwrap();
    let account = home.join(".config/agent-accounts/codex/alice");
    std::fs::create_dir_all(&account).unwrap();
    copy_tree(&fixture_home("codex", "0.171.0", "parallel").join(".codex"), &account);
    let elsewhere = root.path().join("srv/codex-data");
    std::fs::create_dir_all(&elsewhere).unwrap();
    copy_tree(&fixture_home("codex", "0.171.0", "failing-tool").join(".codex"), &elsewhere);

    let output = trajhost_as(
        data.path(),
        &home,
        &[("CODEX_HOME", elsewhere.as_path())],
        &["sessions", "--harness", "codex", "--json"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let sessions: Vec<Value> = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(sessions.len(), 3, "simple once, parallel, failing-tool: {sessions:#?}");
    let simple_id = sessions
        .iter()
        .find(|s| s["copies"].is_array())
        .unwrap_or_else(|| panic!("the copied session names its copy: {sessions:#?}"));
    assert_eq!(simple_id["path"].as_str().unwrap(), grown.canonicalize().unwrap().to_str().unwrap());
    let copies: Vec<&str> = simple_id["copies"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    assert_eq!(copies.len(), 1);
    assert!(copies[0].contains("/.codex/sessions/"), "{copies:?}");
    let paths: Vec<&str> = sessions.iter().map(|s| s["path"].as_str().unwrap()).collect();
    assert!(paths.iter().any(|p| p.contains("/.config/agent-accounts/codex/alice/sessions/")), "{paths:?}");
    let outside = elsewhere.canonicalize().unwrap();
    let from_env = sessions
        .iter()
        .find(|s| s["path"].as_str().unwrap().starts_with(outside.to_str().unwrap()))
        .unwrap_or_else(|| panic!("$CODEX_HOME's session is listed at its real path: {paths:?}"));

    // Read it by id, as a user would: the same mount serves the read.
    let id = from_env["native_id"].as_str().unwrap();
    let output = trajhost_as(
        data.path(),
        &home,
        &[("CODEX_HOME", elsewhere.as_path())],
        &["read", id, "--harness", "codex", "--json"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains(r#""kind":"tool_result""#));
}

fn collect_rollouts(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_rollouts(&path, out);
        } else if path.file_name().unwrap().to_string_lossy().starts_with("rollout-") {
            out.push(path);
        }
    }
}

/// `.claude` and a per-account `.claude-work`, plus `$CLAUDE_CONFIG_DIR`
/// outside HOME: every config dir's sessions are listed.
#[test]
fn claude_code_config_dirs_are_all_searched() {
    let data = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    for (scenario, dir) in [("simple", ".claude"), ("parallel", ".claude-work")] {
        std::fs::create_dir_all(home.join(dir)).unwrap();
        copy_tree(&fixture_home("claude-code", "2.1.197", scenario).join(".claude"), &home.join(dir));
    }
    let elsewhere = root.path().join("accounts/claude-ci");
    std::fs::create_dir_all(&elsewhere).unwrap();
    copy_tree(&fixture_home("claude-code", "2.1.197", "failing-tool").join(".claude"), &elsewhere);
    let output = trajhost_as(
        data.path(),
        &home,
        &[("CLAUDE_CONFIG_DIR", elsewhere.as_path())],
        &["sessions", "--harness", "claude-code", "--json"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let sessions: Vec<Value> = serde_json::from_str(&stdout(&output)).unwrap();
    let paths: Vec<&str> = sessions.iter().map(|s| s["path"].as_str().unwrap()).collect();
    let outside = elsewhere.canonicalize().unwrap();
    for wanted in ["/.claude/projects/", "/.claude-work/projects/", outside.to_str().unwrap()] {
        assert!(paths.iter().any(|p| p.contains(wanted)), "no session under {wanted}: {paths:?}");
    }
    assert_eq!(sessions.len(), 3, "{paths:?}");
}
