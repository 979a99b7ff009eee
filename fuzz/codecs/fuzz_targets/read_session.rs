//! Arbitrary bytes as a session of each built-in codec, through the host in
//! process (`trajhost::fuzzing`). A guest trap or a limit is a reported
//! outcome; a host panic, a hang or unbounded memory is a finding.

#![no_main]

use std::path::PathBuf;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use trajhost::catalog::Catalog;
use trajhost::fuzzing::SessionFuzzer;
use trajhost::registry::Registry;
use trajhost::runtime::{Mode, Runtime};

thread_local! {
    static FUZZER: SessionFuzzer<'static> = fuzzer();
}

fn fuzzer() -> SessionFuzzer<'static> {
    let data = Box::leak(Box::new(tempfile::tempdir().unwrap()));
    let registry: &'static Registry = Box::leak(Box::new(Registry::new(data.path())));
    let limits = trajhost::Limits {
        call_timeout: Duration::from_secs(2),
        memory_bytes: 128 << 20,
        ..trajhost::Limits::default()
    };
    // Compiled codecs are cached between runs (the first compiles all of them).
    let cache = std::env::var_os("TRAJHOST_FUZZ_CACHE").map(PathBuf::from).unwrap_or_else(|| "target/codec-cache".into());
    let runtime: &'static Runtime =
        Box::leak(Box::new(Runtime::new(limits, Some(&cache), Mode::Production).unwrap()));
    let catalog: &'static Catalog<'static> = Box::leak(Box::new(Catalog::open(runtime, registry).unwrap()));
    SessionFuzzer::new(catalog)
}

fuzz_target!(
    // Opening the catalog compiles every codec on a cold cache: before the first
    // input, so that libFuzzer's -timeout measures inputs, not the start.
    init: FUZZER.with(|_| {}),
    |data: &[u8]| {
        FUZZER.with(|fuzzer| {
            fuzzer.run(data);
        });
    }
);
