//! `write` and `prepare` of schema 2: read → write → prepare → read round
//! trips of the Letta Code 0.32.18 (and 0.25.9) lab scenarios, the files
//! field by field against the ones 0.32.18 wrote, a fresh home, a
//! conversation added to an existing schema-2 store (others byte-identical)
//! and to a store holding schema-1 conversations, and the stores refused.

#[path = "../../letta-code/tests/support/mod.rs"]
mod support;

use std::collections::BTreeSet;

use serde_json::{Value, json};
use trajhost_codec_letta_code_entries::LettaCodeEntries;
use trajhost_codec_letta_code_entries::layout::{self, MESSAGES};
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Record, Usage};
use trajhost_codec_sdk::{Artifact, Codec, Written};
use trajhost_codec_testkit::{self as kit, Read, users};

use support::*;

/// The codec `support` writes, prepares and reads with.
type Tested = LettaCodeEntries;

fn fixture(version: &str, scenario: &str) -> std::path::PathBuf {
    kit::fixtures("letta-code", version).join(scenario)
}

fn source(version: &str, scenario: &str) -> Read {
    // Each fixture is read by the codec of its layout.
    match version {
        "0.25.9" => kit::read::<trajhost_codec_letta_code::LettaCode>(&fixture(version, scenario), LOCATOR),
        _ => kit::read::<LettaCodeEntries>(&fixture(version, scenario), LOCATOR),
    }
}

/// Keys of an object in order, nested objects and the first object of an
/// array as `key{…}` / `key[{…}]`: the shape of a line.
fn shape(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let keys: Vec<String> = map
                .iter()
                .map(|(k, v)| match v {
                    Value::Object(_) => format!("{k}{}", shape(v)),
                    Value::Array(items) if items.first().is_some_and(Value::is_object) => {
                        format!("{k}[{}]", shape(&items[0]))
                    }
                    _ => k.clone(),
                })
                .collect();
            format!("{{{}}}", keys.join(","))
        }
        _ => String::new(),
    }
}

#[test]
fn a_schema_1_session_survives_read_write_read() {
    // The suite round-trips the 0.32.18 scenarios; a schema-1 session is
    // written as schema 2 too.
    let (version, scenario) = ("0.25.9", "failing-tool");
    let source = source(version, scenario);
    let (_target, written, plan, back) = installed(&source.document);
    let what = format!("{version}/{scenario}");
    assert!(plan.native_id.starts_with("conv-"), "{what}: {}", plan.native_id);
    assert_eq!(written.native_id, plan.native_id);
    assert_same_conversation(&back, &source, &what);
    assert_eq!(back.meta().native_version.as_deref(), Some(version), "{what}");
    assert_eq!(back.meta().cwd.as_deref(), Some(CWD), "{what}");
    assert_eq!(back.meta().started_at, source.meta().started_at, "{what}: the session header's time");
    assert_eq!(back.meta().title, source.meta().title, "{what}");
    assert!(kit::diag(&written.diagnostics, "not-carried").is_none(), "{what}: {:?}", written.diagnostics);
    // It reads back through discovery too (the host's fidelity check does so).
    let found = kit::discover::<LettaCodeEntries>(_target.path());
    assert_eq!(found.sessions.iter().map(|s| s.native_id.as_str()).collect::<Vec<_>>(), [plan.native_id.as_str()]);
}

