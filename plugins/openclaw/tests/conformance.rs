//! The testkit's conformance suite over the sessions the real openclaw
//! 2026.9.6 wrote (fixtures/openclaw/2026.9.6), as conformance.json says.
//! A session is the rows of the agent's SQLite store; a written session is
//! installed by applying the plan's rows. OpenClaw's exec tool drops the
//! zero-width joiners of multibyte's emoji before it stores the result:
//! the table holds what it stored.

use std::path::Path;

use serde_json::Value;
use trajhost_codec_openclaw::{KNOWN_ENTRY_TYPES, KNOWN_MESSAGE_ROLES, OpenClaw};
use trajhost_codec_testkit::suite::{Suite, apply_plan, prefixed_types};

/// The session's transcript entries in store order, `event_zstd` ones
/// decompressed (a copy of the database is opened, never the fixture).
fn entries(home: &Path, locator: &str) -> Vec<Value> {
    let (db, id) = locator.split_once('#').unwrap();
    let copy = tempfile::NamedTempFile::new().unwrap();
    std::fs::copy(home.join(db), copy.path()).unwrap();
    let conn = rusqlite::Connection::open(copy.path()).unwrap();
    let mut rows = conn
        .prepare(
            "SELECT event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ?1 ORDER BY seq",
        )
        .unwrap();
    let rows = rows.query_map([id], |row| {
        Ok((row.get::<_, Option<String>>(0)?, row.get::<_, Option<Vec<u8>>>(1)?, row.get::<_, Option<i64>>(2)?))
    });
    rows.unwrap()
        .map(|row| match row.unwrap() {
            (Some(json), _, _) => serde_json::from_str(&json).unwrap(),
            (None, Some(zstd), len) => {
                let mut out = Vec::with_capacity(len.unwrap_or(0) as usize);
                ruzstd::decoding::FrameDecoder::new().decode_all_to_vec(&zstd, &mut out).unwrap();
                serde_json::from_slice(&out).unwrap()
            }
            (None, None, _) => panic!("{locator}: an event with neither event_json nor event_zstd"),
        })
        .collect()
}

/// An entry's type, and a message's role (`message/<role>`).
fn kind(entry: &Value) -> Vec<String> {
    let mut kinds = vec![entry["type"].as_str().unwrap_or("(no type)").to_string()];
    if let Some(role) = entry["message"]["role"].as_str().filter(|_| entry["type"] == "message") {
        kinds.push(format!("message/{role}"));
    }
    kinds
}

fn suite() -> Suite {
    Suite {
        table: include_str!("conformance.json"),
        types: prefixed_types(&[("", KNOWN_ENTRY_TYPES), ("message/", KNOWN_MESSAGE_ROLES)]),
        kind_of: kind,
        raw: entries,
        apply: apply_plan,
    }
}

trajhost_codec_testkit::conformance_suite!(OpenClaw, suite());
