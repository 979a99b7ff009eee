//! The testkit's conformance suite over the sessions the real Oh My Pi CLI
//! wrote (fixtures/oh-my-pi/18.2.3), as conformance.json says. Its
//! `custom` entries (extension state) are counted, not emitted, so a round
//! trip compares record bodies (tests/codec.rs checks the title slot).

use trajhost_codec_omp::{KNOWN_RECORD_TYPES, Omp};
use trajhost_codec_testkit::suite::Suite;

const SUITE: Suite = Suite { table: include_str!("conformance.json"), types: KNOWN_RECORD_TYPES, ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(Omp, SUITE);
