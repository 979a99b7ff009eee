//! The testkit's conformance suite over the hand-written reflection
//! transcripts (fixtures/letta-code/transcripts), as conformance.json says:
//! two conversations of one agent in one home, the second with a garbage
//! first line, an unknown kind and a torn tail on purpose.

use trajhost_codec_letta_code_transcripts::LettaCodeTranscripts;
use trajhost_codec_testkit::suite::Suite;

const SUITE: Suite = Suite { table: include_str!("conformance.json"), ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(
    LettaCodeTranscripts,
    SUITE,
    scenarios { a_conversation_of_two_turns: "main", a_conversation_with_damage_and_odd_rows: "rough" }
);
