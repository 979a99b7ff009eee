// The toy codec, shared by the `v1` and `v2` crates, which differ only in
// `CODEC_VERSION`, `NATIVE_VERSIONS` and `SESSION_DIR` (1.x keeps sessions in
// `toy/`, 2.x in `toy2/`, as a harness that moved its store would), and the
// `reorder` crate (3.x, `toy3/`), whose writer swaps the first two messages
// (`SWAP_FIRST_TWO`) for the fidelity order tests. Format:
// `<SESSION_DIR>/<id>.jsonl`, each line
// `{"v": "<native version>", "role": "user"|"assistant", "text": "..."}`.
//
// `sniff` recognizes a toy file anywhere by its first line; `write` keeps the
// user and assistant texts, `prepare` copies the result into the folder.
//
// For the host's failure tests: a file `panic.trap` in the session folder
// makes `discover` panic, `loop.trap` makes it spin until the time limit,
// and a line with role `panic` makes `read` panic. Any other file that is not
// `*.jsonl` is reported as a `not-a-session` diagnostic naming it.

use trajhost_codec_sdk::jsonl::BadLine;
use trajhost_codec_sdk::prelude::*;

pub struct Toy;

pub struct Reader {
    lines: JsonLines,
    file: String,
    batch: BatchWriter,
    diagnostics: Diagnostics,
    meta_sent: bool,
    id: String,
    done: bool,
}

fn native_version(home: &Dir, path: &str) -> Option<String> {
    let mut lines = JsonLines::open(home, path).ok()?;
    let line = lines.next_line()?.ok()?;
    let value: serde_json::Value = serde_json::from_slice(line.bytes).ok()?;
    value["v"].as_str().map(String::from)
}

impl SessionReader for Reader {
    fn next_batch(&mut self) -> Result<Option<Batch>, CodecError> {
        if self.done {
            return Ok(None);
        }
        if !self.meta_sent {
            self.meta_sent = true;
            self.batch.push(&Record {
                id: format!("{}:meta", self.id),
                body: Body::Meta(canonical::Meta {
                    schema: canonical::SCHEMA.into(),
                    harness: "toy".into(),
                    native_id: self.id.clone(),
                    codec: Some(format!("toy@{CODEC_VERSION}")),
                    ..Default::default()
                }),
                parent: None,
                ts: None,
                agent: None,
                src: None,
            });
        }
        loop {
            let Some(line) = self.lines.next_line() else {
                self.done = true;
                let diagnostics = self.diagnostics.drain();
                return Ok(Some(self.batch.take(diagnostics)));
            };
            let line = line?;
            let span = SourceSpan { file: self.file.clone(), offset: line.offset, len: line.len };
            let value: serde_json::Value = match serde_json::from_slice(line.bytes) {
                Ok(v) => v,
                Err(_) => {
                    let code = BadLine::of(&line).code();
                    self.diagnostics.add(code, Severity::Warning, "line", Some(&span.file), Some(span.offset));
                    continue;
                }
            };
            let text = value["text"].as_str().unwrap_or_default().to_string();
            let body = match value["role"].as_str() {
                Some("user") => Body::User { text, attachments: vec![] },
                Some("assistant") => Body::Assistant(canonical::Assistant { text, ..Default::default() }),
                Some("panic") => panic!("the toy codec was told to panic at byte {}", span.offset),
                other => {
                    self.diagnostics.add(
                        "unknown-record-type",
                        Severity::Warning,
                        other.unwrap_or("(none)"),
                        Some(&span.file),
                        Some(span.offset),
                    );
                    continue;
                }
            };
            self.batch.push(&Record {
                id: format!("{}@{}", span.file, span.offset),
                body,
                parent: None,
                ts: None,
                agent: None,
                src: Some(span),
            });
            if self.batch.is_full() {
                return Ok(Some(self.batch.take(Vec::new())));
            }
        }
    }
}

impl Codec for Toy {
    type Reader = Reader;

    fn info() -> CodecInfo {
        CodecInfo {
            harness: "toy".into(),
            codec_version: CODEC_VERSION.into(),
            native_versions: NATIVE_VERSIONS.into(),
            native_version_source: "`v` of the first line".into(),
            reads: vec!["toy-jsonl".into()],
            writes: vec!["toy-jsonl".into()],
            session_globs: vec![format!("{SESSION_DIR}/*.jsonl")],
            canonical_schema: canonical::SCHEMA.into(),
        }
    }

