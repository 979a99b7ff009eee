//! `read`: one session as canonical records, streamed in batches.
//!
//! Order: the session's `meta`, then the events' records in file order.
//! Memory is bounded by the longest line plus bounded maps of recent event
//! ids, pending usage records and the ids of tool calls emitted;
//! diagnostics are aggregated and go out with the last batch.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::JsonLines;
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::{Batch, CodecError, ReadOptions, SessionReader, Severity};

use crate::Flavor;
use crate::discover::fs_error;
use crate::head::Head;
use crate::layout::SessionPaths;
use crate::records::{self, Out, Transcript};

/// A session being read.
pub struct Reader {
    writer: BatchWriter,
    diags: Diagnostics,
    meta: Option<trajhost_codec_sdk::canonical::Record>,
    lines: JsonLines,
    transcript: Transcript,
    done: bool,
}

impl Reader {
    pub fn open(flavor: &Flavor, home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        let mut paths = SessionPaths::from_locator(flavor.layout, locator)?;
        let file = home.open(locator).map_err(|e| fs_error(locator, e))?;
        let head = Head::scan(&home, &file, paths.workspace().as_deref()).map_err(|e| fs_error(locator, e))?;
        let mut diags = Diagnostics::new();
        if head.start.is_none() {
            diags.add("no-session-start", Severity::Warning, "session.start", Some(locator), None);
        }
        if paths.identify(head.session_id()) {
            diags.add("session-id-mismatch", Severity::Warning, "sessionId", Some(locator), None);
        }
        let meta = records::session_meta(flavor, locator, &paths.native_id, &head);
        Ok(Reader {
            writer: BatchWriter::new(options),
            diags,
            meta: Some(meta),
            lines: JsonLines::new(file, locator),
            transcript: Transcript::new(locator.to_string(), paths.native_id.clone()),
            done: false,
        })
    }
}

impl Steps for Reader {
    /// Does one unit of work. False when nothing is left.
    fn step(&mut self) -> Result<bool, CodecError> {
        if let Some(meta) = self.meta.take() {
            self.writer.push(&meta);
            return Ok(true);
        }
        let mut out = Out { writer: &mut self.writer, diags: &mut self.diags };
        match self.lines.next_line() {
            Some(Ok(line)) => {
                self.transcript.line(&line, &mut out);
                Ok(true)
            }
            Some(Err(e)) => Err(fs_error(self.lines.path(), e)),
            None => {
                self.transcript.finish(&mut out);
                Ok(false)
            }
        }
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