#[test]
fn the_files_match_letta_code_0_32_18_field_by_field() {
    for scenario in ["simple", "parallel"] {
        let home = fixture("0.32.18", scenario);
        let native = lines_of(&std::fs::read(home.join(LOCATOR)).unwrap());
        let source = source("0.32.18", scenario);
        let (target, written, plan, _back) = installed(&source.document);
        let ours = lines_of(&written.chunks[0].bytes);
        assert_eq!(ours.len(), native.len(), "{scenario}: a header and one entry per message");
        for (n, (a, b)) in ours.iter().zip(&native).enumerate() {
            // The same keys in the same order, at every level (Letta Code's
            // assistant metadata also records its provider: not written).
            let mut theirs = b.clone();
            if let Some(m) = theirs.pointer_mut("/message/metadata").and_then(Value::as_object_mut) {
                m.remove("provider");
            }
            assert_eq!(shape(a), shape(&theirs), "{scenario} line {}", n + 1);
        }
        // The header: Pi's session format 3, the conversation, its time and cwd.
        assert_eq!(ours[0]["type"], "session");
        assert_eq!(ours[0]["version"], 3);
        assert_eq!(ours[0]["id"], plan.native_id.as_str());
        assert_eq!(ours[0]["cwd"], CWD);
        // Entries: 8 hex digits, new in the file, each the next one's parent.
        let mut seen = BTreeSet::new();
        let mut parent = Value::Null;
        for entry in &ours[1..] {
            let id = entry["id"].as_str().unwrap();
            assert!(id.len() == 8 && id.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()), "{id}");
            assert!(seen.insert(id.to_string()));
            assert_eq!(entry["parentId"], parent);
            parent = json!(id);
            assert_eq!(entry["timestamp"], entry["message"]["metadata"]["created_at"]);
        }
        // The side files: the same keys as Letta Code's, and the times agree as its do.
        let dir = layout::conversation_file(&plan.native_id, "");
        let native_dir = LOCATOR.trim_end_matches(MESSAGES);
        for name in ["manifest.json", "conversation.json"] {
            let a = json_at(target.path(), &format!("{dir}{name}"));
            let b = json_at(&home, &format!("{native_dir}{name}"));
            assert_eq!(shape(&a), shape(&b), "{scenario} {name}");
        }
        let manifest = json_at(target.path(), &format!("{dir}manifest.json"));
        assert_eq!(manifest["schema_version"], 2);
        assert_eq!(manifest["message_format"], "pi-session-entry-jsonl");
        assert_eq!(manifest["provider_stack"], "pi-ai");
        let conversation = json_at(target.path(), &format!("{dir}conversation.json"));
        assert_eq!(manifest["created_at"], ours[0]["timestamp"]);
        assert_eq!(conversation["created_at"], ours[0]["timestamp"]);
        let ids: Vec<&Value> = ours[1..].iter().map(|e| &e["message"]["id"]).collect();
        assert_eq!(conversation["in_context_message_ids"].as_array().unwrap().iter().collect::<Vec<_>>(), ids);
    }
}

#[test]
fn writing_streams_and_pieces_equal_the_whole() {
    let source = source("0.32.18", "parallel");
    let whole = check_pieces_equal_the_whole(&source.document);
    // The same document gives the same bytes; another, another conversation.
    assert_eq!(write(&source.document, options(None)).chunks[0].bytes, whole.chunks[0].bytes);
    assert_ne!(write(&self::source("0.32.18", "simple").document, options(None)).native_id, whole.native_id);
}

#[test]
fn a_fresh_home_gets_the_folder_the_agent_and_a_settings_entry() {
    let source = source("0.32.18", "simple");
    let (target, _written, plan, back) = installed(&source.document);
    let home = target.path();
    let id = plan.native_id.clone();
    let conversation = json_at(home, &layout::conversation_file(&id, "conversation.json"));
    let agent_id = conversation["agent_id"].as_str().unwrap().to_string();
    assert!(agent_id.starts_with("agent-local-"));
    let agent = json_at(home, &layout::agent_file(&agent_id));
    assert_eq!(agent["tags"], json!(["origin:letta-code"]));
    assert_fresh_home_settings(home, &agent_id, &plan);
    assert_eq!(kit::files_of(home).len(), 5, "messages, manifest, conversation, agent, settings");
    assert_eq!(back.meta().native_id, id);
}

