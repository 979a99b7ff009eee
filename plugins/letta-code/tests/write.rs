//! `write` and `prepare`: read → write → prepare → read round trips of every
//! lab scenario, fresh and existing homes (others byte-identical), the store
//! checks, collisions, the model choice and the resume command.

mod support;

use serde_json::{Value, json};
use trajhost_codec_letta_code::LettaCode;
use trajhost_codec_letta_code::layout::{self, MESSAGES};
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Reasoning, Record, Usage};
use trajhost_codec_sdk::target::{self, TargetChoice};
use trajhost_codec_sdk::{Codec, CodecError, Operation, WriteOptions};
use trajhost_codec_testkit::{self as kit, assistants, tool_results, users};

use support::*;

/// The codec `support` writes, prepares and reads with.
type Tested = LettaCode;

const SCENARIOS: [&str; 5] = ["simple", "parallel", "failing-tool", "multibyte", "long-output"];

fn fixture(scenario: &str) -> std::path::PathBuf {
    kit::fixtures("letta-code", "0.25.9").join(scenario)
}

#[test]
fn every_lab_scenario_survives_read_write_read() {
    for scenario in SCENARIOS {
        let source = kit::read::<LettaCode>(&fixture(scenario), LOCATOR);
        let (_target, written, plan, back) = installed(&source.document);
        assert!(plan.native_id.starts_with("conv-"), "{scenario}: {}", plan.native_id);
        assert_eq!(written.native_id, plan.native_id);
        assert_same_conversation(&back, &source, scenario);
        assert_eq!(back.meta().native_version.as_deref(), Some("0.25.9"), "{scenario}");
        assert_eq!(back.meta().cwd.as_deref(), Some(CWD), "{scenario}");
        assert!(kit::diag(&written.diagnostics, "not-carried").is_none(), "{scenario}: {:?}", written.diagnostics);
        // The title was the first prompt's: `summary` stays null, as Letta Code leaves it.
        assert_eq!(back.meta().title, source.meta().title, "{scenario}");
        let conversation = &written.chunks[1];
        assert!(conversation.path.ends_with("/conversation.json"));
        let conversation: Value = serde_json::from_slice(&conversation.bytes).unwrap();
        assert_eq!(conversation["summary"], Value::Null, "{scenario}");
    }
}

#[test]
fn the_failing_tool_keeps_its_error_and_the_long_output_its_bytes() {
    let source = kit::read::<LettaCode>(&fixture("failing-tool"), LOCATOR);
    let (_t, _w, _p, back) = installed(&source.document);
    let results = tool_results(&back.records);
    assert_eq!(results.len(), 1);
    // Letta Code's Bash reports the exit code in the text, with `isError: false`.
    assert_eq!(results[0].2, Some(true));
    assert!(results[0].1.starts_with("Exit code: 3"));
    assert!(results[0].1.contains("No such file or directory"));
    let source = kit::read::<LettaCode>(&fixture("long-output"), LOCATOR);
    let (_t, _w, _p, back) = installed(&source.document);
    let result = tool_results(&back.records)[0].1;
    assert!(result.starts_with("LONG-OUTPUT-BEGIN LEMON-512"));
    assert_eq!(result, tool_results(&source.records)[0].1);
}

#[test]
fn writing_streams_and_pieces_equal_the_whole() {
    let source = kit::read::<LettaCode>(&fixture("parallel"), LOCATOR);
    check_pieces_equal_the_whole(&source.document);
    // The pieces come while records are pushed, not only at finish.
    let mut writer = LettaCode::write(options(None)).unwrap();
    let mut early = 0;
    for line in source.document.lines() {
        early += writer.push(&(line.to_string() + "\n")).unwrap().len();
    }
    assert!(early >= 3, "{early} pieces before finish");
}

