//! `read`: one session as canonical records, streamed in batches.
//!
//! Order: the session's `meta`, then the transcript in file order. Memory
//! is bounded by the longest line plus a bounded map of recent uuids;
//! diagnostics are aggregated and go out with the last batch.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::JsonLines;
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::{CodecError, ReadOptions, Severity};

use crate::discover::fs_error;
use crate::head::Head;
use crate::layout::SessionPaths;
use crate::records::{self, Out, Transcript};

/// A session being read.
pub struct Reader {
    home: Dir,
    writer: BatchWriter,
    diags: Diagnostics,
    lines: JsonLines,
    transcript: Transcript,
    done: bool,
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        let mut paths = SessionPaths::from_locator(locator)?;
        let file = home.open(locator).map_err(|e| fs_error(locator, e))?;
        let head = Head::scan(&file).map_err(|e| fs_error(locator, e))?;
        let mut diags = Diagnostics::new();
        if paths.identify(head.session_id.as_deref()) {
            diags.add("session-id-mismatch", Severity::Warning, "sessionId", Some(locator), None);
        }
        let meta = records::session_meta(locator, &paths.native_id, &head);
        Ok(Reader {
            home,
            writer: BatchWriter::starting_with(options, &meta),
            diags,
            lines: JsonLines::new(file, locator),
            transcript: Transcript::new(locator.to_string()),
            done: false,
        })
    }
}

impl Steps for Reader {
    /// Does one unit of work. False when nothing is left.
    fn step(&mut self) -> Result<bool, CodecError> {
        let mut out = Out { writer: &mut self.writer, diags: &mut self.diags, home: &self.home };
        match self.lines.next_line() {
            Some(Ok(line)) => {
                self.transcript.line(&line, &mut out);
                Ok(true)
            }
            Some(Err(e)) => Err(fs_error(self.lines.path(), e)),
            None => Ok(false),
        }
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}
