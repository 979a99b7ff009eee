//! `trajhost completions SHELL` and `trajhost man`.

use crate::common::*;

#[test]
fn bash_completions_load_in_bash_and_complete_subcommands_and_flags() {
    let data = tempfile::tempdir().unwrap();
    let out = trajhost(data.path(), &["completions", "bash"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let script = data.path().join("trajhost.bash");
    std::fs::write(&script, &out.stdout).unwrap();
    let complete = |words: &str, cword: usize| {
        let program = format!(
            "source {}; COMP_WORDS=({words}); COMP_CWORD={cword}; COMP_LINE='{words}'; COMP_POINT=${{#COMP_LINE}}; _trajhost trajhost \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display()
        );
        let run = std::process::Command::new("bash").arg("--norc").arg("-c").arg(program).output().unwrap();
        assert!(run.status.success(), "bash: {}", String::from_utf8_lossy(&run.stderr));
        String::from_utf8_lossy(&run.stdout).lines().map(str::to_string).collect::<Vec<_>>()
    };
    let subcommands = complete("trajhost con", 1);
    assert!(subcommands.contains(&"convert".to_string()), "{subcommands:?}");
    assert!(subcommands.contains(&"continue".to_string()), "{subcommands:?}");
    assert!(!subcommands.contains(&"sessions".to_string()), "{subcommands:?}");
    let flags = complete("trajhost prepare --target-v", 2);
    assert_eq!(flags, vec!["--target-version".to_string()]);
}

#[test]
fn every_shell_gets_a_script_and_the_manual_names_every_command() {
    let data = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = trajhost(data.path(), &["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        assert!(stdout(&out).contains("continue"), "{shell}");
    }
    let man = trajhost(data.path(), &["man"]);
    assert!(man.status.success(), "{}", stderr(&man));
    let page = stdout(&man);
    assert!(page.starts_with(".ie") || page.contains(".TH trajhost"), "{page}");
    for command in ["sessions", "convert", "prepare", "continue", "sync", "plugin"] {
        assert!(page.contains(command), "{command} missing from the manual");
    }
}
