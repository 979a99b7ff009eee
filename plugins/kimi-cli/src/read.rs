//! `read`: one session as canonical records, streamed in batches.
//!
//! Order: the session's `meta`; its context files in the order they were
//! written (`context_<n>.jsonl`…, then `context.jsonl`), lines carried over
//! between rotations skipped; then each subagent under `subagents/<id>/`
//! (its own `meta`, then its context files with `agent` set). Each agent's
//! `wire.jsonl` is indexed before its context is read (see [`crate::wire`]).
//! Memory is bounded by the longest line plus the wire index; diagnostics
//! are aggregated and go out with the last batch.

use std::collections::{BTreeMap, VecDeque};

use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::JsonLines;
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::{CodecError, ReadOptions, SessionRef, Severity};

use crate::discover;
use crate::layout::{self, AGENT_META, CONTEXT, SessionPaths, WIRE, plain_name};
use crate::records::{Out, Transcript};
use crate::store;
use crate::wire::{Binding, WireIndex};
use crate::{CODEC, HARNESS};
use trajhost_codec_sdk::discovery::list_or_note as list;
use trajhost_codec_sdk::errors::{fs_error, fs_kind};
use trajhost_codec_sdk::paths::join;
use trajhost_codec_sdk::time::rfc3339_secs;

pub struct Reader {
    home: Dir,
    paths: SessionPaths,
    cwd: Option<String>,
    writer: BatchWriter,
    diags: Diagnostics,
    /// The agent being read (the session's own, or a subagent's).
    transcript: Option<Transcript>,
    /// Its context files still to read, relative to the home.
    files: VecDeque<String>,
    lines: Option<JsonLines>,
    /// Subagent folders still to read; `None` until the main agent is done.
    children: Option<VecDeque<String>>,
    /// agent id → parent tool call, from the session's wire.
    bindings: BTreeMap<String, Binding>,
    done: bool,
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        let paths = SessionPaths::from_locator(locator)?;
        let entries = home.list(&paths.session_dir).map_err(|e| fs_error(&paths.session_dir, e))?;
        if !entries.iter().any(|e| e.is_file() && e.name == CONTEXT) {
            return Err(CodecError::NotFound(locator.to_string()));
        }
        let mut diags = Diagnostics::new();
        let found = discover::inspect(&home, locator).ok();
        let cwd = found.as_ref().and_then(|s| s.cwd.clone());
        let wire = WireIndex::build(&home, &paths.in_session(WIRE), &mut diags);
        let meta = session_meta(&paths, found.as_ref(), &wire);
        let bindings = wire.subagents.clone();
        let files = layout::context_files(entries.iter().filter(|e| e.is_file()).map(|e| e.name.as_str()))
            .into_iter()
            .map(|name| paths.in_session(&name))
            .collect();
        Ok(Reader {
            home,
            paths,
            cwd,
            writer: BatchWriter::starting_with(options, &meta),
            diags,
            transcript: Some(Transcript::new(None, wire)),
            files,
            lines: None,
            children: None,
            bindings,
            done: false,
        })
    }
}

impl Steps for Reader {
    /// One unit of work (a line, a file switch). False when nothing is left.
    fn step(&mut self) -> Result<bool, CodecError> {
        if let (Some(lines), Some(transcript)) = (self.lines.as_mut(), self.transcript.as_mut()) {
            match lines.next_line() {
                Some(Ok(line)) => {
                    let mut out = Out { writer: &mut self.writer, diags: &mut self.diags };
                    transcript.line(&line, &mut out);
                }
                Some(Err(e)) => return Err(fs_error(lines.path(), e)),
                None => self.lines = None,
            }
            return Ok(true);
        }
        if self.transcript.is_some() {
            if let Some(file) = self.files.pop_front() {
                self.open_file(file);
            } else {
                self.finish_transcript();
            }
            return Ok(true);
        }
        if self.children.is_none() {
            self.children = Some(self.find_children());
        }
        let Some(agent) = self.children.as_mut().and_then(VecDeque::pop_front) else { return Ok(false) };
        self.open_child(&agent);
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}

impl Reader {
    fn open_file(&mut self, file: String) {
        match JsonLines::open(&self.home, &file) {
            Ok(lines) => {
                let id_file =
                    file.strip_prefix(&self.paths.session_dir).unwrap_or(&file).trim_start_matches('/').to_string();
                if let Some(t) = self.transcript.as_mut() {
                    t.start_file(file, id_file);
                }
                self.lines = Some(lines);
            }
            Err(e) => self.diags.add("unreadable-file", Severity::Warning, fs_kind(&e), Some(&file), None),
        }
    }

