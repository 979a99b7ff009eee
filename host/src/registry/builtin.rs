//! Codecs compiled from `plugins/` by `build.rs` and embedded in the binary.

/// One embedded codec component.
pub struct BuiltinCodec {
    /// The crate it was built from.
    pub package: &'static str,
    pub sha256: &'static str,
    pub wasm: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/builtin_codecs.rs"));
