//! The registry: install validation, side-by-side versions, selection by
//! native version, tampered blobs, incompatible APIs, the compiled cache.

use trajhost::HostError;
use trajhost::catalog::Catalog;
use trajhost::digest::SessionDigest;
use trajhost::inventory::{self, Lookup, SessionQuery};
use trajhost::registry::{Installed, Registry, VerifyStatus};
use trajhost::runtime::{LoadKind, Mode, Runtime};

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
fn codec_that_reads(
    env: &Env,
    home: &std::path::Path,
    id: &str,
    codec_override: Option<&str>,
) -> Result<String, HostError> {
    Ok(read_toy(env, home, id, codec_override)?.0)
}

/// Reads a session (by id or path) and returns the codec that read it (as
/// its meta record says) and the snapshot id.
fn read_toy(
    env: &Env,
    home: &std::path::Path,
    target: &str,
    codec_override: Option<&str>,
) -> Result<(String, String), HostError> {
    let catalog = Catalog::open(&env.runtime, &env.registry)?;
    let lookup = Lookup { home: Some(home), harness: Some("toy"), codec: codec_override };
    let found = inventory::resolve_with(&catalog, target, &lookup)?;
    let (record, mut stream) = inventory::open(&catalog, &found, codec_override, inventory::default_read_options())?;
    // A version no codec covers is listed with no codec, and read by the nearest.
    if found.codec.is_some() {
        assert_eq!(
            found.codec.as_deref(),
            Some(record.id().as_str()),
            "resolve attributes the session to the codec that reads it"
        );
    }
    let mut digest = SessionDigest::new();
    let mut meta_codec = None;
    while let Some(batch) = stream.next_batch()? {
        for line in batch.records.lines() {
            let record = digest.push_line(line).unwrap();
            if let trajhost::canonical::Body::Meta(meta) = record.body {
                meta_codec = meta.codec;
            }
        }
    }
    assert_eq!(meta_codec.as_deref(), Some(record.id().as_str()), "the selected codec did the reading");
    Ok((record.id(), digest.snapshot_id()))
}

/// The hand-written home of `tests/toy/fixtures/side-by-side`, copied so a
/// test may add files.
fn side_by_side_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    copy_tree(&repo_root().join("tests/toy/fixtures/side-by-side"), home.path());
    home
}

/// Both toy versions installed, and the toy sessions discovered in a copy of
/// the side-by-side fixture home.
fn side_by_side_inventory(env: &Env) -> (tempfile::TempDir, inventory::Inventory) {
    install(env, "trajhost-toy-v1");
    install(env, "trajhost-toy-v2");
    let home = side_by_side_home();
    let catalog = Catalog::open(&env.runtime, &env.registry).unwrap();
    let query = SessionQuery { home: home.path().into(), harness: Some("toy".into()), cwd: None };
    let inventory = inventory::discover(&catalog, &query).unwrap();
    (home, inventory)
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
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
    // A version outside every range is read by the nearest codec that found it, not refused
    // (`Catalog::select_for_reading`); `select` itself stays strict, naming the ranges.
    assert_eq!(codec_that_reads(&env, home.path(), "future", None).unwrap(), "toy@1.0.0");
    let catalog = Catalog::open(&env.runtime, &env.registry).unwrap();
    match catalog.select("toy", Some("5.0.0"), None) {
        Err(HostError::NoCodec(message)) => {
            assert!(message.contains("5.0.0"), "{message}");
            assert!(
                message.contains("toy@1.0.0 (>=1.0.0, <2.0.0)") && message.contains("toy@2.0.0 (>=2.0.0, <3.0.0)"),
                "{message}"
            );
        }
        other => panic!("expected NoCodec, got {other:?}"),
    }
    let (nearest, note) = catalog.select_for_reading("toy", Some("5.0.0"), None, &["toy@2.0.0"]).unwrap();
    assert_eq!(nearest.id(), "toy@2.0.0");
    assert!(note.unwrap().contains("5.0.0 is outside every codec's range; read with the nearest, toy@2.0.0"));
    drop(catalog);

    // Discovery lists every session with its detected version.
    let catalog = Catalog::open(&env.runtime, &env.registry).unwrap();
    let inventory = inventory::discover(
        &catalog,
        &SessionQuery { home: home.path().into(), harness: Some("toy".into()), cwd: None },
    )
    .unwrap();
    let mut seen: Vec<(String, Option<String>)> =
        inventory.sessions.iter().map(|s| (s.session.native_id.clone(), s.session.native_version.clone())).collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            ("future".into(), Some("5.0.0".into())),
            ("new".into(), Some("2.3.1".into())),
            ("old".into(), Some("1.4.0".into()))
        ]
    );
}

