//! Filesystem and SQLite errors as codecs report them: a short kind for a
//! diagnostic's detail (no path, no content), or a [`CodecError`] naming the
//! file.

use crate::CodecError;
use crate::fs::{Dir, FsError};
use crate::sqlite::SqliteError;

/// The kind of a filesystem error, for a diagnostic's detail.
pub fn fs_kind(error: &FsError) -> &'static str {
    match error {
        FsError::NotFound(_) => "not-found",
        FsError::Denied(_) => "denied",
        FsError::InvalidPath(_) => "invalid-path",
        FsError::Io(_) => "io",
        FsError::LimitExceeded(_) => "limit-exceeded",
    }
}

/// A filesystem error as a codec error naming `path`.
pub fn fs_error(path: &str, error: FsError) -> CodecError {
    match error {
        FsError::NotFound(_) => CodecError::NotFound(path.to_string()),
        FsError::LimitExceeded(m) => CodecError::LimitExceeded(format!("{path}: {m}")),
        other => CodecError::Io(format!("{path}: {other}")),
    }
}

/// A whole file the codec reads as one document (a session kept as one
/// JSON file): a file over `max` bytes is not read (`unsupported`, naming
/// the limit), other errors as [`fs_error`].
pub fn read_document(home: &Dir, path: &str, max: u64) -> Result<Vec<u8>, CodecError> {
    home.read_to_end(path, max).map_err(|e| match e {
        FsError::LimitExceeded(_) => CodecError::Unsupported(format!("{path}: larger than {max} bytes, not read")),
        other => fs_error(path, other),
    })
}

/// The kind of a SQLite error, for a diagnostic's detail.
pub fn sqlite_kind(error: &SqliteError) -> &'static str {
    match error {
        SqliteError::NotFound(_) => "not-found",
        SqliteError::Denied(_) => "denied",
        SqliteError::Invalid(_) => "invalid",
        SqliteError::LimitExceeded(_) => "limit-exceeded",
        SqliteError::Sqlite(_) => "sqlite",
    }
}

/// A SQLite error as a codec error naming the database `path`.
pub fn sqlite_error(path: &str, error: SqliteError) -> CodecError {
    match error {
        SqliteError::NotFound(_) => CodecError::NotFound(path.to_string()),
        SqliteError::LimitExceeded(m) => CodecError::LimitExceeded(format!("{path}: {m}")),
        other => CodecError::Io(format!("{path}: {other:?}")),
    }
}

/// An error of the target's database `db` that `prepare` opens or probes,
/// with SQLite's message (a schema or file problem of the target, never
/// transcript content) after the database's name.
pub fn target_sqlite_error(db: &str, error: SqliteError) -> CodecError {
    match error {
        SqliteError::NotFound(m) => CodecError::NotFound(format!("{db}: {m}")),
        SqliteError::LimitExceeded(m) => CodecError::LimitExceeded(format!("{db}: {m}")),
        SqliteError::Denied(m) | SqliteError::Invalid(m) | SqliteError::Sqlite(m) => {
            CodecError::Io(format!("{db}: {m}"))
        }
    }
}

/// What a codec error about `path` says, without the path (which the
/// diagnostic carries in `file`), for a diagnostic's detail. Codec errors
/// name files, fields and types, never content.
pub fn detail_of(path: &str, error: &CodecError) -> String {
    let message = match error {
        CodecError::Unsupported(m)
        | CodecError::NotFound(m)
        | CodecError::Malformed(m)
        | CodecError::Io(m)
        | CodecError::LimitExceeded(m)
        | CodecError::Other(m) => m,
    };
    let message = message.strip_prefix(path).map_or(message.as_str(), |m| m.trim_start_matches(':').trim_start());
    if message.is_empty() { "error".to_string() } else { message.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_file_and_kinds_carry_no_path() {
        let e = fs_error("a/b.jsonl", FsError::Io("disk on fire".into()));
        assert!(matches!(&e, CodecError::Io(m) if m.starts_with("a/b.jsonl: ") && m.contains("disk on fire")), "{e:?}");
        assert!(matches!(fs_error("x", FsError::NotFound("y".into())), CodecError::NotFound(p) if p == "x"));
        assert_eq!(fs_kind(&FsError::Denied("/secret/path".into())), "denied");
        assert_eq!(sqlite_kind(&SqliteError::Sqlite("no such table".into())), "sqlite");
        let e = sqlite_error("db.sqlite", SqliteError::LimitExceeded("rows".into()));
        assert!(matches!(&e, CodecError::LimitExceeded(m) if m == "db.sqlite: rows"), "{e:?}");
        assert_eq!(detail_of("db.sqlite", &e), "rows");
        assert_eq!(detail_of("db.sqlite", &CodecError::Unsupported("no `part` table".into())), "no `part` table");
    }
}
