//! Bindings of `trajhost:codec@0.2.1` (frozen in `wit/since_v0.2.1/`). They
//! also serve 0.2.0 codecs: 0.2.1 only added the `target` import, and the
//! component model links a `@0.2.0` import to the `@0.2.1` definition and
//! finds a `codec@0.2.0` export under `@0.2.1` (semver-compatible names), so
//! one module serves the 0.2 track.
//!
//! A 0.2 codec imports the 0.2 interfaces: their host traits delegate to the
//! newest implementation ([`super::latest`]). Its exports are converted to
//! the newest types at the edge (`From` impls below), so the runtime serves
//! 0.2 codecs through the same API; a 0.2 plan never holds the operations
//! added later (`append-file`, 0.3.0).

use wasmtime::component::Resource;

use super::latest as new;
use crate::PluginState;
use crate::fs::{DirHandle, FileHandle};
use crate::sqlite::{DatabaseHandle, RowsHandle};

wasmtime::component::bindgen!({
    world: "codec-plugin",
    path: "../../wit/since_v0.2.1",
    imports: { default: trappable },
    with: {
        "trajhost:codec/fs.dir": crate::fs::DirHandle,
        "trajhost:codec/fs.file": crate::fs::FileHandle,
        "trajhost:codec/sqlite.database": crate::sqlite::DatabaseHandle,
        "trajhost:codec/sqlite.rows": crate::sqlite::RowsHandle,
    },
});

pub use self::exports::trajhost::codec::codec;
pub use self::trajhost::codec::{fs, log, sqlite, target, types};

// ---- imports: delegate to the newest implementation ----

impl types::Host for PluginState {}
impl fs::Host for PluginState {}
impl sqlite::Host for PluginState {}

impl fs::HostDir for PluginState {
    fn list(
        &mut self,
        dir: Resource<DirHandle>,
        path: String,
    ) -> wasmtime::Result<Result<Vec<fs::DirEntry>, fs::FsError>> {
        let entries = new::fs::HostDir::list(self, dir, path)?;
        Ok(entries
            .map(|v| v.into_iter().map(|e| fs::DirEntry { name: e.name, meta: e.meta.into() }).collect())
            .map_err(Into::into))
    }

    fn stat(&mut self, dir: Resource<DirHandle>, path: String) -> wasmtime::Result<Result<fs::Metadata, fs::FsError>> {
        Ok(new::fs::HostDir::stat(self, dir, path)?.map(Into::into).map_err(Into::into))
    }

    fn open(
        &mut self,
        dir: Resource<DirHandle>,
        path: String,
    ) -> wasmtime::Result<Result<Resource<FileHandle>, fs::FsError>> {
        Ok(new::fs::HostDir::open(self, dir, path)?.map_err(Into::into))
    }

    fn open_dir(
        &mut self,
        dir: Resource<DirHandle>,
        path: String,
    ) -> wasmtime::Result<Result<Resource<DirHandle>, fs::FsError>> {
        Ok(new::fs::HostDir::open_dir(self, dir, path)?.map_err(Into::into))
    }

    fn drop(&mut self, dir: Resource<DirHandle>) -> wasmtime::Result<()> {
        new::fs::HostDir::drop(self, dir)
    }
}

impl fs::HostFile for PluginState {
    fn size(&mut self, file: Resource<FileHandle>) -> wasmtime::Result<u64> {
        new::fs::HostFile::size(self, file)
    }

    fn read(
        &mut self,
        file: Resource<FileHandle>,
        offset: u64,
        length: u32,
    ) -> wasmtime::Result<Result<Vec<u8>, fs::FsError>> {
        Ok(new::fs::HostFile::read(self, file, offset, length)?.map_err(Into::into))
    }

    fn drop(&mut self, file: Resource<FileHandle>) -> wasmtime::Result<()> {
        new::fs::HostFile::drop(self, file)
    }
}

impl sqlite::HostDatabase for PluginState {
    fn open(
        &mut self,
        root: Resource<DirHandle>,
        path: String,
    ) -> wasmtime::Result<Result<Resource<DatabaseHandle>, sqlite::SqliteError>> {
        Ok(new::sqlite::HostDatabase::open(self, root, path)?.map_err(Into::into))
    }

