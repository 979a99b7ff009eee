//! `read`: one session as canonical records, streamed in batches.
//!
//! Order: the session's `meta`, the main transcript in file order, then each
//! subagent transcript (its own `meta`, then its records with `agent` set).
//! Memory is bounded by the longest line plus one buffered API response;
//! diagnostics are aggregated and go out with the last batch.

use std::collections::VecDeque;

use serde::Deserialize;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, EntryKind, FsError};
use trajhost_codec_sdk::jsonl::JsonLines;
use trajhost_codec_sdk::records::BatchWriter;
use trajhost_codec_sdk::{Batch, CodecError, ReadOptions, SessionReader, Severity};

use crate::discover::{fs_error, fs_kind};
use crate::head::Head;
use crate::layout::{self, SessionPaths};
use crate::native::{self, Text};
use crate::records::{self, AgentMeta, Out, Transcript};

/// Largest `agent-<id>.meta.json` read.
const MAX_AGENT_META_BYTES: u64 = 64 * 1024;
/// Bytes read from a legacy `agent-*.jsonl` to see which session it belongs to.
const OWNER_PROBE_BYTES: u32 = 16 * 1024;

/// A session being read.
pub struct Reader {
    home: Dir,
    paths: SessionPaths,
    writer: BatchWriter,
    diags: Diagnostics,
    /// The session's `meta`, until it is emitted.
    meta: Option<trajhost_codec_sdk::canonical::Record>,
    /// The file being read.
    current: Option<(JsonLines, Transcript)>,
    /// Subagent transcripts still to read; `None` until the main one is done.
    children: Option<VecDeque<Child>>,
    done: bool,
}

