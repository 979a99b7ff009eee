//! The version ledger (`ledger/versions.json`): for each codec, the exact
//! native harness versions the lab verified as a **source** (a session that
//! real CLI wrote was read) and as a **target** (that real CLI resumed a
//! session the codec prepared). `tests/lab` writes it from its runs; nobody
//! edits it by hand. It is embedded in the binary, so `verified` means what
//! the lab saw with this build's built-in codecs, and nothing else.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::catalog::parse_native_version;
use crate::{CodecRecord, CodecSource};

/// Where the ledger lives in the repository (for messages and docs).
pub const LEDGER_FILE: &str = "ledger/versions.json";
static LEDGER_JSON: &str = include_str!("../../../ledger/versions.json");

/// What a ledger entry says the lab did with a version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A session this version wrote was read by the codec.
    Source,
    /// This version resumed a session the codec prepared.
    Target,
}

/// One verified (harness, version, role, codec).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub harness: String,
    pub version: String,
    pub role: Role,
    /// `harness@codec-version`.
    pub codec: String,
    pub date: String,
    /// The trajhost commit the lab ran.
    pub commit: String,
    /// The lab check that passed (e.g. `matrix codex:gemini-cli@0.25.0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
}

#[derive(Deserialize)]
struct LedgerFile {
    format: u32,
    entries: Vec<Entry>,
}

/// Every entry of the embedded ledger. An unreadable ledger verifies nothing.
pub fn entries() -> &'static [Entry] {
    static PARSED: OnceLock<Vec<Entry>> = OnceLock::new();
    PARSED.get_or_init(|| match serde_json::from_str::<LedgerFile>(LEDGER_JSON) {
        Ok(file) if file.format == 1 => file.entries,
        Ok(file) => {
            tracing::warn!("{LEDGER_FILE} has format {}, this build reads 1: nothing counts as verified", file.format);
            Vec::new()
        }
        Err(error) => {
            tracing::warn!("{LEDGER_FILE} is not valid: {error}; nothing counts as verified");
            Vec::new()
        }
    })
}

/// The versions verified for `codec` (an id) in `role`, lowest first.
pub fn verified_versions(codec: &str, role: Role) -> Vec<&'static str> {
    let mut versions: Vec<&str> =
        entries().iter().filter(|e| e.codec == codec && e.role == role).map(|e| e.version.as_str()).collect();
    versions.sort_by_key(|v| parse_native_version(v));
    versions.dedup();
    versions
}

fn same_version(a: &str, b: &str) -> bool {
    match (parse_native_version(a), parse_native_version(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
}

/// Whether an install by `writer` into a target of `version` is verified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub verified: bool,
    /// One sentence: the lab run that verified it, or why not.
    pub reason: String,
}

/// The verdict for `writer` preparing a session for a target that runs
/// `version` (`None`: unknown). Only a built-in codec can be verified: the
/// ledger speaks of this build's codecs, not of an installed file that may
/// share an id.
pub fn verdict(writer: &CodecRecord, version: Option<&str>) -> Verdict {
    verdict_in(entries(), writer, version)
}

fn verdict_in(entries: &[Entry], writer: &CodecRecord, version: Option<&str>) -> Verdict {
    let mut listed: Vec<&str> = entries
        .iter()
        .filter(|e| e.codec == writer.id() && e.role == Role::Target)
        .map(|e| e.version.as_str())
        .collect();
    listed.sort_by_key(|v| parse_native_version(v));
    listed.dedup();
    let listed_text = if listed.is_empty() { "none".to_string() } else { listed.join(", ") };
    if !matches!(writer.source, CodecSource::Builtin) {
        return Verdict {
            verified: false,
            reason: format!("{} is an installed codec: this build's ledger has no lab run of it", writer.id()),
        };
    }
    let Some(version) = version else {
        return Verdict {
            verified: false,
            reason: format!("target version unknown; {} verified: {listed_text}", writer.id()),
        };
    };
    let entry =
        entries.iter().find(|e| e.codec == writer.id() && e.role == Role::Target && same_version(&e.version, version));
    match entry {
        Some(e) => Verdict {
            verified: true,
            reason: format!(
                "{} {} resumed a session of {} in the lab on {} (trajhost {})",
                e.harness, e.version, e.codec, e.date, e.commit
            ),
        },
        None => Verdict {
            verified: false,
            reason: format!("untested version {version}; {} verified: {listed_text}", writer.id()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_ledger_parses_and_names_known_roles() {
        let file: LedgerFile = serde_json::from_str(LEDGER_JSON).expect("ledger/versions.json parses");
        assert_eq!(file.format, 1);
        for e in &file.entries {
            assert!(e.codec.starts_with(&format!("{}@", e.harness)), "{e:?}");
            assert!(parse_native_version(&e.version).is_some(), "{e:?}");
        }
    }

    fn codec(id: &str, source: CodecSource) -> CodecRecord {
        let (harness, version) = id.split_once('@').unwrap();
        CodecRecord {
            harness: harness.into(),
            codec_version: version.into(),
            native_versions: ">=0.1.0, <1.0.0".into(),
            native_version_source: String::new(),
            reads: vec!["x".into()],
            writes: vec!["x".into()],
            session_globs: Vec::new(),
            canonical_schema: String::new(),
            api: "0.2.1".into(),
            sdk: None,
            writes_for: None,
            sha256: String::new(),
            size: 0,
            source,
            origin: None,
        }
    }

    fn entry(version: &str, role: Role, codec: &str) -> Entry {
        Entry {
            harness: codec.split('@').next().unwrap().into(),
            version: version.into(),
            role,
            codec: codec.into(),
            date: "2026-12-06".into(),
            commit: "0123456789ab".into(),
            check: None,
        }
    }

    #[test]
    fn only_a_listed_target_version_of_the_writer_used_is_verified() {
        let ledger = [
            entry("0.15.10", Role::Target, "qwen-code@0.1.0"),
            entry("0.24.4", Role::Target, "qwen-code@0.1.0"),
            entry("0.30.0", Role::Source, "qwen-code@0.1.0"),
            entry("0.30.1", Role::Target, "qwen-code@0.2.0"),
        ];
        let writer = codec("qwen-code@0.1.0", CodecSource::Builtin);
        let yes = verdict_in(&ledger, &writer, Some("0.24.4"));
        assert!(yes.verified, "{yes:?}");
        assert!(yes.reason.contains("2026-12-06") && yes.reason.contains("0123456789ab"), "{yes:?}");
        let untested = verdict_in(&ledger, &writer, Some("9.9.9"));
        assert!(!untested.verified);
        assert_eq!(untested.reason, "untested version 9.9.9; qwen-code@0.1.0 verified: 0.15.10, 0.24.4");
        // A source entry, or another writer's target entry, verifies nothing.
        assert!(!verdict_in(&ledger, &writer, Some("0.30.0")).verified);
        assert!(!verdict_in(&ledger, &writer, Some("0.30.1")).verified);
        let unknown = verdict_in(&ledger, &writer, None);
        assert!(!unknown.verified);
        assert!(unknown.reason.starts_with("target version unknown"), "{unknown:?}");
        // An installed codec of the same id is not what the lab ran.
        let installed =
            codec("qwen-code@0.1.0", CodecSource::Installed { from: "x.wasm".into(), installed_at: String::new() });
        assert!(!verdict_in(&ledger, &installed, Some("0.24.4")).verified);
    }

    #[test]
    fn versions_compare_as_versions() {
        assert!(same_version("0.25.0", "v0.25.0"));
        assert!(!same_version("0.25.0", "0.25.1"));
    }
}