    fn query(
        &mut self,
        db: Resource<DatabaseHandle>,
        sql: String,
        params: Vec<sqlite::Value>,
    ) -> wasmtime::Result<Result<Resource<RowsHandle>, sqlite::SqliteError>> {
        let params = params.into_iter().map(Into::into).collect();
        Ok(new::sqlite::HostDatabase::query(self, db, sql, params)?.map_err(Into::into))
    }

    fn drop(&mut self, db: Resource<DatabaseHandle>) -> wasmtime::Result<()> {
        new::sqlite::HostDatabase::drop(self, db)
    }
}

impl sqlite::HostRows for PluginState {
    fn columns(&mut self, rows: Resource<RowsHandle>) -> wasmtime::Result<Vec<String>> {
        new::sqlite::HostRows::columns(self, rows)
    }

    fn next_page(
        &mut self,
        rows: Resource<RowsHandle>,
        max_rows: u32,
    ) -> wasmtime::Result<Result<sqlite::Page, sqlite::SqliteError>> {
        let page = new::sqlite::HostRows::next_page(self, rows, max_rows)?;
        Ok(page
            .map(|p| sqlite::Page {
                rows: p.rows.into_iter().map(|r| r.into_iter().map(Into::into).collect()).collect(),
                done: p.done,
            })
            .map_err(Into::into))
    }

    fn drop(&mut self, rows: Resource<RowsHandle>) -> wasmtime::Result<()> {
        new::sqlite::HostRows::drop(self, rows)
    }
}

impl log::Host for PluginState {
    fn log(&mut self, level: log::Level, message: String) -> wasmtime::Result<()> {
        let level = match level {
            log::Level::Trace => new::log::Level::Trace,
            log::Level::Debug => new::log::Level::Debug,
            log::Level::Info => new::log::Level::Info,
            log::Level::Warn => new::log::Level::Warn,
            log::Level::Error => new::log::Level::Error,
        };
        new::log::Host::log(self, level, message)
    }
}

impl target::Host for PluginState {
    fn choice(&mut self) -> wasmtime::Result<target::TargetChoice> {
        let c = new::target::Host::choice(self)?;
        Ok(target::TargetChoice { model: c.model, provider: c.provider, allow_untested: c.allow_untested })
    }

    fn untested(&mut self, found: Option<String>, tested: String) -> wasmtime::Result<()> {
        new::target::Host::untested(self, found, tested)
    }
}

impl From<new::fs::Metadata> for fs::Metadata {
    fn from(m: new::fs::Metadata) -> Self {
        let kind = match m.kind {
            new::fs::EntryKind::File => fs::EntryKind::File,
            new::fs::EntryKind::Directory => fs::EntryKind::Directory,
            new::fs::EntryKind::Symlink => fs::EntryKind::Symlink,
            new::fs::EntryKind::Other => fs::EntryKind::Other,
        };
        fs::Metadata { kind, size: m.size, modified_ms: m.modified_ms }
    }
}

impl From<new::fs::FsError> for fs::FsError {
    fn from(e: new::fs::FsError) -> Self {
        match e {
            new::fs::FsError::NotFound(m) => fs::FsError::NotFound(m),
            new::fs::FsError::Denied(m) => fs::FsError::Denied(m),
            new::fs::FsError::InvalidPath(m) => fs::FsError::InvalidPath(m),
            new::fs::FsError::Io(m) => fs::FsError::Io(m),
            new::fs::FsError::LimitExceeded(m) => fs::FsError::LimitExceeded(m),
        }
    }
}

impl From<new::sqlite::SqliteError> for sqlite::SqliteError {
    fn from(e: new::sqlite::SqliteError) -> Self {
        match e {
            new::sqlite::SqliteError::NotFound(m) => sqlite::SqliteError::NotFound(m),
            new::sqlite::SqliteError::Denied(m) => sqlite::SqliteError::Denied(m),
            new::sqlite::SqliteError::Invalid(m) => sqlite::SqliteError::Invalid(m),
            new::sqlite::SqliteError::LimitExceeded(m) => sqlite::SqliteError::LimitExceeded(m),
            new::sqlite::SqliteError::Sqlite(m) => sqlite::SqliteError::Sqlite(m),
        }
    }
}

