//! `read`: one transcript as canonical records, streamed in batches.
//!
//! A transcript is a tree of Pi-style entries: each names its `parentId`,
//! and the conversation OpenClaw resumes is the branch from the root to the
//! last entry. Reading takes two passes over the file:
//!
//! 1. the tree: each entry's id, parent and byte offset (no content kept),
//!    then the active branch, walked from the last entry up its parents;
//! 2. the records: `meta` from the header, then each entry of the active
//!    branch in file order, mapped by `trajhost-openclaw-core` exactly as
//!    the SQLite codec maps the same entries. Entries off the branch are
//!    counted (`off-branch-entry`, detail: the entry type), not emitted.
//!
//! A `parentId` may name the header (the session id) or, in some writers, a
//! tool call block instead of the entry that holds it: both are followed.
//! When the walk meets a parent that names nothing in the file, the tree
//! cannot be trusted and every entry is read in file order
//! (`broken-parent-chain`); so it is when several entries have no parent
//! (`several-roots`: a forest, not one tree). Early Clawdbot transcripts (bare
//! `{role, content}` lines, no header and no tree) are read line by line as
//! the messages they are.
//!
//! Memory is bounded by the longest line plus a few dozen bytes per entry.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};
use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::json::str_of;
use trajhost_codec_sdk::jsonl::{JsonLines, report_bad_line};
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::text::type_name;
use trajhost_codec_sdk::{CodecError, ReadOptions, Severity};
use trajhost_openclaw_core::Mapper;

use crate::discover::{self, fs_error};
use crate::head::{Head, Shape};
use crate::index::Index;
use crate::layout;
use crate::{CODEC, HARNESS};

/// Offsets of entry lines off the active branch, from pass 1.
fn off_branch(
    lines: &mut JsonLines,
    path: &str,
    header_id: Option<&str>,
    diags: &mut Diagnostics,
) -> Result<BTreeSet<u64>, CodecError> {
    struct Node {
        offset: u64,
        id: Option<String>,
        parent: Option<String>,
    }
    let mut nodes: Vec<Node> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    // Tool call id → the entry that holds the call.
    let mut calls: BTreeMap<String, usize> = BTreeMap::new();
    while let Some(line) = lines.next_line() {
        let line = line.map_err(|e| fs_error(path, e))?;
        let Ok(v) = serde_json::from_slice::<Value>(line.bytes) else { continue };
        if matches!(str_of(&v, "type"), Some("session") | None) {
            continue;
        }
        let id = str_of(&v, "id").filter(|s| !s.is_empty()).map(str::to_string);
        if let Some(id) = &id {
            index.insert(id.clone(), nodes.len());
        }
        if let Some(Value::Array(blocks)) = v.get("message").and_then(|m| m.get("content")) {
            for block in blocks.iter().filter(|b| str_of(b, "type") == Some("toolCall")) {
                if let Some(call) = str_of(block, "id").filter(|s| !s.is_empty()) {
                    calls.entry(call.to_string()).or_insert(nodes.len());
                }
            }
        }
        let parent = str_of(&v, "parentId").filter(|s| !s.is_empty()).map(str::to_string);
        nodes.push(Node { offset: line.offset, id, parent });
    }
    // Entries without an id (a linear list) are all on the branch.
    let Some(last) = nodes.iter().rposition(|n| n.id.is_some()) else { return Ok(BTreeSet::new()) };
    // Pi's writer starts one tree (the first entry has no parent). Several
    // roots are a writer that did not keep a tree: no branch is the
    // conversation, so every entry is.
    let is_root = |n: &Node| n.id.is_some() && n.parent.as_deref().is_none_or(|p| Some(p) == header_id);
    if nodes.iter().filter(|n| is_root(n)).count() > 1 {
        diags.add("several-roots", Severity::Info, "parentId", Some(path), None);
        return Ok(BTreeSet::new());
    }
    let mut active = vec![false; nodes.len()];
    let mut current = Some(last);
    while let Some(i) = current {
        if active[i] {
            break; // a cycle
        }
        active[i] = true;
        current = match nodes[i].parent.as_deref() {
            None => None,
            Some(p) if Some(p) == header_id => None,
            Some(p) => match index.get(p).or_else(|| calls.get(p)) {
                Some(&next) => Some(next),
                None => {
                    diags.add("broken-parent-chain", Severity::Warning, "parentId", Some(path), Some(nodes[i].offset));
                    return Ok(BTreeSet::new());
                }
            },
        };
    }
    Ok(nodes.iter().zip(&active).filter(|(n, on)| n.id.is_some() && !**on).map(|(n, _)| n.offset).collect())
}

