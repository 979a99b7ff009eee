//! Claude Code 2.1.33x's new records, against sessions the real 2.1.332 CLI
//! wrote in the lab (fixtures/claude-code/2.1.332): the request log
//! (`api-request`, `api-request-blob`, `api-request-shape`), `tools-used`,
//! `atis-latch`, `cost-state`, and attachments rendered into tool results.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::{Value, json};
use trajhost_codec_claude_code::{ClaudeCode, KNOWN_RECORD_TYPES};
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Body, Record};
use trajhost_codec_testkit::{self as kit, Read, Spans, assistants, observations_of, raw_lines, tool_results, users};

const PROJECT: &str = ".claude/projects/-home-user-project";

/// (scenario, session id)
const SCENARIOS: [(&str, &str); 4] = [
    ("simple", "020a408b-2ad4-4ab9-8331-cc6a4749bed7"),
    ("parallel", "3cdf8df8-0dff-48de-8c16-d447d2e849cc"),
    ("failing-tool", "91e84672-0986-4e69-9918-8065b3626f2e"),
    ("multibyte", "07871397-a8f1-443f-a65e-bbf4d38800e1"),
];

fn home(scenario: &str) -> PathBuf {
    kit::fixtures("claude-code", "2.1.332").join(scenario)
}

fn locator(id: &str) -> String {
    format!("{PROJECT}/{id}.jsonl")
}

fn read_scenario(scenario: &str) -> Read {
    let (_, id) = SCENARIOS.iter().find(|(s, _)| *s == scenario).unwrap();
    kit::read::<ClaudeCode>(&home(scenario), &locator(id))
}

fn raw(scenario: &str) -> Vec<Value> {
    let (_, id) = SCENARIOS.iter().find(|(s, _)| *s == scenario).unwrap();
    raw_lines(&home(scenario).join(locator(id)))
}

fn observation<'a>(records: &'a [Record], id: &str) -> Option<(&'a str, Option<&'a str>)> {
    records.iter().find(|r| r.id == id).and_then(|r| match &r.body {
        Body::Observation { subtype, text } => Some((subtype.as_str(), text.as_deref())),
        _ => None,
    })
}

#[test]
fn every_fixture_session_passes_the_testkit_checks() {
    for (scenario, id) in SCENARIOS {
        kit::conformance::<ClaudeCode>(&home(scenario), &locator(id), Spans::Lines);
    }
}

#[test]
fn a_clean_session_reads_and_discovers_without_a_warning() {
    for (scenario, id) in SCENARIOS {
        let found = kit::discover::<ClaudeCode>(&home(scenario));
        assert!(found.diagnostics.is_empty(), "{scenario}: {:?}", found.diagnostics);
        assert_eq!(found.sessions.len(), 1);
        assert_eq!(found.sessions[0].native_id, id);
        assert_eq!(found.sessions[0].native_version.as_deref(), Some("2.1.332"));

        let read = read_scenario(scenario);
        let loud: Vec<_> = read.diagnostics.iter().filter(|d| d.severity != Severity::Info).collect();
        assert!(loud.is_empty(), "{scenario}: {loud:?}");
        assert_eq!(read.meta().native_version.as_deref(), Some("2.1.332"));
    }
}

#[test]
fn every_record_type_of_the_fixtures_is_known_and_mapped_or_reported() {
    let known: BTreeSet<&str> = KNOWN_RECORD_TYPES.iter().map(|(k, _)| *k).collect();
    let mut seen = BTreeSet::new();
    for (scenario, _) in SCENARIOS {
        let raw = raw(scenario);
        for line in &raw {
            let kind = line["type"].as_str().unwrap();
            assert!(known.contains(kind), "{scenario}: {kind:?} is not in KNOWN_RECORD_TYPES");
            seen.insert(kind.to_string());
        }
        let read = read_scenario(scenario);
        kit::check_handling(&read, KNOWN_RECORD_TYPES, |kind| raw.iter().filter(|l| l["type"] == kind).count() as u32);
    }
    for kind in ["api-request", "api-request-blob", "api-request-shape", "tools-used", "atis-latch", "cost-state"] {
        assert!(seen.contains(kind), "the 2.1.332 fixtures hold no {kind}");
    }
}

