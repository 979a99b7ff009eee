//! Messages of a transcript document (one JSON document holding every
//! message): where each one lies in the file, and a reader that parses one
//! message at a time and gives its records that exact span.

use std::collections::VecDeque;

use serde::Deserialize;
use serde_json::value::RawValue;
use trajhost_codec_sdk::canonical::{Record, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::text::type_name;
use trajhost_codec_sdk::{CodecError, ReadOptions, Severity};

/// The (offset, len) in `bytes` of each message, parsed from `bytes` as
/// borrowed raw JSON.
pub fn spans(bytes: &[u8], messages: &[&RawValue]) -> VecDeque<(usize, usize)> {
    let base = bytes.as_ptr() as usize;
    messages.iter().map(|m| span(base, m)).collect()
}

/// The (offset, len) of `raw` in the document starting at address `base`.
pub fn span(base: usize, raw: &RawValue) -> (usize, usize) {
    (raw.get().as_ptr() as usize - base, raw.get().len())
}

/// A block of a type not known for `role`, counted as `unknown-content-block`.
pub fn unknown_block(diags: &mut Diagnostics, role: &str, kind: &str, file: &str, offset: u64) {
    diags.add(
        "unknown-content-block",
        Severity::Warning,
        &format!("{role}/{}", type_name(Some(kind))),
        Some(file),
        Some(offset),
    );
}

pub use trajhost_codec_sdk::records::Made;

/// Where a message lies.
pub struct At<'a> {
    pub file: &'a str,
    pub offset: u64,
    /// Its index in the document (malformed messages count too).
    pub index: i64,
}

/// What a codec makes of one message of the document.
pub trait Messages {
    /// The message's native shape.
    type Message<'a>: Deserialize<'a>;

    /// The message's time and records.
    fn map(&mut self, message: &Self::Message<'_>, at: &At<'_>, diags: &mut Diagnostics)
    -> (Option<String>, Vec<Made>);
}

/// Reads a transcript document: the records queued at open (meta, …), then
/// each message in file order, parsed only when its turn comes. It holds
/// the document's bytes until the last message is read.
pub struct Transcript<M> {
    file: String,
    bytes: Vec<u8>,
    /// (offset, len) of each message not yet read.
    spans: VecDeque<(usize, usize)>,
    index: i64,
    messages: M,
    writer: BatchWriter,
    diags: Diagnostics,
    pending: VecDeque<Record>,
    done: bool,
}

impl<M: Messages> Transcript<M> {
    /// `spans` are the messages' places in `bytes` (see [`spans`]); `first`
    /// the records before them.
    pub fn new(
        file: String,
        bytes: Vec<u8>,
        spans: VecDeque<(usize, usize)>,
        messages: M,
        first: VecDeque<Record>,
        diags: Diagnostics,
        options: &ReadOptions,
    ) -> Self {
        Transcript {
            file,
            bytes,
            spans,
            index: 0,
            messages,
            writer: BatchWriter::new(options),
            diags,
            pending: first,
            done: false,
        }
    }
}

impl<M: Messages> Steps for Transcript<M> {
    fn step(&mut self) -> Result<bool, CodecError> {
        if self.writer.release(&mut self.pending) {
            return Ok(true);
        }
        let Some((offset, len)) = self.spans.pop_front() else {
            // The document is read; free it before the last batch.
            self.bytes = Vec::new();
            return Ok(false);
        };
        let index = self.index;
        self.index += 1;
        let slice = &self.bytes[offset..offset + len];
        let Ok(message) = serde_json::from_slice::<M::Message<'_>>(slice) else {
            self.diags.add("malformed-message", Severity::Warning, "message", Some(&self.file), Some(offset as u64));
            return Ok(true);
        };
        let at = At { file: &self.file, offset: offset as u64, index };
        let (ts, made) = self.messages.map(&message, &at, &mut self.diags);
        for made in made {
            self.pending.push_back(
                made.at(ts.clone(), SourceSpan { file: self.file.clone(), offset: offset as u64, len: len as u64 }),
            );
        }
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}
