//! The plugin registry: installed codecs stored content-addressed by sha256,
//! with an index keyed by (harness, codec version), changed atomically and
//! under a lock.
//!
//! Layout under the trajhost data directory:
//!
//! ```text
//! plugins/blobs/sha256/<hex>.wasm   immutable component bytes
//! plugins/index.json                one entry per installed (harness, version)
//! plugins/lock                      held while the index changes
//! cache/wasmtime-<ver>/<engine>/    compiled components (see runtime::cache)
//! ```

pub mod builtin;
pub mod catalog;
pub mod conformance;
pub mod ledger;
pub mod remote;
pub mod scaffold;
pub mod uncovered;

/// The trajhost data directory: `$TRAJHOST_HOME`, else
/// `$XDG_DATA_HOME/trajhost`, else `~/.local/share/trajhost`.
pub fn default_data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("TRAJHOST_HOME") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_DATA_HOME") {
        return PathBuf::from(dir).join("trajhost");
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    home.join(".local").join("share").join("trajhost")
}

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use trajhost_capabilities::wit::latest::codec::CodecInfo;
use trajhost_runtime::Runtime;
use trajhost_runtime::error::{HostError, Result};

/// Where a codec comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CodecSource {
    /// Compiled from `plugins/` into this binary.
    Builtin,
    /// Installed with `trajhost plugin install`.
    Installed { from: PathBuf, installed_at: String },
}

/// Everything the host knows about one codec without running it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodecRecord {
    pub harness: String,
    pub codec_version: String,
    pub native_versions: String,
    pub native_version_source: String,
    pub reads: Vec<String>,
    pub writes: Vec<String>,
    pub session_globs: Vec<String>,
    pub canonical_schema: String,
    /// The `trajhost:codec` API version the component exports.
    pub api: String,
    /// The SDK that built it, from its `trajhost:sdk` section, if any.
    pub sdk: Option<String>,
    /// The native versions its writer writes for, from its
    /// `trajhost:writes-for` section; `None`: those it reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writes_for: Option<String>,
    pub sha256: String,
    pub size: u64,
    pub source: CodecSource,
    /// The OCI reference it was installed from (`plugin install oci://…`);
    /// absent in index files written before references existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
}

/// Where an installed codec was pulled from, and who signed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// `oci://REGISTRY/REPOSITORY:TAG` as given (or `…@sha256:…`).
    pub reference: String,
    /// The manifest's digest, `sha256:…`.
    pub digest: String,
    /// `signed by NAME (ed25519:…)`, or `unsigned (--allow-unsigned)`.
    pub signature: String,
}

impl CodecRecord {
    /// `harness@version`.
    pub fn id(&self) -> String {
        format!("{}@{}", self.harness, self.codec_version)
    }

    pub fn version(&self) -> semver::Version {
        semver::Version::parse(&self.codec_version).unwrap_or_else(|_| semver::Version::new(0, 0, 0))
    }

    /// Whether this codec's native range covers `native` (a prerelease of a
    /// covered version is covered, as `plugin test` checks).
    pub fn covers(&self, native: &semver::Version) -> bool {
        semver::VersionReq::parse(&self.native_versions)
            .map(|req| crate::conformance::version_in_range(&req, native))
            .unwrap_or(false)
    }

    /// Whether this codec writes, and its writer's range covers `native`.
    pub fn writes_version(&self, native: &semver::Version) -> bool {
        !self.writes.is_empty()
            && semver::VersionReq::parse(self.writer_range())
                .map(|req| crate::conformance::version_in_range(&req, native))
                .unwrap_or(false)
    }

    /// The semver range of native versions the writer writes for.
    pub fn writer_range(&self) -> &str {
        self.writes_for.as_deref().unwrap_or(&self.native_versions)
    }

    pub(crate) fn from_info(
        info: CodecInfo,
        api: String,
        sections: Sections,
        sha256: String,
        size: u64,
        source: CodecSource,
    ) -> CodecRecord {
        CodecRecord {
            harness: info.harness,
            codec_version: info.codec_version,
            native_versions: info.native_versions,
            native_version_source: info.native_version_source,
            reads: info.reads,
            writes: info.writes,
            session_globs: info.session_globs,
            canonical_schema: info.canonical_schema,
            api,
            sdk: sections.sdk,
            writes_for: sections.writes_for,
            sha256,
            size,
            source,
            origin: None,
        }
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Index {
    format: u32,
    codecs: Vec<CodecRecord>,
}

/// Result of `install`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Installed {
    New(CodecRecord),
    /// The same bytes were already installed under this (harness, version).
    AlreadyPresent(CodecRecord),
    /// `--force` replaced different bytes under the same (harness, version).
    Replaced(CodecRecord),
}

/// The outcome of re-hashing one blob.
#[derive(Debug, Clone, Serialize)]
pub struct Verification {
    pub codec: String,
    pub path: PathBuf,
    pub status: VerifyStatus,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum VerifyStatus {
    Ok,
    Tampered { found: String },
    Missing,
}

/// The on-disk registry.
pub struct Registry {
    root: PathBuf,
}

pub use trajhost_install::sha256_hex;

impl Registry {
    /// The registry under a trajhost data directory.
    pub fn new(data_dir: &Path) -> Registry {
        Registry { root: data_dir.to_path_buf() }
    }

