//! Plan paths: relative, `/`-separated, staying inside the home without
//! following a symbolic link.

use std::path::{Path, PathBuf};

use super::error::{InstallError, Result};

/// The home, made absolute; it must exist and be a directory.
pub fn home(home: &Path) -> Result<PathBuf> {
    let canonical = match std::fs::canonicalize(home) {
        Ok(path) => path,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(InstallError::HomeMissing(home.to_path_buf()));
        }
        Err(e) => return Err(InstallError::io(home, e)),
    };
    if !canonical.is_dir() {
        return Err(InstallError::HomeNotDirectory(home.to_path_buf()));
    }
    Ok(canonical)
}

/// The components of a plan path.
pub fn components(rel: &str) -> Result<Vec<&str>> {
    let invalid = |reason| Err(InstallError::InvalidPath { path: rel.to_string(), reason });
    if rel.is_empty() {
        return invalid("it is empty");
    }
    if rel.contains('\0') {
        return invalid("it contains NUL");
    }
    if rel.starts_with('/') {
        return invalid("it is absolute; plan paths are relative to the target home");
    }
    let parts: Vec<&str> = rel.split('/').collect();
    for part in &parts {
        match *part {
            "" => return invalid("it has an empty component (`//` or a trailing `/`)"),
            "." | ".." => return invalid("it has a `.` or `..` component"),
            _ => {}
        }
    }
    Ok(parts)
}

/// A plan path resolved against the home.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub abs: PathBuf,
    /// Ancestors that do not exist yet, parents first.
    pub missing_dirs: Vec<PathBuf>,
    /// The target's own metadata (not following a link), when it exists.
    pub existing: Option<std::fs::Metadata>,
}

/// Resolves `rel`: every ancestor that exists must be a real directory.
pub fn resolve(home: &Path, rel: &str) -> Result<Resolved> {
    let parts = components(rel)?;
    let mut abs = home.to_path_buf();
    let mut missing_dirs = Vec::new();
    let (last, ancestors) = parts.split_last().expect("components is never empty");
    for part in ancestors {
        abs.push(part);
        if !missing_dirs.is_empty() {
            missing_dirs.push(abs.clone());
            continue;
        }
        match std::fs::symlink_metadata(&abs) {
            Ok(meta) if meta.file_type().is_symlink() => return Err(InstallError::Symlink(abs)),
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Err(InstallError::NotADirectory(abs)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => missing_dirs.push(abs.clone()),
            Err(e) => return Err(InstallError::io(&abs, e)),
        }
    }
    abs.push(last);
    let existing = if missing_dirs.is_empty() {
        match std::fs::symlink_metadata(&abs) {
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(InstallError::io(&abs, e)),
        }
    } else {
        None
    };
    Ok(Resolved { abs, missing_dirs, existing })
}

/// A path for a new file: nothing may exist there.
pub(crate) fn for_create(home: &Path, rel: &str) -> Result<Resolved> {
    let resolved = resolve(home, rel)?;
    if resolved.existing.is_some() {
        return Err(InstallError::AlreadyExists(resolved.abs));
    }
    Ok(resolved)
}

/// A path of an existing regular file (not a link), or of nothing.
pub(crate) fn for_file(home: &Path, rel: &str) -> Result<Resolved> {
    let resolved = resolve(home, rel)?;
    match &resolved.existing {
        Some(meta) if meta.file_type().is_symlink() => Err(InstallError::Symlink(resolved.abs)),
        Some(meta) if !meta.is_file() => Err(InstallError::NotAFile(resolved.abs)),
        _ => Ok(resolved),
    }
}

/// A plain SQL identifier (quoted anyway when used).
pub fn is_identifier(name: &str) -> bool {
    !name.is_empty() && name.len() <= 128 && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}
