//! A session folder as Vibe stores it, and the checks Vibe makes when it
//! loads one.
//!
//! `CURRENT` names the generation and its manifest's digest; the manifest
//! names each part's file (`path`, `sha256`) and, for the checkpoint and
//! the projection, the ordered chunks whose concatenated arrays fill the
//! part's transcript (the part file holds that list empty). Every stored
//! JSON file is RFC 8785 (JCS) bytes plus `"\n"`, and every digest is the
//! sha256 of the JCS bytes ([`trajhost_codec_sdk::jcs`]). A chunk whose
//! bytes do not give its name is what Vibe refuses ("stored chunk digest
//! mismatch"): reading reports it.

use serde::Deserialize;
use serde_json::Value;
use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::hash::sha256_hex;

use crate::layout::{self, CHUNKS, GENERATIONS, META, join};

/// Largest stored file read (a chunk holds at least one whole item).
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// `CURRENT`.
#[derive(Debug, Clone, Deserialize)]
pub struct Current {
    pub store_format: Option<String>,
    pub store_format_minor: Option<u64>,
    pub session_id: String,
    pub generation: String,
    pub snapshot_sequence: Option<u64>,
    pub manifest_sha256: String,
}

/// A part of a generation (`checkpoint`, `projection_state`,
/// `runtime_state`).
#[derive(Debug, Clone, Deserialize)]
pub struct Part {
    pub path: String,
    pub sha256: String,
    #[serde(default)]
    pub chunks: Option<Vec<String>>,
}

/// `generations/<seq>/manifest.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct Manifest {
    pub checkpoint: Part,
    pub projection_state: Part,
    pub runtime_state: Part,
}

