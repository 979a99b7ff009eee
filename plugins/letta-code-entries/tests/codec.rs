//! The schema-2 codec against conversations written by the real `letta`
//! CLI 0.32.18's local backend (fixtures/letta-code/0.32.18), run natively:
//! what it discovers (schema 2 only, so the schema-1 codec and it list each
//! conversation once), what it reads, and its declared ranges.

use std::path::{Path, PathBuf};

use serde_json::Value;
use trajhost_codec_letta_code_entries::{Format, LettaCodeEntries, discover};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, CodecInfo};
use trajhost_codec_testkit::{self as kit, Spans, assistants, observations_of, tool_calls, tool_results, users};

const CONV_DIR: &str = ".letta/lc-local-backend/conversations/Y29udmVyc2F0aW9uOmxvY2FsLWNvbnYtMQ";
const LOCATOR: &str = ".letta/lc-local-backend/conversations/Y29udmVyc2F0aW9uOmxvY2FsLWNvbnYtMQ/messages.jsonl";

/// (scenario, first prompt)
const SCENARIOS: [(&str, &str); 3] = [
    ("simple", "Read hello.txt and tell me the secret word."),
    ("parallel", "Read hello.txt and second.txt and tell me both words."),
    (
        "multibyte",
        "Lies bitte unicode.txt — 読んでください 🍍, and tell me the sentinel (café with a combining acute: cafe\u{301}).",
    ),
];

fn home(scenario: &str) -> PathBuf {
    kit::fixtures("letta-code", "0.32.18").join(scenario)
}

fn json_of(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn info_describes_the_codec() {
    let info: CodecInfo = LettaCodeEntries::info();
    assert_eq!(info.harness, "letta-code");
    assert_eq!(info.codec_version, "0.1.0-entries");
    assert_eq!(info.native_versions, ">=0.25.0, <1.0.0");
    assert_eq!(info.writes, vec!["letta-code-pi-session-entry-jsonl".to_string()]);
    assert!(info.reads.contains(&"letta-code-pi-session-entry-jsonl".to_string()));
    assert_eq!(<LettaCodeEntries as Codec>::WRITES_FOR, ">=0.30.28, <1.0.0", "from the first release with schema 2");
    assert_eq!(info.session_globs, vec![".letta/lc-local-backend/conversations/*/messages.jsonl".to_string()]);
}

#[test]
fn discover_lists_each_schema_2_conversation_and_the_schema_1_codec_none() {
    for (name, prompt) in SCENARIOS {
        let home = home(name);
        let found = kit::discover::<LettaCodeEntries>(&home);
        assert_eq!(found.sessions.len(), 1, "{name}: {:?}", found.diagnostics);
        let s = &found.sessions[0];
        assert_eq!(s.native_id, "local-conv-1");
        assert_eq!(s.locator, LOCATOR);
        assert_eq!(s.native_version.as_deref(), Some("0.32.18"));
        assert_eq!(s.cwd.as_deref(), Some("/home/user/project"));
        let header = kit::raw_lines(&home.join(LOCATOR)).remove(0);
        assert_eq!(s.started_at.as_deref(), header["timestamp"].as_str(), "the session header's time");
        // (Letta Code stamps the manifest and the header from two clocks reads: within a few ms.)
        let manifest = json_of(&home.join(CONV_DIR).join("manifest.json"));
        assert_eq!(manifest["created_at"].as_str().unwrap()[..19], header["timestamp"].as_str().unwrap()[..19]);
        let title = s.title.as_deref().unwrap();
        assert!(prompt.starts_with(title.trim_end_matches('…')), "{title}");
        let one = LettaCodeEntries::inspect(&Dir::native(&home), LOCATOR).unwrap();
        assert_eq!((one.native_id, one.size), (s.native_id.clone(), s.size));
        // The schema-1 codec's discovery (the same core, schema 1) lists none of them.
        let other = discover::discover(&Dir::native(&home), Format::Messages).unwrap();
        assert!(other.sessions.is_empty(), "{name}: {:?}", other.sessions);
        let err = format!("{:?}", discover::inspect(&Dir::native(&home), LOCATOR, Format::Messages).unwrap_err());
        assert!(err.contains("letta-code@0.1.0-entries"), "{err}");
    }
    // And this codec none of a schema-1 store's.
    let old = kit::fixtures("letta-code", "0.25.9").join("simple");
    assert!(kit::discover::<LettaCodeEntries>(&old).sessions.is_empty());
    let err = format!("{:?}", LettaCodeEntries::inspect(&Dir::native(&old), LOCATOR).unwrap_err());
    assert!(err.contains("schema-1") && err.contains("letta-code@0.1.0"), "{err}");
}

#[test]
fn every_fixture_session_passes_the_testkit_checks() {
    for (name, _) in SCENARIOS {
        kit::conformance::<LettaCodeEntries>(&home(name), LOCATOR, Spans::Lines);
    }
}

#[test]
fn every_scenario_reads_prompt_tool_call_result_and_answer() {
    for (name, prompt) in SCENARIOS {
        let read = kit::read::<LettaCodeEntries>(&home(name), LOCATOR);
        assert_eq!(read.meta().codec.as_deref(), Some("letta-code@0.1.0-entries"));
        assert_eq!(read.meta().native_version.as_deref(), Some("0.32.18"));
        assert_eq!(users(&read.records)[0], prompt, "{name}");
        assert!(!tool_calls(&read.records).is_empty(), "{name}");
        assert_eq!(tool_calls(&read.records).len(), tool_results(&read.records).len(), "{name}");
        let last = assistants(&read.records).last().unwrap().text.clone();
        assert!(last.starts_with("FINAL ANSWER") || last.starts_with("NOTOOL ANSWER"), "{name}: {last}");
        assert!(observations_of(&read.records, "system-reminder")[0].contains("Letta Code version**: 0.32.18"));
        assert!(read.diagnostics.iter().all(|d| d.code != "unknown-record-type"), "{:?}", read.diagnostics);
    }
}
