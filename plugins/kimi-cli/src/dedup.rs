//! Lines a rotated context carries over from the file before it.
//!
//! `/clear`, `/undo` (revert to a checkpoint) and compaction move
//! `context.jsonl` to `context_<n>.jsonl` and start a new file. The codec
//! reads every file in order, so a line copied into the new file would be
//! read twice:
//! - a revert copies the kept prefix of the old file line for line;
//! - a new file after `/clear` or compaction starts with the same system
//!   prompt and first checkpoint;
//! - a compacted context repeats the most recent messages after the summary.
//!
//! [`Dedup`] skips a new file's leading lines that equal the old file's lines
//! at the same position, and, after a compaction summary, the lines that
//! appear anywhere in the old file, until the first line that does not.
//! Lines are compared by a 64-bit hash of their bytes.

use std::collections::BTreeSet;

/// Hashes kept of the previous file; longer files are compared on their
/// first lines only.
pub const MAX_LINES: usize = 100_000;

#[derive(Debug, Default)]
enum Carry {
    #[default]
    None,
    /// Comparing with the previous file's line at this position.
    Prefix(usize),
    /// After a compaction summary: skipping lines the previous file held.
    Preserved,
}

#[derive(Debug, Default)]
pub struct Dedup {
    files: usize,
    previous: Vec<u64>,
    previous_set: BTreeSet<u64>,
    current: Vec<u64>,
    state: Carry,
}

impl Dedup {
    /// A new file begins.
    pub fn start_file(&mut self) {
        self.files += 1;
        if self.files == 1 {
            return;
        }
        self.previous = std::mem::take(&mut self.current);
        self.previous_set = self.previous.iter().copied().collect();
        self.state = Carry::Prefix(0);
    }

    /// True when the line (its hash, role, and whether it opens a compacted
    /// context) repeats the previous file.
    pub fn carried_over(&mut self, hash: u64, role: &str, compaction_summary: bool) -> bool {
        if self.current.len() < MAX_LINES {
            self.current.push(hash);
        }
        match self.state {
            Carry::None => false,
            Carry::Prefix(i) => {
                if self.previous.get(i) == Some(&hash) {
                    self.state = Carry::Prefix(i + 1);
                    true
                } else {
                    self.state = if compaction_summary { Carry::Preserved } else { Carry::None };
                    false
                }
            }
            Carry::Preserved => {
                if self.previous_set.contains(&hash) {
                    true
                } else {
                    // Bookkeeping lines between preserved messages do not end the run.
                    if !role.starts_with('_') {
                        self.state = Carry::None;
                    }
                    false
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Dedup;

    #[test]
    fn skips_copied_prefix_and_preserved_tail() {
        let mut d = Dedup::default();
        d.start_file();
        for h in [1, 2, 3, 4, 5] {
            assert!(!d.carried_over(h, "user", false));
        }
        // A revert: 1, 2 copied, then new lines.
        d.start_file();
        assert!(d.carried_over(1, "_system_prompt", false));
        assert!(d.carried_over(2, "_checkpoint", false));
        assert!(!d.carried_over(9, "user", false));
        assert!(!d.carried_over(3, "user", false), "only a leading run is carried over");
        // A compaction: system prompt, summary, preserved 9 and 3, a new line, then 1 again.
        d.start_file();
        assert!(d.carried_over(1, "_system_prompt", false));
        assert!(!d.carried_over(42, "user", true));
        assert!(d.carried_over(9, "user", false));
        assert!(!d.carried_over(77, "_usage", false));
        assert!(d.carried_over(3, "assistant", false));
        assert!(!d.carried_over(8, "user", false));
        assert!(!d.carried_over(1, "user", false));
    }
}
