//! The testkit's conformance suite over the sessions the real GitHub
//! Copilot CLI wrote (fixtures/copilot-cli/1.0.102).

use trajhost_codec_copilot_cli::{CopilotCli, KNOWN_RECORD_TYPES};
use trajhost_codec_sdk::canonical::Usage;
use trajhost_codec_testkit::Spans;
use trajhost_codec_testkit::suite::{
    Call, Check, Damage, Expect, Info, Loose, NativeTypes, Outcome, Scenario, Suite, Text, Writes, lab,
    raw_session_lines, type_member,
};

/// Copilot CLI records `success: true` for a shell that ran, whatever its
/// exit code.
const OK: Option<bool> = Some(true);

const SUITE: Suite = Suite {
    harness: "copilot-cli",
    version: "1.0.102",
    scenarios: &[
        Scenario {
            name: "simple",
            native_id: "3bd5aa99-2a3b-4c83-b3c5-c4b94a54e40d",
            expect: Expect {
                users: lab::SIMPLE_PROMPTS,
                // Logged in the message's toolRequests and again by
                // tool.execution_start: one call.
                calls: &[Call::exactly("bash", r#"{"command": "cat hello.txt", "description": "Run cat hello.txt"}"#)],
                results: &[Outcome {
                    call: 0,
                    text: Text::is(
                        "Hello from the lab workspace. The secret word is PAPAYA-42.\n<shellId: 0 completed with exit code 0>",
                    ),
                    ok: OK,
                }],
                answers: &[
                    Text::starts("FINAL ANSWER").and_has(&[lab::SECRET]),
                    Text::starts("NOTOOL ANSWER").and_has(&[lab::SECRET]),
                ],
                kinds: &[
                    "user",
                    "system",
                    "assistant",
                    "tool_call",
                    "tool_result",
                    "assistant",
                    "observation",
                    "user",
                    "assistant",
                ],
                title: None,
            },
        },
        Scenario {
            name: "parallel",
            native_id: "1b7d41dd-f8c5-4d43-ad11-53446c20bf32",
            expect: Expect {
                users: &[lab::PARALLEL_PROMPT],
                calls: &[
                    Call::with("bash", r#"{"command": "cat hello.txt"}"#),
                    Call::exactly("view", r#"{"path": "/home/user/project/second.txt"}"#),
                ],
                // What the model saw, not the UI diff.
                results: &[
                    Outcome { call: 1, text: Text::is("The second word is KIWI-58.\n"), ok: OK },
                    Outcome { call: 0, text: Text::has(&[lab::SECRET]), ok: OK },
                ],
                answers: &[Text::has(&[lab::SECOND_SECRET, lab::SECRET])],
                ..Expect::NOTHING
            },
        },
        Scenario {
            name: "failing-tool",
            native_id: "45e1cd3f-9288-4b56-8c2b-0302a0d9c0fe",
            expect: Expect {
                users: &[lab::FAILING_PROMPT],
                calls: &[Call::with("bash", r#"{"command": "cat missing.txt; exit 3"}"#)],
                results: &[Outcome {
                    call: 0,
                    text: Text::is(
                        "cat: missing.txt: No such file or directory\n<shellId: 0 completed with exit code 3>",
                    ),
                    ok: OK,
                }],
                answers: &[Text::has(&["No such file or directory"])],
                ..Expect::NOTHING
            },
        },
        Scenario {
            name: "multibyte",
            native_id: "426540d6-111e-44e3-8326-9b2053a62c92",
            expect: Expect {
                users: &[lab::MULTIBYTE_PROMPT],
                calls: &[Call::with("bash", "{}")],
                results: &[Outcome { call: 0, text: Text::has(lab::MULTIBYTE_PIECES), ok: OK }],
                answers: &[Text::has(&[lab::MULTIBYTE_SENTINEL])],
                ..Expect::NOTHING
            },
        },
        Scenario {
            name: "long-output",
            native_id: "3caf83fe-7e44-4425-8bbb-f897f10067d9",
            expect: Expect {
                users: &[lab::LONG_PROMPT],
                calls: &[Call::with("bash", "{}")],
                // The full output went under /tmp, outside the home: the
                // preview in the log is all there is.
                results: &[Outcome {
                    call: 0,
                    text: Text::starts("Output too large to read at once (103.8 KB). Saved to: /tmp/")
                        .and_has(&[lab::LONG_BEGIN]),
                    ok: OK,
                }],
                answers: &[Text::has(&[lab::LONG_BEGIN])],
                ..Expect::NOTHING
            },
        },
    ],
    locator: |id| format!(".copilot/session-state/{id}/events.jsonl"),
    spans: Spans::Lines,
    info: Info {
        native_versions: ">=0.0.1, <2.0.0",
        version_source: "copilotVersion",
        reads: &["copilot-cli-events-jsonl"],
        writes: &["copilot-cli-events-jsonl"],
    },
    cwd: Some("/home/user/project"),
    native_version: Some("1.0.102"),
    model: Some("gpt-4o"),
    // The usage record of each model call.
    usage: Check::Run(Some(Usage {
        input: Some(100),
        output: Some(20),
        cache_read: Some(0),
        cache_write: Some(0),
        reasoning: None,
        cost_usd: None,
    })),
    timestamps: true,
    clean_of: &["unmatched-usage-record"],
    native_types: Check::Run(NativeTypes {
        table: KNOWN_RECORD_TYPES,
        raw: raw_session_lines,
        kind_of: type_member,
        seen: &[
            "session.start",
            "user.message",
            "system.message",
            "assistant.message",
            "session.usage_record",
            "tool.execution_start",
            "tool.execution_complete",
            "session.shutdown",
            "session.resume",
        ],
        seen_exactly: false,
    }),
    // Line 6 is the tool.execution_start: the call is still in the message.
    damage: Check::Run(Damage { tear: ("simple", "NOTOOL ANSWER"), corrupt: ("failing-tool", 6) }),
    writes: Check::Run(Writes {
        // A resume is an observation Copilot cannot be told of: the round
        // trip's own test names it.
        lossless: false,
        refusal_says: "already exists",
        ..Writes::DEFAULT
    }),
    loose: Check::Run(Loose {
        path: ".copilot/session-state/renamed/events.jsonl",
        discovered: true,
        sniffed: false,
        folder: true,
    }),
};

trajhost_codec_testkit::conformance_suite!(CopilotCli, SUITE);
