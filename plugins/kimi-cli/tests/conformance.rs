//! The testkit's conformance suite over the sessions the real Kimi CLI
//! wrote (fixtures/kimi-cli/1.51.0), as conformance.json says. A session is
//! its folder: `context.jsonl` (the conversation, the session file) and
//! `wire.jsonl` (times, usage, `is_error`); their records are typed
//! `context:<role>` and `wire:<type>`, as the codec reports them. The
//! system prompt has no time (the wire has none for it). Kimi CLI records
//! no model per message.

use std::path::Path;

use serde_json::Value;
use trajhost_codec_kimi_cli::{KNOWN_CONTEXT_ROLES, KNOWN_WIRE_TYPES, KimiCli};
use trajhost_codec_testkit::suite::{Suite, prefixed_types};

/// The session's context lines, then its wire lines.
fn context_and_wire(home: &Path, locator: &str) -> Vec<Value> {
    let context = home.join(locator);
    let mut lines = trajhost_codec_testkit::raw_lines(&context);
    lines.extend(trajhost_codec_testkit::raw_lines(&context.with_file_name("wire.jsonl")));
    lines
}

/// A context line by its role, a wire line by its message's type (the
/// header by its own).
fn line_type(line: &Value) -> Vec<String> {
    vec![match (line["role"].as_str(), line["message"]["type"].as_str(), line["type"].as_str()) {
        (Some(role), ..) => format!("context:{role}"),
        (None, Some(kind), _) | (None, None, Some(kind)) => format!("wire:{kind}"),
        _ => "(no type)".to_string(),
    }]
}

fn suite() -> Suite {
    let types = prefixed_types(&[("context:", KNOWN_CONTEXT_ROLES), ("wire:", KNOWN_WIRE_TYPES)]);
    Suite {
        table: include_str!("conformance.json"),
        types,
        kind_of: line_type,
        raw: context_and_wire,
        ..Suite::DEFAULT
    }
}

trajhost_codec_testkit::conformance_suite!(KimiCli, suite());
