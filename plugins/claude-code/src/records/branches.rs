//! Branches left unchosen. When a person rewinds a Claude Code session and
//! edits an earlier prompt, the new prompt hangs off an earlier line and the
//! old continuation stays in the file: the `uuid`/`parentUuid` tree gets a
//! second leaf. Claude Code resumes the newest one; trajhost reads the file
//! in order (see `read.rs`), so converting such a session would hand the
//! target both branches as one context. The reader reports it
//! (`unchosen-branch`, which makes `convert` refuse without `--lossy`).
//!
//! Only prompt and assistant lines that have a parent count as leaves: each `tool_result` of a
//! parallel tool call hangs off its own `tool_use` line, so those siblings
//! are leaves by construction and not a branch.

use trajhost_codec_sdk::hash::HashSet;

use crate::native::{Block, Content, Entry};

/// The leaves seen so far, and every line that has a child.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct Branches {
    /// (uuid, byte offset) of prompt and assistant lines, in file order.
    candidates: Vec<(String, u64)>,
    parents: HashSet<String>,
    /// The byte offset of the last line that has a uuid: the newest leaf's end.
    last: Option<u64>,
}

impl Branches {
    pub fn line(&mut self, entry: &Entry<'_>, offset: u64) {
        let Some(uuid) = entry.uuid.get().filter(|u| !u.is_empty()) else { return };
        for parent in [entry.parent_uuid.get(), entry.logical_parent_uuid.get()].into_iter().flatten() {
            if !parent.is_empty() {
                self.parents.insert(parent.to_string());
            }
        }
        self.last = Some(offset);
        let kind = entry.kind.get().unwrap_or("");
        let prompt = kind == "user" && !entry.is_meta.is_true() && !carries_tool_results(entry);
        // A line without a parent is a root: files of older builds (and
        // hand-made ones) have no links at all, and a leaf there says nothing.
        let linked = entry.parent_uuid.get().is_some_and(|p| !p.is_empty());
        if (prompt || kind == "assistant") && linked {
            self.candidates.push((uuid.to_string(), offset));
        }
    }

    /// Byte offsets of the leaves other than the newest line's branch end.
    pub fn abandoned_leaves(&self) -> Vec<u64> {
        self.candidates
            .iter()
            .filter(|(uuid, offset)| !self.parents.contains(uuid) && Some(*offset) != self.last)
            .map(|(_, offset)| *offset)
            .collect()
    }
}

fn carries_tool_results(entry: &Entry<'_>) -> bool {
    if entry.tool_use_result.is_some() {
        return true;
    }
    match &entry.message.0 {
        Some(message) => match &message.content {
            Content::Blocks(blocks) => blocks.iter().any(|b: &Block<'_>| b.kind.get() == Some("tool_result")),
            _ => false,
        },
        None => false,
    }
}