    fn discover(home: &Dir) -> Result<Discovery, CodecError> {
        let mut sessions = Vec::new();
        let mut diagnostics = Vec::new();
        let entries = match home.list(SESSION_DIR) {
            Ok(entries) => entries,
            Err(FsError::NotFound(_)) => Vec::new(),
            Err(e) => return Err(e.into()),
        };
        for entry in entries {
            let locator = format!("{SESSION_DIR}/{}", entry.name);
            match entry.name.as_str() {
                "panic.trap" => panic!("the toy codec was told to panic in discover"),
                "loop.trap" => {
                    let mut x: u64 = 0;
                    loop {
                        x = std::hint::black_box(x.wrapping_add(1));
                    }
                }
                _ => {}
            }
            let Some(id) = entry.name.strip_suffix(".jsonl") else {
                // One diagnostic per file, naming it.
                diagnostics.push(Diagnostic {
                    code: "not-a-session".into(),
                    severity: Severity::Warning,
                    detail: "not a .jsonl file".into(),
                    count: 1,
                    file: Some(locator),
                    offset: None,
                });
                continue;
            };
            sessions.push(SessionRef {
                native_id: id.to_string(),
                native_version: native_version(home, &locator),
                locator,
                cwd: None,
                started_at: None,
                updated_at: None,
                size: entry.meta.size,
                title: None,
            });
        }
        Ok(Discovery { sessions, diagnostics })
    }

    /// A toy file wherever it lies: its first line is an object with `v`
    /// and `role`.
    fn sniff(_path: &str, head: &[u8]) -> Option<Sniffed> {
        let first = head.split(|b| *b == b'\n').next()?;
        let value: serde_json::Value = serde_json::from_slice(first).ok()?;
        value.get("role")?;
        Some(Sniffed { native_version: value["v"].as_str().map(String::from), native_id: None })
    }

    fn write(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
        Ok(WholeDocument::boxed(options, write_document))
    }

    /// Creates the artifact's file in the session folder; a cwd of `/panic`
    /// makes it panic instead (for the host's exit-code tests).
    fn prepare(
        artifacts: Vec<ArtifactInfo>,
        export: &Dir,
        _target: &Dir,
        options: WriteOptions,
    ) -> Result<Plan, CodecError> {
        if options.cwd.as_deref() == Some("/panic") {
            panic!("the toy codec was told to panic in prepare");
        }
        let operations = trajhost_codec_sdk::load_artifacts(export, &artifacts)?
            .into_iter()
            .map(|a| Operation::CreateFile(trajhost_codec_sdk::CreateFile { path: a.path, bytes: a.bytes }))
            .collect();
        Ok(Plan { native_id: options.native_id.clone().unwrap_or_default(), operations, resume_command: None })
    }

    fn read(home: Dir, locator: &str, options: ReadOptions) -> Result<Reader, CodecError> {
        let id = locator.rsplit('/').next().unwrap_or(locator).trim_end_matches(".jsonl").to_string();
        Ok(Reader {
            lines: JsonLines::open(&home, locator)?,
            file: locator.to_string(),
            batch: BatchWriter::new(&options),
            diagnostics: Diagnostics::new(),
            meta_sent: false,
            id,
            done: false,
        })
    }
}

/// The toy format of a canonical document: its user and assistant texts.
fn write_document(document: &str, options: &WriteOptions) -> Result<Written, CodecError> {
    let mut native_id = options.native_id.clone();
    let mut lines: Vec<String> = Vec::new();
    let version = CODEC_VERSION;
    for line in document.lines().filter(|l| !l.trim().is_empty()) {
        let record: Record =
            serde_json::from_str(line).map_err(|e| CodecError::Malformed(format!("canonical record: {e}")))?;
        let role = match record.body {
            Body::Meta(meta) => {
                native_id.get_or_insert(meta.native_id);
                continue;
            }
            Body::User { text, .. } => ("user", text),
            Body::Assistant(a) => ("assistant", a.text),
            _ => continue,
        };
        lines.push(serde_json::json!({"v": version, "role": role.0, "text": role.1}).to_string());
    }
    if SWAP_FIRST_TWO && lines.len() >= 2 {
        lines.swap(0, 1);
    }
    let out: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let native_id = native_id.ok_or_else(|| CodecError::Malformed("the document has no meta record".into()))?;
    Ok(Written {
        chunks: vec![ArtifactChunk { path: format!("{SESSION_DIR}/{native_id}.jsonl"), bytes: out.into_bytes() }],
        native_id,
        diagnostics: Vec::new(),
    })
}

trajhost_codec_sdk::export_codec!(Toy);
