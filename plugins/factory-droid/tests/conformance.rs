//! The testkit's conformance suite over the sessions the real Droid CLI
//! wrote (fixtures/factory-droid/0.225.1).

use trajhost_codec_factory_droid::{FactoryDroid, KNOWN_RECORD_TYPES};
use trajhost_codec_testkit::Spans;
use trajhost_codec_testkit::suite::{
    Call, Check, Compare, Damage, Expect, Info, Loose, NativeTypes, Outcome, Scenario, Suite, Text, Writes, lab,
    raw_session_lines, type_member,
};

const OK: Option<bool> = Some(true);

const SUITE: Suite = Suite {
    harness: "factory-droid",
    version: "0.225.1",
    scenarios: &[
        Scenario {
            name: "simple",
            native_id: "0a734e8d-dba5-4efd-8e2f-0375c7a0848e",
            expect: Expect {
                users: lab::SIMPLE_PROMPTS,
                calls: &[Call::exactly(
                    "Execute",
                    r#"{"command": "cat hello.txt", "summary": "", "riskLevelReason": "", "riskLevel": "low"}"#,
                )],
                results: &[Outcome {
                    call: 0,
                    text: Text::is(
                        "Hello from the lab workspace. The secret word is PAPAYA-42.\n\n\n[Process exited with code 0]",
                    ),
                    ok: OK,
                }],
                answers: &[
                    Text::starts("FINAL ANSWER").and_has(&[lab::SECRET]),
                    Text::starts("NOTOOL ANSWER").and_has(&[lab::SECRET]),
                ],
                // The injected system reminders are context, not the person.
                kinds: &[
                    "observation",
                    "user",
                    "assistant",
                    "tool_call",
                    "tool_result",
                    "assistant",
                    "user",
                    "assistant",
                ],
                title: None,
            },
        },
        Scenario {
            name: "parallel",
            native_id: "ac9df1b9-45eb-4194-a260-27bd01dcd378",
            expect: Expect {
                users: &[lab::PARALLEL_PROMPT],
                calls: &[
                    Call::with("Execute", r#"{"command": "cat hello.txt"}"#),
                    Call::exactly("Read", r#"{"file_path": "/home/user/project/second.txt"}"#),
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
            native_id: "033b71a8-e6d0-4c41-8d7c-ab5429954932",
            expect: Expect {
                users: &[lab::FAILING_PROMPT],
                calls: &[Call::with("Execute", r#"{"command": "cat missing.txt; exit 3"}"#)],
                // is_error: true
                results: &[Outcome {
                    call: 0,
                    text: Text::is(
                        "Error: Command failed (exit code: 3)\ncat: missing.txt: No such file or directory\n\n\n[Process exited with code 3]",
                    ),
                    ok: Some(false),
                }],
                answers: &[Text::has(&["No such file or directory"])],
                ..Expect::NOTHING
            },
        },
        Scenario {
            name: "multibyte",
            native_id: "81431c73-9f6e-417e-97d2-f0445cddc1fc",
            expect: Expect {
                users: &[lab::MULTIBYTE_PROMPT],
                calls: &[Call::with("Execute", "{}")],
                results: &[Outcome { call: 0, text: Text::has(lab::MULTIBYTE_PIECES), ok: OK }],
                answers: &[Text::has(&[lab::MULTIBYTE_SENTINEL])],
                title: Some(lab::MULTIBYTE_PROMPT),
                ..Expect::NOTHING
            },
        },
        Scenario {
            name: "long-output",
            native_id: "a81f4717-9da8-4e74-832c-02c10f33e707",
            expect: Expect {
                users: &[lab::LONG_PROMPT],
                calls: &[Call::with("Execute", "{}")],
                // Droid keeps head and tail in the session and the full log
                // under /tmp, outside the home.
                results: &[Outcome {
                    call: 0,
                    text: Text::starts("LONG-OUTPUT-BEGIN LEMON-512\nline 0001:")
                        .and_has(&[lab::LONG_END, "Full command output saved to: /tmp/"]),
                    ok: OK,
                }],
                answers: &[Text::has(&[lab::LONG_BEGIN])],
                ..Expect::NOTHING
            },
        },
    ],
    locator: |id| format!(".factory/sessions/-home-user-project/{id}.jsonl"),
    spans: Spans::Lines,
    info: Info {
        native_versions: ">=0.0.0, <3.0.0",
        version_source: "session_start",
        reads: &["factory-droid-jsonl"],
        writes: &["factory-droid-jsonl"],
    },
    cwd: Some("/home/user/project"),
    // The session format's version.
    native_version: Some("2"),
    // The model id Droid recorded.
    model: Some("custom:Fake-0"),
    // Droid records token counts per session only.
    usage: Check::Run(None),
    timestamps: true,
    clean_of: &["unknown-content-block"],
    native_types: Check::Run(NativeTypes {
        table: KNOWN_RECORD_TYPES,
        raw: raw_session_lines,
        kind_of: type_member,
        seen: &["session_start", "message", "agent_turn_outcome"],
        seen_exactly: true,
    }),
    damage: Check::Run(Damage { tear: ("simple", "NOTOOL ANSWER"), corrupt: ("failing-tool", 1) }),
    writes: Check::Run(Writes {
        // Every record, ids, parents and times included.
        compare: Compare::Records,
        locator: |w| w.artifacts.iter().find(|a| a.path.ends_with(".jsonl")).expect("a transcript").path.clone(),
        meta_kept: &["cwd", "title", "started_at", "native_version"],
        refusal_says: "already has this session",
        ..Writes::DEFAULT
    }),
    loose: Check::Run(Loose {
        path: ".factory/sessions/-home-user-project/copy.jsonl",
        discovered: true,
        sniffed: false,
        folder: false,
    }),
};

trajhost_codec_testkit::conformance_suite!(FactoryDroid, SUITE);
