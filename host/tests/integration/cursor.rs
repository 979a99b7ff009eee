//! Cursor through the CLI, with its codec installed from the plugin file (it
//! is not built in): a lab Claude Code session converted to Cursor's AgentKv
//! store, prepared into both store locations of a fresh home, read back; the
//! tested-version gate and the provider refusal; an archive-only chat that
//! needs `--lossy`.

use std::path::{Path, PathBuf};

use crate::common::*;

const TESTED: &str = "2026.10.01-e373342";

fn data_dir_with_cursor() -> tempfile::TempDir {
    let data = tempfile::tempdir().unwrap();
    let file = Path::new(trajhost::registry::builtin::PLUGIN_FILES_DIR).join("cursor-2026.10.01.wasm");
    let install = trajhost(data.path(), &["plugin", "install", file.to_str().unwrap()]);
    assert!(install.status.success(), "{}", stderr(&install));
    data
}

/// A target home where the tested cursor-agent is installed the way its installer does it.
fn home_with_cursor_agent(version: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".local/share/cursor-agent/versions").join(version)).unwrap();
    home
}

fn prepare(data: &Path, export: &Path, home: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["prepare", export.to_str().unwrap(), "--home", home.to_str().unwrap()];
    args.extend_from_slice(extra);
    trajhost(data, &args)
}

#[test]
fn a_lab_claude_code_session_converts_to_cursor_and_installs_into_both_store_locations() {
    let data = data_dir_with_cursor();
    let out = tempfile::tempdir().unwrap();
    let (export, manifest) = convert_claude_fixture(data.path(), out.path(), "cursor");
    assert_eq!(manifest["target"]["codec"], "cursor@0.1.0", "{manifest}");
    let losses = manifest["fidelity"]["not_carried"].as_array().unwrap();
    for loss in losses.iter().filter(|l| l["found_by"] == "read-back") {
        let what = loss["what"].as_str().unwrap();
        let declared =
            losses.iter().any(|l| l["found_by"] == "target codec" && l["what"].as_str().unwrap().contains(what));
        assert!(declared, "{what} was lost without the Cursor codec declaring it: {manifest}");
    }
    // (Assistant records may merge: an empty-text record before a tool call is not a value.)
    for kind in ["user", "tool_call", "tool_result"] {
        assert_eq!(
            manifest["fidelity"]["source_kinds"][kind], manifest["fidelity"]["target_kinds"][kind],
            "{kind}: {manifest}"
        );
    }

    let target = home_with_cursor_agent(TESTED);
    let before = tree_hashes(target.path());
    let prepared = prepare(data.path(), &export, target.path(), &["--model", "claude-4.5-sonnet", "--json"]);
    assert!(prepared.status.success(), "{}", stderr(&prepared));
    let plan: serde_json::Value = serde_json::from_slice(&prepared.stdout).unwrap();
    // The plugin file is an installed codec: no lab run of it is in the ledger, so the codec's own check passing
    // is not a verification.
    assert_eq!(plan["verified"], false, "{plan}");
    assert!(plan["verified_reason"].as_str().unwrap().contains("installed codec"), "{plan}");
    assert_eq!(plan["untested"], serde_json::Value::Null, "{plan}");
    let id = plan["native_id"].as_str().unwrap();
    let created: Vec<PathBuf> =
        tree_hashes(target.path()).into_keys().filter(|p| !before.contains_key(p)).collect::<Vec<_>>();
    let chat = format!(".cursor/chats/{}/{id}", md5_hex("/home/user/project"));
    let expected: Vec<PathBuf> = [
        format!(".cursor/acp-sessions/{id}/meta.json"),
        format!(".cursor/acp-sessions/{id}/store.db"),
        format!("{chat}/meta.json"),
        format!("{chat}/store.db"),
    ]
    .into_iter()
    .map(PathBuf::from)
    .collect();
    assert_eq!(created, expected, "prepare creates both stores and nothing else");
    let command = plan["resume_command"].as_str().unwrap();
    assert!(
        command.contains(&format!("cursor-agent --resume {id}")) && command.contains("/home/user/project"),
        "{command}"
    );

    // The installed store reads back with the conversation (listed once: chats/ wins over acp-sessions/).
    let read = trajhost(data.path(), &["read", id, "--home", target.path().to_str().unwrap(), "--json"]);
    assert!(read.status.success(), "{}", stderr(&read));
    let text = stdout(&read);
    for needle in ["Read hello.txt and tell me the secret word.", "Hello from the lab workspace", "NOTOOL ANSWER"] {
        assert!(text.contains(needle), "{needle} missing: {text}");
    }

    // A second prepare of the same export is refused and changes nothing.
    let snapshot = tree_hashes(target.path());
    let again = prepare(data.path(), &export, target.path(), &[]);
    assert!(!again.status.success());
    assert_eq!(tree_hashes(target.path()), snapshot, "a refused prepare changed the target");
}

