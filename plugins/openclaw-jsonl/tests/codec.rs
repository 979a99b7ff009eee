//! The OpenClaw JSONL codec against hand-written homes of each legacy shape
//! (`fixtures/openclaw/jsonl`, `fixtures/openclaw/clawdbot`; see their
//! PROVENANCE.md), run natively through `Dir::native`.

use std::path::{Path, PathBuf};

use trajhost_codec_openclaw_jsonl::{OpenClawJsonl, sniff};
use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, Severity};
use trajhost_codec_testkit::{self as kit, Spans, assistants, kinds, tool_calls, tool_results, users};

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
fn info_names_the_layout() {
    let info = OpenClawJsonl::info();
    assert_eq!(info.harness, "openclaw");
    assert_eq!(info.codec_version, "0.1.0-jsonl");
    assert!(info.writes.is_empty());
    for path in [
        ".openclaw/agents/main/sessions/x.jsonl",
        ".clawdbot/sessions/x.jsonl",
        ".moltbot/agents/a/sessions/x.jsonl.reset.2026-01-01T00-00-00.000Z",
    ] {
        assert!(info.session_globs.iter().any(|g| kit::glob_matches(g, path)), "{path}");
    }
    assert!(
        !info.session_globs.iter().any(|g| kit::glob_matches(g, ".openclaw/agents/main/agent/openclaw-agent.sqlite"))
    );
}

#[test]
fn discover_lists_transcripts_and_archives_not_checkpoints() {
    let home = fixture("jsonl");
    let found = kit::discover::<OpenClawJsonl>(&home);
    let ids: Vec<&str> = found.sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert_eq!(ids, [A, B, C], "live transcripts first, then the archive; no checkpoint copy");
    let a = &found.sessions[0];
    assert_eq!(a.locator, loc(&format!("{A}.jsonl")));
    assert_eq!(a.title.as_deref(), Some("Crate count"), "the index's label");
    assert_eq!(a.updated_at.as_deref(), Some("2026-05-10T09:00:06.000Z"), "the index's updatedAt");
    assert_eq!(a.started_at.as_deref(), Some("2026-05-10T09:00:00.000Z"));
    assert_eq!(a.cwd.as_deref(), Some("/home/u/orchard"));
    assert_eq!(a.native_version, None);
    let b = &found.sessions[1];
    assert_eq!(b.locator, loc(&format!("{B}-topic-7.jsonl")));
    assert_eq!(b.title.as_deref(), Some("list the PLUM-5 rows"), "no label: the first prompt");
    assert_eq!(found.sessions[2].locator, loc(&format!("{C}.jsonl.reset.2026-05-09T08-00-00.000Z")));
    // The stray file is named; the index and the checkpoint are not problems.
    assert_eq!(found.diagnostics.len(), 1, "{:?}", found.diagnostics);
    let d = kit::file_diag(&found.diagnostics, "unrecognized-file", &loc("notes.txt")).expect("notes.txt");
    assert_eq!(d.severity, Severity::Warning);
    for s in &found.sessions {
        let one = OpenClawJsonl::inspect(&Dir::native(&home), &s.locator).unwrap();
        assert_eq!(format!("{one:?}"), format!("{s:?}"));
    }
}

