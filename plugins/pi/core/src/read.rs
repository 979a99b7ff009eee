//! `read`: one session as canonical records, streamed in batches.
//!
//! A Pi session file is a tree: every entry names its `parentId`, and the
//! conversation the harness resumes is the branch from the root to the last
//! entry of the file. Reading takes two passes over the file:
//!
//! 1. the tree: each entry's id, parent and byte offset (no content kept),
//!    then the active branch, walked from the last entry up its parents;
//! 2. the records: the `meta` from the header, then each entry of the active
//!    branch in file order. Entries off the branch are not emitted; they are
//!    counted in an `off-branch-entry` diagnostic (detail: the entry type).
//!
//! A `compaction` replaces the history before its `firstKeptEntryId`, and
//! the kept entries precede it in the file; its record is emitted right
//! before the first kept entry, so that a canonical `compaction` replaces
//! exactly what it summarizes.
//!
//! Format version 1 (a header without `version`) has no entry ids: the
//! entries form a list, each the child of the one before it (what Pi's own
//! migration to version 2 makes of them), and a compaction names its first
//! kept entry by position (`firstKeptEntryIndex`, counting the header).
//!
//! Memory is bounded by the longest line plus a few dozen bytes per entry.
//! Diagnostics are aggregated and go out with the last batch.
//!
//! Continuing (a resume point): a read ends with a point where its last
//! whole line ends, holding the branch's leaf, the last entry's record id,
//! the entry count and the mapper's skipped entries. [`Reader::resume`]
//! builds the tree of the appended entries alone; it continues only when
//! they extend that leaf (the new last entry's ancestors among them reach
//! it) and no appended compaction keeps an entry from before the point.
//! Otherwise the branch the file resumes changed, records before the point
//! with it, and it declines (`unsupported`): the host reads the file whole.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, File};
use trajhost_codec_sdk::jsonl::{JsonLines, report_bad_line};
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps, location_id};
use trajhost_codec_sdk::resume::{self, Resume};
use trajhost_codec_sdk::{CodecError, ReadOptions, ResumePoint, Severity};

use crate::Flavor;
use crate::discover::fs_error;
use crate::head::Head;
use crate::layout;
use crate::native::{str_of, string_of, type_name};
use crate::records::{Mapper, Out, Span};

/// The tree of one file, from pass 1.
struct Tree {
    /// Offsets of entry lines off the active branch.
    off_branch: BTreeSet<u64>,
    /// Offset of a compaction's first kept entry → the compaction's span.
    compaction_before: BTreeMap<u64, (u64, u64)>,
    /// Offsets of compactions emitted before their first kept entry.
    moved_compactions: BTreeSet<u64>,
    /// Offset of an entry without an id (format v1) → the record id of the
    /// entry before it: its parent in the list.
    implicit_parent: BTreeMap<u64, String>,
    /// Where the tree ends, for a read that continues after it.
    end: TreeEnd,
}

/// The end of a tree: what a continued read builds the appended part on.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
struct TreeEnd {
    /// The id of the last entry that has one: the active branch's leaf.
    leaf: Option<String>,
    /// The record id of the last entry (the implicit parent of a v1 entry after it).
    last: Option<String>,
    /// Lines counted as v1's `firstKeptEntryIndex` counts them (header included).
    position: u64,
}

/// What a resume point carries.
#[derive(serde::Serialize, serde::Deserialize)]
struct State {
    end: TreeEnd,
    skipped: BTreeMap<String, Option<String>>,
    header_offset: u64,
}

impl State {
    fn of(tree: &Tree, mapper: &Mapper<'_>, header_offset: u64) -> State {
        State { end: tree.end.clone(), skipped: mapper.skipped.clone(), header_offset }
    }
}

struct Node {
    offset: u64,
    len: u64,
    id: Option<String>,
    parent: Option<String>,
    first_kept: Option<FirstKept>,
}

/// How a compaction names its first kept entry.
enum FirstKept {
    /// `firstKeptEntryId` (v2, v3).
    Id(String),
    /// `firstKeptEntryIndex` (v1): the position among the file's entries,
    /// the header being 0.
    Index(u64),
}

