//! The storage-tree codec against hand-written trees
//! (fixtures/opencode/storage, fixtures/opencode/storage-oldest), natively.

use std::path::{Path, PathBuf};

use trajhost_codec_opencode_storage::OpenCodeStorage;
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, Severity};
use trajhost_codec_testkit::{
    self as kit, Spans, assistant_texts, assistants, glob_matches, observations, reasonings, tool_calls, tool_results,
    users,
};

const SESSIONS: &str = ".local/share/opencode/storage/session";
/// A project's own tree, before 0.6.
const OLD_SESSIONS: &str = ".local/share/opencode/project/home-user-old/storage/session";
const A: &str = "ses_7d1f2a9c0ffeQx1";
const B: &str = "s_orders_child";
const C: &str = "ses_tiny";

/// This crate's own checkout of the fixtures (not the testkit's
/// `fixtures_root()`, which names the checkout the testkit was built from).
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/opencode")
}

fn home() -> PathBuf {
    fixtures().join("storage/home")
}

fn locator(id: &str) -> String {
    match id {
        A => format!("{SESSIONS}/4b1e0c2d9a7f/{A}.json"),
        B => format!("{SESSIONS}/4b1e0c2d9a7f/ses_{B}.json"),
        _ => format!("{SESSIONS}/global/{id}.json"),
    }
}

