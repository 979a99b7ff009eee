//! Sessions of other harnesses (the lab's `simple` fixtures of Claude Code
//! and Codex) written as Continue CLI sessions and prepared into a fresh
//! home: the conversation survives, and the document has the shape the CLI
//! resumes (every call answered in its item's `toolCallStates`).

use serde_json::Value;
use trajhost_codec_claude_code::ClaudeCode;
use trajhost_codec_codex::Codex;
use trajhost_codec_continue_cli::ContinueCli;
use trajhost_codec_continue_cli::layout::INDEX;
use trajhost_codec_testkit::suite;
use trajhost_codec_testkit::{self as kit, Spans, assistant_texts, tool_calls, tool_results, users};

const CWD: &str = "/home/user/project";

/// Writes `read` as a Continue CLI session, prepares it into a fresh home and
/// reads it back; the home is returned with the plan's session id.
fn convert(read: &kit::Read) -> (tempfile::TempDir, String, kit::Read) {
    suite::convert_into::<ContinueCli>(read, CWD, |id| format!(".continue/sessions/{id}.json"), Spans::Bytes)
}

#[test]
fn claude_code_and_codex_sessions_carry_their_conversation() {
    for (harness, read) in [
        ("claude-code", kit::simple_session::<ClaudeCode>("claude-code", "2.1.197")),
        ("codex", kit::simple_session::<Codex>("codex", "0.171.0")),
    ] {
        let (home, id, back) = convert(&read);
        assert_eq!(users(&back.records), users(&read.records), "{harness}");
        let names =
            |r: &kit::Read| tool_calls(&r.records).iter().map(|c| (c.1.to_string(), c.2.clone())).collect::<Vec<_>>();
        assert_eq!(names(&back), names(&read), "{harness}");
        let results = |r: &kit::Read| tool_results(&r.records).iter().map(|t| t.1.to_string()).collect::<Vec<_>>();
        assert_eq!(results(&back), results(&read), "{harness}");
        let answers = |r: &kit::Read| {
            assistant_texts(&r.records).into_iter().filter(|t| !t.is_empty()).map(str::to_string).collect::<Vec<_>>()
        };
        assert_eq!(answers(&back), answers(&read), "{harness}");
        assert_eq!(back.meta().cwd.as_deref(), Some(CWD));
        let doc: Value =
            serde_json::from_slice(&std::fs::read(home.path().join(format!(".continue/sessions/{id}.json"))).unwrap())
                .unwrap();
        for item in doc["history"].as_array().unwrap() {
            let calls = item["message"]["toolCalls"].as_array().map_or(0, Vec::len);
            let answered =
                item["toolCallStates"].as_array().map_or(0, |s| s.iter().filter(|s| s["output"].is_array()).count());
            assert_eq!(calls, answered, "{harness}: every call answered in its item");
        }
        let index: Vec<Value> = serde_json::from_slice(&std::fs::read(home.path().join(INDEX)).unwrap()).unwrap();
        assert_eq!(index.len(), 1);
        assert_eq!(index[0]["sessionId"], id.as_str());
        if let Some(keep) = std::env::var_os("CONTINUE_CLI_KEEP_CONVERTED") {
            let to = std::path::Path::new(&keep).join(harness);
            kit::copy_dir(home.path(), &to);
        }
    }
}
