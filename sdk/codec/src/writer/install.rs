//! Pieces of a `prepare` plan: checking the artifacts `write` made, probing
//! the target home, and building the operations and the resume command.
//!
//! `prepare` must refuse rather than overwrite or merge, and must say why
//! in words a user can act on; these helpers keep those messages and the
//! plan's shapes the same across codecs.

use serde_json::Value as Json;

use crate::fs::{Dir, FsError};
use crate::shell::shell_quote;
use crate::sqlite::Value;
use crate::{AddJsonEntry, AppendFile, Artifact, CodecError, CreateFile, InsertRows, Operation, TableRows};

/// Refuses an artifact larger than `max` bytes (a hostile or broken export
/// must not make the plan hold gigabytes).
pub fn check_size(artifact: &Artifact, max: usize) -> Result<(), CodecError> {
    if artifact.bytes.len() > max {
        return Err(CodecError::LimitExceeded(format!("{}: more than {max} bytes", artifact.path)));
    }
    Ok(())
}

/// The file name of an artifact path (after its last `/`).
pub fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or("")
}

/// Refuses an export whose session id is not the native id the user asked
/// for (`--native-id`): the plan installs the id the artifacts hold.
pub fn check_requested_id(id: &str, options: &crate::WriteOptions) -> Result<(), CodecError> {
    match options.native_id.as_deref().filter(|wanted| *wanted != id) {
        Some(wanted) => {
            Err(CodecError::Malformed(format!("the export's session id {id} is not the requested native id {wanted}")))
        }
        None => Ok(()),
    }
}

/// The working directory a session resumes in: the user's `--cwd`, else
/// the one the written session names; `unnamed` says what the session
/// lacks when it names none. It must be absolute.
pub fn resume_cwd(options: &crate::WriteOptions, written: Option<&str>, unnamed: &str) -> Result<String, CodecError> {
    let cwd = options
        .cwd
        .as_deref()
        .filter(|c| !c.is_empty())
        .or(written)
        .ok_or_else(|| CodecError::Malformed(format!("{unnamed}; give one with --cwd")))?;
    if !cwd.starts_with('/') {
        return Err(CodecError::Other(format!("working directory {cwd:?} is not an absolute path")));
    }
    Ok(cwd.to_string())
}

/// Whether `path` exists in the target home (a denied or failing probe is
/// an error: the plan must not guess).
pub fn exists(target: &Dir, path: &str) -> Result<bool, CodecError> {
    match target.stat(path) {
        Ok(_) => Ok(true),
        Err(FsError::NotFound(_)) => Ok(false),
        Err(e) => Err(CodecError::Io(format!("checking {path} in the target home: {e:?}"))),
    }
}

/// The entries of `dir` in the target home; `None` when it does not exist.
pub fn list(target: &Dir, dir: &str) -> Result<Option<Vec<crate::fs::DirEntry>>, CodecError> {
    match target.list(dir) {
        Ok(entries) => Ok(Some(entries)),
        Err(FsError::NotFound(_)) => Ok(None),
        Err(e) => Err(CodecError::Io(format!("listing {dir} in the target home: {e:?}"))),
    }
}

/// Refuses a model name `harness` would not take: empty, longer than
/// `max_bytes`, with surrounding space or control characters.
pub fn check_model_name(model: &str, max_bytes: usize, harness: &str) -> Result<(), CodecError> {
    if model.is_empty() || model.len() > max_bytes || model.trim() != model || model.chars().any(char::is_control) {
        return Err(CodecError::Other(format!(
            "model {model:?} is not a name {harness} accepts (1–{max_bytes} bytes, no surrounding space or control \
             characters)"
        )));
    }
    Ok(())
}

/// A `create-file` operation.
pub fn create_file(path: impl Into<String>, bytes: Vec<u8>) -> Operation {
    Operation::CreateFile(CreateFile { path: path.into(), bytes })
}

