//! trajhost's integration tests: one binary, one module per area.

mod common;

mod api_versions;
mod archive;
mod browse;
mod build_script;
mod claude_code;
mod cli;
mod completions;
mod conformance;
mod convert;
mod cursor;
mod export;
mod first_run;
mod fuzz_regressions;
mod fx;
mod install;
mod install_ops;
mod lab;
mod layouts;
mod oci;
mod packed;
mod plugin_files;
mod postgres;
mod redaction;
mod registry;
mod sandbox;
mod sniff;
mod target_versions;
mod terminal;
mod view;
mod wit_snapshots;

/// Every `*.rs` file here must be a module above (a forgotten file would
/// silently never run).
#[test]
fn no_forgotten_test_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/integration");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if let Some(module) = name.strip_suffix(".rs")
            && module != "main"
        {
            assert!(main.contains(&format!("mod {module};")), "tests/integration/{name} is not listed in main.rs");
        }
    }
}