#[test]
fn simple_session_reads_as_before() {
    let read = read_scenario("simple");
    assert_eq!(
        users(&read.records),
        vec!["Read hello.txt and tell me the secret word.", "What was the secret word again? [notool]"]
    );
    let answers = assistants(&read.records);
    assert_eq!(answers.len(), 3, "one per API response");
    assert!(answers[1].text.starts_with("FINAL ANSWER"));
    assert!(answers[2].text.starts_with("NOTOOL ANSWER"));
    let kinds: Vec<&str> = read
        .records
        .iter()
        .map(|r| r.body.kind())
        .filter(|k| matches!(*k, "user" | "assistant" | "tool_call" | "tool_result"))
        .collect();
    assert_eq!(kinds, ["user", "assistant", "tool_call", "tool_result", "assistant", "user", "assistant"]);
}

// ---------------------------------------------------------------- requests

#[test]
fn each_response_answers_the_model_request_that_produced_it() {
    for (scenario, _) in SCENARIOS {
        let raw = raw(scenario);
        let read = read_scenario(scenario);
        let position = |id: &str| read.records.iter().position(|r| r.id == id);
        let requests: Vec<&Value> = raw.iter().filter(|l| l["type"] == "api-request").collect();
        assert!(!requests.is_empty(), "{scenario}");
        for request in &requests {
            let id = request["id"].as_str().unwrap();
            let (subtype, text) =
                observation(&read.records, id).unwrap_or_else(|| panic!("{scenario}: no record {id}"));
            assert_eq!(subtype, "model-request");
            let summary: Value = serde_json::from_str(text.unwrap()).unwrap();
            assert_eq!(summary["model"], "claude-sonnet-4-5");
            assert_eq!(summary["query_source"], request["querySource"]);
            assert_eq!(summary["request_digest"], request["requestDigest"]);
            assert_eq!(summary["messages"], request["tail"].as_array().unwrap().len());
            // The request follows where the conversation stood.
            let record = &read.records[position(id).unwrap()];
            let parent = record.parent.as_deref().expect("a request follows a record");
            assert!(position(parent).unwrap() < position(id).unwrap());
        }
        // Every response names its request (`requestRef`), and its record
        // answers the request's.
        let mut linked = 0;
        for line in raw.iter().filter(|l| l["type"] == "assistant") {
            let request = line["requestRef"].as_str().unwrap();
            let message = line["message"]["id"].as_str().unwrap();
            let answer = read.records.iter().find(|r| r.id == message).unwrap();
            assert_eq!(answer.parent.as_deref(), Some(request), "{scenario}: {message}");
            assert!(position(request).unwrap() < position(message).unwrap());
            linked += 1;
        }
        assert!(linked >= requests.len(), "{scenario}");
        // Without a requestRef a response keeps its parentUuid.
        let calls = kit::tool_calls(&read.records);
        for (call, _, _) in calls {
            let record = read.records.iter().find(|r| r.id == call).unwrap();
            assert!(record.parent.as_deref().unwrap().starts_with("msg_"), "a call hangs off its response");
        }
    }
}

#[test]
fn request_bodies_stay_in_the_file_not_in_record_text() {
    for (scenario, _) in SCENARIOS {
        let read = read_scenario(scenario);
        for record in &read.records {
            let text = match &record.body {
                Body::User { text, .. } => text.as_str(),
                Body::Assistant(a) => a.text.as_str(),
                Body::ToolResult { content, .. } => content.as_str(),
                Body::Observation { subtype, text } => {
                    if matches!(subtype.as_str(), "model-request" | "api-request-shape" | "usage") {
                        assert!(text.as_deref().unwrap().len() < 1024, "{scenario}: {subtype} holds a body");
                    }
                    text.as_deref().unwrap_or("")
                }
                _ => "",
            };
            // The system prompt the requests sent.
            assert!(!text.contains("You are an agent working with the user toward their goals"), "{}", record.id);
        }
        // The bookkeeping lines are observations pointing at their bytes.
        let shapes = observations_of(&read.records, "api-request-shape");
        let shape: Value = serde_json::from_str(shapes[0]).unwrap();
        assert_eq!(shape["tools"], 12, "{scenario}");
        assert_eq!(shape["system_blocks"], 2, "{scenario}");
        assert!(observations_of(&read.records, "tools-used").iter().all(|t| t.contains("Bash")), "{scenario}");
        assert!(
            !read
                .records
                .iter()
                .any(|r| matches!(&r.body, Body::Observation { subtype, .. } if subtype == "api-request-blob"))
        );
    }
}

// ---------------------------------------------------------------- usage

/// The `cost_usd` the records carry: on responses, and in `usage` observations.
fn costs(read: &Read) -> (Vec<(String, f64)>, Vec<Value>) {
    let priced = assistants(&read.records)
        .iter()
        .filter_map(|a| Some((a.message_id.clone()?, a.usage.as_ref()?.cost_usd?)))
        .collect();
    let observed = observations_of(&read.records, "usage").iter().map(|t| serde_json::from_str(t).unwrap()).collect();
    (priced, observed)
}

