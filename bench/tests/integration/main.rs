//! trajhost-bench's integration tests: the performance invariants CI can
//! check in seconds (docs/performance.md). Peak memory of `trajhost read`,
//! `trajhost convert` and `trajhost sync` does not grow with the session's size, a warm load
//! never recompiles, and a first command compiles only the codecs it needs.
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

/// Peak RSS of `trajhost ARGS… > /dev/null` over the shared cache.
fn peak_rss(data_dir: &Path, args: &[&std::ffi::OsStr]) -> u64 {
    let mut command = Command::new(trajhost());
    command
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .env_remove("TRAJHOST_HOME")
        .env("TRAJHOST_CACHE_DIR", shared_cache())
        .stdout(Stdio::null());
    // stderr goes to a file, not a pipe nobody drains: it is read back only to say why a run failed.
    let stderr_path = data_dir.with_extension("stderr");
    let stderr = std::fs::File::create(&stderr_path).expect("creating the stderr file");
    command.stderr(stderr);
    let run = bench::run_child(&mut command).expect("running trajhost");
    let said = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    let _ = std::fs::remove_file(&stderr_path);
    assert_eq!(run.exit_code, 0, "trajhost {args:?} failed: {said}");
    run.peak_rss
}

/// Peak RSS of `trajhost read FILE --json > /dev/null`.
fn read_peak_rss(data_dir: &Path, file: &Path) -> u64 {
    peak_rss(data_dir, &["read".as_ref(), file.as_os_str(), "--json".as_ref()])
}

/// Peak RSS of `trajhost convert FILE --to codex --out DIR --json`.
fn convert_peak_rss(data_dir: &Path, file: &Path, out: &Path) -> u64 {
    let _ = std::fs::remove_dir_all(out);
    let args =
        ["convert".as_ref(), file.as_os_str(), "--to".as_ref(), "codex".as_ref(), "--out".as_ref(), out.as_os_str()];
    peak_rss(data_dir, &args)
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
    // Convert streams too: two codec instances and the fidelity digests, not the session.
    let out = dir.path().join("export");
    convert_peak_rss(&data, &small.path, &out);
    let small_peak = convert_peak_rss(&data, &small.path, &out);
    let large_peak = convert_peak_rss(&data, &large.path, &out);
    let _ = std::fs::remove_dir_all(&out);
    assert!(
        large_peak <= small_peak + margin,
        "convert's peak RSS grows with input: 1 MB session {} MiB, 20 MB session {} MiB (allowed +48 MiB)",
        small_peak >> 20,
        large_peak >> 20
    );
}

#[test]
fn sync_memory_stays_flat_as_the_session_grows() {
    // A session streams into the archive in bounded parts: records a batch
    // at a time, evidence in chunks; never whole. Each size into its own archive.
    let dir = tempfile::tempdir().unwrap();
    let generate = |mb: u64| {
        let mut spec = Spec::new(Format::ClaudeCode, mb * 1_000_000);
        spec.max_line_bytes = 1 << 20;
        bench::corpus::generate(&dir.path().join(format!("home-{mb}")), &spec).unwrap()
    };
    // From 10 MB up, past the fixed cost of the bounded parts in flight (a few 4 MiB evidence chunks),
    // which a 1 MB session never reaches: the goal is flat from 10 MB to 1 GB.
    let (small, large) = (generate(10), generate(40));
    let sync_peak = |session: &bench::corpus::Generated, data: &str| {
        let data = dir.path().join(data);
        peak_rss(&data, &["sync".as_ref(), "--home".as_ref(), session.home.as_os_str(), "--json".as_ref()])
    };
    // Each archive is removed once measured: CI's disk is shared, and three archives of a 40 MB session add up.
    let measured = |session: &bench::corpus::Generated, data: &str| {
        let peak = sync_peak(session, data);
        let _ = std::fs::remove_dir_all(dir.path().join(data));
        peak
    };
    measured(&small, "warm-up");
    let small_peak = measured(&small, "data-small");
    let large_peak = measured(&large, "data-large");
    assert!(
        large_peak <= small_peak + (48 << 20),
        "sync's peak RSS grows with the session: 10 MB session {} MiB, 40 MB session {} MiB (allowed +48 MiB)",
        small_peak >> 20,
        large_peak >> 20
    );
}

#[test]
fn a_first_command_compiles_only_the_codecs_it_needs() {
    // A fresh data dir and an empty compiled-code cache: a first install.
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let mut spec = Spec::new(Format::ClaudeCode, 50_000);
    spec.max_line_bytes = 4096;
    let session = bench::corpus::generate(&home, &spec).unwrap();
    let compiled = |args: &[&std::ffi::OsStr], cache: &str| {
        let cache_dir = dir.path().join(cache);
        let output = Command::new(trajhost())
            .arg("--data-dir")
            .arg(dir.path().join(format!("data-{cache}")))
            .args(args)
            .env_remove("TRAJHOST_HOME")
            .env_remove("TRAJHOST_ARCHIVE")
            .env("TRAJHOST_CACHE_DIR", &cache_dir)
            .stdin(Stdio::null())
            .output()
            .expect("running trajhost");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "trajhost {args:?}: {stderr}");
        (bench::goals::compiled_count(&cache_dir), stderr)
    };
    // Listing a home that holds one Claude Code session runs the Claude Code codecs only.
    let (count, said) = compiled(&["sessions".as_ref(), "--home".as_ref(), home.as_os_str()], "sessions");
    let claude_codecs =
        trajhost::registry::builtin::declared_infos().values().filter(|i| i.harness == "claude-code").count();
    assert!(count >= 1 && count <= claude_codecs, "`sessions` compiled {count} codecs: {said}");
    // Reading one file compiles at most that harness's codecs.
    let (count, said) = compiled(&["read".as_ref(), session.path.as_os_str(), "--json".as_ref()], "read");
    assert!(count >= 1 && count <= claude_codecs, "`read` compiled {count} codecs: {said}");
    // An empty home needs no codec at all.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let (count, said) = compiled(&["sessions".as_ref(), "--home".as_ref(), empty.as_os_str()], "empty");
    assert_eq!(count, 0, "`sessions` on an empty home compiled codecs: {said}");
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

#[test]
fn the_session_of_repeated_real_lines_converts_without_loss_of_continuity() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let session = bench::goals::real_shaped_claude(&fixtures, &dir.path().join("home"), 300_000).unwrap();
    assert!(session.bytes >= 300_000 && session.lines > 100, "{} bytes, {} lines", session.bytes, session.lines);
    let output = Command::new(trajhost())
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .args(["convert".as_ref(), session.path.as_os_str(), "--to".as_ref(), "codex".as_ref(), "--out".as_ref()])
        .arg(dir.path().join("export"))
        .arg("--json")
        .env_remove("TRAJHOST_HOME")
        .env("TRAJHOST_CACHE_DIR", shared_cache())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}
