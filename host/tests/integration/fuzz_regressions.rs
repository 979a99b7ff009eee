//! The `read_session` fuzz target's procedure (`trajhost::fuzzing`) on every
//! committed finding (`fuzz/regressions/read_session/`), and on inputs that
//! show it reaches each codec's read.

use trajhost::fuzzing::SessionFuzzer;

use crate::common::*;

thread_local! {
    static PANICS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Runs one input, returning how many panics it caused on this thread,
/// caught ones included: a library that catches its own panic (rusqlite in
/// a SQLite callback) still panicked, and the fuzzer counts that as a crash.
fn panics_of(fuzzer: &SessionFuzzer<'_>, input: &[u8]) -> usize {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.with(|p| p.set(p.get() + 1));
            previous(info);
        }));
    });
    let before = PANICS.with(|p| p.get());
    fuzzer.run(input);
    PANICS.with(|p| p.get()) - before
}

#[test]
fn fuzz_findings_replay_and_the_fuzzer_reaches_every_codec() {
    let host = CatalogHost::new();
    let catalog = host.catalog();
    let fuzzer = SessionFuzzer::new(&catalog);
    let harnesses: Vec<String> = fuzzer.harnesses().map(String::from).collect();
    assert_eq!(harnesses, catalog.harnesses(), "every built-in harness has a place to fuzz");

    let dir = repo_root().join("fuzz/regressions/read_session");
    let mut replayed = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "md") {
            let panics = panics_of(&fuzzer, &std::fs::read(&path).unwrap());
            assert_eq!(panics, 0, "{}: the host panicked", path.display());
            replayed += 1;
        }
    }
    eprintln!("replayed {replayed} fuzz finding(s)");
    assert!(replayed >= 1, "the committed findings are replayed");

    // Garbage for every harness: errors or nothing, never a panic.
    for pick in 0..harnesses.len() as u8 {
        let outcome = fuzzer.run(&[&[pick][..], b"\x00\xff{\"type\":\"user\"\n\x1b]0;x\x07"].concat());
        assert_eq!(outcome.harness, harnesses[pick as usize]);
    }
    // A real Claude Code session through the same path is read: the fuzzer reaches the codec's read.
    let pick = harnesses.iter().position(|h| h == "claude-code").unwrap() as u8;
    let session = std::fs::read(
        fixture_home("claude-code", "2.1.197", "simple")
            .join(".claude/projects/-home-user-project/61ec73f4-b0bb-4d28-a8cc-bfda17c07ec0.jsonl"),
    )
    .unwrap();
    let outcome = fuzzer.run(&[&[pick][..], &session].concat());
    assert_eq!((outcome.sessions, outcome.errors), (1, 0), "{outcome:?}");
    assert!(outcome.batches >= 1, "{outcome:?}");
}

/// A smoke run of the fuzzer's procedure on every lab fixture, cut and
/// bit-flipped (`TRAJHOST_FUZZ_SEEDS=DIR` also writes the unmutated inputs
/// there: a seed corpus for `cargo fuzz run read_session`).
#[test]
fn mutated_fixtures_of_every_harness_are_errors_or_sessions_never_panics() {
    let host = CatalogHost::new();
    let catalog = host.catalog();
    let fuzzer = SessionFuzzer::new(&catalog);
    let seeds_dir = std::env::var_os("TRAJHOST_FUZZ_SEEDS").map(std::path::PathBuf::from);
    let mut seeded = Vec::new();
    for (pick, harness) in fuzzer.harnesses().enumerate() {
        let Some(version_dir) = std::fs::read_dir(repo_root().join("fixtures").join(harness))
            .ok()
            .and_then(|dirs| dirs.filter_map(|d| d.ok()).map(|d| d.path()).find(|p| p.join("simple").is_dir()))
        else {
            eprintln!("{harness}: no lab fixture: not smoke-run");
            continue;
        };
        let Some(seed) = fuzzer.seed_from(pick as u8, &version_dir.join("simple")) else {
            eprintln!("{harness}: its first session glob matches no file of the fixture: not smoke-run");
            continue;
        };
        if let Some(dir) = &seeds_dir {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join(format!("seed-{harness}")), &seed).unwrap();
        }
        let whole = fuzzer.run(&seed);
        // Cut at several places and with single bits flipped: each run returns, and nothing panics.
        let len = seed.len();
        let mut panics = 0;
        for cut in [1, len / 3, len / 2, len - 1] {
            panics += panics_of(&fuzzer, &seed[..cut.max(1)]);
        }
        for step in 1..8 {
            let mut flipped = seed.clone();
            let at = 1 + (len - 1) * step / 8;
            flipped[at] ^= 1 << (step % 8);
            panics += panics_of(&fuzzer, &flipped);
        }
        assert_eq!(panics, 0, "{harness}: the host panicked");
        seeded.push((harness.to_string(), whole.sessions));
    }
    eprintln!("smoke-run: {seeded:?}");
    assert!(seeded.len() >= 10, "most harnesses have a fixture to mutate: {seeded:?}");
    assert!(seeded.iter().any(|(h, n)| h == "claude-code" && *n == 1), "{seeded:?}");
}
