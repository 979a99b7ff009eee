//! The testkit's conformance suite over the hand-written homes of each
//! legacy layout (fixtures/openclaw/jsonl: three transcripts of one agent,
//! an index and a stray file; fixtures/openclaw/clawdbot: a flat Clawdbot
//! file and a Moltbot agent), as conformance.json says.

use serde_json::Value;
use trajhost_codec_openclaw_jsonl::{KNOWN_ENTRY_TYPES, KNOWN_MESSAGE_ROLES, OpenClawJsonl};
use trajhost_codec_testkit::suite::{Suite, prefixed_types};

/// An entry's type, and a message's role (`message/<role>`); a flat
/// Clawdbot line is a message without an entry around it.
fn kind(line: &Value) -> Vec<String> {
    let role = line["message"]["role"].as_str().or(line["role"].as_str());
    match line["type"].as_str() {
        Some(kind) if kind == "message" => vec![kind.to_string(), format!("message/{}", role.unwrap_or("(no role)"))],
        Some(kind) => vec![kind.to_string()],
        None => vec![format!("message/{}", role.unwrap_or("(no role)"))],
    }
}

fn suite() -> Suite {
    Suite {
        table: include_str!("conformance.json"),
        types: prefixed_types(&[("", KNOWN_ENTRY_TYPES), ("message/", KNOWN_MESSAGE_ROLES)]),
        kind_of: kind,
        ..Suite::DEFAULT
    }
}

trajhost_codec_testkit::conformance_suite!(
    OpenClawJsonl,
    suite(),
    scenarios {
        a_transcript_with_an_abandoned_reply_and_a_compaction: "transcript",
        a_topic_transcript_whose_parents_name_the_header_and_a_call: "topic",
        a_reset_archive: "archive",
        a_flat_clawdbot_file: "clawdbot",
        a_moltbot_agent_transcript: "moltbot",
    }
);
