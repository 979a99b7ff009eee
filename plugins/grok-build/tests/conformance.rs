//! The testkit's conformance suite over the sessions the real `grok` CLI
//! wrote (fixtures/grok-build/1.0.41), as conformance.json says: the
//! chat history's items by their type (the journal's updates are checked
//! in tests/codec.rs).

use trajhost_codec_grok_build::{GrokBuild, KNOWN_ITEM_TYPES};
use trajhost_codec_testkit::suite::Suite;

const SUITE: Suite = Suite { table: include_str!("conformance.json"), types: KNOWN_ITEM_TYPES, ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(GrokBuild, SUITE);