    /// The trajhost data directory this registry lives in.
    pub fn data_dir(&self) -> &Path {
        &self.root
    }

    pub fn cache_dir(&self) -> PathBuf {
        self.root.join("cache")
    }

    fn plugins_dir(&self) -> PathBuf {
        self.root.join("plugins")
    }

    fn index_path(&self) -> PathBuf {
        self.plugins_dir().join("index.json")
    }

    /// Where the blob of `sha256` lives.
    pub fn blob_path(&self, sha256: &str) -> PathBuf {
        self.plugins_dir().join("blobs").join("sha256").join(format!("{sha256}.wasm"))
    }

    fn registry_error(&self, message: impl std::fmt::Display) -> HostError {
        HostError::Registry { path: self.plugins_dir(), message: message.to_string() }
    }

    /// Installed codecs.
    pub fn installed(&self) -> Result<Vec<CodecRecord>> {
        Ok(self.read_index()?.codecs)
    }

    fn read_index(&self) -> Result<Index> {
        let path = self.index_path();
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| HostError::Registry { path: path.clone(), message: format!("unreadable index: {e}") }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Index { format: 1, codecs: Vec::new() }),
            Err(e) => Err(HostError::io(&path, e)),
        }
    }

    fn write_index(&self, index: &Index) -> Result<()> {
        let path = self.index_path();
        let bytes = serde_json::to_vec_pretty(index).map_err(|e| self.registry_error(e))?;
        write_atomically(&path, &bytes)
    }