impl Tree {
    /// The tree of the lines from where `lines` stands, after a part that
    /// ended at `before` (the default: nothing before). Errs with the reason
    /// when the part read does not extend `before`'s leaf.
    fn build(lines: &mut JsonLines, path: &str, before: &TreeEnd) -> Result<Tree, CodecError> {
        let mut nodes: Vec<Node> = Vec::new();
        let mut index: BTreeMap<String, usize> = BTreeMap::new();
        // Position of each parsed line among the file's entries (header
        // included), as v1's `firstKeptEntryIndex` counts → node.
        let mut by_position: BTreeMap<u64, usize> = BTreeMap::new();
        let mut position = before.position;
        let mut implicit_parent = BTreeMap::new();
        while let Some(line) = lines.next_line() {
            let line = line.map_err(|e| fs_error(path, e))?;
            let Ok(v) = serde_json::from_slice::<Value>(line.bytes) else { continue };
            let kind = str_of(&v, "type");
            if kind != Some("title") || v.get("id").is_none() {
                position += 1;
            }
            // The header and Oh My Pi's title slot (no id) are no entries.
            if matches!(kind, Some("session") | None) || (kind == Some("title") && v.get("id").is_none()) {
                continue;
            }
            let id = string_of(&v, "id");
            if let Some(id) = &id {
                index.insert(id.clone(), nodes.len());
            } else if let Some(previous) = nodes.last().map(|n| node_id(path, n)).or_else(|| before.last.clone()) {
                implicit_parent.insert(line.offset, previous);
            }
            by_position.insert(position - 1, nodes.len());
            let first_kept = (kind == Some("compaction"))
                .then(|| match (string_of(&v, "firstKeptEntryId"), v.get("firstKeptEntryIndex")) {
                    (Some(id), _) => Some(FirstKept::Id(id)),
                    (None, Some(i)) => i.as_u64().map(FirstKept::Index),
                    (None, None) => None,
                })
                .flatten();
            nodes.push(Node { offset: line.offset, len: line.len, id, parent: string_of(&v, "parentId"), first_kept });
        }
        // The active branch: the last entry and its ancestors. Entries
        // without an id (format v1, a linear list) are all on it.
        let mut active = vec![false; nodes.len()];
        let last_with_id = nodes.iter().rposition(|n| n.id.is_some());
        if let Some(last) = last_with_id {
            let mut current = Some(last);
            let mut steps = 0;
            let mut top = last;
            while let Some(i) = current {
                if active[i] || steps > nodes.len() {
                    break; // a cycle
                }
                active[i] = true;
                top = i;
                steps += 1;
                current = nodes[i].parent.as_ref().and_then(|p| index.get(p)).copied().filter(|&p| p < nodes.len());
            }
            // A continued part must hang off the leaf the part before ended with.
            if before.leaf.is_some() && nodes[top].parent != before.leaf {
                return Err(CodecError::Unsupported(format!(
                    "{path}: the appended entries do not continue the branch read before (they branch off \
                     elsewhere); read the file whole"
                )));
            }
        }
        let on_branch = |i: usize| nodes[i].id.is_none() || active[i];
        let end = TreeEnd {
            leaf: last_with_id.and_then(|i| nodes[i].id.clone()).or_else(|| before.leaf.clone()),
            last: nodes.last().map(|n| node_id(path, n)).or_else(|| before.last.clone()),
            position,
        };
        let mut tree = Tree {
            off_branch: BTreeSet::new(),
            compaction_before: BTreeMap::new(),
            moved_compactions: BTreeSet::new(),
            implicit_parent,
            end,
        };
        for (i, node) in nodes.iter().enumerate() {
            if !on_branch(i) {
                tree.off_branch.insert(node.offset);
            }
        }
        for (i, node) in nodes.iter().enumerate() {
            let Some(kept) = &node.first_kept else { continue };
            if !on_branch(i) {
                continue;
            }
            let found = match kept {
                FirstKept::Id(id) => index.get(id),
                FirstKept::Index(position) => by_position.get(position),
            };
            // A compaction that keeps an entry read before: its record goes before that entry.
            let before_the_part = match kept {
                FirstKept::Id(_) => found.is_none() && before.leaf.is_some(),
                FirstKept::Index(position) => *position < before.position,
            };
            if before_the_part {
                return Err(CodecError::Unsupported(format!(
                    "{path}: an appended compaction keeps entries read before; read the file whole"
                )));
            }
            let kept = found;
            if let Some(&k) = kept
                && k < i
                && on_branch(k)
            {
                tree.compaction_before.insert(nodes[k].offset, (node.offset, node.len));
                tree.moved_compactions.insert(node.offset);
            }
        }
        Ok(tree)
    }
}

