//! `read`: one rollout as canonical records, streamed in batches.
//!
//! Order: the session's `meta` (from the head), then the rollout in file
//! order. Memory is bounded by the longest line plus one held-back model
//! response (see [`crate::records`]); diagnostics are aggregated and go out
//! with the last batch.
//!
//! A TypeScript CLI rollout document ([`crate::document`]) is read whole
//! (up to [`MAX_DOCUMENT_BYTES`]) and its items are mapped one at a time,
//! in order, like `response_item` lines; each record's `src` is its item's
//! byte span in the document.

use std::collections::VecDeque;

use trajhost_codec_sdk::canonical::Record;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::JsonLines;
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::resume::Resume;
use trajhost_codec_sdk::{CodecError, ReadOptions, ResumePoint, Severity};

use crate::discover::fs_error;
use crate::document;
use crate::head::{self as head_mod, Head};
use crate::layout;
use crate::records::{self, Out, Rollout, Span};

/// Largest rollout document read.
pub const MAX_DOCUMENT_BYTES: u64 = 512 << 20;

/// Where the rollout's entries come from.
enum Source {
    Lines(JsonLines),
    /// A rollout document: its bytes and the span of each item not read yet.
    Document {
        bytes: Vec<u8>,
        items: VecDeque<(usize, usize)>,
    },
}

/// A rollout being read.
pub struct Reader {
    source: Source,
    /// The file, relative to the home.
    path: String,
    rollout: Rollout,
    writer: BatchWriter,
    diags: Diagnostics,
    /// The records before the rollout's entries (`meta`, and a document's
    /// instructions), until they are emitted.
    opening: VecDeque<Record>,
    /// The head once later lines can no longer change it (kept with a
    /// resume point, so that a continued read need not read it again).
    settled_head: Option<Head>,
    resume: Resume,
    finished: bool,
    done: bool,
}

/// What a rollout's resume point keeps.
#[derive(serde::Serialize)]
struct Saving<'a> {
    rollout: &'a Rollout,
    head: Option<&'a Head>,
}

/// [`Saving`], read back.
#[derive(serde::Deserialize)]
struct Saved {
    rollout: Rollout,
    head: Option<Head>,
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        let name_id = layout::readable_locator(locator)?.map(str::to_string);
        if layout::is_document(locator) {
            return Reader::open_document(home, locator, name_id, options);
        }
        let file = home.open(locator).map_err(|e| fs_error(locator, e))?;
        let (head, settled) = Head::scan_settled(&file).map_err(|e| fs_error(locator, e))?;
        let mut diags = Diagnostics::new();
        let native_id = rollout_id(&head, name_id, locator, &mut diags)?;
        let meta = records::session_meta(locator, &native_id, &head);
        Ok(Reader {
            source: Source::Lines(JsonLines::new(file, locator)),
            path: locator.to_string(),
            rollout: Rollout::new(locator.to_string(), &head),
            writer: BatchWriter::new(options),
            diags,
            opening: VecDeque::from([meta]),
            settled_head: settled.then_some(head),
            resume: Resume::default(),
            finished: false,
            done: false,
        })
    }

    /// Continues a rollout (JSON lines only grow) from `start`: its head is
    /// read again only while later lines could still change it.
    pub fn resume(home: Dir, locator: &str, start: &ResumePoint, options: &ReadOptions) -> Result<Reader, CodecError> {
        let name_id = layout::readable_locator(locator)?.map(str::to_string);
        let file = home.open(locator).map_err(|e| fs_error(locator, e))?;
        let saved: Saved = trajhost_codec_sdk::resume::load(&start.state, locator)?;
        let (head, settled) = match saved.head {
            Some(head) => (head, true),
            None => Head::scan_settled(&file).map_err(|e| fs_error(locator, e))?,
        };
        let mut diags = Diagnostics::new();
        let native_id = rollout_id(&head, name_id, locator, &mut diags)?;
        let meta = records::session_meta(locator, &native_id, &head);
        let mut lines = JsonLines::new(file, locator);
        lines.seek(start.offset);
        Ok(Reader {
            source: Source::Lines(lines),
            path: locator.to_string(),
            rollout: saved.rollout.with_head(&head),
            // `meta` stands in for the first record.
            writer: BatchWriter::resumed(options, start.records.saturating_sub(1)),
            diags: Diagnostics::new(),
            opening: VecDeque::from([meta]),
            settled_head: settled.then_some(head),
            resume: Resume::default(),
            finished: false,
            done: false,
        })
    }
}

