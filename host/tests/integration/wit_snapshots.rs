//! Released WIT snapshots are frozen: `wit/released.sha256` records the
//! hash of every file of every released `wit/since_v*/` directory.

use sha2::{Digest, Sha256};

use crate::common::repo_root;

#[test]
fn released_wit_snapshots_are_unchanged() {
    let wit = repo_root().join("wit");
    let manifest = std::fs::read_to_string(wit.join("released.sha256")).expect("wit/released.sha256");
    let mut checked = 0;
    for line in manifest.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let (hash, file) = line.split_once("  ").expect("`<sha256>  <path>` lines");
        let bytes = std::fs::read(wit.join(file)).unwrap_or_else(|e| panic!("wit/{file}: {e}"));
        assert_eq!(
            hex::encode(Sha256::digest(&bytes)),
            hash,
            "released wit/{file} changed: copy it to a new since_vX.Y.Z instead"
        );
        checked += 1;
    }
    // Every file of every released snapshot is listed; only the newest
    // snapshot may be unreleased (`wit/UNRELEASED`), and then none of its
    // files is listed.
    let unreleased = unreleased(&wit);
    for entry in std::fs::read_dir(&wit).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if unreleased.contains(&name) {
            assert!(!manifest.contains(&format!("  {name}/")), "wit/{name} is both released and in wit/UNRELEASED");
            continue;
        }
        if dir.is_dir() && name.starts_with("since_v") {
            for file in std::fs::read_dir(&dir).unwrap() {
                let rel = file.unwrap().path().strip_prefix(&wit).unwrap().to_string_lossy().into_owned();
                assert!(manifest.contains(&format!("  {rel}")), "wit/{rel} is not in wit/released.sha256");
            }
        }
    }
    assert!(checked > 0);
}

/// The snapshot directories `wit/UNRELEASED` names.
fn unreleased(wit: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(wit.join("UNRELEASED"))
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

#[test]
fn only_the_newest_snapshot_may_be_unreleased() {
    let wit = repo_root().join("wit");
    let newest = format!("since_v{}", trajhost::wit::latest_version());
    for name in unreleased(&wit) {
        assert_eq!(name, newest, "wit/UNRELEASED names {name}, which is not the newest snapshot");
        assert!(wit.join(&name).join("codec.wit").is_file(), "wit/UNRELEASED names {name}, which does not exist");
    }
}

#[test]
fn the_host_binds_the_newest_snapshot() {
    let newest = std::fs::read_dir(repo_root().join("wit"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_prefix("since_v").map(String::from))
        .filter_map(|v| semver::Version::parse(&v).ok())
        .max()
        .unwrap();
    assert_eq!(&newest, trajhost::wit::latest_version());
}

/// The SDK carries its own copy of the newest snapshot (so it builds outside
/// this workspace); it must be that snapshot, byte for byte.
#[test]
fn the_sdk_carries_the_newest_snapshot() {
    let root = repo_root();
    let newest = format!("since_v{}", trajhost::wit::latest_version());
    let released = std::fs::read(root.join("wit").join(&newest).join("codec.wit")).unwrap();
    let sdk = std::fs::read(root.join("sdk/codec/wit/codec.wit")).expect("sdk/codec/wit/codec.wit");
    assert!(released == sdk, "sdk/codec/wit/codec.wit differs from wit/{newest}/codec.wit: copy it");
    assert_eq!(trajhost_codec_sdk::API_VERSION, trajhost::wit::latest_version().to_string());
}
