//! Every supported `trajhost:codec` API version loads side by side. The 0.1
//! and 0.2.0 guests are real components built against the frozen snapshots
//! (the toy codec, `tests/toy/v1`, at commits before the SDK moved on; see
//! tests/guests/README.md), kept as binaries so that they stay old builds.
//! The 0.2.0 one is served by the host's 0.2.1 bindings, which convert its
//! results at the edge to the newest API (0.3.0), as the 0.1 module does.

use trajhost::catalog::Catalog;
use trajhost::inventory::{self, SessionQuery};
use trajhost::registry::{Installed, Registry};
use trajhost::runtime::{Mode, Runtime};

use crate::common::*;

fn api_0_1_guest() -> std::path::PathBuf {
    repo_root().join("tests/guests/toy-1.0.0-api-0.1.0.wasm")
}

fn api_0_2_0_guest() -> std::path::PathBuf {
    repo_root().join("tests/guests/toy-1.0.0-api-0.2.0.wasm")
}

#[test]
fn a_codec_built_against_api_0_1_installs_lists_discovers_and_reads() {
    installs_lists_discovers_and_reads(&api_0_1_guest(), semver::Version::new(0, 1, 0));
}

#[test]
fn a_codec_built_against_api_0_2_0_loads_through_the_0_2_1_bindings() {
    assert_eq!(trajhost::wit::latest_version(), &semver::Version::new(0, 3, 0));
    assert!(trajhost::wit::SUPPORTED.contains(&semver::Version::new(0, 2, 1)));
    installs_lists_discovers_and_reads(&api_0_2_0_guest(), semver::Version::new(0, 2, 0));
}

fn installs_lists_discovers_and_reads(guest: &std::path::Path, api: semver::Version) {
    let data = tempfile::tempdir().unwrap();
    let registry = Registry::new(data.path());
    let runtime = Runtime::new(test_limits(), Some(&shared_cache()), Mode::Production).unwrap();

    // The component really exports the old interface.
    let bytes = std::fs::read(guest).unwrap();
    let component = runtime.compile(&bytes, "toy-old").unwrap();
    assert_eq!(runtime.check_component(&component, "toy-old").unwrap(), api);
    let loaded = runtime.prepare(&component, "toy-old").unwrap();
    assert_eq!(loaded.api_version(), &api);

    let installed = registry.install(&runtime, guest, false).unwrap();
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

    let mut instance = catalog.instantiate(toy[0]).unwrap();
    let sniffed = instance.sniff("toy/beta.jsonl", b"{\"v\":\"1.3.0\"}\n").unwrap();
    if api.minor == 1 {
        // A 0.1 codec cannot sniff: it recognizes nothing, without an error.
        assert!(sniffed.is_none());
    }
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
