//! The registry: install validation, side-by-side versions, selection by
//! native version, tampered blobs, incompatible APIs, the compiled cache.

use trajhost::catalog::Catalog;
use trajhost::inventory::{self, SessionQuery};
use trajhost::registry::{Installed, Registry, VerifyStatus};
use trajhost::runtime::{LoadKind, Mode, Runtime};
use trajhost::HostError;

use crate::common::*;

struct Env {
    data: tempfile::TempDir,
    registry: Registry,
    runtime: Runtime,
}

fn env() -> Env {
    let data = tempfile::tempdir().unwrap();
    let registry = Registry::new(data.path());
    let runtime = Runtime::new(test_limits(), Some(&shared_cache()), Mode::Production).unwrap();
    Env { data, registry, runtime }
}

fn install(env: &Env, package: &str) -> Installed {
    env.registry.install(&env.runtime, &guest(package), false).unwrap()
}

/// Reads a toy session and returns the codec recorded in its meta record.
fn codec_that_reads(env: &Env, home: &std::path::Path, id: &str, codec_override: Option<&str>) -> Result<String, HostError> {
    let catalog = Catalog::open(&env.runtime, &env.registry)?;
    let found = inventory::resolve(&catalog, id, home, Some("toy"))?;
    let (record, mut stream) = inventory::open(&catalog, &found, codec_override, inventory::default_read_options())?;
    let batch = stream.next_batch()?.expect("a batch");
    let first: serde_json::Value = serde_json::from_str(batch.records.lines().next().unwrap()).unwrap();
    assert_eq!(first["codec"].as_str(), Some(record.id().as_str()), "the selected codec did the reading");
    Ok(record.id())
}

#[test]
fn side_by_side_versions_are_selected_by_native_version() {
    let env = env();
    assert!(matches!(install(&env, "trajhost-toy-v1"), Installed::New(_)));
    assert!(matches!(install(&env, "trajhost-toy-v2"), Installed::New(_)));
    let installed = env.registry.installed().unwrap();
    assert_eq!(installed.iter().map(|r| r.id()).collect::<Vec<_>>(), ["toy@1.0.0", "toy@2.0.0"]);

    let home = toy_home(&[("old", "1.4.0"), ("new", "2.3.1"), ("future", "5.0.0")]);
    assert_eq!(codec_that_reads(&env, home.path(), "old", None).unwrap(), "toy@1.0.0");
    assert_eq!(codec_that_reads(&env, home.path(), "new", None).unwrap(), "toy@2.0.0");
    assert_eq!(codec_that_reads(&env, home.path(), "new", Some("toy@1.0.0")).unwrap(), "toy@1.0.0");
    match codec_that_reads(&env, home.path(), "future", None) {
        Err(HostError::NoCodec(message)) => {
            assert!(message.contains("5.0.0"), "{message}");
            assert!(message.contains("toy@1.0.0 (>=1.0.0, <2.0.0)") && message.contains("toy@2.0.0 (>=2.0.0, <3.0.0)"), "{message}");
        }
        other => panic!("expected NoCodec, got {other:?}"),
    }

    // Discovery lists every session with its detected version.
    let catalog = Catalog::open(&env.runtime, &env.registry).unwrap();
    let inventory = inventory::discover(&catalog, &SessionQuery { home: home.path().into(), harness: Some("toy".into()), cwd: None }).unwrap();
    let mut seen: Vec<(String, Option<String>)> =
        inventory.sessions.iter().map(|s| (s.session.native_id.clone(), s.session.native_version.clone())).collect();
    seen.sort();
    assert_eq!(
        seen,
        [("future".into(), Some("5.0.0".into())), ("new".into(), Some("2.3.1".into())), ("old".into(), Some("1.4.0".into()))]
    );
}

