//! The testkit's conformance suite over the trajectories the real `mini`
//! 2.4.6 wrote (fixtures/mini-swe-agent/2.4.6), as conformance.json says. A
//! trajectory is one JSON document: its records are its `messages` (kind:
//! their `role`), spans their bytes. mini has no resume: the write parts
//! are skipped.

use std::path::Path;

use serde_json::Value;
use trajhost_codec_mini_swe_agent::{KNOWN_ROLES, MiniSweAgent};
use trajhost_codec_testkit::suite::{Suite, role_member};

/// The document's messages.
fn messages(home: &Path, locator: &str) -> Vec<Value> {
    let doc: Value = serde_json::from_slice(&std::fs::read(home.join(locator)).unwrap()).unwrap();
    doc["messages"].as_array().cloned().unwrap_or_default()
}

const SUITE: Suite = Suite {
    table: include_str!("conformance.json"),
    types: KNOWN_ROLES,
    raw: messages,
    kind_of: role_member,
    ..Suite::DEFAULT
};

trajhost_codec_testkit::conformance_suite!(MiniSweAgent, SUITE);
