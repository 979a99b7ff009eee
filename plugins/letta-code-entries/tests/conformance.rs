//! The testkit's conformance suite over the schema-2 conversations the
//! real `letta` CLI 0.32.18's local backend wrote
//! (fixtures/letta-code/0.32.18: simple, parallel and multibyte), as
//! conformance.json says. The agent's empty default conversation is no
//! session: discover names it. Prepare adds the agent to settings.json.

use trajhost_codec_letta_code_entries::LettaCodeEntries;
use trajhost_codec_testkit::suite::Suite;

const SUITE: Suite = Suite { table: include_str!("conformance.json"), ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(LettaCodeEntries, SUITE);
