//! The testkit's conformance suite over the sessions the real Qwen Code
//! CLI wrote (fixtures/qwen-code/0.15.10), as conformance.json says.

use serde_json::Value;
use trajhost_codec_qwen_code::{KNOWN_RECORD_TYPES, QwenCode};
use trajhost_codec_testkit::suite::Suite;

/// A raw line's record type: `system` lines by their subtype.
fn raw_kind(line: &Value) -> Vec<String> {
    let kind = line["type"].as_str().unwrap_or("(no type)");
    vec![match line["subtype"].as_str() {
        Some(subtype) if kind == "system" => format!("system/{subtype}"),
        _ => kind.to_string(),
    }]
}

const SUITE: Suite =
    Suite { table: include_str!("conformance.json"), types: KNOWN_RECORD_TYPES, kind_of: raw_kind, ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(QwenCode, SUITE);