/// A reader's state for a resume point.
fn saved_state(rollout: &Rollout, settled_head: Option<&Head>) -> Option<Vec<u8>> {
    trajhost_codec_sdk::resume::save(&Saving { rollout, head: settled_head })
}

/// The session is who its content says; a file name that ends in a thread
/// id only stands in when the head has none.
fn rollout_id(
    head: &Head,
    name_id: Option<String>,
    locator: &str,
    diags: &mut Diagnostics,
) -> Result<String, CodecError> {
    Ok(match (&head.id, name_id) {
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
    })
}

impl Reader {
    /// A TypeScript CLI rollout document: read whole, its items queued.
    fn open_document(
        home: Dir,
        locator: &str,
        name_id: Option<String>,
        options: &ReadOptions,
    ) -> Result<Reader, CodecError> {
        let bytes = home.read_to_end(locator, MAX_DOCUMENT_BYTES).map_err(|e| fs_error(locator, e))?;
        let not_one = |why: &str| CodecError::Malformed(format!("{locator}: not a Codex rollout document: {why}"));
        let scan = document::scan(&bytes).map_err(not_one)?;
        let session = document::session(&bytes, &scan).ok_or_else(|| not_one("no session object"))?;
        let mut diags = Diagnostics::new();
        let native_id = match (session.session_id(), name_id) {
            (Some(id), name_id) => {
                if name_id.is_some_and(|n| n != id) {
                    diags.add("session-id-mismatch", Severity::Warning, "session.id", Some(locator), None);
                }
                id.to_string()
            }
            (None, Some(name_id)) => {
                diags.add("no-session-id", Severity::Warning, "session.id", Some(locator), None);
                name_id
            }
            (None, None) => return Err(not_one("no session id")),
        };
        if !scan.complete {
            // A write cut short: the complete items are read.
            diags.add("truncated-document", Severity::Warning, "items", Some(locator), Some(bytes.len() as u64));
        }
        let mut head = Head::default();
        head.id = Some(native_id.clone());
        head.model_provider = session.provider.owned();
        head.title = document::first_prompt(&bytes, &scan).and_then(|t| head_mod::title(&t));
        head.meta_span = scan.session.map(|(offset, len)| (offset as u64, len as u64));
        let meta = records::session_meta(locator, &native_id, &head);
        let mut rollout = Rollout::new(locator.to_string(), &head);
        rollout.set_model(session.model.owned());
        // The user's instructions went with every request.
        let instructions = session.instructions.non_empty().map(str::to_string);
        let (offset, len) = scan.session.unwrap_or_default();
        let mut opening = VecDeque::from([meta]);
        if let Some(text) = instructions {
            let span = Span { offset: offset as u64, len: len as u64 };
            opening.push_back(rollout.instructions(&native_id, text, span));
        }
        Ok(Reader {
            source: Source::Document { bytes, items: scan.items.into() },
            path: locator.to_string(),
            rollout,
            writer: BatchWriter::new(options),
            diags,
            opening,
            settled_head: None,
            resume: Resume::default(),
            finished: false,
            done: false,
        })
    }
}

impl Steps for Reader {
    /// Does one unit of work (a line). False when nothing is left.
    fn step(&mut self) -> Result<bool, CodecError> {
        if let Some(record) = self.opening.pop_front() {
            self.writer.push(&record);
            return Ok(true);
        }
        if self.finished {
            return Ok(false);
        }
        let mut out = Out { writer: &mut self.writer, diags: &mut self.diags };
        match &mut self.source {
            Source::Lines(lines) => match lines.next_line() {
                Some(Ok(line)) => {
                    if !line.terminated {
                        let (rollout, head) = (&self.rollout, self.settled_head.as_ref());
                        self.resume.take(line.offset, out.writer, || saved_state(rollout, head));
                    }
                    self.rollout.line(&line, &mut out)
                }
                Some(Err(e)) => return Err(fs_error(&self.path, e)),
                None => {
                    let (rollout, head) = (&self.rollout, self.settled_head.as_ref());
                    self.resume.take(lines.position(), out.writer, || saved_state(rollout, head));
                    self.rollout.finish(&mut out);
                    self.finished = true;
                }
            },
            Source::Document { bytes, items } => match items.pop_front() {
                Some((offset, len)) => {
                    let span = Span { offset: offset as u64, len: len as u64 };
                    self.rollout.document_item(&bytes[offset..offset + len], span, &mut out);
                }
                None => {
                    self.rollout.finish(&mut out);
                    // The document is read; free it before the last batch.
                    *bytes = Vec::new();
                    self.finished = true;
                }
            },
        }
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }

    fn resume_point(&self) -> Option<ResumePoint> {
        self.resume.point()
    }
}
