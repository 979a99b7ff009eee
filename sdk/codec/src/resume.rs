//! Resume points: continuing a session whose file only grows at its end.
//!
//! A reader of JSON lines takes its point once, where the file's last whole
//! line ends: before a torn last line, or at the end of the file before the
//! state releases what it held back (a call still waiting for its result).
//! The records it returns after that point are provisional; a reader
//! resumed there returns them again, or what replaces them. A resumed
//! reader starts with `meta` as a whole read would make it now (a title may
//! be appended late), which replaces the first record. The host keeps the
//! point with the file's generation and calls `read-from` only while the
//! bytes before it are unchanged (WIT `resume-point`).

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::records::BatchWriter;
use crate::{CodecError, ResumePoint};

/// The point a reader took, if any.
#[derive(Debug, Default)]
pub struct Resume {
    point: Option<ResumePoint>,
}

impl Resume {
    /// Takes the point at `offset` (the start of what is not yet consumed
    /// for good), marking the writer there, unless one was taken already.
    /// `save` gives the reader's state there; `None` takes no point.
    pub fn take(&mut self, offset: u64, writer: &mut BatchWriter, save: impl FnOnce() -> Option<Vec<u8>>) {
        if self.point.is_some() {
            return;
        }
        if let Some(state) = save() {
            let records = writer.mark();
            self.point = Some(ResumePoint { offset, records, state });
        }
    }

    /// The point taken, if any.
    pub fn point(&self) -> Option<ResumePoint> {
        self.point.clone()
    }
}

/// A reader's state as a resume point carries it (JSON).
pub fn save<S: Serialize>(state: &S) -> Option<Vec<u8>> {
    serde_json::to_vec(state).ok()
}

/// The state [`save`] wrote; `locator` names the session in the error.
pub fn load<S: DeserializeOwned>(bytes: &[u8], locator: &str) -> Result<S, CodecError> {
    serde_json::from_slice(bytes)
        .map_err(|e| CodecError::Malformed(format!("{locator}: the resume point's state is not this codec's: {e}")))
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::SessionReader;
    use crate::canonical::{Body, Record, SourceSpan};
    use crate::jsonl::{JsonLines, Line};
    use crate::records::{LineReader, Lines, Out, location_id};
    use crate::{ReadOptions, diag::Diagnostics, fs::Dir};

    /// Each line is a user record, released one line late: the last line's
    /// record is held until the next line or the end of the file.
    #[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
    struct Late {
        held: Option<(String, u64)>,
    }

    impl Late {
        fn release(&mut self, out: &mut Out<'_>) {
            if let Some((text, offset)) = self.held.take() {
                out.writer.push(&Record {
                    id: location_id("s.jsonl", offset, 0),
                    parent: None,
                    ts: None,
                    agent: None,
                    src: Some(SourceSpan { file: "s.jsonl".into(), offset, len: 1 }),
                    body: Body::User { text, attachments: Vec::new() },
                });
            }
        }
    }

    impl Lines for Late {
        fn line(&mut self, line: &Line<'_>, out: &mut Out<'_>) {
            self.release(out);
            self.held = Some((String::from_utf8_lossy(line.bytes).into_owned(), line.offset));
        }
        fn finish(&mut self, out: &mut Out<'_>) {
            self.release(out);
        }
        fn save(&self) -> Option<Vec<u8>> {
            save(self)
        }
    }

    fn options() -> ReadOptions {
        // One record a batch: every batch boundary is exercised.
        ReadOptions { max_batch_records: 2, max_batch_bytes: 1 << 20 }
    }

    fn meta() -> Record {
        crate::records::meta_record(crate::records::meta("toy", "toy@1", "s"), None)
    }

    /// Every record line, and the batches' record counts.
    fn drain(reader: &mut dyn SessionReader) -> (Vec<String>, Vec<usize>) {
        let (mut lines, mut sizes) = (Vec::new(), Vec::new());
        while let Some(batch) = reader.next_batch().unwrap() {
            sizes.push(batch.records.lines().count());
            lines.extend(batch.records.lines().map(String::from));
        }
        (lines, sizes)
    }

    fn read(dir: &Dir) -> LineReader<Late> {
        let lines = JsonLines::open(dir, "s.jsonl").unwrap();
        LineReader::new(&options(), Diagnostics::new(), meta(), lines, Late::default())
    }

    #[test]
    fn a_resumed_read_continues_where_the_last_whole_line_ended() {
        let dir = tempfile::tempdir().unwrap();
        let home = Dir::native(dir.path());
        let whole = "a\nb\nc\nd\ne\n";
        std::fs::write(dir.path().join("s.jsonl"), whole).unwrap();
        let (expected, _) = drain(&mut read(&home));
        assert_eq!(expected.len(), 6, "meta and five lines");

        // Cut after every byte: whole lines, and a torn last line.
        for cut in 1..whole.len() {
            std::fs::write(dir.path().join("s.jsonl"), &whole[..cut]).unwrap();
            let mut first = read(&home);
            let (before, sizes) = drain(&mut first);
            let point = SessionReader::resume_point(&first).expect("a point once exhausted");
            let last_whole = whole[..cut].rfind('\n').map_or(0, |i| i + 1) as u64;
            assert_eq!(point.offset, last_whole, "cut at {cut}");
            // The records before the point end a batch.
            let mut ends = sizes.iter().scan(0, |sum, n| {
                *sum += n;
                Some(*sum as u64)
            });
            assert!(ends.any(|end| end == point.records), "cut at {cut}: batches {sizes:?}, point {point:?}");

            std::fs::write(dir.path().join("s.jsonl"), whole).unwrap();
            let state: Late = load(&point.state, "s.jsonl").unwrap();
            let lines = JsonLines::open(&home, "s.jsonl").unwrap();
            let (after, _) = drain(&mut LineReader::resume(&options(), meta(), lines, state, &point));
            // `meta` first, then what follows the point.
            let mut joined = after[..1].to_vec();
            joined.extend_from_slice(&before[1..point.records as usize]);
            joined.extend_from_slice(&after[1..]);
            assert_eq!(joined, expected, "cut at {cut}");
        }
    }

    #[test]
    fn a_state_that_is_not_the_codecs_names_the_session() {
        let error = load::<Late>(b"[1, 2]", "s.jsonl").unwrap_err();
        assert!(matches!(error, CodecError::Malformed(m) if m.starts_with("s.jsonl: ")));
    }
}