impl From<new::sqlite::Value> for sqlite::Value {
    fn from(v: new::sqlite::Value) -> Self {
        match v {
            new::sqlite::Value::Null => sqlite::Value::Null,
            new::sqlite::Value::Integer(i) => sqlite::Value::Integer(i),
            new::sqlite::Value::Real(r) => sqlite::Value::Real(r),
            new::sqlite::Value::Text(t) => sqlite::Value::Text(t),
            new::sqlite::Value::Blob(b) => sqlite::Value::Blob(b),
        }
    }
}

impl From<sqlite::Value> for new::sqlite::Value {
    fn from(v: sqlite::Value) -> Self {
        match v {
            sqlite::Value::Null => new::sqlite::Value::Null,
            sqlite::Value::Integer(i) => new::sqlite::Value::Integer(i),
            sqlite::Value::Real(r) => new::sqlite::Value::Real(r),
            sqlite::Value::Text(t) => new::sqlite::Value::Text(t),
            sqlite::Value::Blob(b) => new::sqlite::Value::Blob(b),
        }
    }
}

// ---- exports: 0.2 results as the newest types ----

impl From<types::CodecError> for new::types::CodecError {
    fn from(e: types::CodecError) -> Self {
        use new::types::CodecError as N;
        match e {
            types::CodecError::Unsupported(m) => N::Unsupported(m),
            types::CodecError::NotFound(m) => N::NotFound(m),
            types::CodecError::Malformed(m) => N::Malformed(m),
            types::CodecError::Io(m) => N::Io(m),
            types::CodecError::LimitExceeded(m) => N::LimitExceeded(m),
            types::CodecError::Other(m) => N::Other(m),
        }
    }
}

impl From<types::Diagnostic> for new::types::Diagnostic {
    fn from(d: types::Diagnostic) -> Self {
        let severity = match d.severity {
            types::Severity::Info => new::types::Severity::Info,
            types::Severity::Warning => new::types::Severity::Warning,
            types::Severity::Error => new::types::Severity::Error,
        };
        new::types::Diagnostic {
            code: d.code,
            severity,
            detail: d.detail,
            count: d.count,
            file: d.file,
            offset: d.offset,
        }
    }
}

fn diagnostics(list: Vec<types::Diagnostic>) -> Vec<new::types::Diagnostic> {
    list.into_iter().map(Into::into).collect()
}

impl From<codec::CodecInfo> for new::codec::CodecInfo {
    fn from(i: codec::CodecInfo) -> Self {
        new::codec::CodecInfo {
            harness: i.harness,
            codec_version: i.codec_version,
            native_versions: i.native_versions,
            native_version_source: i.native_version_source,
            reads: i.reads,
            writes: i.writes,
            session_globs: i.session_globs,
            canonical_schema: i.canonical_schema,
        }
    }
}

impl From<codec::SessionRef> for new::codec::SessionRef {
    fn from(s: codec::SessionRef) -> Self {
        new::codec::SessionRef {
            native_id: s.native_id,
            locator: s.locator,
            cwd: s.cwd,
            started_at: s.started_at,
            updated_at: s.updated_at,
            size: s.size,
            native_version: s.native_version,
            title: s.title,
        }
    }
}

impl From<codec::Discovery> for new::codec::Discovery {
    fn from(d: codec::Discovery) -> Self {
        new::codec::Discovery {
            sessions: d.sessions.into_iter().map(Into::into).collect(),
            diagnostics: diagnostics(d.diagnostics),
        }
    }
}

impl From<codec::Sniffed> for new::codec::Sniffed {
    fn from(s: codec::Sniffed) -> Self {
        new::codec::Sniffed { native_version: s.native_version, native_id: s.native_id }
    }
}

impl From<codec::Batch> for new::codec::Batch {
    fn from(b: codec::Batch) -> Self {
        new::codec::Batch { records: b.records, diagnostics: diagnostics(b.diagnostics) }
    }
}

impl From<codec::ArtifactChunk> for new::codec::ArtifactChunk {
    fn from(c: codec::ArtifactChunk) -> Self {
        new::codec::ArtifactChunk { path: c.path, bytes: c.bytes }
    }
}

impl From<codec::Written> for new::codec::Written {
    fn from(w: codec::Written) -> Self {
        new::codec::Written {
            native_id: w.native_id,
            chunks: w.chunks.into_iter().map(Into::into).collect(),
            diagnostics: diagnostics(w.diagnostics),
        }
    }
}

