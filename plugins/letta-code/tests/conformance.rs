//! The testkit's conformance suite over the conversations the real `letta`
//! CLI's local backend wrote (fixtures/letta-code/0.25.9), as
//! conformance.json says. The agent's empty default conversation is no
//! session: discover names it. Letta's Bash tool reports a failing command
//! in its text and stores `isError: false`.

use trajhost_codec_letta_code::LettaCode;
use trajhost_codec_testkit::suite::Suite;

const SUITE: Suite = Suite { table: include_str!("conformance.json"), ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(LettaCode, SUITE);
