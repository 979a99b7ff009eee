//! Toy codec 2.0.0: reads native versions 2.x, kept in `toy2/`.
const CODEC_VERSION: &str = "2.0.0";
const NATIVE_VERSIONS: &str = ">=2.0.0, <3.0.0";
const SESSION_DIR: &str = "toy2";
const SWAP_FIRST_TWO: bool = false;
include!("../../codec.rs");