#[test]
fn usage_comes_from_cost_state() {
    let read = read_scenario("simple");
    let (priced, observed) = costs(&read);
    // Turn 2 made one request: the cost-state after it prices that response.
    assert_eq!(priced, vec![("msg_lab_dc617ccc88a44eb8b137".to_string(), 0.0006)]);
    let answer = assistants(&read.records)[2];
    let usage = answer.usage.as_ref().unwrap();
    assert_eq!(
        (usage.input, usage.output, usage.cache_read, usage.cache_write),
        (Some(100), Some(20), Some(0), Some(0))
    );
    // Turn 1 made two: its cost is an observation naming both.
    assert_eq!(observed.len(), 1);
    assert_eq!(
        observed[0],
        json!({
            "cost_usd": 0.0012,
            "total_cost_usd": 0.0012,
            "models": {"claude-sonnet-4-5": {"input": 200, "output": 40, "cache_read": 0, "cache_write": 0, "cost_usd": 0.0012}},
            "responses": ["msg_lab_ddaa5a9cfd1a4451ad8b", "msg_lab_da8f977cad7d403798a9"],
        })
    );
    // The first two responses keep their own token counts, without a cost.
    for a in &assistants(&read.records)[..2] {
        assert_eq!(a.usage.as_ref().unwrap().cost_usd, None);
        assert_eq!(a.usage.as_ref().unwrap().output, Some(20));
    }
}

#[test]
fn the_costs_read_add_up_to_the_last_cost_state() {
    for (scenario, _) in SCENARIOS {
        let raw = raw(scenario);
        let total = raw.iter().rev().find(|l| l["type"] == "cost-state").unwrap()["totalCostUSD"].as_f64().unwrap();
        let (priced, observed) = costs(&read_scenario(scenario));
        let sum: f64 = priced.iter().map(|(_, c)| c).sum::<f64>()
            + observed.iter().map(|o| o["cost_usd"].as_f64().unwrap()).sum::<f64>();
        assert!((sum - total).abs() < 1e-9, "{scenario}: {sum} vs {total}");
        // Each response is covered once: priced, or named by one observation.
        let mut covered: Vec<String> = priced.iter().map(|(id, _)| id.clone()).collect();
        for o in &observed {
            covered.extend(o["responses"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()));
        }
        let mut answers: Vec<String> =
            assistants(&read_scenario(scenario).records).iter().map(|a| a.message_id.clone().unwrap()).collect();
        covered.sort();
        answers.sort();
        assert_eq!(covered, answers, "{scenario}");
    }
}

// ---------------------------------------------------------------- rendered attachments

/// What the model was sent as each tool's result: the `tool_result` blocks
/// of the `api-request-blob` message bodies.
fn results_the_model_saw(raw: &[Value]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in raw.iter().filter(|l| l["type"] == "api-request-blob") {
        for block in line["message"]["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                let text = match &block["content"] {
                    Value::String(s) => s.clone(),
                    other => panic!("blocks: {other}"),
                };
                out.push((block["tool_use_id"].as_str().unwrap().to_string(), text));
            }
        }
    }
    out
}

#[test]
fn a_reminder_rendered_into_a_tool_result_is_part_of_it() {
    for (scenario, _) in SCENARIOS {
        let raw = raw(scenario);
        let read = read_scenario(scenario);
        let saw = results_the_model_saw(&raw);
        let results = tool_results(&read.records);
        assert_eq!(results.len(), saw.len(), "{scenario}");
        for (call, content) in &saw {
            let (_, read_content, _) = results.iter().find(|(c, _, _)| c == call).unwrap();
            assert_eq!(read_content, content, "{scenario}: the result of {call} as the model saw it");
        }
        // The reminder is still an observation of its own.
        assert!(!observations_of(&read.records, "attachment/total_tokens_reminder").is_empty());
    }
    // Parallel calls: Claude Code folds it into the message's last result.
    let read = read_scenario("parallel");
    let results = tool_results(&read.records);
    assert_eq!(results[0].1, "1\tThe second word is KIWI-58.\n2\t");
    assert!(
        results[1].1.starts_with("Hello from the lab workspace. The secret word is PAPAYA-42.\n\n<system-reminder>\n")
    );
    assert_eq!(results[1].2, Some(true));
    let failing = read_scenario("failing-tool");
    let failed = tool_results(&failing.records);
    assert_eq!(failed[0].2, Some(false));
    assert!(failed[0].1.starts_with("Exit code 3\ncat: missing.txt: No such file or directory\n\n<system-reminder>"));
}

