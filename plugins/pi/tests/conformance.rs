//! The testkit's conformance suite over the sessions the real Pi CLI wrote
//! (fixtures/pi/0.73.1), as conformance.json says: entries by their type
//! (tests/codec.rs checks the message roles).

use trajhost_codec_pi::{KNOWN_RECORD_TYPES, Pi};
use trajhost_codec_testkit::suite::Suite;

const SUITE: Suite = Suite { table: include_str!("conformance.json"), types: KNOWN_RECORD_TYPES, ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(Pi, SUITE);
