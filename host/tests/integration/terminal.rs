//! Text from an untrusted session reaches a terminal with its control
//! characters escaped; JSON output keeps it exact.

use crate::common::*;

const ID: &str = "61ec73f4-b0bb-4d28-a8cc-bfda17c07ec0";
/// A clear-screen sequence, put into the cwd (an OSC title change goes into the text).
const CLEAR: &str = "\u{1b}[2J";

fn hostile_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let from = fixture_home("claude-code", "2.1.197", "simple");
    let rel = format!(".claude/projects/-home-user-project/{ID}.jsonl");
    let text = std::fs::read_to_string(from.join(&rel)).unwrap();
    assert!(text.contains("PAPAYA-42") && text.contains("\"cwd\":\"/home/user/project\""));
    let text = text
        .replace("PAPAYA-42", "PAPAYA\\u001b]0;pwned\\u0007-42")
        .replace("\"cwd\":\"/home/user/project\"", "\"cwd\":\"/home/user/\\u001b[2Jproject\"");
    let path = home.path().join(&rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    home
}

fn assert_no_raw_controls(what: &str, text: &str) {
    let raw: Vec<char> = text.chars().filter(|c| c.is_control() && *c != '\n' && *c != '\t').collect();
    assert!(raw.is_empty(), "{what}: raw control characters {raw:?} in {text:?}");
}

#[test]
fn session_text_is_escaped_on_the_terminal_and_exact_in_json() {
    let home = hostile_home();
    let data = tempfile::tempdir().unwrap();
    let home_arg = home.path().to_str().unwrap();

    let transcript = trajhost(data.path(), &["read", ID, "--home", home_arg]);
    assert!(transcript.status.success(), "{}", stderr(&transcript));
    let text = stdout(&transcript);
    assert_no_raw_controls("read", &text);
    assert!(text.contains("PAPAYA\\u{1b}]0;pwned\\u{7}-42"), "escaped, not dropped: {text}");

    let table = trajhost(data.path(), &["sessions", "--home", home_arg]);
    assert!(table.status.success(), "{}", stderr(&table));
    assert_no_raw_controls("sessions", &stdout(&table));
    assert!(stdout(&table).contains("/home/user/\\u{1b}[2Jproject"), "{}", stdout(&table));

    // JSON keeps the text exact: the decoded strings hold the control characters.
    let json = trajhost(data.path(), &["read", ID, "--home", home_arg, "--json"]);
    assert!(json.status.success());
    let exact = stdout(&json).lines().any(|line| {
        serde_json::from_str::<serde_json::Value>(line)
            .is_ok_and(|v| v.to_string().contains("PAPAYA\\u001b]0;pwned\\u0007-42"))
    });
    assert!(exact, "the JSON records keep the escape sequence");
    let listed = trajhost(data.path(), &["sessions", "--home", home_arg, "--json"]);
    let sessions: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(sessions[0]["cwd"].as_str(), Some(format!("/home/user/{CLEAR}project").as_str()));
}
