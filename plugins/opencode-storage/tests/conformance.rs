//! The testkit's conformance suite over the sessions the real OpenCode
//! 0.5.29 wrote in its per-project tree (fixtures/opencode/0.5.29: simple,
//! parallel and multibyte), as conformance.json says. A session is a file
//! beside folders of message and part files (byte spans; those files the
//! raw records, typed `message/<role>` and `part/<type>`).

use std::path::Path;

use serde_json::{Value, json};
use trajhost_codec_opencode_storage::{KNOWN_RECORD_TYPES, OpenCodeStorage};
use trajhost_codec_testkit::suite::Suite;

/// The JSON files of a folder, by name (none when it is missing).
fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(dir).map(|d| d.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
    out.sort();
    out
}

fn json_of(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// The session's message files, each followed by its part files, typed.
fn messages_and_parts(home: &Path, locator: &str) -> Vec<Value> {
    let info = home.join(locator);
    let id = info.file_stem().unwrap().to_str().unwrap();
    let tree = info.parent().unwrap().parent().unwrap();
    let mut out = Vec::new();
    for message in files(&tree.join("message").join(id)) {
        let m = json_of(&message);
        out.push(json!({"type": format!("message/{}", m["role"].as_str().unwrap_or("?"))}));
        let message_id = message.file_stem().unwrap();
        for part in files(&tree.join("part").join(id).join(message_id)) {
            out.push(json!({"type": format!("part/{}", json_of(&part)["type"].as_str().unwrap_or("?"))}));
        }
    }
    out
}

const SUITE: Suite = Suite {
    table: include_str!("conformance.json"),
    types: KNOWN_RECORD_TYPES,
    raw: messages_and_parts,
    ..Suite::DEFAULT
};

trajhost_codec_testkit::conformance_suite!(OpenCodeStorage, SUITE);
