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

pub mod resume;
pub mod trajectory;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use sha2::{Digest, Sha256};
use trajhost_canonical::{Body, Record};
use trajhost_install::{InstallOp, InstallPlan, SqlValue, TableRows};
use trajhost_inventory::{self as inventory, FoundSession};
use trajhost_registry::catalog::Catalog;
use trajhost_runtime::error::{HostError, Result};

use trajhost_capabilities::target::{TargetChoice, Untested};
use trajhost_capabilities::wit::latest::codec::{ArtifactChunk, ArtifactInfo, Plan, WriteOptions};
use trajhost_registry::{CodecRecord, write_atomically};

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

impl Fidelity {
    /// The losses grouped by what was lost, in report order. A target codec's
    /// declaration and the read-back's measure of the same loss are two entries
    /// in the manifest (tests check each measured loss was declared) but one
    /// thing to a reader.
    pub fn losses_by_what(&self) -> Vec<(&str, Vec<&Loss>)> {
        let mut groups: Vec<(&str, Vec<&Loss>)> = Vec::new();
        for loss in &self.not_carried {
            match groups.iter_mut().find(|(what, _)| *what == loss.what) {
                Some((_, found)) => found.push(loss),
                None => groups.push((&loss.what, vec![loss])),
            }
        }
        groups
    }
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
    /// The model and provider chosen at convert time (`--model`, `--provider`),
    /// which `prepare` uses unless it is given others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_choice: Option<RecordedChoice>,
    /// Why the session was not portable, when `--lossy` converted it anyway.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_portable: Vec<String>,
    /// Secrets masked (`--redact`), by rule.
    #[serde(default, skip_serializing_if = "trajhost_inventory::redaction::Counts::is_empty")]
    pub redactions: trajhost_inventory::redaction::Counts,
}

/// A model/provider choice made at convert time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedChoice {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The target codec asked for the choice while writing (so it is in the artifacts).
    pub applied_in_write: bool,
}

/// What the user asked of a conversion.
#[derive(Debug, Clone, Default)]
pub struct ConvertOptions {
    /// The working directory the session should belong to in the target.
    pub cwd: Option<String>,
    /// Model and provider for the target (`allow_untested` matters at prepare).
    pub choice: TargetChoice,
    /// Convert a session that is not portable, listing what is dropped.
    pub lossy: bool,
    /// The native version of the target that will resume the session
    /// (`--to HARNESS@VERSION`): picks the writer, and `prepare` uses it.
    pub target_version: Option<String>,
    /// The writing codec, chosen explicitly (`--codec HARNESS@CODEC_VERSION`).
    pub writer: Option<String>,
    /// `--redact`: secrets masked before the writer sees the records (off by
    /// default: a handoff of the user's own session on their own machine).
    pub redaction: Option<trajhost_inventory::redaction::Redactor>,
}

/// Diagnostic codes that make a session not portable: a source codec's
/// `not-portable` (the session's active context has parts no target can
/// reproduce, such as Cursor's compaction archives or subagents) and a
/// target codec's `untranslated-reasoning` (reasoning the target cannot hold),
/// a source codec's `pending-approval` (the session waits for a person's
/// decision: Kimi's unanswered `ApprovalRequest`) and `unchosen-branch` (the
/// file holds a branch the harness no longer resumes: a rewound Claude Code
/// prompt). The host adds `tool-call-without-result` and `interrupted-turn` from the
/// source's records (`Continuity`).
pub const NOT_PORTABLE_CODES: &[&str] =
    &["not-portable", "untranslated-reasoning", "pending-approval", "unchosen-branch"];

/// Reads `found`, writes it into `out` with the codec of `to` that writes
/// for the target version given (else `to`'s newest writing codec).
///
/// Everything streams: canonical batches go from the source codec to the
/// target codec's writer as they are read, the pieces it returns are appended
/// to the export's files, and the fidelity comparison keeps digests of the
/// values, not the values. Memory follows the batch size and the longest
/// record, not the session.
pub fn convert(
    catalog: &Catalog<'_>,
    found: &FoundSession,
    to: &str,
    out: &Path,
    options: &ConvertOptions,
) -> Result<ExportManifest> {
    let target_codec =
        catalog.writer_for(to, options.target_version.as_deref(), None, options.writer.as_deref())?.clone();
    let cwd = options.cwd.clone().or_else(|| found.session.cwd.clone());
    into_new_export(out, |out| export(catalog, Source::Session(found), to, out, target_codec, cwd, options))
}

/// Writes an existing export's records (its `canonical.jsonl`) again with
/// another codec of the same target, into the new export directory `out`:
/// `prepare` does this when the target runs a version another writer writes
/// for. The fidelity is measured again, against the new artifacts.
pub fn rewrite(
    catalog: &Catalog<'_>,
    export_dir: &Path,
    manifest: &ExportManifest,
    writer: &CodecRecord,
    redaction: Option<&trajhost_inventory::redaction::Redactor>,
    out: &Path,
) -> Result<ExportManifest> {
    let options = ConvertOptions {
        cwd: manifest.cwd.clone(),
        choice: TargetChoice {
            model: manifest.target_choice.as_ref().and_then(|c| c.model.clone()),
            provider: manifest.target_choice.as_ref().and_then(|c| c.provider.clone()),
            allow_untested: false,
        },
        // The user accepted these losses at convert time.
        lossy: !manifest.not_portable.is_empty(),
        target_version: manifest.target.native_version.clone(),
        writer: Some(writer.id()),
        redaction: redaction.cloned(),
    };
    let to = manifest.target.harness.clone();
    let source = Source::Export { manifest, dir: export_dir };
    let mut rewritten =
        into_new_export(out, |out| export(catalog, source, &to, out, writer.clone(), manifest.cwd.clone(), &options))?;
    // What convert masked is masked in the rewritten export too.
    rewritten.redactions.merge(&manifest.redactions);
    Ok(rewritten)
}

