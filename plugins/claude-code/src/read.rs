//! `read`: one session as canonical records, streamed in batches.
//!
//! Order: the session's `meta`, then its transcript in file order. A
//! subagent's transcript (`agent-<id>.jsonl`) is a session of its own, read
//! the same way; a main session does not fold its subagents in.
//!
//! A main transcript of older builds also holds its subagents' lines inline
//! (`isSidechain: true`); when its own conversation starts as a main chain,
//! those lines are left out (counted in an `inline-sidechain-line`
//! diagnostic), as Claude Code leaves them out of the conversation.
//!
//! File order, not a walk of the `uuid`/`parentUuid` tree: Claude Code
//! branches that tree at every parallel tool call (each `tool_result` line
//! hangs off its own `tool_use` line), so a walk from the newest leaf would
//! lose the results on the sibling branches. Every line is read; parents
//! still point at the records they name.
//!
//! Memory is bounded by the longest line plus one buffered API response;
//! diagnostics are aggregated and go out with the last batch.
//!
//! A transcript only grows, so a read takes a resume point where its last
//! whole line ends (before a torn line, or at the end before the held-back
//! response and tool result are released), with the transcript's state
//! there; [`Reader::resume`] continues from it, with `meta` made again from
//! the grown file's head and tail, as a whole read would make it.

use serde::Deserialize;
use trajhost_codec_sdk::canonical::Record;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::JsonLines;
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::resume::Resume;
use trajhost_codec_sdk::{CodecError, ReadOptions, ResumePoint, Severity};

use crate::discover::{fs_error, fs_kind};
use crate::head::Head;
use crate::layout::SessionPaths;
use crate::native::Text;
use crate::records::{self, AgentMeta, Out, Transcript};

/// Largest `agent-<id>.meta.json` read.
const MAX_AGENT_META_BYTES: u64 = 64 * 1024;

/// A session being read.
pub struct Reader {
    home: Dir,
    writer: BatchWriter,
    diags: Diagnostics,
    lines: JsonLines,
    transcript: Transcript,
    resume: Resume,
    finished: bool,
    done: bool,
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        Reader::start(home, locator, |meta| BatchWriter::starting_with(options, meta))
    }

    /// Continues a transcript from `start`, a point an earlier read took.
    pub fn resume(home: Dir, locator: &str, start: &ResumePoint, options: &ReadOptions) -> Result<Reader, CodecError> {
        let mut reader = Reader::start(home, locator, |meta| BatchWriter::continuing(options, start, meta))?;
        reader.transcript = trajhost_codec_sdk::resume::load(&start.state, locator)?;
        reader.lines.seek(start.offset);
        Ok(reader)
    }

    /// A reader at the file's start whose writer `writer` makes from `meta`.
    fn start(home: Dir, locator: &str, writer: impl FnOnce(&Record) -> BatchWriter) -> Result<Reader, CodecError> {
        let mut paths = SessionPaths::from_locator(locator)?;
        let file = home.open(locator).map_err(|e| fs_error(locator, e))?;
        let head = Head::scan(&file).map_err(|e| fs_error(locator, e))?;
        let mut diags = Diagnostics::new();
        if paths.identify(head.session_id.as_deref(), head.agent_id.as_deref()) {
            let detail = if paths.subagent.is_some() { "agentId" } else { "sessionId" };
            diags.add("session-id-mismatch", Severity::Warning, detail, Some(locator), None);
        }
        let meta = match paths.agent_meta_json() {
            Some(meta_json) => {
                let agent = agent_meta(&home, &meta_json, &mut diags);
                records::subagent_meta(locator, &paths.native_id, &head, &agent)
            }
            None => records::session_meta(locator, &paths.native_id, &head),
        };
        let lines = JsonLines::new(file, locator);
        let main_conversation = paths.subagent.is_none() && head.starts_as_sidechain == Some(false);
        let mut transcript = Transcript::new(locator.to_string(), None, paths);
        transcript.skip_sidechains(main_conversation);
        Ok(Reader {
            home,
            writer: writer(&meta),
            diags,
            lines,
            transcript,
            resume: Resume::default(),
            finished: false,
            done: false,
        })
    }
}

impl Steps for Reader {
    /// Does one unit of work (a line). False when nothing is left.
    fn step(&mut self) -> Result<bool, CodecError> {
        if self.finished {
            return Ok(false);
        }
        let mut out = Out { writer: &mut self.writer, diags: &mut self.diags, home: &self.home };
        let transcript = &mut self.transcript;
        match self.lines.next_line() {
            Some(Ok(line)) => {
                if !line.terminated {
                    self.resume.take(line.offset, out.writer, || trajhost_codec_sdk::resume::save(&*transcript));
                }
                transcript.line(&line, &mut out)
            }
            Some(Err(e)) => return Err(fs_error(self.lines.path(), e)),
            None => {
                let end = self.lines.position();
                self.resume.take(end, out.writer, || trajhost_codec_sdk::resume::save(&*transcript));
                transcript.finish(&mut out);
                self.finished = true;
            }
        }
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }

    fn resume_point(&self) -> Option<ResumePoint> {
        self.resume.point()
    }
}

/// What `agent-<id>.meta.json` says (`{agentType, description, toolUseId}`);
/// empty when the file is missing (older builds wrote none), with a
/// diagnostic when it cannot be read or parsed.
pub fn agent_meta(home: &Dir, path: &str, diags: &mut Diagnostics) -> AgentMeta {
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
    let bytes = match home.read_to_end(path, MAX_AGENT_META_BYTES) {
        Ok(bytes) => bytes,
        Err(trajhost_codec_sdk::fs::FsError::NotFound(_)) => return AgentMeta::default(),
        Err(e) => {
            diags.add("unreadable-file", Severity::Info, fs_kind(&e), Some(path), None);
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
            diags.add("malformed-agent-meta", Severity::Warning, "meta.json", Some(path), None);
            AgentMeta::default()
        }
    }
}
