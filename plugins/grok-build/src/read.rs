//! `read`: one session as canonical records, streamed in batches: `meta`
//! (from `summary.json`), then `chat_history.jsonl` in file order, with the
//! facts of `updates.jsonl` (indexed first, see [`crate::updates`]).

use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::JsonLines;
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::{Batch, CodecError, ReadOptions, SessionReader};

use crate::discover;
use crate::layout::{SUMMARY, SessionPaths, UPDATES};
use crate::records::{History, Out};
use crate::summary::Summary;
use crate::updates::UpdatesIndex;
use crate::{CODEC, HARNESS};
use trajhost_codec_sdk::errors::fs_error;

pub struct Reader {
    writer: BatchWriter,
    diags: Diagnostics,
    meta: Option<Record>,
    lines: Option<JsonLines>,
    history: History,
    done: bool,
}

impl Reader {
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
        Ok(Reader {
            writer: BatchWriter::new(options),
            diags,
            meta: Some(meta),
            lines: Some(lines),
            history: History::new(locator.to_string(), updates_file, updates),
            done: false,
        })
    }
}

impl Steps for Reader {
    fn step(&mut self) -> Result<bool, CodecError> {
        if let Some(meta) = self.meta.take() {
            self.writer.push(&meta);
            return Ok(true);
        }
        let Some(lines) = self.lines.as_mut() else { return Ok(false) };
        let mut out = Out { writer: &mut self.writer, diags: &mut self.diags };
        match lines.next_line() {
            Some(Ok(line)) => self.history.line(&line, &mut out),
            Some(Err(e)) => return Err(fs_error(lines.path(), e)),
            None => {
                self.history.finish(&mut out);
                self.lines = None;
            }
        }
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}

impl SessionReader for Reader {
    fn next_batch(&mut self) -> Result<Option<Batch>, CodecError> {
        trajhost_codec_sdk::records::next_batch(self)
    }
}
