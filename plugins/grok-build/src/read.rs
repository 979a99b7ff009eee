//! `read`: one session as canonical records, streamed in batches: `meta`
//! (from `summary.json`), then `chat_history.jsonl` in file order, with the
//! facts of `updates.jsonl` (indexed first, see [`crate::updates`]).

use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::JsonLines;
use trajhost_codec_sdk::{CodecError, ReadOptions};

use crate::discover;
use crate::layout::{SUMMARY, SessionPaths, UPDATES};
use crate::records::History;
use crate::summary::Summary;
use crate::updates::UpdatesIndex;
use crate::{CODEC, HARNESS};
use trajhost_codec_sdk::errors::fs_error;

/// The history read line by line (see [`trajhost_grok_build_core::read`]).
pub type Reader = trajhost_grok_build_core::read::Reader<History>;

pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
    let mut paths = SessionPaths::from_locator(locator)?;
    let lines = JsonLines::open(&home, locator).map_err(|e| fs_error(locator, e))?;
    let mut diags = Diagnostics::new();
    let files = home.list(&paths.session_dir).map_err(|e| fs_error(&paths.session_dir, e))?;
    let mut problems = trajhost_codec_sdk::discovery::FileProblems::new();
    let found = discover::session_ref(&home, &mut paths, &files, &mut problems);
    for d in problems.drain() {
        diags.add(&d.code, d.severity, &d.detail, d.file.as_deref(), None);
    }
    let summary = Summary::read(&home, &paths.in_session(SUMMARY), &mut Diagnostics::new());
    let updates_file = paths.in_session(UPDATES);
    let updates = UpdatesIndex::build(&home, &updates_file, &mut diags);
    let started_at = summary.created_at.clone().or(updates.first_ts.clone());
    let meta = Meta {
        schema: SCHEMA.to_string(),
        harness: HARNESS.to_string(),
        native_id: paths.native_id.clone(),
        native_version: summary.chat_format_version.clone(),
        cwd: found.as_ref().and_then(|s| s.cwd.clone()),
        title: summary.title.clone(),
        git_branch: summary.git_branch.clone(),
        started_at: started_at.clone(),
        parent_session: summary.parent_session_id.clone(),
        parent_call: None,
        codec: Some(CODEC.to_string()),
    };
    let meta = Record {
        id: paths.native_id.clone(),
        body: Body::Meta(meta),
        parent: None,
        ts: started_at,
        agent: None,
        src: None,
    };
    Ok(Reader::new(options, diags, meta, lines, History::new(locator.to_string(), updates_file, updates)))
}
