//! Messages of a transcript document: where each one lies in the file, and
//! the diagnostic for a block of an unknown type.

use std::collections::VecDeque;

use serde_json::value::RawValue;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::text::type_name;

/// The (offset, len) in `bytes` of each message, parsed from `bytes` as
/// borrowed raw JSON; a message is parsed for real only when its turn comes.
pub fn spans(bytes: &[u8], messages: &[&RawValue]) -> VecDeque<(usize, usize)> {
    let base = bytes.as_ptr() as usize;
    messages.iter().map(|m| span(base, m)).collect()
}

/// The (offset, len) of `raw` in the document starting at address `base`.
pub fn span(base: usize, raw: &RawValue) -> (usize, usize) {
    (raw.get().as_ptr() as usize - base, raw.get().len())
}

/// A block of a type not known for `role`, counted as `unknown-content-block`.
pub fn unknown_block(diags: &mut Diagnostics, role: &str, kind: &str, file: &str, offset: u64) {
    diags.add(
        "unknown-content-block",
        Severity::Warning,
        &format!("{role}/{}", type_name(Some(kind))),
        Some(file),
        Some(offset),
    );
}
