//! Errors of the measurements; `main` turns them into messages.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The host library failed (runtime, catalog, a codec).
    #[error(transparent)]
    Host(#[from] trajhost::HostError),
    // The cause is the error's source: `{:#}` prints it after the path.
    #[error("{}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}", path.display())]
    Sqlite { path: PathBuf, source: rusqlite::Error },
    #[error("no built-in codec {0} in this build")]
    NoBuiltin(String),
    #[error("warm load of {0} recompiled it instead of loading the cached code")]
    WarmLoadRecompiled(String),
    #[error("the {codec} codec compiled natively failed: {message}")]
    Native { codec: &'static str, message: String },
    #[error("`{command}` exited with {code}")]
    Child { command: String, code: i32 },
    #[error("{0}")]
    NoSession(String),
    /// The `trajhost` binary to measure could not be built or found.
    #[error("{0}")]
    TrajhostBinary(String),
}

impl BenchError {
    pub fn io(path: &Path, source: std::io::Error) -> BenchError {
        BenchError::Io { path: path.to_path_buf(), source }
    }

    pub fn sqlite(path: &Path, source: rusqlite::Error) -> BenchError {
        BenchError::Sqlite { path: path.to_path_buf(), source }
    }
}

pub type Result<T, E = BenchError> = std::result::Result<T, E>;
