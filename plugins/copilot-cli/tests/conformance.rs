//! The testkit's conformance suite over the sessions the real GitHub
//! Copilot CLI wrote (fixtures/copilot-cli/1.0.102), as conformance.json
//! says. Copilot records `success: true` for a shell that ran, whatever its
//! exit code; the line the corrupt-line check cuts is a
//! `tool.execution_start` (the call is still in the message).

use trajhost_codec_copilot_cli::{CopilotCli, KNOWN_RECORD_TYPES};
use trajhost_codec_testkit::suite::Suite;

const SUITE: Suite = Suite { table: include_str!("conformance.json"), types: KNOWN_RECORD_TYPES, ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(CopilotCli, SUITE);
