//! `read`: one conversation (of either format) as canonical records,
//! streamed in batches: `meta`, then `messages.jsonl` in file order. A first pass notes where
//! each message id's last snapshot is (ids and offsets only, bounded by
//! [`MAX_IDS`]); the second pass emits only last snapshots.

use std::collections::BTreeMap;

use serde_json::Value;
use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::{JsonLines, report_bad_line};
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::{CodecError, ReadOptions, Severity};

use crate::HARNESS;
use crate::discover;
use crate::layout::SessionPaths;
use crate::records::{Out, map_line, message_id};
use trajhost_codec_sdk::errors::{fs_error, fs_kind};

/// Message ids whose last position is remembered; past it, every snapshot
/// of a new id is emitted.
pub const MAX_IDS: usize = 200_000;

pub struct Reader {
    file: String,
    writer: BatchWriter,
    diags: Diagnostics,
    lines: Option<JsonLines>,
    last: BTreeMap<String, u64>,
    done: bool,
}

impl Reader {
    /// `codec` is the reading codec's id (`meta.codec`).
    pub fn open(home: Dir, locator: &str, options: &ReadOptions, codec: &str) -> Result<Reader, CodecError> {
        let paths = SessionPaths::from_locator(locator)?;
        let lines = JsonLines::open(&home, locator).map_err(|e| fs_error(locator, e))?;
        let mut diags = Diagnostics::new();
        let files = home.list(&paths.dir).map_err(|e| fs_error(&paths.dir, e))?;
        let found = discover::session_ref(&home, &paths, &files, &mut Diagnostics::new());
        let native_id = found.as_ref().map_or(paths.native_id.clone(), |(s, _)| s.native_id.clone());
        let last = last_positions(&home, locator, &mut diags);
        let meta = Meta {
            schema: SCHEMA.to_string(),
            harness: HARNESS.to_string(),
            native_id: native_id.clone(),
            native_version: found.as_ref().and_then(|(s, _)| s.native_version.clone()),
            cwd: found.as_ref().and_then(|(s, _)| s.cwd.clone()),
            title: found.as_ref().and_then(|(s, _)| s.title.clone()),
            git_branch: None,
            started_at: found.as_ref().and_then(|(s, _)| s.started_at.clone()),
            parent_session: None,
            parent_call: None,
            codec: Some(codec.to_string()),
        };
        let ts = meta.started_at.clone();
        Ok(Reader {
            file: locator.to_string(),
            writer: BatchWriter::starting_with(
                options,
                &Record { id: native_id, body: Body::Meta(meta), parent: None, ts, agent: None, src: None },
            ),
            diags,
            lines: Some(lines),
            last,
            done: false,
        })
    }
}

impl Steps for Reader {
    fn step(&mut self) -> Result<bool, CodecError> {
        let Some(lines) = self.lines.as_mut() else { return Ok(false) };
        match lines.next_line() {
            Some(Ok(line)) => {
                let Ok(value) = serde_json::from_slice::<Value>(line.bytes) else {
                    report_bad_line(&mut self.diags, &line, "messages line", &self.file);
                    return Ok(true);
                };
                if let Some(id) = message_id(&value)
                    && self.last.get(id).is_some_and(|last| *last != line.offset)
                {
                    self.diags.add(
                        "superseded-snapshot",
                        Severity::Info,
                        "message",
                        Some(&self.file),
                        Some(line.offset),
                    );
                    return Ok(true);
                }
                let span = (line.offset, line.len);
                let mut out = Out { writer: &mut self.writer, diags: &mut self.diags };
                map_line(&self.file, &value, span, &mut out);
            }
            Some(Err(e)) => return Err(fs_error(lines.path(), e)),
            None => self.lines = None,
        }
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}

/// Where each message id is last written.
fn last_positions(home: &Dir, path: &str, diags: &mut Diagnostics) -> BTreeMap<String, u64> {
    let mut last = BTreeMap::new();
    let mut lines = match JsonLines::open(home, path) {
        Ok(lines) => lines,
        Err(e) => {
            diags.add("unreadable-file", Severity::Warning, fs_kind(&e), Some(path), None);
            return last;
        }
    };
    while let Some(Ok(line)) = lines.next_line() {
        let Ok(value) = serde_json::from_slice::<Value>(line.bytes) else { continue };
        if let Some(id) = message_id(&value) {
            if last.len() >= MAX_IDS && !last.contains_key(id) {
                diags.add("snapshot-index-full", Severity::Warning, "message ids", Some(path), None);
                continue;
            }
            last.insert(id.to_string(), line.offset);
        }
    }
    last
}
