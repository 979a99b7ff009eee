//! Builds every codec under `plugins/` (and the test guests under `tests/`)
//! for wasm32-wasip2 and embeds the codecs in the binary, so a plain
//! `cargo build` or `cargo install --path host` gives working built-ins.
//!
//! rustup does not add rust-toolchain.toml's `targets` to a toolchain that is
//! already installed, so a missing wasm32-wasip2 is added here (with rustup),
//! or the build stops saying what to run, before any guest is compiled.

#[path = "build/toolchain.rs"]
mod toolchain;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};
use toolchain::TargetPlan;

const GUEST_TARGET: &str = "wasm32-wasip2";
const GUEST_PROFILE: &str = "guest";
const GUEST_RUSTFLAGS: &str = "-C target-feature=+simd128";
/// Guests that exist only for the host's tests.
const TEST_GUESTS: &[&str] = &[
    "tests/hostile",
    "tests/broken",
    "tests/install-ops",
    "tests/hostile-import",
    "tests/hostile-api",
    "tests/toy/v1",
    "tests/toy/v2",
    "tests/toy/reorder",
];

fn main() {
    // This crate lives at crates/registry: the workspace root is two up.
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = crate_dir.ancestors().nth(2).unwrap().to_path_buf();
    for watched in [
        "plugins",
        "sdk",
        "wit",
        "tests/hostile",
        "tests/hostile-import",
        "tests/hostile-api",
        "tests/toy",
        "tests/broken",
        "tests/install-ops",
        "Cargo.lock",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(watched).display());
    }

    let plugins = crate_dirs(&root.join("plugins"));
    let mut packages: Vec<(PathBuf, String)> = plugins.iter().map(|d| (d.clone(), package_name(d))).collect();
    let test_guests: Vec<(PathBuf, String)> = TEST_GUESTS
        .iter()
        .map(|d| root.join(d))
        .filter(|d| d.join("Cargo.toml").exists())
        .map(|d| {
            let name = package_name(&d);
            (d, name)
        })
        .collect();
    packages.extend(test_guests.iter().cloned());

    if !ensure_guest_target() {
        return; // cargo::error= was printed: cargo stops the build.
    }
    let target_dir = root.join("target").join("guests");
    build_guests(&root, &target_dir, &packages);
    let out_dir = target_dir.join(GUEST_TARGET).join(GUEST_PROFILE);

    let workspace_version = workspace_version(&root);
    let plugin_files = root.join("target").join("plugins");
    std::fs::create_dir_all(&plugin_files).unwrap_or_else(|e| panic!("{}: {e}", plugin_files.display()));
    let mut code = String::from(
        "/// Codecs compiled from `plugins/` and embedded at build time.\npub static BUILTIN_CODECS: &[BuiltinCodec] = &[\n",
    );
    let mut separate = String::from(
        "/// Codecs under `plugins/` that ship only as plugin files: (harness, file name).\npub static PLUGIN_FILE_ONLY: &[(&str, &str)] = &[\n",
    );
    for dir in &plugins {
        let name = package_name(dir);
        let wasm = out_dir.join(format!("{}.wasm", name.replace('-', "_")));
        let bytes = std::fs::read(&wasm).unwrap_or_else(|e| panic!("{}: {e}", wasm.display()));
        let facts = plugin_facts(dir, &workspace_version);
        // Every codec is also a standalone plugin file, for `plugin install`.
        let file = plugin_files.join(format!("{}.wasm", facts.file_stem));
        if std::fs::read(&file).ok().as_deref() != Some(&bytes[..]) {
            std::fs::write(&file, &bytes).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        }
        if !facts.builtin {
            writeln!(separate, "    ({:?}, {:?}),", facts.harness, format!("{}.wasm", facts.file_stem)).unwrap();
            continue;
        }
        let sha = hex(&Sha256::digest(&bytes));
        writeln!(
            code,
            "    BuiltinCodec {{ package: {name:?}, sha256: {sha:?}, wasm: include_bytes!({:?}) }},",
            wasm.display().to_string()
        )
        .unwrap();
    }
    // A plugin file of a codec that is gone or renamed would be installable by mistake.
    let produced: Vec<PathBuf> = plugins
        .iter()
        .map(|d| plugin_files.join(format!("{}.wasm", plugin_facts(d, &workspace_version).file_stem)))
        .collect();
    if let Ok(entries) = std::fs::read_dir(&plugin_files) {
        for stale in entries.filter_map(|e| e.ok()).map(|e| e.path()) {
            if stale.extension().is_some_and(|e| e == "wasm") && !produced.contains(&stale) {
                let _ = std::fs::remove_file(&stale);
            }
        }
    }
    code.push_str("];\n");
    separate.push_str("];\n");
    code.push_str(&separate);
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("builtin_codecs.rs");
    std::fs::write(&out, code).unwrap();
    println!("cargo:rustc-env=TRAJHOST_PLUGIN_FILES_DIR={}", plugin_files.display());
    println!("cargo:rustc-env=TRAJHOST_GUESTS_DIR={}", out_dir.display());
}

