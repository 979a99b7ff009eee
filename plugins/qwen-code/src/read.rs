//! `read`: one session as canonical records, streamed in batches.
//!
//! Order: the session's `meta`, then the transcript in file order. Memory
//! is bounded by the longest line plus a bounded map of recent uuids;
//! diagnostics are aggregated and go out with the last batch.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::JsonLines;
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::resume::Resume;
use trajhost_codec_sdk::{CodecError, ReadOptions, ResumePoint, Severity};

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
    resume: Resume,
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
            resume: Resume::default(),
            done: false,
        })
    }

    /// Continues a transcript (it only grows) from `start`. `meta` is made
    /// again from the head and the last 64 KiB (a `/rename` title is
    /// appended late).
    pub fn resume(home: Dir, locator: &str, start: &ResumePoint, options: &ReadOptions) -> Result<Reader, CodecError> {
        let mut paths = SessionPaths::from_locator(locator)?;
        let file = home.open(locator).map_err(|e| fs_error(locator, e))?;
        let head = Head::scan(&file).map_err(|e| fs_error(locator, e))?;
        paths.identify(head.session_id.as_deref());
        let meta = records::session_meta(locator, &paths.native_id, &head);
        let mut lines = JsonLines::new(file, locator);
        lines.seek(start.offset);
        Ok(Reader {
            home,
            writer: BatchWriter::continuing(options, start, &meta),
            diags: Diagnostics::new(),
            lines,
            transcript: trajhost_codec_sdk::resume::load(&start.state, locator)?,
            resume: Resume::default(),
            done: false,
        })
    }
}

impl Steps for Reader {
    /// Does one unit of work. False when nothing is left.
    fn step(&mut self) -> Result<bool, CodecError> {
        let mut out = Out { writer: &mut self.writer, diags: &mut self.diags, home: &self.home };
        let transcript = &mut self.transcript;
        match self.lines.next_line() {
            Some(Ok(line)) => {
                if !line.terminated {
                    self.resume.take(line.offset, out.writer, || trajhost_codec_sdk::resume::save(&*transcript));
                }
                transcript.line(&line, &mut out);
                Ok(true)
            }
            Some(Err(e)) => Err(fs_error(self.lines.path(), e)),
            None => {
                let end = self.lines.position();
                self.resume.take(end, out.writer, || trajhost_codec_sdk::resume::save(&*transcript));
                Ok(false)
            }
        }
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }

    fn resume_point(&self) -> Option<ResumePoint> {
        self.resume.point()
    }
}
