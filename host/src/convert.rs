//! Conversion between harnesses: a session read into canonical records,
//! written by the target codec into an export directory, with a fidelity
//! report measured by reading the written artifacts back.
//!
//! Export directory layout:
//!
//! ```text
//! export.json        manifest: source, target, artifacts (sha256), fidelity
//! canonical.jsonl    the source session's canonical records
//! artifacts/<path>   native files, relative to a target home
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::canonical::{Body, Record};
use crate::catalog::Catalog;
use crate::error::{HostError, Result};
use crate::install::{InstallOp, InstallPlan, SqlValue};
use crate::inventory::{self, FoundSession};
use crate::registry::{CodecRecord, sha256_hex, write_atomically};
use crate::wit::latest::codec::{Artifact, Plan, WriteOptions};

/// How much of the session survived the conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tier {
    /// The target files are byte-for-byte the source files.
    ByteLossless,
    /// Every canonical value read back from the target equals the source's.
    ValueLossless,
    /// The conversation carried over; the named items did not.
    Semantic,
}

/// One thing that did not carry over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Loss {
    /// What was lost, e.g. `opaque-reasoning`, `tool_result`, `usage`.
    pub what: String,
    pub count: u64,
    /// Whether the target codec declared it or the read-back found it.
    pub found_by: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fidelity {
    pub tier: Tier,
    pub not_carried: Vec<Loss>,
    /// Canonical records by kind, in the source and read back from the target.
    pub source_kinds: BTreeMap<String, u64>,
    pub target_kinds: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SessionSide {
    pub harness: String,
    pub codec: String,
    pub native_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ArtifactEntry {
    pub path: String,
    pub sha256: String,
    pub size: u64,
}

/// `export.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExportManifest {
    pub format: u32,
    pub created_at: String,
    pub source: SessionSide,
    pub target: SessionSide,
    pub cwd: Option<String>,
    pub artifacts: Vec<ArtifactEntry>,
    pub fidelity: Fidelity,
}

/// Reads `found`, writes it with `to`'s newest codec into `out`.
pub fn convert(catalog: &Catalog<'_>, found: &FoundSession, to: &str, out: &Path, cwd: Option<String>) -> Result<ExportManifest> {
    let (source_codec, mut stream) = inventory::open(catalog, found, None, inventory::default_read_options())?;
    let mut document = String::new();
    while let Some(batch) = stream.next_batch()? {
        document.push_str(&batch.records);
    }
    let source_records = parse(&document, &source_codec.id())?;

    let target_codec = catalog.for_harness(to).first().copied().cloned().ok_or_else(|| {
        HostError::NoCodec(format!("no codec for target harness {to:?} (known: {})", catalog.harnesses().join(", ")))
    })?;
    if target_codec.writes.is_empty() {
        return Err(HostError::NoCodec(format!("codec {} cannot write sessions", target_codec.id())));
    }
    let cwd = cwd.or_else(|| found.session.cwd.clone());
    let options = WriteOptions { cwd: cwd.clone(), native_id: None, home_path: None };
    let written = catalog.instantiate(&target_codec)?.write(&document, &options)?;

    prepare_out_dir(out)?;
    let mut artifacts = Vec::new();
    for artifact in &written.artifacts {
        let path = artifact_path(out, &artifact.path)?;
        write_atomically(&path, &artifact.bytes)?;
        artifacts.push(ArtifactEntry { path: artifact.path.clone(), sha256: sha256_hex(&artifact.bytes), size: artifact.bytes.len() as u64 });
    }
    write_atomically(&out.join("canonical.jsonl"), document.as_bytes())?;

    let mut not_carried: Vec<Loss> = written
        .diagnostics
        .iter()
        .filter(|d| d.code == "not-carried")
        .map(|d| Loss { what: d.detail.clone(), count: u64::from(d.count), found_by: "target codec".into() })
        .collect();
    let read_back = read_back(catalog, &target_codec, &out.join("artifacts"), &written.native_id)?;
    not_carried.extend(compare(&source_records, &read_back));
    let byte_lossless = found.harness == to && written.artifacts.len() == 1 && {
        let source_bytes = std::fs::read(&found.session.path).unwrap_or_default();
        source_bytes == written.artifacts[0].bytes
    };
    let tier = if byte_lossless {
        Tier::ByteLossless
    } else if not_carried.is_empty() {
        Tier::ValueLossless
    } else {
        Tier::Semantic
    };
    let manifest = ExportManifest {
        format: 1,
        created_at: crate::time::now_rfc3339(),
        source: SessionSide {
            harness: found.harness.clone(),
            codec: source_codec.id(),
            native_id: found.session.native_id.clone(),
            native_version: found.session.native_version.clone(),
            path: Some(found.session.path.clone()),
        },
        target: SessionSide {
            harness: to.to_string(),
            codec: target_codec.id(),
            native_id: written.native_id.clone(),
            native_version: None,
            path: None,
        },
        cwd,
        artifacts,
        fidelity: Fidelity { tier, not_carried, source_kinds: kinds(&source_records), target_kinds: kinds(&read_back) },
    };
    let json = serde_json::to_vec_pretty(&manifest).map_err(|e| HostError::io(out, e))?;
    write_atomically(&out.join("export.json"), &json)?;
    Ok(manifest)
}

fn parse(document: &str, codec: &str) -> Result<Vec<Record>> {
    document
        .lines()
        .map(|line| {
            serde_json::from_str::<Record>(line).map_err(|e| HostError::Codec {
                plugin: codec.to_string(),
                op: crate::error::Operation::Read,
                message: format!("returned a record that is not canonical JSON: {e}"),
            })
        })
        .collect()
}

fn prepare_out_dir(out: &Path) -> Result<()> {
    if out.exists() && std::fs::read_dir(out).map_err(|e| HostError::io(out, e))?.next().is_some() {
        return Err(HostError::io(out, "the export directory exists and is not empty"));
    }
    std::fs::create_dir_all(out.join("artifacts")).map_err(|e| HostError::io(out, e))
}

fn artifact_path(out: &Path, rel: &str) -> Result<PathBuf> {
    let path = Path::new(rel);
    if rel.is_empty() || !path.components().all(|c| matches!(c, std::path::Component::Normal(_))) {
        return Err(HostError::io(out, format!("codec wrote an artifact with an invalid path {rel:?}")));
    }
    Ok(out.join("artifacts").join(path))
}

/// Reads the written artifacts back with the target codec.
fn read_back(catalog: &Catalog<'_>, codec: &CodecRecord, home: &Path, native_id: &str) -> Result<Vec<Record>> {
    let discovery = catalog.instantiate(codec)?.discover(home)?;
    let session = discovery
        .sessions
        .into_iter()
        .find(|s| s.native_id == native_id)
        .ok_or_else(|| HostError::Codec {
            plugin: codec.id(),
            op: crate::error::Operation::Write,
            message: format!("wrote session {native_id} but cannot discover it in its own output"),
        })?;
    let mut stream = catalog.instantiate(codec)?.read(home, &session.locator, inventory::default_read_options())?;
    let mut document = String::new();
    while let Some(batch) = stream.next_batch()? {
        document.push_str(&batch.records);
    }
    parse(&document, &codec.id())
}

fn kinds(records: &[Record]) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for r in records {
        *out.entry(r.body.kind().to_string()).or_default() += 1;
    }
    out
}

