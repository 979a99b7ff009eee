//! `read`: one conversation as canonical records, streamed in batches:
//! `meta`, then the event files in index order, one event (one file read)
//! at a time. Memory is bounded by the largest event file plus the
//! per-response usage table of `base_state.json`.

use std::collections::VecDeque;

use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::{CodecError, ReadOptions};

use crate::layout::{self, SessionPaths};
use crate::records::{Events, Out};
use crate::store::{self, EventFile};
use crate::{CODEC, HARNESS};
use trajhost_codec_sdk::paths::join;

pub struct Reader {
    home: Dir,
    paths: SessionPaths,
    writer: BatchWriter,
    diags: Diagnostics,
    files: VecDeque<EventFile>,
    events: Events,
    done: bool,
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        let mut paths = SessionPaths::from_locator(locator)?;
        let mut diags = Diagnostics::new();
        let facts = store::facts(&home, &paths, &mut diags).ok_or_else(|| CodecError::NotFound(locator.to_string()))?;
        paths.identify(facts.state_id.as_deref());
        let state = store::read_state(&home, locator, &mut Diagnostics::new());
        let usages = store::response_usages(&state, &mut diags, locator);
        let meta = Meta {
            schema: SCHEMA.to_string(),
            harness: HARNESS.to_string(),
            native_id: paths.native_id.clone(),
            native_version: None,
            cwd: facts.cwd.clone(),
            title: facts.title.clone(),
            git_branch: None,
            started_at: facts.started_at.clone(),
            parent_session: None,
            parent_call: None,
            codec: Some(CODEC.to_string()),
        };
        let meta = Record {
            id: paths.native_id.clone(),
            body: Body::Meta(meta),
            parent: None,
            ts: facts.started_at.clone(),
            agent: None,
            src: None,
        };
        Ok(Reader {
            home,
            paths,
            writer: BatchWriter::starting_with(options, &meta),
            diags,
            files: facts.events.into(),
            events: Events::new(facts.clock, usages),
            done: false,
        })
    }
}

impl Steps for Reader {
    fn step(&mut self) -> Result<bool, CodecError> {
        let Some(file) = self.files.pop_front() else { return Ok(false) };
        let path = join(&self.paths.events_dir(), &file.name);
        if let Some(event) = store::read_event(&self.home, &path, &mut self.diags) {
            let file_id = layout::event_file(&file.name).map_or("", |(_, id)| id);
            let mut out = Out { writer: &mut self.writer, diags: &mut self.diags };
            self.events.event(&path, file.size, file_id, &event, &mut out);
        }
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}
