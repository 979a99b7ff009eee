//! The raw records of a session in a store with OpenCode's tables (OpenCode's
//! `opencode.db`, Kilo Code's `kilo.db`), for the conformance suite's `raw`.

use std::path::Path;

use serde_json::{Value, json};

/// The session's message and part rows, in row order, by their type (a
/// copy of the store is opened, never the fixture).
pub fn rows(home: &Path, locator: &str) -> Vec<Value> {
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
