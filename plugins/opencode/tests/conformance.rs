//! The testkit's conformance suite over the stores the real OpenCode CLI
//! wrote (fixtures/opencode/1.18.33), as conformance.json says. A session is
//! rows of `opencode.db` (row spans; its message and part rows the raw
//! records, typed `message/<role>` and `part/<type>`); OpenCode writes an
//! import document, itself a session that discover lists.

use std::path::Path;

use serde_json::{Value, json};
use trajhost_codec_opencode::{KNOWN_RECORD_TYPES, OpenCode};
use trajhost_codec_testkit::suite::Suite;

/// The session's message and part rows, in row order, by their type (a
/// copy of the store is opened, never the fixture).
fn rows(home: &Path, locator: &str) -> Vec<Value> {
    let (db, id) = locator.split_once('#').unwrap();
    let copy = trajhost_codec_testkit::copy_of(home.join(db).parent().unwrap());
    let conn = rusqlite::Connection::open(copy.path().join(Path::new(db).file_name().unwrap())).unwrap();
    let mut out = Vec::new();
    for (table, member, prefix) in [("message", "role", "message"), ("part", "type", "part")] {
        let sql = format!("SELECT json_extract(data, '$.{member}') FROM {table} WHERE session_id = ?1 ORDER BY rowid");
        let mut rows = conn.prepare(&sql).unwrap();
        let kinds = rows.query_map([id], |row| row.get::<_, String>(0)).unwrap();
        out.extend(kinds.map(|k| json!({"type": format!("{prefix}/{}", k.unwrap())})));
    }
    out
}

const SUITE: Suite =
    Suite { table: include_str!("conformance.json"), types: KNOWN_RECORD_TYPES, raw: rows, ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(OpenCode, SUITE);
