//! The testkit's conformance suite over the sessions the real
//! hermes-agent 0.19.0 wrote (fixtures/hermes/0.19.0), as conformance.json
//! says. Hermes stores no success flag and only session totals of usage.

use std::path::Path;

use serde_json::{Value, json};
use trajhost_codec_hermes::{Hermes, KNOWN_ROLES};
use trajhost_codec_testkit::suite::{Suite, apply_plan};

/// The session's message rows, by their role (a copy of the database is
/// opened, never the fixture).
fn messages(home: &Path, locator: &str) -> Vec<Value> {
    let (db, id) = locator.split_once('#').unwrap();
    let copy = tempfile::NamedTempFile::new().unwrap();
    std::fs::copy(home.join(db), copy.path()).unwrap();
    let conn = rusqlite::Connection::open(copy.path()).unwrap();
    let mut rows = conn.prepare("SELECT role FROM messages WHERE session_id = ?1 ORDER BY id").unwrap();
    rows.query_map([id], |row| row.get::<_, String>(0)).unwrap().map(|role| json!({"role": role.unwrap()})).collect()
}

fn role(row: &Value) -> Vec<String> {
    vec![row["role"].as_str().unwrap().to_string()]
}

const SUITE: Suite = Suite {
    table: include_str!("conformance.json"),
    types: KNOWN_ROLES,
    raw: messages,
    kind_of: role,
    apply: apply_plan,
};

trajhost_codec_testkit::conformance_suite!(Hermes, SUITE);
