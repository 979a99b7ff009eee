//! The `meta` record that opens a session and each subagent file.

use trajhost_codec_sdk::canonical::{self, Body, Meta, Record, SourceSpan};

use crate::head::Head;
use crate::{CODEC, HARNESS};

/// The session's `meta`.
pub fn session_meta(locator: &str, native_id: &str, cwd: Option<String>, head: &Head) -> Record {
    meta_record(locator, native_id.to_string(), None, cwd, head, None, None)
}

/// A subagent file's `meta`: its own session id, the parent session and
/// the parent's tool call that started it (when the call says).
pub fn child_meta(
    locator: &str,
    child_id: &str,
    parent_session: &str,
    parent_call: Option<String>,
    cwd: Option<String>,
    head: &Head,
) -> Record {
    meta_record(
        locator,
        child_id.to_string(),
        Some(child_id.to_string()),
        cwd,
        head,
        Some(parent_session.to_string()),
        parent_call,
    )
}

fn meta_record(
    locator: &str,
    native_id: String,
    agent: Option<String>,
    cwd: Option<String>,
    head: &Head,
    parent_session: Option<String>,
    parent_call: Option<String>,
) -> Record {
    let started_at = head.started_at();
    let (offset, len) = head.header_span.unwrap_or((0, 0));
    Record {
        id: native_id.clone(),
        body: Body::Meta(Meta {
            schema: canonical::SCHEMA.into(),
            harness: HARNESS.into(),
            native_id,
            native_version: None,
            cwd,
            title: head.title(),
            git_branch: None,
            started_at: started_at.clone(),
            parent_session,
            parent_call,
            codec: Some(CODEC.into()),
        }),
        parent: None,
        ts: started_at,
        agent,
        src: Some(SourceSpan { file: locator.to_string(), offset, len }),
    }
}
