//! The testkit's conformance suite over the sessions the real `cline`
//! 3.0.65 CLI wrote (fixtures/cline/3.0.65), as conformance.json says. A
//! session is one JSON document (byte spans, its messages the raw records,
//! typed by role) beside a manifest, listed in `sessions.db`: prepare adds
//! a row there. The ACP resume of `simple` recorded its default model.

use std::path::Path;

use serde_json::Value;
use trajhost_codec_cline::{Cline, KNOWN_ROLES};
use trajhost_codec_testkit::suite::{Suite, apply_plan, role_member};

/// The messages of the session's document.
fn messages(home: &Path, locator: &str) -> Vec<Value> {
    let doc: Value = serde_json::from_slice(&std::fs::read(home.join(locator)).unwrap()).unwrap();
    doc["messages"].as_array().expect("messages").clone()
}

const SUITE: Suite = Suite {
    table: include_str!("conformance.json"),
    types: KNOWN_ROLES,
    kind_of: role_member,
    raw: messages,
    apply: apply_plan,
};

trajhost_codec_testkit::conformance_suite!(Cline, SUITE);
