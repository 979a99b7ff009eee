//! trajhost-bench's integration tests: the performance invariants CI can
//! check in seconds (docs/performance.md). Peak memory of `trajhost read`
//! does not grow with the session's size, and a warm load never recompiles.
//! Invariants, not wall-clock times.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use trajhost::runtime::LoadKind;
use trajhost_bench::{self as bench, Format, Spec};

/// The compiled-code cache the host's integration tests share (same target dir).
fn shared_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("trajhost-cache")
}

/// The `trajhost` binary of this checkout: another package's binary, so
/// cargo builds it on request (a no-op when it is up to date).
fn trajhost() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| bench::trajhost_exe().unwrap_or_else(|e| panic!("the trajhost binary: {e}")))
}

/// Peak RSS of `trajhost read FILE --json > /dev/null`.
fn read_peak_rss(data_dir: &Path, file: &Path) -> u64 {
    let mut command = Command::new(trajhost());
    command
        .arg("--data-dir")
        .arg(data_dir)
        .arg("read")
        .arg(file)
        .arg("--json")
        .env_remove("TRAJHOST_HOME")
        .env("TRAJHOST_CACHE_DIR", shared_cache())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let run = bench::run_child(&mut command).expect("running trajhost read");
    assert_eq!(run.exit_code, 0, "trajhost read {} failed", file.display());
    run.peak_rss
}

#[test]
fn peak_memory_stays_flat_as_the_session_grows() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let generate = |mb: u64| {
        let mut spec = Spec::new(Format::ClaudeCode, mb * 1_000_000);
        spec.max_line_bytes = 1 << 20;
        bench::corpus::generate(&dir.path().join(format!("home-{mb}")), &spec).unwrap()
    };
    let small = generate(1);
    let large = generate(20);
    assert!(large.bytes >= 20_000_000 && small.bytes < 2_000_000, "corpus sizes {} and {}", small.bytes, large.bytes);
    // The first run may compile the codec (first use); measure warm runs.
    read_peak_rss(&data, &small.path);
    let small_peak = read_peak_rss(&data, &small.path);
    let large_peak = read_peak_rss(&data, &large.path);
    let margin = 48 << 20;
    assert!(
        large_peak <= small_peak + margin,
        "peak RSS grows with input: 1 MB session {} MiB, 20 MB session {} MiB (allowed +48 MiB)",
        small_peak >> 20,
        large_peak >> 20
    );
}

#[test]
fn a_warm_load_never_recompiles() {
    // Two "processes" over the shared cache: the second compiles nothing.
    let loads = bench::warm_catalog_loads(&shared_cache()).unwrap();
    assert!(!loads.is_empty());
    let compiled: Vec<&String> =
        loads.iter().filter(|(_, kind)| *kind != LoadKind::CacheHit).map(|(name, _)| name).collect();
    assert!(compiled.is_empty(), "a warm load recompiled: {compiled:?}");
}
