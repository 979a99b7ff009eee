//! The read-only filesystem capability (`trajhost:codec/fs`).
//!
//! A codec only ever sees directories the host granted. Paths are checked
//! lexically (relative, no `..`, no NUL) and then resolved with `cap-std`,
//! which refuses any symlink that leads outside the granted root.

use std::io;
use std::path::{Component, Path, PathBuf};
use std::time::UNIX_EPOCH;

use cap_std::ambient_authority;
use wasmtime::component::Resource;

use crate::PluginState;
use crate::wit::latest::fs::{self as wit, DirEntry, EntryKind, FsError, Metadata};

/// Longest path a codec may pass.
const MAX_PATH_BYTES: usize = 4096;

/// A directory granted to a codec (or opened below one).
pub struct DirHandle {
    dir: cap_std::fs::Dir,
    /// Absolute host path; never shown to the guest, used by SQLite.
    host_path: PathBuf,
    /// Other host directories that appear as entries of this one (only on
    /// a granted home): a harness home the environment points at outside
    /// the home (`$CODEX_HOME`), seen where the codec looks for homes.
    mounts: std::sync::Arc<Vec<(String, DirHandle)>>,
}

/// A host directory shown to codecs as `name` inside a granted home.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// One path segment, e.g. `.codex-$CODEX_HOME`.
    pub name: String,
    /// The canonical host directory.
    pub target: PathBuf,
}

/// A file opened by a codec.
pub struct FileHandle {
    file: std::fs::File,
    size: u64,
}

impl DirHandle {
    /// Grants `path` (a directory on the host).
    pub fn grant(path: &Path) -> io::Result<DirHandle> {
        DirHandle::grant_with(path, &[])
    }

    /// Grants `path` with `mounts` appearing as entries of it. A mount
    /// whose directory cannot be opened is left out (and logged).
    pub fn grant_with(path: &Path, mounts: &[Mount]) -> io::Result<DirHandle> {
        let dir = cap_std::fs::Dir::open_ambient_dir(path, ambient_authority())?;
        let host_path = std::fs::canonicalize(path)?;
        let mounts = mounts
            .iter()
            .filter_map(|m| match DirHandle::grant(&m.target) {
                Ok(handle) => Some((m.name.clone(), handle)),
                Err(error) => {
                    tracing::warn!("{}: cannot show it as {}: {error}", m.target.display(), m.name);
                    None
                }
            })
            .collect::<Vec<_>>();
        Ok(DirHandle { dir, host_path, mounts: std::sync::Arc::new(mounts) })
    }

    /// The directory that serves `rel`, and `rel` within it: a path that
    /// starts with a mount's name is the mount's.
    fn route<'p>(&self, rel: &'p Path) -> (&DirHandle, &'p Path) {
        let mut components = rel.components();
        if let Some(Component::Normal(first)) = components.next()
            && let Some((_, mount)) = self.mounts.iter().find(|(name, _)| first == name.as_str())
        {
            let rest = components.as_path();
            return (mount, if rest.as_os_str().is_empty() { Path::new(".") } else { rest });
        }
        (self, rel)
    }

    /// Resolves a codec-supplied relative path to a host path inside this
    /// directory, refusing escapes (used by the SQLite capability, which
    /// needs a real path).
    pub fn resolve_host_path(&self, rel: &str) -> Result<PathBuf, FsError> {
        let (handle, rel_path) = self.route(check_path(rel)?);
        // cap-std opens it only if it stays inside the root, symlinks included.
        handle.dir.open(rel_path).map_err(|e| io_error(rel, e))?;
        let full = std::fs::canonicalize(handle.host_path.join(rel_path)).map_err(|e| io_error(rel, e))?;
        if !full.starts_with(&handle.host_path) {
            return Err(FsError::Denied(format!("{rel}: leaves the granted directory")));
        }
        Ok(full)
    }
}

