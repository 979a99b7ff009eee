//! The `meta` record that opens a session and each subagent transcript.
//! Claude Code has no header line: the facts come from the head of the file
//! (see [`crate::head`]) and, for a subagent's session, from
//! `agent-<id>.meta.json`.

use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA, SourceSpan};

use crate::head::Head;
use crate::{CODEC, HARNESS};

/// What `agent-<id>.meta.json` says about a subagent.
#[derive(Debug, Default)]
pub struct AgentMeta {
    pub agent_type: Option<String>,
    pub description: Option<String>,
    /// The parent's `tool_use` id that started the subagent.
    pub tool_use_id: Option<String>,
}

fn meta(native_id: &str, head: &Head, title: Option<String>) -> Meta {
    Meta {
        schema: SCHEMA.to_string(),
        harness: HARNESS.to_string(),
        native_id: native_id.to_string(),
        native_version: head.version.clone(),
        cwd: head.cwd.clone(),
        title,
        git_branch: head.git_branch.clone(),
        started_at: head.started_at.clone(),
        parent_session: None,
        parent_call: None,
        codec: Some(CODEC.to_string()),
    }
}

fn src(file: &str, head: &Head) -> Option<SourceSpan> {
    head.first_span.map(|(offset, len)| SourceSpan { file: file.to_string(), offset, len })
}

/// The first record of a session; its id is the session id.
pub fn session_meta(file: &str, native_id: &str, head: &Head) -> Record {
    Record {
        id: native_id.to_string(),
        body: Body::Meta(meta(native_id, head, head.title())),
        parent: None,
        ts: head.started_at.clone(),
        agent: None,
        src: src(file, head),
    }
}

/// The first record of a subagent's session. A subagent transcript is a
/// session of its own (its id is its `agentId`), linked to its parent only
/// by what the files record: the `sessionId` its lines carry and, from
/// `agent-<id>.meta.json`, the `tool_use` id that started it.
pub fn subagent_meta(file: &str, agent_id: &str, head: &Head, agent: &AgentMeta) -> Record {
    let title = agent.description.clone().or_else(|| agent.agent_type.clone()).or_else(|| head.title());
    let mut meta = meta(agent_id, head, title);
    meta.parent_session = head.session_id.clone();
    meta.parent_call = agent.tool_use_id.clone();
    Record {
        id: agent_id.to_string(),
        body: Body::Meta(meta),
        parent: None,
        ts: head.started_at.clone(),
        agent: None,
        src: src(file, head),
    }
}