#[test]
fn reinstall_is_idempotent_and_remove_deletes_one_version() {
    let env = env();
    install(&env, "trajhost-toy-v1");
    install(&env, "trajhost-toy-v2");
    assert!(matches!(install(&env, "trajhost-toy-v1"), Installed::AlreadyPresent(_)));
    let removed = env.registry.remove("toy", "1.0.0").unwrap();
    assert_eq!(removed.id(), "toy@1.0.0");
    assert!(!env.registry.blob_path(&removed.sha256).exists(), "the unreferenced blob is gone");
    assert_eq!(env.registry.installed().unwrap().iter().map(|r| r.id()).collect::<Vec<_>>(), ["toy@2.0.0"]);
    let error = env.registry.remove("toy", "1.0.0").unwrap_err().to_string();
    assert!(error.contains("toy@1.0.0 is not installed") && error.contains("toy@2.0.0"), "{error}");
}

#[test]
fn a_tampered_blob_is_reported_and_refused_at_load() {
    let env = env();
    install(&env, "trajhost-toy-v1");
    let record = env.registry.installed().unwrap().remove(0);
    let blob = env.registry.blob_path(&record.sha256);
    assert!(env.registry.verify().unwrap().iter().all(|v| v.status == VerifyStatus::Ok));

    let mut perms = std::fs::metadata(&blob).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&blob, perms).unwrap();
    let mut bytes = std::fs::read(&blob).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&blob, bytes).unwrap();

    let report = env.registry.verify().unwrap();
    assert!(matches!(report[0].status, VerifyStatus::Tampered { .. }), "{report:?}");
    let catalog = Catalog::open(&env.runtime, &env.registry).unwrap();
    match catalog.instantiate(&record) {
        Err(HostError::Tampered { expected, .. }) => assert_eq!(expected, record.sha256),
        other => panic!("expected Tampered, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn install_refuses_bad_components_naming_the_problem() {
    let env = env();
    let error = env.registry.install(&env.runtime, &guest("trajhost-hostile-import"), false).unwrap_err();
    assert!(matches!(error, HostError::CapabilityDenied { .. }), "{error}");
    assert!(error.to_string().contains("wasi:filesystem"), "{error}");
    let error = env.registry.install(&env.runtime, &guest("trajhost-hostile-api"), false).unwrap_err();
    assert!(matches!(error, HostError::ApiMismatch { .. }), "{error}");
    let junk = env.data.path().join("junk.wasm");
    std::fs::write(&junk, b"not wasm").unwrap();
    let error = env.registry.install(&env.runtime, &junk, false).unwrap_err();
    assert!(error.to_string().contains("junk.wasm"), "{error}");
    assert!(env.registry.installed().unwrap().is_empty(), "nothing was installed");
}

#[test]
fn warm_loads_never_recompile() {
    let env = env();
    install(&env, "trajhost-toy-v1");
    // Install precompiled it: the first catalog load is already a cache hit,
    // and so is the built-in codec's load after the first catalog.
    let _first = Catalog::open(&env.runtime, &env.registry).unwrap();
    for _ in 0..2 {
        let runtime = Runtime::new(test_limits(), Some(&shared_cache()), Mode::Production).unwrap();
        let catalog = Catalog::open(&runtime, &env.registry).unwrap();
        let record = catalog.for_harness("toy")[0].clone();
        catalog.instantiate(&record).unwrap();
        let loads = catalog.loads();
        assert!(!loads.is_empty());
        assert!(loads.iter().all(|(_, kind)| *kind == LoadKind::CacheHit), "{loads:?}");
    }
}

#[test]
fn an_installed_codec_shadows_the_builtin_of_the_same_version() {
    let env = env();
    let builtin = guest("trajhost-codec-claude-code");
    install_file(&env, &builtin);
    let catalog = Catalog::open(&env.runtime, &env.registry).unwrap();
    let entries: Vec<_> = catalog.entries().iter().filter(|e| e.record.harness == "claude-code").collect();
    assert_eq!(entries.len(), 2);
    let shadowed: Vec<_> = entries.iter().filter(|e| e.shadowed_by.is_some()).collect();
    assert_eq!(shadowed.len(), 1);
    assert!(matches!(shadowed[0].record.source, trajhost::registry::CodecSource::Builtin));
    assert!(matches!(catalog.for_harness("claude-code")[0].source, trajhost::registry::CodecSource::Installed { .. }));
}

fn install_file(env: &Env, path: &std::path::Path) {
    env.registry.install(&env.runtime, path, false).unwrap();
}
