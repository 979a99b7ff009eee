//! The canonical document as it is pushed: lines into records.

use crate::canonical::{Body, Record};
use crate::diag::Diagnostics;
use crate::hash::sha256;
use crate::records::canonical_line;
use crate::{CodecError, Severity};

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
        if !line.trim().is_empty() && self.first_line_digest.is_none() {
            self.first_line_digest = Some(sha256(line.as_bytes()));
        }
        if let Some(Record { body: Body::Meta(_), .. }) = &record
            && self.meta_digest.is_none()
        {
            self.meta_digest = Some(sha256(line.as_bytes()));
        }
        Ok(record)
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
        let error = input.record("{", &mut diags).unwrap_err();
        assert!(matches!(error, CodecError::Malformed(m) if m.starts_with("canonical document line 5:")));
        let details: Vec<String> = diags.drain().into_iter().map(|d| d.detail).collect();
        assert_eq!(details, ["subagent-transcript", "unknown-kind/hologram"]);
    }
}
