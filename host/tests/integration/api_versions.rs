//! Every supported `trajhost:codec` API version loads side by side. The 0.1
//! guest is a real component built against the frozen 0.1.0 snapshot (the toy
//! codec, `tests/toy/v1` at commit 0eeb315, before the SDK moved to 0.2; see
//! tests/guests/README.md), kept as a binary so that it stays a 0.1 build.

use trajhost::catalog::Catalog;
use trajhost::inventory::{self, SessionQuery};
use trajhost::registry::{Installed, Registry};
use trajhost::runtime::{Mode, Runtime};

use crate::common::*;

fn api_0_1_guest() -> std::path::PathBuf {
    repo_root().join("tests/guests/toy-1.0.0-api-0.1.0.wasm")
}

#[test]
fn a_codec_built_against_api_0_1_installs_lists_discovers_and_reads() {
    let data = tempfile::tempdir().unwrap();
    let registry = Registry::new(data.path());
    let runtime = Runtime::new(test_limits(), Some(&shared_cache()), Mode::Production).unwrap();

    // The component really exports the 0.1 interface.
    let bytes = std::fs::read(api_0_1_guest()).unwrap();
    let component = runtime.compile(&bytes, "toy-0.1").unwrap();
    assert_eq!(runtime.check_component(&component, "toy-0.1").unwrap(), semver::Version::new(0, 1, 0));
    let loaded = runtime.prepare(&component, "toy-0.1").unwrap();
    assert_eq!(loaded.api_version(), &semver::Version::new(0, 1, 0));

    let installed = registry.install(&runtime, &api_0_1_guest(), false).unwrap();
    assert!(matches!(installed, Installed::New(_)));
    let catalog = Catalog::open(&runtime, &registry).unwrap();
    let toy = catalog.for_harness("toy");
    assert_eq!(toy.iter().map(|c| c.id()).collect::<Vec<_>>(), ["toy@1.0.0"]);

    let home = toy_home(&[("alpha", "1.2.0"), ("beta", "1.3.0")]);
    let query = SessionQuery { home: home.path().to_path_buf(), harness: Some("toy".into()), cwd: None };
    let inventory = inventory::discover(&catalog, &query).unwrap();
    let mut ids: Vec<_> = inventory.sessions.iter().map(|s| s.session.native_id.clone()).collect();
    ids.sort();
    assert_eq!(ids, ["alpha", "beta"]);

    let found = inventory::resolve(&catalog, "beta", home.path(), Some("toy")).unwrap();
    let (record, mut stream) = inventory::open(&catalog, &found, None, inventory::default_read_options()).unwrap();
    assert_eq!(record.id(), "toy@1.0.0");
    let mut lines = Vec::new();
    while let Some(batch) = stream.next_batch().unwrap() {
        lines.extend(batch.records.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()));
    }
    assert_eq!(lines[0]["kind"], "meta");
    assert!(lines.iter().any(|l| l["kind"] == "user" && l["text"] == "hello from beta"), "{lines:?}");
    assert!(lines.iter().any(|l| l["kind"] == "assistant"));

    // A 0.1 codec cannot sniff: it recognizes nothing, without an error.
    let mut instance = catalog.instantiate(toy[0]).unwrap();
    assert!(instance.sniff("toy/beta.jsonl", b"{\"v\":\"1.3.0\"}\n").unwrap().is_none());
}

#[test]
fn the_cli_lists_and_reads_with_a_0_1_codec_installed() {
    let data = tempfile::tempdir().unwrap();
    let install = trajhost(data.path(), &["plugin", "install", api_0_1_guest().to_str().unwrap()]);
    assert!(install.status.success(), "{}", stderr(&install));
    let list = trajhost(data.path(), &["plugin", "list", "--json"]);
    assert!(stdout(&list).contains("toy"), "{}", stdout(&list));
    let home = toy_home(&[("gamma", "1.0.0")]);
    let read = trajhost(data.path(), &["read", "gamma", "--home", home.path().to_str().unwrap(), "--json"]);
    assert!(read.status.success(), "{}", stderr(&read));
    assert!(stdout(&read).contains("hello from gamma"), "{}", stdout(&read));
}
