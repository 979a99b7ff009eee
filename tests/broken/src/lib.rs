//! A codec that breaks one conformance rule, chosen by the session it reads,
//! so that `trajhost plugin test` can be shown to name each rule.
//!
//! Format: `broken/<id>.jsonl`. The first line is a header,
//! `{"defect": "<name>", "v": "<native version>"}`; every other line is
//! `{"role": "user"|"assistant", "text": …}` or
//! `{"role": "tool_call"|"tool_result", "call": …, "text": …}`.
//!
//! Defects (`fixtures/broken/<defect>/` holds one home each):
//! - `none`: conforming (the control);
//! - `no-meta`: no `meta` record;
//! - `no-src`: records without `src`;
//! - `dup-ids`: every tool record has the same id;
//! - `unstable-ids`: ids from the record's position in its batch. A guest
//!   gets a fresh instance per operation and has no clock or random source,
//!   so two reads with the same options give the same ids; the `stable-ids`
//!   check reads a second time cut into other batches, which such ids do
//!   not survive (nor would ids from any per-read state);
//! - `result-before-call`: each `tool_result` is emitted before its call;
//! - `answer-before-result`: nothing in the codec, which reads in file order;
//!   the fixture's file has the answer quoting a tool's output ahead of the
//!   call and its result (as a reader that misorders a message's steps would
//!   emit it);
//! - `version-out-of-range`: nothing in the codec; the fixture's version
//!   lies outside `native-versions`;
//! - `inspect-disagrees`: `inspect` reports another title than `discover`;
//! - `panic`: the reader panics on its first batch.

use trajhost_codec_sdk::prelude::*;

pub struct Broken;

const NATIVE_VERSIONS: &str = ">=1.0.0, <2.0.0";

struct Header {
    defect: String,
    version: Option<String>,
}

fn header(home: &Dir, path: &str) -> Result<Header, CodecError> {
    let mut lines = JsonLines::open(home, path)?;
    let line = lines.next_line().ok_or_else(|| CodecError::Malformed(format!("{path}: empty")))??;
    let value: serde_json::Value =
        serde_json::from_slice(line.bytes).map_err(|e| CodecError::Malformed(format!("{path}: header: {e}")))?;
    Ok(Header {
        defect: value["defect"].as_str().unwrap_or("none").to_string(),
        version: value["v"].as_str().map(String::from),
    })
}

pub struct Reader {
    lines: JsonLines,
    file: String,
    id: String,
    defect: String,
    version: Option<String>,
    batch: BatchWriter,
    diagnostics: Diagnostics,
    started: bool,
    done: bool,
    /// Records in the current batch, for `unstable-ids`.
    in_batch: u32,
    /// A tool call held back until its result is out (`result-before-call`).
    held_call: Option<Record>,
}

impl Reader {
    fn push(&mut self, mut record: Record) {
        match self.defect.as_str() {
            "no-src" => record.src = None,
            "dup-ids" if matches!(record.body, Body::ToolCall { .. } | Body::ToolResult { .. }) => {
                record.id = "tool".into()
            }
            "unstable-ids" => record.id = format!("{}#{}", self.id, self.in_batch),
            _ => {}
        }
        self.batch.push(&record);
        self.in_batch += 1;
    }
}

