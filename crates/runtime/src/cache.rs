//! Compiled components on disk, keyed by the wasm's sha256 and the engine's
//! compatibility hash, so a warm load never recompiles.
//!
//! Deserializing compiled code is `unsafe` in wasmtime because the bytes are
//! trusted to be machine code wasmtime wrote. Only trajhost writes this
//! directory (created 0700), files are written to a temporary name beside
//! their target, fsynced and renamed (never modified in place), so a kill
//! leaves the previous file or none, never a torn one; a file that still
//! does not deserialize is recompiled and replaced, and temporary files a
//! killed process left are removed. A `.cwasm` from anywhere else is never
//! accepted.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use wasmtime::Engine;
use wasmtime::component::Component;

use super::Mode;
use crate::error::{HostError, Result};

/// How a component was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadKind {
    /// Deserialized from the cache: no compilation.
    CacheHit,
    /// Compiled (and stored in the cache when there is one).
    Compiled,
}

/// The cache directory of one engine configuration.
pub struct CompiledCache {
    dir: PathBuf,
}

impl CompiledCache {
    pub fn new(root: &Path, engine: &Engine, mode: Mode) -> CompiledCache {
        let mut hasher = std::hash::DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut hasher);
        let suffix = if mode == Mode::Metered { "-fuel" } else { "" };
        let dir =
            root.join(format!("wasmtime-{}{suffix}", wasmtime_version())).join(format!("{:016x}", hasher.finish()));
        CompiledCache { dir }
    }

    /// A small JSON document kept beside a compiled component (the codec's
    /// `info`, so listing built-ins needs no instantiation).
    pub fn read_note(&self, sha256: &str) -> Option<Vec<u8>> {
        std::fs::read(self.dir.join(format!("{sha256}.info.json"))).ok()
    }

    pub fn write_note(&self, sha256: &str, bytes: &[u8]) -> Result<()> {
        create_private_dir(&self.dir)?;
        let path = self.dir.join(format!("{sha256}.info.json"));
        trajhost_install::write_replacing(&path, bytes, None).map_err(|e| HostError::io(&path, e))
    }

    /// Where the compiled form of `sha256` lives.
    pub fn path_of(&self, sha256: &str) -> PathBuf {
        self.dir.join(format!("{sha256}.cwasm"))
    }

    pub fn load_or_compile(
        &self,
        engine: &Engine,
        bytes: &[u8],
        sha256: &str,
        name: &str,
    ) -> Result<(Component, LoadKind)> {
        let path = self.path_of(sha256);
        if path.exists() {
            // SAFETY: the file was written by `store` below from a component
            // this engine compiled; see the module comment.
            match unsafe { Component::deserialize_file(engine, &path) } {
                Ok(component) => return Ok((component, LoadKind::CacheHit)),
                Err(error) => tracing::warn!(path = %path.display(), "recompiling: cached code unusable: {error}"),
            }
        }
        let component = Component::new(engine, bytes)
            .map_err(|e| HostError::InvalidComponent { component: name.into(), message: format!("{e:#}") })?;
        if let Err(error) = self.store(&component, sha256) {
            tracing::warn!("cannot cache compiled {name}: {error}");
        }
        Ok((component, LoadKind::Compiled))
    }

    /// Serializes a compiled component atomically.
    pub fn store(&self, component: &Component, sha256: &str) -> Result<PathBuf> {
        let path = self.path_of(sha256);
        create_private_dir(&self.dir)?;
        let bytes = component.serialize().map_err(|e| HostError::io(&path, e))?;
        // Left by a killed process: a live writer's file is seconds old.
        trajhost_install::remove_stale_temps(&self.dir, std::time::Duration::from_secs(600));
        trajhost_install::write_replacing(&path, &bytes, Some(0o600)).map_err(|e| HostError::io(&path, e))?;
        trajhost_install::pause_point("cwasm-written");
        Ok(path)
    }
}

fn create_private_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(|e| HostError::io(dir, e))
}

/// The wasmtime version compiled in (part of the cache path).
pub fn wasmtime_version() -> &'static str {
    "48.0.8"
}
