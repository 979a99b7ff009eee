//! The testkit's conformance suite over the sessions the real Gemini CLI
//! wrote (fixtures/gemini-cli/0.61.0), as conformance.json says. Gemini
//! CLI records a shell call's status as `success` whatever its exit code;
//! the line the corrupt-line check cuts is the first version of the
//! tool-calling message (the second still carries the call).

use serde_json::Value;
use trajhost_codec_gemini_cli::{GeminiCli, KNOWN_RECORD_TYPES};
use trajhost_codec_testkit::suite::Suite;

/// A raw line's record types: each key a checkpoint sets, a rewind, a
/// message by its type, or the session header.
fn raw_kinds(line: &Value) -> Vec<String> {
    if let Some(set) = line.get("$set").and_then(Value::as_object) {
        return set.keys().map(|k| format!("$set.{k}")).collect();
    }
    if line.get("$rewindTo").is_some() {
        return vec!["$rewindTo".into()];
    }
    if let (Some(_), Some(kind)) = (line.get("id"), line.get("type").and_then(Value::as_str)) {
        return vec![kind.to_string()];
    }
    if line.get("sessionId").is_some() {
        return vec!["session-header".into()];
    }
    vec!["(unrecognized line)".into()]
}

const SUITE: Suite =
    Suite { table: include_str!("conformance.json"), types: KNOWN_RECORD_TYPES, kind_of: raw_kinds, ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(GeminiCli, SUITE);
