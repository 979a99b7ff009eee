//! `trajhost browse` driven in a real terminal (tmux): the list shows every
//! harness's sessions, `/` narrows to the one whose tool result holds a
//! word, Enter shows its transcript, `c` continues it in another harness,
//! `q` restores the terminal, and a hostile title stays text.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::*;

const CLAUDE_ID: &str = "61ec73f4-b0bb-4d28-a8cc-bfda17c07ec0";
const HOSTILE_ID: &str = "0badc0de-0000-4000-8000-000000000001";

struct Tmux {
    name: String,
}

impl Tmux {
    fn start(command: &str) -> Tmux {
        let name = format!("trajhost-browse-{}", std::process::id());
        let status = Command::new("tmux")
            .args(["new-session", "-d", "-s", &name, "-x", "200", "-y", "50", command])
            .status()
            .unwrap();
        assert!(status.success(), "tmux new-session failed");
        Tmux { name }
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.name];
        args.extend_from_slice(keys);
        assert!(Command::new("tmux").args(&args).status().unwrap().success());
    }

    fn screen(&self) -> String {
        let out = Command::new("tmux").args(["capture-pane", "-p", "-t", &self.name]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen once it shows `text` (within 60 s), else a failure showing it.
    fn wait_for(&self, text: &str) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(started.elapsed() < Duration::from_secs(60), "waited for {text:?}; the screen:\n{screen}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").args(["kill-session", "-t", &self.name]).status();
    }
}

/// A home with Claude Code, Codex and Gemini CLI sessions, one Codex tool
/// result holding `KUMQUAT-77`, and a Claude Code session whose title holds
/// terminal escape sequences.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    copy_tree(&fixture_home("claude-code", "2.1.197", "simple"), home.path());
    copy_tree(&fixture_home("gemini-cli", "0.61.0", "simple"), home.path());
    let codex = tempfile::tempdir().unwrap();
    copy_tree(&fixture_home("codex", "0.171.0", "simple"), codex.path());
    replace_in_tree(codex.path(), "PAPAYA-42", "KUMQUAT-77");
    copy_tree(codex.path(), home.path());
    let project = home.path().join(".claude/projects/-home-user-project");
    let original = std::fs::read_to_string(project.join(format!("{CLAUDE_ID}.jsonl"))).unwrap();
    let hostile = original.replace(CLAUDE_ID, HOSTILE_ID).replace(
        "Read hello.txt and tell me the secret word.",
        "\\u001b]0;PWNED\\u0007\\u001b[2J\\u001b[31mEVIL title",
    );
    std::fs::write(project.join(format!("{HOSTILE_ID}.jsonl")), hostile).unwrap();
    home
}

fn replace_in_tree(dir: &Path, from: &str, to: &str) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            replace_in_tree(&path, from, to);
        } else if let Ok(text) = std::fs::read_to_string(&path) {
            std::fs::write(&path, text.replace(from, to)).unwrap();
        }
    }
}

#[test]
fn browse_lists_searches_opens_continues_and_quits_in_a_real_terminal() {
    if Command::new("tmux").arg("-V").output().is_err() {
        // .ci/run installs tmux, so CI always runs this.
        println!("SKIP browse in tmux: tmux is not installed (apt install tmux)");
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let home = home();
    let target = tempfile::tempdir().unwrap();
    let synced = trajhost(data.path(), &["sync", "--home", home.path().to_str().unwrap()]);
    assert!(synced.status.success(), "{}", stderr(&synced));

    let command = format!(
        "TRAJHOST_CACHE_DIR={} {} --data-dir {} browse --home {} --target-home {}; echo EXITED-$?; sleep 60",
        shared_cache().display(),
        env!("CARGO_BIN_EXE_trajhost"),
        data.path().display(),
        home.path().display(),
        target.path().display()
    );
    let tui = Tmux::start(&command);
    let screen = tui.wait_for("4 sessions, 4 shown (archive)");
    for harness in ["claude-code", "codex", "gemini-cli"] {
        assert!(screen.contains(harness), "{harness} missing:\n{screen}");
    }
    // The hostile title is shown as text: its escapes are visible, and none reached the terminal.
    assert!(screen.contains("EVIL title"), "{screen}");
    assert!(screen.contains(r"\u{1b}"), "the escape character is not shown escaped:\n{screen}");

    // Full-text search narrows to the session whose tool result holds the word.
    tui.keys(&["/"]);
    tui.wait_for("search the full text");
    tui.keys(&["KUMQUAT", "Enter"]);
    let screen = tui.wait_for("4 sessions, 1 shown");
    assert!(screen.contains("codex"), "{screen}");
    assert!(!screen.contains("gemini-cli    "), "{screen}");

    // Enter opens the transcript with the word (the tool result, unfolded with t).
    tui.keys(&["Enter"]);
    tui.wait_for("transcript (t: unfold)");
    tui.keys(&["t"]);
    let screen = tui.wait_for("transcript (t: fold)");
    assert!(screen.contains("KUMQUAT-77"), "{screen}");
    tui.keys(&["q"]);
    tui.wait_for("↑↓ move");

    // c continues it in the harness chosen: a letter jumps to the first harness it starts (Claude Code).
    tui.keys(&["c"]);
    let screen = tui.wait_for("continue in");
    assert!(screen.contains("claude-code"), "{screen}");
    tui.keys(&["c", "Enter"]);
    let screen = tui.wait_for("Prepared. Resume with:");
    assert!(screen.contains("claude --resume"), "{screen}");
    let installed: Vec<_> = tree_hashes(target.path()).into_keys().collect();
    assert!(
        installed.iter().any(|p| p.starts_with(".claude/projects") && p.extension().is_some_and(|e| e == "jsonl")),
        "nothing installed: {installed:?}"
    );
    tui.keys(&["Escape"]);
    tui.wait_for("↑↓ move");

    // q quits and gives the terminal back.
    tui.keys(&["q"]);
    let screen = tui.wait_for("EXITED-0");
    assert!(!screen.contains("sessions, 1 shown"), "the alternate screen was not left:\n{screen}");
}
