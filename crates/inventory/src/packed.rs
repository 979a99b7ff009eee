//! Archives as homes: a session store someone packed up (`.tar`, `.tar.gz`,
//! `.tar.zst`, `.zip`) is opened into a private temp dir by
//! `trajhost-unpack`, within its limits, and then served to the codecs
//! through the same fs capability as any home: a codec cannot tell the two
//! apart. The dir, SQLite members and their `-wal` included, is removed
//! when the [`PackedHome`] is dropped.

use std::path::{Path, PathBuf};

pub use trajhost_unpack::{Limits as UnpackLimits, UnpackError};

use trajhost_registry::catalog::Catalog;
use trajhost_runtime::error::Result;

/// An archive opened as a home.
#[derive(Debug)]
pub struct PackedHome {
    archive: PathBuf,
    unpacked: trajhost_unpack::Unpacked,
    home: PathBuf,
}

impl PackedHome {
    /// The archive, as given.
    pub fn archive(&self) -> &Path {
        &self.archive
    }
    /// The home inside the private dir.
    pub fn home(&self) -> &Path {
        &self.home
    }
    /// The private dir's root: member paths are relative to it.
    pub fn root(&self) -> &Path {
        self.unpacked.dir()
    }
    /// Where the archive store keeps this home's sessions: the archive's
    /// own path, and the home's place inside it (the private dir's name
    /// changes on every open).
    pub fn key(&self) -> PathBuf {
        let archive = std::fs::canonicalize(&self.archive).unwrap_or_else(|_| self.archive.clone());
        let inner = self.home.strip_prefix(self.unpacked.dir()).unwrap_or(Path::new(""));
        PathBuf::from(format!("{}#{}", archive.display(), inner.display()))
    }
    pub fn unpacked(&self) -> &trajhost_unpack::Unpacked {
        &self.unpacked
    }
    /// The path of `member` (relative to the archive's root, or else to the home).
    pub fn member(&self, member: &str) -> PathBuf {
        let at_root = self.root().join(member);
        if at_root.exists() { at_root } else { self.home.join(member) }
    }
}

/// Whether `path` is an archive file (by content).
pub fn is_archive(path: &Path) -> bool {
    path.is_file() && trajhost_unpack::is_archive(path)
}

/// Splits `archive.tgz#member` (see [`trajhost_unpack::split_member`]).
pub fn split_member(target: &str) -> Option<(PathBuf, String)> {
    trajhost_unpack::split_member(Path::new(target))
}

/// What marks a home inside an archive: the literal leading part of every
/// codec's session globs (`.claude/projects/*/*.jsonl` gives `.claude/projects`).
pub fn home_markers(catalog: &Catalog<'_>) -> Vec<String> {
    let mut markers: Vec<String> = catalog
        .effective()
        .flat_map(|codec| codec.session_globs.iter())
        .filter_map(|glob| {
            let literal: Vec<&str> =
                glob.split('/').take_while(|part| !part.contains(['*', '?', '[', '{', '$'])).collect();
            (!literal.is_empty() && !literal[0].is_empty()).then(|| literal.join("/"))
        })
        .collect();
    markers.sort();
    markers.dedup();
    markers
}

/// Opens `archive` as a home, within `limits`.
pub fn open(archive: &Path, markers: &[String], limits: &UnpackLimits) -> Result<PackedHome> {
    let unpacked = trajhost_unpack::unpack(archive, limits)?;
    for skipped in unpacked.skipped() {
        tracing::info!("{}: {} not unpacked: {}", archive.display(), skipped.name, skipped.reason);
    }
    let markers: Vec<&str> = markers.iter().map(String::as_str).collect();
    let home = unpacked.find_home(&markers);
    tracing::debug!(
        "{}: {} members, {} bytes, home {}",
        archive.display(),
        unpacked.entries(),
        unpacked.bytes(),
        home.display()
    );
    Ok(PackedHome { archive: archive.to_path_buf(), unpacked, home })
}

/// Files looked at as loose sessions in one archive, at most (each costs a
/// `sniff` per codec).
const MAX_LOOSE_FILES: usize = 200;

/// Discovery in an archive's home, and then content sniffing for the
/// sessions someone packed outside any harness's layout (`bug-report/s.jsonl`):
/// every JSON or JSONL file of the archive outside hidden folders (where the
/// harnesses keep their stores, which discovery walked) is offered to the
/// codecs' `sniff`, as `read FILE` does.
pub fn discover(
    catalog: &Catalog<'_>,
    packed: &PackedHome,
    harness: Option<&str>,
    cwd: Option<&Path>,
) -> Result<crate::Inventory> {
    use crate::{self as inventory, SessionQuery};
    let query = SessionQuery { home: packed.home.clone(), harness: harness.map(String::from), cwd: None };
    let mut found = inventory::discover(catalog, &query)?;
    let claimed: std::collections::HashSet<PathBuf> = found.sessions.iter().map(|s| s.session.path.clone()).collect();
    let mut loose = Vec::new();
    collect_loose(packed.root(), &mut loose);
    loose.sort();
    if loose.len() > MAX_LOOSE_FILES {
        tracing::info!(
            "{}: {} loose JSON files; sniffing the first {MAX_LOOSE_FILES}",
            packed.archive.display(),
            loose.len()
        );
        loose.truncate(MAX_LOOSE_FILES);
    }
    for file in loose {
        let canonical = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
        if claimed.contains(&canonical) || claimed.contains(&file) {
            continue;
        }
        let lookup = inventory::Lookup { home: None, harness, codec: None };
        match inventory::resolve_with(catalog, &file.to_string_lossy(), &lookup) {
            Ok(session) => found.sessions.push(session),
            Err(e) => tracing::debug!("{}: not a session: {e}", file.display()),
        }
    }
    if let Some(cwd) = cwd {
        found.sessions.retain(|s| s.session.cwd.as_deref().is_some_and(|c| inventory::is_within(Path::new(c), cwd)));
    }
    Ok(found)
}

fn collect_loose(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.filter_map(|e| e.ok()) {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        match entry.file_type() {
            Ok(t) if t.is_dir() => collect_loose(&path, out),
            Ok(t)
                if t.is_file()
                    && path.extension().is_some_and(|e| e == "jsonl" || e == "json")
                    && entry.metadata().is_ok_and(|m| m.len() > 0) =>
            {
                out.push(path)
            }
            _ => {}
        }
    }
}
