//! The Copilot CLI flat-file codec against a hand-written home
//! (fixtures/copilot-cli/flat) that holds one flat event log beside one
//! session directory of the current layout.

use std::path::{Path, PathBuf};

use serde_json::json;
use trajhost_codec_copilot_cli_flat::{CopilotCliFlat, NATIVE_VERSIONS};
use trajhost_codec_sdk::Codec;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_testkit::{self as kit, Spans, assistant_texts, tool_calls, tool_results, users};

const SID: &str = "2c9a4f10-1b7e-4d33-a0f5-5d61e0000339";

fn home() -> PathBuf {
    // This crate's own checkout (the testkit's `fixtures()` is resolved
    // where the testkit was compiled).
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/copilot-cli/flat/home")
}

fn locator() -> String {
    format!(".copilot/session-state/{SID}.jsonl")
}

#[test]
fn info_names_the_flat_layout_beside_the_main_codec() {
    let info = CopilotCliFlat::info();
    assert_eq!(info.harness, "copilot-cli");
    assert_eq!(info.codec_version, "0.1.0-flat");
    assert_eq!(info.native_versions, NATIVE_VERSIONS);
    assert_eq!(info.session_globs, [".copilot/session-state/*.jsonl"]);
    assert!(kit::glob_matches(&info.session_globs[0], &locator()));
    assert!(!kit::glob_matches(&info.session_globs[0], ".copilot/session-state/x/events.jsonl"));
}

#[test]
fn discover_lists_only_flat_files() {
    let found = kit::discover::<CopilotCliFlat>(&home());
    assert!(found.diagnostics.is_empty(), "the session directory is the other layout's: {:?}", found.diagnostics);
    assert_eq!(found.sessions.len(), 1);
    let s = &found.sessions[0];
    assert_eq!((s.native_id.as_str(), s.locator.as_str()), (SID, locator().as_str()));
    assert_eq!(s.native_version.as_deref(), Some("0.0.339"));
    assert_eq!(s.cwd.as_deref(), Some("/home/dev/tools"), "from session.start: no workspace.yaml");
    assert_eq!(s.title.as_deref(), Some("how big is the vendor folder?"));
    assert_eq!(s.size, std::fs::metadata(home().join(locator())).unwrap().len());
    let inspected = CopilotCliFlat::inspect(&Dir::native(home()), &locator()).unwrap();
    assert_eq!(inspected.native_id, SID);
    assert_eq!(inspected.size, s.size);
    assert!(CopilotCliFlat::inspect(&Dir::native(home()), ".copilot/session-state/x/events.jsonl").is_err());
}

#[test]
fn a_flat_file_reads_like_an_event_log() {
    let read = kit::conformance::<CopilotCliFlat>(&home(), &locator(), Spans::Lines);
    let meta = read.meta();
    assert_eq!(meta.codec.as_deref(), Some("copilot-cli@0.1.0-flat"));
    assert_eq!(meta.git_branch.as_deref(), Some("dev"));
    assert_eq!(users(&read.records), ["how big is the vendor folder?"]);
    let calls = tool_calls(&read.records);
    assert_eq!(calls.len(), 1, "the request and the execution start are one call");
    assert_eq!((calls[0].0, calls[0].1), ("call_du", "bash"));
    assert_eq!(calls[0].2, &json!({"command": "du -sh vendor", "description": "Size of vendor"}));
    assert_eq!(tool_results(&read.records), [("call_du", "41M\tvendor\n<exited with exit code 0>", Some(true))]);
    assert_eq!(assistant_texts(&read.records), ["The vendor folder takes 41 MB."]);
}

#[test]
fn the_range_is_the_session_directory_codecs() {
    // A session the flat codec places must never be handed to the other
    // layout's codec for lack of a covering range, nor the reverse.
    assert_eq!(NATIVE_VERSIONS, trajhost_codec_copilot_cli_flat::core::NATIVE_VERSIONS);
    assert_eq!(NATIVE_VERSIONS, ">=0.0.1, <2.0.0");
}