fn rows(rows: Vec<Vec<sqlite::Value>>) -> Vec<Vec<new::sqlite::Value>> {
    rows.into_iter().map(|r| r.into_iter().map(Into::into).collect()).collect()
}

impl From<codec::Operation> for new::codec::Operation {
    fn from(op: codec::Operation) -> Self {
        use new::codec as n;
        match op {
            codec::Operation::CreateFile(f) => n::Operation::CreateFile(n::CreateFile { path: f.path, bytes: f.bytes }),
            codec::Operation::CopyArtifact(c) => {
                n::Operation::CopyArtifact(n::CopyArtifact { artifact: c.artifact, path: c.path })
            }
            codec::Operation::InsertRows(i) => n::Operation::InsertRows(n::InsertRows {
                database: i.database,
                table: i.table,
                columns: i.columns,
                rows: rows(i.rows),
            }),
            codec::Operation::CreateDatabase(d) => n::Operation::CreateDatabase(n::CreateDatabase {
                path: d.path,
                schema: d.schema,
                user_version: d.user_version,
                tables: d
                    .tables
                    .into_iter()
                    .map(|t| n::TableRows { table: t.table, columns: t.columns, rows: rows(t.rows) })
                    .collect(),
            }),
            codec::Operation::AddJsonEntry(j) => n::Operation::AddJsonEntry(n::AddJsonEntry {
                path: j.path,
                pointer: j.pointer,
                key: j.key,
                match_member: j.match_member,
                value: j.value,
                initial: j.initial,
            }),
        }
    }
}

impl From<codec::Plan> for new::codec::Plan {
    fn from(p: codec::Plan) -> Self {
        new::codec::Plan {
            native_id: p.native_id,
            operations: p.operations.into_iter().map(Into::into).collect(),
            resume_command: p.resume_command,
        }
    }
}

impl From<&new::codec::ReadOptions> for codec::ReadOptions {
    fn from(o: &new::codec::ReadOptions) -> Self {
        codec::ReadOptions { max_batch_records: o.max_batch_records, max_batch_bytes: o.max_batch_bytes }
    }
}

impl From<&new::codec::WriteOptions> for codec::WriteOptions {
    fn from(o: &new::codec::WriteOptions) -> Self {
        codec::WriteOptions { cwd: o.cwd.clone(), native_id: o.native_id.clone(), home_path: o.home_path.clone() }
    }
}

impl From<&new::codec::ArtifactInfo> for codec::ArtifactInfo {
    fn from(a: &new::codec::ArtifactInfo) -> Self {
        codec::ArtifactInfo { path: a.path.clone(), size: a.size, sha256: a.sha256.clone() }
    }
}

#[cfg(test)]
mod tests {
    use super::{codec, new};

    /// Every 0.2 operation arrives as the same operation of the newest API.
    #[test]
    fn a_0_2_plan_converts_operation_by_operation() {
        let plan = codec::Plan {
            native_id: "s".into(),
            operations: vec![
                codec::Operation::CreateFile(codec::CreateFile { path: "a".into(), bytes: b"x".to_vec() }),
                codec::Operation::CopyArtifact(codec::CopyArtifact { artifact: "b".into(), path: "c".into() }),
                codec::Operation::AddJsonEntry(codec::AddJsonEntry {
                    path: "i.json".into(),
                    pointer: "/k".into(),
                    key: Some("e".into()),
                    match_member: None,
                    value: "1".into(),
                    initial: Some("{}".into()),
                }),
            ],
            resume_command: Some("go".into()),
        };
        let converted: new::codec::Plan = plan.into();
        assert_eq!(converted.native_id, "s");
        assert_eq!(converted.resume_command.as_deref(), Some("go"));
        assert!(
            matches!(&converted.operations[0], new::codec::Operation::CreateFile(f) if f.path == "a" && f.bytes == b"x")
        );
        assert!(
            matches!(&converted.operations[1], new::codec::Operation::CopyArtifact(c) if c.artifact == "b" && c.path == "c")
        );
        assert!(
            matches!(&converted.operations[2], new::codec::Operation::AddJsonEntry(j) if j.key.as_deref() == Some("e") && j.initial.as_deref() == Some("{}"))
        );
    }
}
