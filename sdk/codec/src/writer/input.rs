//! The canonical document as it is pushed: lines into records.

use crate::canonical::{Body, Meta, Record};
use crate::diag::Diagnostics;
use crate::hash::sha256;
use crate::records::canonical_line;
use crate::{CodecError, Severity};

/// Keeps the session's own `meta` in `meta`: the first one, of the main
/// transcript, pushed before any content (`started`: the writer has written
/// some). Any other `meta`, and every record of a subagent, is a
/// subagent's, reported as `not-carried` `subagent-transcript` (info), for
/// targets that hold one transcript. Returns the record when it is the main
/// transcript's content.
pub fn main_content(meta: &mut Option<Meta>, record: Record, started: bool, diags: &mut Diagnostics) -> Option<Record> {
    let subagents =
        |diags: &mut Diagnostics| diags.add("not-carried", Severity::Info, "subagent-transcript", None, None);
    if let Body::Meta(m) = &record.body {
        if meta.is_none() && !started && record.agent.is_none() {
            *meta = Some(m.clone());
        } else {
            subagents(diags);
        }
        return None;
    }
    if record.agent.is_some() {
        subagents(diags);
        return None;
    }
    Some(record)
}

/// Splits the pushed canonical text into records.
///
/// Lines are numbered across batches (an error names the document line),
/// blank lines are skipped, a line of an unknown kind is reported
/// (`not-carried` `unknown-kind/<kind>`) rather than refused, so a document
/// from a newer trajhost still writes. The first `meta` line's SHA-256 is
/// kept: it names the source session (harness, id, start), so ids derived
/// from it are the same for the same session however it is batched.
#[derive(Debug, Default, Clone)]
pub struct CanonicalInput {
    line_no: usize,
    meta_digest: Option<[u8; 32]>,
    first_line_digest: Option<[u8; 32]>,
}

impl CanonicalInput {
    /// Nothing read yet.
    pub fn new() -> CanonicalInput {
        CanonicalInput::default()
    }

    /// One pushed line as a record; `None` for a blank line or a kind this
    /// SDK does not know (reported in `diags`). Refuses a line that is not
    /// JSON.
    pub fn record(&mut self, line: &str, diags: &mut Diagnostics) -> Result<Option<Record>, CodecError> {
        self.line_no += 1;
        let record = canonical_line(line, self.line_no, diags)?;
        if let Some(record) = &record {
            self.note_digests(line, record);
        } else if !line.trim().is_empty() && self.first_line_digest.is_none() {
            self.first_line_digest = Some(sha256(line.as_bytes()));
        }
        Ok(record)
    }

    /// Every record of one pushed batch, as [`record`](Self::record) reads
    /// each line: for writers that build a whole document (a batch is
    /// bounded, and such a writer keeps every record anyway).
    pub fn records(&mut self, batch: &str, diags: &mut Diagnostics) -> Result<Vec<Record>, CodecError> {
        let mut records = Vec::new();
        for line in batch.lines() {
            records.extend(self.record(line, diags)?);
        }
        Ok(records)
    }

    /// As [`record`](Self::record), and a subagent's record (one with an
    /// `agent`) is reported as `not-carried` `subagent-transcript` and left
    /// out: for targets that keep a subagent in a store of its own.
    pub fn own_record(&mut self, line: &str, diags: &mut Diagnostics) -> Result<Option<Record>, CodecError> {
        let Some(record) = self.record(line, diags)? else { return Ok(None) };
        if record.agent.is_some() {
            diags.add("not-carried", Severity::Warning, "subagent-transcript", None, None);
            return Ok(None);
        }
        Ok(Some(record))
    }

    /// As [`record`](Self::record), but a line that is no canonical record
    /// of a kind this SDK knows is refused: for targets that would lose
    /// meaning silently (a whole-document hash, a strict schema).
    pub fn strict_record(&mut self, line: &str) -> Result<Option<Record>, CodecError> {
        self.line_no += 1;
        if line.trim().is_empty() {
            return Ok(None);
        }
        let record: Record = serde_json::from_str(line).map_err(|e| {
            CodecError::Malformed(format!("canonical document line {}: not a canonical record ({e})", self.line_no))
        })?;
        self.note_digests(line, &record);
        Ok(Some(record))
    }

    fn note_digests(&mut self, line: &str, record: &Record) {
        if self.first_line_digest.is_none() {
            self.first_line_digest = Some(sha256(line.as_bytes()));
        }
        if matches!(record.body, Body::Meta(_)) && self.meta_digest.is_none() {
            self.meta_digest = Some(sha256(line.as_bytes()));
        }
    }

