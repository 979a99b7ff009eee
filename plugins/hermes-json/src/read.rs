//! `read`: one session file as canonical records, streamed in batches.
//!
//! A log is one JSON document: it is read whole, each message located by
//! its byte span (`RawValue`), and the messages are parsed one at a time as
//! batches are asked for. Order: `meta`, the `system_prompt` as a `system`
//! record, then `messages` in order. A transcript is read line by line: its
//! `session_meta` line stands for the header, then one message per line.

use serde_json::Value;
use serde_json::value::RawValue;
use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::{JsonLines, report_bad_line};
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::{CodecError, ReadOptions, Severity};

use crate::discover::{self, fs_error};
use crate::layout::{self, FileKind};
use crate::messages::Mapper;
use crate::{CODEC, HARNESS, time};

/// Largest log read (Hermes rewrites the whole file on every save).
const MAX_LOG_BYTES: u64 = 1 << 30;

enum Source {
    /// A log: its bytes and each message's span.
    Log {
        bytes: Vec<u8>,
        spans: Vec<(u64, u64)>,
        next: usize,
    },
    Lines(JsonLines),
}

pub struct Reader {
    file: String,
    source: Source,
    mapper: Mapper,
    writer: BatchWriter,
    diags: Diagnostics,
    pending: Vec<Record>,
    /// Messages mapped so far (their ordinal makes their ids).
    count: usize,
    done: bool,
}

fn span_of(bytes: &[u8], raw: &RawValue) -> (u64, u64) {
    let offset = raw.get().as_ptr() as usize - bytes.as_ptr() as usize;
    (offset as u64, raw.get().len() as u64)
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        let kind = layout::check_locator(locator)?;
        let file = home.open(locator).map_err(|e| fs_error(locator, e))?;
        let head = discover::head_of(&file, kind).map_err(|e| fs_error(locator, e))?;
        let name = locator.rsplit('/').next().unwrap_or(locator);
        let (native_id, mismatch) = discover::native_id(&head, name);
        let mut diags = Diagnostics::new();
        if mismatch {
            diags.add("session-id-mismatch", Severity::Warning, "session_id", Some(locator), None);
        }
        let meta = |src: Option<SourceSpan>| Record {
            id: native_id.clone(),
            body: Body::Meta(Meta {
                schema: SCHEMA.into(),
                harness: HARNESS.into(),
                native_id: native_id.clone(),
                native_version: None,
                cwd: head.cwd.clone(),
                title: head.title(),
                git_branch: None,
                started_at: head.started_at.clone(),
                parent_session: None,
                parent_call: None,
                codec: Some(CODEC.into()),
            }),
            parent: None,
            ts: head.started_at.clone(),
            agent: None,
            src,
        };
        let mut pending = Vec::new();
        let source = match kind {
            FileKind::Transcript => {
                pending.push(meta(None));
                Source::Lines(JsonLines::new(file, locator))
            }
            _ => {
                let bytes = home.read_to_end(locator, MAX_LOG_BYTES).map_err(|e| fs_error(locator, e))?;
                let malformed =
                    |e: serde_json::Error| CodecError::Malformed(format!("{locator}: not a Hermes session log: {e}"));
                // A log (or an export `{session, messages}`), else an
                // export's bare array of message rows.
                let top: std::collections::BTreeMap<String, &RawValue> = if bytes.trim_ascii_start().starts_with(b"[") {
                    let raw: &RawValue = serde_json::from_slice(&bytes).map_err(malformed)?;
                    std::collections::BTreeMap::from([("messages".to_string(), raw)])
                } else {
                    serde_json::from_slice(&bytes).map_err(malformed)?
                };
                let whole = SourceSpan { file: locator.to_string(), offset: 0, len: bytes.len() as u64 };
                pending.push(meta(Some(whole)));
                let prompt = top.get("system_prompt").or_else(|| top.get("session")).and_then(|raw| {
                    let text = match serde_json::from_str::<Value>(raw.get()).ok()? {
                        Value::String(s) => s,
                        Value::Object(row) => row.get("system_prompt")?.as_str()?.to_string(),
                        _ => return None,
                    };
                    (!text.is_empty()).then(|| (text, span_of(&bytes, raw)))
                });
                if let Some((prompt, (offset, len))) = prompt {
                    pending.push(Record {
                        id: format!("{native_id}:system"),
                        body: Body::System { text: prompt },
                        parent: None,
                        ts: head.started_at.clone(),
                        agent: None,
                        src: Some(SourceSpan { file: locator.to_string(), offset, len }),
                    });
                }
                let spans = match top.get("messages").map(|raw| serde_json::from_str::<Vec<&RawValue>>(raw.get())) {
                    Some(Ok(messages)) => messages.iter().map(|m| span_of(&bytes, m)).collect(),
                    Some(Err(_)) => {
                        diags.add("malformed-field", Severity::Error, "messages", Some(locator), None);
                        Vec::new()
                    }
                    None => Vec::new(),
                };
                drop(top);
                Source::Log { bytes, spans, next: 0 }
            }
        };
        pending.reverse();
        Ok(Reader {
            file: locator.to_string(),
            source,
            mapper: Mapper::new(&native_id, head.model.clone()),
            writer: BatchWriter::new(options),
            diags,
            pending,
            count: 0,
            done: false,
        })
    }
}

impl Steps for Reader {
    fn step(&mut self) -> Result<bool, CodecError> {
        if let Some(record) = self.pending.pop() {
            self.writer.push(&record);
            return Ok(true);
        }
        let (message, offset, len) = match &mut self.source {
            Source::Log { bytes, spans, next } => {
                let Some(&(offset, len)) = spans.get(*next) else { return Ok(false) };
                *next += 1;
                let raw = &bytes[offset as usize..(offset + len) as usize];
                match serde_json::from_slice::<Value>(raw) {
                    Ok(m @ Value::Object(_)) => (m, offset, len),
                    _ => {
                        self.diags.add(
                            "malformed-message",
                            Severity::Error,
                            "not an object",
                            Some(&self.file),
                            Some(offset),
                        );
                        return Ok(true);
                    }
                }
            }
            Source::Lines(lines) => {
                let Some(line) = lines.next_line() else { return Ok(false) };
                let line = line.map_err(|e| fs_error(&self.file, e))?;
                if line.bytes.iter().all(u8::is_ascii_whitespace) {
                    return Ok(true);
                }
                match serde_json::from_slice::<Value>(line.bytes) {
                    Ok(m @ Value::Object(_)) => (m, line.offset, line.len),
                    _ => {
                        report_bad_line(&mut self.diags, &line, "line", &self.file);
                        return Ok(true);
                    }
                }
            }
        };
        let n = self.count;
        self.count += 1;
        let ts = message.get("timestamp").and_then(time::of_value);
        for made in self.mapper.map(n, &message, &self.file, offset, &mut self.diags) {
            self.writer.push(&made.at(ts.clone(), SourceSpan { file: self.file.clone(), offset, len }));
        }
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}
