//! The testkit's conformance suite over the sessions the real Qwen Code
//! CLI wrote (fixtures/qwen-code/0.15.10).

use serde_json::Value;
use trajhost_codec_qwen_code::{KNOWN_RECORD_TYPES, QwenCode};
use trajhost_codec_sdk::canonical::Usage;
use trajhost_codec_testkit::Spans;
use trajhost_codec_testkit::suite::{
    Beside, Call, Check, Compare, Damage, Expect, Info, Loose, NativeTypes, Outcome, Scenario, Suite, Text, Writes,
    lab, raw_session_lines,
};

/// Where the lab's long command output was spilled.
const SPILL: &str =
    ".qwen/tmp/9dad1e4e08b0b11cbcd860257e8bdfa6b8e5f01790e10a6a0b1f4870c13e686b/run_shell_command_4942b8236de5.output";

/// The record kind of a raw line: `system` lines by their subtype.
fn raw_kind(line: &Value) -> String {
    let kind = line["type"].as_str().unwrap_or("(no type)");
    match line["subtype"].as_str() {
        Some(subtype) if kind == "system" => format!("system/{subtype}"),
        _ => kind.to_string(),
    }
}

const OK: Option<bool> = Some(true);

const SUITE: Suite = Suite {
    harness: "qwen-code",
    version: "0.15.10",
    scenarios: &[
        Scenario {
            name: "simple",
            native_id: "7fa53858-ad16-462e-8b1e-2640d3637bc1",
            expect: Expect {
                users: lab::SIMPLE_PROMPTS,
                calls: &[Call::exactly(
                    "run_shell_command",
                    r#"{"command": "cat hello.txt", "description": "Run cat hello.txt"}"#,
                )],
                results: &[Outcome {
                    call: 0,
                    text: Text::has(&["Output: Hello from the lab workspace. The secret word is PAPAYA-42."]),
                    ok: OK,
                }],
                answers: &[
                    Text::starts("FINAL ANSWER").and_has(&[lab::SECRET]),
                    Text::starts("NOTOOL ANSWER").and_has(&[lab::SECRET]),
                ],
                kinds: &["user", "assistant", "tool_call", "tool_result", "assistant", "user", "assistant"],
                title: None,
            },
        },
        Scenario {
            name: "parallel",
            native_id: "eec2ce2c-b5be-4bcb-965c-986095fb1304",
            expect: Expect {
                users: &[lab::PARALLEL_PROMPT],
                calls: &[
                    Call::with("run_shell_command", r#"{"command": "cat hello.txt"}"#),
                    Call::exactly("read_file", r#"{"file_path": "/home/user/project/second.txt"}"#),
                ],
                results: &[
                    Outcome { call: 0, text: Text::has(&[lab::SECRET]), ok: OK },
                    Outcome { call: 1, text: Text::is("The second word is KIWI-58.\n"), ok: OK },
                ],
                answers: &[Text::has(&[lab::SECOND_SECRET, lab::SECRET])],
                ..Expect::NOTHING
            },
        },
        Scenario {
            name: "failing-tool",
            native_id: "daa3378f-645b-457e-a8ed-4cc17e9e2351",
            expect: Expect {
                users: &[lab::FAILING_PROMPT],
                calls: &[Call::with("run_shell_command", r#"{"command": "cat missing.txt; exit 3"}"#)],
                // Qwen Code records the shell call as `success` despite the exit code.
                results: &[Outcome {
                    call: 0,
                    text: Text::has(&["No such file or directory", "Exit Code: 3"]),
                    ok: OK,
                }],
                answers: &[Text::has(&["No such file or directory"])],
                ..Expect::NOTHING
            },
        },
        Scenario {
            name: "multibyte",
            native_id: "8fa97795-2a49-4318-8e58-068f023ab812",
            expect: Expect {
                users: &[lab::MULTIBYTE_PROMPT],
                calls: &[Call::with("run_shell_command", "{}")],
                results: &[Outcome { call: 0, text: Text::has(lab::MULTIBYTE_PIECES), ok: OK }],
                answers: &[Text::has(&[lab::MULTIBYTE_SENTINEL])],
                ..Expect::NOTHING
            },
        },
        Scenario {
            name: "long-output",
            native_id: "0788181a-5d0f-4bb5-aa5b-a3de653622f2",
            expect: Expect {
                users: &[lab::LONG_PROMPT],
                calls: &[Call::with("run_shell_command", "{}")],
                // Read in full from its spill file.
                results: &[Outcome {
                    call: 0,
                    text: Text::has(&[lab::LONG_BEGIN]).and_file(SPILL).and_min_len(90_001),
                    ok: OK,
                }],
                // The scripted model cut its echo of the result short.
                answers: &[Text::starts("FINAL ANSWER: the tool returned: Tool output was too large")],
                ..Expect::NOTHING
            },
        },
    ],
    locator: |id| format!(".qwen/projects/-home-user-project/chats/{id}.jsonl"),
    spans: Spans::Lines,
    info: Info {
        native_versions: ">=0.1.0, <1.0.0",
        version_source: "version",
        reads: &["qwen-code-jsonl"],
        writes: &["qwen-code-jsonl"],
    },
    cwd: Some("/home/user/project"),
    native_version: Some("0.15.10"),
    model: Some("fake-model"),
    usage: Check::Run(Some(Usage {
        input: Some(100),
        output: Some(20),
        cache_read: Some(0),
        cache_write: None,
        reasoning: Some(0),
        cost_usd: None,
    })),
    timestamps: true,
    clean_of: &["unknown-content-part", "persisted-output-missing", "persisted-output-too-large"],
    native_types: Check::Run(NativeTypes {
        table: KNOWN_RECORD_TYPES,
        raw: raw_session_lines,
        kind_of: raw_kind,
        seen: &["user", "assistant", "tool_result", "system/ui_telemetry", "system/attribution_snapshot"],
        seen_exactly: false,
    }),
    damage: Check::Run(Damage { tear: ("simple", "NOTOOL ANSWER"), corrupt: ("failing-tool", 1) }),
    writes: Check::Run(Writes {
        // The message id of an assistant record is its line's uuid; call
        // ids are kept, so results still answer their calls.
        compare: Compare::Bodies { ignore: &["message_id"], ts: true },
        meta_kept: &["cwd", "title", "git_branch", "started_at", "native_version"],
        refusal_says: "already",
        beside: Check::Run(Beside { scenarios: &["simple", "parallel"], may_change: &[] }),
        ..Writes::DEFAULT
    }),
    loose: Check::Run(Loose {
        path: ".qwen/projects/-home-user-project/chats/copy.jsonl",
        discovered: true,
        sniffed: false,
        folder: false,
    }),
};

trajhost_codec_testkit::conformance_suite!(QwenCode, SUITE);
