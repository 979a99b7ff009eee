//! A check of the Pi session format shared by the Pi and Oh My Pi codec
//! tests (native builds only). The generic helpers (reading a fixture,
//! picking records apart, the conformance checks) are in
//! `trajhost-codec-testkit`.

use serde_json::Value;

/// Checks a written file: the header (after an optional title slot), one
/// `parentId` chain, unique 8-hex ids, complete assistant usage. Returns the
/// header.
pub fn check_chain(bytes: &[u8]) -> Value {
    let text = std::str::from_utf8(bytes).unwrap();
    let mut lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    if lines[0]["type"] == "title" {
        assert_eq!(text.split_inclusive('\n').next().unwrap().len(), 256, "title slot is 256 bytes");
        lines.remove(0);
    }
    let header = lines.remove(0);
    assert_eq!(header["type"], "session");
    assert_eq!(header["version"], 3);
    let mut parent = Value::Null;
    let mut ids = std::collections::BTreeSet::new();
    for line in &lines {
        let id = line["id"].as_str().unwrap();
        assert!(id.len() == 8 && id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
        assert!(ids.insert(id.to_string()), "duplicate id {id}");
        assert_eq!(line["parentId"], parent, "{line}");
        parent = Value::from(id);
        if line["message"]["role"] == "assistant" {
            let usage = &line["message"]["usage"];
            for key in ["input", "output", "cacheRead", "cacheWrite", "totalTokens"] {
                assert!(usage[key].is_u64(), "usage.{key} in {line}");
            }
            for key in ["input", "output", "cacheRead", "cacheWrite", "total"] {
                assert!(usage["cost"][key].is_number(), "usage.cost.{key} in {line}");
            }
            assert!(line["message"]["content"].is_array());
        }
    }
    header
}