    /// Ends an agent: wire facts no context record claimed are counted.
    fn finish_transcript(&mut self) {
        let Some(t) = self.transcript.take() else { return };
        let (turns, steps, results) = t.wire.unclaimed();
        let file = t.file.clone();
        for (what, n) in [("wire:TurnBegin", turns), ("wire:StepBegin", steps), ("wire:ToolResult", results)] {
            for _ in 0..n.min(u32::MAX as usize) {
                self.diags.add("unmatched-wire-event", Severity::Info, what, Some(&file), None);
            }
        }
    }

    fn find_children(&mut self) -> VecDeque<String> {
        let dir = self.paths.subagents_dir();
        let mut agents: Vec<String> = list(&self.home, &dir, &mut self.diags)
            .unwrap_or_default()
            .into_iter()
            .filter(|e| e.is_dir() && plain_name(&e.name))
            .map(|e| e.name)
            .collect();
        agents.sort();
        for agent in self.bindings.keys() {
            if !agents.iter().any(|a| a == agent) {
                self.diags.add(
                    "missing-subagent-transcript",
                    Severity::Warning,
                    "wire:SubagentEvent",
                    Some(&dir),
                    None,
                );
            }
        }
        agents.into()
    }

    fn open_child(&mut self, agent: &str) {
        let dir = join(&self.paths.subagents_dir(), agent);
        let entries = match self.home.list(&dir) {
            Ok(entries) => entries,
            Err(e) => {
                self.diags.add("unreadable-directory", Severity::Warning, fs_kind(&e), Some(&dir), None);
                return;
            }
        };
        if !entries.iter().any(|e| e.is_file() && e.name == CONTEXT) {
            self.diags.add("no-context-file", Severity::Info, CONTEXT, Some(&dir), None);
            return;
        }
        let wire = WireIndex::build(&self.home, &join(&dir, WIRE), &mut self.diags);
        let agent_meta = if entries.iter().any(|e| e.name == AGENT_META) {
            store::agent_meta(&self.home, &join(&dir, AGENT_META), &mut self.diags)
        } else {
            store::AgentMeta::default()
        };
        let binding = self.bindings.get(agent).cloned().unwrap_or_default();
        let meta = Meta {
            schema: SCHEMA.to_string(),
            harness: HARNESS.to_string(),
            native_id: agent.to_string(),
            native_version: wire.protocol_version.clone(),
            cwd: self.cwd.clone(),
            title: agent_meta
                .description
                .clone()
                .or_else(|| agent_meta.subagent_type.clone())
                .or(binding.subagent_type.clone()),
            git_branch: None,
            started_at: wire.first_ts.or(agent_meta.created_at).and_then(rfc3339_secs),
            parent_session: Some(self.paths.native_id.clone()),
            parent_call: binding.parent_call.clone(),
            codec: Some(CODEC.to_string()),
        };
        self.writer.push(&Record {
            id: format!("subagent:{agent}"),
            body: Body::Meta(meta),
            parent: binding.parent_call,
            ts: None,
            agent: Some(agent.to_string()),
            src: None,
        });
        self.files = layout::context_files(entries.iter().filter(|e| e.is_file()).map(|e| e.name.as_str()))
            .into_iter()
            .map(|name| join(&dir, &name))
            .collect();
        self.transcript = Some(Transcript::new(Some(agent.to_string()), wire));
    }
}

fn session_meta(paths: &SessionPaths, found: Option<&SessionRef>, wire: &WireIndex) -> Record {
    let meta = Meta {
        schema: SCHEMA.to_string(),
        harness: HARNESS.to_string(),
        native_id: paths.native_id.clone(),
        native_version: wire.protocol_version.clone(),
        cwd: found.and_then(|s| s.cwd.clone()),
        title: found.and_then(|s| s.title.clone()),
        git_branch: None,
        started_at: wire.first_ts.and_then(rfc3339_secs),
        parent_session: None,
        parent_call: None,
        codec: Some(CODEC.to_string()),
    };
    Record {
        id: paths.native_id.clone(),
        body: Body::Meta(meta),
        parent: None,
        ts: wire.first_ts.and_then(rfc3339_secs),
        agent: None,
        src: None,
    }
}
