//! `read`: one journal as canonical records, streamed in batches: `meta`
//! (from `summary.json`), then `updates.jsonl` in file order (see
//! [`crate::updates`]). Memory is bounded by the longest run of chunks.

use serde_json::Value;
use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::FileProblems;
use trajhost_codec_sdk::errors::fs_error;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::JsonLines;
use trajhost_codec_sdk::{CodecError, ReadOptions};

use crate::discover;
use crate::layout::SessionPaths;
use crate::summary::Summary;
use crate::updates::Journal;
use crate::{CODEC, HARNESS};

/// The journal read line by line (see [`trajhost_grok_build_core::read`]).
pub type Reader = trajhost_grok_build_core::read::Reader<Journal>;

pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let lines = JsonLines::open(&home, locator).map_err(|e| fs_error(locator, e))?;
    let mut diags = Diagnostics::new();
    let summary = match paths.summary() {
        Some(p) => Summary::read(&home, &p, &mut Diagnostics::new()),
        None => Summary::default(),
    };
    let loose = paths.session_dir.is_none();
    let mut problems = FileProblems::new();
    let mut found = discover::session_ref(&home, paths, 0, None, &mut problems);
    for d in problems.drain() {
        diags.add(&d.code, d.severity, &d.detail, d.file.as_deref(), None);
    }
    // A loose journal is named by the session id its lines carry.
    if loose && let Some(id) = first_session_id(&home, locator) {
        found.native_id = id;
    }
    let meta = Meta {
        schema: SCHEMA.to_string(),
        harness: HARNESS.to_string(),
        native_id: found.native_id.clone(),
        native_version: found.native_version.clone(),
        cwd: found.cwd.clone(),
        title: found.title.clone(),
        git_branch: summary.git_branch.clone(),
        started_at: found.started_at.clone(),
        parent_session: summary.parent_session_id.clone(),
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
    Ok(Reader::new(options, diags, meta, lines, Journal::new(locator.to_string(), summary.model.clone())))
}

/// `params.sessionId` of the journal's first line.
fn first_session_id(home: &Dir, locator: &str) -> Option<String> {
    let mut lines = JsonLines::open(home, locator).ok()?;
    let line = lines.next_line()?.ok()?;
    let v: Value = serde_json::from_slice(line.bytes).ok()?;
    v.get("params")?.get("sessionId")?.as_str().map(str::to_string)
}