/// Runs `write` into the export directory `out`; a failure leaves no partial
/// export behind (a retry would be refused as "not empty"): the directory
/// goes if this made it, else it is emptied.
fn into_new_export(out: &Path, write: impl FnOnce(&Path) -> Result<ExportManifest>) -> Result<ExportManifest> {
    let existed = out.exists();
    prepare_out_dir(out)?;
    let result = write(out);
    if result.is_err() {
        let cleanup = if existed { clear_dir(out) } else { std::fs::remove_dir_all(out) };
        if let Err(e) = cleanup {
            tracing::warn!("cannot remove the partial export {}: {e}", out.display());
        }
    }
    result
}

/// Where the canonical records of an export come from.
enum Source<'a> {
    /// A session, read by its codec.
    Session(&'a FoundSession),
    /// An earlier export's `canonical.jsonl`.
    Export { manifest: &'a ExportManifest, dir: &'a Path },
}

/// Canonical batches in order, from either [`Source`].
enum Batches {
    Codec(Box<trajhost_runtime::Prefetched>),
    File(CanonicalBatches),
}

impl Batches {
    fn next_batch(&mut self) -> Result<Option<trajhost_runtime::Batch>> {
        match self {
            Batches::Codec(stream) => stream.next_batch(),
            Batches::File(file) => file.next_batch(),
        }
    }
}

/// An export's `canonical.jsonl` as batches of whole lines (about
/// [`CANONICAL_BATCH_BYTES`] each, or one longer line).
struct CanonicalBatches {
    path: PathBuf,
    reader: std::io::BufReader<std::fs::File>,
}

const CANONICAL_BATCH_BYTES: usize = 4 << 20;

impl CanonicalBatches {
    fn open(path: &Path) -> Result<CanonicalBatches> {
        let file = std::fs::File::open(path).map_err(|e| HostError::io(path, e))?;
        Ok(CanonicalBatches { path: path.to_path_buf(), reader: std::io::BufReader::with_capacity(1 << 20, file) })
    }

    fn next_batch(&mut self) -> Result<Option<trajhost_runtime::Batch>> {
        use std::io::BufRead;
        let mut records = String::new();
        while records.len() < CANONICAL_BATCH_BYTES {
            let read = self.reader.read_line(&mut records).map_err(|e| HostError::io(&self.path, e))?;
            if read == 0 {
                break;
            }
            if !records.ends_with('\n') {
                records.push('\n');
            }
        }
        Ok((!records.is_empty()).then(|| trajhost_runtime::Batch { records, diagnostics: Vec::new() }))
    }
}

fn clear_dir(dir: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() { std::fs::remove_dir_all(&path)? } else { std::fs::remove_file(&path)? }
    }
    Ok(())
}

/// Streams the session into the export directory `out` (see [`convert`]).
fn export(
    catalog: &Catalog<'_>,
    source: Source<'_>,
    to: &str,
    out: &Path,
    target_codec: CodecRecord,
    cwd: Option<String>,
    convert: &ConvertOptions,
) -> Result<ExportManifest> {
    let options = WriteOptions { cwd: cwd.clone(), native_id: None, home_path: None };
    let (source_side, mut stream) = match source {
        Source::Session(found) => {
            let (source_codec, stream) = inventory::open(catalog, found, None, inventory::default_read_options())?;
            let side = SessionSide {
                harness: found.harness.clone(),
                codec: source_codec.id(),
                native_id: found.session.native_id.clone(),
                native_version: found.session.native_version.clone(),
                path: Some(found.session.path.clone()),
            };
            // The source codec parses ahead on its own thread while this one writes.
            (side, Batches::Codec(Box::new(stream.prefetched())))
        }
        Source::Export { manifest, dir } => {
            (manifest.source.clone(), Batches::File(CanonicalBatches::open(&dir.join("canonical.jsonl"))?))
        }
    };
    let mut instance = catalog.instantiate(&target_codec)?;
    instance.set_target_choice(convert.choice.clone());
    let mut sink = instance.write(&options)?;
    let mut not_portable = NotPortable::default();
    let mut canonical = ExportFile::create(&out.join("canonical.jsonl"))?;
    let mut files = ArtifactFiles::new(out.to_path_buf());
    // Three stages overlap: the source codec parses ahead (its thread), the
    // fidelity digests are taken on another, and this one writes.
    let digester = Digester::spawn(source_side.codec.clone());
    let mut redactions = trajhost_inventory::redaction::Counts::default();
    while let Some(batch) = stream.next_batch()? {
        let records = match &convert.redaction {
            Some(redactor) => trajhost_inventory::redaction::redact_lines(redactor, batch.records, &mut redactions),
            None => batch.records,
        };
        let records = std::sync::Arc::new(records);
        if !digester.add(records.clone()) {
            break; // the digester failed: its error comes from `finish`
        }
        not_portable.add(&batch.diagnostics);
        canonical.append(records.as_bytes())?;
        if !records.is_empty() && !records.ends_with('\n') {
            canonical.append(b"\n")?;
        }
        files.append(sink.push(&records)?)?;
    }
    drop(stream);
    let mut source = digester.finish()?;
    let applied_in_write = sink.target_choice_asked();
    let mut written = sink.finish()?;
    not_portable.add(&written.diagnostics);
    for cause in source.continuity.causes() {
        not_portable.push(cause);
    }
    if !not_portable.causes.is_empty() && !convert.lossy {
        return Err(HostError::NotPortable {
            session: format!("{} {}", source_side.harness, source_side.native_id),
            target: to.to_string(),
            causes: not_portable.causes,
        });
    }
    files.append(std::mem::take(&mut written.chunks))?;
    let artifacts = files.finish()?;
    canonical.finish()?;

    let mut not_carried: Vec<Loss> = written
        .diagnostics
        .iter()
        .filter(|d| d.code == "not-carried" || d.code.starts_with("untranslated-"))
        .map(|d| Loss {
            what: if d.code == "not-carried" { d.detail.clone() } else { format!("{}: {}", d.code, d.detail) },
            count: u64::from(d.count),
            found_by: "target codec".into(),
        })
        .collect();
    let target_kinds = read_back(catalog, &target_codec, &out.join("artifacts"), &written.native_id, &mut source)?;
    not_carried.extend(source.missing());
    not_carried.extend(source.reordered());
    let byte_lossless = source_side.harness == to
        && artifacts.len() == 1
        && source_side.path.as_deref().is_some_and(|p| file_digest(p).is_ok_and(|(sha, _)| sha == artifacts[0].sha256));
    let tier = if byte_lossless {
        Tier::ByteLossless
    } else if not_carried.is_empty() {
        Tier::ValueLossless
    } else {
        Tier::Semantic
    };
    let manifest = ExportManifest {
        format: 1,
        created_at: trajhost_canonical::time::now_rfc3339(),
        source: source_side,
        target: SessionSide {
            harness: to.to_string(),
            codec: target_codec.id(),
            native_id: written.native_id.clone(),
            native_version: convert.target_version.clone(),
            path: None,
        },
        cwd,
        artifacts,
        fidelity: Fidelity { tier, not_carried, source_kinds: source.kinds, target_kinds },
        target_choice: convert.choice.names_something().then(|| RecordedChoice {
            model: convert.choice.model.clone(),
            provider: convert.choice.provider.clone(),
            applied_in_write,
        }),
        not_portable: not_portable.causes,
        redactions,
    };
    let json = serde_json::to_vec_pretty(&manifest).map_err(|e| HostError::io(out, e))?;
    write_atomically(&out.join("export.json"), &json)?;
    Ok(manifest)
}

