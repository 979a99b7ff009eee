//! The testkit's conformance suite over the sessions the real Droid CLI
//! wrote (fixtures/factory-droid/0.225.1), as conformance.json says.

use trajhost_codec_factory_droid::{FactoryDroid, KNOWN_RECORD_TYPES};
use trajhost_codec_testkit::suite::Suite;

const SUITE: Suite = Suite { table: include_str!("conformance.json"), types: KNOWN_RECORD_TYPES, ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(FactoryDroid, SUITE);
