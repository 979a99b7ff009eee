//! `read`: one session as canonical records, streamed in batches.
//!
//! Order: the session's `meta`, then the events' records in file order.
//! Memory is bounded by the longest line plus bounded maps of recent event
//! ids, pending usage records and the ids of tool calls emitted;
//! diagnostics are aggregated and go out with the last batch.

use trajhost_codec_sdk::canonical::Record;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::JsonLines;
use trajhost_codec_sdk::records::LineReader;
use trajhost_codec_sdk::{CodecError, ReadOptions, ResumePoint, Severity};

use crate::Flavor;
use crate::discover::fs_error;
use crate::head::Head;
use crate::layout::SessionPaths;
use crate::records::{self, Transcript};

/// A session being read: its `meta`, then its lines through a [`Transcript`].
pub type Reader = LineReader<Transcript>;

/// Opens the session at `locator`.
pub fn open(flavor: &Flavor, home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
    let start = start(flavor, &home, locator)?;
    let transcript = Transcript::new(locator.to_string(), start.native_id);
    Ok(LineReader::new(options, start.diags, start.meta, start.lines, transcript))
}

/// Continues the event log at `point`, taken by an earlier read (the log
/// only grows); `meta` is made again from the head, as `open` makes it.
pub fn resume(
    flavor: &Flavor,
    home: Dir,
    locator: &str,
    point: &ResumePoint,
    options: &ReadOptions,
) -> Result<Reader, CodecError> {
    let start = start(flavor, &home, locator)?;
    let transcript = trajhost_codec_sdk::resume::load(&point.state, locator)?;
    Ok(LineReader::resume(options, start.meta, start.lines, transcript, point))
}

/// What reading a session starts from.
struct Start {
    meta: Record,
    native_id: String,
    diags: Diagnostics,
    lines: JsonLines,
}

fn start(flavor: &Flavor, home: &Dir, locator: &str) -> Result<Start, CodecError> {
    let mut paths = SessionPaths::from_locator(flavor.layout, locator)?;
    let file = home.open(locator).map_err(|e| fs_error(locator, e))?;
    let head = Head::scan(home, &file, paths.workspace().as_deref()).map_err(|e| fs_error(locator, e))?;
    let mut diags = Diagnostics::new();
    if head.start.is_none() {
        diags.add("no-session-start", Severity::Warning, "session.start", Some(locator), None);
    }
    if paths.identify(head.session_id()) {
        diags.add("session-id-mismatch", Severity::Warning, "sessionId", Some(locator), None);
    }
    let meta = records::session_meta(flavor, locator, &paths.native_id, &head);
    Ok(Start { meta, native_id: paths.native_id, diags, lines: JsonLines::new(file, locator) })
}
