//! Building record batches.

use crate::canonical::{Body, Meta, Record, SourceSpan};
use crate::diag::Diagnostics;
use crate::jsonl::{JsonLines, Line};
use crate::known::Handling;
use crate::{Batch, CodecError, Diagnostic, ReadOptions};

/// Accumulates canonical records as JSON lines until a batch is full.
pub struct BatchWriter {
    buf: Vec<u8>,
    count: u32,
    max_records: u32,
    max_bytes: u32,
    /// Records pushed since the session's start (a resumed reader starts at
    /// its point's count).
    emitted: u64,
    /// Where a resume point falls in `buf` (bytes, records): a batch ends
    /// there, so that the host sees the records before it as whole batches.
    mark: Option<(usize, u32)>,
    /// The batch after a split at the mark, returned next.
    held: Option<Batch>,
}

impl BatchWriter {
    pub fn new(options: &ReadOptions) -> BatchWriter {
        BatchWriter {
            buf: Vec::with_capacity(options.max_batch_bytes.min(1 << 20) as usize),
            count: 0,
            max_records: options.max_batch_records.max(1),
            max_bytes: options.max_batch_bytes.max(1),
            emitted: 0,
            mark: None,
            held: None,
        }
    }

    /// A writer for a reader resumed at a point after `records` records.
    pub fn resumed(options: &ReadOptions, records: u64) -> BatchWriter {
        let mut writer = BatchWriter::new(options);
        writer.emitted = records;
        writer
    }

    /// A writer for a reader continued from `start`: `meta`, made again,
    /// stands in for the first record, and the count goes on from the point.
    pub fn continuing(options: &ReadOptions, start: &crate::ResumePoint, meta: &Record) -> BatchWriter {
        let mut writer = BatchWriter::resumed(options, start.records.saturating_sub(1));
        writer.push(meta);
        writer
    }

    /// Records pushed since the session's start.
    pub fn emitted(&self) -> u64 {
        self.emitted
    }

    /// Marks a resume point here: the current batch ends at it. Returns the
    /// records before it.
    pub fn mark(&mut self) -> u64 {
        self.mark = Some((self.buf.len(), self.count));
        self.emitted
    }

    /// The records before the mark as a batch of their own, when the mark
    /// falls inside the current batch; the rest stays.
    fn take_before_mark(&mut self) -> Option<Batch> {
        let (at, count) = self.mark.take()?;
        if at == 0 || at >= self.buf.len() {
            return None;
        }
        let rest = self.buf.split_off(at);
        let before = std::mem::replace(&mut self.buf, rest);
        self.count -= count;
        // SAFETY: as in `take`; `at` is a record boundary (after a `\n`).
        let records = unsafe { String::from_utf8_unchecked(before) };
        Some(Batch { records, diagnostics: Vec::new() })
    }

    /// A writer that holds `first` already (a session's `meta`): it opens
    /// the first batch, before anything a reader's steps push.
    pub fn starting_with(options: &ReadOptions, first: &Record) -> BatchWriter {
        let mut writer = BatchWriter::new(options);
        writer.push(first);
        writer
    }

    /// Appends one record.
    pub fn push(&mut self, record: &Record) {
        // Serializing a `Record` cannot fail: every map key is a string.
        serde_json::to_writer(&mut self.buf, record).expect("canonical record serializes");
        self.buf.push(b'\n');
        self.count += 1;
        self.emitted += 1;
    }

    /// Moves the first of `held` into the batch: the records one native unit
    /// made, released one a step so that a batch ends at its cap. False when
    /// nothing is held.
    pub fn release(&mut self, held: &mut std::collections::VecDeque<Record>) -> bool {
        let Some(record) = held.pop_front() else { return false };
        self.push(&record);
        true
    }

