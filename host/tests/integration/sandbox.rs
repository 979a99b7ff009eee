//! The hostile-plugin suite: every attack is stopped or refused with a
//! clear error, and the same host process then serves a good codec.

use std::time::{Duration, Instant};

use trajhost::runtime::Runtime;
use trajhost::wit::latest::codec::ReadOptions;
use trajhost::{HostError, LimitKind};

use crate::common::*;

fn options() -> ReadOptions {
    ReadOptions { max_batch_records: 1000, max_batch_bytes: 1 << 20 }
}

/// A home with a file outside it, symlinks that leave it, and a SQLite store.
struct Arena {
    _root: tempfile::TempDir,
    home: std::path::PathBuf,
}

fn arena() -> Arena {
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    std::fs::create_dir_all(home.join("sub")).unwrap();
    std::fs::write(root.path().join("outside.txt"), "secret outside the home").unwrap();
    std::fs::write(home.join("data.txt"), "inside").unwrap();
    std::os::unix::fs::symlink("/etc", home.join("escape")).unwrap();
    std::os::unix::fs::symlink("../outside.txt", home.join("escape-file")).unwrap();
    let db = rusqlite::Connection::open(home.join("store.sqlite")).unwrap();
    db.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3);").unwrap();
    drop(db);
    Arena { _root: root, home }
}

/// Runs one attack; returns the error (or the probe's answer as Ok).
fn attack(runtime: &Runtime, home: &std::path::Path, name: &str) -> Result<String, HostError> {
    let codec = load(runtime, "trajhost-hostile");
    let mut stream = codec.instantiate(runtime)?.read(home, name, options())?;
    let mut text = String::new();
    while let Some(batch) = stream.next_batch()? {
        text.push_str(&batch.records);
    }
    Ok(text)
}

/// The good codec still works in the same process.
fn assert_host_still_serves(runtime: &Runtime) {
    let home = toy_home(&[("after", "1.0.0")]);
    let codec = load(runtime, "trajhost-toy-v1");
    let mut stream = codec.instantiate(runtime).unwrap().read(home.path(), "toy/after.jsonl", options()).unwrap();
    let batch = stream.next_batch().unwrap().expect("a batch");
    assert!(batch.records.contains("hello from after"), "{}", batch.records);
}

fn expect_limit(result: Result<String, HostError>, kind: LimitKind) -> String {
    match result {
        Err(e @ HostError::LimitExceeded { kind: k, .. }) if k == kind => e.to_string(),
        other => panic!("expected the {kind} limit, got {other:?}"),
    }
}

fn expect_codec_error(result: Result<String, HostError>, needle: &str) -> String {
    match result {
        Err(HostError::Codec { message, .. }) if message.contains(needle) => message,
        other => panic!("expected a codec error containing {needle:?}, got {other:?}"),
    }
}

#[test]
fn infinite_loop_is_interrupted_at_the_deadline() {
    let runtime = runtime(test_limits());
    let arena = arena();
    let started = Instant::now();
    let message = expect_limit(attack(&runtime, &arena.home, "loop"), LimitKind::Time);
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_secs(2) && elapsed < Duration::from_secs(20), "stopped after {elapsed:?}");
    assert!(message.contains("hostile") && message.contains("read"), "{message}");
    assert_host_still_serves(&runtime);
}

#[test]
fn unbounded_allocation_hits_the_memory_cap() {
    let runtime = runtime(test_limits());
    let arena = arena();
    let message = expect_limit(attack(&runtime, &arena.home, "alloc"), LimitKind::Memory);
    assert!(message.contains("536870912 bytes"), "{message}");
    assert_host_still_serves(&runtime);
}

#[test]
fn deep_recursion_hits_the_stack_limit() {
    let runtime = runtime(test_limits());
    let arena = arena();
    expect_limit(attack(&runtime, &arena.home, "recurse"), LimitKind::Stack);
    assert_host_still_serves(&runtime);
}

#[test]
fn huge_output_is_refused() {
    let runtime = runtime(test_limits());
    let arena = arena();
    expect_limit(attack(&runtime, &arena.home, "huge-output"), LimitKind::Output);
    assert_host_still_serves(&runtime);
}

#[test]
fn a_panic_is_a_trap_not_a_host_crash() {
    let runtime = runtime(test_limits());
    let arena = arena();
    match attack(&runtime, &arena.home, "panic") {
        Err(HostError::Trap { message, .. }) => {
            assert!(
                message.starts_with("panicked at tests/hostile/src/lib.rs:")
                    && message.ends_with(": the hostile codec panics"),
                "{message}"
            )
        }
        other => panic!("expected a trap, got {other:?}"),
    }
    assert_host_still_serves(&runtime);
}

