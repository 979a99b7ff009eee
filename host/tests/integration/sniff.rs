//! Content sniffing (API 0.2): every built-in codec is asked about the head of
//! real sessions of every sniffing harness; exactly the owner claims each one,
//! with the id its discovery reports.

use trajhost::catalog::Catalog;
use trajhost::inventory::{self, SessionQuery};
use trajhost::registry::Registry;
use trajhost::runtime::{Mode, Runtime};

use crate::common::*;

const HEAD_BYTES: usize = 64 << 10;

fn head(path: &std::path::Path) -> Vec<u8> {
    let mut bytes = std::fs::read(path).unwrap();
    bytes.truncate(HEAD_BYTES);
    bytes
}

/// (harness of the codec that claimed it, sniffed native id)
fn claims(catalog: &Catalog<'_>, name: &str, head: &[u8]) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for record in catalog.effective() {
        let mut instance = catalog.instantiate(record).unwrap();
        if let Some(sniffed) = instance.sniff(name, head).unwrap() {
            out.push((record.harness.clone(), sniffed.native_id));
        }
    }
    out
}

#[test]
fn only_the_owning_codec_claims_a_session_file() {
    let data = tempfile::tempdir().unwrap();
    let registry = Registry::new(data.path());
    let runtime = Runtime::new(test_limits(), Some(&shared_cache()), Mode::Production).unwrap();
    let catalog = Catalog::open(&runtime, &registry).unwrap();
    let mut checked = 0;
    for (harness, version) in [("claude-code", "2.1.197"), ("codex", "0.171.0")] {
        for scenario in ["simple", "parallel", "multibyte"] {
            let home = fixture_home(harness, version, scenario);
            let query = SessionQuery { home: home.clone(), harness: Some(harness.into()), cwd: None };
            let found = inventory::discover(&catalog, &query).unwrap();
            assert!(!found.sessions.is_empty(), "{harness}/{scenario}: no sessions");
            for session in &found.sessions {
                // Renamed: the name says nothing, the content must.
                let got = claims(&catalog, "copy-of-a-session.jsonl", &head(&session.session.path));
                assert_eq!(
                    got,
                    [(harness.to_string(), Some(session.session.native_id.clone()))],
                    "{}",
                    session.session.path.display()
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 6, "only {checked} sessions checked");
    // Neither JSON nor a session: nobody claims it.
    assert!(claims(&catalog, "notes.jsonl", b"just some text\nand more\n").is_empty());
    assert!(claims(&catalog, "empty.jsonl", b"").is_empty());
}

#[test]
fn an_opencode_export_document_is_claimed_by_opencode() {
    // An OpenCode session document made by the real codec: convert a Claude
    // Code fixture to OpenCode and sniff the written import document.
    let data = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let (export, manifest) = convert_claude_fixture(data.path(), out.path(), "opencode");
    let artifact = manifest["artifacts"][0]["path"].as_str().unwrap();
    let registry = Registry::new(data.path());
    let runtime = Runtime::new(test_limits(), Some(&shared_cache()), Mode::Production).unwrap();
    let catalog = Catalog::open(&runtime, &registry).unwrap();
    let got = claims(&catalog, "renamed.json", &head(&export.join("artifacts").join(artifact)));
    let native_id = manifest["target"]["native_id"].as_str().unwrap();
    assert_eq!(got, [("opencode".to_string(), Some(native_id.to_string()))]);
}