#[test]
fn attachments_say_what_the_model_was_shown() {
    let read = read_scenario("simple");
    let date = observations_of(&read.records, "attachment/date");
    assert_eq!(date, vec!["<system-reminder>\nToday's date is 2026-12-06.\n</system-reminder>"]);
    let model = observations_of(&read.records, "attachment/model");
    assert!(model[0].starts_with("You are powered by the model named Sonnet 4.5."));
    // A snapshot of the system prompt is not copied into a record.
    let snapshot = read
        .records
        .iter()
        .find(|r| matches!(&r.body, Body::Observation { subtype, .. } if subtype == "attachment/prompt_snapshot"))
        .unwrap();
    assert!(matches!(&snapshot.body, Body::Observation { text: None, .. }));
}

// ---------------------------------------------------------------- synthetic shapes

fn envelope(kind: &str, uuid: &str, parent: Option<&str>) -> Value {
    json!({
        "type": kind, "uuid": uuid, "parentUuid": parent, "timestamp": "2026-12-01T00:00:00.000Z",
        "sessionId": "s1", "cwd": "/w", "version": "2.1.332", "isSidechain": false,
    })
}

fn prompt(uuid: &str, parent: Option<&str>, text: &str) -> Value {
    let mut l = envelope("user", uuid, parent);
    l["message"] = json!({"role": "user", "content": text});
    l
}

fn response(uuid: &str, parent: &str, msg: &str, request: &str, model: &str, tokens: (u64, u64)) -> Value {
    let mut l = envelope("assistant", uuid, Some(parent));
    l["requestRef"] = json!(request);
    l["message"] = json!({
        "id": msg, "type": "message", "role": "assistant", "model": model,
        "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
        "usage": {"input_tokens": tokens.0, "output_tokens": tokens.1, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0},
    });
    l
}

fn api_request(id: &str) -> Value {
    json!({"type": "api-request", "sessionId": "s1", "id": id, "querySource": "sdk", "params": {"model": "claude-x"}, "tail": ["h1"]})
}

fn cost_state(total: f64, models: Value) -> Value {
    json!({"type": "cost-state", "sessionId": "s1", "totalCostUSD": total, "modelUsage": models})
}

fn model_usage(input: u64, output: u64, cost: f64) -> Value {
    json!({"inputTokens": input, "outputTokens": output, "cacheReadInputTokens": 0, "cacheCreationInputTokens": 0, "costUSD": cost})
}

fn read_lines(lines: &[Value]) -> Read {
    let dir = kit::home_with_lines(&locator("s1"), lines);
    let read = kit::read::<ClaudeCode>(dir.path(), &locator("s1"));
    kit::check_stable_ids::<ClaudeCode>(dir.path(), &locator("s1"));
    kit::check_batching::<ClaudeCode>(dir.path(), &locator("s1"));
    read
}

#[test]
fn a_cost_state_prices_only_a_response_it_covers_alone() {
    // One response, then its cost-state after other lines: priced, even
    // after a system line and a reminder (the response is held until the
    // next prompt).
    let mut turn_duration = envelope("system", "u3", Some("u2"));
    turn_duration["subtype"] = json!("turn_duration");
    let lines = [
        prompt("u1", None, "hello"),
        api_request("r1"),
        response("u2", "u1", "msg_1", "r1", "claude-x", (10, 5)),
        turn_duration,
        json!({"type": "mode", "mode": "normal", "sessionId": "s1"}),
        cost_state(0.5, json!({"claude-x": model_usage(10, 5, 0.5)})),
        // A side request (another model) between two cost-states: the
        // response cannot take the cost alone.
        prompt("u4", Some("u3"), "again"),
        api_request("r2"),
        response("u5", "u4", "msg_2", "r2", "claude-x", (20, 5)),
        cost_state(1.75, json!({"claude-x": model_usage(30, 10, 1.5), "claude-haiku": model_usage(3, 1, 0.25)})),
        // Tokens that do not match the response: not priced either.
        prompt("u6", Some("u5"), "third"),
        response("u7", "u6", "msg_3", "r9", "claude-x", (1, 1)),
        cost_state(2.0, json!({"claude-x": model_usage(40, 11, 1.75), "claude-haiku": model_usage(3, 1, 0.25)})),
    ];
    let read = read_lines(&lines);
    let (priced, observed) = costs(&read);
    assert_eq!(priced, vec![("msg_1".to_string(), 0.5)]);
    assert_eq!(observed.len(), 2);
    assert_eq!(observed[0]["cost_usd"], 1.25);
    assert_eq!(observed[0]["responses"], json!(["msg_2"]));
    assert_eq!(observed[0]["models"]["claude-haiku"]["cost_usd"], 0.25);
    assert_eq!(observed[1]["responses"], json!(["msg_3"]));
    assert_eq!(observed[1]["models"]["claude-x"]["input"], 10);
    // A requestRef that names no request read keeps the parentUuid.
    let third = read.records.iter().find(|r| r.id == "msg_3").unwrap();
    assert_eq!(third.parent.as_deref(), Some("u6"));
    let first = read.records.iter().find(|r| r.id == "msg_1").unwrap();
    assert_eq!(first.parent.as_deref(), Some("r1"));
    assert_eq!(read.records.iter().find(|r| r.id == "r1").unwrap().parent.as_deref(), Some("u1"));
    // Order is the file's: the held response goes out before the next prompt.
    let order: Vec<&str> = read.records.iter().map(|r| r.id.as_str()).filter(|id| !id.contains('@')).collect();
    assert_eq!(order, ["s1", "u1", "r1", "msg_1", "u3", "u4", "r2", "msg_2", "u6", "msg_3"]);
}

