//! The testkit's conformance suite over the conversations the real
//! `openhands` CLI wrote (fixtures/openhands/1.16.0), as conformance.json
//! says. A checkout does not keep the files' times, so discover may not
//! recover the local offset: the lab ran in UTC either way.

use std::path::Path;

use serde_json::Value;
use trajhost_codec_openhands::{KNOWN_EVENT_KINDS, OpenHands};
use trajhost_codec_testkit::suite::Suite;

/// The events of a conversation, one JSON file each, in order.
fn events(home: &Path, locator: &str) -> Vec<Value> {
    let dir = home.join(locator).with_file_name("events");
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.retain(|f| f.file_name().unwrap().to_string_lossy().starts_with("event-"));
    files.sort();
    files.iter().map(|f| serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap()).collect()
}

fn kind(event: &Value) -> Vec<String> {
    vec![event["kind"].as_str().unwrap_or("(no kind)").to_string()]
}

const SUITE: Suite = Suite {
    table: include_str!("conformance.json"),
    types: KNOWN_EVENT_KINDS,
    raw: events,
    kind_of: kind,
    ..Suite::DEFAULT
};

trajhost_codec_testkit::conformance_suite!(OpenHands, SUITE);
