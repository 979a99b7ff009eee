//! Diagnostics, aggregated by code and detail so a million unknown lines
//! become one entry with a count.

use std::collections::BTreeMap;

use crate::{Diagnostic, Severity};

/// Distinct (code, detail) entries kept; later new ones are folded into one
/// `diagnostics-truncated` entry, so hostile input that makes up a new
/// detail per line cannot grow memory without bound.
pub const MAX_DISTINCT: usize = 256;

/// Code of the entry that counts diagnostics dropped past [`MAX_DISTINCT`].
pub const TRUNCATED: &str = "diagnostics-truncated";

/// Collects diagnostics until they are drained into a batch.
#[derive(Default)]
pub struct Diagnostics {
    entries: BTreeMap<(String, String), Diagnostic>,
}

impl Diagnostics {
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }

    /// Counts one occurrence. `detail` names a type or field, never content;
    /// the first occurrence's location is kept.
    pub fn add(&mut self, code: &str, severity: Severity, detail: &str, file: Option<&str>, offset: Option<u64>) {
        let mut key = (code.to_string(), detail.to_string());
        if self.entries.len() >= MAX_DISTINCT && !self.entries.contains_key(&key) {
            key = (TRUNCATED.to_string(), String::new());
            if let Some(d) = self.entries.get_mut(&key) {
                d.count = d.count.saturating_add(1);
                return;
            }
            self.entries.insert(
                key,
                Diagnostic {
                    code: TRUNCATED.to_string(),
                    severity: Severity::Warning,
                    detail: String::new(),
                    count: 1,
                    file: None,
                    offset: None,
                },
            );
            return;
        }
        self.entries.entry(key).and_modify(|d| d.count = d.count.saturating_add(1)).or_insert_with(|| Diagnostic {
            code: code.to_string(),
            severity,
            detail: detail.to_string(),
            count: 1,
            file: file.map(str::to_string),
            offset,
        });
    }

    /// Notes that a written session leaves `what` out (`not-carried`, an
    /// info: the target has no place for it).
    pub fn not_carried(&mut self, what: &str) {
        self.add("not-carried", Severity::Info, what, None, None);
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Everything collected so far.
    pub fn drain(&mut self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.entries).into_values().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregates_by_code_and_detail_and_caps_distinct_entries() {
        let mut diags = Diagnostics::new();
        diags.add("torn-tail", Severity::Warning, "line", Some("a.jsonl"), Some(10));
        diags.add("torn-tail", Severity::Warning, "line", Some("a.jsonl"), Some(99));
        for i in 0..MAX_DISTINCT + 10 {
            diags.add("unknown-record-type", Severity::Warning, &format!("t{i}"), None, None);
        }
        let all = diags.drain();
        assert_eq!(all.len(), MAX_DISTINCT + 1);
        let torn = all.iter().find(|d| d.code == "torn-tail").unwrap();
        assert_eq!((torn.count, torn.offset), (2, Some(10)));
        let truncated = all.iter().find(|d| d.code == TRUNCATED).unwrap();
        assert_eq!(truncated.count, 11);
        assert!(diags.is_empty());
    }
}
