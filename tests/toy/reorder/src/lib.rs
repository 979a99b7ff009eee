//! Toy codec 3.0.0: the toy format, kept in `toy3/`, with a writer that
//! swaps the first two messages it writes, so that the host's fidelity
//! report can be shown to catch a reordering writer.
const CODEC_VERSION: &str = "3.0.0";
const NATIVE_VERSIONS: &str = ">=3.0.0, <4.0.0";
const SESSION_DIR: &str = "toy3";
const SWAP_FIRST_TWO: bool = true;
include!("../../codec.rs");