fn crate_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.join("Cargo.toml").exists()).collect())
        .unwrap_or_default();
    dirs.sort();
    dirs
}

/// What a plugin crate's `[package.metadata.trajhost]` says about its plugin file.
struct PluginFacts {
    harness: String,
    /// Embedded in the host (default), or shipped only as a plugin file.
    builtin: bool,
    /// `<harness>-<native version pin or codec version>`.
    file_stem: String,
}

fn plugin_facts(dir: &Path, workspace_version: &str) -> PluginFacts {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let value: toml::Table = toml::from_str(&manifest).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let package = &value["package"];
    let meta = package.get("metadata").and_then(|m| m.get("trajhost")).unwrap_or_else(|| {
        panic!("{}: [package.metadata.trajhost] harness = \"…\" is missing", dir.join("Cargo.toml").display())
    });
    let harness = meta.get("harness").and_then(|h| h.as_str()).unwrap_or_else(|| {
        panic!("{}: [package.metadata.trajhost] needs harness = \"…\"", dir.join("Cargo.toml").display())
    });
    let version = package.get("version").and_then(|v| v.as_str()).unwrap_or(workspace_version);
    let file_stem = match meta.get("plugin-file").and_then(|f| f.as_str()) {
        Some(stem) => stem.to_string(),
        None => format!("{harness}-{version}"),
    };
    PluginFacts {
        harness: harness.to_string(),
        builtin: meta.get("builtin").and_then(|b| b.as_bool()).unwrap_or(true),
        file_stem,
    }
}

fn workspace_version(root: &Path) -> String {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let value: toml::Table = toml::from_str(&manifest).unwrap();
    value["workspace"]["package"]["version"].as_str().unwrap().to_string()
}

fn package_name(dir: &Path) -> String {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let value: toml::Table = toml::from_str(&manifest).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    value["package"]["name"].as_str().unwrap().to_string()
}

fn build_guests(root: &Path, target_dir: &Path, packages: &[(PathBuf, String)]) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .arg("build")
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .args(["--target", GUEST_TARGET, "--profile", GUEST_PROFILE])
        .arg("--target-dir")
        .arg(target_dir);
    for (_, name) in packages {
        cmd.args(["-p", name]);
    }
    // The outer build's settings are for the host target, not the guests.
    for var in [
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_LLVM_COV",
        "LLVM_PROFILE_FILE",
    ] {
        cmd.env_remove(var);
    }
    // SIMD in the guests: memchr and the UTF-8 checks use 128-bit vectors
    // (wasmtime compiles them to SSE/NEON), about a tenth off a JSONL read.
    cmd.env("CARGO_TARGET_WASM32_WASIP2_RUSTFLAGS", GUEST_RUSTFLAGS);
    let output = cmd.output().expect("running cargo to build the wasm guests");
    let log = target_dir.join("build-failure.log");
    if output.status.success() {
        let _ = std::fs::remove_file(&log); // from an earlier failed build
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let saved = match std::fs::create_dir_all(target_dir).and_then(|()| std::fs::write(&log, stderr.as_bytes())) {
            Ok(()) => format!("cargo's whole output: {}", log.display()),
            Err(e) => format!("(could not save cargo's whole output to {}: {e})", log.display()),
        };
        panic!(
            "building the wasm guests failed (cargo build --target {GUEST_TARGET} --profile {GUEST_PROFILE}):\n\n{}\n\n{saved}",
            toolchain::relevant_cargo_errors(&stderr, 60)
        );
    }
}

