//! Toy codec 1.0.0: reads native versions below 2, kept in `toy/`.
const CODEC_VERSION: &str = "1.0.0";
const NATIVE_VERSIONS: &str = ">=1.0.0, <2.0.0";
const SESSION_DIR: &str = "toy";
const SWAP_FIRST_TWO: bool = false;
include!("../../codec.rs");
