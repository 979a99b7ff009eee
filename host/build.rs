//! Builds every codec under `plugins/` (and the test guests under `tests/`)
//! for wasm32-wasip2 and embeds the codecs in the binary, so a plain
//! `cargo build` or `cargo install --path host` gives working built-ins.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

const GUEST_TARGET: &str = "wasm32-wasip2";
const GUEST_PROFILE: &str = "guest";
/// Guests that exist only for the host's tests.
const TEST_GUESTS: &[&str] = &["tests/hostile", "tests/broken", "tests/hostile-import", "tests/hostile-api", "tests/toy/v1", "tests/toy/v2"];

fn main() {
    let host_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = host_dir.parent().unwrap().to_path_buf();
    for watched in ["plugins", "sdk", "wit", "tests/hostile", "tests/hostile-import", "tests/hostile-api", "tests/toy", "tests/broken", "Cargo.lock"] {
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

    let target_dir = root.join("target").join("guests");
    build_guests(&root, &target_dir, &packages);
    let out_dir = target_dir.join(GUEST_TARGET).join(GUEST_PROFILE);

    let mut code = String::from("/// Codecs compiled from `plugins/` and embedded at build time.\npub static BUILTIN_CODECS: &[BuiltinCodec] = &[\n");
    for dir in &plugins {
        let name = package_name(dir);
        let wasm = out_dir.join(format!("{}.wasm", name.replace('-', "_")));
        let bytes = std::fs::read(&wasm).unwrap_or_else(|e| panic!("{}: {e}", wasm.display()));
        let sha = hex(&Sha256::digest(&bytes));
        writeln!(
            code,
            "    BuiltinCodec {{ package: {name:?}, sha256: {sha:?}, wasm: include_bytes!({:?}) }},",
            wasm.display().to_string()
        )
        .unwrap();
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("builtin_codecs.rs");
    std::fs::write(&out, code).unwrap();
    println!("cargo:rustc-env=TRAJHOST_GUESTS_DIR={}", out_dir.display());
}

fn crate_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.join("Cargo.toml").exists()).collect())
        .unwrap_or_default();
    dirs.sort();
    dirs
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
        "CARGO_TARGET_DIR", "CARGO_BUILD_TARGET", "RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS", "RUSTC_WORKSPACE_WRAPPER", "CARGO_LLVM_COV", "LLVM_PROFILE_FILE",
    ] {
        cmd.env_remove(var);
    }
    let output = cmd.output().expect("running cargo to build the wasm guests");
    if !output.status.success() {
        panic!(
            "building the wasm guests failed (is the {GUEST_TARGET} target installed? `rustup target add {GUEST_TARGET}`)\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