/// The causes that make a session not portable, from diagnostics
/// ([`NOT_PORTABLE_CODES`]), each once.
#[derive(Default)]
struct NotPortable {
    causes: Vec<String>,
}

impl NotPortable {
    fn add(&mut self, diagnostics: &[trajhost_capabilities::wit::latest::types::Diagnostic]) {
        for d in diagnostics.iter().filter(|d| NOT_PORTABLE_CODES.contains(&d.code.as_str())) {
            self.push(if d.detail.is_empty() { d.code.clone() } else { format!("{}: {}", d.code, d.detail) });
        }
    }

    fn push(&mut self, cause: String) {
        if !self.causes.contains(&cause) {
            self.causes.push(cause);
        }
    }
}

/// A file of the export being written, hashed as it grows.
struct ExportFile {
    path: PathBuf,
    file: std::io::BufWriter<std::fs::File>,
    hasher: Sha256,
    size: u64,
}

impl ExportFile {
    fn create(path: &Path) -> Result<ExportFile> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| HostError::io(dir, e))?;
        }
        let file =
            std::fs::OpenOptions::new().write(true).create_new(true).open(path).map_err(|e| HostError::io(path, e))?;
        Ok(ExportFile {
            path: path.to_path_buf(),
            file: std::io::BufWriter::with_capacity(1 << 20, file),
            hasher: Sha256::new(),
            size: 0,
        })
    }

    fn append(&mut self, bytes: &[u8]) -> Result<()> {
        use std::io::Write;
        self.file.write_all(bytes).map_err(|e| HostError::io(&self.path, e))?;
        self.hasher.update(bytes);
        self.size += bytes.len() as u64;
        Ok(())
    }

    /// Flushes and syncs; returns (sha256, size).
    fn finish(self) -> Result<(String, u64)> {
        let path = self.path;
        let file = self.file.into_inner().map_err(|e| HostError::io(&path, e.error()))?;
        file.sync_all().map_err(|e| HostError::io(&path, e))?;
        Ok((hex::encode(self.hasher.finalize()), self.size))
    }
}

/// The artifact files of an export, appended piece by piece.
struct ArtifactFiles {
    export: PathBuf,
    files: Vec<(String, ExportFile)>,
}

impl ArtifactFiles {
    fn new(export: PathBuf) -> ArtifactFiles {
        ArtifactFiles { export, files: Vec::new() }
    }

    fn append(&mut self, chunks: Vec<ArtifactChunk>) -> Result<()> {
        for chunk in chunks {
            let index = match self.files.iter().position(|(p, _)| *p == chunk.path) {
                Some(i) => i,
                None => {
                    let path = artifact_path(&self.export, &chunk.path)?;
                    self.files.push((chunk.path.clone(), ExportFile::create(&path)?));
                    self.files.len() - 1
                }
            };
            self.files[index].1.append(&chunk.bytes)?;
        }
        Ok(())
    }

    fn finish(self) -> Result<Vec<ArtifactEntry>> {
        self.files
            .into_iter()
            .map(|(path, file)| {
                let (sha256, size) = file.finish()?;
                Ok(ArtifactEntry { path, sha256, size })
            })
            .collect()
    }
}

