//! The testkit's conformance suite over the hand-written fx homes
//! (fixtures/fx/schema-1, schema-2: legacy session.json documents;
//! schema-4: an event log with a result artifact), as conformance.json
//! says. Schema 3 and the broken artifacts are refused: tests/codec.rs.

use trajhost_codec_fx::Fx;
use trajhost_codec_testkit::suite::Suite;

const SUITE: Suite = Suite { table: include_str!("conformance.json"), ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(
    Fx,
    SUITE,
    scenarios {
        a_schema_1_session_with_a_compaction_and_an_interruption: "schema-1",
        a_schema_2_session_with_parallel_calls_and_a_failure: "schema-2",
        a_schema_4_event_log_with_an_artifact: "schema-4",
    }
);