/// A session being read.
pub struct Reader {
    lines: JsonLines,
    shape: Shape,
    off_branch: BTreeSet<u64>,
    mapper: Mapper,
    writer: BatchWriter,
    diags: Diagnostics,
    /// Offset of the header line; a later `session` line is reported.
    header_offset: Option<u64>,
    done: bool,
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        layout::check_locator(locator)?;
        let file = home.open(locator).map_err(|e| fs_error(locator, e))?;
        let head = Head::scan(&file).map_err(|e| fs_error(locator, e))?;
        let Some(shape) = head.shape else {
            return Err(CodecError::Malformed(format!("{locator}: no OpenClaw entry or message at the head")));
        };
        let mut diags = Diagnostics::new();
        let mut lines = JsonLines::new(file, locator);
        let off_branch = match shape {
            Shape::Entries => off_branch(&mut lines, locator, head.id.as_deref(), &mut diags)?,
            Shape::Flat => BTreeSet::new(),
        };
        lines.seek(0);
        let name = locator.rsplit('/').next().unwrap_or(locator);
        let folder = locator.rsplit_once('/').map_or("", |(dir, _)| dir);
        let index = Index::load(&home, &layout::join(folder, layout::INDEX)).unwrap_or_default();
        let (native_id, mismatch) = discover::native_id(&head, name, &index);
        if mismatch {
            diags.add("session-id-mismatch", Severity::Warning, "id", Some(locator), None);
        }
        let title = index.get(&native_id).and_then(|e| e.title.clone()).or_else(|| head.prompt_title());
        let meta = Record {
            id: native_id.clone(),
            body: Body::Meta(Meta {
                schema: SCHEMA.to_string(),
                harness: HARNESS.to_string(),
                native_id,
                native_version: None,
                cwd: head.cwd.clone(),
                title,
                git_branch: None,
                started_at: head.started_at.clone(),
                parent_session: head.parent_session.clone(),
                parent_call: None,
                codec: Some(CODEC.to_string()),
            }),
            parent: None,
            ts: head.started_at.clone(),
            agent: None,
            src: head.header_span.map(|(offset, len)| SourceSpan { file: locator.to_string(), offset, len }),
        };
        Ok(Reader {
            lines,
            shape,
            off_branch,
            mapper: Mapper::default(),
            writer: BatchWriter::starting_with(options, &meta),
            diags,
            header_offset: head.header_span.map(|(offset, _)| offset),
            done: false,
        })
    }
}

impl Steps for Reader {
    /// One line. False when the file is exhausted.
    fn step(&mut self) -> Result<bool, CodecError> {
        let path = self.lines.path().to_string();
        let Some(line) = self.lines.next_line() else { return Ok(false) };
        let line = line.map_err(|e| fs_error(&path, e))?;
        let (offset, len) = (line.offset, line.len);
        if line.bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(true);
        }
        let v: Value = match serde_json::from_slice(line.bytes) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => {
                self.diags.add("malformed-line", Severity::Error, "not a JSON object", Some(&path), Some(offset));
                return Ok(true);
            }
            Err(_) => {
                report_bad_line(&mut self.diags, &line, "line", &path);
                return Ok(true);
            }
        };
        let kind = str_of(&v, "type").map(str::to_string);
        let entry = match (kind.as_deref(), self.shape) {
            (Some("session"), _) => {
                if Some(offset) != self.header_offset {
                    self.diags.add("extra-session-header", Severity::Warning, "session", Some(&path), Some(offset));
                }
                return Ok(true);
            }
            (None, _) if v.get("role").is_some() => {
                // A bare message (early Clawdbot): the entry it would be.
                let ts = v.get("timestamp").cloned().unwrap_or(Value::Null);
                json!({"type": "message", "timestamp": ts, "message": v})
            }
            _ => v,
        };
        if self.off_branch.contains(&offset) {
            let detail = type_name(kind.as_deref());
            self.diags.add("off-branch-entry", Severity::Info, &detail, Some(&path), Some(offset));
            return Ok(true);
        }
        let ts = entry_time(&entry);
        for made in self.mapper.map(&entry, &path, offset, &mut self.diags) {
            self.writer.push(&made.at(ts.clone(), SourceSpan { file: path.clone(), offset, len }));
        }
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}

/// The entry's `timestamp` (ISO), else its message's (epoch ms).
fn entry_time(entry: &Value) -> Option<String> {
    if let Some(ts) = str_of(entry, "timestamp").filter(|s| !s.is_empty()) {
        return Some(ts.to_string());
    }
    match entry.get("message").and_then(|m| m.get("timestamp")) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => n.as_i64().filter(|ms| *ms >= 0).map(trajhost_codec_sdk::time::rfc3339_ms),
        _ => None,
    }
}
