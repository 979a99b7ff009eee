//! This codec's export file: one session's transcript entries as JSON lines
//! (what `transcript_events.event_json` holds, in `seq` order: the `session`
//! header, then one chain of entries), at
//! `.openclaw/agents/main/agent/trajhost-export/<session id>.jsonl`.
//!
//! `write` makes it (the guest cannot build SQLite files), `discover` and
//! `read` read it back (so `convert` can measure what survived), and
//! `prepare` turns it into rows of the agent database. OpenClaw itself
//! never reads or writes this directory.

use serde_json::Value as Json;
use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::{WholeLine, non_blank_lines};
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::{CodecError, ReadOptions, SessionRef, Severity};

use crate::events::Mapper;
use crate::sessions::{fs_error, prompt_title};
use crate::{CODEC, HARNESS};

/// The format name in `info.reads` / `writes`.
pub const FORMAT: &str = "openclaw-transcript-export-jsonl";
/// Where export files live, relative to the home.
pub const EXPORT_DIR: &str = ".openclaw/agents/main/agent/trajhost-export";
/// Largest export file read.
pub const MAX_EXPORT_BYTES: u64 = 512 << 20;

/// The export file of session `id`.
pub fn file_path(id: &str) -> String {
    format!("{EXPORT_DIR}/{id}.jsonl")
}

/// Whether `locator` names an export file.
pub fn is_export(locator: &str) -> bool {
    locator
        .strip_prefix(EXPORT_DIR)
        .and_then(|r| r.strip_prefix('/'))
        .is_some_and(|name| name.ends_with(".jsonl") && !name.contains('/') && name.len() > ".jsonl".len())
}

/// One parsed line: its byte range and its entry.
pub struct Line {
    pub offset: u64,
    pub len: u64,
    pub entry: Json,
}

/// Every line of an export file; the first must be the `session` header.
pub fn parse(bytes: &[u8], file: &str) -> Result<Vec<Line>, CodecError> {
    let mut out = Vec::new();
    for WholeLine { offset: at, len, bytes: line } in non_blank_lines(bytes) {
        let entry: Json = serde_json::from_slice(line)
            .map_err(|e| CodecError::Malformed(format!("{file}: line at byte {at} is not JSON ({e})")))?;
        if !entry.is_object() {
            return Err(CodecError::Malformed(format!("{file}: line at byte {at} is not an object")));
        }
        out.push(Line { offset: at, len, entry });
    }
    match out.first() {
        Some(first) if first.entry.get("type").and_then(Json::as_str) == Some("session") => Ok(out),
        _ => Err(CodecError::Malformed(format!("{file}: the first line is not a `session` header"))),
    }
}

fn text<'a>(v: &'a Json, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Json::as_str)
}

/// The first user prompt's text (string or `[{type:text}]` content).
fn first_prompt(lines: &[Line]) -> Option<String> {
    lines.iter().find_map(|l| {
        let message = l.entry.get("message")?;
        if text(message, "role") != Some("user") {
            return None;
        }
        match message.get("content")? {
            Json::String(s) => Some(s.clone()),
            Json::Array(blocks) => blocks.iter().find_map(|b| text(b, "text").map(str::to_string)),
            _ => None,
        }
    })
}

/// The session-ref of one export file.
fn session_ref(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let bytes = home.read_to_end(locator, MAX_EXPORT_BYTES).map_err(|e| fs_error(locator, e))?;
    let lines = parse(&bytes, locator)?;
    let header = &lines[0].entry;
    let id = text(header, "id")
        .ok_or_else(|| CodecError::Malformed(format!("{locator}: the session header has no id")))?
        .to_string();
    let last_ts = lines.iter().rev().find_map(|l| text(&l.entry, "timestamp")).map(str::to_string);
    Ok(SessionRef {
        native_id: id,
        locator: locator.to_string(),
        cwd: text(header, "cwd").map(str::to_string),
        started_at: text(header, "timestamp").map(str::to_string),
        updated_at: last_ts,
        size: bytes.len() as u64,
        native_version: None,
        title: first_prompt(&lines).and_then(|p| prompt_title(&p)),
    })
}

/// The export files under `home` (none outside an export).
pub fn discover(home: &Dir, problems: &mut FileProblems) -> Vec<SessionRef> {
    let mut out = Vec::new();
    let Some(entries) = discovery::list(home, EXPORT_DIR, problems) else { return out };
    for entry in entries.iter().filter(|e| e.is_file()) {
        let locator = format!("{EXPORT_DIR}/{}", entry.name);
        if !is_export(&locator) {
            problems.add("unrecognized-file", Severity::Warning, &locator, "not a <session id>.jsonl export file");
            continue;
        }
        match session_ref(home, &locator) {
            Ok(found) => out.push(found),
            Err(e) => problems.add("malformed-head", Severity::Warning, &locator, &error_kind(&e)),
        }
    }
    out
}

fn error_kind(e: &CodecError) -> String {
    match e {
        CodecError::Malformed(m) => m.rsplit_once(": ").map_or(m.clone(), |(_, what)| what.to_string()),
        other => format!("{other:?}").chars().take(80).collect(),
    }
}

/// The session-ref of the export file `locator`.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    session_ref(home, locator)
}

/// A reader over an export file: `meta` from the header, then each entry's
/// records (the file is one chain: every entry is on the active branch).
pub struct Reader {
    file: String,
    lines: std::vec::IntoIter<Line>,
    mapper: Mapper,
    writer: BatchWriter,
    diags: Diagnostics,
    done: bool,
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        let bytes = home.read_to_end(locator, MAX_EXPORT_BYTES).map_err(|e| fs_error(locator, e))?;
        let mut lines = parse(&bytes, locator)?.into_iter();
        let header = lines.next().map(|l| l.entry).unwrap_or_default();
        let id = text(&header, "id")
            .ok_or_else(|| CodecError::Malformed(format!("{locator}: the session header has no id")))?
            .to_string();
        let mut writer = BatchWriter::new(options);
        let started = text(&header, "timestamp").map(str::to_string);
        writer.push(&Record {
            id: id.clone(),
            body: Body::Meta(Meta {
                schema: SCHEMA.into(),
                harness: HARNESS.into(),
                native_id: id,
                native_version: None,
                cwd: text(&header, "cwd").map(str::to_string),
                title: None,
                git_branch: None,
                started_at: started.clone(),
                parent_session: None,
                parent_call: None,
                codec: Some(CODEC.into()),
            }),
            parent: None,
            ts: started,
            agent: None,
            src: None,
        });
        Ok(Reader {
            file: locator.to_string(),
            lines,
            mapper: Mapper::default(),
            writer,
            diags: Diagnostics::new(),
            done: false,
        })
    }
}

impl Steps for Reader {
    fn step(&mut self) -> Result<bool, CodecError> {
        let Some(line) = self.lines.next() else { return Ok(false) };
        let ts = text(&line.entry, "timestamp").map(str::to_string);
        for made in self.mapper.map(&line.entry, &self.file, line.offset, &mut self.diags) {
            self.writer
                .push(&made.at(ts.clone(), SourceSpan { file: self.file.clone(), offset: line.offset, len: line.len }));
        }
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}
