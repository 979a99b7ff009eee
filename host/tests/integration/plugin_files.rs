//! Every codec under `plugins/` is also a standalone plugin file in
//! `target/plugins/`, named `<harness>-<native version pin or codec
//! version>.wasm`; the Cursor codec ships only that way.

use std::path::Path;

use trajhost::runtime::{Mode, Runtime};

use crate::common::*;

/// Codecs whose plugin file is named after the native version the lab tests them with.
const PINNED: &[(&str, &str)] = &[
    ("cursor", "2026.10.01"),
    ("fx", "0.0.13"),
    ("aider", "0.86.2"),
    ("continue-cli", "1.5.47"),
    ("kilo-code", "7.7.7"),
    ("auggie", "0.36.0"),
    ("mistral-vibe", "3.0.3"),
    ("mini-swe-agent", "2.4.6"),
];

fn plugin_files_dir() -> &'static Path {
    Path::new(trajhost::registry::builtin::PLUGIN_FILES_DIR)
}

fn plugin_crates() -> usize {
    std::fs::read_dir(repo_root().join("plugins"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().join("Cargo.toml").is_file())
        .count()
}

#[test]
fn every_codec_is_a_plugin_file_named_after_its_harness_and_version() {
    let runtime = Runtime::new(test_limits(), Some(&shared_cache()), Mode::Production).unwrap();
    let mut files: Vec<_> = std::fs::read_dir(plugin_files_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wasm"))
        .collect();
    files.sort();
    assert_eq!(files.len(), plugin_crates(), "one plugin file per crate in plugins/: {files:?}");
    let mut harnesses = Vec::new();
    for file in &files {
        let stem = file.file_stem().unwrap().to_str().unwrap();
        let bytes = std::fs::read(file).unwrap();
        let component = runtime.compile(&bytes, stem).unwrap();
        let info = runtime.prepare(&component, stem).unwrap().instantiate(&runtime).unwrap().info().unwrap();
        let rest = stem.strip_prefix(&format!("{}-", info.harness));
        assert!(rest.is_some(), "{stem}.wasm is not named after its harness {}", info.harness);
        let rest = rest.unwrap();
        // The codec version, or the one native version a pinned codec is tested with.
        let pinned = PINNED.iter().any(|(h, pin)| *h == info.harness && *pin == rest);
        assert!(rest == info.codec_version || pinned, "{stem}.wasm: codec {}@{}", info.harness, info.codec_version);
        harnesses.push(info.harness);
    }
    assert!(harnesses.iter().any(|h| h == "cursor"), "no Cursor plugin file in {}", plugin_files_dir().display());
    assert!(harnesses.iter().any(|h| h == "fx"), "no fx plugin file");
}

#[test]
fn cursor_is_not_built_in_and_installs_from_its_plugin_file() {
    let file = plugin_files_dir().join("cursor-2026.10.01.wasm");
    assert!(file.is_file(), "{} was not built", file.display());
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let chat = home.path().join(".cursor/chats/f6a64ec9b56693ba17c51890fb3e78b6/a1b2c3d4-e5f6-7890-abcd-ef1234567890");
    std::fs::create_dir_all(&chat).unwrap();
    std::fs::write(chat.join("store.db"), b"").unwrap();

    // Without the plugin: listed as a harness with no installed codec.
    let list = trajhost(data.path(), &["plugin", "list"]);
    assert!(!stdout(&list).contains("cursor@"), "{}", stdout(&list));
    let sessions = trajhost(data.path(), &["sessions", "--home", home.path().to_str().unwrap()]);
    assert!(sessions.status.success(), "{}", stderr(&sessions));
    let table = stdout(&sessions);
    assert!(
        table.contains("a1b2c3d4-e5f6-7890-abcd-ef1234567890")
            && table.contains("no codec installed: cursor-2026.10.01.wasm"),
        "{table}"
    );
    assert!(stderr(&sessions).contains("trajhost plugin install cursor-2026.10.01.wasm"), "{}", stderr(&sessions));
    let listed = trajhost(data.path(), &["sessions", "--harness", "cursor", "--home", home.path().to_str().unwrap()]);
    assert_eq!(listed.status.code(), Some(3), "{}", stderr(&listed));
    assert!(stderr(&listed).contains("ships as the plugin file cursor-2026.10.01.wasm"), "{}", stderr(&listed));
    let read = trajhost(data.path(), &["read", "a1b2c3d4", "--home", home.path().to_str().unwrap()]);
    assert_eq!(read.status.code(), Some(3), "{}", stderr(&read));
    assert!(stderr(&read).contains("is a cursor session, and no cursor codec is installed"), "{}", stderr(&read));

    // After one install: a codec like any other, verified.
    let install = trajhost(data.path(), &["plugin", "install", file.to_str().unwrap()]);
    assert!(install.status.success(), "{}", stderr(&install));
    let list = trajhost(data.path(), &["plugin", "list"]);
    assert!(stdout(&list).lines().any(|l| l.starts_with("cursor@") && l.contains("installed")), "{}", stdout(&list));
    let verify = trajhost(data.path(), &["plugin", "verify"]);
    assert!(verify.status.success(), "{}{}", stdout(&verify), stderr(&verify));
    assert!(stdout(&verify).contains("cursor@"), "{}", stdout(&verify));
    let sessions = trajhost(data.path(), &["sessions", "--home", home.path().to_str().unwrap()]);
    assert!(!stdout(&sessions).contains("no codec installed"), "{}", stdout(&sessions));
}
