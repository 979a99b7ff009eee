//! The decisions `host/build.rs` makes about the guests' toolchain, without
//! side effects, so that the host's integration tests can check them (cargo
//! never runs a build script's own tests).

use std::path::Path;

/// What to do about the guests' target before building them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetPlan {
    /// Its standard library is in the compiler's sysroot.
    Ready,
    /// Missing: `rustup target add TARGET --toolchain TOOLCHAIN`.
    Install { toolchain: String },
    /// Missing and not installable from here: stop the build with this
    /// message (one line, saying what to run).
    Stop(String),
}

/// Whether `sysroot` holds the standard library for `target`.
pub fn target_installed(sysroot: &Path, target: &str) -> bool {
    sysroot.join("lib").join("rustlib").join(target).join("lib").is_dir()
}

/// The rustup toolchain a sysroot belongs to: rustup keeps each toolchain in
/// `$RUSTUP_HOME/toolchains/<name>`, and that name is what `--toolchain` takes.
pub fn rustup_toolchain_of(sysroot: &Path) -> Option<String> {
    let parent = sysroot.parent()?;
    if parent.file_name()? != "toolchains" {
        return None;
    }
    sysroot.file_name()?.to_str().map(String::from)
}

/// Decides from what was found: is the target in the sysroot, was rustup
/// found, and which rustup toolchain (if any) owns the compiler's sysroot.
pub fn target_plan(
    target: &str,
    sysroot: &Path,
    installed: bool,
    rustup_found: bool,
    toolchain: Option<&str>,
) -> TargetPlan {
    if installed {
        return TargetPlan::Ready;
    }
    match (rustup_found, toolchain) {
        (true, Some(toolchain)) => TargetPlan::Install { toolchain: toolchain.to_string() },
        (true, None) => TargetPlan::Stop(format!(
            "the Rust compiler in {} has no {target} standard library and is not a rustup toolchain, so it cannot be \
             added here: install the {target} target for that compiler, or build with rustup's toolchain \
             (rust-toolchain.toml) after `rustup target add {target}`",
            sysroot.display()
        )),
        (false, _) => TargetPlan::Stop(format!(
            "the {target} target (the built-in codecs are compiled to it) is not installed for the Rust compiler in {}, \
             and rustup was not found to add it: run `rustup target add {target}` (rustup: https://rustup.rs), or \
             install your distribution's {target} standard library for this compiler",
            sysroot.display()
        )),
    }
}

/// Cargo progress lines, never the reason a build failed.
fn is_progress(line: &str) -> bool {
    let line = line.trim_start();
    [
        "Compiling ",
        "Checking ",
        "Building ",
        "Downloading ",
        "Downloaded ",
        "Updating ",
        "Locking ",
        "Adding ",
        "Blocking ",
        "Fresh ",
        "Finished ",
        "Running ",
    ]
    .iter()
    .any(|p| line.starts_with(p))
        || line.starts_with("warning: build failed, waiting for other jobs")
}

/// The part of a failed cargo build's stderr worth reading first: from the
/// first `error` line on, without progress lines, at most `max_lines` lines.
/// Without any `error` line, the last `max_lines` non-progress lines.
pub fn relevant_cargo_errors(stderr: &str, max_lines: usize) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !is_progress(l)).collect();
    let (start, from_error) = match lines.iter().position(|l| l.trim_start().starts_with("error")) {
        Some(first) => (first, true),
        None => (lines.len().saturating_sub(max_lines), false),
    };
    let shown = &lines[start..(start + max_lines).min(lines.len())];
    let mut out = shown.join("\n");
    let left = lines.len() - start - shown.len();
    if from_error && left > 0 {
        out.push_str(&format!("\n… {left} more lines"));
    }
    out
}
