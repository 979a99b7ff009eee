//! What is particular to Aider's history: a file of several sessions, the
//! folding of tool calls and results into text Aider restores, and a
//! prepare that only ever appends to an existing history.

use std::path::Path;

use trajhost_codec_aider::{Aider, history, session};
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::{Codec, Operation, WriteOptions};
use trajhost_codec_testkit::suite::{apply_files, prepare_in};

fn fixture(scenario: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/aider/0.86.2").join(scenario).join("project")
}

/// A session from another harness, with a tool call, its result and reasoning.
const FOREIGN: &str = r##"{"kind":"meta","id":"m","schema":"trajhost.canonical/1","harness":"codex","native_id":"n","cwd":"/home/user/project","started_at":"2026-12-07T01:00:00.000Z"}
{"kind":"user","id":"u1","text":"Read hello.txt\n# not a heading"}
{"kind":"reasoning","id":"r1","text":"think"}
{"kind":"tool_call","id":"c1","call_id":"call_1","name":"shell","arguments":{"command":"cat hello.txt"}}
{"kind":"tool_result","id":"c1r","call_id":"call_1","content":"> quoted\nPAPAYA-42","ok":true}
{"kind":"assistant","id":"a1","text":"# The word\n> is PAPAYA-42"}
"##;

fn write(document: &str) -> trajhost_codec_sdk::WrittenFiles {
    trajhost_codec_sdk::write_document::<Aider>(document, WriteOptions { cwd: None, native_id: None, home_path: None })
        .expect("writes")
}

#[test]
fn a_file_holds_one_session_per_block_and_a_bare_path_reads_the_newest() {
    let home = fixture("simple");
    let found = trajhost_codec_testkit::discover::<Aider>(&home);
    let ids: Vec<_> = found.sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert_eq!(ids, ["20261207T011042-06a68f34", "20261207T011047-7bb1f7c7"]);
    assert_eq!(found.sessions[0].updated_at, None);
    assert!(found.sessions[1].updated_at.is_some());
    let newest = trajhost_codec_testkit::read::<Aider>(&home, history::FILE);
    assert_eq!(newest.meta().native_id, ids[1]);
    assert_eq!(newest.meta().started_at.as_deref(), Some("2026-12-07T01:10:47.000Z"));
    let users: Vec<_> = newest
        .records
        .iter()
        .filter_map(|r| if let Body::User { text, .. } = &r.body { Some(text) } else { None })
        .collect();
    assert_eq!(users, ["What was the secret word again? [notool]"]);
}

#[test]
fn tool_calls_and_results_are_folded_into_restored_text_and_named() {
    let written = write(FOREIGN);
    let text = String::from_utf8(written.artifacts[0].bytes.clone()).unwrap();
    assert!(text.starts_with("\n# aider chat started at 2026-12-07 01:00:00\n\n"), "{text}");
    // Nothing that must reach the model is on a `> ` line (Aider drops those on restore).
    assert!(!text.lines().any(|l| l.starts_with("> ")), "{text}");
    assert!(text.contains("\n[tool call shell (call_1)] {\"command\":\"cat hello.txt\"}\n"), "{text}");
    assert!(text.contains("#### [tool result (call_1)]  \n#### > quoted  \n#### PAPAYA-42  \n"), "{text}");
    assert!(text.contains("\n # The word\n > is PAPAYA-42\n"), "{text}");
    let details: Vec<_> =
        written.diagnostics.iter().filter(|d| d.code == "not-carried").map(|d| d.detail.as_str()).collect();
    for what in ["tool_call (folded into assistant text)", "tool_result (folded into user text)", "reasoning"] {
        assert!(details.contains(&what), "{what} in {details:?}");
    }
    // Read back: the user text whole, the call in the reply, the result as user text.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(history::FILE), &text).unwrap();
    let back = trajhost_codec_testkit::read::<Aider>(dir.path(), history::FILE);
    let users: Vec<_> = back
        .records
        .iter()
        .filter_map(|r| if let Body::User { text, .. } = &r.body { Some(text.as_str()) } else { None })
        .collect();
    assert_eq!(users, ["Read hello.txt\n# not a heading", "[tool result (call_1)]\n> quoted\nPAPAYA-42"]);
    assert_eq!(back.meta().native_id, written.native_id);
}

#[test]
fn prepare_creates_the_history_in_the_workspace_or_appends_a_block_to_it() {
    let written = write(FOREIGN);
    let home = tempfile::tempdir().unwrap();
    let cwd = home.path().join("project");
    let plan = prepare_in::<Aider>(&written, home.path(), Some(cwd.to_str().unwrap())).expect("prepares");
    assert_eq!(plan.native_id, written.native_id);
    assert!(matches!(&plan.operations[..], [Operation::CreateFile(f)] if f.path == "project/.aider.chat.history.md"));
    let resume = plan.resume_command.clone().unwrap();
    assert!(resume.starts_with(&format!("cd {} && HOME=", cwd.display())), "{resume}");
    assert!(resume.ends_with(" aider --restore-chat-history"), "{resume}");
    apply_files(&plan, &written, home.path());
    let found = trajhost_codec_testkit::discover::<Aider>(&cwd);
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].native_id, plan.native_id);

    // The same export again: refused (the block is there), bytes untouched.
    let before = std::fs::read(cwd.join(history::FILE)).unwrap();
    let err = prepare_in::<Aider>(&written, home.path(), Some(cwd.to_str().unwrap())).unwrap_err();
    assert!(format!("{err:?}").contains("not appended twice"), "{err:?}");
    assert_eq!(std::fs::read(cwd.join(history::FILE)).unwrap(), before);

    // A workspace outside the target home: refused.
    let err = prepare_in::<Aider>(&written, home.path(), Some("/elsewhere/w")).unwrap_err();
    assert!(format!("{err:?}").contains("not inside the target home"), "{err:?}");
}