#[test]
fn side_by_side_versions_with_different_folders_both_list_and_read() {
    let env = env();
    let (home, inventory) = side_by_side_inventory(&env);
    let catalog = Catalog::open(&env.runtime, &env.registry).unwrap();
    assert!(inventory.failures.is_empty(), "{:?}", inventory.failures);
    let mut seen: Vec<(String, String, String, Option<String>)> = inventory
        .sessions
        .iter()
        .map(|s| (s.session.native_id.clone(), s.session.locator.clone(), s.discovered_by.clone(), s.codec.clone()))
        .collect();
    seen.sort();
    let row = |id: &str, locator: &str, by: &str, codec: &str| {
        (id.to_string(), locator.to_string(), by.to_string(), Some(codec.to_string()))
    };
    assert_eq!(
        seen,
        [
            row("fresh", "toy2/fresh.jsonl", "toy@2.0.0", "toy@2.0.0"),
            row("moved", "toy/moved.jsonl", "toy@1.0.0", "toy@2.0.0"),
            row("old", "toy/old.jsonl", "toy@1.0.0", "toy@1.0.0"),
        ],
        "each folder's sessions are listed once, attributed to the codec their version selects"
    );
    // Each is read by that codec, by id and by path.
    for (id, _, _, codec) in &seen {
        let codec = codec.as_deref().unwrap();
        assert_eq!(read_toy(&env, home.path(), id, None).unwrap().0, codec, "{id}");
    }
    for (locator, codec) in
        [("toy/old.jsonl", "toy@1.0.0"), ("toy/moved.jsonl", "toy@2.0.0"), ("toy2/fresh.jsonl", "toy@2.0.0")]
    {
        let path = home.path().join(locator);
        assert_eq!(read_toy(&env, home.path(), path.to_str().unwrap(), None).unwrap().0, codec, "{locator}");
    }
    // `--codec` is honoured by inspect and read, inside or outside that
    // version's folders.
    let old = home.path().join("toy/old.jsonl");
    assert_eq!(read_toy(&env, home.path(), old.to_str().unwrap(), Some("toy@2.0.0")).unwrap().0, "toy@2.0.0");
    let lookup = Lookup { home: None, harness: None, codec: Some("toy@2.0.0") };
    let found = inventory::resolve_with(&catalog, old.to_str().unwrap(), &lookup).unwrap();
    assert_eq!(
        (found.home.as_path(), found.session.locator.as_str(), found.codec.as_deref()),
        (home.path().canonicalize().unwrap().as_path(), "toy/old.jsonl", Some("toy@2.0.0")),
        "the home comes from toy 1.x's layout even when toy 2.x reads"
    );
    let fresh = home.path().join("toy2/fresh.jsonl");
    assert_eq!(read_toy(&env, home.path(), fresh.to_str().unwrap(), Some("toy@1.0.0")).unwrap().0, "toy@1.0.0");

    // With only the newest version installed, the old folder is out of sight.
    env.registry.remove("toy", "1.0.0").unwrap();
    let catalog = Catalog::open(&env.runtime, &env.registry).unwrap();
    let inventory = inventory::discover(
        &catalog,
        &SessionQuery { home: home.path().into(), harness: Some("toy".into()), cwd: None },
    )
    .unwrap();
    let ids: Vec<&str> = inventory.sessions.iter().map(|s| s.session.native_id.as_str()).collect();
    assert_eq!(ids, ["fresh"]);
}

