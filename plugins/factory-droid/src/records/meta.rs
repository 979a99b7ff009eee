//! The `meta` record that opens a session.

use trajhost_codec_sdk::canonical::{self, Body, Meta, Record, SourceSpan};

use crate::head::Head;
use crate::{CODEC, HARNESS};

/// The session's `meta`, from `session_start` and the first lines.
pub fn session_meta(locator: &str, native_id: &str, head: &Head) -> Record {
    let (offset, len) = head.start_span.unwrap_or((0, 0));
    Record {
        id: native_id.to_string(),
        body: Body::Meta(Meta {
            schema: canonical::SCHEMA.into(),
            harness: HARNESS.into(),
            native_id: native_id.to_string(),
            native_version: head.version.clone(),
            cwd: head.cwd.clone(),
            title: head.title(),
            git_branch: None,
            started_at: head.started_at.clone(),
            parent_session: None,
            parent_call: None,
            codec: Some(CODEC.into()),
        }),
        parent: None,
        ts: head.started_at.clone(),
        agent: None,
        src: Some(SourceSpan { file: locator.to_string(), offset, len }),
    }
}
