//! Sessions of other harnesses (the lab's `simple` fixtures of Claude Code
//! and Codex) written as Kilo Code import documents and prepared into a
//! fresh home seeded with a Kilo config (as the lab's matrix seeds it): the
//! conversation survives, and the document is what `kilo import` loads
//! (every tool call answered in its part, Kilo's agent, the config's model).
//! With `KILO_CODE_KEEP_CONVERTED=DIR` the homes are kept in `DIR/<harness>`
//! for the lab's loader check (`tests/lab/run check kilo-code DIR/<harness>`).

use std::path::Path;

use serde_json::Value;
use trajhost_codec_claude_code::ClaudeCode;
use trajhost_codec_codex::Codex;
use trajhost_codec_kilo_code::KiloCode;
use trajhost_codec_kilo_code::layout::IMPORT_DIR;
use trajhost_codec_kilo_code::prepare::CONFIG;
use trajhost_codec_sdk::WriteOptions;
use trajhost_codec_testkit::suite::{self, apply_files, options_for};
use trajhost_codec_testkit::{self as kit, Spans, conversation};

const CWD: &str = "/home/user/project";

/// Writes `read` as a Kilo Code session, prepares it into a fresh home and
/// reads the prepared document back; the home is returned with the plan's session id.
fn convert(read: &kit::Read) -> (tempfile::TempDir, String, kit::Read) {
    let written = suite::write::<KiloCode>(&read.document, WriteOptions { cwd: Some(CWD.into()), ..options_for(None) });
    let target = tempfile::tempdir().unwrap();
    let config = target.path().join(CONFIG);
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, r#"{"model": "fake/fake-model"}"#).unwrap();
    let plan = suite::prepare_in::<KiloCode>(&written, target.path(), Some(CWD)).unwrap();
    apply_files(&plan, &written, target.path());
    let back =
        kit::conformance::<KiloCode>(target.path(), &format!("{IMPORT_DIR}/{}.json", plan.native_id), Spans::Rows);
    (target, plan.native_id, back)
}

#[test]
fn claude_code_and_codex_sessions_carry_their_conversation() {
    for (harness, read) in [
        ("claude-code", kit::simple_session::<ClaudeCode>("claude-code", "2.1.197")),
        ("codex", kit::simple_session::<Codex>("codex", "0.171.0")),
    ] {
        let (home, id, back) = convert(&read);
        // What the resumed model is sent: prompts, calls, results, answers.
        assert_eq!(conversation(&back.records), conversation(&read.records), "{harness}");
        assert_eq!(back.meta().cwd.as_deref(), Some(CWD));
        assert_eq!(back.meta().native_version.as_deref(), Some("7.7.7"));
        let doc: Value =
            serde_json::from_slice(&std::fs::read(home.path().join(format!("{IMPORT_DIR}/{id}.json"))).unwrap())
                .unwrap();
        for message in doc["messages"].as_array().unwrap() {
            let info = &message["info"];
            assert_eq!(info["agent"], "code", "{harness}");
            if info["role"] == "user" {
                assert_eq!(info["model"]["providerID"], "fake", "{harness}: the config's model");
            }
            for part in message["parts"].as_array().unwrap().iter().filter(|p| p["type"] == "tool") {
                assert_eq!(part["state"]["status"], "completed", "{harness}: every call answered in its part");
            }
        }
        if let Some(keep) = std::env::var_os("KILO_CODE_KEEP_CONVERTED") {
            kit::copy_dir(home.path(), &Path::new(&keep).join(harness));
        }
    }
}
