//! The performance invariants CI can check in seconds (docs/performance.md):
//! peak memory does not grow with the session's size, and a warm load never
//! recompiles. Invariants, not wall-clock times.

use std::process::{Command, Stdio};

use trajhost::bench::{self, Format, Spec};
use trajhost::runtime::LoadKind;

use crate::common::shared_cache;

/// Peak RSS of `trajhost read FILE --json > /dev/null`.
fn read_peak_rss(data_dir: &std::path::Path, file: &std::path::Path) -> u64 {
    let mut command = Command::new(env!("CARGO_BIN_EXE_trajhost"));
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
    let compiled: Vec<&String> = loads.iter().filter(|(_, kind)| *kind != LoadKind::CacheHit).map(|(name, _)| name).collect();
    assert!(compiled.is_empty(), "a warm load recompiled: {compiled:?}");
}
