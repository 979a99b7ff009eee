//! The testkit's conformance suite over the sessions the real Mistral Vibe
//! 3.0.3 wrote (fixtures/mistral-vibe/3.0.3: simple, parallel,
//! failing-tool, multibyte, long-output), as conformance.json says. A
//! session is a content-addressed folder; its raw records are the current
//! generation's checkpoint items (the model context), typed by their
//! message's role and part types (`assistant/tool_call`, `tool/text`, …).
//! The model context keeps no times.

use std::path::Path;

use serde_json::Value;
use trajhost_codec_mistral_vibe::{KNOWN_PARTS, MistralVibe};
use trajhost_codec_testkit::suite::Suite;

fn json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The checkpoint items of the session whose CURRENT is `locator`.
fn items(home: &Path, locator: &str) -> Vec<Value> {
    let folder = home.join(locator).parent().unwrap().to_path_buf();
    let current = json(&folder.join("CURRENT"));
    let generation = folder.join("generations").join(current["generation"].as_str().unwrap());
    let manifest = json(&generation.join("manifest.json"));
    let mut out = Vec::new();
    for chunk in manifest["checkpoint"]["chunks"].as_array().unwrap() {
        let items = json(&folder.join("chunks").join(format!("{}.json", chunk.as_str().unwrap())));
        out.extend(items.as_array().unwrap().iter().cloned());
    }
    out
}

/// The part types of one item's message.
fn kinds(item: &Value) -> Vec<String> {
    let role = item["message"]["role"].as_str().unwrap_or("(no role)");
    let parts = item["message"]["content"].as_array().into_iter().flatten();
    parts.map(|p| format!("{role}/{}", p["type"].as_str().unwrap_or("(no type)"))).collect()
}

const SUITE: Suite =
    Suite { table: include_str!("conformance.json"), types: KNOWN_PARTS, kind_of: kinds, raw: items, ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(MistralVibe, SUITE);
