//! Directories and files the host grants, read-only.
//!
//! In a wasm guest every call goes through the host's `trajhost:codec/fs`
//! capability; compiled natively (benchmarks, tests) the same API reads the
//! real filesystem with `std::fs`.

pub use crate::bindings::trajhost::codec::fs::{EntryKind, FsError, Metadata};

/// One directory entry with the metadata of a single stat.
#[derive(Debug, Clone)]
pub struct DirEntry {
    pub name: String,
    pub meta: Metadata,
}

impl DirEntry {
    pub fn is_dir(&self) -> bool {
        matches!(self.meta.kind, EntryKind::Directory)
    }
    pub fn is_file(&self) -> bool {
        matches!(self.meta.kind, EntryKind::File)
    }
}

/// Bytes per read call; the host's default cap is larger.
pub const READ_CHUNK: u32 = 1 << 20;

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::*;
    use crate::bindings::trajhost::codec::fs as host;

    /// A granted directory.
    pub struct Dir(pub(crate) host::Dir);

    /// An open file.
    pub struct File(host::File);

    impl Dir {
        /// An owned handle to the same directory as a borrowed one.
        pub(crate) fn from_borrow(dir: &host::Dir) -> Result<Dir, FsError> {
            dir.open_dir("").map(Dir)
        }

        pub fn list(&self, path: &str) -> Result<Vec<DirEntry>, FsError> {
            Ok(self.0.list(path)?.into_iter().map(|e| DirEntry { name: e.name, meta: e.meta }).collect())
        }

        pub fn stat(&self, path: &str) -> Result<Metadata, FsError> {
            self.0.stat(path)
        }

        pub fn open(&self, path: &str) -> Result<File, FsError> {
            self.0.open(path).map(File)
        }

        pub fn open_dir(&self, path: &str) -> Result<Dir, FsError> {
            self.0.open_dir(path).map(Dir)
        }

        /// The raw capability handle, for the SQLite capability.
        pub fn handle(&self) -> &host::Dir {
            &self.0
        }
    }

    impl File {
        pub fn size(&self) -> u64 {
            self.0.size()
        }

        /// Up to `len` bytes at `offset`; fewer only at end of file.
        pub fn read_at(&self, offset: u64, len: u32) -> Result<Vec<u8>, FsError> {
            self.0.read(offset, len)
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::*;
    use std::os::unix::fs::FileExt;
    use std::path::{Path, PathBuf};
    use std::time::UNIX_EPOCH;

    /// A directory on the real filesystem (native builds only).
    pub struct Dir(PathBuf);

    /// An open file (native builds only).
    pub struct File(std::fs::File);

    fn io_error(path: &Path, error: std::io::Error) -> FsError {
        if error.kind() == std::io::ErrorKind::NotFound {
            FsError::NotFound(path.display().to_string())
        } else {
            FsError::Io(format!("{}: {error}", path.display()))
        }
    }

    fn metadata(meta: &std::fs::Metadata) -> Metadata {
        let kind = if meta.is_dir() {
            EntryKind::Directory
        } else if meta.is_file() {
            EntryKind::File
        } else if meta.file_type().is_symlink() {
            EntryKind::Symlink
        } else {
            EntryKind::Other
        };
        let modified_ms =
            meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map(|d| d.as_millis() as i64);
        Metadata { kind, size: meta.len(), modified_ms }
    }

    impl Dir {
        /// A directory on the real filesystem.
        pub fn native(root: impl Into<PathBuf>) -> Dir {
            Dir(root.into())
        }

        pub(crate) fn from_borrow(_dir: &crate::bindings::trajhost::codec::fs::Dir) -> Result<Dir, FsError> {
            Err(FsError::Denied("host handles exist only inside a wasm guest".into()))
        }

        fn join(&self, path: &str) -> PathBuf {
            if path.is_empty() || path == "." { self.0.clone() } else { self.0.join(path) }
        }

        pub fn list(&self, path: &str) -> Result<Vec<DirEntry>, FsError> {
            let dir = self.join(path);
            let mut entries = Vec::new();
            for entry in std::fs::read_dir(&dir).map_err(|e| io_error(&dir, e))? {
                let entry = entry.map_err(|e| io_error(&dir, e))?;
                let meta = entry.metadata().map_err(|e| io_error(&entry.path(), e))?;
                entries
                    .push(DirEntry { name: entry.file_name().to_string_lossy().into_owned(), meta: metadata(&meta) });
            }
            entries.sort_by(|a, b| a.name.cmp(&b.name));
            Ok(entries)
        }

        pub fn stat(&self, path: &str) -> Result<Metadata, FsError> {
            let path = self.join(path);
            std::fs::symlink_metadata(&path).map(|m| metadata(&m)).map_err(|e| io_error(&path, e))
        }

        pub fn open(&self, path: &str) -> Result<File, FsError> {
            let path = self.join(path);
            std::fs::File::open(&path).map(File).map_err(|e| io_error(&path, e))
        }

        /// The directory's real path (native builds only).
        pub fn host_path(&self) -> &Path {
            &self.0
        }

        pub fn open_dir(&self, path: &str) -> Result<Dir, FsError> {
            let path = self.join(path);
            if path.is_dir() { Ok(Dir(path)) } else { Err(FsError::NotFound(path.display().to_string())) }
        }
    }

    impl File {
        pub fn size(&self) -> u64 {
            self.0.metadata().map(|m| m.len()).unwrap_or(0)
        }

        pub fn read_at(&self, offset: u64, len: u32) -> Result<Vec<u8>, FsError> {
            let mut buf = vec![0u8; len as usize];
            let mut filled = 0;
            while filled < buf.len() {
                match self.0.read_at(&mut buf[filled..], offset + filled as u64) {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(FsError::Io(e.to_string())),
                }
            }
            buf.truncate(filled);
            Ok(buf)
        }
    }
}

pub use imp::{Dir, File};

impl Dir {
    /// Reads a whole (small) file.
    pub fn read_to_end(&self, path: &str, max: u64) -> Result<Vec<u8>, FsError> {
        let file = self.open(path)?;
        let size = file.size();
        if size > max {
            return Err(FsError::LimitExceeded(format!("{path} has {size} bytes, more than {max}")));
        }
        let mut out = Vec::with_capacity(size as usize);
        loop {
            let chunk = file.read_at(out.len() as u64, READ_CHUNK)?;
            if chunk.is_empty() {
                return Ok(out);
            }
            out.extend_from_slice(&chunk);
            if out.len() as u64 > max {
                return Err(FsError::LimitExceeded(format!("{path} grew past {max} bytes")));
            }
        }
    }
}
