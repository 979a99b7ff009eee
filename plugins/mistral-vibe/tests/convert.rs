//! Sessions of other harnesses (the lab's `simple` fixtures of Claude Code
//! and Codex) written as Vibe sessions and prepared into a fresh home: the
//! conversation survives, and the model context has the shape the
//! chat-completions API accepts (every tool call answered by a tool
//! message before the next message).

use serde_json::Value;
use trajhost_codec_claude_code::ClaudeCode;
use trajhost_codec_codex::Codex;
use trajhost_codec_mistral_vibe::MistralVibe;
use trajhost_codec_testkit::suite;
use trajhost_codec_testkit::{self as kit, Spans, assistant_texts, tool_calls, tool_results, users};

const CWD: &str = "/home/user/project";

fn convert(read: &kit::Read) -> (tempfile::TempDir, String, kit::Read) {
    suite::convert_into::<MistralVibe>(read, CWD, |id| format!(".vibe/logs/session/unified/{id}/CURRENT"), Spans::Bytes)
}

#[test]
fn claude_code_and_codex_sessions_carry_their_conversation() {
    for (harness, read) in [
        ("claude-code", kit::simple_session::<ClaudeCode>("claude-code", "2.1.197")),
        ("codex", kit::simple_session::<Codex>("codex", "0.171.0")),
    ] {
        let (home, id, back) = convert(&read);
        assert!(!users(&read.records).is_empty(), "{harness}: the source has prompts");
        assert_eq!(users(&back.records), users(&read.records), "{harness}");
        let names =
            |r: &kit::Read| tool_calls(&r.records).iter().map(|c| (c.1.to_string(), c.2.clone())).collect::<Vec<_>>();
        assert!(!names(&read).is_empty(), "{harness}: the source has calls");
        assert_eq!(names(&back), names(&read), "{harness}");
        let results = |r: &kit::Read| tool_results(&r.records).iter().map(|t| t.1.to_string()).collect::<Vec<_>>();
        assert_eq!(results(&back), results(&read), "{harness}");
        let answers = |r: &kit::Read| {
            assistant_texts(&r.records).into_iter().filter(|t| !t.is_empty()).map(str::to_string).collect::<Vec<_>>()
        };
        assert_eq!(answers(&back), answers(&read), "{harness}");
        assert_eq!(back.meta().cwd.as_deref(), Some(CWD));
        // The items: each assistant message with calls is followed by one tool message per call.
        let folder = home.path().join(".vibe/logs/session/unified").join(&id);
        let mut items: Vec<Value> = Vec::new();
        for chunk in std::fs::read_dir(folder.join("chunks")).unwrap() {
            items.extend(serde_json::from_slice::<Vec<Value>>(&std::fs::read(chunk.unwrap().path()).unwrap()).unwrap());
        }
        for (n, item) in items.iter().enumerate() {
            let calls: Vec<&str> = item["message"]["content"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|p| p["type"] == "tool_call")
                .map(|p| p["id"].as_str().unwrap())
                .collect();
            for (k, call) in calls.iter().enumerate() {
                let next = &items[n + 1 + k]["message"];
                assert_eq!(next["role"], "tool", "{harness}: the result follows its call");
                assert_eq!(next["tool_call_id"], *call, "{harness}");
            }
        }
    }
}
