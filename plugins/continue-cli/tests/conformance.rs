//! The testkit's conformance suite over the sessions the real Continue CLI
//! 1.5.47 (`cn`) wrote (fixtures/continue-cli/1.5.47: simple, parallel,
//! failing-tool, multibyte, long-output), as conformance.json says. A
//! session is one JSON document (byte spans; its history items the raw
//! records, typed by `message.role`) listed in `sessions.json`: prepare
//! appends an entry there. The store keeps no times.

use std::path::Path;

use serde_json::Value;
use trajhost_codec_continue_cli::{ContinueCli, KNOWN_ROLES};
use trajhost_codec_testkit::suite::Suite;

/// The history items of the session's document.
fn items(home: &Path, locator: &str) -> Vec<Value> {
    let doc: Value = serde_json::from_slice(&std::fs::read(home.join(locator)).unwrap()).unwrap();
    doc["history"].as_array().expect("history").clone()
}

fn role(item: &Value) -> Vec<String> {
    vec![item["message"]["role"].as_str().unwrap_or("(no role)").to_string()]
}

const SUITE: Suite =
    Suite { table: include_str!("conformance.json"), types: KNOWN_ROLES, kind_of: role, raw: items, ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(ContinueCli, SUITE);