/// A workspace where Aider ran before: the plan appends one block after
/// its history, expecting exactly the bytes there now; the old sessions
/// stay listed and byte-identical, and the new one reads back.
#[test]
fn prepare_appends_a_block_after_a_history_aider_wrote() {
    let home = tempfile::tempdir().unwrap();
    let cwd = home.path().join("project");
    std::fs::create_dir(&cwd).unwrap();
    std::fs::copy(fixture("simple").join(history::FILE), cwd.join(history::FILE)).unwrap();
    let before = std::fs::read(cwd.join(history::FILE)).unwrap();
    let old = trajhost_codec_testkit::discover::<Aider>(&cwd).sessions;
    assert_eq!(old.len(), 2);

    let written = write(FOREIGN);
    let plan = prepare_in::<Aider>(&written, home.path(), Some(cwd.to_str().unwrap())).expect("prepares");
    let [Operation::AppendFile(append)] = &plan.operations[..] else { panic!("one append: {plan:?}") };
    assert_eq!(append.path, "project/.aider.chat.history.md");
    assert_eq!(append.expect_length, before.len() as u64);
    assert_eq!(append.expect_sha256, trajhost_codec_sdk::writer::install::sha256_hex(&before));
    assert_eq!(append.bytes, written.artifacts[0].bytes);
    assert!(append.bytes.starts_with(b"\n# aider chat started at "));
    // The id the block has where it lands, not the one it had alone.
    assert_ne!(plan.native_id, written.native_id);

    apply_files(&plan, &written, home.path());
    let after = std::fs::read(cwd.join(history::FILE)).unwrap();
    assert_eq!(&after[..before.len()], &before[..], "the old history is an untouched prefix");
    let found = trajhost_codec_testkit::discover::<Aider>(&cwd).sessions;
    assert_eq!(found.len(), 3);
    for s in &old {
        assert!(found.iter().any(|f| f.native_id == s.native_id), "{} is gone", s.native_id);
    }
    assert_eq!(found[2].native_id, plan.native_id);
    let back = trajhost_codec_testkit::read::<Aider>(&cwd, &found[2].locator);
    let users: Vec<_> = back
        .records
        .iter()
        .filter_map(|r| if let Body::User { text, .. } = &r.body { Some(text.as_str()) } else { None })
        .collect();
    assert_eq!(users, ["Read hello.txt\n# not a heading", "[tool result (call_1)]\n> quoted\nPAPAYA-42"]);
    // The folded calls are still named as a loss of the written session.
    assert!(written.diagnostics.iter().any(|d| d.code == "not-carried" && d.detail.starts_with("tool_call")));

    // Installed once: the same export is not appended again.
    let err = prepare_in::<Aider>(&written, home.path(), Some(cwd.to_str().unwrap())).unwrap_err();
    assert!(format!("{err:?}").contains("not appended twice"), "{err:?}");
}

#[test]
fn a_cut_history_reads_what_it_holds() {
    let text = std::fs::read_to_string(fixture("simple").join(history::FILE)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cut = &text[..text.find("FINAL ANSWER").unwrap() + 20];
    std::fs::write(dir.path().join(history::FILE), cut).unwrap();
    let read = trajhost_codec_testkit::read::<Aider>(dir.path(), history::FILE);
    let last = read.records.last().unwrap();
    assert!(matches!(&last.body, Body::Assistant(a) if a.text == "FINAL ANSWER: the co"), "{last:?}");
    assert_eq!(session::split_locator("a.md#x"), ("a.md", Some("x")));
}

#[test]
fn sniff_claims_a_history_and_names_its_version() {
    let text = std::fs::read(fixture("simple").join(history::FILE)).unwrap();
    let sniffed = Aider::sniff("sent.md", &text).expect("claimed");
    assert_eq!(sniffed.native_version.as_deref(), Some("0.86.2"));
    assert!(Aider::sniff("x.md", b"# Title\n\nsome notes\n").is_none());
}

/// The host declares every built-in's `info` (crates/registry/src/builtin-info.json, checked against the
/// components by the host's integration tests): this codec's entry says what `info` says.
#[test]
fn the_declared_info_is_current() {
    let declared: serde_json::Value =
        serde_json::from_str(include_str!("../../../crates/registry/src/builtin-info.json")).unwrap();
    let info = Aider::info();
    let expected = serde_json::json!({
        "harness": info.harness, "codec_version": info.codec_version, "native_versions": info.native_versions,
        "native_version_source": info.native_version_source, "reads": info.reads, "writes": info.writes,
        "session_globs": info.session_globs, "canonical_schema": info.canonical_schema,
    });
    assert_eq!(declared["trajhost-codec-aider"], expected);
}