    /// True once either soft cap is reached.
    pub fn is_full(&self) -> bool {
        self.count >= self.max_records || self.buf.len() >= self.max_bytes as usize
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Records pushed since the last `take`.
    pub fn len(&self) -> u32 {
        self.count
    }

    /// The batch so far, leaving the writer empty.
    pub fn take(&mut self, diagnostics: Vec<Diagnostic>) -> Batch {
        // Keep the capacity: the next batch does not regrow from zero.
        let capacity = self.buf.capacity();
        let bytes = std::mem::replace(&mut self.buf, Vec::with_capacity(capacity));
        self.count = 0;
        // Not re-validated: it cost 11 % of a wasm read (docs/performance.md).
        debug_assert!(std::str::from_utf8(&bytes).is_ok());
        // SAFETY: `buf` holds only what `serde_json::to_writer` wrote (it
        // writes `&str` contents, escapes and ASCII punctuation: UTF-8 only)
        // and `\n` bytes; nothing else appends to it.
        let records = unsafe { String::from_utf8_unchecked(bytes) };
        Batch { records, diagnostics }
    }
}

/// A reader that works one step at a time: each [`step`](Steps::step) reads
/// one unit of the native store (a line, a row, a file) and pushes its
/// records into the reader's [`BatchWriter`]. [`next_batch`] turns the steps
/// into batches: every `Steps` reader is a [`SessionReader`](crate::SessionReader)
/// through it, with nothing more to write.
pub trait Steps {
    /// Reads one unit and pushes its records (zero or more); `false` once
    /// nothing is left.
    fn step(&mut self) -> Result<bool, CodecError>;

    /// The writer, diagnostics and done flag [`next_batch`] works with.
    fn parts(&mut self) -> StepParts<'_>;

    /// Where a later read can continue, once the steps ran out
    /// ([`crate::resume`]); `None` by default: the reader cannot resume.
    fn resume_point(&self) -> Option<crate::ResumePoint> {
        None
    }
}

/// What [`next_batch`] needs of a [`Steps`] reader besides its steps.
pub struct StepParts<'a> {
    /// Where the steps push their records.
    pub writer: &'a mut BatchWriter,
    /// Drained into the last batch.
    pub diags: &'a mut Diagnostics,
    /// Set once the last step returned `false`; the reader then returns `None`.
    pub done: &'a mut bool,
}

/// The next batch of a [`Steps`] reader: steps until the writer is full; when
/// the steps run out, the records left plus every diagnostic form the last
/// batch (none when both are empty), and later calls return `None`.
///
/// A resume point's mark ends a batch: the records before it never share a
/// batch with those after it.
pub fn next_batch<R: Steps + ?Sized>(reader: &mut R) -> Result<Option<Batch>, CodecError> {
    if let Some(held) = reader.parts().writer.held.take() {
        return Ok(Some(held));
    }
    if *reader.parts().done {
        return Ok(None);
    }
    while !reader.parts().writer.is_full() {
        if !reader.step()? {
            let parts = reader.parts();
            *parts.done = true;
            let diagnostics = parts.diags.drain();
            if let Some(before) = parts.writer.take_before_mark() {
                parts.writer.held = Some(parts.writer.take(diagnostics));
                return Ok(Some(before));
            }
            if parts.writer.is_empty() && diagnostics.is_empty() {
                return Ok(None);
            }
            return Ok(Some(parts.writer.take(diagnostics)));
        }
    }
    let writer = reader.parts().writer;
    Ok(Some(match writer.take_before_mark() {
        Some(before) => before,
        None => writer.take(Vec::new()),
    }))
}

/// A record a codec's mapping made from one native unit (a message, a row,
/// an entry) before it gets the fields the unit gives all its records: its
/// time and its span.
#[derive(Debug, Clone, PartialEq)]
pub struct Made {
    pub id: String,
    pub body: Body,
    pub parent: Option<String>,
}

impl Made {
    /// The record, with the unit's time and span (and no agent: the main
    /// transcript's).
    pub fn at(self, ts: Option<String>, src: SourceSpan) -> Record {
        Record { id: self.id, body: self.body, parent: self.parent, ts, agent: None, src: Some(src) }
    }
}

