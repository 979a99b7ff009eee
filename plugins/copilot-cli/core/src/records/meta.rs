//! The `meta` record that opens a session.

use trajhost_codec_sdk::canonical::{Meta, Record, SourceSpan};
use trajhost_codec_sdk::records;

use crate::head::Head;
use crate::{Flavor, HARNESS};

/// The session's `meta`, from `session.start` and `workspace.yaml`.
pub fn session_meta(flavor: &Flavor, locator: &str, native_id: &str, head: &Head) -> Record {
    let (offset, len) = head.start_span.unwrap_or((0, 0));
    records::meta_record(
        Meta {
            native_version: head.version(),
            cwd: head.cwd(),
            title: head.title(),
            git_branch: head.git_branch(),
            started_at: head.started_at(),
            ..records::meta(HARNESS, flavor.codec, native_id)
        },
        Some(SourceSpan { file: locator.to_string(), offset, len }),
    )
}
