//! Toy codec 2.0.0: reads native versions 2.x.
const CODEC_VERSION: &str = "2.0.0";
const NATIVE_VERSIONS: &str = ">=2.0.0, <3.0.0";
include!("../../codec.rs");