#[test]
fn the_parallel_calls_are_one_assistant_message_and_two_results() {
    let source = kit::read::<LettaCode>(&fixture("parallel"), LOCATOR);
    let written = write(&source.document, options(None));
    let lines = lines_of(&written.chunks[0].bytes);
    let roles: Vec<&str> = lines.iter().map(|l| l["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "toolResult", "toolResult", "assistant"]);
    assert_eq!(lines[1]["content"].as_array().unwrap().len(), 2);
    assert_eq!(lines[1]["stopReason"], "toolUse");
    assert_eq!(lines[2]["toolName"], "Bash");
    assert_eq!(lines[3]["toolName"], "Read");
    let conv = written.native_id.as_str();
    for (n, line) in lines.iter().enumerate() {
        assert_eq!(line["id"], format!("{conv}-msg-{}", n + 1));
        assert_eq!(line["metadata"]["conversation_id"], conv);
        assert!(line["metadata"]["agent_id"].as_str().unwrap().starts_with("agent-local-"));
    }
    // The user message keeps its injected reminders first, as Letta Code puts them.
    let parts = lines[0]["content"].as_array().unwrap();
    assert!(parts.len() > 1);
    assert!(parts[0]["text"].as_str().unwrap().starts_with("<system-reminder>"));
    assert_eq!(parts.last().unwrap()["text"], "Read hello.txt and second.txt and tell me both words.");
}

#[test]
fn a_fresh_home_gets_the_folder_the_agent_and_a_settings_entry() {
    let source = kit::read::<LettaCode>(&fixture("simple"), LOCATOR);
    let (target, _written, plan, back) = installed(&source.document);
    let id = plan.native_id.clone();
    let home = target.path();
    let dir = home.join(layout::conversation_file(&id, ""));
    let manifest: Value = serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["schema_version"], 1);
    assert_eq!(manifest["message_format"], "pi-ai-message-jsonl");
    assert_eq!(manifest["provider_stack"], "pi-ai");
    let conversation: Value = serde_json::from_slice(&std::fs::read(dir.join("conversation.json")).unwrap()).unwrap();
    assert_eq!(conversation["id"], id.as_str());
    let agent_id = conversation["agent_id"].as_str().unwrap().to_string();
    assert_eq!(conversation["in_context_message_ids"].as_array().unwrap().len(), 6);
    assert_eq!(conversation["archived"], false);
    let agent_file = home.join(layout::agent_file(&agent_id));
    let agent: Value = serde_json::from_slice(&std::fs::read(agent_file).unwrap()).unwrap();
    assert_eq!(agent["id"], agent_id.as_str());
    assert_eq!(agent["tags"], json!(["origin:letta-code"]));
    assert!(agent.get("model").is_none(), "no model chosen, none in the home: Letta Code's default");
    assert_fresh_home_settings(home, &agent_id, &plan);
    // Discovery lists it under its id, with its version and cwd.
    let found = kit::discover::<LettaCode>(home);
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].native_id, id);
    assert_eq!(back.meta().native_id, id);
}

#[test]
fn an_existing_home_keeps_every_other_file_byte_identical() {
    let target = kit::copy_of(&fixture("simple"));
    let home = target.path();
    let before = kit::files_of(home);
    let source = kit::read::<LettaCode>(&fixture("multibyte"), LOCATOR);
    let written = write(&source.document, options(None));
    let plan = prepare(&written, home).unwrap();
    apply(&plan, &written, home);
    let after = kit::files_of(home);
    assert_only_an_agent_added(&before, &after);
    // The new agent takes the model of the agent the home last used.
    let conversation: Value =
        serde_json::from_slice(&after[&layout::conversation_file(&plan.native_id, "conversation.json")]).unwrap();
    let agent: Value =
        serde_json::from_slice(&after[&layout::agent_file(conversation["agent_id"].as_str().unwrap())]).unwrap();
    assert_eq!(agent["model"], "llama-cpp/fake-model");
    // Both conversations are listed; the old one reads as before.
    let found = kit::discover::<LettaCode>(home);
    let ids: Vec<&str> = found.sessions.iter().map(|s| s.native_id.as_str()).collect();
    assert!(ids.contains(&"local-conv-1") && ids.contains(&plan.native_id.as_str()), "{ids:?}");
    let old = kit::read::<LettaCode>(home, LOCATOR);
    assert_eq!(old.document, kit::read::<LettaCode>(&fixture("simple"), LOCATOR).document);
    let back = read_back(home, &plan.native_id);
    assert_eq!(users(&back.records), users(&source.records));
}

