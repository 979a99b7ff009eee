//! `convert` + `prepare`: Claude Code ↔ Codex through the CLI, with the
//! fidelity report, refusal to overwrite, dry runs and untouched sources.

use std::path::Path;

use crate::common::*;

fn session_file(home: &Path) -> String {
    let out = trajhost(home, &["sessions", "--home", home.to_str().unwrap(), "--json"]);
    let sessions: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    sessions[0]["path"].as_str().unwrap().to_string()
}

/// Converts a fixture and prepares it into a fresh home; returns the home.
fn convert_and_prepare(
    harness: &str,
    version: &str,
    to: &str,
) -> (tempfile::TempDir, serde_json::Value, serde_json::Value) {
    let data = tempfile::tempdir().unwrap();
    let fixture = fixture_home(harness, version, "simple");
    // Work on a copy: the conversion must not depend on where the store is.
    let source = tempfile::tempdir().unwrap();
    copy_tree(&fixture, source.path());
    let before = tree_hashes(source.path());
    let file = session_file(source.path());
    let out = data.path().join("export");

    let converted = trajhost(data.path(), &["convert", &file, "--to", to, "--out", out.to_str().unwrap(), "--json"]);
    assert!(converted.status.success(), "convert: {}", stderr(&converted));
    let manifest: serde_json::Value = serde_json::from_slice(&converted.stdout).unwrap();
    assert_eq!(before, tree_hashes(source.path()), "convert wrote into the source store");

    let target = tempfile::tempdir().unwrap();
    let dry = trajhost(
        data.path(),
        &["prepare", out.to_str().unwrap(), "--home", target.path().to_str().unwrap(), "--dry-run", "--json"],
    );
    assert!(dry.status.success(), "dry run: {}", stderr(&dry));
    assert!(tree_hashes(target.path()).is_empty(), "a dry run changed the target");

    let prepared =
        trajhost(data.path(), &["prepare", out.to_str().unwrap(), "--home", target.path().to_str().unwrap(), "--json"]);
    assert!(prepared.status.success(), "prepare: {}", stderr(&prepared));
    let plan: serde_json::Value = serde_json::from_slice(&prepared.stdout).unwrap();

    // Installing again never overwrites the session.
    let snapshot = tree_hashes(target.path());
    let again = trajhost(data.path(), &["prepare", out.to_str().unwrap(), "--home", target.path().to_str().unwrap()]);
    assert!(!again.status.success(), "a second prepare must be refused");
    assert!(stderr(&again).contains("already exists") || stderr(&again).contains("exist"), "{}", stderr(&again));
    assert_eq!(snapshot, tree_hashes(target.path()), "a refused prepare changed the target");
    (target, manifest, plan)
}