/// An `append-file` operation (API 0.3.0): `bytes` after the end of the
/// existing file at `path`, whose current content, as `prepare` read it
/// through the target directory, is `current`. The host appends only while
/// the file still has exactly those bytes (their length and sha256 travel
/// in the plan), so a file changed since is refused, never clobbered.
pub fn append_file(path: impl Into<String>, current: &[u8], bytes: Vec<u8>) -> Operation {
    Operation::AppendFile(AppendFile {
        path: path.into(),
        bytes,
        expect_length: current.len() as u64,
        expect_sha256: sha256_hex(current),
    })
}

/// The lowercase hex sha256 of `bytes`, as `append-file` expects it.
pub fn sha256_hex(bytes: &[u8]) -> String {
    crate::writer::ids::sha256_of(&[bytes]).iter().map(|b| format!("{b:02x}")).collect()
}

/// The whole content of `path` in the target home, for an
/// [`append_file`]; `None` when it does not exist. A file larger than `max`
/// bytes is refused (the plan must not hold gigabytes).
pub fn read_existing(target: &Dir, path: &str, max: u64) -> Result<Option<Vec<u8>>, CodecError> {
    match target.stat(path) {
        Ok(_) => {}
        Err(FsError::NotFound(_)) => return Ok(None),
        Err(e) => return Err(CodecError::Io(format!("checking {path} in the target home: {e:?}"))),
    }
    target.read_to_end(path, max).map(Some).map_err(|e| match e {
        FsError::LimitExceeded(m) => CodecError::LimitExceeded(format!("{path} in the target home: {m}")),
        e => CodecError::Io(format!("reading {path} in the target home: {e:?}")),
    })
}

/// An entry added to a JSON index file of the target (a project registry,
/// a list of recent sessions). The host adds it without changing existing
/// entries, and creates the file from [`initial`](Self::initial) when absent.
#[derive(Debug, Clone)]
pub struct IndexEntry {
    entry: AddJsonEntry,
}

impl IndexEntry {
    /// `value` as member `key` of the object at `pointer` in `file` (refused
    /// by the host if the member holds another value).
    pub fn member(file: &str, pointer: &str, key: &str, value: &Json) -> IndexEntry {
        IndexEntry::new(file, pointer, Some(key), None, value)
    }

    /// `value` appended to the array at `pointer` in `file`, unless an
    /// element already has the same `match_member` (then nothing changes).
    pub fn appended(file: &str, pointer: &str, match_member: Option<&str>, value: &Json) -> IndexEntry {
        IndexEntry::new(file, pointer, None, match_member, value)
    }

    fn new(file: &str, pointer: &str, key: Option<&str>, match_member: Option<&str>, value: &Json) -> IndexEntry {
        IndexEntry {
            entry: AddJsonEntry {
                path: file.to_string(),
                pointer: pointer.to_string(),
                key: key.map(str::to_string),
                match_member: match_member.map(str::to_string),
                value: value.to_string(),
                initial: None,
            },
        }
    }

    /// The document the file starts as when the target has none.
    pub fn initial(mut self, document: &Json) -> IndexEntry {
        self.entry.initial = Some(document.to_string());
        self
    }

    /// The plan operation.
    pub fn operation(self) -> Operation {
        Operation::AddJsonEntry(self.entry)
    }

    /// The bare `add-json-entry` record.
    pub fn into_entry(self) -> AddJsonEntry {
        self.entry
    }
}

/// One database row built column by column, in the order the harness's own
/// inserts name them; columns the target's schema lacks can be dropped
/// (an older or newer harness version) with [`keep_columns`](Self::keep_columns).
#[derive(Debug, Clone, Default)]
pub struct Row {
    columns: Vec<String>,
    values: Vec<Value>,
}

impl Row {
    /// An empty row.
    pub fn new() -> Row {
        Row::default()
    }

    /// Sets `column` to `value`.
    pub fn set(mut self, column: &str, value: Value) -> Row {
        self.columns.push(column.to_string());
        self.values.push(value);
        self
    }

    /// A text column.
    pub fn text(self, column: &str, value: &str) -> Row {
        self.set(column, Value::Text(value.to_string()))
    }

    /// A text column, `NULL` when `value` is `None`.
    pub fn opt_text(self, column: &str, value: Option<&str>) -> Row {
        self.set(column, value.map_or(Value::Null, |v| Value::Text(v.to_string())))
    }

    /// An integer column.
    pub fn int(self, column: &str, value: i64) -> Row {
        self.set(column, Value::Integer(value))
    }

