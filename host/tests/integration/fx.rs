//! fx through the CLI: a lab Claude Code session converted to fx's legacy
//! `session.json`, read back, and installed into a fresh home; fx's own
//! schema-4 sessions with their artifacts, and a missing artifact.

use crate::common::*;

#[test]
fn a_lab_claude_code_session_converts_to_fx_reads_back_and_installs() {
    let data = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let (export, manifest) = convert_claude_fixture(data.path(), out.path(), "fx");
    assert_eq!(manifest["target"]["codec"], "fx@0.1.0", "{manifest}");
    // Every value carried over, or the fx codec said it would not carry it.
    let losses = manifest["fidelity"]["not_carried"].as_array().unwrap();
    let measured: Vec<&str> =
        losses.iter().filter(|l| l["found_by"] == "read-back").map(|l| l["what"].as_str().unwrap()).collect();
    for what in &measured {
        let declared =
            losses.iter().any(|l| l["found_by"] == "target codec" && l["what"].as_str().unwrap().contains(what));
        assert!(declared, "{what} was lost without the fx codec declaring it: {manifest}");
    }
    // (Assistant records may merge: an empty-text record before a tool call is not a value.)
    for kind in ["user", "tool_call", "tool_result"] {
        assert_eq!(
            manifest["fidelity"]["source_kinds"][kind], manifest["fidelity"]["target_kinds"][kind],
            "{kind}: {manifest}"
        );
    }

    let target = tempfile::tempdir().unwrap();
    let prepared =
        trajhost(data.path(), &["prepare", export.to_str().unwrap(), "--home", target.path().to_str().unwrap()]);
    assert!(prepared.status.success(), "{}", stderr(&prepared));
    let files: Vec<_> = tree_hashes(target.path()).into_keys().collect();
    let id = manifest["target"]["native_id"].as_str().unwrap();
    assert_eq!(files, [std::path::PathBuf::from(format!(".fx/sessions/{id}/session.json"))], "creates one file only");
    assert!(stdout(&prepared).contains(&format!("fx resume {id}")), "{}", stdout(&prepared));

    // The installed session reads back with the source's conversation.
    let read = trajhost(data.path(), &["read", id, "--home", target.path().to_str().unwrap(), "--json"]);
    assert!(read.status.success(), "{}", stderr(&read));
    let text = stdout(&read);
    assert!(text.contains("Read hello.txt and tell me the secret word."), "{text}");
    assert!(text.contains("Hello from the lab workspace"), "{text}");

    // Model and provider go before `resume`; a second prepare is refused.
    let other = tempfile::tempdir().unwrap();
    let prepared = trajhost(
        data.path(),
        &[
            "prepare",
            export.to_str().unwrap(),
            "--home",
            other.path().to_str().unwrap(),
            "--provider",
            "gateway",
            "--model",
            "openai/gpt-5",
            "--json",
        ],
    );
    assert!(prepared.status.success(), "{}", stderr(&prepared));
    let plan: serde_json::Value = serde_json::from_slice(&prepared.stdout).unwrap();
    let command = plan["resume_command"].as_str().unwrap();
    assert!(command.contains(&format!("fx --provider gateway --model openai/gpt-5 resume {id}")), "{command}");
    let before = tree_hashes(other.path());
    let again = trajhost(data.path(), &["prepare", export.to_str().unwrap(), "--home", other.path().to_str().unwrap()]);
    assert!(!again.status.success());
    assert_eq!(tree_hashes(other.path()), before, "a refused prepare changes nothing");
}

#[test]
fn schema_4_sessions_read_their_results_from_artifacts_and_a_missing_one_fails() {
    let data = tempfile::tempdir().unwrap();
    let home = repo_root().join("fixtures/fx/schema-4/home");
    let read = trajhost(data.path(), &["read", "Qk9zX2VmZ3Ix", "--home", home.to_str().unwrap(), "--json"]);
    assert!(read.status.success(), "{}", stderr(&read));
    let records: Vec<serde_json::Value> = stdout(&read).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let longest = records
        .iter()
        .filter(|r| r["kind"] == "tool_result")
        .map(|r| r["content"].as_str().unwrap().len())
        .max()
        .unwrap();
    assert!(longest > 4096, "the full artifact body, not the 4 KiB preview: {longest}");

    let broken = repo_root().join("fixtures/fx/schema-4-missing-artifact/home");
    let read = trajhost(data.path(), &["read", "missing-artifact", "--home", broken.to_str().unwrap()]);
    assert!(!read.status.success());
    let message = stderr(&read);
    assert!(message.contains("tool-results/"), "the error names the missing artifact: {message}");
}