/// Reads the installed session back through trajhost and returns all text.
fn installed_text(home: &Path, harness: &str) -> String {
    let data = tempfile::tempdir().unwrap();
    let out = trajhost(data.path(), &["sessions", "--home", home.to_str().unwrap(), "--harness", harness, "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let sessions: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    let read = trajhost(data.path(), &["read", sessions[0]["path"].as_str().unwrap(), "--json"]);
    assert!(read.status.success(), "{}", stderr(&read));
    stdout(&read)
}

#[test]
fn claude_code_to_codex_and_back() {
    let (codex_home, manifest, plan) = convert_and_prepare("claude-code", "2.1.197", "codex");
    assert_eq!(manifest["target"]["harness"], "codex");
    assert!(["value-lossless", "semantic"].contains(&manifest["fidelity"]["tier"].as_str().unwrap()), "{manifest}");
    assert!(plan["resume_command"].as_str().unwrap().contains("codex"), "{plan}");
    let text = installed_text(codex_home.path(), "codex");
    for needle in ["Read hello.txt and tell me the secret word.", "cat hello.txt", "PAPAYA-42", "FINAL ANSWER"] {
        assert!(text.contains(needle), "{needle} missing after Claude Code → Codex");
    }

    // And back again: Codex → Claude Code keeps the same essentials.
    let data = tempfile::tempdir().unwrap();
    let file = session_file(codex_home.path());
    let out = data.path().join("back");
    let converted =
        trajhost(data.path(), &["convert", &file, "--to", "claude-code", "--out", out.to_str().unwrap(), "--json"]);
    assert!(converted.status.success(), "{}", stderr(&converted));
    let target = tempfile::tempdir().unwrap();
    let prepared =
        trajhost(data.path(), &["prepare", out.to_str().unwrap(), "--home", target.path().to_str().unwrap()]);
    assert!(prepared.status.success(), "{}", stderr(&prepared));
    assert!(stdout(&prepared).contains("claude -p --resume"), "{}", stdout(&prepared));
    let text = installed_text(target.path(), "claude-code");
    for needle in ["Read hello.txt and tell me the secret word.", "cat hello.txt", "PAPAYA-42", "FINAL ANSWER"] {
        assert!(text.contains(needle), "{needle} missing after Claude Code → Codex → Claude Code");
    }
}

#[test]
fn codex_to_claude_code() {
    let (home, manifest, _) = convert_and_prepare("codex", "0.171.0", "claude-code");
    let losses: Vec<&str> =
        manifest["fidelity"]["not_carried"].as_array().unwrap().iter().map(|l| l["what"].as_str().unwrap()).collect();
    assert!(!losses.contains(&"tool call") && !losses.contains(&"user text"), "essentials lost: {losses:?}");
    let text = installed_text(home.path(), "claude-code");
    for needle in ["cat hello.txt", "PAPAYA-42", "FINAL ANSWER"] {
        assert!(text.contains(needle), "{needle} missing after Codex → Claude Code");
    }
}

#[test]
fn a_nonempty_export_directory_is_refused() {
    let data = tempfile::tempdir().unwrap();
    let fixture = fixture_home("claude-code", "2.1.197", "simple");
    let out = data.path().join("busy");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("keep.txt"), "mine").unwrap();
    let converted =
        trajhost(data.path(), &["convert", &session_file(&fixture), "--to", "codex", "--out", out.to_str().unwrap()]);
    assert_eq!(converted.status.code(), Some(1));
    assert!(stderr(&converted).contains("not empty"), "{}", stderr(&converted));
    assert_eq!(std::fs::read_to_string(out.join("keep.txt")).unwrap(), "mine");
}

/// A conversion that fails (here: the session records no cwd and Claude Code
/// needs one) leaves no partial export: the directory it made is gone, an
/// empty one it was given stays empty, and a retry with `--cwd` succeeds.
#[test]
fn a_failed_conversion_leaves_no_partial_export() {
    let data = tempfile::tempdir().unwrap();
    let install = trajhost(data.path(), &["plugin", "install", guest("trajhost-toy-v1").to_str().unwrap()]);
    assert!(install.status.success(), "{}", stderr(&install));
    let home = toy_home(&[("nocwd", "1.2.0")]);
    let out = tempfile::tempdir().unwrap();
    let made = out.path().join("export");
    let args = |dir: &std::path::Path| {
        vec![
            "convert".to_string(),
            "nocwd".into(),
            "--home".into(),
            home.path().display().to_string(),
            "--to".into(),
            "claude-code".into(),
            "--out".into(),
            dir.display().to_string(),
        ]
    };
    let run = |args: Vec<String>| trajhost(data.path(), &args.iter().map(String::as_str).collect::<Vec<_>>());
    let failed = run(args(&made));
    assert!(!failed.status.success(), "converting a session without a cwd to Claude Code must fail");
    assert!(stderr(&failed).contains("--cwd"), "{}", stderr(&failed));
    assert!(!made.exists(), "the partial export was left behind");
    let given = out.path().join("given");
    std::fs::create_dir(&given).unwrap();
    assert!(!run(args(&given)).status.success());
    assert_eq!(std::fs::read_dir(&given).unwrap().count(), 0, "the given directory is left empty");
    let mut retry = args(&given);
    retry.extend(["--cwd".into(), "/work/toy".into()]);
    let ok = run(retry);
    assert!(ok.status.success(), "{}", stderr(&ok));
    assert!(given.join("export.json").is_file());
}

/// A model or provider the target codec never asks for is refused at
/// prepare, not silently dropped; the export records the convert-time choice.
#[test]
fn a_model_choice_the_target_codec_cannot_apply_is_refused() {
    let data = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let export = out.path().join("export");
    let home = fixture_home("claude-code", "2.1.197", "simple");
    let args = [
        "convert",
        "61ec73f4",
        "--home",
        home.to_str().unwrap(),
        "--to",
        "codex",
        "--model",
        "gpt-5-codex",
        "--out",
        export.to_str().unwrap(),
    ];
    let convert = trajhost(data.path(), &args);
    assert!(convert.status.success(), "{}", stderr(&convert));
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(export.join("export.json")).unwrap()).unwrap();
    assert_eq!(manifest["target_choice"]["model"], "gpt-5-codex", "{manifest}");
    assert_eq!(manifest["target_choice"]["applied_in_write"], false);

    let target = tempfile::tempdir().unwrap();
    let before = tree_hashes(target.path());
    let prepare =
        trajhost(data.path(), &["prepare", export.to_str().unwrap(), "--home", target.path().to_str().unwrap()]);
    assert!(!prepare.status.success());
    let message = stderr(&prepare);
    assert!(
        message.contains("does not take a model or provider choice") && message.contains("gpt-5-codex"),
        "{message}"
    );
    assert_eq!(tree_hashes(target.path()), before, "a refused prepare changes nothing");

    // Without a choice the same export installs.
    let mut manifest = manifest;
    manifest.as_object_mut().unwrap().remove("target_choice");
    std::fs::write(export.join("export.json"), serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
    let prepare =
        trajhost(data.path(), &["prepare", export.to_str().unwrap(), "--home", target.path().to_str().unwrap()]);
    assert!(prepare.status.success(), "{}", stderr(&prepare));
}

/// The lab's `simple` Claude Code session, copied, with its lines edited by
/// `edit` (the session file's lines in, the new lines out).
fn edited_claude_session(edit: impl FnOnce(Vec<String>) -> Vec<String>) -> (tempfile::TempDir, String) {
    let home = tempfile::tempdir().unwrap();
    copy_tree(&fixture_home("claude-code", "2.1.197", "simple"), home.path());
    let file = session_file(home.path());
    let lines: Vec<String> = std::fs::read_to_string(&file).unwrap().lines().map(str::to_string).collect();
    let edited = edit(lines);
    std::fs::write(&file, edited.join("\n") + "\n").unwrap();
    (home, file)
}

/// `convert FILE --to codex`, plain and with `--lossy`: the refusal's
/// message, and the manifest of the lossy export.
fn convert_refused_then_lossy(file: &str) -> (String, serde_json::Value) {
    let data = tempfile::tempdir().unwrap();
    let out = data.path().join("export");
    let refused = trajhost(data.path(), &["convert", file, "--to", "codex", "--out", out.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(!out.exists(), "a refused conversion leaves no export");
    let lossy =
        trajhost(data.path(), &["convert", file, "--to", "codex", "--out", out.to_str().unwrap(), "--lossy", "--json"]);
    assert!(lossy.status.success(), "{}", stderr(&lossy));
    (stderr(&refused), serde_json::from_slice(&lossy.stdout).unwrap())
}

#[test]
fn the_portability_gate_refuses_a_tool_call_without_its_result() {
    // The session ends at the tool call (the harness stopped before the tool returned).
    let (_home, file) = edited_claude_session(|mut lines| {
        let call = lines.iter().position(|l| l.contains("\"tool_use\"")).unwrap();
        lines.truncate(call + 1);
        lines
    });
    let (message, manifest) = convert_refused_then_lossy(&file);
    assert!(
        message.contains("tool-call-without-result: Bash (toolu_lab_65f8015b64d24b4d82c5)")
            && message.contains("--lossy"),
        "{message}"
    );
    let dropped = manifest["not_portable"].as_array().unwrap();
    assert_eq!(dropped.len(), 1, "{manifest}");
    assert!(dropped[0].as_str().unwrap().starts_with("tool-call-without-result"), "{manifest}");
}

/// Claude Code's interrupt marker as a user line with `uuid`, child of `parent`.
fn interrupt_marker(prompt_line: &str, uuid: &str, parent: &str) -> String {
    let mut marker: serde_json::Value = serde_json::from_str(prompt_line).unwrap();
    marker["message"]["content"] = "[Request interrupted by user]".into();
    marker["uuid"] = uuid.into();
    marker["parentUuid"] = parent.into();
    marker.to_string()
}

fn uuid_of(line: &str) -> String {
    serde_json::from_str::<serde_json::Value>(line).unwrap()["uuid"].as_str().unwrap().to_string()
}

#[test]
fn the_portability_gate_refuses_a_session_whose_last_turn_was_interrupted() {
    let prompt_of = |lines: &[String]| {
        lines.iter().position(|l| l.contains("[notool]") && l.contains("\"type\":\"user\"")).unwrap()
    };
    let (_home, file) = edited_claude_session(|mut lines| {
        // Claude Code's interrupt marker as the last line, after the last answer.
        let last = lines.iter().rposition(|l| l.contains("\"uuid\"")).unwrap();
        let marker =
            interrupt_marker(&lines[prompt_of(&lines)], "0b0b0b0b-0000-4000-8000-000000000001", &uuid_of(&lines[last]));
        lines.push(marker);
        lines
    });
    let (message, manifest) = convert_refused_then_lossy(&file);
    assert!(message.contains("interrupted-turn: the last turn was interrupted mid-way"), "{message}");
    assert_eq!(
        manifest["not_portable"],
        serde_json::json!(["interrupted-turn: the last turn was interrupted mid-way"])
    );

    // An interrupt followed by more conversation is history, not a cut-off turn.
    let (_home, file) = edited_claude_session(|mut lines| {
        let prompt = prompt_of(&lines);
        let mut next: serde_json::Value = serde_json::from_str(&lines[prompt]).unwrap();
        let parent = next["parentUuid"].as_str().unwrap().to_string();
        let marker_uuid = "0b0b0b0b-0000-4000-8000-000000000002";
        next["parentUuid"] = marker_uuid.into();
        let marker = interrupt_marker(&lines[prompt], marker_uuid, &parent);
        lines[prompt] = next.to_string();
        lines.insert(prompt, marker);
        lines
    });
    let data = tempfile::tempdir().unwrap();
    let out = data.path().join("export");
    let converted = trajhost(data.path(), &["convert", &file, "--to", "codex", "--out", out.to_str().unwrap()]);
    assert!(converted.status.success(), "{}", stderr(&converted));
}

#[test]
fn the_portability_gate_refuses_a_branch_left_unchosen() {
    let (_home, file) = edited_claude_session(|mut lines| {
        // A rewind: the first prompt edited, hanging off the same parent.
        let first = lines.iter().position(|l| l.contains("\"type\":\"user\"") && l.contains("secret word.\"")).unwrap();
        let rewound = lines[first]
            .replace("Read hello.txt and tell me the secret word.", "Actually, read world.txt instead.")
            .replacen("\"uuid\":\"", "\"uuid\":\"1", 1);
        lines.push(rewound);
        lines
    });
    let (message, manifest) = convert_refused_then_lossy(&file);
    assert!(message.contains("unchosen-branch: a branch Claude Code no longer resumes"), "{message}");
    assert!(manifest["not_portable"][0].as_str().unwrap().starts_with("unchosen-branch"), "{manifest}");
}

#[test]
fn the_portability_gate_refuses_reasoning_the_target_cannot_hold() {
    let (_home, file) = edited_claude_session(|mut lines| {
        let call = lines.iter().position(|l| l.contains("\"tool_use\"")).unwrap();
        let mut line: serde_json::Value = serde_json::from_str(&lines[call]).unwrap();
        let content = line["message"]["content"].as_array_mut().unwrap();
        content.insert(
            0,
            serde_json::json!({"type": "thinking", "thinking": "The file will tell me.", "signature": "c2ln"}),
        );
        lines[call] = line.to_string();
        lines
    });
    // fx's history has no place for reasoning.
    let data = tempfile::tempdir().unwrap();
    let out = data.path().join("export");
    let refused = trajhost(data.path(), &["convert", &file, "--to", "fx", "--out", out.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("untranslated-reasoning"), "{}", stderr(&refused));
    let lossy = trajhost(data.path(), &["convert", &file, "--to", "fx", "--out", out.to_str().unwrap(), "--lossy"]);
    assert!(lossy.status.success(), "{}", stderr(&lossy));
    assert!(stdout(&lossy).contains("dropped (--lossy): untranslated-reasoning"), "{}", stdout(&lossy));
    // Codex holds Claude's reasoning text: no refusal.
    let out = data.path().join("export-codex");
    let codex = trajhost(data.path(), &["convert", &file, "--to", "codex", "--out", out.to_str().unwrap()]);
    assert!(codex.status.success(), "{}", stderr(&codex));
}

#[test]
fn the_portability_gate_refuses_a_pending_approval() {
    let home = tempfile::tempdir().unwrap();
    copy_tree(&fixture_home("kimi-cli", "1.51.0", "simple"), home.path());
    let wire = std::fs::read_dir(home.path().join(".kimi/sessions"))
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .map(|d| d.unwrap().path().join("wire.jsonl"))
        .find(|p| p.is_file())
        .unwrap();
    let mut text = std::fs::read_to_string(&wire).unwrap();
    text.push_str(r#"{"timestamp": 1796015700.0, "message": {"type": "ApprovalRequest", "payload": {"id": "req-1", "tool_call_id": "call_x", "sender": "Shell", "action": "run shell command", "description": "rm -rf build"}}}"#);
    text.push('\n');
    std::fs::write(&wire, text).unwrap();
    let listed = trajhost(home.path(), &["sessions", "--home", home.path().to_str().unwrap(), "--json"]);
    let sessions: Vec<serde_json::Value> = serde_json::from_slice(&listed.stdout).unwrap();
    let file = sessions[0]["path"].as_str().unwrap().to_string();
    let data = tempfile::tempdir().unwrap();
    let out = data.path().join("export");
    let refused = trajhost(
        data.path(),
        &["convert", &file, "--harness", "kimi-cli", "--to", "claude-code", "--out", out.to_str().unwrap()],
    );
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("pending-approval: an approval request was never answered"),
        "{}",
        stderr(&refused)
    );
}

/// The fidelity report compares the conversation in order: a writer that
/// swaps two messages is caught as `reordered`, and the tier drops.
#[test]
fn a_reordering_writer_is_reported_and_drops_the_tier() {
    let data = tempfile::tempdir().unwrap();
    for package in ["trajhost-toy-v1", "trajhost-toy-v2", "trajhost-toy-reorder"] {
        let install = trajhost(data.path(), &["plugin", "install", guest(package).to_str().unwrap()]);
        assert!(install.status.success(), "{package}: {}", stderr(&install));
    }
    let home = toy_home(&[("ordered", "1.2.0")]);
    let convert = |codec: &str, out: &str| {
        let out = data.path().join(out);
        let args = [
            "convert",
            "ordered",
            "--home",
            home.path().to_str().unwrap(),
            "--to",
            "toy",
            "--codec",
            codec,
            "--out",
            out.to_str().unwrap(),
            "--json",
        ];
        let run = trajhost(data.path(), &args);
        assert!(run.status.success(), "{codec}: {}", stderr(&run));
        serde_json::from_slice::<serde_json::Value>(&run.stdout).unwrap()
    };
    let swapped = convert("toy@3.0.0", "swapped");
    let losses: Vec<&str> =
        swapped["fidelity"]["not_carried"].as_array().unwrap().iter().map(|l| l["what"].as_str().unwrap()).collect();
    assert_eq!(losses.len(), 1, "{swapped}");
    assert!(
        losses[0].starts_with(
            "reordered: from step 1 of the conversation, the source has user text where the target has assistant text"
        ),
        "{losses:?}"
    );
    assert_eq!(swapped["fidelity"]["tier"], "semantic", "{swapped}");
    // The same records written in order: nothing lost, nothing reordered.
    let kept = convert("toy@2.0.0", "kept");
    assert_eq!(kept["fidelity"]["not_carried"], serde_json::json!([]), "{kept}");
    assert_eq!(kept["fidelity"]["tier"], "value-lossless", "{kept}");
}

/// A session of the real OpenCode 0.5.29 (one assistant message whose parts
/// are several model steps) converted to Codex: the rollout holds the call,
/// then its output, then the answer, as OpenCode produced them.
#[test]
fn an_opencode_0_5_session_keeps_call_result_answer_order_in_the_codex_rollout() {
    let data = tempfile::tempdir().unwrap();
    let home = fixture_home("opencode", "0.5.29", "simple");
    let listed = trajhost(data.path(), &["sessions", "--home", home.to_str().unwrap(), "--json"]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    let sessions: Vec<serde_json::Value> = serde_json::from_slice(&listed.stdout).unwrap();
    let id = sessions[0]["native_id"].as_str().unwrap();
    let out = data.path().join("export");
    let converted = trajhost(
        data.path(),
        &["convert", id, "--home", home.to_str().unwrap(), "--to", "codex", "--out", out.to_str().unwrap(), "--json"],
    );
    assert!(converted.status.success(), "convert: {}", stderr(&converted));
    let manifest: serde_json::Value = serde_json::from_slice(&converted.stdout).unwrap();
    let lost: Vec<&str> = manifest["fidelity"]["not_carried"]
        .as_array()
        .map(|l| l.iter().filter_map(|x| x["what"].as_str()).collect())
        .unwrap_or_default();
    assert!(!lost.iter().any(|w| w.starts_with("reordered")), "{lost:?}");
    // The rollout's response items, in file order.
    let rollout = tree_hashes(&out)
        .into_keys()
        .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("rollout-")))
        .map(|p| out.join(p))
        .expect("a rollout in the export");
    let mut order = Vec::new();
    for line in std::fs::read_to_string(&rollout).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let payload = &v["payload"];
        match (v["type"].as_str(), payload["type"].as_str(), payload["role"].as_str()) {
            (Some("response_item"), Some("function_call"), _) => order.push("call"),
            (Some("response_item"), Some("function_call_output"), _) => order.push("result"),
            (Some("response_item"), Some("message"), Some("assistant")) => order.push("answer"),
            _ => {}
        }
    }
    let first_call = order.iter().position(|k| *k == "call").expect("a call");
    let first_result = order.iter().position(|k| *k == "result").expect("a result");
    let last_answer = order.iter().rposition(|k| *k == "answer").expect("an answer");
    assert!(first_call < first_result && first_result < last_answer, "{order:?}");
    assert_eq!(order.last(), Some(&"answer"), "the answer comes last: {order:?}");
}
