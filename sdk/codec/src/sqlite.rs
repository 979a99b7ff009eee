//! The host's read-only SQLite capability (wasm guests only).

#[cfg(target_arch = "wasm32")]
pub use crate::bindings::trajhost::codec::sqlite::{Database, Page, Rows, SqliteError, Value};

#[cfg(not(target_arch = "wasm32"))]
pub use crate::bindings::trajhost::codec::sqlite::{Page, SqliteError, Value};

impl From<SqliteError> for crate::CodecError {
    fn from(error: SqliteError) -> Self {
        crate::CodecError::Io(error.to_string())
    }
}
