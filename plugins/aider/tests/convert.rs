//! Sessions of other harnesses (the lab's `simple` fixtures of Claude Code
//! and Codex) written as an Aider history and prepared into a workspace below
//! a fresh home: what `--restore-chat-history` gives the model (user `#### `
//! lines and replies, never `> ` lines) still holds the prompt, the folded
//! tool call, its result and the answer. With `AIDER_KEEP_CONVERTED=DIR` the
//! homes are kept in `DIR/<harness>` for the lab's loader check
//! (`tests/lab/run check aider DIR/<harness>`).

use trajhost_codec_aider::{Aider, history};
use trajhost_codec_claude_code::ClaudeCode;
use trajhost_codec_codex::Codex;
use trajhost_codec_sdk::WriteOptions;
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_testkit::suite::{self, apply_files, options_for};
use trajhost_codec_testkit::{self as kit};

/// The messages `split_chat_history_markdown` restores: `> ` lines dropped.
fn restored(text: &str) -> String {
    text.lines().filter(|l| !l.starts_with("> ") && !l.starts_with("# ")).collect::<Vec<_>>().join("\n")
}

#[test]
fn claude_code_and_codex_sessions_reach_the_restored_chat() {
    for (harness, read) in [
        ("claude-code", kit::simple_session::<ClaudeCode>("claude-code", "2.1.197")),
        ("codex", kit::simple_session::<Codex>("codex", "0.171.0")),
    ] {
        let target = tempfile::tempdir().unwrap();
        let cwd = target.path().join("project");
        let written = suite::write::<Aider>(&read.document, WriteOptions { cwd: None, ..options_for(None) });
        let plan = suite::prepare_in::<Aider>(&written, target.path(), Some(cwd.to_str().unwrap())).unwrap();
        apply_files(&plan, &written, target.path());
        let text = std::fs::read_to_string(cwd.join(history::FILE)).unwrap();
        let chat = restored(&text);
        for needle in
            ["Read hello.txt and tell me the secret word.", "[tool call ", "cat hello.txt", "PAPAYA-42", "FINAL ANSWER"]
        {
            assert!(chat.contains(needle), "{harness}: {needle:?} not restored from\n{text}");
        }
        let details: Vec<_> = written.diagnostics.iter().map(|d| d.detail.as_str()).collect();
        assert!(details.contains(&"tool_call (folded into assistant text)"), "{harness}: {details:?}");
        assert!(details.contains(&"tool_result (folded into user text)"), "{harness}: {details:?}");
        let back = kit::read::<Aider>(&cwd, history::FILE);
        assert_eq!(back.meta().native_id, plan.native_id);
        assert!(back.records.iter().any(|r| matches!(&r.body, Body::User { text, .. } if text.contains("PAPAYA-42"))));
        if let Ok(keep) = std::env::var("AIDER_KEEP_CONVERTED") {
            let dst = std::path::Path::new(&keep).join(harness).join("project");
            std::fs::create_dir_all(&dst).unwrap();
            std::fs::copy(cwd.join(history::FILE), dst.join(history::FILE)).unwrap();
        }
    }
}