/// The record id of a node's entry, as the mapper gives it.
fn node_id(path: &str, node: &Node) -> String {
    node.id.clone().unwrap_or_else(|| location_id(path, node.offset, 0))
}

/// A session being read.
pub struct Reader {
    flavor: &'static Flavor,
    file: File,
    lines: JsonLines,
    tree: Tree,
    mapper: Mapper<'static>,
    writer: BatchWriter,
    diags: Diagnostics,
    /// The `meta` record's id.
    session_id: String,
    /// Offset of the header line; a later `session` line is reported.
    header_offset: u64,
    resume: Resume,
    done: bool,
}

impl Reader {
    pub fn open(
        flavor: &'static Flavor,
        home: Dir,
        locator: &str,
        options: &ReadOptions,
    ) -> Result<Reader, CodecError> {
        Reader::start(flavor, home, locator, None, |meta| BatchWriter::starting_with(options, meta))
    }

    /// Continues a session file from `start`, a point an earlier read took,
    /// when what was appended extends the branch read then (see the module).
    pub fn resume(
        flavor: &'static Flavor,
        home: Dir,
        locator: &str,
        start: &ResumePoint,
        options: &ReadOptions,
    ) -> Result<Reader, CodecError> {
        let state: State = resume::load(&start.state, locator)?;
        Reader::start(flavor, home, locator, Some((start.offset, state)), |meta| {
            BatchWriter::continuing(options, start, meta)
        })
    }

    /// A reader of the file from its start, or from `from` (an offset and
    /// the state there); `writer` is made from the `meta` record.
    fn start(
        flavor: &'static Flavor,
        home: Dir,
        locator: &str,
        from: Option<(u64, State)>,
        writer: impl FnOnce(&Record) -> BatchWriter,
    ) -> Result<Reader, CodecError> {
        layout::check_locator(locator)?;
        let file = home.open(locator).map_err(|e| fs_error(locator, e))?;
        let head = Head::scan(&file).map_err(|e| fs_error(locator, e))?;
        if !head.has_header() {
            return Err(CodecError::Malformed(format!("{locator}: no `session` header line")));
        }
        let mut lines = JsonLines::new(home.open(locator).map_err(|e| fs_error(locator, e))?, locator);
        let (offset, state) = match from {
            Some((offset, state)) => (offset, Some(state)),
            None => (0, None),
        };
        lines.seek(offset);
        let before = state.as_ref().map(|s| s.end.clone()).unwrap_or_default();
        let tree = Tree::build(&mut lines, locator, &before)?;
        lines.seek(offset);
        let mut diags = Diagnostics::new();
        // Oh My Pi nests subagent transcripts in the session's artifacts
        // folder (`<ts>_<id>/*.jsonl`); they are sessions of their own, not
        // read into this one.
        if let Ok(entries) = home.list(layout::artifacts_dir(locator)) {
            for entry in entries.iter().filter(|e| e.is_file() && e.name.ends_with(layout::JSONL)) {
                let path = layout::join(layout::artifacts_dir(locator), &entry.name);
                diags.add("subagent-transcript-not-read", Severity::Info, "jsonl", Some(&path), None);
            }
        }
        let file_id = locator.rsplit('/').next().and_then(layout::id_of_file_name);
        let native_id = head.id.clone().or_else(|| file_id.map(str::to_string)).unwrap_or_default();
        // Only a name that carries an id (`<ts>_<uuid>.jsonl`) can disagree.
        if file_id.is_some_and(|id| layout::is_uuid(id) && id != native_id) {
            diags.add("session-id-mismatch", Severity::Warning, "id", Some(locator), None);
        }
        let session_id = native_id.clone();
        let meta = Record {
            id: native_id.clone(),
            body: Body::Meta(Meta {
                schema: SCHEMA.to_string(),
                harness: flavor.harness.to_string(),
                native_id,
                native_version: head.version.clone(),
                cwd: head.cwd.clone(),
                title: head.title(),
                git_branch: None,
                started_at: head.started_at.clone(),
                parent_session: head.parent_session.clone(),
                parent_call: None,
                codec: Some(flavor.codec.to_string()),
            }),
            parent: None,
            ts: head.started_at.clone(),
            agent: None,
            src: head.header_span.map(|(offset, len)| SourceSpan { file: locator.to_string(), offset, len }),
        };
        let mut mapper = Mapper::new(flavor, locator.to_string());
        let mut header_offset = head.header_span.map_or(0, |(offset, _)| offset);
        if let Some(state) = state {
            mapper.skipped = state.skipped;
            header_offset = state.header_offset;
        }
        Ok(Reader {
            flavor,
            file,
            lines,
            tree,
            mapper,
            writer: writer(&meta),
            diags,
            session_id,
            header_offset,
            resume: Resume::default(),
            done: false,
        })
    }
}

