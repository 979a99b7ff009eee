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
        // Keep the capacity: the next batch does not regrow from zero.
        let capacity = self.buf.capacity();
        let bytes = std::mem::replace(&mut self.buf, Vec::with_capacity(capacity));
        self.count = 0;
        // Not re-validated: it cost 11 % of a wasm read (docs/performance.md).
        debug_assert!(std::str::from_utf8(&bytes).is_ok());
        // SAFETY: `buf` holds only what `serde_json::to_writer` wrote (it
        // writes `&str` contents, escapes and ASCII punctuation: UTF-8 only)
        // and `\n` bytes; nothing else appends to it.
        let records = unsafe { String::from_utf8_unchecked(bytes) };
        Batch { records, diagnostics }
    }
}

/// A record id from a byte location, for records without a native id.
pub fn location_id(file: &str, offset: u64, index: usize) -> String {
    if index == 0 { format!("{file}@{offset}") } else { format!("{file}@{offset}#{index}") }
}
