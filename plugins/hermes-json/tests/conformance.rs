//! The testkit's conformance suite over the hand-written homes
//! (fixtures/hermes/session-json: a session log, a gateway transcript and a
//! profile's log in one home; fixtures/hermes/session-export: exports of
//! state.db rows), as conformance.json says. A log is one JSON document
//! (byte spans), a gateway transcript JSON lines.

use std::path::Path;

use serde_json::Value;
use trajhost_codec_hermes_json::{HermesJson, KNOWN_ROLES};
use trajhost_codec_testkit::suite::{Suite, role_member};

/// A session's messages: a transcript's lines, a log's `messages`, an
/// export's rows.
fn messages(home: &Path, locator: &str) -> Vec<Value> {
    if locator.ends_with(".jsonl") {
        return trajhost_codec_testkit::raw_lines(&home.join(locator));
    }
    let doc: Value = serde_json::from_slice(&std::fs::read(home.join(locator)).unwrap()).unwrap();
    match doc {
        Value::Array(rows) => rows,
        doc => doc["messages"].as_array().cloned().unwrap_or_default(),
    }
}

const SUITE: Suite = Suite {
    table: include_str!("conformance.json"),
    types: KNOWN_ROLES,
    kind_of: role_member,
    raw: messages,
    ..Suite::DEFAULT
};

trajhost_codec_testkit::conformance_suite!(
    HermesJson,
    SUITE,
    scenarios {
        a_session_log: "log",
        a_gateway_transcript: "transcript",
        a_profiles_session_log: "profile",
        an_export_with_a_session_row: "export",
        an_export_of_rows_with_a_rewound_message: "export-rows",
    }
);
