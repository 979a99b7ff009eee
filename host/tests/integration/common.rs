//! Shared helpers: paths of the test guests and fixtures, runtimes with
//! test limits, and the CLI binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use trajhost::Limits;
use trajhost::runtime::{LoadedCodec, Mode, Runtime};

/// A wasm component built from `plugins/` or `tests/` by build.rs.
pub fn guest(package: &str) -> PathBuf {
    let path = Path::new(trajhost::registry::builtin::GUESTS_DIR).join(format!("{}.wasm", package.replace('-', "_")));
    assert!(path.exists(), "{} was not built", path.display());
    path
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// `fixtures/<harness>/<version>/<scenario>`: a HOME written by the real CLI.
pub fn fixture_home(harness: &str, version: &str, scenario: &str) -> PathBuf {
    let path = repo_root().join("fixtures").join(harness).join(version).join(scenario);
    assert!(path.is_dir(), "missing fixture {}", path.display());
    path
}

/// A compiled-component cache shared by every test (writes are atomic), so
/// the built-in codecs are compiled once per test run, not once per test.
pub fn shared_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("trajhost-cache")
}

/// The target dir of every codec crate `plugin new` scaffolds in the tests:
/// one, so the SDK is built once per run for all of them (cargo locks it).
pub fn scaffold_target_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("scaffold-target")
}

/// `cargo ARGS` in a scaffolded crate, in [`scaffold_target_dir`], with none
/// of the outer test build's settings.
pub fn scaffold_cargo(crate_dir: &Path, args: &[&str]) -> std::process::Output {
    let mut cargo = std::process::Command::new("cargo");
    cargo.current_dir(crate_dir).args(args).env("CARGO_TARGET_DIR", scaffold_target_dir());
    for var in [
        "CARGO_BUILD_TARGET",
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_LLVM_COV",
        "LLVM_PROFILE_FILE",
    ] {
        cargo.env_remove(var);
    }
    cargo.output().expect("running cargo")
}

/// Limits small enough that hostile guests fail fast.
pub fn test_limits() -> Limits {
    Limits {
        call_timeout: Duration::from_secs(3),
        memory_bytes: 512 << 20,
        max_batch_bytes: 8 << 20,
        ..Limits::default()
    }
}

/// A runtime and an empty registry with the shared compiled cache: the
/// built-in codecs' catalog, for tests that use the library directly.
pub struct CatalogHost {
    _data: tempfile::TempDir,
    registry: trajhost::registry::Registry,
    runtime: Runtime,
}

impl CatalogHost {
    pub fn new() -> CatalogHost {
        let data = tempfile::tempdir().unwrap();
        let registry = trajhost::registry::Registry::new(data.path());
        let runtime = Runtime::new(test_limits(), Some(&shared_cache()), Mode::Production).unwrap();
        CatalogHost { _data: data, registry, runtime }
    }
    pub fn catalog(&self) -> trajhost::catalog::Catalog<'_> {
        trajhost::catalog::Catalog::open(&self.runtime, &self.registry).unwrap()
    }
}

pub fn runtime(limits: Limits) -> Runtime {
    Runtime::new(limits, None, Mode::Production).expect("runtime")
}

pub fn load(runtime: &Runtime, package: &str) -> LoadedCodec {
    let path = guest(package);
    let bytes = std::fs::read(&path).unwrap();
    let component = runtime.compile(&bytes, package).expect("compiles");
    runtime.prepare(&component, package).expect("links")
}

/// Runs the `trajhost` binary with its own data directory.
pub fn trajhost(data_dir: &Path, args: &[&str]) -> Output {
    trajhost_with_env(data_dir, args, &[])
}

/// [`trajhost`] with more environment variables (e.g. a `PATH`).
pub fn trajhost_with_env(data_dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_trajhost"))
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .env_remove("TRAJHOST_HOME")
        .env("TRAJHOST_CACHE_DIR", shared_cache())
        .envs(env.iter().copied())
        .output()
        .expect("running trajhost")
}

/// Copies the files and folders of `from` into `to` (symlinks are left out).
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        let meta = std::fs::symlink_metadata(entry.path()).unwrap();
        if meta.is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            copy_tree(&entry.path(), &dest);
        } else if meta.is_file() {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A toy-format home with one session per (id, native version).
pub fn toy_home(sessions: &[(&str, &str)]) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("toy")).unwrap();
    for (id, version) in sessions {
        let body = format!(
            "{{\"v\":\"{version}\",\"role\":\"user\",\"text\":\"hello from {id}\"}}\n{{\"v\":\"{version}\",\"role\":\"assistant\",\"text\":\"hi\"}}\n"
        );
        std::fs::write(home.path().join("toy").join(format!("{id}.jsonl")), body).unwrap();
    }
    home
}

/// sha256 of every file under `dir`, by relative path.
pub fn tree_hashes(dir: &Path) -> std::collections::BTreeMap<PathBuf, String> {
    use sha2::{Digest, Sha256};
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() {
                out.insert(
                    path.strip_prefix(dir).unwrap().to_path_buf(),
                    format!("symlink -> {}", std::fs::read_link(&path).unwrap().display()),
                );
            } else if meta.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.insert(path.strip_prefix(dir).unwrap().to_path_buf(), hex::encode(Sha256::digest(&bytes)));
            }
        }
    }
    out
}

/// Converts the Claude Code `simple` fixture session to `to` into a new
/// export directory under `out`; returns the export dir and its manifest.
pub fn convert_claude_fixture(data_dir: &Path, out: &Path, to: &str) -> (PathBuf, serde_json::Value) {
    let export = out.join("export");
    let home = fixture_home("claude-code", "2.1.197", "simple");
    let args = ["convert", "61ec73f4", "--home", home.to_str().unwrap(), "--to", to, "--out", export.to_str().unwrap()];
    let convert = trajhost(data_dir, &args);
    assert!(convert.status.success(), "{}", stderr(&convert));
    let manifest = serde_json::from_slice(&std::fs::read(export.join("export.json")).unwrap()).unwrap();
    (export, manifest)
}

/// `fixtures/<harness>/<version>/<scenario>`, the conformance fixtures under `broken/` left out.
pub fn fixture_homes() -> Vec<PathBuf> {
    let mut homes = Vec::new();
    for harness in std::fs::read_dir(repo_root().join("fixtures")).unwrap().flatten() {
        if harness.file_name() == "broken" || !harness.path().is_dir() {
            continue;
        }
        for version in std::fs::read_dir(harness.path()).unwrap().flatten().filter(|d| d.path().is_dir()) {
            for scenario in std::fs::read_dir(version.path()).unwrap().flatten().filter(|d| d.path().is_dir()) {
                homes.push(scenario.path());
            }
        }
    }
    homes.sort();
    homes
}

/// The lab's scenarios: sessions the real harness CLIs wrote.
pub const LAB_SCENARIOS: [&str; 5] = ["simple", "parallel", "failing-tool", "multibyte", "long-output"];