#[test]
fn an_installed_conversation_is_never_overwritten() {
    let source = kit::read::<LettaCode>(&fixture("simple"), LOCATOR);
    let (target, written, _plan, _back) = installed(&source.document);
    let before = kit::files_of(target.path());
    let err = prepare(&written, target.path()).unwrap_err();
    assert!(format!("{err:?}").contains("already exists"), "{err:?}");
    assert_eq!(kit::files_of(target.path()), before);
    // A conversation.json that does not match its messages is refused.
    let mut forged = written.clone();
    let conv = forged.chunks.iter_mut().find(|a| a.path.ends_with("conversation.json")).unwrap();
    conv.bytes = String::from_utf8(conv.bytes.clone()).unwrap().replace("-msg-1\"", "-msg-99\"").into_bytes();
    let err = format!("{:?}", prepare(&forged, tempfile::tempdir().unwrap().path()).unwrap_err());
    assert!(err.contains("-msg-99\\\", which is not in messages.jsonl"), "{err}");
    // Also when the folder was renamed but its conversation.json names the id.
    let target2 = tempfile::tempdir().unwrap();
    let plan = prepare(&written, target2.path()).unwrap();
    apply(&plan, &written, target2.path());
    let dir = target2.path().join(layout::conversation_file(&plan.native_id, ""));
    std::fs::rename(&dir, dir.with_file_name("renamed")).unwrap();
    let agents = target2.path().join(layout::AGENTS);
    std::fs::remove_dir_all(agents).unwrap();
    let err = prepare(&written, target2.path()).unwrap_err();
    assert!(format!("{err:?}").contains("already names conversation"), "{err:?}");
}

