//! `read`: one session as canonical records, streamed in batches.
//!
//! Order: the session's `meta`, the main file's records in file order, then
//! each subagent file under `chats/<sessionId>/` (its own `meta`, then its
//! records with `agent` set). Memory is bounded by the longest line plus
//! one pending message and the set of record ids emitted from the current
//! file; diagnostics are aggregated and go out with the last batch.
//!
//! The main file only grows, so a read takes a resume point where its last
//! whole line ends (before a torn line, or at its end before the pending
//! message is released); [`Reader::resume`] continues the main file there,
//! then reads the subagent files again.

use std::collections::{BTreeMap, VecDeque};

use trajhost_codec_sdk::canonical::Record;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::jsonl::JsonLines;
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::resume::{self, Resume};
use trajhost_codec_sdk::{CodecError, ReadOptions, ResumePoint, Severity};

use crate::discover::{fs_error, fs_kind, project_root};
use crate::head::Head;
use crate::layout::{self, JSONL, SessionPaths};
use crate::records::{self, Out, Transcript};

/// A session being read.
pub struct Reader {
    home: Dir,
    paths: SessionPaths,
    native_id: String,
    cwd: Option<String>,
    writer: BatchWriter,
    diags: Diagnostics,
    /// The file being read.
    current: Option<(JsonLines, Transcript)>,
    /// `toolCalls[].agentId` → call id, from the main file.
    agent_calls: BTreeMap<String, String>,
    /// Subagent files still to read; `None` until the main file is done.
    children: Option<VecDeque<String>>,
    resume: Resume,
    done: bool,
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        Reader::start(home, locator, |meta| BatchWriter::starting_with(options, meta))
    }

    /// Continues the main file from `start`, a point an earlier read took.
    pub fn resume(home: Dir, locator: &str, start: &ResumePoint, options: &ReadOptions) -> Result<Reader, CodecError> {
        let mut reader = Reader::start(home, locator, |meta| BatchWriter::continuing(options, start, meta))?;
        let (lines, transcript) = reader.current.as_mut().expect("the main file is open");
        *transcript = resume::load::<Transcript>(&start.state, locator)?.restored();
        lines.seek(start.offset);
        Ok(reader)
    }

    /// A reader at the main file's start whose writer `writer` makes from `meta`.
    fn start(home: Dir, locator: &str, writer: impl FnOnce(&Record) -> BatchWriter) -> Result<Reader, CodecError> {
        let paths = SessionPaths::from_locator(locator)?;
        let file = home.open(locator).map_err(|e| fs_error(locator, e))?;
        let head = Head::scan(&file).map_err(|e| fs_error(locator, e))?;
        let mut diags = Diagnostics::new();
        let (native_id, from_header) = head.native_id(locator);
        if !from_header {
            diags.add(crate::discover::NO_SESSION_HEADER, Severity::Warning, "sessionId", Some(locator), None);
        }
        let slug = paths.project_dir.rsplit('/').next().unwrap_or("").to_string();
        let cwd = project_root(&home, &paths.project_dir, &slug, &mut None);
        let meta = records::session_meta(locator, &native_id, cwd.clone(), &head);
        let transcript = Transcript::new(locator.to_string(), None, paths.clone());
        Ok(Reader {
            home,
            paths,
            native_id,
            cwd,
            writer: writer(&meta),
            diags,
            current: Some((JsonLines::new(file, locator), transcript)),
            agent_calls: BTreeMap::new(),
            children: None,
            resume: Resume::default(),
            done: false,
        })
    }
}

impl Steps for Reader {
    /// Does one unit of work (a line, a file switch). False when nothing is left.
    fn step(&mut self) -> Result<bool, CodecError> {
        let mut out = Out { writer: &mut self.writer, diags: &mut self.diags, home: &self.home };
        if let Some((lines, transcript)) = self.current.as_mut() {
            // The point is taken in the main file only (subagent files are read again).
            let main = self.children.is_none();
            match lines.next_line() {
                Some(Ok(line)) => {
                    if main && !line.terminated {
                        self.resume.take(line.offset, out.writer, || resume::save(&*transcript));
                    }
                    transcript.line(&line, &mut out)
                }
                Some(Err(e)) => return Err(fs_error(lines.path(), e)),
                None => {
                    if main {
                        let end = lines.position();
                        self.resume.take(end, out.writer, || resume::save(&*transcript));
                    }
                    transcript.finish(&mut out);
                    if self.children.is_none() {
                        self.agent_calls = std::mem::take(&mut transcript.agent_calls);
                    }
                    self.current = None;
                }
            }
            return Ok(true);
        }
        if self.children.is_none() {
            self.children = Some(self.find_children());
        }
        let Some(child) = self.children.as_mut().and_then(VecDeque::pop_front) else { return Ok(false) };
        self.open_child(child);
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }

    fn resume_point(&self) -> Option<ResumePoint> {
        self.resume.point()
    }
}

impl Reader {
    /// `chats/<sessionId>/*.jsonl`.
    fn find_children(&mut self) -> VecDeque<String> {
        let Some(dir) = self.paths.subagents_dir(&self.native_id) else { return VecDeque::new() };
        let mut entries = match self.home.list(&dir) {
            Ok(entries) => entries,
            Err(FsError::NotFound(_)) => return VecDeque::new(),
            Err(e) => {
                self.diags.add("unreadable-directory", Severity::Warning, fs_kind(&e), Some(&dir), None);
                return VecDeque::new();
            }
        };
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        entries
            .iter()
            .filter(|e| e.is_file() && e.name.ends_with(JSONL) && e.meta.size > 0)
            .map(|e| layout::join(&dir, &e.name))
            .collect()
    }

    /// Starts a subagent file: its `meta`, then its lines.
    fn open_child(&mut self, locator: String) {
        let opened = self.home.open(&locator).and_then(|file| Head::scan(&file).map(|head| (file, head)));
        let (file, head) = match opened {
            Ok(x) => x,
            Err(e) => {
                self.diags.add("unreadable-file", Severity::Warning, fs_kind(&e), Some(&locator), None);
                return;
            }
        };
        let name = locator.rsplit('/').next().unwrap_or(&locator);
        let child_id = head.session_id.clone().unwrap_or_else(|| name.strip_suffix(JSONL).unwrap_or(name).to_string());
        let parent_call = self.agent_calls.get(&child_id).cloned();
        let meta = records::child_meta(&locator, &child_id, &self.native_id, parent_call, self.cwd.clone(), &head);
        self.writer.push(&meta);
        let transcript = Transcript::new(locator.clone(), Some(child_id), self.paths.clone());
        self.current = Some((JsonLines::new(file, &locator), transcript));
    }
}
