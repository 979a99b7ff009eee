//! File primitives that keep a kill harmless: a temporary name beside the
//! target, fsync, then a move that never replaces (or, for a file that must
//! be replaced, a rename over it), then an fsync of the directory.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A name no other process uses: pid, time and a per-process counter.
pub fn unique_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    format!("{:x}-{:x}-{}", std::process::id(), nanos, COUNTER.fetch_add(1, Ordering::Relaxed))
}

/// `.<name>.trajhost-<id>.tmp` beside `target` (the name shortened so the
/// temporary name stays under the 255-byte limit).
pub(crate) fn temp_path(target: &Path, id: &str) -> PathBuf {
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let short: String = name.chars().take(96).collect();
    target.with_file_name(format!(".{short}.trajhost-{id}.tmp"))
}

/// Whether a file name is a trajhost temporary name (of any id).
pub(crate) fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp") && name.contains(".trajhost-")
}

/// Creates `temp` (it must not exist) with `bytes`, and fsyncs it. The
/// bytes go in two halves with the `file-partial` test point between.
pub fn write_new(temp: &Path, bytes: &[u8], mode: Option<u32>) -> std::io::Result<std::fs::Metadata> {
    let mut file = create_new(temp, mode)?;
    let half = bytes.len() / 2;
    file.write_all(&bytes[..half])?;
    file.flush()?;
    super::pause_point("file-partial");
    file.write_all(&bytes[half..])?;
    file.sync_all()?;
    file.metadata()
}

/// Creates `temp` with the bytes of `source`, streamed, and fsyncs it.
pub(crate) fn copy_new(temp: &Path, source: &Path) -> std::io::Result<std::fs::Metadata> {
    let mut input = std::fs::File::open(source)?;
    let size = input.metadata()?.len();
    let mut file = create_new(temp, None)?;
    std::io::copy(&mut (&mut input).take(size / 2), &mut file)?;
    super::pause_point("file-partial");
    std::io::copy(&mut input, &mut file)?;
    file.sync_all()?;
    file.metadata()
}

fn create_new(path: &Path, mode: Option<u32>) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    if let Some(mode) = mode {
        options.mode(mode);
    }
    options.open(path)
}

/// fsyncs a file written by someone else (SQLite).
pub(crate) fn sync_file(path: &Path) -> std::io::Result<std::fs::Metadata> {
    let file = std::fs::OpenOptions::new().read(true).write(true).open(path)?;
    file.sync_all()?;
    file.metadata()
}

/// fsyncs a directory, so names created or removed in it are durable.
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

/// Why a no-replace move did not happen.
#[derive(Debug)]
pub(crate) enum PlaceError {
    /// The target exists.
    Exists,
    Io(std::io::Error),
}

/// Moves `temp` to `target` unless `target` exists: one atomic
/// `renameat2(RENAME_NOREPLACE)` where the file system supports it, else
/// `link` then `unlink` (between the two, both names are the same inode,
/// which recovery recognizes).
pub(crate) fn place_noreplace(temp: &Path, target: &Path) -> Result<(), PlaceError> {
    #[cfg(target_os = "linux")]
    match rename_noreplace(temp, target) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Err(PlaceError::Exists),
        Err(e) if matches!(e.raw_os_error(), Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP)) => {}
        Err(e) => return Err(PlaceError::Io(e)),
    }
    match std::fs::hard_link(temp, target) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Err(PlaceError::Exists),
        Err(e) => return Err(PlaceError::Io(e)),
    }
    super::pause_point("linked");
    std::fs::remove_file(temp).map_err(PlaceError::Io)
}

#[cfg(target_os = "linux")]
fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let from = std::ffi::CString::new(from.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
    let to = std::ffi::CString::new(to.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
    // SAFETY: both pointers are NUL-terminated strings that outlive the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if rc == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

/// Whether two metadata describe the same file (device and inode).
pub(crate) fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Removes a file; a file that is already gone is fine.
pub(crate) fn remove_if_exists(path: &Path) -> std::io::Result<bool> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Metadata of `path` without following a link; None when it is absent.
pub fn stat(path: &Path) -> std::io::Result<Option<std::fs::Metadata>> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) => Ok(Some(meta)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Writes `path` whole or not at all: a temporary name beside it, fsync,
/// rename over, fsync of the directory. A kill leaves the old file (or
/// none) and at worst a hidden temporary file that [`remove_stale_temps`]
/// collects. `mode` applies to a new file.
pub fn write_replacing(path: &Path, bytes: &[u8], mode: Option<u32>) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let temp = temp_path(path, &unique_id());
    let result = (|| {
        let mut file = create_new(&temp, mode)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&temp, path)?;
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = remove_if_exists(&temp);
    }
    result
}

/// Removes trajhost temporary files in `dir` older than `min_age` (files a
/// killed process left; a live writer's file is younger).
pub fn remove_stale_temps(dir: &Path, min_age: std::time::Duration) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !is_temp_name(&name.to_string_lossy()) {
            continue;
        }
        let old_enough = entry
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age >= min_age);
        if old_enough {
            match std::fs::remove_file(entry.path()) {
                Ok(()) => tracing::debug!("removed a stale temporary file {}", entry.path().display()),
                Err(e) => tracing::warn!("cannot remove stale temporary file {}: {e}", entry.path().display()),
            }
        }
    }
}