    /// The number of the last line read (1-based; 0 before any).
    pub fn line_no(&self) -> usize {
        self.line_no
    }

    /// SHA-256 of the first `meta` line, once one was read.
    pub fn meta_digest(&self) -> Option<[u8; 32]> {
        self.meta_digest
    }

    /// SHA-256 of the first non-blank line (the `meta` line of a well-formed
    /// document), once one was read.
    pub fn first_line_digest(&self) -> Option<[u8; 32]> {
        self.first_line_digest
    }
}

/// A whole canonical document, for writers whose format needs all of it
/// at once (behind [`WholeDocument`](crate::WholeDocument)): its first
/// `meta` and the records to write, subagent records and further `meta`s
/// left out and reported.
#[derive(Debug, Default)]
pub struct CanonicalDocument {
    /// The first `meta` record, when there is one.
    pub meta: Option<Meta>,
    /// The other records, in order.
    pub records: Vec<Record>,
}

impl CanonicalDocument {
    /// Parses `document`, refusing one over `max_bytes` (the whole document
    /// is held in memory).
    pub fn parse(document: &str, max_bytes: usize, diags: &mut Diagnostics) -> Result<CanonicalDocument, CodecError> {
        if document.len() > max_bytes {
            return Err(CodecError::LimitExceeded(format!(
                "canonical document of {} bytes, more than {max_bytes}",
                document.len()
            )));
        }
        let mut input = CanonicalInput::new();
        let mut parsed = CanonicalDocument::default();
        for line in document.lines() {
            let Some(record) = input.own_record(line, diags)? else { continue };
            match record.body {
                Body::Meta(meta) if parsed.meta.is_none() => parsed.meta = Some(meta),
                Body::Meta(_) => diags.add("not-carried", Severity::Info, "additional-meta", None, None),
                _ => parsed.records.push(record),
            }
        }
        Ok(parsed)
    }

    /// The session start: `meta.started_at`, else the first record time.
    pub fn start_ms(&self) -> Option<i64> {
        let meta_start = self.meta.as_ref().and_then(|m| m.started_at.as_deref()).and_then(crate::time::parse_rfc3339);
        meta_start.or_else(|| self.records.iter().find_map(super::record_ms))
    }

    /// Whether the document was read from `harness` (its own ids, prompts
    /// and opaque reasoning can then be kept).
    pub fn is_from(&self, harness: &str) -> bool {
        self.meta.as_ref().is_some_and(|m| m.harness == harness)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_lines_across_batches_and_keeps_the_meta_digest() {
        let mut input = CanonicalInput::new();
        let mut diags = Diagnostics::new();
        let meta = r#"{"kind":"meta","id":"m","schema":"s","harness":"h","native_id":"n"}"#;
        assert!(input.record(meta, &mut diags).unwrap().is_some());
        assert_eq!(input.meta_digest(), Some(sha256(meta.as_bytes())));
        assert!(input.record("", &mut diags).unwrap().is_none());
        assert!(input.record(r#"{"kind":"hologram","id":"x"}"#, &mut diags).unwrap().is_none());
        let sub = r#"{"kind":"user","id":"u","agent":"a","text":"hi"}"#;
        assert!(input.own_record(sub, &mut diags).unwrap().is_none());
        assert!(input.strict_record(r#"{"kind":"hologram","id":"y"}"#).is_err());
        let error = input.record("{", &mut diags).unwrap_err();
        assert!(matches!(error, CodecError::Malformed(m) if m.starts_with("canonical document line 6:")));
        let details: Vec<String> = diags.drain().into_iter().map(|d| d.detail).collect();
        assert_eq!(details, ["subagent-transcript", "unknown-kind/hologram"]);
    }

    #[test]
    fn a_whole_document_has_its_meta_records_and_start() {
        let mut diags = Diagnostics::new();
        let text = concat!(
            r#"{"kind":"meta","id":"m","schema":"s","harness":"h","native_id":"n"}"#,
            "\n",
            r#"{"kind":"user","id":"u","ts":"2026-11-30T04:05:54.384Z","text":"hi"}"#,
            "\n",
            r#"{"kind":"meta","id":"m2","schema":"s","harness":"h","native_id":"n"}"#,
            "\n"
        );
        let document = CanonicalDocument::parse(text, 1 << 20, &mut diags).unwrap();
        assert!(document.is_from("h") && document.records.len() == 1);
        assert_eq!(document.start_ms(), Some(1_796_011_554_384));
        assert!(matches!(CanonicalDocument::parse(text, 10, &mut diags), Err(CodecError::LimitExceeded(_))));
    }
}
