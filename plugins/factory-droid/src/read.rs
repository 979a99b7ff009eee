//! `read`: one session as canonical records, streamed in batches.
//!
//! Order: the session's `meta`, then the records of the lines in file
//! order. Memory is bounded by the longest line plus a bounded map of
//! recent message ids; diagnostics are aggregated and go out with the last
//! batch.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::JsonLines;
use trajhost_codec_sdk::records::LineReader;
use trajhost_codec_sdk::{CodecError, ReadOptions, ResumePoint, Severity};

use crate::discover::fs_error;
use crate::head::Head;
use crate::layout::SessionPaths;
use crate::records::{self, Transcript};

/// A session being read: its `meta`, then its lines through a [`Transcript`].
pub type Reader = LineReader<Transcript>;

/// Continues the session at `locator` from `start` (its lines only grow).
/// The head is read again only while later lines could still change it.
pub fn resume(home: Dir, locator: &str, start: &ResumePoint, options: &ReadOptions) -> Result<Reader, CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let file = home.open(locator).map_err(|e| fs_error(locator, e))?;
    let mut state: Transcript = trajhost_codec_sdk::resume::load(&start.state, locator)?;
    let head = match &state.settled_head {
        Some(head) => head.clone(),
        None => {
            let (head, settled) = Head::scan_settled(&file).map_err(|e| fs_error(locator, e))?;
            state.settled_head = settled.then(|| head.clone());
            head
        }
    };
    let meta = records::session_meta(locator, &paths.native_id, &head);
    Ok(LineReader::resume(options, meta, JsonLines::new(file, locator), state, start))
}

/// Opens the session at `locator`.
pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
    let mut paths = SessionPaths::from_locator(locator)?;
    let file = home.open(locator).map_err(|e| fs_error(locator, e))?;
    let (head, settled) = Head::scan_settled(&file).map_err(|e| fs_error(locator, e))?;
    let mut diags = Diagnostics::new();
    if head.start_span.is_none() {
        diags.add("no-session-start", Severity::Warning, "session_start", Some(locator), None);
    }
    if paths.identify(head.session_id.as_deref()) {
        diags.add("session-id-mismatch", Severity::Warning, "sessionId", Some(locator), None);
    }
    let meta = records::session_meta(locator, &paths.native_id, &head);
    let mut transcript = Transcript::new(locator.to_string());
    transcript.settled_head = settled.then_some(head);
    Ok(LineReader::new(options, diags, meta, JsonLines::new(file, locator), transcript))
}
