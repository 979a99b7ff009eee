//! The `meta` record that opens a session.

use trajhost_codec_sdk::canonical::{self, Body, Meta, Record, SourceSpan};

use crate::head::Head;
use crate::{Flavor, HARNESS};

/// The session's `meta`, from `session.start` and `workspace.yaml`.
pub fn session_meta(flavor: &Flavor, locator: &str, native_id: &str, head: &Head) -> Record {
    let (offset, len) = head.start_span.unwrap_or((0, 0));
    let started_at = head.started_at();
    Record {
        id: native_id.to_string(),
        body: Body::Meta(Meta {
            schema: canonical::SCHEMA.into(),
            harness: HARNESS.into(),
            native_id: native_id.to_string(),
            native_version: head.version(),
            cwd: head.cwd(),
            title: head.title(),
            git_branch: head.git_branch(),
            started_at: started_at.clone(),
            parent_session: None,
            parent_call: None,
            codec: Some(flavor.codec.into()),
        }),
        parent: None,
        ts: started_at,
        agent: None,
        src: Some(SourceSpan { file: locator.to_string(), offset, len }),
    }
}
