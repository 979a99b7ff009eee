//! Codecs compiled from `plugins/` by `build.rs` and embedded in the binary.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use trajhost_capabilities::wit::latest::codec::CodecInfo;

/// One embedded codec component.
pub struct BuiltinCodec {
    /// The crate it was built from.
    pub package: &'static str,
    pub sha256: &'static str,
    pub wasm: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/builtin_codecs.rs"));

/// What each built-in's `info` returns, committed beside this file so that
/// opening a catalog compiles nothing: a built-in is compiled the first time
/// a command needs it (its stores exist under the home, or a file is its
/// format). The integration test `catalog::declared_info_matches_every_builtin`
/// checks this file against every component's own `info` (and rewrites it
/// with `TRAJHOST_BLESS=1`).
pub const DECLARED_INFO_FILE: &str = "crates/registry/src/builtin-info.json";
static DECLARED_INFO_JSON: &str = include_str!("builtin-info.json");

/// A codec's `info`, as data.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DeclaredInfo {
    pub harness: String,
    pub codec_version: String,
    pub native_versions: String,
    pub native_version_source: String,
    pub reads: Vec<String>,
    pub writes: Vec<String>,
    pub session_globs: Vec<String>,
    pub canonical_schema: String,
}

impl DeclaredInfo {
    pub fn of(info: &CodecInfo) -> DeclaredInfo {
        DeclaredInfo {
            harness: info.harness.clone(),
            codec_version: info.codec_version.clone(),
            native_versions: info.native_versions.clone(),
            native_version_source: info.native_version_source.clone(),
            reads: info.reads.clone(),
            writes: info.writes.clone(),
            session_globs: info.session_globs.clone(),
            canonical_schema: info.canonical_schema.clone(),
        }
    }

    /// The `info` fields of a catalog record.
    pub fn of_record(record: &crate::CodecRecord) -> DeclaredInfo {
        DeclaredInfo {
            harness: record.harness.clone(),
            codec_version: record.codec_version.clone(),
            native_versions: record.native_versions.clone(),
            native_version_source: record.native_version_source.clone(),
            reads: record.reads.clone(),
            writes: record.writes.clone(),
            session_globs: record.session_globs.clone(),
            canonical_schema: record.canonical_schema.clone(),
        }
    }

    pub fn into_info(self) -> CodecInfo {
        CodecInfo {
            harness: self.harness,
            codec_version: self.codec_version,
            native_versions: self.native_versions,
            native_version_source: self.native_version_source,
            reads: self.reads,
            writes: self.writes,
            session_globs: self.session_globs,
            canonical_schema: self.canonical_schema,
        }
    }
}

/// Every built-in's declared `info`, by package. An unreadable file (a bad
/// edit) declares nothing: each built-in is then asked for its `info`.
pub fn declared_infos() -> &'static BTreeMap<String, DeclaredInfo> {
    static PARSED: OnceLock<BTreeMap<String, DeclaredInfo>> = OnceLock::new();
    PARSED.get_or_init(|| {
        serde_json::from_str(DECLARED_INFO_JSON).unwrap_or_else(|error| {
            tracing::warn!("{DECLARED_INFO_FILE} is not valid: {error}; built-ins are compiled to read their info");
            BTreeMap::new()
        })
    })
}

/// The declared `info` of the built-in built from `package`.
pub fn declared_info(package: &str) -> Option<&'static DeclaredInfo> {
    declared_infos().get(package)
}

/// Where the build put every codec as a standalone plugin file (`target/plugins`).
pub const PLUGIN_FILES_DIR: &str = env!("TRAJHOST_PLUGIN_FILES_DIR");
/// Where the build put the compiled guests, the test-only ones included.
pub const GUESTS_DIR: &str = env!("TRAJHOST_GUESTS_DIR");
