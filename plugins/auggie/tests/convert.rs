//! Sessions of other harnesses (the lab's `simple` fixtures of Claude Code
//! and Codex) written as Auggie sessions and prepared into a fresh home: the
//! conversation survives, and the document has the shape the CLI resumes
//! (every tool use answered by a result node of the next exchange).

use serde_json::Value;
use trajhost_codec_auggie::Auggie;
use trajhost_codec_claude_code::ClaudeCode;
use trajhost_codec_codex::Codex;
use trajhost_codec_testkit::suite;
use trajhost_codec_testkit::{self as kit, Spans, assistant_texts, tool_calls, tool_results, users};

const CWD: &str = "/home/user/project";

/// Writes `read` as an Auggie session, prepares it into a fresh home and
/// reads it back; the home is returned with the plan's session id.
fn convert(read: &kit::Read) -> (tempfile::TempDir, String, kit::Read) {
    suite::convert_into::<Auggie>(read, CWD, |id| format!(".augment/sessions/{id}.json"), Spans::Bytes)
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
        let doc: Value =
            serde_json::from_slice(&std::fs::read(home.path().join(format!(".augment/sessions/{id}.json"))).unwrap())
                .unwrap();
        assert_eq!(doc["sessionId"], id.as_str());
        let history = doc["chatHistory"].as_array().unwrap();
        for (n, entry) in history.iter().enumerate() {
            let uses: Vec<&str> = entry["exchange"]["response_nodes"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|node| node["type"] == 5)
                .map(|node| node["tool_use"]["tool_use_id"].as_str().unwrap())
                .collect();
            if uses.is_empty() {
                continue;
            }
            let next = history.get(n + 1).unwrap_or_else(|| panic!("{harness}: a tool use in the last exchange"));
            assert_eq!(next["exchange"]["request_message"], "", "{harness}: results come in an exchange of their own");
            let answered: Vec<&str> = next["exchange"]["request_nodes"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|node| node["type"] == 1)
                .map(|node| node["tool_result_node"]["tool_use_id"].as_str().unwrap())
                .collect();
            assert_eq!(answered, uses, "{harness}: every call answered in the next exchange");
        }
        if let Some(keep) = std::env::var_os("AUGGIE_KEEP_CONVERTED") {
            let to = std::path::Path::new(&keep).join(harness);
            kit::copy_dir(home.path(), &to);
        }
    }
}
