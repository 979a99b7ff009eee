//! Records held until the first native line can be written.

use crate::canonical::{Body, Record};
use crate::time::parse_rfc3339;

/// The time of a record, when it has a valid RFC 3339 one.
pub fn record_ms(record: &Record) -> Option<i64> {
    record.ts.as_deref().and_then(parse_rfc3339)
}

/// The model an assistant record names (`None` for other records and for
/// an empty name).
pub fn assistant_model(record: &Record) -> Option<&str> {
    match &record.body {
        Body::Assistant(a) => a.model.as_deref().filter(|m| !m.is_empty()),
        _ => None,
    }
}

/// Records held back, in order, until what the next native line needs is
/// known.
///
/// Native files often open with a header that needs facts the canonical
/// document gives only later: the session start (when `meta` has none, the
/// first timed record's), or the model (the first assistant record's). A
/// streaming writer holds the records that come before, then releases them
/// in their order once the fact is in. What it notes while holding:
/// the first record time and the first model seen.
#[derive(Debug, Default)]
pub struct HeldRecords {
    records: Vec<Record>,
    first_ms: Option<i64>,
    first_model: Option<String>,
}

impl HeldRecords {
    /// Nothing held.
    pub fn new() -> HeldRecords {
        HeldRecords::default()
    }

    /// Holds `record`, noting its time and model if they are the first.
    pub fn hold(&mut self, record: Record) {
        if self.first_ms.is_none() {
            self.first_ms = record_ms(&record);
        }
        if self.first_model.is_none() {
            self.first_model = assistant_model(&record).map(str::to_string);
        }
        self.records.push(record);
    }

    /// The time of the first held record that has one: the session start
    /// when `meta` gives none.
    pub fn first_ms(&self) -> Option<i64> {
        self.first_ms
    }

    /// The model of the first held assistant record that names one.
    pub fn first_model(&self) -> Option<&str> {
        self.first_model.as_deref()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// How many records are held.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// The held records, in order.
    pub fn held(&self) -> &[Record] {
        &self.records
    }

    /// The held records, in order, for writing; what was noted is forgotten.
    pub fn release(&mut self) -> Vec<Record> {
        self.first_ms = None;
        self.first_model = None;
        std::mem::take(&mut self.records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(line: &str) -> Record {
        serde_json::from_str(line).unwrap()
    }

    #[test]
    fn notes_the_first_time_and_model() {
        let mut held = HeldRecords::new();
        held.hold(record(r#"{"kind":"user","id":"u","text":"hi"}"#));
        held.hold(record(r#"{"kind":"assistant","id":"a","ts":"2026-11-30T04:05:54.384Z","text":"x","model":"m1"}"#));
        held.hold(record(r#"{"kind":"assistant","id":"b","ts":"2026-11-30T04:05:55Z","text":"y","model":"m2"}"#));
        assert_eq!(held.first_ms(), Some(1_796_011_554_384));
        assert_eq!(held.first_model(), Some("m1"));
        assert_eq!(held.len(), 3);
        let released = held.release();
        assert_eq!(released.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["u", "a", "b"]);
        assert!(held.is_empty() && held.first_ms().is_none());
    }
}
