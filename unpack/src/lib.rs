//! Opens an untrusted session archive — `.tar`, `.tar.gz`/`.tgz`, `.tar.zst`
//! or `.zip` — into a private temp dir, within limits.
//!
//! Nothing is written outside that dir, which is removed when the
//! [`Unpacked`] is dropped. Every member name is checked before anything is
//! created: no absolute paths, no `..`, no control characters, valid UTF-8,
//! no duplicates, bounded length and depth. Links are never created: a
//! symbolic link is skipped and reported, a hard link to an earlier regular
//! member becomes a copy of it, any other hard link is refused. Devices and
//! FIFOs are refused. Bytes are counted as they are written, never taken
//! from the archive's own size fields, so a bomb stops at the first limit it
//! crosses. A truncated or corrupt archive is an error naming the offset.

mod error;
mod format;
mod limits;
mod sink;
mod tar_format;
#[cfg(feature = "testkit")]
pub mod testkit;
mod zip_format;

use std::fs::File;
use std::path::{Path, PathBuf};

pub use error::{Refusal, UnpackError};
pub use format::{Format, is_archive, sniff};
pub use limits::Limits;

/// An archive opened into a private temp dir (removed on drop).
#[derive(Debug)]
pub struct Unpacked {
    dir: tempfile::TempDir,
    format: Format,
    entries: u64,
    bytes: u64,
    skipped: Vec<Skipped>,
}

/// A member that was not unpacked, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The member's name in the archive (checked: UTF-8, no control characters).
    pub name: String,
    pub reason: String,
}

impl Unpacked {
    /// The private dir holding the archive's members.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
    pub fn format(&self) -> Format {
        self.format
    }
    /// Members unpacked (files and directories).
    pub fn entries(&self) -> u64 {
        self.entries
    }
    /// Bytes written.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// Members left out (symbolic links, pax globals, …).
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// The home inside the archive: the shallowest directory that holds one
    /// of `markers` (relative paths such as `.claude` or `.hermes/state.db`),
    /// else the single top folder when the archive has exactly one, else its root.
    pub fn find_home(&self, markers: &[&str]) -> PathBuf {
        find_home(self.dir(), markers)
    }
}

/// The home under `root`: see [`Unpacked::find_home`].
pub fn find_home(root: &Path, markers: &[&str]) -> PathBuf {
    const MAX_DEPTH: usize = 6;
    let mut level = vec![root.to_path_buf()];
    for _ in 0..=MAX_DEPTH {
        for dir in &level {
            if markers.iter().any(|m| !m.is_empty() && dir.join(m).exists()) {
                return dir.clone();
            }
        }
        let mut next = Vec::new();
        for dir in &level {
            if let Ok(read) = std::fs::read_dir(dir) {
                let mut subdirs: Vec<PathBuf> = read
                    .filter_map(|e| e.ok())
                    .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
                    .map(|e| e.path())
                    .collect();
                subdirs.sort();
                next.extend(subdirs);
            }
        }
        if next.is_empty() {
            break;
        }
        level = next;
    }
    single_top_folder(root).unwrap_or_else(|| root.to_path_buf())
}

/// The archive's one top-level entry, when it is a directory (macOS's
/// `__MACOSX` resource folder aside).
fn single_top_folder(root: &Path) -> Option<PathBuf> {
    let entries: Vec<_> =
        std::fs::read_dir(root).ok()?.filter_map(|e| e.ok()).filter(|e| e.file_name() != "__MACOSX").collect();
    match entries.as_slice() {
        [only] if only.file_type().ok()?.is_dir() => Some(only.path()),
        _ => None,
    }
}

/// Opens `archive` into a new private temp dir, within `limits`.
pub fn unpack(archive: &Path, limits: &Limits) -> Result<Unpacked, UnpackError> {
    unpack_in(archive, limits, &std::env::temp_dir())
}

/// As [`unpack`], with the private dir made inside `parent`.
pub fn unpack_in(archive: &Path, limits: &Limits, parent: &Path) -> Result<Unpacked, UnpackError> {
    let mut file = File::open(archive).map_err(|e| UnpackError::io(archive, e))?;
    let format = format::sniff_file(&mut file, archive)?
        .ok_or_else(|| UnpackError::NotArchive { archive: archive.to_path_buf() })?;
    let dir = tempfile::Builder::new()
        .prefix("trajhost-archive-")
        .tempdir_in(parent)
        .map_err(|e| UnpackError::io(parent, e))?;
    sink::make_private(dir.path()).map_err(|e| UnpackError::io(dir.path(), e))?;
    let mut sink = sink::Sink::new(archive, dir.path(), limits);
    match format {
        Format::Zip => zip_format::unpack(file, &mut sink)?,
        stream => tar_format::unpack(file, stream, &mut sink)?,
    }
    let (entries, bytes, skipped) = sink.finish();
    tracing::debug!("{}: {entries} members, {bytes} bytes unpacked", archive.display());
    Ok(Unpacked { dir, format, entries, bytes, skipped })
}

/// Splits `archive.tgz#member/path` into the archive and the member, when
/// the part before a `#` is an existing archive file and the whole is not an
/// existing path (a file name may hold a `#`).
pub fn split_member(path: &Path) -> Option<(PathBuf, String)> {
    if path.exists() {
        return None;
    }
    let text = path.to_str()?;
    for (at, _) in text.match_indices('#') {
        let (archive, member) = (Path::new(&text[..at]), &text[at + 1..]);
        if archive.is_file() && format::is_archive(archive) {
            return Some((archive.to_path_buf(), member.trim_start_matches('/').to_string()));
        }
    }
    None
}
