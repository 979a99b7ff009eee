//! A test codec whose native format is canonical JSONL itself, so that any
//! session converts into it, and whose `prepare` plans every install
//! operation of API 0.3 the way the SQLite- and index-store harnesses need:
//!
//! - `copy-artifact`: the session file, unread;
//! - `create-database` (fresh home) or `insert-rows` (existing index): the
//!   row in `install-ops/index.db` whose `path` is the absolute path in the
//!   target home (as Cline's `messages_path` must be);
//! - `add-json-entry` into `install-ops/config.json`: the cwd appended to
//!   `work_dirs` unless present (as Kimi's `kimi.json` needs), and the session
//!   added under `sessions` by id;
//! - `create-file`: a small sidecar;
//! - `append-file` (API 0.3.0): a line naming the session after the end of
//!   `install-ops/history.md` when the home has one (as Aider's history),
//!   expecting the bytes read here.

use serde_json::{Value, json};
use trajhost_codec_sdk::jsonl::BadLine;
use trajhost_codec_sdk::prelude::*;
use trajhost_codec_sdk::sqlite::Value as SqlValue;
use trajhost_codec_sdk::writer::install;
use trajhost_codec_sdk::{AddJsonEntry, CopyArtifact, CreateDatabase, CreateFile, InsertRows, TableRows};

const SESSIONS: &str = "install-ops/sessions";
const INDEX_DB: &str = "install-ops/index.db";
const CONFIG: &str = "install-ops/config.json";
const HISTORY: &str = "install-ops/history.md";

pub struct InstallOps;

pub struct Reader {
    lines: JsonLines,
    file: String,
    batch: BatchWriter,
    diagnostics: Diagnostics,
    done: bool,
}

impl SessionReader for Reader {
    fn next_batch(&mut self) -> Result<Option<Batch>, CodecError> {
        if self.done {
            return Ok(None);
        }
        loop {
            let Some(line) = self.lines.next_line() else {
                self.done = true;
                return Ok(Some(self.batch.take(self.diagnostics.drain())));
            };
            let line = line?;
            let span = SourceSpan { file: self.file.clone(), offset: line.offset, len: line.len };
            match serde_json::from_slice::<Record>(line.bytes) {
                Ok(mut record) => {
                    if !matches!(record.body, Body::Meta(_)) {
                        record.src = Some(span);
                    }
                    self.batch.push(&record);
                }
                Err(_) => {
                    let code = BadLine::of(&line).code();
                    self.diagnostics.add(
                        code,
                        Severity::Warning,
                        "canonical line",
                        Some(&self.file),
                        Some(line.offset),
                    );
                }
            }
            if self.batch.is_full() {
                return Ok(Some(self.batch.take(self.diagnostics.drain())));
            }
        }
    }
}

/// Writes the pushed records as they come; the id is the meta's native id.
struct Writer {
    options: WriteOptions,
    native_id: Option<String>,
}

impl SessionWriter for Writer {
    fn push(&mut self, records: &str) -> Result<Vec<Artifact>, CodecError> {
        if self.native_id.is_none() {
            let first = records.lines().next().unwrap_or("");
            let meta: Value =
                serde_json::from_str(first).map_err(|e| CodecError::Malformed(format!("first record: {e}")))?;
            let source = meta["native_id"]
                .as_str()
                .ok_or_else(|| CodecError::Malformed("the first record is not meta".into()))?;
            let id = self.options.native_id.clone().unwrap_or_else(|| {
                format!("ops-{}", source.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect::<String>())
            });
            self.native_id = Some(id);
        }
        let path = format!("{SESSIONS}/{}.jsonl", self.native_id.as_deref().unwrap_or(""));
        Ok(vec![Artifact { path, bytes: records.as_bytes().to_vec() }])
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        let native_id = self.native_id.clone().ok_or_else(|| CodecError::Malformed("no records".into()))?;
        Ok(Written { native_id, chunks: Vec::new(), diagnostics: Vec::new() })
    }
}

impl Codec for InstallOps {
    type Reader = Reader;

    fn info() -> CodecInfo {
        CodecInfo {
            harness: "install-ops".into(),
            codec_version: env!("CARGO_PKG_VERSION").into(),
            native_versions: ">=1.0.0, <2.0.0".into(),
            native_version_source: "fixed: 1.0.0".into(),
            reads: vec!["canonical-jsonl".into()],
            writes: vec!["canonical-jsonl".into()],
            session_globs: vec![format!("{SESSIONS}/*.jsonl")],
            canonical_schema: canonical::SCHEMA.into(),
        }
    }