#[test]
fn an_unknown_store_is_refused_naming_the_file_and_what_differs() {
    let source = kit::read::<LettaCode>(&fixture("simple"), LOCATOR);
    let written = write(&source.document, options(None));
    let manifest = format!("{}/manifest.json", LOCATOR.trim_end_matches("/messages.jsonl"));
    // A newer transcript schema.
    let target = kit::copy_of(&fixture("simple"));
    let path = target.path().join(&manifest);
    std::fs::write(
        &path,
        r#"{"schema_version":2,"message_format":"pi-session-entry-jsonl","provider_stack":"pi-ai","created_at":"x"}"#,
    )
    .unwrap();
    let before = kit::files_of(target.path());
    let err = format!("{:?}", prepare(&written, target.path()).unwrap_err());
    assert!(err.contains(&manifest) && err.contains("schema_version 2") && err.contains("message_format"), "{err}");
    // It names the writer that handles schema 2, and the versions each writes for.
    assert!(err.contains("letta-code@0.1.0-entries") && err.contains(">=0.30.28, <1.0.0"), "{err}");
    assert!(err.contains("--target-version") && err.contains(">=0.25.0, <0.30.28"), "{err}");
    assert_eq!(kit::files_of(target.path()), before);
    // A schema no writer knows names its version and that none handles it.
    std::fs::write(
        &path,
        r#"{"schema_version":3,"message_format":"pi-session-tree-jsonl","provider_stack":"pi-ai","created_at":"x"}"#,
    )
    .unwrap();
    let err = format!("{:?}", prepare(&written, target.path()).unwrap_err());
    assert!(err.contains("schema_version 3 (known: 1, 2)") && err.contains("no writer here handles it"), "{err}");
    // An unversioned legacy transcript.
    std::fs::remove_file(&path).unwrap();
    let err = format!("{:?}", prepare(&written, target.path()).unwrap_err());
    assert!(err.contains("migrate-transcripts") && err.contains(LOCATOR), "{err}");
    // An agent file that is not an agent record.
    let target = kit::copy_of(&fixture("simple"));
    std::fs::write(target.path().join(".letta/lc-local-backend/agents/x.json"), "[1]").unwrap();
    let err = format!("{:?}", prepare(&written, target.path()).unwrap_err());
    assert!(err.contains("agents/x.json") && err.contains("not a Letta Code agent record"), "{err}");
    // Settings whose agents are not a list.
    let target = kit::copy_of(&fixture("simple"));
    std::fs::write(target.path().join(".letta/settings.json"), r#"{"agents":{}}"#).unwrap();
    let err = format!("{:?}", prepare(&written, target.path()).unwrap_err());
    assert!(err.contains(".letta/settings.json") && err.contains("`agents` is not an array"), "{err}");
}

#[test]
fn settings_without_an_agents_list_get_one() {
    let source = kit::read::<LettaCode>(&fixture("simple"), LOCATOR);
    let written = write(&source.document, options(None));
    let target = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(target.path().join(".letta")).unwrap();
    std::fs::write(target.path().join(".letta/settings.json"), r#"{"tokenStreaming":false}"#).unwrap();
    let plan = prepare(&written, target.path()).unwrap();
    apply(&plan, &written, target.path());
    let settings: Value =
        serde_json::from_slice(&std::fs::read(target.path().join(".letta/settings.json")).unwrap()).unwrap();
    assert_eq!(settings["tokenStreaming"], false);
    assert_eq!(settings["agents"].as_array().unwrap().len(), 1);
    // Without the home's path no entry can name the store: none is added.
    let plan = prepare_with(&written, tempfile::tempdir().unwrap().path(), options(None)).unwrap();
    assert!(!plan.operations.iter().any(|o| matches!(o, Operation::AddJsonEntry(_))));
    assert!(plan.resume_command.unwrap().starts_with("cd /home/user/project && LETTA_LOCAL_BACKEND_EXPERIMENTAL=1"));
}

#[test]
fn the_chosen_model_goes_into_the_agent() {
    let source = kit::read::<LettaCode>(&fixture("simple"), LOCATOR);
    let written = write(&source.document, options(None));
    let agent_model = |choice: TargetChoice| -> Result<Option<String>, CodecError> {
        target::set_for_tests(choice);
        let target = tempfile::tempdir().unwrap();
        let plan = prepare(&written, target.path());
        target::set_for_tests(TargetChoice::default());
        let plan = plan?;
        apply(&plan, &written, target.path());
        let dir = target.path().join(layout::AGENTS);
        let file = std::fs::read_dir(dir).unwrap().next().unwrap().unwrap().path();
        let agent: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
        Ok(agent.get("model").and_then(Value::as_str).map(str::to_string))
    };
    let choose = |model: Option<&str>, provider: Option<&str>| TargetChoice {
        model: model.map(str::to_string),
        provider: provider.map(str::to_string),
        allow_untested: false,
    };
    assert_eq!(agent_model(choose(Some("llama-cpp/m1"), None)).unwrap().as_deref(), Some("llama-cpp/m1"));
    assert_eq!(agent_model(choose(Some("m1"), Some("openai"))).unwrap().as_deref(), Some("openai/m1"));
    assert_eq!(agent_model(choose(Some("openai/m1"), Some("openai"))).unwrap().as_deref(), Some("openai/m1"));
    let err = format!("{:?}", agent_model(choose(Some("anthropic/m1"), Some("openai"))).unwrap_err());
    assert!(err.contains("another provider"), "{err}");
    let err = format!("{:?}", agent_model(choose(None, Some("openai"))).unwrap_err());
    assert!(err.contains("give --model too"), "{err}");
}

fn record(id: &str, body: Body) -> Record {
    Record { id: id.into(), body, parent: None, ts: Some("2026-11-30T04:05:52.000Z".into()), agent: None, src: None }
}

#[test]
fn another_harness_reasoning_is_text_and_what_cannot_be_carried_is_named() {
    let meta = Meta {
        schema: trajhost_codec_sdk::canonical::SCHEMA.into(),
        harness: "claude-code".into(),
        native_id: "s1".into(),
        started_at: Some("2026-11-30T04:05:50.000Z".into()),
        cwd: Some(CWD.into()),
        title: Some("Read a file".into()),
        ..Meta::default()
    };
    let records = vec![
        record("m", Body::Meta(meta)),
        record("s", Body::System { text: "You are Claude Code.".into() }),
        record("u", Body::User { text: "Read hello.txt".into(), attachments: vec![] }),
        record(
            "r",
            Body::Reasoning(Reasoning {
                text: Some("Let me look.".into()),
                opaque: Some("sig".into()),
                encrypted: false,
            }),
        ),
        record("r2", Body::Reasoning(Reasoning { text: None, opaque: Some("enc".into()), encrypted: true })),
        record(
            "a",
            Body::Assistant(Assistant {
                text: "Reading.".into(),
                model: Some("claude-x".into()),
                usage: Some(Usage {
                    input: Some(10),
                    output: Some(5),
                    reasoning: Some(3),
                    cost_usd: Some(0.25),
                    ..Usage::default()
                }),
                ..Assistant::default()
            }),
        ),
        record("c", Body::ToolCall { call_id: "toolu_1".into(), name: "Read".into(), arguments: json!("hello.txt") }),
        record("o", Body::Observation { subtype: "hook".into(), text: Some("ran".into()) }),
        record("t", Body::ToolResult { call_id: "toolu_1".into(), content: "PAPAYA-42".into(), ok: None }),
        record("t2", Body::ToolResult { call_id: "toolu_9".into(), content: "lost".into(), ok: Some(true) }),
        record(
            "c3",
            Body::ToolCall { call_id: "toolu_3".into(), name: "Bash".into(), arguments: json!({"command": "false"}) },
        ),
        record("t3", Body::ToolResult { call_id: "toolu_3".into(), content: "exit 1".into(), ok: Some(false) }),
        record("a2", Body::Assistant(Assistant { text: "The word is PAPAYA-42.".into(), ..Assistant::default() })),
        record("k", Body::Compaction { summary: "Earlier: read a file.".into(), trigger: None }),
        record("u2", Body::User { text: "Again?".into(), attachments: vec![] }),
    ];
    let (_target, written, plan, back) = installed(&kit::document(&records));
    // The title is the conversation's summary.
    assert_eq!(back.meta().title.as_deref(), Some("Read a file"));
    let not_carried: Vec<&str> =
        written.diagnostics.iter().filter(|d| d.code == "not-carried").map(|d| d.detail.as_str()).collect();
    for what in ["system-prompt", "opaque-reasoning", "observation/hook", "orphan-tool-result"] {
        assert!(not_carried.contains(&what), "{what} in {not_carried:?}");
    }
    assert_eq!(users(&back.records), ["Read hello.txt", "Again?"]);
    let reasoning = kit::reasonings(&back.records);
    assert_eq!(reasoning.len(), 1);
    assert_eq!(reasoning[0].text.as_deref(), Some("Let me look."));
    assert_eq!(reasoning[0].opaque, None, "another harness's signature is not written");
    assert_eq!(calls(&back)[0], ("toolu_1".to_string(), "Read".to_string(), json!({"input": "hello.txt"})));
    assert_eq!(tool_results(&back.records), [("toolu_1", "PAPAYA-42", Some(true)), ("toolu_3", "exit 1", Some(false))]);
    let texts: Vec<&str> = assistants(&back.records).iter().map(|a| a.text.as_str()).collect();
    // A response of tool calls only reads back with an empty text, as Letta Code's own do.
    assert_eq!(texts, ["Reading.", "", "The word is PAPAYA-42."]);
    assert_eq!(assistants(&back.records)[0].model.as_deref(), Some("claude-x"));
    let usage = assistants(&back.records)[0].usage.clone().unwrap();
    assert_eq!((usage.input, usage.output, usage.cost_usd, usage.reasoning), (Some(10), Some(5), Some(0.25), None));
    assert!(not_carried.contains(&"usage.reasoning"));
    assert_eq!(assistants(&back.records)[2].usage, None, "none recorded: none read back");
    assert_eq!(assistants(&back.records)[2].model.as_deref(), Some("unknown"));
    let compactions: Vec<&Record> = back.records.iter().filter(|r| matches!(r.body, Body::Compaction { .. })).collect();
    assert_eq!(compactions.len(), 1);
    // Letta Code keeps in context what follows the last compaction.
    let target = _target.path();
    let conversation: Value = serde_json::from_slice(
        &std::fs::read(target.join(layout::conversation_file(&plan.native_id, "conversation.json"))).unwrap(),
    )
    .unwrap();
    let ids = conversation["in_context_message_ids"].as_array().unwrap();
    assert_eq!(ids.len(), 2, "{ids:?}");
}

#[test]
fn a_chosen_id_is_used_and_a_bad_one_refused() {
    let source = kit::read::<LettaCode>(&fixture("simple"), LOCATOR);
    let chosen = WriteOptions { native_id: Some("conv-mine_1".into()), ..options(None) };
    let written = write(&source.document, chosen);
    assert_eq!(written.native_id, "conv-mine_1");
    assert_eq!(written.chunks[0].path, layout::conversation_file("conv-mine_1", MESSAGES));
    for bad in ["default", "a/b", "", "sp ace"] {
        let err = LettaCode::write(WriteOptions { native_id: Some(bad.into()), ..options(None) }).err();
        assert!(err.is_some(), "{bad:?} accepted");
    }
    // prepare holds the export to the id it was asked for.
    let target = tempfile::tempdir().unwrap();
    let err = prepare_with(
        &written,
        target.path(),
        WriteOptions { native_id: Some("conv-other".into()), ..options(Some(target.path())) },
    )
    .unwrap_err();
    assert!(format!("{err:?}").contains("not the requested conv-other"), "{err:?}");
}

#[test]
fn the_same_document_gives_the_same_bytes() {
    let source = kit::read::<LettaCode>(&fixture("simple"), LOCATOR);
    let a = write(&source.document, options(None));
    let b = write(&source.document, options(None));
    assert_eq!(a.native_id, b.native_id);
    assert_eq!(a.chunks[0].bytes, b.chunks[0].bytes);
    let other = kit::read::<LettaCode>(&fixture("parallel"), LOCATOR);
    assert_ne!(write(&other.document, options(None)).native_id, a.native_id);
}

#[test]
fn a_store_written_by_an_untested_letta_code_needs_allow_untested() {
    let source = kit::read::<LettaCode>(&fixture("simple"), LOCATOR);
    let written = write(&source.document, options(None));
    let target = kit::copy_of(&fixture("simple"));
    let messages = target.path().join(LOCATOR);
    let text = std::fs::read_to_string(&messages)
        .unwrap()
        .replace("**Letta Code version**: 0.25.9", "**Letta Code version**: 0.27.1");
    std::fs::write(&messages, text).unwrap();
    let err = format!("{:?}", prepare(&written, target.path()).unwrap_err());
    assert!(err.contains("Letta Code 0.27.1") && err.contains("0.25.9") && err.contains("--allow-untested"), "{err}");
    assert!(err.contains(LOCATOR), "{err}");
    target::set_for_tests(TargetChoice { allow_untested: true, ..TargetChoice::default() });
    let plan = prepare(&written, target.path());
    let reported = target::reported_untested();
    target::set_for_tests(TargetChoice::default());
    assert!(plan.is_ok(), "{plan:?}");
    let reported = reported.expect("reported untested");
    assert_eq!((reported.found.as_deref(), reported.tested.as_str()), (Some("0.27.1"), "0.25.9"));
    // A 0.25 store needs nothing.
    assert!(prepare(&written, kit::copy_of(&fixture("parallel")).path()).is_ok());
}