/// The values a conversion must keep, as comparable strings per category.
fn essentials(records: &[Record]) -> BTreeMap<&'static str, Vec<String>> {
    let mut out: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    for r in records.iter().filter(|r| r.agent.is_none()) {
        match &r.body {
            Body::User { text, attachments } => {
                if !text.trim().is_empty() {
                    out.entry("user text").or_default().push(norm(text));
                }
                for _ in attachments {
                    out.entry("attachments").or_default().push(String::new());
                }
            }
            Body::Assistant(a) => {
                if !a.text.trim().is_empty() {
                    out.entry("assistant text").or_default().push(norm(&a.text));
                }
                if a.usage.is_some() {
                    out.entry("usage").or_default().push(String::new());
                }
            }
            Body::ToolCall { name, arguments, .. } => {
                out.entry("tool call").or_default().push(format!("{name} {}", canonical_json(arguments)));
            }
            Body::ToolResult { content, .. } => out.entry("tool result").or_default().push(norm(content)),
            Body::Reasoning(reasoning) => match &reasoning.text {
                Some(text) if !text.trim().is_empty() => out.entry("reasoning text").or_default().push(norm(text)),
                _ => out.entry("opaque reasoning").or_default().push(String::new()),
            },
            Body::System { text } => out.entry("system text").or_default().push(norm(text)),
            Body::Compaction { summary, .. } => out.entry("compaction").or_default().push(norm(summary)),
            Body::Meta(_) | Body::Observation { .. } => {}
        }
    }
    for values in out.values_mut() {
        values.sort();
    }
    out
}