impl SessionReader for Reader {
    fn next_batch(&mut self) -> Result<Option<Batch>, CodecError> {
        if self.done {
            return Ok(None);
        }
        if self.defect == "panic" {
            panic!("boom: the fixture asked for a panic");
        }
        self.in_batch = 0;
        if !self.started {
            self.started = true;
            // Skip the header line.
            self.lines.next_line().transpose()?;
            if self.defect != "no-meta" {
                let meta = Record {
                    id: format!("{}:meta", self.id),
                    body: Body::Meta(canonical::Meta {
                        schema: canonical::SCHEMA.into(),
                        harness: "broken".into(),
                        native_id: self.id.clone(),
                        native_version: self.version.clone(),
                        ..Default::default()
                    }),
                    parent: None,
                    ts: None,
                    agent: None,
                    src: None,
                };
                self.push(meta);
            }
        }
        loop {
            let Some(line) = self.lines.next_line() else {
                self.done = true;
                if let Some(call) = self.held_call.take() {
                    self.push(call);
                }
                let diagnostics = self.diagnostics.drain();
                return Ok(Some(self.batch.take(diagnostics)));
            };
            let line = line?;
            let span = SourceSpan { file: self.file.clone(), offset: line.offset, len: line.len };
            let Ok(value) = serde_json::from_slice::<serde_json::Value>(line.bytes) else {
                let code = trajhost_codec_sdk::jsonl::BadLine::of(&line).code();
                self.diagnostics.add(code, Severity::Warning, "line", Some(&span.file), Some(span.offset));
                continue;
            };
            let text = value["text"].as_str().unwrap_or_default().to_string();
            let call_id = value["call"].as_str().unwrap_or_default().to_string();
            let body = match value["role"].as_str() {
                Some("user") => Body::User { text, attachments: vec![] },
                Some("assistant") => Body::Assistant(canonical::Assistant { text, ..Default::default() }),
                Some("tool_call") => {
                    Body::ToolCall { call_id, name: "Bash".into(), arguments: serde_json::json!({ "command": text }) }
                }
                Some("tool_result") => Body::ToolResult { call_id, content: text, ok: None },
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
            let record = Record {
                id: trajhost_codec_sdk::records::location_id(&span.file, span.offset, 0),
                body,
                parent: None,
                ts: None,
                agent: None,
                src: Some(span),
            };
            if self.defect == "result-before-call" {
                match record.body {
                    Body::ToolCall { .. } => {
                        self.held_call = Some(record);
                        continue;
                    }
                    Body::ToolResult { .. } => {
                        self.push(record);
                        if let Some(call) = self.held_call.take() {
                            self.push(call);
                        }
                    }
                    _ => self.push(record),
                }
            } else {
                self.push(record);
            }
            if self.batch.is_full() {
                return Ok(Some(self.batch.take(Vec::new())));
            }
        }
    }
}

impl Codec for Broken {
    type Reader = Reader;

    fn info() -> CodecInfo {
        CodecInfo {
            harness: "broken".into(),
            codec_version: "0.1.0".into(),
            native_versions: NATIVE_VERSIONS.into(),
            native_version_source: "`v` of the header line".into(),
            reads: vec!["broken-jsonl".into()],
            writes: vec![],
            session_globs: vec!["broken/*.jsonl".into()],
            canonical_schema: canonical::SCHEMA.into(),
        }
    }

    fn discover(home: &Dir) -> Result<Discovery, CodecError> {
        let entries = match home.list("broken") {
            Ok(entries) => entries,
            Err(FsError::NotFound(_)) => Vec::new(),
            Err(e) => return Err(e.into()),
        };
        let mut sessions = Vec::new();
        for entry in entries {
            let Some(id) = entry.name.strip_suffix(".jsonl") else { continue };
            let locator = format!("broken/{}", entry.name);
            let header = header(home, &locator)?;
            sessions.push(SessionRef {
                native_id: id.to_string(),
                native_version: header.version,
                locator,
                cwd: None,
                started_at: None,
                updated_at: None,
                size: entry.meta.size,
                title: None,
            });
        }
        Ok(Discovery { sessions, diagnostics: Vec::new() })
    }

    fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
        let mut session = Self::discover(home)?
            .sessions
            .into_iter()
            .find(|s| s.locator == locator)
            .ok_or_else(|| CodecError::NotFound(locator.to_string()))?;
        if header(home, locator)?.defect == "inspect-disagrees" {
            session.title = Some("a title only inspect knows".into());
        }
        Ok(session)
    }

    fn read(home: Dir, locator: &str, options: ReadOptions) -> Result<Reader, CodecError> {
        let header = header(&home, locator)?;
        let id = locator.rsplit('/').next().unwrap_or(locator).trim_end_matches(".jsonl").to_string();
        Ok(Reader {
            lines: JsonLines::open(&home, locator)?,
            file: locator.to_string(),
            id,
            defect: header.defect,
            version: header.version,
            batch: BatchWriter::new(&options),
            diagnostics: Diagnostics::new(),
            started: false,
            done: false,
            in_batch: 0,
            held_call: None,
        })
    }
}

trajhost_codec_sdk::export_codec!(Broken);