/// One subagent transcript of the session.
struct Child {
    locator: String,
    agent_id: String,
    /// `agent-<id>.meta.json`, when present.
    meta_json: Option<String>,
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        let mut paths = SessionPaths::from_locator(locator)?;
        let file = home.open(locator).map_err(|e| fs_error(locator, e))?;
        let head = Head::scan(&file).map_err(|e| fs_error(locator, e))?;
        let mut diags = Diagnostics::new();
        if paths.identify(head.session_id.as_deref()) {
            diags.add("session-id-mismatch", Severity::Warning, "sessionId", Some(locator), None);
        }
        let meta = records::session_meta(locator, &paths.native_id, &head);
        let lines = JsonLines::new(file, locator);
        let transcript = Transcript::new(locator.to_string(), None, paths.clone());
        Ok(Reader {
            home,
            paths,
            writer: BatchWriter::new(options),
            diags,
            meta: Some(meta),
            current: Some((lines, transcript)),
            children: None,
            done: false,
        })
    }

    /// Does one unit of work (a line, a file switch). False when nothing is left.
    fn step(&mut self) -> Result<bool, CodecError> {
        if let Some(meta) = self.meta.take() {
            self.writer.push(&meta);
            return Ok(true);
        }
        let mut out = Out { writer: &mut self.writer, diags: &mut self.diags, home: &self.home };
        if let Some((lines, transcript)) = self.current.as_mut() {
            match lines.next_line() {
                Some(Ok(line)) => transcript.line(&line, &mut out),
                Some(Err(e)) => return Err(fs_error(lines.path(), e)),
                None => {
                    transcript.finish(&mut out);
                    self.current = None;
                }
            }
            return Ok(true);
        }
        if self.children.is_none() {
            self.children = Some(self.find_children());
        }
        let Some(child) = self.children.as_mut().and_then(VecDeque::pop_front) else {
            return Ok(false);
        };
        self.open_child(child);
        Ok(true)
    }

    /// Subagent transcripts: `<session>/subagents/agent-*.jsonl`, then
    /// `agent-*.jsonl` of older builds in the project directory whose first
    /// line names this session.
    fn find_children(&mut self) -> VecDeque<Child> {
        let mut children = VecDeque::new();
        let dir = self.paths.subagents_dir();
        if let Some(entries) = self.list(&dir) {
            for entry in entries.iter().filter(|e| matches!(e.meta.kind, EntryKind::File)) {
                let Some(agent_id) = layout::agent_id(&entry.name) else {
                    continue;
                };
                let meta_name = format!("{}{agent_id}.meta.json", layout::AGENT_PREFIX);
                children.push_back(Child {
                    locator: layout::join(&dir, &entry.name),
                    agent_id: agent_id.to_string(),
                    meta_json: entries.iter().any(|e| e.name == meta_name).then(|| layout::join(&dir, &meta_name)),
                });
            }
        }
        if let Some(entries) = self.list(&self.paths.project_dir.clone()) {
            for entry in entries.iter().filter(|e| matches!(e.meta.kind, EntryKind::File)) {
                let Some(agent_id) = layout::agent_id(&entry.name) else {
                    continue;
                };
                let locator = self.paths.in_project(&entry.name);
                if self.owner(&locator).as_deref() == Some(self.paths.native_id.as_str()) {
                    children.push_back(Child { locator, agent_id: agent_id.to_string(), meta_json: None });
                }
            }
        }
        children
    }

    fn list(&mut self, dir: &str) -> Option<Vec<trajhost_codec_sdk::fs::DirEntry>> {
        match self.home.list(dir) {
            Ok(entries) => Some(entries),
            Err(FsError::NotFound(_)) => None,
            Err(e) => {
                self.diags.add("unreadable-directory", Severity::Warning, fs_kind(&e), Some(dir), None);
                None
            }
        }
    }

    /// The `sessionId` on the first line of a legacy subagent file.
    fn owner(&self, locator: &str) -> Option<String> {
        let bytes = self.home.open(locator).and_then(|f| f.read_at(0, OWNER_PROBE_BYTES)).ok()?;
        let end = memchr::memchr(b'\n', &bytes).unwrap_or(bytes.len());
        native::parse(&bytes[..end]).ok()?.session_id.owned()
    }

    /// Starts a subagent transcript: its `meta`, then its lines.
    fn open_child(&mut self, child: Child) {
        let opened = self.home.open(&child.locator).and_then(|file| Head::scan(&file).map(|head| (file, head)));
        let (file, head) = match opened {
            Ok(x) => x,
            Err(e) => {
                self.diags.add("unreadable-file", Severity::Warning, fs_kind(&e), Some(&child.locator), None);
                return;
            }
        };
        let agent = child.meta_json.as_deref().map(|path| self.agent_meta(path)).unwrap_or_default();
        let meta = records::child_meta(&child.locator, &self.paths.native_id, &child.agent_id, &head, &agent);
        self.writer.push(&meta);
        let transcript = Transcript::new(child.locator.clone(), Some(child.agent_id), self.paths.clone());
        self.current = Some((JsonLines::new(file, &child.locator), transcript));
    }

    fn agent_meta(&mut self, path: &str) -> AgentMeta {
        #[derive(Deserialize, Default)]
        #[serde(default, rename_all = "camelCase")]
        struct Raw<'a> {
            #[serde(borrow)]
            agent_type: Text<'a>,
            #[serde(borrow)]
            description: Text<'a>,
            #[serde(borrow)]
            tool_use_id: Text<'a>,
        }
        let bytes = match self.home.read_to_end(path, MAX_AGENT_META_BYTES) {
            Ok(bytes) => bytes,
            Err(e) => {
                self.diags.add("unreadable-file", Severity::Info, fs_kind(&e), Some(path), None);
                return AgentMeta::default();
            }
        };
        match serde_json::from_slice::<Raw<'_>>(&bytes) {
            Ok(raw) => AgentMeta {
                agent_type: raw.agent_type.owned(),
                description: raw.description.owned(),
                tool_use_id: raw.tool_use_id.owned(),
            },
            Err(_) => {
                self.diags.add("malformed-agent-meta", Severity::Warning, "meta.json", Some(path), None);
                AgentMeta::default()
            }
        }
    }
}

impl SessionReader for Reader {
    fn next_batch(&mut self) -> Result<Option<Batch>, CodecError> {
        if self.done {
            return Ok(None);
        }
        while !self.writer.is_full() {
            if !self.step()? {
                self.done = true;
                let diagnostics = self.diags.drain();
                if self.writer.is_empty() && diagnostics.is_empty() {
                    return Ok(None);
                }
                return Ok(Some(self.writer.take(diagnostics)));
            }
        }
        Ok(Some(self.writer.take(Vec::new())))
    }
}
