//! `read`: one agent's journal as canonical records, streamed in batches:
//! `meta` (from `state.json` and the `metadata` line), then the journal in
//! file order (see [`crate::journal`]). Memory is bounded by the longest
//! line plus one loop step; diagnostics go out with the last batch.

use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::errors::fs_error;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::JsonLines;
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::{Batch, CodecError, ReadOptions, SessionReader};

use crate::discover::{self, Head};
use crate::journal::{Journal, Out};
use crate::layout::SessionPaths;
use crate::state::State;
use crate::{CODEC, HARNESS};

pub struct Reader {
    writer: BatchWriter,
    diags: Diagnostics,
    meta: Option<Record>,
    lines: Option<JsonLines>,
    journal: Journal,
    done: bool,
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        let paths = SessionPaths::from_locator(locator)?;
        let lines = JsonLines::open(&home, locator).map_err(|e| fs_error(locator, e))?;
        let mut diags = Diagnostics::new();
        let state = match paths.state() {
            Some(p) => State::read(&home, &p, &mut diags),
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
        Ok(Reader {
            writer: BatchWriter::new(options),
            diags,
            meta: Some(meta),
            lines: Some(lines),
            journal: Journal::new(locator.to_string()),
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
            Some(Ok(line)) => self.journal.line(&line, &mut out),
            Some(Err(e)) => return Err(fs_error(lines.path(), e)),
            None => {
                self.journal.finish(&mut out);
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