/// Where a reader's records and diagnostics go while it maps native lines.
pub struct Out<'a> {
    pub writer: &'a mut BatchWriter,
    pub diags: &'a mut Diagnostics,
}

impl Out<'_> {
    /// A line that is not JSON: a torn last line (still being written) is a
    /// warning, any other an error.
    pub fn bad_line(&mut self, line: &Line<'_>, what: &str, file: &str) {
        crate::jsonl::report_bad_line(self.diags, line, what, file);
    }

    /// A record kind left out: `unmapped-record-type` when the codec knows
    /// it (`handling` is `Some`), else `unknown-record-type`.
    pub fn unmapped(&mut self, handling: Option<Handling>, detail: &str, file: &str, offset: u64) {
        crate::known::report_unmapped(self.diags, handling, detail, file, offset);
    }
}

/// The reading state of a session's JSONL file, fed line by line.
pub trait Lines {
    fn line(&mut self, line: &Line<'_>, out: &mut Out<'_>);
    /// Ends the file: what is still held back (by default, nothing).
    fn finish(&mut self, _out: &mut Out<'_>) {}
    /// This state, for a resume point after the last whole line
    /// ([`crate::resume::save`]); `None` (the default): it cannot resume.
    fn save(&self) -> Option<Vec<u8>> {
        None
    }
}

/// A session read from one JSONL file: its `meta` record, then every line
/// through a [`Lines`] state, in file order, streamed in batches.
pub struct LineReader<L> {
    writer: BatchWriter,
    diags: Diagnostics,
    meta: Option<Record>,
    lines: Option<JsonLines>,
    state: L,
    done: bool,
    resume: crate::resume::Resume,
}

impl<L: Lines> LineReader<L> {
    /// `meta` first, then every line of `lines` through `state`.
    pub fn new(options: &ReadOptions, diags: Diagnostics, meta: Record, lines: JsonLines, state: L) -> LineReader<L> {
        LineReader {
            writer: BatchWriter::new(options),
            diags,
            meta: Some(meta),
            lines: Some(lines),
            state,
            done: false,
            resume: crate::resume::Resume::default(),
        }
    }

    /// Continues at `start`: `meta` as it is now, then `lines` from the
    /// point's offset through `state`, restored from the point's state.
    pub fn resume(
        options: &ReadOptions,
        meta: Record,
        mut lines: JsonLines,
        state: L,
        start: &crate::ResumePoint,
    ) -> LineReader<L> {
        lines.seek(start.offset);
        // `meta` stands in for the first record: the count goes on from the point.
        LineReader {
            writer: BatchWriter::resumed(options, start.records.saturating_sub(1)),
            diags: Diagnostics::new(),
            meta: Some(meta),
            lines: Some(lines),
            state,
            done: false,
            resume: crate::resume::Resume::default(),
        }
    }
}

impl<L: Lines> Steps for LineReader<L> {
    fn step(&mut self) -> Result<bool, CodecError> {
        if let Some(meta) = self.meta.take() {
            self.writer.push(&meta);
            return Ok(true);
        }
        let Some(lines) = self.lines.as_mut() else { return Ok(false) };
        match lines.next_line() {
            Some(Ok(line)) => {
                if !line.terminated {
                    self.resume.take(line.offset, &mut self.writer, || self.state.save());
                }
                self.state.line(&line, &mut Out { writer: &mut self.writer, diags: &mut self.diags })
            }
            Some(Err(e)) => return Err(crate::errors::fs_error(lines.path(), e)),
            None => {
                self.resume.take(lines.position(), &mut self.writer, || self.state.save());
                self.state.finish(&mut Out { writer: &mut self.writer, diags: &mut self.diags });
                self.lines = None;
            }
        }
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }

    fn resume_point(&self) -> Option<crate::ResumePoint> {
        self.resume.point()
    }
}

/// Every [`Steps`] reader's batches are its steps', by [`next_batch`].
impl<R: Steps> crate::SessionReader for R {
    fn next_batch(&mut self) -> Result<Option<Batch>, CodecError> {
        next_batch(self)
    }

