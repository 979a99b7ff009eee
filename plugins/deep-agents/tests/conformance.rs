//! The testkit's conformance suite over the threads the real
//! deepagents-code 0.1.57 wrote (fixtures/deep-agents/0.1.57), as
//! conformance.json says. A thread is rows of `sessions.db` (row spans; the
//! LangChain messages of its `messages` writes the raw records, typed by
//! their `type`); prepare adds a checkpoint row there. dcode spills a large
//! result outside the home and stores a pointer message: that is the result.

use std::path::Path;

use serde_json::Value;
use trajhost_codec_deep_agents::{DeepAgents, KNOWN_MESSAGE_TYPES, msgpack};
use trajhost_codec_testkit::suite::{Suite, apply_plan};

/// The decoded messages of the thread's `messages` writes (a copy of the
/// database is opened, never the fixture).
fn messages(home: &Path, locator: &str) -> Vec<Value> {
    let (db, id) = locator.split_once('#').unwrap();
    let copy = trajhost_codec_testkit::copy_of(home.join(db).parent().unwrap());
    let conn = rusqlite::Connection::open(copy.path().join(Path::new(db).file_name().unwrap())).unwrap();
    let sql =
        "SELECT value FROM writes WHERE thread_id = ?1 AND channel = 'messages' AND type = 'msgpack' ORDER BY rowid";
    let mut rows = conn.prepare(sql).unwrap();
    let blobs: Vec<Vec<u8>> = rows.query_map([id], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    blobs
        .iter()
        .flat_map(|b| match msgpack::decode(b).unwrap() {
            Value::Array(items) => items,
            one => vec![one],
        })
        .collect()
}

fn message_type(message: &Value) -> Vec<String> {
    vec![message["value"]["type"].as_str().unwrap_or("(no type)").to_string()]
}

const SUITE: Suite = Suite {
    table: include_str!("conformance.json"),
    types: KNOWN_MESSAGE_TYPES,
    kind_of: message_type,
    raw: messages,
    apply: apply_plan,
};

trajhost_codec_testkit::conformance_suite!(DeepAgents, SUITE);