fn texts_of(records: &[trajhost_codec_sdk::canonical::Record], kind: &str) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match (&r.body, kind) {
            (Body::System { text }, "system") => Some(text.clone()),
            (Body::ToolResult { content, .. }, "tool_result") => Some(content.clone()),
            (Body::Compaction { summary, .. }, "compaction") => Some(summary.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn info_names_the_harness_and_its_own_version() {
    let info = OpenCodeStorage::info();
    assert_eq!(info.harness, "opencode");
    assert_eq!(info.codec_version, "0.1.0-storage");
    assert_eq!(info.writes, vec!["opencode-project-storage-json".to_string()]);
    assert!(glob_matches(&info.session_globs[0], &locator(A)));
    assert!(!glob_matches(&info.session_globs[0], ".local/share/opencode/opencode.db"));
    assert!(glob_matches(&info.session_globs[1], &format!("{OLD_SESSIONS}/info/ses_0ld5e551on.json")));
}

#[test]
fn discover_lists_every_session_file() {
    let found = kit::discover::<OpenCodeStorage>(&home());
    let mut sessions = found.sessions.clone();
    sessions.sort_by(|a, b| a.native_id.cmp(&b.native_id));
    let ids: Vec<&str> = sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert_eq!(ids, vec![B, A, C]);
    let a = &sessions[1];
    assert_eq!(a.locator, locator(A));
    assert_eq!(a.native_version.as_deref(), Some("0.15.8"));
    assert_eq!(a.cwd.as_deref(), Some("/home/user/shop"));
    assert_eq!(a.title.as_deref(), Some("Fix the failing test"));
    assert_eq!(a.started_at.as_deref(), Some("2024-12-24T00:28:20.000Z"));
    let b = &sessions[0];
    assert_eq!(b.cwd.as_deref(), Some("/home/user/shop"), "from the project's worktree");
    assert_eq!(sessions[2].native_version, None);
    // The only diagnostic: B's file name does not carry its id (info).
    assert_eq!(found.diagnostics.len(), 1, "{:?}", found.diagnostics);
    assert_eq!(found.diagnostics[0].code, "session-id-mismatch");
    assert_eq!(found.diagnostics[0].severity, Severity::Info);
    for s in &sessions {
        let again = OpenCodeStorage::inspect(&Dir::native(home()), &s.locator).unwrap();
        assert_eq!(format!("{again:?}"), format!("{s:?}"));
    }
}

#[test]
fn discover_names_what_it_cannot_place() {
    let dir = kit::copy_of(&home());
    let root = dir.path().join(".local/share/opencode/storage");
    std::fs::write(root.join("session/global/broken.json"), "{\"id\":").unwrap();
    std::fs::write(root.join("session/global/empty.json"), "").unwrap();
    std::fs::write(root.join("session/global/notes.txt"), "x").unwrap();
    std::fs::write(root.join("session/global/not-a-session.json"), "{\"role\":\"user\",\"id\":\"m\"}").unwrap();
    std::fs::create_dir_all(root.join("message/ses_gone")).unwrap();
    let found = kit::discover::<OpenCodeStorage>(dir.path());
    assert_eq!(found.sessions.len(), 3);
    let g = |n: &str| format!("{SESSIONS}/global/{n}");
    for (code, file) in [
        ("malformed-head", g("broken.json")),
        ("empty-session-file", g("empty.json")),
        ("unrecognized-file", g("notes.txt")),
        ("malformed-head", g("not-a-session.json")),
        ("unrecognized-file", ".local/share/opencode/storage/message/ses_gone".to_string()),
    ] {
        assert!(kit::file_diag(&found.diagnostics, code, &file).is_some(), "{code} {file}: {:?}", found.diagnostics);
    }
}

#[test]
fn every_fixture_session_passes_the_testkit_checks() {
    for id in [A, B, C] {
        kit::conformance::<OpenCodeStorage>(&home(), &locator(id), Spans::Bytes);
    }
}

#[test]
fn a_session_maps_prompts_calls_results_and_injected_text() {
    let read = kit::read::<OpenCodeStorage>(&home(), &locator(A));
    let meta = read.meta();
    assert_eq!(meta.native_id, A);
    assert_eq!(meta.native_version.as_deref(), Some("0.15.8"));
    assert_eq!(meta.codec.as_deref(), Some("opencode@0.1.0-storage"));
    assert_eq!(users(&read.records), vec!["Why does test_cart fail?", "Fix it, then stop."]);
    // Synthetic text is the harness's, not the person's or the model's.
    assert_eq!(
        texts_of(&read.records, "system"),
        vec![
            "Called the Read tool with the following input: {\"filePath\":\"tests/test_cart.py\"}".to_string(),
            "Tool execution aborted".to_string()
        ]
    );
    let texts: Vec<&str> = assistant_texts(&read.records).into_iter().filter(|t| !t.is_empty()).collect();
    assert_eq!(texts, vec!["The discount is applied twice in cart/total.py."]);
    let first = assistants(&read.records)[0];
    assert_eq!(first.model.as_deref(), Some("claude-sonnet-4"));
    assert_eq!(first.stop_reason.as_deref(), Some("tool-calls"));
    let usage = first.usage.as_ref().unwrap();
    assert_eq!(
        (usage.input, usage.output, usage.cache_read, usage.reasoning),
        (Some(900), Some(120), Some(400), Some(30))
    );
    assert_eq!(reasonings(&read.records)[0].text.as_deref(), Some("Run the test to see the failure."));
    let calls: Vec<&str> = tool_calls(&read.records).iter().map(|c| c.1).collect();
    assert_eq!(calls, vec!["bash", "read", "edit"]);
    let results = tool_results(&read.records);
    assert_eq!(
        results.iter().map(|r| (r.0, r.2)).collect::<Vec<_>>(),
        vec![("toolu_01", Some(false)), ("toolu_02", Some(false))]
    );
    assert_eq!(
        texts_of(&read.records, "tool_result"),
        vec!["1 failed: assert total == 30 (got 27)\n", "File not found: /home/user/shop/cart/tax.py"]
    );
    let obs = observations(&read.records);
    assert!(!obs.iter().any(|o| o.0 == "file"), "a prompt's file is an attachment: {obs:?}");
    assert!(obs.contains(&("patch", Some("/home/user/shop/cart/total.py"))));
    assert!(obs.contains(&("error", Some("MessageAbortedError: The operation was aborted."))));
    assert!(read.diag_with("unfinished-tool-call", "tool-state/running").is_some());
    assert!(read.diag_with("unmapped-record-type", "part/step-start").is_some());
    // The prompt's record points at its text part; a result at its tool part.
    let prompt = read.records.iter().find(|r| r.id == "msg_a001").unwrap();
    assert!(matches!(&prompt.body, Body::User { attachments, .. }
        if attachments.len() == 1 && attachments[0].media_type.as_deref() == Some("text/x-python")));
    assert_eq!(kit::span_json(&home(), prompt.src.as_ref().unwrap())["id"], "prt_a001a");
}

#[test]
fn ids_from_content_and_a_compaction_with_its_summary() {
    let read = kit::read::<OpenCodeStorage>(&home(), &locator(B));
    let meta = read.meta();
    assert_eq!(meta.native_id, B);
    assert_eq!(meta.parent_session.as_deref(), Some(A));
    assert_eq!(meta.cwd.as_deref(), Some("/home/user/shop"));
    assert_eq!(users(&read.records), vec!["Find every call of apply_discount."]);
    assert_eq!(texts_of(&read.records, "compaction"), vec!["Summary: the user wants every apply_discount call."]);
    let compaction = read.records.iter().find(|r| matches!(r.body, Body::Compaction { .. })).unwrap();
    assert!(matches!(&compaction.body, Body::Compaction { trigger: Some(t), .. } if t == "auto"));
    assert_eq!(assistant_texts(&read.records), vec!["Two calls, both in cart/total.py."]);
    assert_eq!(assistants(&read.records)[0].model.as_deref(), Some("claude-haiku-4"));
    assert_eq!(tool_results(&read.records), vec![("call_grep", "cart/total.py:12\ncart/total.py:19\n", Some(true))]);
    assert!(read.diag_with("unknown-record-type", "part/holographic").is_some());
}

#[test]
fn repeated_part_ids_get_ids_of_their_own() {
    let read = kit::read::<OpenCodeStorage>(&home(), &locator(C));
    assert_eq!(users(&read.records), vec!["Say hi in Esperanto — saluton?"]);
    assert_eq!(assistant_texts(&read.records), vec!["Saluton! 👋"]);
    kit::check_unique_ids(&read);
}

#[test]
fn the_oldest_layout_is_read_too() {
    let home = fixtures().join("storage-oldest/home");
    let found = kit::discover::<OpenCodeStorage>(&home);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    assert_eq!(found.sessions.len(), 2);
    let s = found.sessions.iter().find(|s| s.native_id == "ses_0ld5e551on").unwrap();
    assert_eq!(s.locator, format!("{OLD_SESSIONS}/info/ses_0ld5e551on.json"));
    assert_eq!(s.cwd.as_deref(), Some("/home/user/old"), "an assistant's path.cwd");
    let read = kit::conformance::<OpenCodeStorage>(&home, &s.locator, Spans::Bytes);
    assert_eq!(read.meta().cwd.as_deref(), Some("/home/user/old"));
    assert_eq!(users(&read.records), vec!["list the files"]);
    assert_eq!(assistant_texts(&read.records), vec!["README.md and src/."]);
    assert_eq!(tool_results(&read.records), vec![("toolu_old", "README.md\nsrc/\n", Some(true))]);
}

#[test]
fn sniff_claims_session_files_only() {
    let a = std::fs::read(home().join(locator(A))).unwrap();
    let got = OpenCodeStorage::sniff("x.json", &a).expect("claimed");
    assert_eq!(got.native_id.as_deref(), Some(A));
    assert_eq!(got.native_version.as_deref(), Some("0.15.8"));
    let message =
        std::fs::read(home().join(format!(".local/share/opencode/storage/message/{A}/msg_a001.json"))).unwrap();
    assert!(OpenCodeStorage::sniff("x.json", &message).is_none());
    assert!(OpenCodeStorage::sniff("x.json", b"{\"info\":{\"id\":\"ses_1\"},\"messages\":[]}").is_none());
}

#[test]
fn a_loose_session_file_is_its_meta_with_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(home().join(locator(A)), dir.path().join("copy.json")).unwrap();
    let read = kit::read::<OpenCodeStorage>(dir.path(), "copy.json");
    assert_eq!(read.records.len(), 1);
    assert_eq!(read.meta().native_id, A);
    assert!(read.diag("no-messages").is_some());
}

#[test]
fn messages_with_inline_parts_are_read() {
    let home = fixtures().join("storage-oldest/home");
    let locator = format!("{OLD_SESSIONS}/info/ses_v1inl1ne.json");
    let read = kit::conformance::<OpenCodeStorage>(&home, &locator, Spans::Bytes);
    assert_eq!(read.meta().native_version.as_deref(), Some("0.1.140"));
    assert_eq!(read.meta().cwd.as_deref(), Some("/home/user/app"), "metadata.assistant.path.cwd");
    assert_eq!(users(&read.records), vec!["what is in go.mod?"]);
    assert_eq!(assistant_texts(&read.records), vec!["It declares module example.com/app on Go 1.22."]);
    let answer = assistants(&read.records)[0];
    assert_eq!(answer.model.as_deref(), Some("claude-sonnet-4-20250514"));
    assert_eq!(answer.usage.as_ref().and_then(|u| u.input), Some(300));
    assert_eq!(reasonings(&read.records)[0].text.as_deref(), Some("Read the module file."));
    let calls: Vec<(&str, &str)> = tool_calls(&read.records).iter().map(|c| (c.0, c.1)).collect();
    assert_eq!(calls, vec![("toolu_v1", "read"), ("toolu_v1b", "bash")]);
    assert_eq!(tool_results(&read.records), vec![("toolu_v1", "module example.com/app\n\ngo 1.22\n", Some(true))]);
    assert!(read.diag_with("unfinished-tool-call", "tool-state/call").is_some());
}