    fn resume_point(&self) -> Option<crate::ResumePoint> {
        Steps::resume_point(self)
    }
}

/// Recent native ids → the record ids they stand for, so parent links
/// point at records: a native line that produced no record resolves to its
/// own parent. Bounded to the last [`ParentLinks::KEPT`]: a parent further
/// back resolves to its raw id.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ParentLinks {
    map: std::collections::BTreeMap<String, String>,
    order: std::collections::VecDeque<String>,
}

impl ParentLinks {
    pub const KEPT: usize = 1024;

    pub fn new() -> ParentLinks {
        ParentLinks::default()
    }

    /// `id` stands for `target` (nothing when there is none, or it is `id`).
    pub fn alias(&mut self, id: &str, target: Option<String>) {
        let Some(target) = target else { return };
        if target == id {
            return;
        }
        if self.map.insert(id.to_string(), target).is_none() {
            self.order.push_back(id.to_string());
            if self.order.len() > Self::KEPT
                && let Some(old) = self.order.pop_front()
            {
                self.map.remove(&old);
            }
        }
    }

    /// The record a parent id stands for: its alias, else itself.
    pub fn resolve(&self, id: Option<&str>) -> Option<String> {
        let id = id.filter(|i| !i.is_empty())?;
        Some(self.map.get(id).cloned().unwrap_or_else(|| id.to_string()))
    }
}

/// The byte span of a native line (or of consecutive lines) in its file.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct Span {
    pub offset: u64,
    pub len: u64,
}

/// A session's `meta` as a codec starts it: the canonical schema, the
/// harness, the codec (`harness@version`) and the native id; the rest is
/// what the store records, set by the caller (`Meta { cwd, ..meta(…) }`).
pub fn meta(harness: &str, codec: &str, native_id: &str) -> Meta {
    Meta {
        schema: crate::canonical::SCHEMA.into(),
        harness: harness.into(),
        native_id: native_id.into(),
        codec: Some(codec.into()),
        ..Meta::default()
    }
}

/// The `meta` record of a session: its id is the native id and its time
/// the session's start; `src` is where the store says it.
pub fn meta_record(meta: Meta, src: Option<SourceSpan>) -> Record {
    Record {
        id: meta.native_id.clone(),
        ts: meta.started_at.clone(),
        body: Body::Meta(meta),
        parent: None,
        agent: None,
        src,
    }
}

/// A record id from a byte location, for records without a native id.
pub fn location_id(file: &str, offset: u64, index: usize) -> String {
    if index == 0 { format!("{file}@{offset}") } else { format!("{file}@{offset}#{index}") }
}

/// One line of a canonical batch as a writer receives it (`line_no` counts
/// from 1, for messages). `Ok(None)` for a blank line, and for a record of a
/// kind this SDK does not know (a newer canonical schema): that one is
/// reported as `not-carried` `unknown-kind/<kind>`. A line that is not JSON
/// is an error.
pub fn canonical_line(line: &str, line_no: usize, diags: &mut Diagnostics) -> Result<Option<Record>, CodecError> {
    if line.trim().is_empty() {
        return Ok(None);
    }
    let value: serde_json::Value = serde_json::from_str(line)
        .map_err(|e| CodecError::Malformed(format!("canonical document line {line_no}: not JSON ({e})")))?;
    let kind = value.get("kind").and_then(serde_json::Value::as_str).map(str::to_string);
    match serde_json::from_value::<Record>(value) {
        Ok(record) => Ok(Some(record)),
        Err(_) => {
            let detail = format!("unknown-kind/{}", crate::text::type_name(kind.as_deref()));
            diags.add("not-carried", crate::Severity::Warning, &detail, None, None);
            Ok(None)
        }
    }
}

/// The reader of a session made into records all at once (a store that is
/// one JSON document, parsed whole): hands the records out a batch at a
/// time, the diagnostics with the last batch.
pub struct WholeSessionReader {
    records: std::collections::VecDeque<Record>,
    writer: BatchWriter,
    diagnostics: Diagnostics,
    done: bool,
}

