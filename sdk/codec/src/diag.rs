//! Diagnostics, aggregated by code and detail so a million unknown lines
//! become one entry with a count.

use std::collections::BTreeMap;

use crate::{Diagnostic, Severity};

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
        let key = (code.to_string(), detail.to_string());
        self.entries
            .entry(key)
            .and_modify(|d| d.count = d.count.saturating_add(1))
            .or_insert_with(|| Diagnostic {
                code: code.to_string(),
                severity,
                detail: detail.to_string(),
                count: 1,
                file: file.map(str::to_string),
                offset,
            });
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Everything collected so far.
    pub fn drain(&mut self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.entries).into_values().collect()
    }
}
