//! crates/registry/build.rs's decisions about the guests' wasm32-wasip2 target: what a
//! fresh machine (toolchain present, target missing) gets, with and without
//! rustup, and what a failed guest build shows first.

#[path = "../../../crates/registry/build/toolchain.rs"]
mod toolchain;

use std::path::Path;

use toolchain::{TargetPlan, relevant_cargo_errors, rustup_toolchain_of, target_installed, target_plan};

const TARGET: &str = "wasm32-wasip2";

#[test]
fn the_target_is_found_by_its_standard_library_in_the_sysroot() {
    let sysroot = tempfile::tempdir().unwrap();
    assert!(!target_installed(sysroot.path(), TARGET));
    // A bare rustlib/<target> directory without its lib/ holds no standard library.
    std::fs::create_dir_all(sysroot.path().join("lib/rustlib").join(TARGET)).unwrap();
    assert!(!target_installed(sysroot.path(), TARGET));
    std::fs::create_dir_all(sysroot.path().join("lib/rustlib").join(TARGET).join("lib")).unwrap();
    assert!(target_installed(sysroot.path(), TARGET));
    assert!(!target_installed(sysroot.path(), "wasm32-unknown-unknown"));
}

#[test]
fn the_toolchain_is_named_by_its_rustup_directory() {
    let sysroot = Path::new("/home/u/.rustup/toolchains/1.95.0-x86_64-unknown-linux-gnu");
    assert_eq!(rustup_toolchain_of(sysroot).as_deref(), Some("1.95.0-x86_64-unknown-linux-gnu"));
    assert_eq!(rustup_toolchain_of(Path::new("/usr")), None);
    assert_eq!(rustup_toolchain_of(Path::new("/opt/rust/1.95.0")), None);
    assert_eq!(rustup_toolchain_of(Path::new("/")), None);
}

#[test]
fn an_installed_target_needs_nothing() {
    let sysroot = Path::new("/x/toolchains/1.95.0");
    assert_eq!(target_plan(TARGET, sysroot, true, true, Some("1.95.0")), TargetPlan::Ready);
    assert_eq!(target_plan(TARGET, sysroot, true, false, None), TargetPlan::Ready);
}

#[test]
fn a_missing_target_with_rustup_is_installed_into_the_compilers_toolchain() {
    let sysroot = Path::new("/x/toolchains/1.95.0-x86_64-unknown-linux-gnu");
    assert_eq!(
        target_plan(TARGET, sysroot, false, true, Some("1.95.0-x86_64-unknown-linux-gnu")),
        TargetPlan::Install { toolchain: "1.95.0-x86_64-unknown-linux-gnu".into() }
    );
}

fn stop_message(plan: TargetPlan) -> String {
    match plan {
        TargetPlan::Stop(message) => message,
        other => panic!("expected the build to stop, got {other:?}"),
    }
}

#[test]
fn a_missing_target_without_rustup_stops_with_what_to_run() {
    let message = stop_message(target_plan(TARGET, Path::new("/usr/lib/rust"), false, false, None));
    assert!(message.contains("rustup target add wasm32-wasip2"), "{message}");
    assert!(message.contains("/usr/lib/rust"), "names the compiler's sysroot: {message}");
    assert!(!message.contains('\n'), "one line (a cargo::error= directive): {message}");
    // Without rustup, a rustup-looking sysroot changes nothing: nothing can add the target.
    let message = stop_message(target_plan(TARGET, Path::new("/x/toolchains/1.95.0"), false, false, Some("1.95.0")));
    assert!(message.contains("rustup was not found"), "{message}");
}

#[test]
fn a_missing_target_for_a_compiler_rustup_does_not_own_stops() {
    let message = stop_message(target_plan(TARGET, Path::new("/opt/rust"), false, true, None));
    assert!(message.contains("/opt/rust") && message.contains("not a rustup toolchain"), "{message}");
    assert!(!message.contains('\n'), "{message}");
}

#[test]
fn a_failed_guest_build_shows_the_errors_first() {
    let stderr = "\
   Compiling trajhost-canonical v0.1.0 (/w/sdk/canonical)
warning: unused import: `std::io`
 --> plugins/x/src/lib.rs:1:5
   Compiling trajhost-codec-sdk v0.1.0 (/w/sdk/codec)
error[E0463]: can't find crate for `std`
  |
  = note: the `wasm32-wasip2` target may not be installed
   Compiling serde v1.0.0
error: could not compile `trajhost-canonical` (lib) due to 1 previous error
warning: build failed, waiting for other jobs to finish...
";
    let shown = relevant_cargo_errors(stderr, 60);
    assert!(shown.starts_with("error[E0463]: can't find crate for `std`"), "{shown}");
    assert!(
        shown.contains("target may not be installed") && shown.contains("could not compile `trajhost-canonical`"),
        "{shown}"
    );
    assert!(
        !shown.contains("Compiling") && !shown.contains("unused import") && !shown.contains("waiting for other jobs"),
        "{shown}"
    );

    let capped = relevant_cargo_errors(stderr, 2);
    assert_eq!(capped, "error[E0463]: can't find crate for `std`\n  |\n… 2 more lines");
}

#[test]
fn a_failed_guest_build_without_an_error_line_shows_its_end() {
    let stderr = "   Compiling a v0.1.0\nwasm-component-ld: signal 11\nnote: linker crashed\n";
    assert_eq!(relevant_cargo_errors(stderr, 1), "note: linker crashed");
    assert_eq!(relevant_cargo_errors(stderr, 10), "wasm-component-ld: signal 11\nnote: linker crashed");
    assert_eq!(relevant_cargo_errors("", 10), "");
}
