//! The testkit's conformance suite over the stores the real OpenCode CLI
//! wrote (fixtures/opencode/1.18.33), as conformance.json says. A session is
//! rows of `opencode.db` (row spans; its message and part rows the raw
//! records, typed `message/<role>` and `part/<type>`); OpenCode writes an
//! import document, itself a session that discover lists.

use trajhost_codec_opencode::{KNOWN_RECORD_TYPES, OpenCode};
use trajhost_codec_testkit::suite::Suite;

#[path = "support/rows.rs"]
mod support;
use support::rows;

const SUITE: Suite =
    Suite { table: include_str!("conformance.json"), types: KNOWN_RECORD_TYPES, raw: rows, ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(OpenCode, SUITE);