/// Makes sure the guests' target is installed; false when the build must
/// stop (the reason is printed as `cargo::error=`).
fn ensure_guest_target() -> bool {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let sysroot = match Command::new(&rustc).args(["--print", "sysroot"]).output() {
        Ok(out) if out.status.success() => PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()),
        Ok(out) => {
            let err = String::from_utf8_lossy(&out.stderr);
            println!("cargo::error=`{} --print sysroot` failed: {}", Path::new(&rustc).display(), err.trim());
            return false;
        }
        Err(e) => {
            println!("cargo::error=cannot run `{} --print sysroot`: {e}", Path::new(&rustc).display());
            return false;
        }
    };
    // Removing the target later (`rustup target remove`) must make the next
    // build add it again, not reuse this script's cached run.
    println!("cargo:rerun-if-changed={}", sysroot.join("lib").join("rustlib").join(GUEST_TARGET).join("lib").display());
    let installed = toolchain::target_installed(&sysroot, GUEST_TARGET);
    let rustup = if installed { None } else { find_rustup() };
    let owner = toolchain::rustup_toolchain_of(&sysroot);
    match toolchain::target_plan(GUEST_TARGET, &sysroot, installed, rustup.is_some(), owner.as_deref()) {
        TargetPlan::Ready => true,
        TargetPlan::Install { toolchain } => {
            let rustup = rustup.expect("planned only when rustup was found");
            let shown = format!("rustup target add {GUEST_TARGET} --toolchain {toolchain}");
            let result =
                Command::new(&rustup).args(["target", "add", GUEST_TARGET, "--toolchain", &toolchain]).output();
            let failure = match result {
                Ok(out) if out.status.success() && toolchain::target_installed(&sysroot, GUEST_TARGET) => None,
                Ok(out) if out.status.success() => {
                    Some(format!("it succeeded but {} still lacks it", sysroot.display()))
                }
                Ok(out) => {
                    let err = String::from_utf8_lossy(&out.stderr);
                    Some(err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no message").trim().to_string())
                }
                Err(e) => Some(e.to_string()),
            };
            match failure {
                None => {
                    println!(
                        "cargo:warning=added the {GUEST_TARGET} target the built-in codecs are compiled to: `{shown}` (once per toolchain)"
                    );
                    true
                }
                Some(reason) => {
                    println!(
                        "cargo::error=the {GUEST_TARGET} target is missing and `{shown}` failed ({reason}): run it yourself, then build again"
                    );
                    false
                }
            }
        }
        TargetPlan::Stop(message) => {
            println!("cargo::error={message}");
            false
        }
    }
}

/// rustup on PATH, else in `$CARGO_HOME/bin` (where rustup installs itself).
fn find_rustup() -> Option<PathBuf> {
    let mut candidates = vec![PathBuf::from("rustup")];
    if let Some(home) = std::env::var_os("CARGO_HOME") {
        candidates.push(Path::new(&home).join("bin").join("rustup"));
    }
    candidates
        .into_iter()
        .find(|rustup| Command::new(rustup).arg("--version").output().is_ok_and(|out| out.status.success()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