#[test]
fn an_existing_schema_2_store_gets_a_conversation_and_keeps_every_other_file() {
    let target = kit::copy_of(&fixture("0.32.18", "simple"));
    let home = target.path();
    let before = kit::files_of(home);
    let source = source("0.32.18", "multibyte");
    let written = write(&source.document, options(None));
    let plan = prepare(&written, home).unwrap();
    apply(&plan, &written, home);
    let after = kit::files_of(home);
    assert_only_an_agent_added(&before, &after);
    // The new agent takes the model of the agent the home last used, when settings name one.
    let conversation = json_at(home, &layout::conversation_file(&plan.native_id, "conversation.json"));
    let agent = json_at(home, &layout::agent_file(conversation["agent_id"].as_str().unwrap()));
    assert!(agent.get("model").is_none(), "lastAgent is null in this home: Letta Code's default");
    // Both conversations are listed by this codec; the old one reads as before.
    let found = kit::discover::<LettaCodeEntries>(home);
    let ids: BTreeSet<&str> = found.sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert_eq!(ids, BTreeSet::from(["local-conv-1", plan.native_id.as_str()]));
    let old = kit::read::<LettaCodeEntries>(home, LOCATOR);
    assert_eq!(old.document, source_document_of_simple());
    assert_eq!(users(&read_back(home, &plan.native_id).records), users(&source.records));
    // The same conversation again is refused: never overwritten or merged.
    let now = kit::files_of(home);
    let err = format!("{:?}", prepare(&written, home).unwrap_err());
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(kit::files_of(home), now);
}

fn source_document_of_simple() -> String {
    source("0.32.18", "simple").document
}

#[test]
fn a_store_with_schema_1_conversations_is_added_to() {
    // Letta Code 0.30.28 and later load schema-1 conversations beside schema-2 ones.
    let target = kit::copy_of(&fixture("0.25.9", "simple"));
    let home = target.path();
    let before = kit::files_of(home);
    let written = write(&source("0.32.18", "simple").document, options(None));
    let plan = prepare(&written, home).unwrap();
    apply(&plan, &written, home);
    let after = kit::files_of(home);
    for (path, bytes) in &before {
        if path != ".letta/settings.json" {
            assert_eq!(after.get(path), Some(bytes), "{path} changed");
        }
    }
    // Each codec lists its own: this one the new conversation, the schema-1 one the old.
    let ours = kit::discover::<LettaCodeEntries>(home);
    assert_eq!(ours.sessions.iter().map(|s| s.native_id.as_str()).collect::<Vec<_>>(), [plan.native_id.as_str()]);
    let theirs = kit::discover::<trajhost_codec_letta_code::LettaCode>(home);
    assert_eq!(theirs.sessions.iter().map(|s| s.native_id.as_str()).collect::<Vec<_>>(), ["local-conv-1"]);
    // The agent takes the model of the agent the home last used.
    let conversation = json_at(home, &layout::conversation_file(&plan.native_id, "conversation.json"));
    let agent = json_at(home, &layout::agent_file(conversation["agent_id"].as_str().unwrap()));
    assert_eq!(agent["model"], "llama-cpp/fake-model");
}

#[test]
fn an_unknown_store_is_refused_naming_the_version_and_the_writer() {
    let written = write(&source("0.32.18", "simple").document, options(None));
    let manifest = format!("{}/manifest.json", LOCATOR.trim_end_matches("/messages.jsonl"));
    let target = kit::copy_of(&fixture("0.32.18", "simple"));
    let path = target.path().join(&manifest);
    std::fs::write(
        &path,
        r#"{"schema_version":3,"message_format":"pi-session-tree-jsonl","provider_stack":"pi-ai","created_at":"x"}"#,
    )
    .unwrap();
    let before = kit::files_of(target.path());
    let err = format!("{:?}", prepare(&written, target.path()).unwrap_err());
    assert!(err.contains(&manifest) && err.contains("schema_version 3 (known: 1, 2)"), "{err}");
    assert!(err.contains("no writer here handles it") && err.contains("letta-code@0.1.0-entries"), "{err}");
    assert_eq!(kit::files_of(target.path()), before);
    // Another provider stack.
    std::fs::write(
        &path,
        r#"{"schema_version":2,"message_format":"pi-session-entry-jsonl","provider_stack":"ai-sdk","created_at":"x"}"#,
    )
    .unwrap();
    let err = format!("{:?}", prepare(&written, target.path()).unwrap_err());
    assert!(err.contains("provider_stack") && err.contains("ai-sdk") && err.contains("(known: pi-ai)"), "{err}");
    assert!(!err.contains("schema_version"), "only what differs: {err}");
    // An unversioned legacy transcript.
    std::fs::remove_file(&path).unwrap();
    let err = format!("{:?}", prepare(&written, target.path()).unwrap_err());
    assert!(err.contains("migrate-transcripts") && err.contains(LOCATOR), "{err}");
    // A migrated manifest is schema 2 with more keys: known.
    std::fs::write(
        &path,
        r#"{"schema_version":2,"message_format":"pi-session-entry-jsonl","provider_stack":"pi-ai","created_at":"x","migrated_from":"versioned-pi-ai-message-jsonl"}"#,
    )
    .unwrap();
    assert!(prepare(&written, target.path()).is_ok());
}

