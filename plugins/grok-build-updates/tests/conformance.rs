//! The testkit's conformance suite over the hand-written journal-only store
//! (fixtures/grok-build/updates-only, see its PROVENANCE.md), as
//! conformance.json says: one session, its conversation rebuilt from the
//! chunks of `updates.jsonl`; the folder beside it, holding a chat history,
//! is the grok-build codec's.

use trajhost_codec_grok_build_updates::GrokBuildUpdates;
use trajhost_codec_testkit::suite::Suite;

const SUITE: Suite = Suite { table: include_str!("conformance.json"), ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(GrokBuildUpdates, SUITE, scenarios { a_journal_of_two_turns: "notes" });