#[test]
fn only_rendered_attachments_after_a_result_join_it() {
    let mut call = envelope("assistant", "u2", Some("u1"));
    call["message"] = json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}],
        "stop_reason": "tool_use",
    });
    let mut result = envelope("user", "u3", Some("u2"));
    result["message"] =
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"}]});
    let attachment = |uuid: &str, parent: &str, kind: &str, rendered: Option<&str>| {
        let mut l = envelope("attachment", uuid, Some(parent));
        l["attachment"] = json!({"type": kind});
        if let Some(r) = rendered {
            l["rendered"] = json!([{"content": r}]);
            l["renderedRole"] = json!("system");
        }
        l
    };
    let lines = [
        prompt("u1", None, "list"),
        attachment("a0", "u1", "date", Some("<system-reminder>\nbefore\n</system-reminder>")),
        call,
        result,
        attachment("a1", "u3", "prompt_snapshot", None),
        attachment("a2", "a1", "total_tokens_reminder", Some("<system-reminder>\nR1\n</system-reminder>")),
        attachment("a3", "a2", "remote_session_change", Some("<system-reminder>\nR2\n</system-reminder>")),
        prompt("u4", Some("a3"), "next"),
        attachment("a4", "u4", "total_tokens_reminder", Some("<system-reminder>\nafter a prompt\n</system-reminder>")),
    ];
    let read = read_lines(&lines);
    let results = tool_results(&read.records);
    assert_eq!(
        results,
        vec![(
            "toolu_1",
            "a.txt\n\n<system-reminder>\nR1\n</system-reminder>\n\n<system-reminder>\nR2\n</system-reminder>",
            None
        )]
    );
    assert!(read.diagnostics.iter().all(|d| d.severity == Severity::Info), "{:?}", read.diagnostics);
}

#[test]
fn the_newer_bookkeeping_types_are_never_warnings() {
    let lines = [
        prompt("u1", None, "hello"),
        json!({"type": "tools-used", "tools": ["Bash", "Read"], "sessionId": "s1"}),
        json!({"type": "atis-latch", "atis": "", "sessionId": "s1"}),
        json!({"type": "api-request-shape", "sessionId": "s1", "shapeHash": "h", "shape": {"system": [], "tools": [{}, {}]}}),
        json!({"type": "api-request-blob", "sessionId": "s1", "hash": "h1", "message": {"role": "user", "content": "hello"}}),
        json!({"type": "api-request-resumed", "sessionId": "s1"}),
        json!({"type": "resume-head-vouch", "sessionId": "s1"}),
        json!({"type": "session-owner", "sessionId": "s1"}),
        json!({"type": "derived-from", "sessionId": "s1"}),
    ];
    let read = read_lines(&lines);
    assert!(read.diagnostics.iter().all(|d| d.severity == Severity::Info), "{:?}", read.diagnostics);
    assert_eq!(observations_of(&read.records, "tools-used"), vec!["Bash, Read"]);
    assert_eq!(
        observations_of(&read.records, "api-request-shape"),
        vec![r#"{"shape_hash":"h","system_blocks":0,"tools":2}"#]
    );
    assert_eq!(kit::observations(&read.records).iter().filter(|(s, _)| *s == "atis-latch").count(), 1);
}
