//! The `trajhost` binary whose peak RSS is measured. It belongs to another
//! package, so cargo does not build it for this one. When cargo started us
//! (`cargo run`, `cargo test`: `$CARGO` is set), cargo builds it in our own
//! profile (a no-op when it is up to date), so a stale binary is never
//! measured. Otherwise the `trajhost` beside our own executable is used.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::{BenchError, Result};

/// Builds (under cargo) or finds the `trajhost` binary of this checkout.
pub fn trajhost_exe() -> Result<PathBuf> {
    let own = std::env::current_exe()
        .map_err(|e| BenchError::TrajhostBinary(format!("cannot tell where this program is: {e}")))?;
    let profile_dir = profile_dir(&own);
    match std::env::var_os("CARGO") {
        Some(cargo) => build_with_cargo(Path::new(&cargo), &profile_name(&profile_dir), target_dir(&profile_dir)),
        None => {
            let beside = profile_dir.join(format!("trajhost{}", std::env::consts::EXE_SUFFIX));
            if beside.is_file() {
                Ok(beside)
            } else {
                Err(BenchError::TrajhostBinary(format!(
                    "no trajhost binary at {}: build it with `cargo build -p trajhost` (same profile as this bench), \
                     run the bench with `cargo run -p trajhost-bench -- …`, or pass --trajhost PATH",
                    beside.display()
                )))
            }
        }
    }
}

/// `target/<profile>` for `target/<profile>/trajhost-bench` and for a test
/// binary in `target/<profile>/deps/`.
fn profile_dir(exe: &Path) -> PathBuf {
    let dir = exe.parent().unwrap_or(Path::new("."));
    if dir.file_name().is_some_and(|n| n == "deps") { dir.parent().unwrap_or(dir) } else { dir }.to_path_buf()
}

/// The target directory holding `profile_dir`, when it is one (cargo marks
/// it with CACHEDIR.TAG): builds there even under `cargo --target-dir DIR`.
fn target_dir(profile_dir: &Path) -> Option<&Path> {
    profile_dir.parent().filter(|dir| dir.join("CACHEDIR.TAG").is_file())
}

/// Cargo names the dev profile's directory `debug`; others by their name.
fn profile_name(profile_dir: &Path) -> String {
    match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => "dev".into(),
        Some(name) => name.into(),
    }
}

fn build_with_cargo(cargo: &Path, profile: &str, target_dir: Option<&Path>) -> Result<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let mut command = Command::new(cargo);
    command
        .arg("build")
        .arg("--manifest-path")
        .arg(&manifest)
        .args([
            "-p",
            "trajhost",
            "--bin",
            "trajhost",
            "--profile",
            profile,
            "--message-format",
            "json-render-diagnostics",
        ])
        .stdin(Stdio::null());
    if let Some(dir) = target_dir {
        command.arg("--target-dir").arg(dir);
    }
    let shown = format!("cargo build -p trajhost --bin trajhost --profile {profile}");
    let output = command.output().map_err(|e| BenchError::TrajhostBinary(format!("cannot run `{shown}`: {e}")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(BenchError::TrajhostBinary(format!("`{shown}` failed:\n{}", stderr.trim_end())));
    }
    executable_of(&String::from_utf8_lossy(&output.stdout), "trajhost")
        .ok_or_else(|| BenchError::TrajhostBinary(format!("`{shown}` succeeded but reported no trajhost executable")))
}

/// The `executable` of the bin target `name` in cargo's JSON messages.
fn executable_of(messages: &str, name: &str) -> Option<PathBuf> {
    messages
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_of_a_binary_and_of_a_test() {
        assert_eq!(profile_dir(Path::new("/t/debug/trajhost-bench")), Path::new("/t/debug"));
        assert_eq!(profile_dir(Path::new("/t/release/deps/integration-0123")), Path::new("/t/release"));
        assert_eq!(profile_name(Path::new("/t/debug")), "dev");
        assert_eq!(profile_name(Path::new("/t/release")), "release");
        assert_eq!(profile_name(Path::new("/t/guest")), "guest");
    }

    #[test]
    fn executable_from_cargo_messages() {
        let messages = concat!(
            r#"{"reason":"compiler-artifact","target":{"name":"trajhost","kind":["lib"]},"executable":null}"#,
            "\n",
            r#"{"reason":"compiler-artifact","target":{"name":"trajhost","kind":["bin"]},"executable":"/t/debug/trajhost"}"#,
            "\n",
            r#"{"reason":"build-finished","success":true}"#,
        );
        assert_eq!(executable_of(messages, "trajhost"), Some(PathBuf::from("/t/debug/trajhost")));
        assert_eq!(executable_of(messages, "other"), None);
    }
}