    /// Holds the registry lock until dropped.
    fn lock(&self) -> Result<std::fs::File> {
        let dir = self.plugins_dir();
        std::fs::create_dir_all(&dir).map_err(|e| HostError::io(&dir, e))?;
        let path = dir.join("lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| HostError::io(&path, e))?;
        file.lock().map_err(|e| HostError::io(&path, e))?;
        // Every writer of these directories holds the lock: a temporary file
        // found now was left by a killed process.
        trajhost_install::remove_stale_temps(&dir, std::time::Duration::ZERO);
        trajhost_install::remove_stale_temps(&dir.join("blobs").join("sha256"), std::time::Duration::ZERO);
        Ok(file)
    }

    /// Validates and installs a component file.
    pub fn install(&self, runtime: &Runtime, file: &Path, force: bool) -> Result<Installed> {
        let _lock = self.lock()?;
        let name = file.display().to_string();
        let meta = std::fs::metadata(file).map_err(|e| HostError::io(file, e))?;
        let max = runtime.limits().max_component_bytes;
        if meta.len() as usize > max {
            return Err(HostError::InvalidComponent {
                component: name,
                message: format!("{} bytes is larger than the {max}-byte limit", meta.len()),
            });
        }
        let bytes = std::fs::read(file).map_err(|e| HostError::io(file, e))?;
        let from = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
        self.install_locked(runtime, bytes, &name, from, None, force)
    }

    /// Validates and installs a component pulled from a registry: the same
    /// checks as [`Registry::install`]; the record remembers `origin`.
    pub fn install_pulled(&self, runtime: &Runtime, bytes: Vec<u8>, origin: Origin, force: bool) -> Result<Installed> {
        let _lock = self.lock()?;
        let name = origin.reference.clone();
        let from = PathBuf::from(&origin.reference);
        self.install_locked(runtime, bytes, &name, from, Some(origin), force)
    }

    /// What a component is, validated as an install validates it, without
    /// installing it (`plugin publish` annotates the artifact with it).
    pub fn describe(runtime: &Runtime, bytes: &[u8], name: &str, from: PathBuf) -> Result<CodecRecord> {
        let max = runtime.limits().max_component_bytes;
        if bytes.len() > max {
            return Err(HostError::InvalidComponent {
                component: name.into(),
                message: format!("{} bytes is larger than the {max}-byte limit", bytes.len()),
            });
        }
        let component = runtime.compile(bytes, name)?;
        let api = runtime.check_component(&component, name)?;
        let loaded = runtime.prepare(&component, name)?;
        let info = loaded.instantiate(runtime)?.info()?;
        validate_info(&info, name)?;
        let source = CodecSource::Installed { from, installed_at: trajhost_canonical::time::now_rfc3339() };
        Ok(CodecRecord::from_info(
            info,
            api.to_string(),
            sections(bytes),
            sha256_hex(bytes),
            bytes.len() as u64,
            source,
        ))
    }

    fn install_locked(
        &self,
        runtime: &Runtime,
        bytes: Vec<u8>,
        name: &str,
        from: PathBuf,
        origin: Option<Origin>,
        force: bool,
    ) -> Result<Installed> {
        let max = runtime.limits().max_component_bytes;
        if bytes.len() > max {
            return Err(HostError::InvalidComponent {
                component: name.into(),
                message: format!("{} bytes is larger than the {max}-byte limit", bytes.len()),
            });
        }
        let sha256 = sha256_hex(&bytes);
        let component = runtime.compile(&bytes, name)?;
        let api = runtime.check_component(&component, name)?;
        let loaded = runtime.prepare(&component, name)?;
        let info = loaded.instantiate(runtime)?.info()?;
        validate_info(&info, name)?;
        let source = CodecSource::Installed { from, installed_at: trajhost_canonical::time::now_rfc3339() };
        let mut record =
            CodecRecord::from_info(info, api.to_string(), sections(&bytes), sha256.clone(), bytes.len() as u64, source);
        record.origin = origin;

        let mut index = self.read_index()?;
        let existing =
            index.codecs.iter().position(|c| c.harness == record.harness && c.codec_version == record.codec_version);
        if let Some(i) = existing {
            if index.codecs[i].sha256 == sha256 {
                // The same bytes from a registry now: remember where from.
                if record.origin.is_some() && index.codecs[i].origin != record.origin {
                    index.codecs[i].origin = record.origin.clone();
                    index.codecs[i].source = record.source.clone();
                    self.write_index(&index)?;
                }
                return Ok(Installed::AlreadyPresent(index.codecs[i].clone()));
            }
            if !force {
                return Err(self.registry_error(format!(
                    "{} is already installed with different contents (sha256 {}); use --force to replace it",
                    record.id(),
                    index.codecs[i].sha256
                )));
            }
        }
        // Order: blob, compiled code, then the index that refers to them. A
        // kill before the index leaves at most an unreferenced complete blob
        // (content-addressed, reused by the next install).
        let blob = self.blob_path(&sha256);
        let intact = std::fs::read(&blob).is_ok_and(|existing| sha256_hex(&existing) == sha256);
        if !intact {
            trajhost_install::write_replacing(&blob, &bytes, Some(0o444)).map_err(|e| HostError::io(&blob, e))?;
        }
        trajhost_install::pause_point("plugin-blob-written");
        runtime.precompile(&component, &sha256)?;
        let outcome = match existing {
            Some(i) => {
                index.codecs[i] = record.clone();
                Installed::Replaced(record)
            }
            None => {
                index.codecs.push(record.clone());
                Installed::New(record)
            }
        };
        index.format = 1;
        trajhost_install::pause_point("plugin-index");
        self.write_index(&index)?;
        trajhost_install::pause_point("plugin-installed");
        Ok(outcome)
    }

    /// Removes `harness@version`; the blob goes when nothing refers to it.
    pub fn remove(&self, harness: &str, version: &str) -> Result<CodecRecord> {
        let _lock = self.lock()?;
        let mut index = self.read_index()?;
        let Some(i) = index.codecs.iter().position(|c| c.harness == harness && c.codec_version == version) else {
            let installed: Vec<String> = index.codecs.iter().map(CodecRecord::id).collect();
            return Err(self.registry_error(format!(
                "{harness}@{version} is not installed (installed: {})",
                if installed.is_empty() { "none".into() } else { installed.join(", ") }
            )));
        };
        let removed = index.codecs.remove(i);
        self.write_index(&index)?;
        if !index.codecs.iter().any(|c| c.sha256 == removed.sha256) {
            let blob = self.blob_path(&removed.sha256);
            if let Err(e) = std::fs::remove_file(&blob) {
                tracing::warn!("cannot remove {}: {e}", blob.display());
            }
        }
        Ok(removed)
    }

    /// Re-hashes every installed blob.
    pub fn verify(&self) -> Result<Vec<Verification>> {
        let mut out = Vec::new();
        for record in self.installed()? {
            let path = self.blob_path(&record.sha256);
            let status = match std::fs::read(&path) {
                Ok(bytes) => {
                    let found = sha256_hex(&bytes);
                    if found == record.sha256 { VerifyStatus::Ok } else { VerifyStatus::Tampered { found } }
                }
                Err(_) => VerifyStatus::Missing,
            };
            out.push(Verification { codec: record.id(), path, status });
        }
        Ok(out)
    }

    /// The bytes of an installed codec, refused when they no longer match
    /// the recorded hash.
    pub fn read_blob(&self, record: &CodecRecord) -> Result<Vec<u8>> {
        let path = self.blob_path(&record.sha256);
        let bytes = std::fs::read(&path).map_err(|e| HostError::io(&path, e))?;
        let found = sha256_hex(&bytes);
        if found != record.sha256 {
            return Err(HostError::Tampered { path, expected: record.sha256.clone(), found });
        }
        Ok(bytes)
    }
}

fn validate_info(info: &CodecInfo, component: &str) -> Result<()> {
    let bad = |message: String| Err(HostError::InvalidComponent { component: component.into(), message });
    if info.harness.is_empty()
        || !info.harness.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return bad(format!("harness id {:?} must be lowercase letters, digits and '-'", info.harness));
    }
    if let Err(e) = semver::Version::parse(&info.codec_version) {
        return bad(format!("codec version {:?} is not semver: {e}", info.codec_version));
    }
    if let Err(e) = semver::VersionReq::parse(&info.native_versions) {
        return bad(format!("native version range {:?} is not a semver range: {e}", info.native_versions));
    }
    Ok(())
}