#[test]
fn another_version_in_the_store_is_left_to_the_host() {
    // The writer range and the ledger decide; a store written by another
    // Letta Code of schema 2 is added to without --allow-untested.
    let target = kit::copy_of(&fixture("0.32.18", "simple"));
    let messages = target.path().join(LOCATOR);
    let text = std::fs::read_to_string(&messages).unwrap().replace("version**: 0.32.18", "version**: 0.31.12");
    std::fs::write(&messages, text).unwrap();
    let written = write(&source("0.32.18", "simple").document, options(None));
    assert!(prepare(&written, target.path()).is_ok());
}

fn record(id: &str, ts: &str, body: Body) -> Record {
    Record { id: id.into(), body, parent: None, ts: Some(ts.into()), agent: None, src: None }
}

#[test]
fn a_compaction_is_a_compaction_entry_and_context_starts_there() {
    let meta = Meta {
        schema: trajhost_codec_sdk::canonical::SCHEMA.into(),
        harness: "codex".into(),
        native_id: "s1".into(),
        started_at: Some("2026-11-30T04:05:50.000Z".into()),
        cwd: Some("/srv/app".into()),
        ..Meta::default()
    };
    let usage = Usage { input: Some(10), output: Some(5), reasoning: Some(3), ..Usage::default() };
    let records = vec![
        record("m", "2026-11-30T04:05:50.000Z", Body::Meta(meta)),
        record("u", "2026-11-30T04:05:51.000Z", Body::User { text: "Read hello.txt".into(), attachments: vec![] }),
        record(
            "a",
            "2026-11-30T04:05:52.000Z",
            Body::Assistant(Assistant { text: "PAPAYA-42.".into(), usage: Some(usage), ..Assistant::default() }),
        ),
        record("k", "2026-11-30T04:05:53.000Z", Body::Compaction { summary: "Read a file.".into(), trigger: None }),
        record("u2", "2026-11-30T04:05:54.000Z", Body::User { text: "Again?".into(), attachments: vec![] }),
    ];
    let (target, written, plan, back) = installed(&kit::document(&records));
    let lines = lines_of(&written.chunks[0].bytes);
    let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["session", "message", "message", "compaction", "message"]);
    assert_eq!(lines[0]["timestamp"], "2026-11-30T04:05:50.000Z", "the session's start");
    assert_eq!(lines[0]["cwd"], CWD, "the target's cwd (the write option) over the source's");
    let compaction = &lines[3];
    assert_eq!(compaction["summary"], "Read a file.");
    assert_eq!((&compaction["firstKeptEntryId"], &compaction["tokensBefore"]), (&Value::Null, &json!(0)));
    assert_eq!(compaction["message"]["metadata"]["compaction"]["summary"], "Read a file.");
    assert_eq!(compaction["parentId"], lines[2]["id"]);
    // Schema 2's usage keeps the reasoning count; the person's messages an otid.
    assert_eq!(lines[2]["message"]["usage"]["reasoning"], 3);
    assert!(kit::diag_with(&written.diagnostics, "not-carried", "usage.reasoning").is_none());
    assert_eq!(lines[1]["message"]["otid"].as_str().unwrap().len(), 36);
    let conversation = json_at(target.path(), &layout::conversation_file(&plan.native_id, "conversation.json"));
    let in_context: Vec<&Value> = conversation["in_context_message_ids"].as_array().unwrap().iter().collect();
    assert_eq!(in_context, [&lines[3]["message"]["id"], &lines[4]["message"]["id"]]);
    assert_eq!(users(&back.records), ["Read hello.txt", "Again?"]);
    let compactions: Vec<&Body> =
        back.records.iter().map(|r| &r.body).filter(|b| matches!(b, Body::Compaction { .. })).collect();
    assert_eq!(compactions, [&Body::Compaction { summary: "Read a file.".into(), trigger: None }]);
}