/// `meta.json` (written indented by Python, not content-addressed).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct MetaFile {
    pub session_id: Option<String>,
    pub start_time: Option<String>,
    pub end_time: Option<String>,
    pub environment: Option<Environment>,
    pub title: Option<String>,
    pub config: Option<Config>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Environment {
    pub working_directory: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Config {
    pub active_model: Option<String>,
    pub model_name: Option<String>,
}

/// One chunk of the checkpoint: its path (under the home), its bytes, and
/// whether they give its name.
#[derive(Debug)]
pub struct Chunk {
    pub path: String,
    pub bytes: Vec<u8>,
    pub digest_ok: bool,
}

/// A session folder, loaded as far as reading needs: the pointer, the
/// current generation's manifest, the checkpoint's chunks, `meta.json`.
#[derive(Debug)]
pub struct Session {
    /// The session folder, relative to the home.
    pub folder: String,
    pub current: Current,
    pub manifest: Manifest,
    pub meta: MetaFile,
    /// The working directory the runtime state records.
    pub runtime_cwd: Option<String>,
    /// Files whose digests are not what the store names (manifest, parts).
    pub mismatches: Vec<String>,
}

/// The stored bytes of a JSON file: its content without the final "\n".
pub fn body(bytes: &[u8]) -> &[u8] {
    bytes.strip_suffix(b"\n").unwrap_or(bytes)
}

fn read(home: &Dir, path: &str) -> Result<Vec<u8>, CodecError> {
    trajhost_codec_sdk::errors::read_document(home, path, MAX_FILE_BYTES)
}

fn parse<T: for<'a> Deserialize<'a>>(path: &str, bytes: &[u8], what: &str) -> Result<T, CodecError> {
    serde_json::from_slice(body(bytes)).map_err(|e| CodecError::Malformed(format!("{path}: not {what} ({e})")))
}

/// Parses `CURRENT`'s bytes; an error says why they are not a pointer.
pub fn parse_current(bytes: &[u8]) -> Result<Current, String> {
    let current: Current = serde_json::from_slice(body(bytes)).map_err(|e| format!("not a session pointer ({e})"))?;
    if current.store_format.as_deref().is_some_and(|f| f != layout::STORE_FORMAT) {
        return Err(format!("store format {:?}, not {}", current.store_format, layout::STORE_FORMAT));
    }
    if !trajhost_codec_sdk::paths::plain_name(&current.generation) {
        return Err(format!("generation {:?} is not a folder name", current.generation));
    }
    Ok(current)
}

impl Session {
    /// Loads the session whose `CURRENT` is `locator`.
    pub fn load(home: &Dir, locator: &str) -> Result<Session, CodecError> {
        let folder = layout::folder_of(locator)?.to_string();
        let bytes = read(home, locator)?;
        let current = parse_current(&bytes).map_err(|why| CodecError::Malformed(format!("{locator}: {why}")))?;
        let generation = join(&join(&folder, GENERATIONS), &current.generation);
        let manifest_path = join(&generation, "manifest.json");
        let manifest_bytes = read(home, &manifest_path)?;
        let manifest: Manifest = parse(&manifest_path, &manifest_bytes, "a generation manifest")?;
        let mut mismatches = Vec::new();
        if sha256_hex(body(&manifest_bytes)) != current.manifest_sha256 {
            mismatches.push(manifest_path.clone());
        }
        for part in [&manifest.checkpoint, &manifest.projection_state, &manifest.runtime_state] {
            if !trajhost_codec_sdk::paths::plain_name(&part.path) {
                return Err(CodecError::Malformed(format!(
                    "{manifest_path}: part path {:?} is not a file name",
                    part.path
                )));
            }
        }
        let runtime_path = join(&generation, &manifest.runtime_state.path);
        let runtime_cwd = match read(home, &runtime_path) {
            Ok(bytes) => {
                if sha256_hex(body(&bytes)) != manifest.runtime_state.sha256 {
                    mismatches.push(runtime_path.clone());
                }
                serde_json::from_slice::<Value>(body(&bytes))
                    .ok()
                    .and_then(|v| v.pointer("/session_metadata/cwd")?.as_str().map(str::to_string))
            }
            Err(_) => None,
        };
        let checkpoint_path = join(&generation, &manifest.checkpoint.path);
        if let Ok(bytes) = read(home, &checkpoint_path)
            && sha256_hex(body(&bytes)) != manifest.checkpoint.sha256
        {
            mismatches.push(checkpoint_path);
        }
        let meta_path = join(&folder, META);
        let meta = match read(home, &meta_path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_default(),
            Err(_) => MetaFile::default(),
        };
        Ok(Session { folder, current, manifest, meta, runtime_cwd, mismatches })
    }

    /// The session id (`CURRENT`'s `session_id`).
    pub fn id(&self) -> &str {
        &self.current.session_id
    }

    /// The path of a checkpoint chunk under the home.
    pub fn chunk_path(&self, digest: &str) -> String {
        join(&join(&self.folder, CHUNKS), &format!("{digest}.json"))
    }

    /// The checkpoint's chunks, in order, read and checked.
    pub fn checkpoint_chunks(&self, home: &Dir) -> Result<Vec<Chunk>, CodecError> {
        let mut out = Vec::new();
        for digest in self.manifest.checkpoint.chunks.iter().flatten() {
            let path = self.chunk_path(digest);
            if !digest.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(CodecError::Malformed(format!("{path}: chunk name is not a sha256")));
            }
            let bytes = read(home, &path)?;
            let digest_ok = sha256_hex(body(&bytes)) == *digest;
            out.push(Chunk { path, bytes, digest_ok });
        }
        Ok(out)
    }

    /// The working directory: `meta.json`'s, else the runtime state's.
    pub fn cwd(&self) -> Option<String> {
        self.meta
            .environment
            .as_ref()
            .and_then(|e| e.working_directory.clone())
            .or_else(|| self.runtime_cwd.clone())
            .filter(|c| !c.is_empty())
    }

    /// The model's name as the provider knows it (`meta.json`'s
    /// `config.model_name`).
    pub fn model(&self) -> Option<String> {
        self.meta.config.as_ref()?.model_name.clone().filter(|m| !m.is_empty())
    }
}
