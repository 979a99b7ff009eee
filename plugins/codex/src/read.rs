//! `read`: one rollout as canonical records, streamed in batches.
//!
//! Order: the session's `meta` (from the head), then the rollout in file
//! order. Memory is bounded by the longest line plus one held-back model
//! response (see [`crate::records`]); diagnostics are aggregated and go out
//! with the last batch.

use trajhost_codec_sdk::canonical::Record;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::JsonLines;
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::{Batch, CodecError, ReadOptions, SessionReader, Severity};

use crate::discover::fs_error;
use crate::head::Head;
use crate::layout;
use crate::records::{self, Out, Rollout};

/// A rollout being read.
pub struct Reader {
    lines: JsonLines,
    rollout: Rollout,
    writer: BatchWriter,
    diags: Diagnostics,
    /// The `meta` record, until it is emitted.
    meta: Option<Record>,
    finished: bool,
    done: bool,
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        let name_id = layout::readable_locator(locator)?.map(str::to_string);
        let file = home.open(locator).map_err(|e| fs_error(locator, e))?;
        let head = Head::scan(&file).map_err(|e| fs_error(locator, e))?;
        let mut diags = Diagnostics::new();
        // The session is who its content says; a file name that ends in a
        // thread id only stands in when the head has none.
        let native_id = match (&head.id, name_id) {
            (Some(id), name_id) => {
                if name_id.is_some_and(|n| n != *id) {
                    diags.add("session-id-mismatch", Severity::Warning, "session_meta.id", Some(locator), None);
                }
                id.clone()
            }
            (None, Some(name_id)) => {
                diags.add("no-session-meta", Severity::Warning, "session_meta", Some(locator), None);
                name_id
            }
            (None, None) => {
                let why = head.not_a_rollout().unwrap_or("no session_meta line at the head");
                return Err(CodecError::Malformed(format!("{locator}: not a Codex rollout: {why}")));
            }
        };
        let meta = records::session_meta(locator, &native_id, &head);
        Ok(Reader {
            lines: JsonLines::new(file, locator),
            rollout: Rollout::new(locator.to_string(), &head),
            writer: BatchWriter::new(options),
            diags,
            meta: Some(meta),
            finished: false,
            done: false,
        })
    }
}

impl Steps for Reader {
    /// Does one unit of work (a line). False when nothing is left.
    fn step(&mut self) -> Result<bool, CodecError> {
        if let Some(meta) = self.meta.take() {
            self.writer.push(&meta);
            return Ok(true);
        }
        if self.finished {
            return Ok(false);
        }
        let mut out = Out { writer: &mut self.writer, diags: &mut self.diags };
        match self.lines.next_line() {
            Some(Ok(line)) => self.rollout.line(&line, &mut out),
            Some(Err(e)) => return Err(fs_error(self.lines.path(), e)),
            None => {
                self.rollout.finish(&mut out);
                self.finished = true;
            }
        }
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}

impl SessionReader for Reader {
    fn next_batch(&mut self) -> Result<Option<Batch>, CodecError> {
        trajhost_codec_sdk::records::next_batch(self)
    }
}