#[test]
fn snapshot_ids_do_not_depend_on_the_codec_version_or_the_file_path() {
    let env = env();
    install(&env, "trajhost-toy-v1");
    install(&env, "trajhost-toy-v2");
    let home = side_by_side_home();
    let moved = home.path().join("toy/moved.jsonl");
    let moved = moved.to_str().unwrap();
    let (by_v2, id_v2) = read_toy(&env, home.path(), moved, None).unwrap();
    let (by_v1, id_v1) = read_toy(&env, home.path(), moved, Some("toy@1.0.0")).unwrap();
    assert_eq!((by_v1.as_str(), by_v2.as_str()), ("toy@1.0.0", "toy@2.0.0"));
    assert_eq!(id_v1, id_v2, "the same bytes read by two codec versions");

    // The same bytes outside any toy folder (the toy's record ids embed the
    // file's path; the host grants the file's directory).
    let elsewhere = tempfile::tempdir().unwrap();
    let copy = elsewhere.path().join("moved.jsonl");
    std::fs::copy(moved, &copy).unwrap();
    let (_, id_elsewhere) = read_toy(&env, elsewhere.path(), copy.to_str().unwrap(), None).unwrap();
    assert_eq!(id_elsewhere, id_v2);
    // Other bytes, another id.
    let (_, id_old) = read_toy(&env, home.path(), home.path().join("toy/old.jsonl").to_str().unwrap(), None).unwrap();
    assert_ne!(id_old, id_v2);
    std::fs::write(&copy, std::fs::read_to_string(moved).unwrap().replace("moved", "MOVED")).unwrap();
    let (_, id_changed) = read_toy(&env, elsewhere.path(), copy.to_str().unwrap(), None).unwrap();
    assert_ne!(id_changed, id_v2, "a change in the content changes the id");
}

#[test]
fn a_failing_codec_version_is_a_diagnostic_and_the_others_still_list() {
    let env = env();
    install(&env, "trajhost-toy-v1");
    install(&env, "trajhost-toy-v2");
    let home = side_by_side_home();
    std::fs::write(home.path().join("toy/panic.trap"), b"").unwrap();
    let catalog = Catalog::open(&env.runtime, &env.registry).unwrap();
    let inventory =
        inventory::discover(&catalog, &SessionQuery { home: home.path().into(), harness: None, cwd: None }).unwrap();
    let ids: Vec<&str> = inventory.sessions.iter().map(|s| s.session.native_id.as_str()).collect();
    assert_eq!(ids, ["fresh"], "toy@2.0.0 still lists its folder");
    match inventory.failures.as_slice() {
        [(harness, HostError::Trap { plugin, .. })] => {
            assert_eq!((harness.as_str(), plugin.as_str()), ("toy", "toy@1.0.0"))
        }
        other => panic!("expected one trap of toy@1.0.0, got {other:?}"),
    }
}

#[test]
fn discovery_diagnostics_name_the_file() {
    let env = env();
    let (_home, inventory) = side_by_side_inventory(&env);
    let diagnostics: Vec<(&str, &str, Option<&str>)> = inventory
        .diagnostics
        .iter()
        .map(|d| (d.codec.as_str(), d.diagnostic.code.as_str(), d.diagnostic.file.as_deref()))
        .collect();
    assert_eq!(diagnostics, [("toy@1.0.0", "not-a-session", Some("toy/notes.txt"))]);
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

/// A codec shadowed by an installed one of the same version still sniffs
/// (an installed API 0.1 codec cannot), after the one in effect.
#[test]
fn a_shadowed_codec_is_still_asked_to_sniff() {
    let env = env();
    install_file(&env, &guest("trajhost-codec-claude-code"));
    let catalog = Catalog::open(&env.runtime, &env.registry).unwrap();
    let sniffers = catalog.sniffers("claude-code");
    let sources: Vec<_> = sniffers.iter().map(|r| &r.source).collect();
    assert_eq!(sniffers.len(), 2, "{sources:?}");
    assert!(matches!(sniffers[0].source, trajhost::registry::CodecSource::Installed { .. }), "{sources:?}");
    assert!(matches!(sniffers[1].source, trajhost::registry::CodecSource::Builtin), "{sources:?}");
    assert_eq!(sniffers[0].id(), sniffers[1].id());
    // Without an installed codec, only the built-in sniffs.
    let plain = CatalogHost::new();
    assert_eq!(plain.catalog().sniffers("claude-code").len(), 1);
}