impl WholeSessionReader {
    /// `records` in order (`meta` first), and what reading them found.
    pub fn new(
        records: impl IntoIterator<Item = Record>,
        diagnostics: Diagnostics,
        options: &ReadOptions,
    ) -> WholeSessionReader {
        WholeSessionReader {
            records: records.into_iter().collect(),
            writer: BatchWriter::new(options),
            diagnostics,
            done: false,
        }
    }
}

impl crate::SessionReader for WholeSessionReader {
    fn next_batch(&mut self) -> Result<Option<Batch>, CodecError> {
        if self.done {
            return Ok(None);
        }
        while !self.writer.is_full() {
            let Some(record) = self.records.pop_front() else {
                self.done = true;
                let diagnostics = self.diagnostics.drain();
                if self.writer.is_empty() && diagnostics.is_empty() {
                    return Ok(None);
                }
                return Ok(Some(self.writer.take(diagnostics)));
            };
            self.writer.push(&record);
        }
        Ok(Some(self.writer.take(Vec::new())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Severity;
    use crate::canonical::{Body, SourceSpan};

    /// Emits `left` records one step at a time, then adds a diagnostic.
    struct Counter {
        left: u32,
        writer: BatchWriter,
        diags: Diagnostics,
        done: bool,
        steps_after_end: u32,
    }

    impl Steps for Counter {
        fn step(&mut self) -> Result<bool, CodecError> {
            if self.left == 0 {
                self.steps_after_end += 1;
                self.diags.add("torn-tail", Severity::Warning, "line", Some("f.jsonl"), Some(7));
                return Ok(false);
            }
            self.left -= 1;
            let offset = u64::from(self.left);
            self.writer.push(&Record {
                id: location_id("f.jsonl", offset, 0),
                parent: None,
                ts: None,
                agent: None,
                src: Some(SourceSpan { file: "f.jsonl".into(), offset, len: 1 }),
                body: Body::User { text: format!("r{offset}"), attachments: Vec::new() },
            });
            Ok(true)
        }

        fn parts(&mut self) -> StepParts<'_> {
            StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
        }
    }

    fn options(max_batch_records: u32) -> ReadOptions {
        ReadOptions { max_batch_records, max_batch_bytes: 1 << 20 }
    }

    #[test]
    fn steps_fill_batches_then_the_last_carries_the_diagnostics() {
        let mut reader = Counter {
            left: 5,
            writer: BatchWriter::new(&options(2)),
            diags: Diagnostics::new(),
            done: false,
            steps_after_end: 0,
        };
        let mut sizes = Vec::new();
        let mut last_diagnostics = Vec::new();
        while let Some(batch) = next_batch(&mut reader).unwrap() {
            assert!(last_diagnostics.is_empty(), "diagnostics came before the last batch");
            sizes.push(batch.records.lines().count());
            last_diagnostics = batch.diagnostics;
        }
        assert_eq!(sizes, [2, 2, 1]);
        assert_eq!(last_diagnostics.len(), 1);
        assert_eq!(last_diagnostics[0].code, "torn-tail");
        assert!(next_batch(&mut reader).unwrap().is_none());
        assert_eq!(reader.steps_after_end, 1, "no step after the end");
    }

    #[test]
    fn an_empty_reader_without_diagnostics_yields_none() {
        struct Empty(BatchWriter, Diagnostics, bool);
        impl Steps for Empty {
            fn step(&mut self) -> Result<bool, CodecError> {
                Ok(false)
            }
            fn parts(&mut self) -> StepParts<'_> {
                StepParts { writer: &mut self.0, diags: &mut self.1, done: &mut self.2 }
            }
        }
        let mut reader = Empty(BatchWriter::new(&options(2)), Diagnostics::new(), false);
        assert!(next_batch(&mut reader).unwrap().is_none());
        assert!(reader.2);
    }
}
