//! The testkit's conformance suite over the sessions the real Claude Code
//! CLI wrote (fixtures/claude-code/2.1.197), as conformance.json says.
//! Read's result records no `is_error`; observations (queue operations,
//! attachments, modes) are not written back, so a round trip compares the
//! conversation (tests/codec.rs names what is left behind).

use trajhost_codec_claude_code::{ClaudeCode, KNOWN_RECORD_TYPES};
use trajhost_codec_testkit::suite::Suite;

const SUITE: Suite = Suite { table: include_str!("conformance.json"), types: KNOWN_RECORD_TYPES, ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(ClaudeCode, SUITE);
