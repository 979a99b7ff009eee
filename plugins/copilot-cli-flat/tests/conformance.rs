//! The testkit's conformance suite over the sessions the real GitHub
//! Copilot CLI 0.0.354 wrote as flat event logs
//! (fixtures/copilot-cli/0.0.354: `simple`, `parallel`, `multibyte`), as
//! conformance.json says. A flat log keeps no cwd; the line the
//! corrupt-line check cuts is a `tool.execution_start` (the call is still
//! in the message).

use trajhost_codec_copilot_cli_flat::{CopilotCliFlat, KNOWN_RECORD_TYPES};
use trajhost_codec_testkit::suite::Suite;

const SUITE: Suite = Suite { table: include_str!("conformance.json"), types: KNOWN_RECORD_TYPES, ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(CopilotCliFlat, SUITE);
