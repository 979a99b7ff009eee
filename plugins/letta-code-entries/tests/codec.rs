//! What is particular to the schema-2 codec, against conversations written
//! by the real `letta` CLI 0.32.18's local backend
//! (fixtures/letta-code/0.32.18): it discovers schema 2 only, so the
//! schema-1 codec and it list each conversation once; its declared ranges.
//! What every codec must do is the testkit's suite, in tests/conformance.rs.

use std::path::{Path, PathBuf};

use serde_json::Value;
use trajhost_codec_letta_code_entries::{Format, LettaCodeEntries, discover};
use trajhost_codec_sdk::Codec;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_testkit::{self as kit, observations_of};

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
fn it_writes_for_the_releases_from_schema_2() {
    assert_eq!(<LettaCodeEntries as Codec>::WRITES_FOR, ">=0.30.28, <1.0.0", "from the first release with schema 2");
}

#[test]
fn discover_lists_each_schema_2_conversation_and_the_schema_1_codec_none() {
    for (name, _) in SCENARIOS {
        let home = home(name);
        // The suite checks this codec's discovery. Letta Code stamps the
        // manifest and the session header from two clock reads: within a
        // few ms.
        let header = kit::raw_lines(&home.join(LOCATOR)).remove(0);
        let manifest = json_of(&home.join(CONV_DIR).join("manifest.json"));
        assert_eq!(manifest["created_at"].as_str().unwrap()[..19], header["timestamp"].as_str().unwrap()[..19]);
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

/// The injected reminder names the version.
#[test]
fn the_system_reminder_names_the_version() {
    for (name, _) in SCENARIOS {
        let read = kit::read::<LettaCodeEntries>(&home(name), LOCATOR);
        assert!(
            observations_of(&read.records, "system-reminder")[0].contains("Letta Code version**: 0.32.18"),
            "{name}"
        );
    }
}
