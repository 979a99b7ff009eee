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
        for needle in [
            "user",
            "Read hello.txt",
            "tool call Bash",
            "cat hello.txt",
            "tool result",
            "PAPAYA-42",
            "assistant",
            "FINAL ANSWER",
        ] {
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
    let ids: Vec<String> = list
        .iter()
        .map(|c| format!("{}@{}", c["harness"].as_str().unwrap(), c["codec_version"].as_str().unwrap()))
        .collect();
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
    let out =
        trajhost(data.path(), &["read", "61ec73f4", "--home", home.to_str().unwrap(), "--format", "trajectory-v1"]);
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
    let listed: std::collections::BTreeSet<String> =
        sessions.iter().map(|s| s["harness"].as_str().unwrap().to_string()).collect();
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

/// A data dir with both toy versions installed, and a copy of the
/// side-by-side toy home.
fn toys() -> (tempfile::TempDir, tempfile::TempDir) {
    let data = tempfile::tempdir().unwrap();
    for package in ["trajhost-toy-v1", "trajhost-toy-v2"] {
        let out = trajhost(data.path(), &["plugin", "install", guest(package).to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let home = tempfile::tempdir().unwrap();
    merge_tree(&repo_root().join("tests/toy/fixtures/side-by-side"), home.path());
    (data, home)
}

/// stderr without the one-time compile notice (the shared test cache may
/// be cold for whichever test runs first).
fn stderr_lines(out: &std::process::Output) -> Vec<String> {
    stderr(out).lines().filter(|l| !l.starts_with("compiling ")).map(String::from).collect()
}

fn summary_of(out: &std::process::Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", stderr(out));
    serde_json::from_str(stdout(out).lines().last().expect("a summary line")).unwrap()
}

/// The byte offset of line `n` (0-based) of a file.
fn line_offset(path: &std::path::Path, n: usize) -> usize {
    std::fs::read_to_string(path).unwrap().split_inclusive('\n').take(n).map(str::len).sum()
}

#[test]
fn read_shows_endings_and_diagnostics_in_words_in_both_forms() {
    let (data, home) = toys();
    let fresh = home.path().join("toy2/fresh.jsonl");
    let offset = line_offset(&fresh, 1);

    let out = trajhost(data.path(), &["read", fresh.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let ending = text.lines().last().unwrap();
    assert!(ending.starts_with("ending completed, snapshot sha256:"), "{text}");
    assert_eq!(ending.len(), "ending completed, snapshot sha256:".len() + 64, "{ending:?}");
    assert!(text.ends_with('\n'));
    assert!(!text.contains("Completed") && !text.contains("Severity"), "{text}");
    assert_eq!(
        stderr_lines(&out),
        [format!("warning: malformed-line line ×1 (first in toy2/fresh.jsonl at byte {offset})")],
        "one diagnostic line, in words"
    );

    let summary = summary_of(&trajhost(data.path(), &["read", fresh.to_str().unwrap(), "--json"]));
    assert_eq!(summary["ending"], "completed");
    assert_eq!(
        summary["diagnostics"],
        serde_json::json!([{"code": "malformed-line", "severity": "warning", "detail": "line", "count": 1, "file": "toy2/fresh.jsonl", "offset": offset}])
    );

    // A session that stops at the user's prompt is open.
    let open = home.path().join("toy/open.jsonl");
    std::fs::write(&open, "{\"v\":\"1.0.0\",\"role\":\"user\",\"text\":\"anyone?\"}\n").unwrap();
    let out = trajhost(data.path(), &["read", open.to_str().unwrap()]);
    assert!(stdout(&out).lines().last().unwrap().starts_with("ending open, snapshot sha256:"), "{}", stdout(&out));
    assert_eq!(stderr_lines(&out), Vec::<String>::new(), "no diagnostics, no noise");
    assert_eq!(summary_of(&trajhost(data.path(), &["read", open.to_str().unwrap(), "--json"]))["ending"], "open");

    // A real codec's info diagnostics read the same way.
    let claude = fixture_home(CLAUDE_HOME.0, CLAUDE_HOME.1, CLAUDE_HOME.2);
    let out = trajhost(data.path(), &["read", "61ec73f4", "--home", claude.to_str().unwrap(), "--json"]);
    let summary = summary_of(&out);
    let severities: Vec<&str> =
        summary["diagnostics"].as_array().unwrap().iter().map(|d| d["severity"].as_str().unwrap()).collect();
    assert!(!severities.is_empty(), "the fixture yields diagnostics: {summary}");
    assert!(severities.iter().all(|s| ["info", "warning", "error"].contains(s)), "{severities:?}");
    let out = trajhost(data.path(), &["read", "61ec73f4", "--home", claude.to_str().unwrap()]);
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), severities.len(), "{lines:?}");
    for (line, severity) in lines.iter().zip(&severities) {
        assert!(line.starts_with(&format!("{severity}: ")), "{line}");
    }
}

#[test]
fn side_by_side_versions_list_both_folders_and_read_with_the_selected_codec() {
    let (data, home) = toys();
    let out =
        trajhost(data.path(), &["sessions", "--home", home.path().to_str().unwrap(), "--harness", "toy", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let sessions: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let mut seen: Vec<(String, String)> = sessions
        .iter()
        .map(|s| (s["native_id"].as_str().unwrap().into(), s["codec"].as_str().unwrap().into()))
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            ("fresh".into(), "toy@2.0.0".into()),
            ("moved".into(), "toy@2.0.0".into()),
            ("old".into(), "toy@1.0.0".into())
        ]
    );
    for (id, codec) in &seen {
        let summary =
            summary_of(&trajhost(data.path(), &["read", id, "--home", home.path().to_str().unwrap(), "--json"]));
        assert_eq!(summary["codec"], codec.as_str(), "{id}");
    }
    // `--codec` reaches a session outside that version's folders.
    let fresh = home.path().join("toy2/fresh.jsonl");
    let summary =
        summary_of(&trajhost(data.path(), &["read", fresh.to_str().unwrap(), "--codec", "toy@1.0.0", "--json"]));
    assert_eq!(summary["codec"], "toy@1.0.0");
}

#[test]
fn snapshot_ids_survive_a_codec_upgrade() {
    let (data, home) = toys();
    let moved = home.path().join("toy/moved.jsonl");
    let by_v2 = trajhost(data.path(), &["read", moved.to_str().unwrap(), "--json"]);
    let by_v1 = trajhost(data.path(), &["read", moved.to_str().unwrap(), "--json", "--codec", "toy@1.0.0"]);
    let meta = |out: &std::process::Output| -> serde_json::Value {
        serde_json::from_str(stdout(out).lines().next().unwrap()).unwrap()
    };
    assert_eq!(
        (meta(&by_v1)["codec"].as_str(), meta(&by_v2)["codec"].as_str()),
        (Some("toy@1.0.0"), Some("toy@2.0.0"))
    );
    assert_eq!(summary_of(&by_v1)["snapshot_id"], summary_of(&by_v2)["snapshot_id"]);
}

/// The one file of `harness`'s `simple` fixture of `version` whose name ends in `suffix`.
fn fixture_file(harness: &str, version: &str, suffix: &str) -> std::path::PathBuf {
    let mut stack = vec![fixture_home(harness, version, "simple")];
    let mut found = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(suffix) {
                found.push(path);
            }
        }
    }
    assert_eq!(found.len(), 1, "{harness}: {found:?}");
    found.remove(0)
}

/// Reads a session in place, then a copy of its file in a temp dir under
/// another name, with and without `--harness`: the same records, the same
/// snapshot id.
fn copy_reads_alike(data: &std::path::Path, harness: &str, file: &std::path::Path, new_name: &str, fragment: &str) {
    let target = |path: &std::path::Path| format!("{}{fragment}", path.display());
    let in_place = summary_of(&trajhost(data, &["read", &target(file), "--json"]));
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join(new_name);
    std::fs::copy(file, &copy).unwrap();
    let with_harness = summary_of(&trajhost(data, &["read", &target(&copy), "--harness", harness, "--json"]));
    assert_eq!(
        (&with_harness["records"], &with_harness["snapshot_id"]),
        (&in_place["records"], &in_place["snapshot_id"]),
        "{harness} --harness"
    );
    let out = trajhost(data, &["read", &target(&copy), "--json"]);
    assert!(out.status.success(), "{harness} without --harness: {}", stderr(&out));
    let sniffed = summary_of(&out);
    assert_eq!(
        (&sniffed["codec"], &sniffed["snapshot_id"]),
        (&in_place["codec"], &in_place["snapshot_id"]),
        "{harness} by content"
    );
}

#[test]
fn sessions_copied_elsewhere_under_another_name_keep_their_snapshot_ids() {
    let data = tempfile::tempdir().unwrap();
    copy_reads_alike(
        data.path(),
        "claude-code",
        &fixture_file("claude-code", "2.1.197", ".jsonl"),
        "a-session-someone-sent.jsonl",
        "",
    );
    copy_reads_alike(data.path(), "codex", &fixture_file("codex", "0.171.0", ".jsonl"), "rollout-renamed.jsonl", "");

    // An OpenCode session document (what `opencode export` prints and
    // trajhost installs), made by converting the Claude Code fixture.
    let work = tempfile::tempdir().unwrap();
    let export = work.path().join("export");
    let claude = fixture_home(CLAUDE_HOME.0, CLAUDE_HOME.1, CLAUDE_HOME.2);
    let out = trajhost(
        data.path(),
        &[
            "convert",
            "61ec73f4",
            "--home",
            claude.to_str().unwrap(),
            "--to",
            "opencode",
            "--out",
            export.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let home = work.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let out = trajhost(data.path(), &["prepare", export.to_str().unwrap(), "--home", home.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let listed =
        trajhost(data.path(), &["sessions", "--home", home.to_str().unwrap(), "--harness", "opencode", "--json"]);
    let sessions: Vec<serde_json::Value> = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(sessions.len(), 1, "{}", stdout(&listed));
    let document = std::path::PathBuf::from(sessions[0]["path"].as_str().unwrap());
    copy_reads_alike(data.path(), "opencode", &document, "sent-by-a-colleague.json", "");
}

#[test]
fn a_loose_file_is_read_by_the_codec_its_content_selects() {
    let (data, home) = toys();
    let elsewhere = tempfile::tempdir().unwrap();
    for (name, codec) in [("old.jsonl", "toy@1.0.0"), ("moved.jsonl", "toy@2.0.0")] {
        let in_place = summary_of(&trajhost(
            data.path(),
            &["read", home.path().join("toy").join(name).to_str().unwrap(), "--json"],
        ));
        let copy = elsewhere.path().join(name);
        std::fs::copy(home.path().join("toy").join(name), &copy).unwrap();
        let loose = summary_of(&trajhost(data.path(), &["read", copy.to_str().unwrap(), "--json"]));
        assert_eq!(
            loose["codec"], codec,
            "{name}: sniffed by the newest toy codec, read by the one its version selects"
        );
        assert_eq!(loose["snapshot_id"], in_place["snapshot_id"], "{name}");
    }
    let stranger = elsewhere.path().join("stranger.jsonl");
    std::fs::write(&stranger, "{\"hello\":1}\n").unwrap();
    let out = trajhost(data.path(), &["read", stranger.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("no codec recognizes its content; pass --harness"), "{}", stderr(&out));
}

#[test]
fn sessions_names_files_it_cannot_place_after_the_table_and_as_json_lines() {
    let (data, home) = toys();
    let notes = home.path().join("toy/notes.txt").canonicalize().unwrap();
    let out = trajhost(data.path(), &["sessions", "--home", home.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("HARNESS") && stdout(&out).contains("fresh"), "{}", stdout(&out));
    assert!(!stdout(&out).contains("notes.txt"), "stdout is the table alone");
    assert_eq!(
        stderr_lines(&out),
        [format!("warning: toy: {}: not-a-session not a .jsonl file ×1 (toy@1.0.0)", notes.display())]
    );

    let out = trajhost(data.path(), &["sessions", "--home", home.path().to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let sessions: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("stdout is still one array");
    assert_eq!(sessions.len(), 3);
    let lines: Vec<serde_json::Value> = stderr_lines(&out).iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(
        lines,
        [serde_json::json!({
            "kind": "diagnostic", "harness": "toy", "codec": "toy@1.0.0", "code": "not-a-session", "severity": "warning",
            "detail": "not a .jsonl file", "count": 1, "file": "toy/notes.txt", "offset": null, "path": notes,
        })]
    );
}

#[test]
fn a_codec_that_traps_in_discover_exits_4_and_the_other_harnesses_still_list() {
    let (data, home) = toys();
    merge_tree(&fixture_home(CLAUDE_HOME.0, CLAUDE_HOME.1, CLAUDE_HOME.2), home.path());
    std::fs::write(home.path().join("toy/panic.trap"), b"").unwrap();
    let out = trajhost(data.path(), &["sessions", "--home", home.path().to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let sessions: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let mut listed: Vec<&str> = sessions.iter().map(|s| s["harness"].as_str().unwrap()).collect();
    listed.sort();
    assert_eq!(listed, ["claude-code", "toy"], "claude-code and toy@2.0.0's folder still list");
    let failures: Vec<serde_json::Value> = stderr(&out)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|l| l["kind"] == "discovery-failure")
        .collect();
    assert_eq!(failures.len(), 1, "{}", stderr(&out));
    assert_eq!((&failures[0]["harness"], &failures[0]["exit_code"]), (&"toy".into(), &4.into()));
    assert!(failures[0]["error"].as_str().unwrap().contains("toy@1.0.0 trapped during discover"), "{}", failures[0]);

    let out = trajhost(data.path(), &["sessions", "--home", home.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4));
    assert!(stdout(&out).contains("claude-code"), "{}", stdout(&out));
    assert!(
        stderr(&out).lines().any(|l| l.starts_with("error: toy: discovery failed: codec toy@1.0.0 trapped")),
        "{}",
        stderr(&out)
    );
}

#[test]
fn read_by_id_shows_the_discovery_failures_it_met() {
    let (data, home) = toys();
    std::fs::write(home.path().join("toy/loop.trap"), b"").unwrap();
    let out =
        trajhost(data.path(), &["--limit-time", "1", "read", "no-such-id", "--home", home.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let text = stderr(&out);
    assert!(text.contains("no session \"no-such-id\""), "{text}");
    assert!(text.contains("toy: discovery failed: codec toy@1.0.0 exceeded its time limit"), "{text}");
}

#[test]
fn traps_exit_4_in_read_plugin_test_and_convert() {
    let (data, home) = toys();
    std::fs::write(
        home.path().join("toy/bomb.jsonl"),
        "{\"v\":\"1.0.0\",\"role\":\"user\",\"text\":\"hi\"}\n{\"v\":\"1.0.0\",\"role\":\"panic\"}\n",
    )
    .unwrap();
    let bomb = home.path().join("toy/bomb.jsonl");
    let out = trajhost(data.path(), &["read", bomb.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains("toy@1.0.0 trapped during read"), "{}", stderr(&out));

    let out = trajhost(
        data.path(),
        &["plugin", "test", guest("trajhost-toy-v1").to_str().unwrap(), home.path().to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(4), "{}\n{}", stdout(&out), stderr(&out));
    assert!(format!("{}{}", stdout(&out), stderr(&out)).contains("trapped during read"), "{}", stdout(&out));
    let quiet = tempfile::tempdir().unwrap();
    let out = trajhost(
        data.path(),
        &["plugin", "test", guest("trajhost-toy-v1").to_str().unwrap(), quiet.path().to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "an empty home is no failure: {}", stdout(&out));

    let export = tempfile::tempdir().unwrap();
    let out_dir = export.path().join("export");
    let out = trajhost(
        data.path(),
        &["convert", bomb.to_str().unwrap(), "--to", "codex", "--out", out_dir.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains("toy@1.0.0 trapped during read"), "{}", stderr(&out));
}

#[test]
fn convert_without_a_cwd_names_the_flag() {
    let (data, home) = toys();
    let old = home.path().join("toy/old.jsonl");
    let export = tempfile::tempdir().unwrap();
    let out_dir = export.path().join("export");
    let out = trajhost(
        data.path(),
        &["convert", old.to_str().unwrap(), "--to", "claude-code", "--out", out_dir.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stderr(&out);
    assert!(text.contains("pass --cwd DIR") && text.contains("toy old records none"), "{text}");
    assert!(!text.contains("write-options"), "{text}");
    let retry_dir = export.path().join("retry");
    let out = trajhost(
        data.path(),
        &[
            "convert",
            old.to_str().unwrap(),
            "--to",
            "claude-code",
            "--out",
            retry_dir.to_str().unwrap(),
            "--cwd",
            "/home/user/project",
        ],
    );
    assert!(out.status.success(), "with --cwd it converts: {}", stderr(&out));
}

#[test]
fn prepare_into_a_missing_home_says_so() {
    let data = tempfile::tempdir().unwrap();
    let home = fixture_home(CLAUDE_HOME.0, CLAUDE_HOME.1, CLAUDE_HOME.2);
    let work = tempfile::tempdir().unwrap();
    let export = work.path().join("export");
    let out = trajhost(
        data.path(),
        &["convert", "61ec73f4", "--home", home.to_str().unwrap(), "--to", "codex", "--out", export.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let missing = work.path().join("no-such-home");
    let out = trajhost(data.path(), &["prepare", export.to_str().unwrap(), "--home", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(text.contains(&format!("target home {} does not exist", missing.display())), "{text}");
    assert!(!text.contains("No such file or directory"), "{text}");
    assert!(!missing.exists(), "prepare created nothing");
}

#[test]
fn a_first_use_says_which_codec_it_compiles() {
    let data = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_trajhost"))
            .args(["--data-dir", data.path().to_str().unwrap(), "--cache-dir", cache.path().to_str().unwrap()])
            .args(args)
            .env_remove("TRAJHOST_CACHE_DIR")
            .output()
            .unwrap()
    };
    // Listing the built-ins compiles none of them.
    let listing = run(&["plugin", "list"]);
    assert!(listing.status.success(), "{}", stderr(&listing));
    let listed = stdout(&listing).lines().filter(|l| l.contains("built-in")).count();
    assert!(listed > 1, "{}", stdout(&listing));
    assert_eq!(stderr(&listing), "", "listing compiles nothing and says nothing");
    // Reading a Claude Code session compiles its codec, and says so.
    let home = fixture_home("claude-code", "2.1.197", "simple");
    let read = || run(&["read", "61ec73f4", "--home", home.to_str().unwrap(), "--json"]);
    let first = read();
    assert!(first.status.success(), "{}", stderr(&first));
    assert_eq!(stderr(&first).lines().collect::<Vec<_>>(), ["compiling claude-code@0.1.0 (first use)…"]);
    let second = read();
    assert!(second.status.success());
    assert_eq!(stderr(&second), "", "a warm cache compiles nothing and says nothing");
}

#[test]
fn a_trap_in_prepare_exits_4_and_installs_nothing() {
    let (data, home) = toys();
    let old = home.path().join("toy/old.jsonl");
    let work = tempfile::tempdir().unwrap();
    let target = work.path().join("target-home");
    std::fs::create_dir(&target).unwrap();
    for (cwd, code) in [("/panic", 4), ("/home/user/project", 0)] {
        let export = work.path().join(format!("export{}", cwd.replace('/', "-")));
        let out = trajhost(
            data.path(),
            &["convert", old.to_str().unwrap(), "--to", "toy", "--cwd", cwd, "--out", export.to_str().unwrap()],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let out = trajhost(data.path(), &["prepare", export.to_str().unwrap(), "--home", target.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(code), "cwd {cwd}: {}", stderr(&out));
        if code == 4 {
            assert!(stderr(&out).contains("toy@2.0.0 trapped during prepare"), "{}", stderr(&out));
            assert_eq!(std::fs::read_dir(&target).unwrap().count(), 0, "nothing installed");
        }
    }
    // The working plan installed the session where toy 2.x keeps them.
    let installed = std::fs::read_to_string(target.join("toy2/old.jsonl")).unwrap();
    assert!(installed.contains("hello from old") && installed.contains("\"v\":\"2.0.0\""), "{installed}");
}