#[test]
fn prepare_gates_on_the_tested_cursor_version_and_refuses_a_provider() {
    let data = data_dir_with_cursor();
    let out = tempfile::tempdir().unwrap();
    let (export, _) = convert_claude_fixture(data.path(), out.path(), "cursor");

    // No cursor-agent in the home, or another version: refused, naming both and the flag.
    for home in [tempfile::tempdir().unwrap(), home_with_cursor_agent("2026.11.05-aaaaaaa")] {
        let before = tree_hashes(home.path());
        let refused = prepare(data.path(), &export, home.path(), &[]);
        assert!(!refused.status.success());
        let message = stderr(&refused);
        assert!(message.contains(TESTED) && message.contains("--allow-untested"), "{message}");
        assert_eq!(tree_hashes(home.path()), before);
    }
    let home = home_with_cursor_agent("2026.11.05-aaaaaaa");
    let allowed = prepare(data.path(), &export, home.path(), &["--allow-untested", "--json"]);
    assert!(allowed.status.success(), "{}", stderr(&allowed));
    let plan: serde_json::Value = serde_json::from_slice(&allowed.stdout).unwrap();
    assert_eq!(plan["verified"], false, "{plan}");
    assert_eq!(plan["untested"]["found"], "2026.11.05-aaaaaaa", "{plan}");
    assert_eq!(plan["untested"]["tested"], TESTED, "{plan}");
    let other = home_with_cursor_agent("2026.11.05-aaaaaaa");
    let text = prepare(data.path(), &export, other.path(), &["--allow-untested"]);
    let text = stdout(&text);
    assert!(text.contains("not verified: ") && text.contains("the target runs 2026.11.05-aaaaaaa"), "{text}");

    // Cursor has no provider selector: a provider is refused, not dropped.
    let home = home_with_cursor_agent(TESTED);
    let before = tree_hashes(home.path());
    let refused = prepare(data.path(), &export, home.path(), &["--provider", "anthropic"]);
    assert!(!refused.status.success());
    assert!(stderr(&refused).contains("provider"), "{}", stderr(&refused));
    assert_eq!(tree_hashes(home.path()), before);
}

#[test]
fn an_archive_only_cursor_chat_is_listed_as_not_portable_and_converts_only_with_lossy() {
    let data = data_dir_with_cursor();
    let home = repo_root().join("fixtures/cursor/2026.10.01/home");
    let sessions = trajhost(data.path(), &["sessions", "--home", home.to_str().unwrap()]);
    assert!(sessions.status.success(), "{}", stderr(&sessions));
    let row = stdout(&sessions).lines().find(|l| l.contains("1c8f4a5b")).map(str::to_string).unwrap_or_default();
    assert!(row.starts_with("cursor") && row.contains("not portable"), "{}", stdout(&sessions));

    let out = tempfile::tempdir().unwrap();
    let export = out.path().join("export");
    let args = [
        "convert",
        "1c8f4a5b",
        "--home",
        home.to_str().unwrap(),
        "--to",
        "claude-code",
        "--out",
        export.to_str().unwrap(),
    ];
    let refused = trajhost(data.path(), &args);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("not-portable") && stderr(&refused).contains("--lossy"), "{}", stderr(&refused));
    assert!(!export.exists());
    let mut lossy = args.to_vec();
    lossy.push("--lossy");
    let converted = trajhost(data.path(), &lossy);
    assert!(converted.status.success(), "{}", stderr(&converted));
    assert!(stdout(&converted).contains("dropped (--lossy): not-portable"), "{}", stdout(&converted));
}

fn md5_hex(text: &str) -> String {
    trajhost_codec_sdk::hash::md5_hex(text.as_bytes())
}
