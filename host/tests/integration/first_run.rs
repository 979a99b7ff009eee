//! A fresh install compiles only the codecs a command needs: the built-ins'
//! `info` is declared in `crates/registry/src/builtin-info.json` (checked here
//! against every component), and discovery runs no codec whose stores are
//! not under the home.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use trajhost::registry::builtin::{BUILTIN_CODECS, DECLARED_INFO_FILE, DeclaredInfo, declared_infos};
use trajhost::runtime::{Mode, Runtime};

use crate::common::{fixture_home, shared_cache, test_limits};

/// Every built-in's declared info is what its component returns.
/// `TRAJHOST_BLESS=1` rewrites the file from the components.
#[test]
fn declared_info_matches_every_builtin() {
    let runtime = Runtime::new(test_limits(), Some(&shared_cache()), Mode::Production).unwrap();
    let mut real = BTreeMap::new();
    for builtin in BUILTIN_CODECS {
        let (component, _) = runtime.load(builtin.wasm, builtin.sha256, builtin.package).unwrap();
        let info = runtime.prepare(&component, builtin.package).unwrap().instantiate(&runtime).unwrap().info().unwrap();
        real.insert(builtin.package.to_string(), DeclaredInfo::of(&info));
    }
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(DECLARED_INFO_FILE);
    if std::env::var_os("TRAJHOST_BLESS").is_some() {
        let mut json = serde_json::to_string_pretty(&real).unwrap();
        json.push('\n');
        std::fs::write(&file, json).unwrap();
        return;
    }
    let declared = declared_infos();
    for (package, info) in &real {
        assert_eq!(
            declared.get(package),
            Some(info),
            "{} is stale for {package}: run `TRAJHOST_BLESS=1 cargo test -p trajhost --test integration declared_info`",
            file.display()
        );
    }
    let extra: Vec<&String> = declared.keys().filter(|p| !real.contains_key(*p)).collect();
    assert!(extra.is_empty(), "{} declares packages that are not built in: {extra:?}", file.display());
}

/// `trajhost ARGS…` with an empty compiled cache of its own; returns the
/// exit code and how many codecs it compiled (`*.cwasm` in the cache).
fn fresh_install_run(args: &[&str], home: &Path) -> (Option<i32>, usize, String) {
    let data = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_trajhost"))
        .arg("--data-dir")
        .arg(data.path())
        .args(args)
        .env("HOME", home)
        .env("TRAJHOST_CACHE_DIR", cache.path())
        .env_remove("TRAJHOST_HOME")
        .env_remove("CODEX_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .unwrap();
    let mut compiled = 0;
    let mut dirs = vec![cache.path().to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "cwasm") {
                compiled += 1;
            }
        }
    }
    (output.status.code(), compiled, String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn the_first_command_compiles_only_what_it_needs() {
    let empty = tempfile::tempdir().unwrap();
    let (code, compiled, stderr) = fresh_install_run(&["sessions"], empty.path());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(compiled, 0, "`sessions` on an empty home compiled {compiled} codecs");

    // A Claude Code home: only Claude Code's codecs are compiled.
    let home = fixture_home("claude-code", "2.1.197", "simple");
    let (code, compiled, stderr) = fresh_install_run(&["sessions", "--home", &home.to_string_lossy()], empty.path());
    assert_eq!(code, Some(0), "{stderr}");
    let claude_codecs = BUILTIN_CODECS.iter().filter(|b| b.package.contains("claude-code")).count();
    assert!(
        (1..=claude_codecs).contains(&compiled),
        "`sessions` in a Claude Code home compiled {compiled} codecs (Claude Code has {claude_codecs})"
    );

    // One session file in its layout: one codec.
    let session = std::fs::read_dir(home.join(".claude/projects/-home-user-project"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let (code, compiled, stderr) = fresh_install_run(&["read", &session.to_string_lossy(), "--json"], empty.path());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(compiled, 1, "`read FILE` compiled {compiled} codecs");
}
