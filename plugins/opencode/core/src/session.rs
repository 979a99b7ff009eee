//! `Session.Info`: the session's own facts, as the `meta` record.

use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA, SourceSpan};

use crate::HARNESS;

/// What `meta` says of a session (`Session.Info`).
pub struct Info {
    pub id: String,
    /// The OpenCode version that created the session.
    pub version: Option<String>,
    pub cwd: Option<String>,
    pub title: Option<String>,
    /// `parentID`: the session this one is a subagent of.
    pub parent: Option<String>,
    /// Creation time, RFC 3339.
    pub started: Option<String>,
}

/// The `meta` record of a session read by `codec` (`harness@version`);
/// `src` is where the session was read.
pub fn meta(codec: &str, info: Info, src: SourceSpan) -> Record {
    meta_of(HARNESS, codec, info, src)
}

/// [`meta`] for another harness than OpenCode whose store holds the same
/// sessions (a fork: Kilo Code).
pub fn meta_of(harness: &str, codec: &str, info: Info, src: SourceSpan) -> Record {
    Record {
        id: info.id.clone(),
        body: Body::Meta(Meta {
            schema: SCHEMA.to_string(),
            harness: harness.to_string(),
            native_id: info.id,
            native_version: info.version,
            cwd: info.cwd,
            title: info.title,
            git_branch: None,
            started_at: info.started.clone(),
            parent_session: info.parent,
            parent_call: None,
            codec: Some(codec.to_string()),
        }),
        parent: None,
        ts: info.started,
        agent: None,
        src: Some(src),
    }
}