#[test]
fn the_active_branch_is_read_with_the_shared_entry_mapping() {
    let home = fixture("jsonl");
    let read = kit::read::<OpenClawJsonl>(&home, &loc(&format!("{A}.jsonl")));
    assert_eq!(
        kinds(&read.records),
        [
            "meta",
            "observation", // model_change
            "observation", // custom_message (runtime context, not a prompt)
            "user",
            "reasoning",
            "assistant",
            "tool_call",
            "tool_result",
            "compaction",
            "assistant"
        ]
    );
    let meta = read.meta();
    assert_eq!((meta.native_id.as_str(), meta.harness.as_str()), (A, "openclaw"));
    assert_eq!(meta.codec.as_deref(), Some("openclaw@0.1.0-jsonl"));
    assert_eq!(meta.title.as_deref(), Some("Crate count"));
    assert_eq!(users(&read.records), ["count the APPLE-23 crates"]);
    let texts: Vec<&str> = assistants(&read.records).iter().map(|a| a.text.as_str()).collect();
    assert_eq!(texts, ["Reading the ledger.", "There are 41 APPLE-23 crates."]);
    let usage = assistants(&read.records)[0].usage.clone().expect("usage");
    assert_eq!((usage.input, usage.output, usage.cache_read), (Some(30), Some(12), Some(5)));
    assert_eq!(tool_calls(&read.records), [("call_ledger", "read", &serde_json::json!({"path": "ledger.csv"}))]);
    assert_eq!(tool_results(&read.records), [("call_ledger", "APPLE-23,41 crates", Some(true))]);
    // The abandoned reply is counted, not read; `custom` is reported.
    assert_eq!(read.diag_with("off-branch-entry", "message").map(|d| d.count), Some(1));
    assert_eq!(read.diag_with("unmapped-record-type", "custom").map(|d| d.count), Some(1));
    assert!(!read.document.contains("PEAR-0") && !read.document.contains("CHECKPOINT-ONLY"));
    // Records point at their lines, the tool result at its call.
    let result = read.records.iter().find(|r| r.body.kind() == "tool_result").unwrap();
    assert_eq!(result.parent.as_deref(), Some("call_ledger"));
    assert_eq!(result.ts.as_deref(), Some("2026-05-10T09:00:04.000Z"));
    kit::conformance::<OpenClawJsonl>(&home, &loc(&format!("{A}.jsonl")), Spans::Lines);
}

#[test]
fn parents_naming_the_header_or_a_tool_call_are_followed() {
    let home = fixture("jsonl");
    let locator = loc(&format!("{B}-topic-7.jsonl"));
    let read = kit::read::<OpenClawJsonl>(&home, &locator);
    assert_eq!(kinds(&read.records), ["meta", "user", "assistant", "tool_call", "tool_result", "assistant"]);
    assert_eq!(tool_results(&read.records), [("tc_rows", "PLUM-5 row 12", Some(false))]);
    assert!(read.diag("off-branch-entry").is_none() && read.diag("broken-parent-chain").is_none());
    kit::conformance::<OpenClawJsonl>(&home, &locator, Spans::Lines);

    let locator = loc(&format!("{C}.jsonl.reset.2026-05-09T08-00-00.000Z"));
    let read = kit::read::<OpenClawJsonl>(&home, &locator);
    assert_eq!(users(&read.records), ["before the reset: FIG-8"]);
    assert_eq!(read.meta().native_id, C);
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
    let home = fixture("clawdbot");
    let found = kit::discover::<OpenClawJsonl>(&home);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    let locators: Vec<&str> = found.sessions.iter().map(|s| s.locator.as_str()).collect();
    let flat = ".clawdbot/sessions/main.jsonl";
    let molt = format!(".moltbot/agents/work/sessions/{M}.jsonl");
    assert_eq!(locators, [flat, molt.as_str()]);
    let s = &found.sessions[0];
    assert_eq!(s.native_id, "main", "no header: the file name");
    assert_eq!(s.started_at.as_deref(), Some("2025-01-27T03:30:00.000Z"));
    assert_eq!(s.title.as_deref(), Some("what rhymes with KIWI-3?"));

    let read = kit::read::<OpenClawJsonl>(&home, flat);
    assert_eq!(kinds(&read.records), ["meta", "user", "assistant", "user", "assistant"]);
    assert_eq!(users(&read.records), ["what rhymes with KIWI-3?", "try harder"]);
    let texts: Vec<&str> = assistants(&read.records).iter().map(|a| a.text.as_str()).collect();
    assert_eq!(texts, ["Not much rhymes with KIWI-3.", "Wiki, maybe."]);
    assert_eq!(read.records[1].ts.as_deref(), Some("2025-01-27T03:30:00.000Z"));
    assert!(read.diagnostics.is_empty(), "{:?}", read.diagnostics);
    kit::conformance::<OpenClawJsonl>(&home, flat, Spans::Lines);

    let read = kit::read::<OpenClawJsonl>(&home, &molt);
    assert_eq!(read.meta().cwd.as_deref(), Some("/srv/molt"));
    assert_eq!(users(&read.records), ["molt the LOBSTER-9 shell"]);
    kit::conformance::<OpenClawJsonl>(&home, &molt, Spans::Lines);
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

#[test]
fn an_empty_home_has_nothing() {
    let home = tempfile::tempdir().unwrap();
    let found = kit::discover::<OpenClawJsonl>(home.path());
    assert!(found.sessions.is_empty() && found.diagnostics.is_empty());
}
