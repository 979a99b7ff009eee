//! The testkit's conformance suite over the rollouts the real Codex CLI
//! wrote (fixtures/codex/0.171.0), as conformance.json says. Codex records
//! each command's exit code, so `ok` is the store's; a written rollout
//! carries no exit status, so a round trip compares bodies but `ok`. A
//! rollout line's type is its `type`, a response item's or event's its
//! payload's type behind its own, as the codec reports them
//! (`event_msg/token_count`).

use serde_json::Value;
use trajhost_codec_codex::{Codex, KNOWN_EVENT_TYPES, KNOWN_LINE_TYPES, KNOWN_RESPONSE_ITEM_TYPES};
use trajhost_codec_testkit::suite::{Suite, apply_plan, prefixed_types};

/// A raw line's type: `response_item/<type>` and `event_msg/<type>` by
/// their payload, the others by their own.
fn line_type(line: &Value) -> Vec<String> {
    let kind = line["type"].as_str().unwrap_or("(no type)");
    vec![match (kind, line["payload"]["type"].as_str()) {
        ("response_item" | "event_msg", Some(payload)) => format!("{kind}/{payload}"),
        _ => kind.to_string(),
    }]
}

fn suite() -> Suite {
    let types = prefixed_types(&[
        ("", KNOWN_LINE_TYPES),
        ("response_item/", KNOWN_RESPONSE_ITEM_TYPES),
        ("event_msg/", KNOWN_EVENT_TYPES),
    ]);
    Suite { table: include_str!("conformance.json"), types, kind_of: line_type, apply: apply_plan, ..Suite::DEFAULT }
}

trajhost_codec_testkit::conformance_suite!(Codex, suite());
