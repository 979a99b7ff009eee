//! The testkit's conformance suite over the hand-written Kimi Code store
//! (fixtures/kimi-cli/kimi-code-1.4), as conformance.json says: one
//! session folder whose main agent and subagent are each a session, their
//! op journals sharing the folder's `state.json`.

use trajhost_codec_kimi_code::KimiCode;
use trajhost_codec_testkit::suite::Suite;

const SUITE: Suite = Suite { table: include_str!("conformance.json"), ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(
    KimiCode,
    SUITE,
    scenarios { the_main_agent: "main", a_subagent_of_it: "subagent" }
);
