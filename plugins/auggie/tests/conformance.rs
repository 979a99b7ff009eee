//! The testkit's conformance suite over the sessions the real Auggie 0.36.0
//! wrote (fixtures/auggie/0.36.0: simple, parallel, failing-tool, multibyte,
//! long-output), as conformance.json says. A session is one JSON document
//! (byte spans); its raw records are the `chatHistory` exchanges, typed by
//! their nodes (`request/text`, `response/tool_use`, …). Prompts carry no
//! time: an exchange records none for its request.

use std::path::Path;

use serde_json::Value;
use trajhost_codec_auggie::{Auggie, KNOWN_NODES};
use trajhost_codec_testkit::suite::Suite;

/// The exchanges of the session's document.
fn exchanges(home: &Path, locator: &str) -> Vec<Value> {
    let doc: Value = serde_json::from_slice(&std::fs::read(home.join(locator)).unwrap()).unwrap();
    doc["chatHistory"].as_array().expect("chatHistory").clone()
}

/// The node types of one exchange, request then response.
fn kinds(entry: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for side in ["request", "response"] {
        for node in entry["exchange"][format!("{side}_nodes")].as_array().into_iter().flatten() {
            let name = match (side, node["type"].as_i64()) {
                ("request", Some(0)) => "text".to_string(),
                ("request", Some(1)) => "tool_result".to_string(),
                ("request", Some(4)) => "ide_state".to_string(),
                ("response", Some(0)) => "text".to_string(),
                ("response", Some(5)) => "tool_use".to_string(),
                (_, other) => format!("{other:?}"),
            };
            out.push(format!("{side}/{name}"));
        }
    }
    out
}

const SUITE: Suite = Suite {
    table: include_str!("conformance.json"),
    types: KNOWN_NODES,
    kind_of: kinds,
    raw: exchanges,
    ..Suite::DEFAULT
};

trajhost_codec_testkit::conformance_suite!(Auggie, SUITE);