fn canonical_json(value: &serde_json::Value) -> String {
    // serde_json's Map is ordered by key (no preserve_order feature).
    match value {
        serde_json::Value::String(s) => serde_json::from_str::<serde_json::Value>(s).map(|v| v.to_string()).unwrap_or_else(|_| s.clone()),
        other => other.to_string(),
    }
}

/// What the source has that the read-back lacks, per category.
fn compare(source: &[Record], target: &[Record]) -> Vec<Loss> {
    let (source, target) = (essentials(source), essentials(target));
    let mut losses = Vec::new();
    for (what, values) in &source {
        let mut remaining: BTreeMap<&String, i64> = BTreeMap::new();
        for v in target.get(what).into_iter().flatten() {
            *remaining.entry(v).or_default() += 1;
        }
        let mut missing = 0u64;
        for v in values {
            match remaining.get_mut(v) {
                Some(n) if *n > 0 => *n -= 1,
                _ => missing += 1,
            }
        }
        if missing > 0 {
            losses.push(Loss { what: what.to_string(), count: missing, found_by: "read-back".into() });
        }
    }
    losses
}

/// Loads an export directory's manifest and artifacts, checking hashes.
pub fn load_export(dir: &Path) -> Result<(ExportManifest, Vec<Artifact>)> {
    let path = dir.join("export.json");
    let bytes = std::fs::read(&path).map_err(|e| HostError::io(&path, e))?;
    let manifest: ExportManifest = serde_json::from_slice(&bytes).map_err(|e| HostError::io(&path, format!("not an export manifest: {e}")))?;
    let mut artifacts = Vec::new();
    for entry in &manifest.artifacts {
        let file = artifact_path(dir, &entry.path)?;
        let bytes = std::fs::read(&file).map_err(|e| HostError::io(&file, e))?;
        let found = sha256_hex(&bytes);
        if found != entry.sha256 {
            return Err(HostError::io(&file, format!("changed since export (sha256 {found}, expected {})", entry.sha256)));
        }
        artifacts.push(Artifact { path: entry.path.clone(), bytes });
    }
    Ok((manifest, artifacts))
}

/// Asks the target codec how to install an export into `home`.
pub fn plan(catalog: &Catalog<'_>, manifest: &ExportManifest, artifacts: &[Artifact], home: &Path) -> Result<(CodecRecord, Plan)> {
    let (harness, version) = manifest.target.codec.split_once('@').unwrap_or((&manifest.target.harness, ""));
    let codec = catalog
        .for_harness(harness)
        .into_iter()
        .find(|c| c.codec_version == version)
        .or_else(|| catalog.for_harness(harness).first().copied())
        .cloned()
        .ok_or_else(|| HostError::NoCodec(format!("no codec for {harness}")))?;
    let home = crate::install::resolve_home(home)?;
    let options = WriteOptions {
        cwd: manifest.cwd.clone(),
        native_id: Some(manifest.target.native_id.clone()),
        home_path: Some(home.display().to_string()),
    };
    let plan = catalog.instantiate(&codec)?.prepare(artifacts, &home, &options)?;
    Ok((codec, plan))
}

/// A codec's plan in the installer's terms.
pub fn install_plan(plan: Plan) -> InstallPlan {
    use crate::wit::latest::codec::Operation;
    use crate::wit::latest::sqlite::Value as V;
    let value = |v: V| match v {
        V::Null => SqlValue::Null,
        V::Integer(i) => SqlValue::Integer(i),
        V::Real(f) => SqlValue::Real(f),
        V::Text(s) => SqlValue::Text(s),
        V::Blob(b) => SqlValue::Blob(b),
    };
    let operations = plan
        .operations
        .into_iter()
        .map(|op| match op {
            Operation::CreateFile(f) => InstallOp::CreateFile { path: f.path, bytes: f.bytes },
            Operation::InsertRows(i) => InstallOp::InsertRows {
                database: i.database,
                table: i.table,
                columns: i.columns,
                rows: i.rows.into_iter().map(|row| row.into_iter().map(value).collect()).collect(),
            },
        })
        .collect();
    InstallPlan { native_id: plan.native_id, operations, resume_command: plan.resume_command }
}
