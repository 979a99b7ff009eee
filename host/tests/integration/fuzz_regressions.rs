//! The `read_session` fuzz target's procedure (`trajhost::fuzzing`) on every
//! committed finding (`fuzz/regressions/read_session/`), and on inputs that
//! show it reaches each codec's read.

use trajhost::catalog::Catalog;
use trajhost::fuzzing::SessionFuzzer;
use trajhost::registry::Registry;
use trajhost::runtime::{Mode, Runtime};

use crate::common::*;

#[test]
fn fuzz_findings_replay_and_the_fuzzer_reaches_every_codec() {
    let data = tempfile::tempdir().unwrap();
    let registry = Registry::new(data.path());
    let runtime = Runtime::new(test_limits(), Some(&shared_cache()), Mode::Production).unwrap();
    let catalog = Catalog::open(&runtime, &registry).unwrap();
    let fuzzer = SessionFuzzer::new(&catalog);
    let harnesses: Vec<String> = fuzzer.harnesses().map(String::from).collect();
    assert_eq!(harnesses, catalog.harnesses(), "every built-in harness has a place to fuzz");

    let dir = repo_root().join("fuzz/regressions/read_session");
    let mut replayed = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "md") {
            fuzzer.run(&std::fs::read(&path).unwrap());
            replayed += 1;
        }
    }
    eprintln!("replayed {replayed} fuzz finding(s)");

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