    /// Only the columns `keep` accepts (e.g. those the target's table has).
    pub fn keep_columns(self, keep: impl Fn(&str) -> bool) -> Row {
        let (columns, values) = self.columns.into_iter().zip(self.values).filter(|(c, _)| keep(c)).unzip();
        Row { columns, values }
    }

    /// The column names, in order.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The row's columns and values.
    pub fn into_parts(self) -> (Vec<String>, Vec<Value>) {
        (self.columns, self.values)
    }

    /// The row added to `table` of the existing database `database`.
    pub fn insert_into(self, database: &str, table: &str) -> InsertRows {
        InsertRows {
            database: database.to_string(),
            table: table.to_string(),
            columns: self.columns,
            rows: vec![self.values],
        }
    }

    /// The row as the contents of `table` in a database the plan creates.
    pub fn table(self, table: &str) -> TableRows {
        TableRows { table: table.to_string(), columns: self.columns, rows: vec![self.values] }
    }
}

/// The command that resumes the installed session, for a person to paste
/// into a POSIX shell: `cd <cwd> && NAME=<value> program [flags] args`,
/// every value quoted with [`shell_quote`].
#[derive(Debug, Clone, Default)]
pub struct ResumeCommand {
    text: String,
}

impl ResumeCommand {
    /// Starts in `cwd`, when there is one (`cd <cwd> && `).
    pub fn in_dir(cwd: Option<&str>) -> ResumeCommand {
        let mut command = ResumeCommand::default();
        if let Some(cwd) = cwd {
            command.text.push_str(&format!("cd {} && ", shell_quote(cwd)));
        }
        command
    }

    /// `NAME=<value> `, when there is a value (a target home, mostly).
    pub fn env(mut self, name: &str, value: Option<&str>) -> ResumeCommand {
        if let Some(value) = value {
            self.text.push_str(&format!("{name}={} ", shell_quote(value)));
        }
        self
    }

    /// The program (after the environment, before its arguments).
    pub fn program(mut self, program: &str) -> ResumeCommand {
        self.text.push_str(program);
        self
    }

    /// ` <flag> <value>`, when there is a value.
    pub fn option(mut self, flag: &str, value: Option<&str>) -> ResumeCommand {
        if let Some(value) = value {
            self.text.push_str(&format!(" {flag} {}", shell_quote(value)));
        }
        self
    }

    /// ` <words>` as given: a fixed flag or an id the codec checked (ids are
    /// plain in every harness, so they stay unquoted as users type them).
    pub fn arg(mut self, words: &str) -> ResumeCommand {
        self.text.push(' ');
        self.text.push_str(words);
        self
    }

    /// The command line.
    pub fn finish(self) -> String {
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_commands_rows_and_entries() {
        let command = ResumeCommand::in_dir(Some("/w p"))
            .env("HOME", Some("/h"))
            .program("tool")
            .option("--model", Some("m 1"))
            .option("--provider", None)
            .arg("--resume=abc")
            .finish();
        assert_eq!(command, "cd '/w p' && HOME=/h tool --model 'm 1' --resume=abc");
        assert_eq!(ResumeCommand::in_dir(None).program("t").arg("resume x").finish(), "t resume x");

        let row = Row::new().text("id", "x").int("n", 3).opt_text("gone", None).keep_columns(|c| c != "gone");
        let insert = row.insert_into("db.sqlite", "threads");
        assert_eq!(insert.columns, ["id", "n"]);
        assert!(
            matches!(insert.rows[..], [ref r] if matches!(r[..], [Value::Text(ref t), Value::Integer(3)] if t == "x"))
        );

        let entry = IndexEntry::appended("k.json", "/dirs", Some("path"), &serde_json::json!({"path": "/w"}))
            .initial(&serde_json::json!({"dirs": []}))
            .into_entry();
        assert_eq!(entry.value, r#"{"path":"/w"}"#);
        assert_eq!(entry.initial.as_deref(), Some(r#"{"dirs":[]}"#));
        assert!(check_model_name(" m", 10, "X").is_err());
        assert!(check_model_name("m", 10, "X").is_ok());
    }
}