impl Steps for Reader {
    /// One line. False when the file is exhausted.
    fn step(&mut self) -> Result<bool, CodecError> {
        let path = self.lines.path().to_string();
        let Some(line) = self.lines.next_line() else {
            let end = self.lines.position();
            self.take_point(end);
            return Ok(false);
        };
        let line = line.map_err(|e| fs_error(&path, e))?;
        if !line.terminated {
            let state = State::of(&self.tree, &self.mapper, self.header_offset);
            self.resume.take(line.offset, &mut self.writer, || resume::save(&state));
        }
        let span = Span { offset: line.offset, len: line.len };
        let v: Value = match serde_json::from_slice(line.bytes) {
            Ok(v) => v,
            Err(_) => {
                report_bad_line(&mut self.diags, &line, "line", &path);
                return Ok(true);
            }
        };
        let kind = str_of(&v, "type");
        match kind {
            Some("session") => {
                if span.offset != self.header_offset {
                    self.diags.add(
                        "extra-session-header",
                        Severity::Warning,
                        "session",
                        Some(&path),
                        Some(span.offset),
                    );
                } else {
                    self.header_settings(&v, span, &path);
                }
                return Ok(true);
            }
            // The title slot; a `title` entry with an id is in the chain.
            Some("title") if self.flavor.title_slot && v.get("id").is_none() => return Ok(true),
            _ => {}
        }
        if self.tree.off_branch.contains(&span.offset) {
            let detail = type_name(kind);
            self.diags.add("off-branch-entry", Severity::Info, &detail, Some(&path), Some(span.offset));
            return Ok(true);
        }
        if self.tree.moved_compactions.contains(&span.offset) {
            return Ok(true);
        }
        let mut out = Out { writer: &mut self.writer, diags: &mut self.diags };
        if let Some(&(offset, len)) = self.tree.compaction_before.get(&span.offset) {
            match self.file.read_at(offset, len.min(u64::from(u32::MAX)) as u32) {
                Ok(bytes) => match serde_json::from_slice::<Value>(bytes.trim_ascii_end()) {
                    Ok(compaction) => {
                        let parent = self.tree.implicit_parent.get(&offset).map(String::as_str);
                        self.mapper.entry(&compaction, Span { offset, len }, parent, &mut out)
                    }
                    Err(_) => out.diags.add("malformed-line", Severity::Error, "compaction", Some(&path), Some(offset)),
                },
                Err(e) => return Err(fs_error(&path, e)),
            }
        }
        let parent = self.tree.implicit_parent.get(&span.offset).map(String::as_str);
        self.mapper.entry(&v, span, parent, &mut out);
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
    /// Takes the resume point at `offset`, where the whole lines end.
    fn take_point(&mut self, offset: u64) {
        let state = State::of(&self.tree, &self.mapper, self.header_offset);
        self.resume.take(offset, &mut self.writer, || resume::save(&state));
    }

    /// Format v1 headers carry the model and thinking level the session
    /// started with (later versions write them as entries): the same
    /// observations as those entries, after `meta`.
    fn header_settings(&mut self, v: &Value, span: Span, path: &str) {
        let model = match (str_of(v, "provider"), str_of(v, "modelId")) {
            (Some(p), Some(m)) => Some(format!("{p}/{m}")),
            (None, Some(m)) => Some(m.to_string()),
            _ => None,
        };
        let settings = [("model_change", model), ("thinking_level_change", string_of(v, "thinkingLevel"))];
        for (subtype, text) in settings {
            let Some(text) = text else { continue };
            self.writer.push(&Record {
                id: format!("{}#{subtype}", self.session_id),
                body: Body::Observation { subtype: subtype.to_string(), text: Some(text) },
                parent: Some(self.session_id.clone()),
                ts: string_of(v, "timestamp"),
                agent: None,
                src: Some(SourceSpan { file: path.to_string(), offset: span.offset, len: span.len }),
            });
        }
    }
}
