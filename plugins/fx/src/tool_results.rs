//! `tool-results/<artifact_ref>`: the stored body of every tool result of a
//! schema-4 session (`result_store.zig`). A `tool_result` frame names its
//! body by `artifact_ref` and says its length (`stored_bytes`); the frame's
//! `preview` is only the first ≤4 KiB.
//!
//! This codec resolves every result through its artifact and never takes
//! the preview for the body: a missing artifact, an unsafe name, a body
//! that is not UTF-8 or whose length is not `stored_bytes` fails the read
//! naming the file (fx itself shows a placeholder and marks the result
//! truncated; a reader that did that would pass a loss off as the result).

use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::fs::{Dir, FsError};

use crate::layout::{self, TOOL_RESULTS};

/// Largest body read (fx stores at most 8 MiB: `stored_text_max_bytes`).
pub const MAX_BODY_BYTES: u64 = 64 << 20;

/// `result-<tool>-<h16(call_id)>-<h16(body)>.txt` (`makeHandle`): the name
/// fx gives a text result's artifact.
pub fn handle(tool_name: &str, call_id: &str, body: &[u8]) -> String {
    let mut tool: String = tool_name
        .bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' { b as char } else { '-' })
        .take(48)
        .collect();
    if tool.is_empty() {
        tool = "call".into();
    }
    format!("result-{tool}-{}-{}.txt", h16(call_id.as_bytes()), h16(body))
}

/// The first 8 bytes of SHA-256 as 16 lowercase hex digits.
fn h16(data: &[u8]) -> String {
    trajhost_codec_sdk::hash::to_hex(&trajhost_codec_sdk::hash::sha256(data)[..8])
}

/// Reads the body of a result stored as `artifact_ref` in the session
/// directory `session_dir`, checking it is `stored_bytes` long UTF-8.
pub fn resolve(home: &Dir, session_dir: &str, artifact_ref: &str, stored_bytes: u64) -> Result<String, CodecError> {
    let dir = layout::join(session_dir, TOOL_RESULTS);
    if !layout::is_handle(artifact_ref) {
        return Err(CodecError::Malformed(format!(
            "{dir}: artifact_ref {artifact_ref:?} is not a safe result handle (1–160 bytes of [A-Za-z0-9._-], no `..`)"
        )));
    }
    let path = layout::join(&dir, artifact_ref);
    let bytes = home.read_to_end(&path, MAX_BODY_BYTES).map_err(|e| match e {
        FsError::NotFound(_) => CodecError::Malformed(format!(
            "{path}: the tool result's stored body is missing (the event preview is not the result)"
        )),
        other => trajhost_codec_sdk::errors::fs_error(&path, other),
    })?;
    if bytes.len() as u64 != stored_bytes {
        return Err(CodecError::Malformed(format!(
            "{path}: the stored body has {} bytes, the tool_result frame says stored_bytes {stored_bytes}",
            bytes.len()
        )));
    }
    String::from_utf8(bytes).map_err(|_| CodecError::Malformed(format!("{path}: the stored body is not UTF-8 text")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_follow_make_handle() {
        let h = handle("read file!", "call_1", b"body");
        assert!(h.starts_with("result-read-file--") && h.ends_with(".txt"), "{h}");
        assert_eq!(h.len(), "result-read-file--".len() + 16 + 1 + 16 + 4);
        assert!(layout::is_handle(&h));
        assert!(handle("", "c", b"").starts_with("result-call-"));
    }
}
