//! Why a plan was refused or could not be applied. Every variant names the
//! file (absolute, inside the target home) or the plan path involved.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    #[error("the target home {0} does not exist")]
    HomeMissing(PathBuf),

    #[error("the target home {0} is not a directory")]
    HomeNotDirectory(PathBuf),

    #[error("the plan names an invalid path {path:?}: {reason} (nothing was changed)")]
    InvalidPath { path: String, reason: &'static str },

    #[error("{0} already exists; trajhost never overwrites a session (nothing was changed)")]
    AlreadyExists(PathBuf),

    #[error("{0} is a symbolic link; an install never follows links (nothing was changed)")]
    Symlink(PathBuf),

    #[error("{0} exists and is not a directory (nothing was changed)")]
    NotADirectory(PathBuf),

    #[error("{0} is not a regular file (nothing was changed)")]
    NotAFile(PathBuf),

    #[error("{path}: {message} (nothing was changed)")]
    Conflict { path: PathBuf, message: String },

    #[error("{0}: the plan inserts rows into a database that does not exist (nothing was changed)")]
    MissingDatabase(PathBuf),

    #[error("{path}: {name:?} is not a plain SQL identifier (ASCII letters, digits, '_') (nothing was changed)")]
    InvalidIdentifier { path: PathBuf, name: String },

    #[error("{path}: a row for table {table} has {found} values for {expected} columns (nothing was changed)")]
    RowWidth { path: PathBuf, table: String, found: usize, expected: usize },

    #[error(
        "{path}: schema statement {index} is refused: {reason} (only CREATE TABLE / INDEX / VIEW / TRIGGER; nothing was changed)"
    )]
    SchemaRefused { path: PathBuf, index: usize, reason: String },

    #[error("{path}: {message}")]
    Sqlite { path: PathBuf, message: String },

    #[error("{0}: the JSON file does not exist and the plan gives no initial document (nothing was changed)")]
    JsonMissing(PathBuf),

    #[error("{path}: {what} is not valid JSON: {message} (nothing was changed)")]
    JsonInvalid { path: PathBuf, what: &'static str, message: String },

    #[error("{path}: JSON pointer {pointer:?}: {message} (nothing was changed)")]
    JsonPointer { path: PathBuf, pointer: String, message: String },

    #[error(
        "{path}: {pointer:?} already has a member {key:?} with a different value; existing entries are never changed (nothing was changed)"
    )]
    JsonKeyCollision { path: PathBuf, pointer: String, key: String },

    #[error("{path}: {message} (nothing was changed)")]
    JsonEntry { path: PathBuf, message: String },

    #[error("{0}: the plan appends to a file that does not exist (nothing was changed)")]
    AppendMissing(PathBuf),

    #[error("{path}: {message}; it is not appended to (nothing was changed)")]
    AppendChanged { path: PathBuf, message: String },

    #[error("{path}: the plan's expected sha256 {found:?} is not 64 lowercase hex digits (nothing was changed)")]
    AppendDigest { path: PathBuf, found: String },

    #[error("{path}: the artifact to copy {message} (nothing was changed)")]
    Source { path: PathBuf, message: String },

    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },

    #[error("{path} appeared while installing; the install was undone (nothing was changed)")]
    Raced { path: PathBuf },

    #[error("install journal {path}: {message}")]
    Journal { path: PathBuf, message: String },
}

impl InstallError {
    pub fn io(path: impl Into<PathBuf>, error: impl std::fmt::Display) -> InstallError {
        InstallError::Io { path: path.into(), message: error.to_string() }
    }

    pub fn sqlite(path: impl Into<PathBuf>, error: impl std::fmt::Display) -> InstallError {
        InstallError::Sqlite { path: path.into(), message: error.to_string() }
    }
}

pub type Result<T, E = InstallError> = std::result::Result<T, E>;
