//! The OpenClaw JSONL codec against hand-written homes of each legacy shape
//! (`fixtures/openclaw/jsonl`, `fixtures/openclaw/clawdbot`; see their
//! PROVENANCE.md), run natively through `Dir::native`.

use std::path::{Path, PathBuf};

use trajhost_codec_openclaw_jsonl::{OpenClawJsonl, sniff};
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_testkit::{self as kit, assistants, kinds};

const SESSIONS: &str = ".openclaw/agents/main/sessions";
const A: &str = "5e55a0a1-1111-4aaa-8aaa-000000000001";
const B: &str = "5e55a0a1-2222-4bbb-8bbb-000000000002";
const C: &str = "5e55a0a1-3333-4ccc-8ccc-000000000003";
const M: &str = "3017b07a-4444-4ddd-8ddd-000000000004";

/// `fixtures/openclaw/<layout>/home`, by this crate's own path (a shared
/// target dir may have compiled the testkit elsewhere).
fn fixture(layout: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/openclaw").join(layout).join("home")
}

fn loc(name: &str) -> String {
    format!("{SESSIONS}/{name}")
}

#[test]
fn discover_lists_transcripts_and_archives_not_checkpoints() {
    // Ids, locators, titles, cwd and inspect are the conformance suite's.
    let home = fixture("jsonl");
    let found = kit::discover::<OpenClawJsonl>(&home);
    let ids: Vec<&str> = found.sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert_eq!(ids, [A, B, C], "live transcripts first, then the archive; no checkpoint copy");
    let a = &found.sessions[0];
    assert_eq!(a.updated_at.as_deref(), Some("2026-05-10T09:00:06.000Z"), "the index's updatedAt");
    assert_eq!(a.started_at.as_deref(), Some("2026-05-10T09:00:00.000Z"));
    // The stray file is named; the index and the checkpoint are not problems.
    assert_eq!(found.diagnostics.len(), 1, "{:?}", found.diagnostics);
    let d = kit::file_diag(&found.diagnostics, "unrecognized-file", &loc("notes.txt")).expect("notes.txt");
    assert_eq!(d.severity, Severity::Warning);
}

#[test]
fn the_active_branch_is_read_with_the_shared_entry_mapping() {
    // The conversation, kinds and parents are the conformance suite's.
    let home = fixture("jsonl");
    let read = kit::read::<OpenClawJsonl>(&home, &loc(&format!("{A}.jsonl")));
    let usage = assistants(&read.records)[0].usage.clone().expect("usage");
    assert_eq!((usage.input, usage.output, usage.cache_read), (Some(30), Some(12), Some(5)));
    // The abandoned reply is counted, not read; `custom` is reported.
    assert_eq!(read.diag_with("off-branch-entry", "message").map(|d| d.count), Some(1));
    assert_eq!(read.diag_with("unmapped-record-type", "custom").map(|d| d.count), Some(1));
    assert!(!read.document.contains("PEAR-0") && !read.document.contains("CHECKPOINT-ONLY"));
    // Parents naming the header or a tool call are followed: one branch.
    let read = kit::read::<OpenClawJsonl>(&home, &loc(&format!("{B}-topic-7.jsonl")));
    assert!(read.diag("off-branch-entry").is_none() && read.diag("broken-parent-chain").is_none());
}

#[test]
fn a_dangling_parent_reads_every_entry_in_file_order() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(SESSIONS);
    std::fs::create_dir_all(&dir).unwrap();
    let lines = [
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-05-01T00:00:00Z"}"#,
        r#"{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":"first DATE-1"}}"#,
        r#"{"type":"message","id":"a1","parentId":"nowhere","message":{"role":"assistant","content":[{"type":"text","text":"second DATE-2"}]}}"#,
    ];
    std::fs::write(dir.join("s1.jsonl"), lines.join("\n") + "\n").unwrap();
    let read = kit::read::<OpenClawJsonl>(home.path(), &loc("s1.jsonl"));
    assert_eq!(kinds(&read.records), ["meta", "user", "assistant"]);
    assert!(read.diag("broken-parent-chain").is_some());

    // Several entries without a parent (or naming the header): a forest.
    let lines = [
        r#"{"type":"session","version":3,"id":"s2","timestamp":"2026-05-01T00:00:00Z"}"#,
        r#"{"type":"model_change","id":"mc","parentId":"s2","provider":"p","modelId":"m"}"#,
        r#"{"type":"message","id":"u1","parentId":"s2","message":{"role":"user","content":"first"}}"#,
        r#"{"type":"message","id":"a1","parentId":"u1","message":{"role":"assistant","content":[{"type":"text","text":"second"}]}}"#,
    ];
    std::fs::write(dir.join("s2.jsonl"), lines.join("\n") + "\n").unwrap();
    let read = kit::read::<OpenClawJsonl>(home.path(), &loc("s2.jsonl"));
    assert_eq!(kinds(&read.records), ["meta", "observation", "user", "assistant"]);
    assert!(read.diag("several-roots").is_some() && read.diag("off-branch-entry").is_none());
}

#[test]
fn flat_clawdbot_lines_and_moltbot_agents_are_read() {
    // Their conversations are the conformance suite's.
    let home = fixture("clawdbot");
    let found = kit::discover::<OpenClawJsonl>(&home);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    let locators: Vec<&str> = found.sessions.iter().map(|s| s.locator.as_str()).collect();
    let flat = ".clawdbot/sessions/main.jsonl";
    let molt = format!(".moltbot/agents/work/sessions/{M}.jsonl");
    assert_eq!(locators, [flat, molt.as_str()]);
    let s = &found.sessions[0];
    assert_eq!(s.native_id, "main", "no header: the file name");
    assert_eq!(s.started_at.as_deref(), Some("2025-01-27T03:30:00.000Z"), "no header: the first line's time");
    let read = kit::read::<OpenClawJsonl>(&home, flat);
    assert!(read.diagnostics.is_empty(), "{:?}", read.diagnostics);
}

#[test]
fn every_entry_type_of_the_fixture_is_known() {
    let home = fixture("jsonl");
    let mut read = kit::read::<OpenClawJsonl>(&home, &loc(&format!("{A}.jsonl")));
    // The abandoned reply's diagnostic names its type too: not a handling.
    read.diagnostics.retain(|d| d.code != "off-branch-entry");
    let raw = kit::raw_lines(&home.join(loc(&format!("{A}.jsonl"))));
    kit::check_handling(&read, trajhost_codec_openclaw_jsonl::KNOWN_ENTRY_TYPES, |kind| {
        raw.iter().filter(|v| v["type"] == kind).count() as u32
    });
    assert!(matches!(read.records[0].body, Body::Meta(_)));
}

#[test]
fn sniff_claims_openclaw_paths_only() {
    let header = br#"{"type":"session","version":3,"id":"abc","timestamp":"2026-05-01T00:00:00Z"}
"#;
    let got = sniff("/backup/.openclaw/agents/main/sessions/abc.jsonl", header).expect("claimed");
    assert_eq!(got.native_id.as_deref(), Some("abc"));
    assert_eq!(got.native_version, None);
    assert!(sniff("/tmp/clawdbot/x.jsonl", br#"{"role":"user","content":"hi"}"#).is_some());
    assert!(sniff("/home/u/.pi/agent/sessions/--x--/a.jsonl", header).is_none(), "Pi writes the same header");
    assert!(sniff("/backup/.openclaw/x.jsonl", b"{\"type\":\"message\"}\n").is_none());
    assert!(sniff("/backup/.openclaw/x.jsonl", b"not json").is_none());
}
