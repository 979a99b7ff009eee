//! The Cline VS Code task codec against hand-written homes
//! (fixtures/cline/vscode), run natively through `Dir::native`: what the
//! conformance suite (tests/conformance.rs) does not pin: the globs of
//! every editor, what discover cannot place, observations, usage,
//! reasoning, times and attachments, a loose copy, a broken history.

use std::path::{Path, PathBuf};

use trajhost_codec_cline_vscode::{ClineVscode, KNOWN_BLOCKS, KNOWN_ROLES};
use trajhost_codec_sdk::Codec;
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_testkit::{self as kit, Read, Spans, assistants, observations_of, users};

const CODE: &str = ".config/Code/User/globalStorage/saoudrizwan.claude-dev";
const MAC: &str = "Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev";
const CURSOR: &str = ".config/Cursor/User/globalStorage/saoudrizwan.claude-dev";
const CODIUM: &str = ".config/VSCodium/User/globalStorage/saoudrizwan.claude-dev";

/// Under this crate's checkout (not the testkit's, which a shared target
/// dir may have compiled elsewhere).
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/cline/vscode/home")
}

fn locator(root: &str, id: &str) -> String {
    format!("{root}/tasks/{id}/api_conversation_history.json")
}

fn read(root: &str, id: &str) -> (tempfile::TempDir, Read) {
    let home = kit::copy_of(&fixture());
    let read = kit::conformance::<ClineVscode>(home.path(), &locator(root, id), Spans::Bytes);
    kit::check_handling(&read, KNOWN_BLOCKS, |_| 0);
    (home, read)
}

#[test]
fn the_globs_match_every_editor_and_os() {
    let info = ClineVscode::info();
    let windows = "AppData/Roaming/Code/User/globalStorage/saoudrizwan.claude-dev";
    let codespaces = ".vscode-remote/data/User/globalStorage/saoudrizwan.claude-dev";
    for root in [CODE, MAC, CURSOR, CODIUM, windows, codespaces, ".cline/data"] {
        assert!(info.session_globs.iter().any(|g| kit::glob_matches(g, &locator(root, "17"))), "{root}");
    }
    assert!(!info.session_globs.iter().any(|g| kit::glob_matches(g, ".cline/data/sessions/a/a.messages.json")));
    assert_eq!(KNOWN_ROLES.len(), 2);
}

#[test]
fn discover_lists_every_editor_and_names_what_it_cannot_place() {
    let home = kit::copy_of(&fixture());
    let found = kit::discover::<ClineVscode>(home.path());
    let ids: Vec<&str> = found.sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert_eq!(ids, ["1710000000000", "1720000000000", "1735000000000", "1760000000000"]);
    let legacy = &found.sessions[0];
    assert_eq!(legacy.started_at.as_deref(), Some("2024-03-09T16:00:00.000Z"), "the id is the creation time");
    assert_eq!(legacy.updated_at.as_deref(), Some("2024-03-09T16:01:40.000Z"), "the index's ts");
    let api = std::fs::metadata(home.path().join(locator(CODE, "1710000000000"))).unwrap().len();
    assert_eq!(legacy.size, api, "the task's own files");

    let diag = |code: &str, file: &str| kit::file_diag(&found.diagnostics, code, file).is_some();
    assert!(diag("unrecognized-file", &format!("{CODE}/tasks/1710000000000/notes.txt")), "{:?}", found.diagnostics);
    assert!(diag("no-api-history", &format!("{CODE}/tasks/1710000200000")), "{:?}", found.diagnostics);
    assert_eq!(found.diagnostics.len(), 2, "{:?}", found.diagnostics);
}

#[test]
fn native_tool_calls_skip_interruptions_and_feedback() {
    let (_home, read) = read(MAC, "1760000000000");
    assert_eq!(observations_of(&read.records, "interrupted"), ["[Response interrupted by user]"]);
    assert_eq!(observations_of(&read.records, "tool_skipped").len(), 1);
    assert_eq!(observations_of(&read.records, "environment_details").len(), 5);
    let first = assistants(&read.records)[0];
    let u = first.usage.as_ref().unwrap();
    assert_eq!((u.input, u.output, u.cache_read), (Some(12), Some(80), Some(900)));
    let Body::Reasoning(r) = &read.records[4].body else { panic!() };
    assert_eq!((r.text.as_deref(), r.opaque.as_deref()), (Some("I need to see the app first."), Some("sig-1")));
    let ts: Vec<Option<&str>> = read.records[1..5].iter().map(|r| r.ts.as_deref()).collect();
    assert_eq!(ts[0], Some("2025-10-09T08:53:20.010Z"), "the first UI message");
    assert_eq!(ts[3], Some("2025-10-09T08:53:23.000Z"), "the first UI message after message 0");
    assert_eq!(read.meta().started_at.as_deref(), Some("2025-10-09T08:53:20.000Z"));
    assert!(read.diag_with("unmapped-file", "context_history.json").is_some(), "{:?}", read.diagnostics);
}

#[test]
fn xml_tool_uses_keep_interruptions_and_mentions() {
    let (_home, read) = read(CURSOR, "1735000000000");
    assert_eq!(observations_of(&read.records, "interrupted"), ["[Response interrupted by user feedback]"]);
    let mentions = observations_of(&read.records, "mentions");
    assert_eq!(mentions, ["<file_content path=\"build.sh\">\n#!/bin/sh\nmake all\n</file_content>"]);
}

#[test]
fn an_image_of_the_first_prompt_is_an_attachment() {
    let (_home, read) = read(CODIUM, "1720000000000");
    let Body::User { text, attachments } = &read.records[1].body else { panic!() };
    assert_eq!(text, "Why does this page look broken?");
    assert_eq!((attachments[0].kind.as_str(), attachments[0].media_type.as_deref()), ("image", Some("image/png")));
}

#[test]
fn a_loose_copy_is_sniffed_and_read() {
    let bytes = std::fs::read(fixture().join(locator(CURSOR, "1735000000000"))).unwrap();
    let sniffed = ClineVscode::sniff("/tmp/t/1735000000000/api_conversation_history.json", &bytes).unwrap();
    assert_eq!(sniffed.native_id.as_deref(), Some("1735000000000"));
    assert!(ClineVscode::sniff("/tmp/other.json", b"[{\"role\":\"user\",\"content\":\"hi\"}]").is_none());
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("api_conversation_history.json"), &bytes).unwrap();
    let read = kit::read::<ClineVscode>(dir.path(), "api_conversation_history.json");
    assert_eq!(users(&read.records).len(), 3);
    assert_eq!(read.meta().cwd.as_deref(), Some("/home/user/shop"));
}

#[test]
fn a_broken_history_is_an_error_naming_the_file() {
    let home = kit::copy_of(&fixture());
    let path = home.path().join(locator(CODE, "1710000000000"));
    std::fs::write(&path, b"[{\"role\":").unwrap();
    let err =
        kit::try_read::<ClineVscode>(home.path(), &locator(CODE, "1710000000000"), kit::one_batch()).err().unwrap();
    assert!(format!("{err:?}").contains("api_conversation_history.json"), "{err:?}");
}
