//! The testkit's conformance suite over the session files the real Gemini
//! CLI 0.25.0 wrote (fixtures/gemini-cli/0.25.0: the lab ran `simple`,
//! `parallel` and `multibyte` there), as conformance.json says. A session
//! is one JSON document: its records are its `messages`, spans their bytes.
//! The files record no cwd: write and prepare are given the lab's.

use std::path::Path;

use serde_json::Value;
use trajhost_codec_gemini_cli_json::{GeminiCliJson, KNOWN_RECORD_TYPES};
use trajhost_codec_testkit::suite::Suite;

/// The document's messages.
fn messages(home: &Path, locator: &str) -> Vec<Value> {
    let doc: Value = serde_json::from_slice(&std::fs::read(home.join(locator)).unwrap()).unwrap();
    doc["messages"].as_array().cloned().unwrap_or_default()
}

const SUITE: Suite =
    Suite { table: include_str!("conformance.json"), types: KNOWN_RECORD_TYPES, raw: messages, ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(GeminiCliJson, SUITE);
