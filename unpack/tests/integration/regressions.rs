//! The fuzz target's checks on every committed finding
//! (`fuzz/regressions/unpack_archive/`) and on the hostile suite.

use std::path::Path;

use crate::build;

#[test]
fn fuzz_findings_and_the_hostile_suite_pass_the_fuzz_checks() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions/unpack_archive");
    let mut replayed = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            continue;
        }
        build::check(&std::fs::read(&path).unwrap());
        replayed += 1;
    }
    eprintln!("replayed {replayed} fuzz finding(s) from {}", dir.display());
    for case in build::hostile_suite(false) {
        build::check(&case.bytes);
    }
}
