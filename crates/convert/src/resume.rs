//! The command a person types to resume a session interactively in each
//! harness (`claude --resume ID`, `codex resume ID`, …). A codec's plan
//! carries its harness's headless resume command (what the lab runs); this
//! is the interactive form `prepare` and `continue` print, and `continue`
//! starts. `docs/compatibility-notes.md` lists both per harness.

use std::path::Path;

/// The interactive resume argv for `harness` and the session `id`, if trajhost
/// knows the harness's CLI.
pub fn interactive(harness: &str, id: &str) -> Option<Vec<String>> {
    let argv: &[&str] = match harness {
        "claude-code" => &["claude", "--resume", id],
        "codex" => &["codex", "resume", id],
        "opencode" => &["opencode", "--session", id],
        "pi" => &["pi", "--session", id],
        "oh-my-pi" => &["omp", "--resume", id],
        "gemini-cli" => &["gemini", "--resume", id],
        "qwen-code" => &["qwen", "--resume", id],
        "copilot-cli" => &["copilot", "--resume", id],
        "factory-droid" => &["droid", "--resume", id],
        "kimi-cli" => &["kimi", "-r", id],
        "grok-build" => &["grok", "-r", id],
        "letta-code" => &["letta", "--backend", "local", "--conversation", id],
        "openhands" => &["openhands", "--resume", id],
        "hermes" => &["hermes", "chat", "--resume", id],
        "cline" => &["cline", "--id", id],
        "deep-agents" => &["dcode", "-r", id],
        // `cn --resume` takes the newest session file; `--fork ID` names one (into a new session id).
        "continue-cli" => &["cn", "--fork", id],
        // An OpenCode fork: the same `--session` (a prepared session is `kilo import`ed first).
        "kilo-code" => &["kilo", "--session", id],
        // The session file `~/.augment/sessions/<id>.json` by its id (`--help`: a prefix does too).
        "auggie" => &["auggie", "--resume", id],
        // The session folder `~/.vibe/logs/session/unified/<id>/` by its id.
        "mistral-vibe" => &["vibe", "--resume", id],
        // Aider names no session: its history is the workspace's `.aider.chat.history.md`, restored whole
        // (every block, the prepared one last) by `--restore-chat-history` run in that workspace (`cd <cwd>`).
        "aider" => &["aider", "--restore-chat-history"],
        // OpenClaw resumes a session only as `openclaw agent --session-id ID --message …`
        // (the codec's headless command); it has no interactive resume.
        "cursor" => &["cursor-agent", "--resume", id],
        "fx" => &["fx", "--resume", id],
        _ => return None,
    };
    Some(argv.iter().map(|s| s.to_string()).collect())
}

/// Options of a codec's resume command that the interactive one needs too:
/// what the codec sized for the session it wrote. Aider restores the whole
/// history, and the codec raises Aider's chat-history budget to its size so
/// that Aider sends it rather than a summary of it.
fn options_from_plan(harness: &str) -> &'static [&'static str] {
    match harness {
        "aider" => &["--max-chat-history-tokens"],
        _ => &[],
    }
}

/// [`interactive`], with the options of the codec's own resume command
/// (`plan_command`) that [`options_from_plan`] names put after the program.
/// Their values are single words (numbers), so splitting at spaces finds them.
pub fn interactive_for_plan(harness: &str, id: &str, plan_command: Option<&str>) -> Option<Vec<String>> {
    let mut argv = interactive(harness, id)?;
    let words: Vec<&str> = plan_command.unwrap_or_default().split_whitespace().collect();
    let mut carried = Vec::new();
    for option in options_from_plan(harness) {
        if let Some(at) = words.iter().position(|w| w == option)
            && let Some(value) = words.get(at + 1)
        {
            carried.extend([option.to_string(), value.to_string()]);
        }
    }
    argv.splice(1..1, carried);
    Some(argv)
}

/// `argv` as one shell line, run in `cwd`, with `HOME` set when the session
/// went into another home than the user's.
pub fn shell_line(argv: &[String], cwd: &Path, home: Option<&Path>) -> String {
    let mut line = format!("cd {} && ", quote(&cwd.to_string_lossy()));
    if let Some(home) = home {
        line.push_str(&format!("HOME={} ", quote(&home.to_string_lossy())));
    }
    line.push_str(&argv.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" "));
    line
}

/// A word for a POSIX shell: as it is when it is plain, else single-quoted.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ':' | '=' | '@' | '+' | ','));
    if plain { word.to_string() } else { format!("'{}'", word.replace('\'', r"'\''")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lab_harness_has_an_interactive_command() {
        for harness in [
            "claude-code",
            "codex",
            "opencode",
            "pi",
            "oh-my-pi",
            "gemini-cli",
            "qwen-code",
            "copilot-cli",
            "factory-droid",
            "kimi-cli",
            "grok-build",
            "letta-code",
            "openhands",
            "hermes",
            "cline",
            "deep-agents",
            "continue-cli",
            "kilo-code",
            "auggie",
            "mistral-vibe",
        ] {
            let argv = interactive(harness, "abc").unwrap();
            assert!(argv.last().is_some_and(|a| a == "abc"), "{harness}: {argv:?}");
        }
        assert_eq!(interactive("openclaw", "abc"), None, "openclaw has no interactive resume");
        assert_eq!(
            shell_line(&interactive("aider", "abc").unwrap(), Path::new("/w"), None),
            "cd /w && aider --restore-chat-history",
            "aider resumes the workspace's history, not an id"
        );
        assert_eq!(interactive("unknown", "abc"), None);
    }

    #[test]
    fn an_aider_resume_keeps_the_history_budget_its_codec_sized() {
        let plan = "cd /w && HOME=/h aider --max-chat-history-tokens 4096 --restore-chat-history";
        assert_eq!(
            interactive_for_plan("aider", "abc", Some(plan)).unwrap(),
            ["aider", "--max-chat-history-tokens", "4096", "--restore-chat-history"]
        );
        let small = "cd /w && aider --restore-chat-history";
        assert_eq!(interactive_for_plan("aider", "abc", Some(small)).unwrap(), ["aider", "--restore-chat-history"]);
        // Other harnesses take nothing from their codec's command.
        let codex = interactive_for_plan("codex", "abc", Some("codex --max-chat-history-tokens 9 resume abc"));
        assert_eq!(codex.unwrap(), ["codex", "resume", "abc"]);
    }

    #[test]
    fn lines_quote_what_a_shell_would_split() {
        let argv = interactive("codex", "0199-ab").unwrap();
        assert_eq!(shell_line(&argv, Path::new("/w/my project"), None), "cd '/w/my project' && codex resume 0199-ab");
        assert_eq!(
            shell_line(&argv, Path::new("/w"), Some(Path::new("/tmp/h"))),
            "cd /w && HOME=/tmp/h codex resume 0199-ab"
        );
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
    }
}