/// Lexical checks every path goes through before cap-std sees it.
fn check_path(rel: &str) -> Result<&Path, FsError> {
    if rel.len() > MAX_PATH_BYTES {
        return Err(FsError::InvalidPath(format!("path of {} bytes is longer than {MAX_PATH_BYTES}", rel.len())));
    }
    if rel.contains('\0') {
        return Err(FsError::InvalidPath("path contains a NUL byte".into()));
    }
    let path = Path::new(if rel.is_empty() { "." } else { rel });
    for component in path.components() {
        match component {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => return Err(FsError::Denied(format!("{rel}: `..` is not allowed"))),
            Component::RootDir | Component::Prefix(_) => {
                return Err(FsError::Denied(format!("{rel}: absolute paths are not allowed")));
            }
        }
    }
    Ok(path)
}

fn io_error(rel: &str, error: io::Error) -> FsError {
    match error.kind() {
        io::ErrorKind::NotFound => FsError::NotFound(rel.to_string()),
        io::ErrorKind::PermissionDenied => FsError::Denied(format!("{rel}: {error}")),
        // cap-std reports an escape ("a path led outside of the filesystem") as PermissionDenied
        // or as an Other error depending on the platform; name it for the codec author.
        _ if error.to_string().contains("outside") => FsError::Denied(format!("{rel}: leaves the granted directory")),
        _ => FsError::Io(format!("{rel}: {error}")),
    }
}

fn metadata(meta: &cap_std::fs::Metadata) -> Metadata {
    let file_type = meta.file_type();
    let kind = if file_type.is_dir() {
        EntryKind::Directory
    } else if file_type.is_file() {
        EntryKind::File
    } else if file_type.is_symlink() {
        EntryKind::Symlink
    } else {
        EntryKind::Other
    };
    let modified_ms = meta
        .modified()
        .ok()
        .map(|t| t.into_std())
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as i64);
    Metadata { kind, size: meta.len(), modified_ms }
}

impl wit::Host for PluginState {}

impl wit::HostDir for PluginState {
    fn list(&mut self, dir: Resource<DirHandle>, path: String) -> wasmtime::Result<Result<Vec<DirEntry>, FsError>> {
        let max_entries = self.limits.max_list_entries;
        let handle = self.table.get(&dir)?;
        let result = (|| {
            let (routed, rel) = handle.route(check_path(&path)?);
            let mut entries = Vec::new();
            if std::ptr::eq(routed, handle) && rel.components().all(|c| c == Component::CurDir) {
                for (name, _) in handle.mounts.iter() {
                    entries.push(DirEntry {
                        name: name.clone(),
                        meta: Metadata { kind: EntryKind::Directory, size: 0, modified_ms: None },
                    });
                }
            }
            for entry in routed.dir.read_dir(rel).map_err(|e| io_error(&path, e))? {
                let entry = entry.map_err(|e| io_error(&path, e))?;
                if entries.len() == max_entries {
                    return Err(FsError::LimitExceeded(format!("{path}: more than {max_entries} entries")));
                }
                let name = entry.file_name().to_string_lossy().into_owned();
                let meta = entry.metadata().map_err(|e| io_error(&name, e))?;
                entries.push(DirEntry { name, meta: metadata(&meta) });
            }
            entries.sort_by(|a, b| a.name.cmp(&b.name));
            Ok(entries)
        })();
        tracing::trace!(path, mounts = handle.mounts.len(), ok = result.is_ok(), "fs list");
        self.stats.list_calls += 1;
        if let Ok(entries) = &result {
            self.stats.entries_listed += entries.len() as u64;
        }
        Ok(result)
    }

    fn stat(&mut self, dir: Resource<DirHandle>, path: String) -> wasmtime::Result<Result<Metadata, FsError>> {
        self.stats.stat_calls += 1;
        let handle = self.table.get(&dir)?;
        Ok(check_path(&path).and_then(|rel| {
            let (handle, rel) = handle.route(rel);
            handle.dir.metadata(rel).map(|m| metadata(&m)).map_err(|e| io_error(&path, e))
        }))
    }

