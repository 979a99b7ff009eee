//! `read`: one session as canonical records, streamed in batches: its `meta`
//! record, then one JSONL file (`chat_history.jsonl` or `updates.jsonl`) in
//! file order, each line handed to the codec's [`Lines`].

use trajhost_codec_sdk::canonical::Record;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::errors::fs_error;
use trajhost_codec_sdk::jsonl::{BadLine, JsonLines, Line};
use trajhost_codec_sdk::known::{Handling, UNMAPPED_RECORD_TYPE};
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::{Batch, CodecError, ReadOptions, SessionReader, Severity};

/// Where a line's records and diagnostics go.
pub struct Out<'a> {
    pub writer: &'a mut BatchWriter,
    pub diags: &'a mut Diagnostics,
}

impl Out<'_> {
    /// A line that is not JSON: a torn last line (still being written) is a
    /// warning, any other an error.
    pub fn bad_line(&mut self, line: &Line<'_>, what: &str, file: &str) {
        let bad = BadLine::of(line);
        let severity = if bad == BadLine::TornTail { Severity::Warning } else { Severity::Error };
        self.diags.add(bad.code(), severity, what, Some(file), Some(line.offset));
    }

    /// A record kind left out: `unmapped-record-type` when the codec knows
    /// it (`handling` is `Some`), else `unknown-record-type`.
    pub fn unmapped(&mut self, handling: Option<Handling>, detail: &str, file: &str, offset: u64) {
        match handling {
            Some(_) => self.diags.add(UNMAPPED_RECORD_TYPE, Severity::Info, detail, Some(file), Some(offset)),
            None => self.diags.add("unknown-record-type", Severity::Warning, detail, Some(file), Some(offset)),
        }
    }
}

/// The reading state of a session's JSONL file.
pub trait Lines {
    fn line(&mut self, line: &Line<'_>, out: &mut Out<'_>);
    /// Ends the file: what is still held back.
    fn finish(&mut self, out: &mut Out<'_>);
}

pub struct Reader<L> {
    writer: BatchWriter,
    diags: Diagnostics,
    meta: Option<Record>,
    lines: Option<JsonLines>,
    state: L,
    done: bool,
}

impl<L: Lines> Reader<L> {
    /// `meta` first, then every line of `lines` through `state`.
    pub fn new(options: &ReadOptions, diags: Diagnostics, meta: Record, lines: JsonLines, state: L) -> Reader<L> {
        Reader { writer: BatchWriter::new(options), diags, meta: Some(meta), lines: Some(lines), state, done: false }
    }
}

impl<L: Lines> Steps for Reader<L> {
    fn step(&mut self) -> Result<bool, CodecError> {
        if let Some(meta) = self.meta.take() {
            self.writer.push(&meta);
            return Ok(true);
        }
        let Some(lines) = self.lines.as_mut() else { return Ok(false) };
        let mut out = Out { writer: &mut self.writer, diags: &mut self.diags };
        match lines.next_line() {
            Some(Ok(line)) => self.state.line(&line, &mut out),
            Some(Err(e)) => return Err(fs_error(lines.path(), e)),
            None => {
                self.state.finish(&mut out);
                self.lines = None;
            }
        }
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}

impl<L: Lines> SessionReader for Reader<L> {
    fn next_batch(&mut self) -> Result<Option<Batch>, CodecError> {
        trajhost_codec_sdk::records::next_batch(self)
    }
}