#[test]
fn chatty_output_is_bounded_and_sanitized() {
    let runtime = runtime(test_limits());
    let arena = arena();
    let codec = load(&runtime, "trajhost-hostile");
    let mut stream = codec.instantiate(&runtime).unwrap().read(&arena.home, "print", options()).unwrap();
    while stream.next_batch().unwrap().is_some() {}
    let log = stream.plugin_log();
    assert!(log.len() < test_limits().plugin_log_bytes * 2 + 1024, "log of {} bytes", log.len());
    assert!(log.contains("more bytes of stdout dropped"), "{}", &log[log.len().saturating_sub(200)..]);
    assert!(!log.contains('\u{1b}'), "escape sequences must be sanitized");
}

#[test]
fn paths_cannot_leave_the_granted_directory() {
    let runtime = runtime(test_limits());
    let arena = arena();
    for name in ["dotdot", "dotdot-dir", "absolute", "symlink", "symlink-file"] {
        let message = expect_codec_error(attack(&runtime, &arena.home, name), "Denied");
        assert!(!message.contains("secret outside"), "{name}: {message}");
    }
    let message = expect_codec_error(attack(&runtime, &arena.home, "big-read"), "LimitExceeded");
    assert!(message.contains("limit per call"), "{message}");
    assert_host_still_serves(&runtime);
}

#[test]
fn sqlite_is_read_only_and_bounded_in_time() {
    let runtime = runtime(test_limits());
    let arena = arena();
    let before = tree_hashes(&arena.home.join("..").canonicalize().unwrap().join("home"));
    assert!(attack(&runtime, &arena.home, "sql:select").unwrap().contains("\"1,2,3\""));
    for name in ["sql:insert", "sql:update", "sql:create", "sql:attach", "sql:pragma"] {
        expect_codec_error(attack(&runtime, &arena.home, name), "Denied");
    }
    // A second statement is refused (by the authorizer or the one-statement rule).
    match attack(&runtime, &arena.home, "sql:multi") {
        Err(HostError::Codec { message, .. }) => {
            assert!(message.contains("Denied") || message.contains("Invalid"), "{message}")
        }
        other => panic!("multi-statement SQL was not refused: {other:?}"),
    }
    let started = Instant::now();
    expect_codec_error(attack(&runtime, &arena.home, "sql:slow"), "LimitExceeded");
    assert!(started.elapsed() < Duration::from_secs(20), "slow query ran {:?}", started.elapsed());
    let after = tree_hashes(&arena.home);
    assert_eq!(before, after, "the store or its directory changed");
    assert_host_still_serves(&runtime);
}

#[test]
fn a_live_wal_store_is_read_without_being_touched() {
    let runtime = runtime(test_limits());
    let arena = arena();
    let path = arena.home.join("store.sqlite");
    std::fs::remove_file(&path).unwrap();
    // A writer that keeps its WAL un-checkpointed, like a running harness.
    let writer = rusqlite::Connection::open(&path).unwrap();
    writer
        .execute_batch("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (7), (8), (9);")
        .unwrap();
    assert!(arena.home.join("store.sqlite-wal").exists());
    let before = tree_hashes(&arena.home);
    let text = attack(&runtime, &arena.home, "sql:select").unwrap();
    assert!(text.contains("\"7,8,9\""), "rows committed to the WAL are visible: {text}");
    assert_eq!(before, tree_hashes(&arena.home), "the live store changed");
    drop(writer);
}

#[test]
fn a_component_importing_wasi_filesystem_is_refused() {
    let runtime = runtime(test_limits());
    let bytes = std::fs::read(guest("trajhost-hostile-import")).unwrap();
    let component = runtime.compile(&bytes, "sneaky.wasm").unwrap();
    match runtime.check_component(&component, "sneaky.wasm") {
        Err(e @ HostError::CapabilityDenied { .. }) => {
            let message = e.to_string();
            assert!(message.contains("sneaky.wasm") && message.contains("wasi:filesystem"), "{message}");
        }
        other => panic!("expected CapabilityDenied, got {other:?}"),
    }
    assert_host_still_serves(&runtime);
}

#[test]
fn a_component_with_a_future_api_is_refused() {
    let runtime = runtime(test_limits());
    let bytes = std::fs::read(guest("trajhost-hostile-api")).unwrap();
    let component = runtime.compile(&bytes, "future.wasm").unwrap();
    match runtime.check_component(&component, "future.wasm") {
        Err(e @ HostError::ApiMismatch { .. }) => {
            let message = e.to_string();
            assert!(message.contains("trajhost:codec/codec@9.0.0") && message.contains("0.1.x"), "{message}");
        }
        other => panic!("expected ApiMismatch, got {other:?}"),
    }
}

#[test]
fn garbage_bytes_are_not_a_component() {
    let runtime = runtime(test_limits());
    match runtime.compile(b"\0asm garbage", "garbage.wasm") {
        Err(HostError::InvalidComponent { component, .. }) => assert_eq!(component, "garbage.wasm"),
        other => panic!("expected InvalidComponent, got {:?}", other.map(|_| ())),
    }
}