#[test]
fn an_empty_session_is_a_header_only() {
    let written = write("", options(None));
    let lines = lines_of(&written.chunks[0].bytes);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["type"], "session");
    let target = tempfile::tempdir().unwrap();
    let plan = prepare(&written, target.path()).unwrap();
    apply(&plan, &written, target.path());
    assert_eq!(kit::discover::<LettaCodeEntries>(target.path()).sessions.len(), 1);
}

#[test]
fn a_schema_1_transcript_is_not_installed_as_schema_2() {
    // The artifacts of the schema-1 writer are refused by this prepare.
    let document = source("0.32.18", "simple").document;
    let mut writer = trajhost_codec_letta_code::LettaCode::write(options(None)).unwrap();
    let mut chunks = writer.push(&document).unwrap();
    chunks.extend(writer.finish().unwrap().chunks);
    let mut joined: Vec<Artifact> = Vec::new();
    for c in chunks {
        match joined.iter_mut().find(|j| j.path == c.path) {
            Some(j) => j.bytes.extend_from_slice(&c.bytes),
            None => joined.push(c),
        }
    }
    let written = Written { native_id: String::new(), chunks: joined, diagnostics: vec![] };
    let err = format!("{:?}", prepare(&written, tempfile::tempdir().unwrap().path()).unwrap_err());
    assert!(err.contains("not a line of a pi-session-entry-jsonl transcript"), "{err}");
}

#[test]
fn the_written_files_are_found_before_prepare_adds_the_manifest() {
    // The host reads an export's artifacts back through discovery: a folder
    // with no manifest whose transcript opens with a `session` header is
    // schema 2, and so this codec's (the schema-1 codec's without one).
    let source = source("0.32.18", "simple");
    let written = write(&source.document, options(None));
    let export = tempfile::tempdir().unwrap();
    for chunk in &written.chunks {
        kit::create_new_file(export.path(), &chunk.path, &chunk.bytes);
    }
    let found = kit::discover::<LettaCodeEntries>(export.path());
    assert_eq!(found.sessions.iter().map(|s| s.native_id.as_str()).collect::<Vec<_>>(), [written.native_id.as_str()]);
    assert!(kit::discover::<trajhost_codec_letta_code::LettaCode>(export.path()).sessions.is_empty());
    let back = kit::read::<LettaCodeEntries>(export.path(), &found.sessions[0].locator);
    assert_eq!(users(&back.records), users(&source.records));
    // And the schema-1 writer's export stays the schema-1 codec's.
    let mut writer = trajhost_codec_letta_code::LettaCode::write(options(None)).unwrap();
    let mut chunks = writer.push(&source.document).unwrap();
    chunks.extend(writer.finish().unwrap().chunks);
    let export = tempfile::tempdir().unwrap();
    for chunk in &chunks {
        let file = export.path().join(&chunk.path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let mut bytes = std::fs::read(&file).unwrap_or_default();
        bytes.extend_from_slice(&chunk.bytes);
        std::fs::write(file, bytes).unwrap();
    }
    assert!(kit::discover::<LettaCodeEntries>(export.path()).sessions.is_empty());
    assert_eq!(kit::discover::<trajhost_codec_letta_code::LettaCode>(export.path()).sessions.len(), 1);
}
