//! Building record batches.

use crate::canonical::Record;
use crate::{Batch, Diagnostic, ReadOptions};

/// Accumulates canonical records as JSON lines until a batch is full.
pub struct BatchWriter {
    buf: Vec<u8>,
    count: u32,
    max_records: u32,
    max_bytes: u32,
}

impl BatchWriter {
    pub fn new(options: &ReadOptions) -> BatchWriter {
        BatchWriter {
            buf: Vec::with_capacity(options.max_batch_bytes.min(1 << 20) as usize),
            count: 0,
            max_records: options.max_batch_records.max(1),
            max_bytes: options.max_batch_bytes.max(1),
        }
    }

    /// Appends one record.
    pub fn push(&mut self, record: &Record) {
        // Serializing a `Record` cannot fail: every map key is a string.
        serde_json::to_writer(&mut self.buf, record).expect("canonical record serializes");
        self.buf.push(b'\n');
        self.count += 1;
    }

    /// True once either soft cap is reached.
    pub fn is_full(&self) -> bool {
        self.count >= self.max_records || self.buf.len() >= self.max_bytes as usize
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Records pushed since the last `take`.
    pub fn len(&self) -> u32 {
        self.count
    }

    /// The batch so far, leaving the writer empty.
    pub fn take(&mut self, diagnostics: Vec<Diagnostic>) -> Batch {
        let bytes = std::mem::take(&mut self.buf);
        self.count = 0;
        // serde_json writes UTF-8 only.
        let records = String::from_utf8(bytes).expect("serde_json output is UTF-8");
        Batch { records, diagnostics }
    }
}

/// A record id from a byte location, for records without a native id.
pub fn location_id(file: &str, offset: u64, index: usize) -> String {
    if index == 0 { format!("{file}@{offset}") } else { format!("{file}@{offset}#{index}") }
}
