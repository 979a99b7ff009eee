//! The `meta` record that opens a session.

use trajhost_codec_sdk::canonical::{Meta, Record, SourceSpan};
use trajhost_codec_sdk::records;

use crate::head::Head;
use crate::{CODEC, HARNESS};

/// The session's `meta`, from `session_start` and the first lines.
pub fn session_meta(locator: &str, native_id: &str, head: &Head) -> Record {
    let (offset, len) = head.start_span.unwrap_or((0, 0));
    records::meta_record(
        Meta {
            native_version: head.version.clone(),
            cwd: head.cwd.clone(),
            title: head.title(),
            started_at: head.started_at.clone(),
            ..records::meta(HARNESS, CODEC, native_id)
        },
        Some(SourceSpan { file: locator.to_string(), offset, len }),
    )
}