/// What a component says of itself in its `trajhost:*` custom sections.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sections {
    /// `trajhost:sdk`: `sdk=X;api=Y`.
    pub sdk: Option<String>,
    /// `trajhost:writes-for`: a semver range (an empty section counts as none).
    pub writes_for: Option<String>,
}

/// The `trajhost:*` custom sections, wherever they sit in the component.
/// Function bodies are stepped over, not parsed: every command asks this of
/// each built-in, and reading their code would bring all of it into memory
/// (about 16 MiB of a process's peak).
pub fn sections(bytes: &[u8]) -> Sections {
    use wasmparser::{Chunk, Parser, Payload};
    let mut found = Sections::default();
    let mut parser = Parser::new(0);
    let mut outer: Vec<Parser> = Vec::new();
    let mut data = bytes;
    loop {
        let Ok(Chunk::Parsed { consumed, payload }) = parser.parse(data, true) else { return found };
        let Some(rest) = data.get(consumed..) else { return found };
        data = rest;
        match payload {
            Payload::CustomSection(section) if section.name() == "trajhost:sdk" => {
                found.sdk = Some(String::from_utf8_lossy(section.data()).into_owned());
            }
            Payload::CustomSection(section) if section.name() == "trajhost:writes-for" => {
                let range = String::from_utf8_lossy(section.data()).trim().to_string();
                found.writes_for = (!range.is_empty()).then_some(range);
            }
            Payload::CodeSectionStart { size, .. } => {
                parser.skip_section();
                let Some(rest) = data.get(size as usize..) else { return found };
                data = rest;
            }
            Payload::ModuleSection { parser: inner, .. } | Payload::ComponentSection { parser: inner, .. } => {
                outer.push(std::mem::replace(&mut parser, inner));
            }
            Payload::End(_) => match outer.pop() {
                Some(enclosing) => parser = enclosing,
                None => return found,
            },
            _ => {}
        }
    }
}

/// Writes `path` whole or not at all: a temporary name beside it, fsync,
/// rename over the old file, fsync of the directory. A kill leaves the old
/// file (or none), never a torn one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    trajhost_install::write_replacing(path, bytes, None).map_err(|e| HostError::io(path, e))
}

#[cfg(test)]
mod sections_tests {
    use super::sections;

    /// Every section, the slow way: each payload of every nested module.
    fn by_full_parse(bytes: &[u8], name: &str) -> Option<String> {
        wasmparser::Parser::new(0).parse_all(bytes).find_map(|payload| match payload {
            Ok(wasmparser::Payload::CustomSection(s)) if s.name() == name => {
                Some(String::from_utf8_lossy(s.data()).into_owned()).filter(|s| !s.is_empty())
            }
            _ => None,
        })
    }

    #[test]
    fn the_sections_are_found_without_parsing_code() {
        for builtin in crate::builtin::BUILTIN_CODECS {
            let found = sections(builtin.wasm);
            assert!(found.sdk.as_deref().is_some_and(|s| s.starts_with("sdk=")), "{}: {found:?}", builtin.package);
            assert_eq!(found.sdk, by_full_parse(builtin.wasm, "trajhost:sdk"), "{}", builtin.package);
            assert_eq!(found.writes_for, by_full_parse(builtin.wasm, "trajhost:writes-for"), "{}", builtin.package);
        }
        assert_eq!(sections(b"not wasm"), super::Sections::default());
        assert_eq!(sections(&[]), super::Sections::default());
    }
}
