//! `read`: one agent's journal as canonical records, streamed in batches:
//! `meta` (from `state.json` and the `metadata` line), then the journal in
//! file order (see [`crate::journal`]). Memory is bounded by the longest
//! line plus one loop step; diagnostics go out with the last batch.

use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::errors::fs_error;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::JsonLines;
use trajhost_codec_sdk::records::LineReader;
use trajhost_codec_sdk::{CodecError, ReadOptions, ResumePoint};

use crate::discover::{self, Head};
use crate::journal::Journal;
use crate::layout::SessionPaths;
use crate::state::State;
use crate::{CODEC, HARNESS};

/// The journal read line by line (the SDK's line reader).
pub type Reader = LineReader<Journal>;

/// Opens one agent's journal.
pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
    let mut diags = Diagnostics::new();
    let (meta, lines) = meta_and_lines(&home, locator, &mut diags)?;
    Ok(Reader::new(options, diags, meta, lines, Journal::new(locator.to_string())))
}

/// Continues the journal at `locator` from `start` (it only grows); `meta`
/// is made again from `state.json` and the journal's head, both small.
pub fn resume(home: Dir, locator: &str, start: &ResumePoint, options: &ReadOptions) -> Result<Reader, CodecError> {
    let (meta, lines) = meta_and_lines(&home, locator, &mut Diagnostics::new())?;
    let journal: Journal = trajhost_codec_sdk::resume::load(&start.state, locator)?;
    Ok(Reader::resume(options, meta, lines, journal, start))
}

/// The session's `meta` record, and its journal's lines.
fn meta_and_lines(home: &Dir, locator: &str, diags: &mut Diagnostics) -> Result<(Record, JsonLines), CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let lines = JsonLines::open(home, locator).map_err(|e| fs_error(locator, e))?;
    let state = match paths.state() {
        Some(p) => State::read(home, &p, diags),
        None => State::default(),
    };
    let file = home.open(locator).map_err(|e| fs_error(locator, e))?;
    let head = Head::of(&file).map_err(|e| fs_error(locator, e))?;
    if head.is_none() && file.size() > 0 {
        diags.add(
            "malformed-head",
            trajhost_codec_sdk::Severity::Warning,
            "a metadata line first",
            Some(locator),
            None,
        );
    }
    let found = discover::session_ref(&paths, &state, head.as_ref(), file.size(), None);
    let parent_session = if paths.session_dir.is_some() {
        state.parent_of(&paths.agent).map(|parent| paths.agent_id(&parent))
    } else {
        None
    };
    let meta = Meta {
        schema: SCHEMA.to_string(),
        harness: HARNESS.to_string(),
        native_id: found.native_id.clone(),
        native_version: found.native_version.clone(),
        cwd: found.cwd.clone(),
        title: found.title.clone(),
        git_branch: None,
        started_at: found.started_at.clone(),
        parent_session,
        parent_call: None,
        codec: Some(CODEC.to_string()),
    };
    let meta = Record {
        id: found.native_id.clone(),
        body: Body::Meta(meta),
        parent: None,
        ts: found.started_at.clone(),
        agent: None,
        src: None,
    };
    Ok((meta, lines))
}
