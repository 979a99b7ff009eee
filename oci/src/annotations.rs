//! What a codec artifact's manifest says of the codec, so that a listing
//! shows what each tag covers without downloading the component.
//!
//! | key | value |
//! |---|---|
//! | `org.opencontainers.image.title` | the harness |
//! | `org.opencontainers.image.version` | the codec version |
//! | `org.opencontainers.image.created` | RFC 3339 |
//! | `org.opencontainers.image.description` | one line |
//! | `trajhost.codec.harness` | `codex` |
//! | `trajhost.codec.version` | `0.2.0` |
//! | `trajhost.codec.native-versions` | the range it reads, `>=0.1.0, <1.0.0` |
//! | `trajhost.codec.writes-for` | the range its writer writes for (absent: it does not write) |
//! | `trajhost.codec.reads` / `trajhost.codec.writes` | formats, comma-separated |
//! | `trajhost.codec.api` | the `trajhost:codec` API version it exports |
//! | `trajhost.codec.sdk` | its `trajhost:sdk` section |
//! | `trajhost.codec.verified-source` / `…verified-target` | versions the lab's ledger verified, comma-separated |
//! | `trajhost.codec.sha256` | the component's sha256 (hex) |

use std::collections::BTreeMap;

use serde::Serialize;

/// The prefix of trajhost's own keys.
pub const PREFIX: &str = "trajhost.codec.";

/// A codec's description as annotations.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CodecAnnotations {
    pub harness: String,
    pub codec_version: String,
    pub native_versions: String,
    /// `None`: the codec does not write.
    pub writes_for: Option<String>,
    pub reads: Vec<String>,
    pub writes: Vec<String>,
    pub api: String,
    pub sdk: Option<String>,
    pub verified_source: Vec<String>,
    pub verified_target: Vec<String>,
    /// The component's sha256, hex.
    pub sha256: String,
    /// RFC 3339.
    pub created: Option<String>,
}

fn key(name: &str) -> String {
    format!("{PREFIX}{name}")
}

fn list(items: &[String]) -> String {
    items.join(",")
}

fn split(text: Option<&String>) -> Vec<String> {
    text.map(|t| t.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect())
        .unwrap_or_default()
}

impl CodecAnnotations {
    /// The manifest annotations.
    pub fn to_map(&self) -> BTreeMap<String, String> {
        let mut map = BTreeMap::new();
        map.insert("org.opencontainers.image.title".into(), self.harness.clone());
        map.insert("org.opencontainers.image.version".into(), self.codec_version.clone());
        map.insert(
            "org.opencontainers.image.description".into(),
            format!("trajhost codec for {} (reads native versions {})", self.harness, self.native_versions),
        );
        if let Some(created) = &self.created {
            map.insert("org.opencontainers.image.created".into(), created.clone());
        }
        map.insert(key("harness"), self.harness.clone());
        map.insert(key("version"), self.codec_version.clone());
        map.insert(key("native-versions"), self.native_versions.clone());
        if let Some(range) = &self.writes_for {
            map.insert(key("writes-for"), range.clone());
        }
        map.insert(key("reads"), list(&self.reads));
        map.insert(key("writes"), list(&self.writes));
        map.insert(key("api"), self.api.clone());
        if let Some(sdk) = &self.sdk {
            map.insert(key("sdk"), sdk.clone());
        }
        map.insert(key("verified-source"), list(&self.verified_source));
        map.insert(key("verified-target"), list(&self.verified_target));
        map.insert(key("sha256"), self.sha256.clone());
        map
    }

    /// Reads them back; `None` when the manifest carries no trajhost
    /// annotations (e.g. a plain `wkg`/`oras` push).
    pub fn from_map(map: &BTreeMap<String, String>) -> Option<CodecAnnotations> {
        let harness = map.get(&key("harness"))?.clone();
        let codec_version = map.get(&key("version"))?.clone();
        let native_versions = map.get(&key("native-versions"))?.clone();
        Some(CodecAnnotations {
            harness,
            codec_version,
            native_versions,
            writes_for: map.get(&key("writes-for")).cloned().filter(|s| !s.is_empty()),
            reads: split(map.get(&key("reads"))),
            writes: split(map.get(&key("writes"))),
            api: map.get(&key("api")).cloned().unwrap_or_default(),
            sdk: map.get(&key("sdk")).cloned(),
            verified_source: split(map.get(&key("verified-source"))),
            verified_target: split(map.get(&key("verified-target"))),
            sha256: map.get(&key("sha256")).cloned().unwrap_or_default(),
            created: map.get("org.opencontainers.image.created").cloned(),
        })
    }

    /// `harness@version`.
    pub fn id(&self) -> String {
        format!("{}@{}", self.harness, self.codec_version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_round_trip() {
        let a = CodecAnnotations {
            harness: "toy".into(),
            codec_version: "2.0.0".into(),
            native_versions: ">=2.0.0, <3.0.0".into(),
            writes_for: Some(">=2.0.0, <2.5.0".into()),
            reads: vec!["toy-jsonl".into()],
            writes: vec!["toy-jsonl".into()],
            api: "0.2.1".into(),
            sdk: Some("sdk=0.2.1;api=0.2.1".into()),
            verified_source: vec!["2.0.0".into(), "2.1.0".into()],
            verified_target: vec![],
            sha256: "ab".repeat(32),
            created: Some("2026-01-01T00:00:00Z".into()),
        };
        let map = a.to_map();
        assert_eq!(map["trajhost.codec.verified-source"], "2.0.0,2.1.0");
        assert_eq!(CodecAnnotations::from_map(&map), Some(a));
        assert_eq!(CodecAnnotations::from_map(&BTreeMap::new()), None);
    }
}
