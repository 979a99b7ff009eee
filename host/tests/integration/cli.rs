//! The command line as scripts use it: output formats and exit codes.

use crate::common::*;

const CLAUDE_HOME: (&str, &str, &str) = ("claude-code", "2.1.197", "simple");

#[test]
fn sessions_lists_fixture_sessions_as_json_and_table() {
    let data = tempfile::tempdir().unwrap();
    let home = fixture_home(CLAUDE_HOME.0, CLAUDE_HOME.1, CLAUDE_HOME.2);
    let out = trajhost(data.path(), &["sessions", "--home", home.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let sessions: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sessions.len(), 1);
    let s = &sessions[0];
    assert_eq!(s["harness"], "claude-code");
    assert_eq!(s["native_version"], "2.1.197");
    assert_eq!(s["cwd"], "/home/user/project");
    assert!(s["native_id"].as_str().unwrap().len() == 36);
    assert!(std::path::Path::new(s["path"].as_str().unwrap()).is_file());

    let table = trajhost(data.path(), &["sessions", "--home", home.to_str().unwrap()]);
    let text = stdout(&table);
    assert!(text.starts_with("HARNESS"), "{text}");
    assert!(text.contains(s["native_id"].as_str().unwrap()));
}

#[test]
fn cwd_filter_uses_path_boundaries() {
    let data = tempfile::tempdir().unwrap();
    let home = fixture_home(CLAUDE_HOME.0, CLAUDE_HOME.1, CLAUDE_HOME.2);
    let count = |cwd: &str| {
        let out = trajhost(data.path(), &["sessions", "--home", home.to_str().unwrap(), "--cwd", cwd, "--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_slice::<Vec<serde_json::Value>>(&out.stdout).unwrap().len()
    };
    assert_eq!(count("/home/user/project"), 1);
    assert_eq!(count("/home/user"), 1);
    assert_eq!(count("/home/user/proj"), 0);
    assert_eq!(count("/home/user/project/sub"), 0);
}

#[test]
fn read_shows_a_readable_transcript_by_id_and_by_path() {
    let data = tempfile::tempdir().unwrap();
    let home = fixture_home(CLAUDE_HOME.0, CLAUDE_HOME.1, CLAUDE_HOME.2);
    let listed = trajhost(data.path(), &["sessions", "--home", home.to_str().unwrap(), "--json"]);
    let sessions: Vec<serde_json::Value> = serde_json::from_slice(&listed.stdout).unwrap();
    let id = sessions[0]["native_id"].as_str().unwrap();
    let path = sessions[0]["path"].as_str().unwrap();

    for target in [id, &id[..8], path] {
        let out = trajhost(data.path(), &["read", target, "--home", home.to_str().unwrap()]);
        assert!(out.status.success(), "{target}: {}", stderr(&out));
        let text = stdout(&out);
        for needle in ["user", "Read hello.txt", "tool call Bash", "cat hello.txt", "tool result", "PAPAYA-42", "assistant", "FINAL ANSWER"] {
            assert!(text.contains(needle), "{target}: {needle:?} missing from\n{text}");
        }
    }
}

#[test]
fn read_json_is_canonical_jsonl_with_a_summary_trailer() {
    let data = tempfile::tempdir().unwrap();
    let home = fixture_home(CLAUDE_HOME.0, CLAUDE_HOME.1, CLAUDE_HOME.2);
    let file = std::fs::read_dir(home.join(".claude/projects/-home-user-project"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let out = trajhost(data.path(), &["read", file.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<serde_json::Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["kind"], "meta");
    let summary = lines.last().unwrap();
    assert_eq!(summary["kind"], "summary");
    assert_eq!(summary["ending"], "completed");
    assert_eq!(summary["records"].as_u64().unwrap() as usize, lines.len() - 1);
    assert!(summary["snapshot_id"].as_str().unwrap().starts_with("sha256:"));
    assert!(summary["diagnostics"].is_array());
    // The same bytes give the same snapshot id.
    let again = trajhost(data.path(), &["read", file.to_str().unwrap(), "--json"]);
    let again: serde_json::Value = serde_json::from_str(stdout(&again).lines().last().unwrap()).unwrap();
    assert_eq!(again["snapshot_id"], summary["snapshot_id"]);
    let kinds: std::collections::BTreeSet<&str> = lines.iter().filter_map(|l| l["kind"].as_str()).collect();
    for kind in ["user", "assistant", "tool_call", "tool_result"] {
        assert!(kinds.contains(kind), "{kind} missing: {kinds:?}");
    }
}

#[test]
fn exit_codes_distinguish_not_found_from_errors() {
    let data = tempfile::tempdir().unwrap();
    let home = fixture_home(CLAUDE_HOME.0, CLAUDE_HOME.1, CLAUDE_HOME.2);
    let out = trajhost(data.path(), &["read", "no-such-session", "--home", home.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("no session \"no-such-session\""), "{}", stderr(&out));
    let out = trajhost(data.path(), &["sessions", "--bogus-flag"]);
    assert_eq!(out.status.code(), Some(2));
    let out = trajhost(data.path(), &["plugin", "install", "/nonexistent.wasm"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("/nonexistent.wasm"), "{}", stderr(&out));
}

#[test]
fn plugin_commands_round_trip() {
    let data = tempfile::tempdir().unwrap();
    let toy = guest("trajhost-toy-v1");
    let out = trajhost(data.path(), &["plugin", "install", toy.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("installed toy@1.0.0"), "{}", stdout(&out));

    let out = trajhost(data.path(), &["plugin", "list", "--json"]);
    let list: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<String> = list.iter().map(|c| format!("{}@{}", c["harness"].as_str().unwrap(), c["codec_version"].as_str().unwrap())).collect();
    assert!(ids.contains(&"toy@1.0.0".to_string()) && ids.iter().any(|i| i.starts_with("claude-code@")), "{ids:?}");

    let out = trajhost(data.path(), &["plugin", "verify"]);
    assert!(out.status.success() && stdout(&out).contains("ok        toy@1.0.0"), "{}", stdout(&out));

    let home = toy_home(&[("t1", "1.0.0")]);
    let out = trajhost(data.path(), &["plugin", "test", toy.to_str().unwrap(), home.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("records=3") && text.contains("fuel=") && !text.contains("fuel=-"), "{text}");

    let out = trajhost(data.path(), &["plugin", "remove", "toy@1.0.0"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = trajhost(data.path(), &["plugin", "install", guest("trajhost-hostile-import").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("wasi:filesystem"), "{}", stderr(&out));
}

#[test]
fn read_projects_to_trajectory_v1() {
    let data = tempfile::tempdir().unwrap();
    let home = fixture_home(CLAUDE_HOME.0, CLAUDE_HOME.1, CLAUDE_HOME.2);
    let out = trajhost(data.path(), &["read", "61ec73f4", "--home", home.to_str().unwrap(), "--format", "trajectory-v1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let records: Vec<serde_json::Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records[0]["role"], "meta");
    assert_eq!(records[0]["source"], "claude-code");
    assert_eq!(records.iter().filter(|r| r["role"] == "meta").count(), 1);
    let call = records.iter().find(|r| r["tool_calls"].is_array()).expect("a tool call record");
    assert!(call["content"].is_null());
    let args: serde_json::Value = serde_json::from_str(call["tool_calls"][0]["args"].as_str().unwrap()).unwrap();
    assert_eq!(args["command"], "cat hello.txt");
    let result = records.iter().find(|r| r["role"] == "tool").expect("a tool record");
    assert_eq!(result["tool_call_id"], call["tool_calls"][0]["id"]);
    assert!(result["content"].as_str().unwrap().contains("PAPAYA-42"));
    assert!(records.iter().all(|r| r["role"] == "meta" || r["timestamp"].is_string()));
}

/// Copies `from` into `to`, keeping files already there (fixture homes of
/// different harnesses are disjoint apart from shared config dirs).
fn merge_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        let meta = std::fs::symlink_metadata(entry.path()).unwrap();
        if meta.is_dir() {
            merge_tree(&entry.path(), &dest);
        } else if meta.is_file() && !dest.exists() {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

#[test]
fn one_home_with_every_harness_lists_them_all() {
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut harnesses = std::collections::BTreeSet::new();
    for harness in std::fs::read_dir(repo_root().join("fixtures")).unwrap() {
        let harness = harness.unwrap().path();
        for version in std::fs::read_dir(&harness).unwrap() {
            let simple = version.unwrap().path().join("simple");
            if simple.is_dir() {
                merge_tree(&simple, home.path());
                harnesses.insert(harness.file_name().unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let out = trajhost(data.path(), &["sessions", "--home", home.path().to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let sessions: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let listed: std::collections::BTreeSet<String> = sessions.iter().map(|s| s["harness"].as_str().unwrap().to_string()).collect();
    assert_eq!(listed, harnesses, "every harness with a fixture is listed");
    for s in &sessions {
        assert!(s["native_id"].as_str().is_some_and(|id| !id.is_empty()), "{s}");
        assert!(s["started_at"].is_string() || s["updated_at"].is_string(), "no times: {s}");
    }
    // A session inside a multi-session store is addressed as `store#id`.
    let opencode = sessions.iter().find(|s| s["harness"] == "opencode").expect("opencode listed");
    let read = trajhost(data.path(), &["read", opencode["path"].as_str().unwrap(), "--json"]);
    assert!(read.status.success(), "{}", stderr(&read));
    assert!(stdout(&read).contains("PAPAYA-42"));
}