/// sha256 and size of a file, read in pieces.
fn file_digest(path: &Path) -> Result<(String, u64)> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).map_err(|e| HostError::io(path, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut size = 0u64;
    loop {
        let n = file.read(&mut buf).map_err(|e| HostError::io(path, e))?;
        if n == 0 {
            return Ok((hex::encode(hasher.finalize()), size));
        }
        hasher.update(&buf[..n]);
        size += n as u64;
    }
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

/// Reads the written artifacts back with the target codec, taking every value
/// it finds off the source's multiset; returns the read-back's kinds.
fn read_back(
    catalog: &Catalog<'_>,
    codec: &CodecRecord,
    home: &Path,
    native_id: &str,
    source: &mut Essentials,
) -> Result<BTreeMap<String, u64>> {
    let discovery = catalog.instantiate(codec)?.discover(home)?;
    let session =
        discovery.sessions.into_iter().find(|s| s.native_id == native_id).ok_or_else(|| HostError::Codec {
            plugin: codec.id(),
            op: trajhost_runtime::error::Operation::Write,
            message: format!("wrote session {native_id} but cannot discover it in its own output"),
        })?;
    let mut stream =
        catalog.instantiate(codec)?.read(home, &session.locator, inventory::default_read_options())?.prefetched();
    source.sign = -1;
    let before = std::mem::take(&mut source.kinds);
    while let Some(batch) = stream.next_batch()? {
        source.add_document(&batch.records, &codec.id())?;
    }
    Ok(std::mem::replace(&mut source.kinds, before))
}

/// The hasher of the digest multiset: its keys are already sha256 prefixes,
/// so they are used as they are.
#[derive(Default)]
struct DigestKey(u64);

impl std::hash::Hasher for DigestKey {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

/// [`Essentials`] of the source, taken on a thread of their own from the
/// batches the writer is handed.
struct Digester {
    batches: std::sync::mpsc::SyncSender<std::sync::Arc<String>>,
    thread: std::thread::JoinHandle<Result<Essentials>>,
}

impl Digester {
    fn spawn(codec: String) -> Digester {
        let (batches, received) = std::sync::mpsc::sync_channel::<std::sync::Arc<String>>(0);
        let thread = std::thread::Builder::new()
            .name("fidelity-digest".into())
            .spawn(move || {
                let mut essentials = Essentials::default();
                for records in received {
                    essentials.add_document(&records, &codec)?;
                }
                Ok(essentials)
            })
            .expect("spawning a thread");
        Digester { batches, thread }
    }

    /// Hands over one batch; `false` once the digester has stopped on an error.
    fn add(&self, records: std::sync::Arc<String>) -> bool {
        self.batches.send(records).is_ok()
    }

    fn finish(self) -> Result<Essentials> {
        drop(self.batches);
        self.thread.join().map_err(|_| HostError::Trap {
            plugin: "fidelity-digest thread".into(),
            op: trajhost_runtime::error::Operation::Write,
            message: "the digest thread panicked".into(),
        })?
    }
}

/// The values a conversion must keep, as one multiset of 64-bit digests of
/// (category, value): a long session is compared without holding its text.
/// A digest is a sha256 prefix (two of a million values collide with odds of
/// about 1 in 3·10^7); 16 bytes an entry, not 24, for a 1 GB session.
/// The source adds (`sign` 1), the read-back takes away (`sign` -1); what
/// stays positive did not carry over. Also the record count per kind.
struct Essentials {
    /// digest → (count, category: an index into `CATEGORIES`)
    values: HashMap<u64, (i32, u8), std::hash::BuildHasherDefault<DigestKey>>,
    kinds: BTreeMap<String, u64>,
    sign: i32,
    /// The source's active context, for the portability gate.
    continuity: Continuity,
    /// Reused for each folded text.
    folded: Vec<u8>,
    /// The conversation's order: user and assistant texts, tool calls and
    /// results, as digests in the order they came, for the source
    /// (`sign` 1) and then the read-back.
    order: [Vec<Step>; 2],
}

/// One conversational value in order: its digest, and whether it is a tool
/// call or result (a run of those may be regrouped: parallel calls are
/// stored calls-then-results by some harnesses, call-result pairs by others).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Step {
    digest: u64,
    tool: bool,
    category: u8,
}

/// What in the source's main conversation a target cannot continue from:
/// tool calls never answered, and a last turn cut off by an interrupt.
#[derive(Default)]
struct Continuity {
    calls: HashMap<String, String>,
    results: std::collections::HashSet<String>,
    interrupted_at_end: bool,
}

/// Observation subtypes codecs use for a turn the user or the harness cut off.
const INTERRUPT_SUBTYPES: &[&str] = &["interrupt", "interrupted", "turn_aborted"];

impl Continuity {
    fn add(&mut self, body: &Body) {
        match body {
            Body::ToolCall { call_id, name, .. } => {
                self.calls.entry(call_id.clone()).or_insert_with(|| name.clone());
                self.interrupted_at_end = false;
            }
            Body::ToolResult { call_id, .. } => {
                self.results.insert(call_id.clone());
                self.interrupted_at_end = false;
            }
            Body::Observation { subtype, .. } if INTERRUPT_SUBTYPES.contains(&subtype.as_str()) => {
                self.interrupted_at_end = true;
            }
            Body::User { .. } | Body::Assistant(_) | Body::Compaction { .. } => self.interrupted_at_end = false,
            _ => {}
        }
    }

    /// The causes, as `code: detail`, in a stable order.
    fn causes(&self) -> Vec<String> {
        let mut open: Vec<(&String, &String)> =
            self.calls.iter().filter(|(id, _)| !self.results.contains(*id)).collect();
        open.sort();
        let mut causes: Vec<String> = open
            .into_iter()
            .map(|(id, name)| format!("tool-call-without-result: {name} ({id}) has no result"))
            .collect();
        if self.interrupted_at_end {
            causes.push("interrupted-turn: the last turn was interrupted mid-way".into());
        }
        causes
    }
}

/// Whether a category takes part in the order check, and if it is a tool step.
fn ordered(what: &str) -> Option<bool> {
    match what {
        "user text" | "assistant text" => Some(false),
        "tool call" | "tool result" => Some(true),
        _ => None,
    }
}

/// A step of the compared order: a text, or a run of tool steps.
#[derive(PartialEq, Eq)]
enum Segment {
    Value(Step),
    /// The run's digests summed (order-free) and its length.
    ToolRun {
        sum: u64,
        len: usize,
    },
}

fn segments<'a>(steps: impl Iterator<Item = &'a Step>) -> Vec<Segment> {
    let mut out = Vec::new();
    for step in steps {
        match (step.tool, out.last_mut()) {
            (true, Some(Segment::ToolRun { sum, len })) => {
                *sum = sum.wrapping_add(step.digest);
                *len += 1;
            }
            (true, _) => out.push(Segment::ToolRun { sum: step.digest, len: 1 }),
            (false, _) => out.push(Segment::Value(*step)),
        }
    }
    out
}

/// What a conversion must keep, as named in loss reports.
const CATEGORIES: &[&str] = &[
    "user text",
    "attachments",
    "assistant text",
    "usage",
    "tool call",
    "tool result",
    "reasoning text",
    "opaque reasoning",
    "system text",
    "compaction",
];

impl Default for Essentials {
    fn default() -> Self {
        Essentials {
            values: HashMap::default(),
            kinds: BTreeMap::new(),
            sign: 1,
            continuity: Continuity::default(),
            folded: Vec::new(),
            order: [Vec::new(), Vec::new()],
        }
    }
}

impl Essentials {
    fn add_document(&mut self, records: &str, codec: &str) -> Result<()> {
        for line in records.lines().filter(|l| !l.trim().is_empty()) {
            let record: Record = serde_json::from_str(line).map_err(|e| HostError::Codec {
                plugin: codec.to_string(),
                op: trajhost_runtime::error::Operation::Read,
                message: format!("returned a record that is not canonical JSON: {e}"),
            })?;
            self.add(&record);
        }
        Ok(())
    }

    fn push(&mut self, what: &'static str, value: &str) {
        let mut hasher = Sha256::new();
        hasher.update(what.as_bytes());
        hasher.update([0]);
        hasher.update(value.as_bytes());
        self.count(what, hasher);
    }

    /// [`push`](Self::push) of `text` with its whitespace runs folded to one
    /// space and trimmed, without building the folded string.
    fn push_words(&mut self, what: &'static str, text: &str) {
        let mut hasher = Sha256::new();
        hasher.update(what.as_bytes());
        hasher.update([0]);
        fold_whitespace(text, &mut self.folded, &mut |folded| hasher.update(folded));
        self.count(what, hasher);
    }

    fn count(&mut self, what: &'static str, hasher: Sha256) {
        let digest = hasher.finalize();
        let key = u64::from_le_bytes(digest[..8].try_into().expect("8 bytes"));
        if let Some(tool) = ordered(what) {
            let category = CATEGORIES.iter().position(|c| *c == what).unwrap_or(0) as u8;
            self.order[usize::from(self.sign < 0)].push(Step { digest: key, tool, category });
        }
        if self.sign > 0 {
            debug_assert!(CATEGORIES.contains(&what), "{what} is not in CATEGORIES");
            let category = CATEGORIES.iter().position(|c| *c == what).unwrap_or(0) as u8;
            self.values.entry(key).or_insert((0, category)).0 += 1;
        } else if let Some((count, _)) = self.values.get_mut(&key) {
            // Values only the target has are not losses.
            *count -= 1;
        }
    }

    /// Whether the read-back has the source's conversation in the source's
    /// order: both sequences, restricted to the values that carried over
    /// whole, must match, a run of tool calls and results compared as a
    /// multiset. A difference is the loss `reordered`, naming the first
    /// position (in the source's order of carried values) where they part.
    fn reordered(&self) -> Option<Loss> {
        let carried = |step: &Step| self.values.get(&step.digest).is_some_and(|(count, _)| *count <= 0);
        let source = segments(self.order[0].iter().filter(|s| carried(s)));
        let target = segments(self.order[1].iter().filter(|s| self.values.contains_key(&s.digest) && carried(s)));
        let at = source.iter().zip(&target).position(|(a, b)| a != b).or_else(|| {
            // One side ended early: a value carried whole but in a count the other lacks.
            (source.len() != target.len()).then(|| source.len().min(target.len()))
        })?;
        let name = |segment: Option<&Segment>| match segment {
            Some(Segment::Value(step)) => CATEGORIES[usize::from(step.category)].to_string(),
            Some(Segment::ToolRun { .. }) => "tool calls and results".to_string(),
            None => "nothing".to_string(),
        };
        Some(Loss {
            what: format!(
                "reordered: from step {} of the conversation, the source has {} where the target has {}",
                at + 1,
                name(source.get(at)),
                name(target.get(at))
            ),
            count: 1,
            found_by: "read-back".into(),
        })
    }

    /// What the source has that the read-back lacked, per category.
    fn missing(&self) -> Vec<Loss> {
        let mut per: BTreeMap<&'static str, u64> = BTreeMap::new();
        for (count, category) in self.values.values() {
            if *count > 0 {
                *per.entry(CATEGORIES[usize::from(*category)]).or_default() += *count as u64;
            }
        }
        per.into_iter()
            .map(|(what, count)| Loss { what: what.to_string(), count, found_by: "read-back".into() })
            .collect()
    }

    fn add(&mut self, r: &Record) {
        let kind = r.body.kind();
        match self.kinds.get_mut(kind) {
            Some(count) => *count += 1,
            None => {
                self.kinds.insert(kind.to_string(), 1);
            }
        }
        if r.agent.is_some() {
            return;
        }
        if self.sign > 0 {
            self.continuity.add(&r.body);
        }
        match &r.body {
            Body::User { text, attachments } => {
                if !text.trim().is_empty() {
                    self.push_words("user text", text);
                }
                for _ in attachments {
                    self.push("attachments", "");
                }
            }
            Body::Assistant(a) => {
                if !a.text.trim().is_empty() {
                    self.push_words("assistant text", &a.text);
                }
                if a.usage.is_some() {
                    self.push("usage", "");
                }
            }
            Body::ToolCall { name, arguments, .. } => {
                self.push("tool call", &format!("{name} {}", canonical_json(arguments)))
            }
            Body::ToolResult { content, .. } => self.push_words("tool result", content),
            Body::Reasoning(reasoning) => match &reasoning.text {
                Some(text) if !text.trim().is_empty() => self.push_words("reasoning text", text),
                _ => self.push("opaque reasoning", ""),
            },
            Body::System { text } => self.push_words("system text", text),
            Body::Compaction { summary, .. } => self.push_words("compaction", summary),
            Body::Meta(_) | Body::Observation { .. } => {}
        }
    }
}

/// `text`'s words joined by one space (`split_whitespace`), handed to
/// `sink` in pieces of about [`FOLD_PIECE`] bytes through `buf` (so a long
/// tool output is not copied whole): byte by byte when the text is ASCII,
/// the common case.
fn fold_whitespace(text: &str, buf: &mut Vec<u8>, sink: &mut dyn FnMut(&[u8])) {
    buf.clear();
    let mut started = false;
    let mut put = |buf: &mut Vec<u8>, bytes: &[u8]| {
        if bytes.len() >= FOLD_PIECE {
            // A long word goes straight through.
            sink(buf);
            buf.clear();
            sink(bytes);
            return;
        }
        buf.extend_from_slice(bytes);
        if buf.len() >= FOLD_PIECE {
            sink(buf);
            buf.clear();
        }
    };
    let mut word = |buf: &mut Vec<u8>, bytes: &[u8]| {
        if started {
            put(buf, b" ");
        }
        put(buf, bytes);
        started = true;
    };
    if text.is_ascii() {
        // char::is_whitespace on ASCII: \t \n \v(0x0b) \f \r and space.
        let words = text.as_bytes().split(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r'));
        for bytes in words.filter(|w| !w.is_empty()) {
            word(buf, bytes);
        }
    } else {
        for text in text.split_whitespace() {
            word(buf, text.as_bytes());
        }
    }
    if !buf.is_empty() {
        sink(buf);
        buf.clear();
    }
}

/// About the largest piece [`fold_whitespace`] hands over at once.
const FOLD_PIECE: usize = 64 << 10;

fn canonical_json(value: &serde_json::Value) -> String {
    // serde_json's Map is ordered by key (no preserve_order feature).
    match value {
        serde_json::Value::String(s) => {
            serde_json::from_str::<serde_json::Value>(s).map(|v| v.to_string()).unwrap_or_else(|_| s.clone())
        }
        other => other.to_string(),
    }
}

/// Loads an export directory's manifest and checks its artifacts' hashes.
pub fn load_export(dir: &Path) -> Result<(ExportManifest, Vec<ArtifactInfo>)> {
    let path = dir.join("export.json");
    let bytes = std::fs::read(&path).map_err(|e| HostError::io(&path, e))?;
    let manifest: ExportManifest =
        serde_json::from_slice(&bytes).map_err(|e| HostError::io(&path, format!("not an export manifest: {e}")))?;
    let mut artifacts = Vec::new();
    for entry in &manifest.artifacts {
        let file = artifact_path(dir, &entry.path)?;
        let (found, size) = file_digest(&file)?;
        if found != entry.sha256 {
            return Err(HostError::io(
                &file,
                format!("changed since export (sha256 {found}, expected {})", entry.sha256),
            ));
        }
        artifacts.push(ArtifactInfo { path: entry.path.clone(), size, sha256: found });
    }
    Ok((manifest, artifacts))
}

/// What `prepare` asks besides the export and the home.
#[derive(Debug, Clone, Default)]
pub struct PrepareRequest {
    /// `--model`, `--provider`, `--allow-untested`.
    pub choice: TargetChoice,
    /// `--target-version`.
    pub target_version: Option<String>,
    /// Run the target harness's CLI for its version (off with `--no-probe`).
    pub probe_cli: bool,
    /// `--codec HARNESS@CODEC_VERSION`: this writer, whatever the version.
    pub writer: Option<String>,
    /// `--redact`: the export is written again with secrets masked before
    /// it is installed.
    pub redaction: Option<trajhost_inventory::redaction::Redactor>,
    /// `--cwd`: the working directory the session resumes in, instead of
    /// the one the export was written for (a harness that keeps its history
    /// in the workspace, such as Aider, installs it there).
    pub cwd: Option<String>,
}

/// A planned install with what it was planned for.
pub struct PreparedInstall {
    pub planned: PlannedInstall,
    /// The target version the writer was chosen for, and where it came from.
    pub target_version: trajhost_inventory::target_version::TargetVersion,
    /// Whether the lab verified this writer with that version (the ledger),
    /// and the codec did not report the target as untested.
    pub verdict: trajhost_registry::ledger::Verdict,
    /// The export the plan installs: the given one, or a rewrite of it by
    /// another writer (kept alive in a private temp dir until the install).
    pub export_dir: PathBuf,
    pub artifacts: Vec<ArtifactInfo>,
    /// Set when the export was written again for the target's version.
    pub rewritten_from: Option<String>,
    /// The working directory the session was written for.
    pub cwd: Option<String>,
    _rewrite_dir: Option<tempfile::TempDir>,
}

/// Finds the version of the target harness that will resume the session,
/// picks the writer for it (writing the export again when it is another
/// codec than the one `convert` used), asks it for a plan and says whether
/// the install is verified.
pub fn prepare(catalog: &Catalog<'_>, export: &Path, home: &Path, request: &PrepareRequest) -> Result<PreparedInstall> {
    let (mut manifest, artifacts) = load_export(export)?;
    if let Some(cwd) = &request.cwd {
        manifest.cwd = Some(cwd.clone());
    }
    let harness = manifest.target.harness.clone();
    let probe = trajhost_inventory::target_version::Probe {
        explicit: request.target_version.as_deref(),
        recorded: manifest.target.native_version.as_deref(),
        run_cli: request.probe_cli,
    };
    let target_version = trajhost_inventory::target_version::detect(catalog, &harness, home, &probe);
    let mut writer = catalog
        .writer_for(
            &harness,
            target_version.version.as_deref(),
            target_version.layout.as_deref(),
            request.writer.as_deref(),
        )?
        .clone();
    // A version the home's newest session recorded can be older than its
    // store: a harness that migrated the store in place (Letta Code 0.32
    // rewrites 0.25's conversations) keeps the session's old version. The
    // layout the store is in now wins over it.
    if request.writer.is_none()
        && matches!(target_version.from, Some(trajhost_inventory::target_version::VersionSource::HomeSession { .. }))
        && let Some(layout) = target_version.layout.as_deref()
        && layout != writer.id()
        && let Some(layout_writer) =
            catalog.for_harness(&harness).into_iter().find(|c| c.id() == layout && !c.writes.is_empty())
    {
        tracing::info!(
            "{harness}: the home's newest session records {} but its store is in the layout of {layout}; writing that layout",
            target_version.version.as_deref().unwrap_or("?")
        );
        writer = layout_writer.clone();
    }
    let (manifest, artifacts, export_dir, rewrite_dir, rewritten_from) =
        if writer.id() == manifest.target.codec && request.redaction.is_none() {
            (manifest, artifacts, export.to_path_buf(), None, None)
        } else {
            let dir = tempfile::Builder::new()
                .prefix("trajhost-rewrite-")
                .tempdir()
                .map_err(|e| HostError::io(std::env::temp_dir(), e))?;
            let out = dir.path().join("export");
            tracing::info!("writing the export again with {} for {}", writer.id(), target_version.describe());
            rewrite(catalog, export, &manifest, &writer, request.redaction.as_ref(), &out)?;
            let (rewritten, artifacts) = load_export(&out)?;
            (rewritten, artifacts, out, Some(dir), Some(manifest.target.codec.clone()))
        };
    let planned = plan(catalog, &manifest, &artifacts, &export_dir, home, &request.choice)?;
    let mut verdict = trajhost_registry::ledger::verdict(&planned.codec, target_version.version.as_deref());
    if let Some(v) = target_version.version.as_deref().and_then(trajhost_registry::catalog::parse_native_version)
        && !planned.codec.writes_version(&v)
    {
        verdict.reason.push_str(&format!(
            " (no codec writes {harness} {v}: {} writes {}, the nearest)",
            planned.codec.id(),
            planned.codec.writer_range()
        ));
    }
    if let Some(u) = &planned.untested {
        verdict = trajhost_registry::ledger::Verdict {
            verified: false,
            reason: format!(
                "{} reports the target runs {}, and it was tested with {} only (--allow-untested)",
                planned.codec.id(),
                u.found.as_deref().unwrap_or("an unknown version"),
                u.tested
            ),
        };
    }
    Ok(PreparedInstall {
        planned,
        target_version,
        verdict,
        export_dir,
        cwd: manifest.cwd.clone(),
        artifacts,
        rewritten_from,
        _rewrite_dir: rewrite_dir,
    })
}

/// Asks the target codec how to install an export (the directory `export`)
/// into `home`.
pub fn plan(
    catalog: &Catalog<'_>,
    manifest: &ExportManifest,
    artifacts: &[ArtifactInfo],
    export: &Path,
    home: &Path,
    choice: &TargetChoice,
) -> Result<PlannedInstall> {
    let (harness, version) = manifest.target.codec.split_once('@').unwrap_or((&manifest.target.harness, ""));
    let codec = catalog
        .for_harness(harness)
        .into_iter()
        .find(|c| c.codec_version == version)
        .or_else(|| catalog.for_harness(harness).first().copied())
        .cloned()
        .ok_or_else(|| HostError::NoCodec(format!("no codec for {harness}")))?;
    let home = trajhost_install::resolve_home(home)?;
    let options = WriteOptions {
        cwd: manifest.cwd.clone(),
        native_id: Some(manifest.target.native_id.clone()),
        home_path: Some(home.display().to_string()),
    };
    // A choice given to prepare wins; otherwise the one made at convert time.
    let recorded = manifest.target_choice.as_ref();
    let mut effective = choice.clone();
    if !choice.names_something()
        && let Some(r) = recorded
    {
        effective.model = r.model.clone();
        effective.provider = r.provider.clone();
    }
    let mut instance = catalog.instantiate(&codec)?;
    instance.set_target_choice(effective.clone());
    let plan = instance.prepare(artifacts, &export.join("artifacts"), &home, &options)?;
    let applied_in_write =
        recorded.is_some_and(|r| r.applied_in_write && r.model == effective.model && r.provider == effective.provider);
    if effective.names_something() && !instance.target_choice_asked() && !applied_in_write {
        return Err(HostError::TargetChoice(format!(
            "codec {} does not take a model or provider choice, so {} cannot be applied; install without --model/--provider (a newer codec may support it)",
            codec.id(),
            describe_choice(&effective)
        )));
    }
    let untested = instance.untested_target();
    Ok(PlannedInstall { codec, plan, untested, choice: effective })
}

/// What `prepare` will install, and how sure it is.
pub struct PlannedInstall {
    pub codec: CodecRecord,
    pub plan: Plan,
    /// The target runs a version the codec was not tested with (allowed by
    /// `--allow-untested`): the install is not verified.
    pub untested: Option<Untested>,
    /// The model/provider the plan was made with.
    pub choice: TargetChoice,
}

fn describe_choice(choice: &TargetChoice) -> String {
    let mut parts = Vec::new();
    if let Some(m) = &choice.model {
        parts.push(format!("model {m:?}"));
    }
    if let Some(p) = &choice.provider {
        parts.push(format!("provider {p:?}"));
    }
    parts.join(" and ")
}

/// A codec's plan in the installer's terms. `copy-artifact` names an
/// artifact of the export (`export/artifacts/<artifact>`, listed in the
/// manifest and hash-checked by [`load_export`]).
pub fn install_plan(plan: Plan, export: &Path, artifacts: &[ArtifactInfo]) -> Result<InstallPlan> {
    use trajhost_capabilities::wit::latest::codec::Operation;
    use trajhost_capabilities::wit::latest::sqlite::Value as V;
    let value = |v: V| match v {
        V::Null => SqlValue::Null,
        V::Integer(i) => SqlValue::Integer(i),
        V::Real(f) => SqlValue::Real(f),
        V::Text(s) => SqlValue::Text(s),
        V::Blob(b) => SqlValue::Blob(b),
    };
    let rows = |rows: Vec<Vec<V>>| rows.into_iter().map(|row| row.into_iter().map(value).collect()).collect();
    let mut operations = Vec::with_capacity(plan.operations.len());
    for op in plan.operations {
        operations.push(match op {
            Operation::CreateFile(f) => InstallOp::CreateFile { path: f.path, bytes: f.bytes },
            Operation::CopyArtifact(c) => {
                if !artifacts.iter().any(|a| a.path == c.artifact) {
                    return Err(HostError::io(
                        export,
                        format!("the plan copies {:?}, which is not an artifact of this export", c.artifact),
                    ));
                }
                let file = artifact_path(export, &c.artifact)?;
                let source = std::fs::canonicalize(&file).map_err(|e| HostError::io(&file, e))?;
                InstallOp::CopyFile { source, path: c.path }
            }
            Operation::InsertRows(i) => {
                InstallOp::InsertRows { database: i.database, table: i.table, columns: i.columns, rows: rows(i.rows) }
            }
            Operation::CreateDatabase(d) => InstallOp::CreateDatabase {
                path: d.path,
                schema: d.schema,
                user_version: d.user_version,
                tables: d
                    .tables
                    .into_iter()
                    .map(|t| TableRows { table: t.table, columns: t.columns, rows: rows(t.rows) })
                    .collect(),
            },
            Operation::AddJsonEntry(j) => InstallOp::AddJsonEntry {
                path: j.path,
                pointer: j.pointer,
                key: j.key,
                match_member: j.match_member,
                value: j.value,
                initial: j.initial,
            },
            Operation::AppendFile(a) => InstallOp::AppendFile {
                path: a.path,
                bytes: a.bytes,
                expect_length: a.expect_length,
                expect_sha256: a.expect_sha256,
            },
        });
    }
    Ok(InstallPlan { native_id: plan.native_id, operations, resume_command: plan.resume_command })
}

#[cfg(test)]
mod tests {
    use super::{FOLD_PIECE, Fidelity, Loss, Tier, fold_whitespace};

    #[test]
    fn a_loss_declared_and_measured_is_one_group_in_report_order() {
        let loss = |what: &str, count, found_by: &str| Loss { what: what.into(), count, found_by: found_by.into() };
        let fidelity = Fidelity {
            tier: Tier::Semantic,
            not_carried: vec![
                loss("usage", 3, "target codec"),
                loss("reasoning", 1, "target codec"),
                loss("usage", 2, "read-back"),
            ],
            source_kinds: Default::default(),
            target_kinds: Default::default(),
        };
        let groups: Vec<(&str, Vec<(u64, &str)>)> = fidelity
            .losses_by_what()
            .into_iter()
            .map(|(what, found)| (what, found.iter().map(|l| (l.count, l.found_by.as_str())).collect()))
            .collect();
        assert_eq!(
            groups,
            [("usage", vec![(3, "target codec"), (2, "read-back")]), ("reasoning", vec![(1, "target codec")])]
        );
    }

    #[test]
    fn folding_whitespace_matches_split_whitespace() {
        let long = "word  ".repeat(30_000) + "é";
        let one_word = "é".repeat(100_000) + " x";
        let mut buf = Vec::new();
        let texts = [
            "",
            "  ",
            "a",
            " a  b\t\nc ",
            "x\x0b\x0cy\r",
            "café  ü\u{3000}日本 ",
            "a\u{a0}b",
            "\u{2028}z",
            &long,
            &long[..long.len() - 2],
            &one_word,
        ];
        for text in texts {
            let mut out = Vec::new();
            fold_whitespace(text, &mut buf, &mut |piece| out.extend_from_slice(piece));
            assert_eq!(
                String::from_utf8(out).unwrap(),
                text.split_whitespace().collect::<Vec<_>>().join(" "),
                "{text:?}"
            );
            assert!(buf.capacity() <= 2 * FOLD_PIECE, "the fold buffer stays small");
        }
    }

    mod order {
        use super::super::Essentials;

        fn line(kind: &str, n: usize) -> String {
            match kind {
                "user" => format!(r#"{{"id":"u{n}","kind":"user","text":"question {n}"}}"#),
                "assistant" => format!(r#"{{"id":"a{n}","kind":"assistant","text":"answer {n}"}}"#),
                "call" => format!(
                    r#"{{"id":"c{n}","kind":"tool_call","call_id":"t{n}","name":"bash","arguments":{{"command":"cat {n}"}}}}"#
                ),
                "result" => {
                    format!(r#"{{"id":"r{n}","kind":"tool_result","call_id":"t{n}","content":"output {n}","ok":true}}"#)
                }
                _ => unreachable!(),
            }
        }

        fn document(steps: &[(&str, usize)]) -> String {
            steps.iter().map(|(k, n)| line(k, *n) + "\n").collect()
        }

        /// The loss list of a source read back as `target`.
        fn compare(source: &[(&str, usize)], target: &[(&str, usize)]) -> Vec<String> {
            let mut e = Essentials::default();
            e.add_document(&document(source), "test").unwrap();
            e.sign = -1;
            e.add_document(&document(target), "test").unwrap();
            e.missing().into_iter().chain(e.reordered()).map(|l| l.what).collect()
        }

        const TURN: &[(&str, usize)] = &[("user", 1), ("call", 1), ("result", 1), ("assistant", 1), ("user", 2)];

        #[test]
        fn the_same_order_is_no_loss() {
            assert!(compare(TURN, TURN).is_empty());
        }

        #[test]
        fn an_answer_before_its_tool_call_is_reordered() {
            let swapped = [("user", 1), ("assistant", 1), ("call", 1), ("result", 1), ("user", 2)];
            let losses = compare(TURN, &swapped);
            assert_eq!(losses.len(), 1, "{losses:?}");
            assert!(
                losses[0].starts_with("reordered: from step 2 of the conversation, the source has tool calls and results where the target has assistant text"),
                "{losses:?}"
            );
        }

        #[test]
        fn a_result_before_its_call_is_no_reordering_of_the_conversation_but_two_turns_swapped_is() {
            // Parallel calls regrouped (calls then results, or pairs) keep the conversation's order.
            let parallel = [("user", 1), ("call", 1), ("call", 2), ("result", 1), ("result", 2), ("assistant", 1)];
            let paired = [("user", 1), ("call", 1), ("result", 1), ("call", 2), ("result", 2), ("assistant", 1)];
            assert!(compare(&parallel, &paired).is_empty());
            let turns = [("user", 2), ("user", 1), ("call", 1), ("result", 1), ("assistant", 1)];
            assert!(
                compare(TURN, &turns).iter().any(|l| l.starts_with("reordered: from step 1")),
                "{:?}",
                compare(TURN, &turns)
            );
        }

        #[test]
        fn a_lost_value_is_named_once_and_not_as_a_reordering() {
            let without = [("user", 1), ("call", 1), ("result", 1), ("user", 2)];
            assert_eq!(compare(TURN, &without), vec!["assistant text".to_string()]);
        }
    }
}
