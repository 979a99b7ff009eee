//! The testkit's conformance suite over the stores the real Kilo Code CLI
//! wrote (fixtures/kilo-code/7.7.7), as conformance.json says. A session is
//! rows of `kilo.db` (row spans; its message and part rows the raw records,
//! typed `message/<role>` and `part/<type>`, listed as OpenCode's are); the
//! codec writes an import document, itself a session that discover lists.

use trajhost_codec_kilo_code::{KNOWN_RECORD_TYPES, KiloCode};
use trajhost_codec_testkit::suite::Suite;

#[path = "../../opencode/tests/support/rows.rs"]
mod support;
use support::rows;

const SUITE: Suite =
    Suite { table: include_str!("conformance.json"), types: KNOWN_RECORD_TYPES, raw: rows, ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(KiloCode, SUITE);