    fn discover(home: &Dir) -> Result<Discovery, CodecError> {
        let mut sessions = Vec::new();
        if let Ok(entries) = home.list(SESSIONS) {
            for entry in entries.into_iter().filter(|e| e.is_file() && e.name.ends_with(".jsonl")) {
                sessions.push(SessionRef {
                    native_id: entry.name.trim_end_matches(".jsonl").to_string(),
                    locator: format!("{SESSIONS}/{}", entry.name),
                    cwd: None,
                    started_at: None,
                    updated_at: None,
                    size: entry.meta.size,
                    native_version: Some("1.0.0".into()),
                    title: None,
                });
            }
        }
        Ok(Discovery { sessions, diagnostics: Vec::new() })
    }

    fn read(home: Dir, locator: &str, options: ReadOptions) -> Result<Reader, CodecError> {
        Ok(Reader {
            lines: JsonLines::open(&home, locator)?,
            file: locator.to_string(),
            batch: BatchWriter::new(&options),
            diagnostics: Diagnostics::new(),
            done: false,
        })
    }

    fn write(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
        Ok(Box::new(Writer { options, native_id: None }))
    }

    fn prepare(
        artifacts: Vec<ArtifactInfo>,
        _export: &Dir,
        target: &Dir,
        options: WriteOptions,
    ) -> Result<Plan, CodecError> {
        let native_id =
            options.native_id.clone().ok_or_else(|| CodecError::Other("prepare needs the native id".into()))?;
        let session = artifacts.first().ok_or_else(|| CodecError::Other("no artifact".into()))?;
        let home = options.home_path.clone().ok_or_else(|| CodecError::Other("prepare needs the home path".into()))?;
        let cwd = options.cwd.clone().unwrap_or_else(|| "/".into());
        let row = vec![
            SqlValue::Text(native_id.clone()),
            SqlValue::Text(format!("{home}/{}", session.path)),
            SqlValue::Text(cwd.clone()),
        ];
        let columns = vec!["id".to_string(), "path".to_string(), "cwd".to_string()];
        let index = if target.stat(INDEX_DB).is_ok() {
            Operation::InsertRows(InsertRows {
                database: INDEX_DB.into(),
                table: "sessions".into(),
                columns,
                rows: vec![row],
            })
        } else {
            Operation::CreateDatabase(CreateDatabase {
                path: INDEX_DB.into(),
                schema: vec![
                    "CREATE TABLE sessions (id TEXT PRIMARY KEY, path TEXT NOT NULL, cwd TEXT)".into(),
                    "CREATE INDEX sessions_cwd ON sessions (cwd)".into(),
                ],
                user_version: Some(3),
                tables: vec![TableRows { table: "sessions".into(), columns, rows: vec![row] }],
            })
        };
        let mut operations = vec![
            Operation::CopyArtifact(CopyArtifact { artifact: session.path.clone(), path: session.path.clone() }),
            index,
            Operation::AddJsonEntry(AddJsonEntry {
                path: CONFIG.into(),
                pointer: "/work_dirs".into(),
                key: None,
                match_member: Some("path".into()),
                value: json!({"path": cwd}).to_string(),
                initial: Some(json!({"work_dirs": []}).to_string()),
            }),
            Operation::AddJsonEntry(AddJsonEntry {
                path: CONFIG.into(),
                pointer: "/sessions".into(),
                key: Some(native_id.clone()),
                match_member: None,
                value: json!({"cwd": cwd}).to_string(),
                initial: Some(json!({"work_dirs": []}).to_string()),
            }),
            Operation::CreateFile(CreateFile {
                path: format!("{SESSIONS}/{native_id}.meta.json"),
                bytes: json!({"id": native_id}).to_string().into_bytes(),
            }),
        ];
        if let Some(current) = install::read_existing(target, HISTORY, 1 << 20)? {
            let line = format!("session {native_id}\n").into_bytes();
            operations.push(install::append_file(HISTORY, &current, line));
        }
        Ok(Plan {
            native_id: native_id.clone(),
            operations,
            resume_command: Some(format!("install-ops resume {native_id}")),
        })
    }
}

trajhost_codec_sdk::export_codec!(InstallOps);
