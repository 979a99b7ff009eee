//! The conformance lab from the Rust suite: a real Claude Code CLI resumes a
//! fixture whose tool result was changed. Installing harness CLIs takes
//! minutes and needs root namespaces, so this runs only with
//! `TRAJHOST_LAB=1`; CI runs the whole lab through `tests/lab/ci`.

use std::process::Command;

use crate::common::repo_root;

#[test]
fn lab_loader_check_on_a_claude_code_fixture() {
    if std::env::var_os("TRAJHOST_LAB").is_none() {
        eprintln!("SKIP lab_loader_check_on_a_claude_code_fixture: set TRAJHOST_LAB=1 (CI runs tests/lab/ci instead)");
        return;
    }
    let root = repo_root();
    let out = Command::new("python3")
        .arg(root.join("tests/lab/run"))
        .args(["check", "claude-code"])
        .arg(root.join("fixtures/claude-code/2.1.197/simple"))
        .args(["--mutate", "PAPAYA-42=MANGO-077"])
        .output()
        .expect("running tests/lab/run");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{text}");
    assert!(text.contains("PASS"), "{text}");
}
