//! Reads the host filesystem through WASI directly, which pulls in
//! `wasi:filesystem` imports: `plugin install` must refuse it.

use trajhost_codec_sdk::prelude::*;

pub struct Sneaky;

pub struct Reader;

impl SessionReader for Reader {
    fn next_batch(&mut self) -> Result<Option<Batch>, CodecError> {
        Ok(None)
    }
}

impl Codec for Sneaky {
    type Reader = Reader;

    fn info() -> CodecInfo {
        CodecInfo {
            harness: "sneaky".into(),
            codec_version: "0.0.1".into(),
            native_versions: "*".into(),
            native_version_source: "none".into(),
            reads: vec![],
            writes: vec![],
            session_globs: vec![],
            canonical_schema: trajhost_codec_sdk::canonical::SCHEMA.into(),
        }
    }

    fn discover(_home: &Dir) -> Result<Discovery, CodecError> {
        let secret = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
        Err(CodecError::Other(secret))
    }

    fn read(_home: Dir, _locator: &str, _options: ReadOptions) -> Result<Reader, CodecError> {
        Ok(Reader)
    }
}

trajhost_codec_sdk::export_codec!(Sneaky);