    fn open(
        &mut self,
        dir: Resource<DirHandle>,
        path: String,
    ) -> wasmtime::Result<Result<Resource<FileHandle>, FsError>> {
        self.stats.opens += 1;
        let handle = self.table.get(&dir)?;
        let opened = check_path(&path).and_then(|rel| {
            let (handle, rel) = handle.route(rel);
            let file = handle.dir.open(rel).map_err(|e| io_error(&path, e))?;
            let meta = file.metadata().map_err(|e| io_error(&path, e))?;
            if !meta.is_file() {
                return Err(FsError::InvalidPath(format!("{path}: not a regular file")));
            }
            Ok((FileHandle { file: file.into_std(), size: meta.len() }, handle.host_path.join(rel)))
        });
        let opened = opened.map(|(file, host_path)| {
            if let Some(recorder) = self.recorder.as_mut() {
                recorder.opened_file(host_path, file.size);
            }
            file
        });
        Ok(match opened {
            Ok(file) => Ok(self.table.push(file)?),
            Err(e) => Err(e),
        })
    }

    fn open_dir(
        &mut self,
        dir: Resource<DirHandle>,
        path: String,
    ) -> wasmtime::Result<Result<Resource<DirHandle>, FsError>> {
        let handle = self.table.get(&dir)?;
        let opened = check_path(&path).and_then(|rel| {
            let (routed, rel) = handle.route(rel);
            let sub = routed.dir.open_dir(rel).map_err(|e| io_error(&path, e))?;
            // The home itself again (the SDK's owned copy of a borrowed
            // handle): it keeps showing the mounts.
            let mounts = if std::ptr::eq(routed, handle) && rel.components().all(|c| c == Component::CurDir) {
                handle.mounts.clone()
            } else {
                Default::default()
            };
            Ok(DirHandle { dir: sub, host_path: routed.host_path.join(rel), mounts })
        });
        Ok(match opened {
            Ok(sub) => Ok(self.table.push(sub)?),
            Err(e) => Err(e),
        })
    }

    fn drop(&mut self, dir: Resource<DirHandle>) -> wasmtime::Result<()> {
        self.table.delete(dir)?;
        Ok(())
    }
}

impl wit::HostFile for PluginState {
    fn size(&mut self, file: Resource<FileHandle>) -> wasmtime::Result<u64> {
        Ok(self.table.get(&file)?.size)
    }

    fn read(
        &mut self,
        file: Resource<FileHandle>,
        offset: u64,
        length: u32,
    ) -> wasmtime::Result<Result<Vec<u8>, FsError>> {
        let max = self.limits.max_read_bytes;
        if length > max {
            return Ok(Err(FsError::LimitExceeded(format!("read of {length} bytes; the limit per call is {max}"))));
        }
        let handle = self.table.get(&file)?;
        let mut buf = vec![0u8; length as usize];
        let mut filled = 0;
        while filled < buf.len() {
            match std::os::unix::fs::FileExt::read_at(&handle.file, &mut buf[filled..], offset + filled as u64) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Ok(Err(FsError::Io(e.to_string()))),
            }
        }
        buf.truncate(filled);
        self.stats.bytes_read += filled as u64;
        Ok(Ok(buf))
    }

    fn drop(&mut self, file: Resource<FileHandle>) -> wasmtime::Result<()> {
        self.table.delete(file)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_checks_refuse_escapes() {
        assert!(matches!(check_path("../x"), Err(FsError::Denied(_))));
        assert!(matches!(check_path("a/../../x"), Err(FsError::Denied(_))));
        assert!(matches!(check_path("/etc/passwd"), Err(FsError::Denied(_))));
        assert!(matches!(check_path("a\0b"), Err(FsError::InvalidPath(_))));
        assert!(check_path("a/b.jsonl").is_ok());
        assert!(check_path("").is_ok());
    }
}
