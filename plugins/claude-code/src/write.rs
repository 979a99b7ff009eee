//! `write`: a canonical session → one Claude Code transcript,
//! `.claude/projects/<project-dir-name(cwd)>/<sessionId>.jsonl`, shaped like
//! what Claude Code 2.1.197 writes itself (`fixtures/claude-code/2.1.197`).
//!
//! ```text
//! user        prompt, message.content a string, promptId
//! assistant   one line per content block (text, tool_use; thinking only
//!             from a Claude Code source), all lines of one model response
//!             sharing message.id and the full envelope: type "message",
//!             model, stop_reason, stop_sequence, usage
//! user        one line per tool result: a tool_result block (tool_use_id,
//!             content, is_error when the outcome is known), toolUseResult,
//!             sourceToolAssistantUUID
//! system      compact_boundary (parentUuid null, logicalParentUuid), then
//! user        the summary, isCompactSummary
//! ai-title    the session title, when it is not the first prompt's
//! ```
//!
//! Every conversational line has `uuid` and `parentUuid` = the previous
//! line's uuid (null on the first line; on a compact boundary null with
//! `logicalParentUuid`, as Claude Code writes it), so the lines form one
//! chain from the newest leaf. Every line carries `sessionId` (= the file
//! stem), `cwd`, `version` 2.1.197, `userType`, `entrypoint`, `timestamp`,
//! `isSidechain: false` and `gitBranch` when the source knows it.
//!
//! What the API would reject is repaired and reported: a tool call without
//! a result before the conversation goes on gets an error result (code
//! `synthesized`), tool ids and names outside `[a-zA-Z0-9_-]` are
//! replaced (`renamed`), arguments that are not an object are wrapped
//! (`reshaped`), empty text is left out.
//!
//! What is not carried is named in `written.diagnostics` with code
//! `not-carried` and a count:
//! - `reasoning`, `opaque-reasoning`: reasoning of another harness. Claude
//!   Code sends `thinking` blocks back to the API, which checks their
//!   signature; a block it did not sign breaks the resumed request. Only
//!   thinking read from Claude Code itself (text + signature, or redacted
//!   data) is written back.
//! - `system-prompt`: Claude Code builds its own system prompt.
//! - `observation/<family>`: harness notes (hooks, modes, queue, titles, …).
//! - `attachments`: images and documents are carried by reference only.
//! - `subagent-transcript`: subagent records (`agent` set); the parent's
//!   call and result stay.
//! - `usage.cost_usd`, `usage.reasoning`: Claude Code keeps neither (it
//!   counts reasoning in `output_tokens`).
//! - `tool-result-out-of-order`, `duplicate-tool-result`,
//!   `orphan-tool-result`: results that would make the request invalid.
//! - `additional-meta`: a `meta` record after the first, or after the
//!   first lines were written.
//!
//! Usage: Claude Code needs a `usage` object on every assistant line (and
//! reads the last one to size the context), so a response whose source
//! recorded no usage gets zeros, reported as `placeholder` / `usage` — not
//! `not-carried`, since nothing was dropped; the reader turns an all-zero
//! usage back into "none recorded". A response without a model takes the
//! session's nearest model, else Claude Code's own marker `<synthetic>`
//! (`placeholder` / `model`), which its resume leaves out when it restores
//! the session's model.
//!
//! The writer streams ([`TranscriptWriter`]): each pushed batch returns the
//! lines it completed. Records are held back only until the session start
//! (`meta.started_at`, else the first record time) and the session's first
//! model (what responses before it that name none take) are known, and at
//! most [`MAX_HELD_BYTES`] of canonical lines: past that, the held records
//! are written with what is known (`placeholder` / `timestamp`, `model`).
//! After that, a response waits until the next user-side line shows it is
//! complete, and the title line until the end; memory follows the longest
//! response, not the session.
//!
//! The session id is `options.native_id`, else a UUID (version-4 layout)
//! derived from the SHA-256 of the document's first line, its `meta` (the
//! source harness, session id and start); line uuids and generated message
//! and tool-use ids come from the same digest. The same meta line gives the
//! same ids (they are known before the first record), and the same document
//! always gives the same bytes, however it is split into batches.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Reasoning, Record, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::writer::{CanonicalInput, HeldRecords};
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WriteOptions, Written};

use crate::ids::Ids;
use crate::time::{parse_rfc3339, rfc3339_utc};
use crate::{HARNESS, head, layout};

/// The Claude Code version the transcript claims: the one it was checked
/// against.
pub const CLI_VERSION: &str = "2.1.197";
/// `userType` of every line Claude Code writes for a person.
pub const USER_TYPE: &str = "external";
/// `entrypoint`: the interactive CLI, so the session is listed like one.
pub const ENTRYPOINT: &str = "cli";
/// Claude Code's model id for responses no model served.
pub const SYNTHETIC_MODEL: &str = "<synthetic>";
/// Content of a result written for a call whose result was not recorded.
pub const MISSING_RESULT: &str = "[trajhost: no result was recorded for this tool call]";
/// `content` of a compact boundary line.
const COMPACT_BOUNDARY_TEXT: &str = "Conversation compacted";
/// Most canonical bytes held back while the session start or its first
/// model is unknown.
pub const MAX_HELD_BYTES: usize = 16 << 20;
/// Longest tool name or tool-use id kept as it is.
const MAX_ID_CHARS: usize = 128;

/// Writes a canonical session as a Claude Code transcript, batch by batch.
pub struct TranscriptWriter {
    options: WriteOptions,
    /// `options.native_id`, lowercase.
    native_id: Option<String>,
    /// Diagnostics until the transcript opens (then its own).
    diags: Diagnostics,
    /// The canonical lines read.
    input: CanonicalInput,
    /// Ids seeded by the document's first line (its meta), until the
    /// transcript takes them.
    ids: Option<Ids>,
    first_line_seen: bool,
    meta: Option<Meta>,
    /// Subagents whose records were left out (reported once each).
    agents: BTreeSet<String>,
    /// Records held until the session start and first model are known.
    held: HeldRecords,
    held_bytes: usize,
    /// The title the first prompt gives the session (outer `None`: no
    /// prompt yet).
    prompt_title: Option<Option<String>>,
    transcript: Option<Transcript>,
    /// The transcript's artifact path, once open.
    path: String,
    /// A piece of the transcript was handed back.
    emitted: bool,
    finished: bool,
}

impl TranscriptWriter {
    pub fn start(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
        let native_id = match options.native_id.as_deref() {
            Some(id) if layout::is_session_id(&id.to_ascii_lowercase()) => Some(id.to_ascii_lowercase()),
            Some(_) => {
                return Err(CodecError::Other(
                    "write-options.native-id must be a UUID: Claude Code resolves `--resume <id>` by it".into(),
                ));
            }
            None => None,
        };
        Ok(Box::new(TranscriptWriter {
            options,
            native_id,
            diags: Diagnostics::new(),
            input: CanonicalInput::new(),
            ids: None,
            first_line_seen: false,
            meta: None,
            agents: BTreeSet::new(),
            held: HeldRecords::new(),
            held_bytes: 0,
            prompt_title: None,
            transcript: None,
            path: String::new(),
            emitted: false,
            finished: false,
        }))
    }

    fn diags(&mut self) -> &mut Diagnostics {
        match self.transcript.as_mut() {
            Some(transcript) => &mut transcript.diags,
            None => &mut self.diags,
        }
    }

    /// One canonical line as a record of the main transcript; `None` for
    /// what is left out (subagent records, unknown kinds), which is reported.
    fn parse(&mut self, line: &str) -> Result<Option<Record>, CodecError> {
        let mut input = std::mem::take(&mut self.input);
        let parsed = input.record(line, self.diags());
        self.input = input;
        let Some(record) = parsed? else { return Ok(None) };
        if let Some(agent) = &record.agent {
            if !self.agents.contains(agent) {
                self.agents.insert(agent.clone());
                self.diags().add("not-carried", Severity::Warning, "subagent-transcript", None, None);
            }
            return Ok(None);
        }
        Ok(Some(record))
    }

    /// One record of the main transcript, in order: written, or held while
    /// the start or the first model is unknown.
    fn take(&mut self, record: Record, bytes: usize) -> Result<(), CodecError> {
        if let Body::Meta(m) = &record.body {
            if self.meta.is_none() && self.transcript.is_none() {
                self.meta = Some(m.clone());
            } else {
                self.diags().add("not-carried", Severity::Info, "additional-meta", None, None);
            }
            return Ok(());
        }
        if self.prompt_title.is_none()
            && let Body::User { text, .. } = &record.body
            && !text.trim().is_empty()
        {
            self.prompt_title = Some(head::title_from_prompt(text));
        }
        if let Some(transcript) = self.transcript.as_mut() {
            transcript.record(&record);
            return Ok(());
        }
        self.held.hold(record);
        self.held_bytes = self.held_bytes.saturating_add(bytes);
        if (self.start_ms().is_some() && self.held.first_model().is_some()) || self.held_bytes > MAX_HELD_BYTES {
            self.open()?;
        }
        Ok(())
    }

    /// The session start: the meta's, else the first record time.
    fn start_ms(&self) -> Option<i64> {
        self.meta.as_ref().and_then(|m| m.started_at.as_deref()).and_then(parse_rfc3339).or(self.held.first_ms())
    }

    /// Opens the transcript with what is known, and writes the held records.
    fn open(&mut self) -> Result<(), CodecError> {
        let meta = self.meta.as_ref();
        let cwd = self
            .options
            .cwd
            .clone()
            .or_else(|| meta.and_then(|m| m.cwd.clone()))
            .filter(|c| !c.is_empty())
            .ok_or_else(|| {
                CodecError::Malformed(
                    "a Claude Code session belongs to a working directory: give write-options.cwd \
                     (the document's meta has no cwd)"
                        .into(),
                )
            })?;
        if !is_absolute(&cwd) {
            return Err(CodecError::Malformed(
                "the working directory must be an absolute path (Claude Code keys sessions by it)".into(),
            ));
        }
        let ids = self.ids.take().unwrap_or_else(|| Ids::of(b""));
        let session_id = self.native_id.clone().unwrap_or_else(|| ids.uuid("session", 0));
        let start_ms = self.start_ms();
        let mut diags = std::mem::take(&mut self.diags);
        if start_ms.is_none() {
            diags.add("placeholder", Severity::Warning, "timestamp", None, None);
        }
        self.path = session_path(&cwd, &session_id);
        let mut transcript = Transcript {
            ids,
            session_id,
            cwd,
            git_branch: meta.and_then(|m| m.git_branch.clone()),
            same_harness: meta.is_some_and(|m| m.harness == HARNESS),
            out: Vec::new(),
            lines_written: 0,
            last_uuid: None,
            last_ms: start_ms.unwrap_or(0),
            now: rfc3339_utc(start_ms.unwrap_or(0)),
            prompt_id: None,
            prompts: 0,
            open: None,
            messages: 0,
            leading: Vec::new(),
            pending: Vec::new(),
            calls: BTreeMap::new(),
            used_call_ids: BTreeSet::new(),
            answered: BTreeSet::new(),
            used_message_ids: BTreeSet::new(),
            last_model: None,
            first_model: self.held.first_model().map(str::to_string),
            diags,
        };
        for record in self.held.release() {
            transcript.record(&record);
        }
        self.held_bytes = 0;
        self.transcript = Some(transcript);
        Ok(())
    }

    /// The lines completed so far, as one piece of the transcript.
    fn take_chunk(&mut self) -> Vec<Artifact> {
        let Some(transcript) = self.transcript.as_mut() else { return Vec::new() };
        if transcript.out.is_empty() && (self.emitted || !self.finished) {
            return Vec::new();
        }
        self.emitted = true;
        vec![Artifact { path: self.path.clone(), bytes: std::mem::take(&mut transcript.out) }]
    }
}

impl SessionWriter for TranscriptWriter {
    fn push(&mut self, records: &str) -> Result<Vec<Artifact>, CodecError> {
        if self.finished {
            return Err(CodecError::Other("records pushed after the writer finished".into()));
        }
        for line in records.lines() {
            if line.trim().is_empty() {
                continue;
            }
            if !self.first_line_seen {
                self.first_line_seen = true;
                self.ids = Some(Ids::of(line.as_bytes()));
            }
            if let Some(record) = self.parse(line)? {
                self.take(record, line.len() + 1)?;
            }
        }
        Ok(self.take_chunk())
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        if self.finished {
            return Err(CodecError::Other("writer finished twice".into()));
        }
        if self.transcript.is_none() {
            self.open()?;
        }
        self.finished = true;
        let title = self.meta.as_ref().and_then(|m| m.title.as_deref()).filter(|t| !t.trim().is_empty());
        let prompt_title = self.prompt_title.as_ref().and_then(|t| t.as_deref());
        let transcript = self.transcript.as_mut().expect("opened above");
        transcript.finish();
        if let Some(title) = title
            && prompt_title != Some(title)
        {
            transcript.title(title);
        }
        let chunks = self.take_chunk();
        let transcript = self.transcript.as_mut().expect("opened above");
        Ok(Written { native_id: transcript.session_id.clone(), chunks, diagnostics: transcript.diags.drain() })
    }
}

/// `.claude/projects/<project-dir-name(cwd)>/<id>.jsonl`.
pub fn session_path(cwd: &str, id: &str) -> String {
    format!("{}/{id}{}", layout::project_dir(cwd), layout::JSONL)
}

/// A POSIX absolute path, or a Windows drive path.
fn is_absolute(path: &str) -> bool {
    let b = path.as_bytes();
    path.starts_with('/')
        || (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'\\' | b'/'))
}

// ---------------------------------------------------------------- line shapes

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
/// One conversational line: `'a` borrows what the caller fills in, `'e`
/// the envelope the writer fills in.
struct Line<'a, 'e> {
    parent_uuid: Option<&'e str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    logical_parent_uuid: Option<&'a str>,
    is_sidechain: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_id: Option<&'a str>,
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    subtype: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_meta: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    level: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    compact_metadata: Option<CompactMetadata<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Message<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_compact_summary: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_visible_in_transcript_only: Option<bool>,
    uuid: &'e str,
    timestamp: &'e str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_use_result: Option<&'a str>,
    #[serde(rename = "sourceToolAssistantUUID", skip_serializing_if = "Option::is_none")]
    source_tool_assistant_uuid: Option<&'a str>,
    user_type: &'e str,
    entrypoint: &'e str,
    cwd: &'e str,
    session_id: &'e str,
    version: &'e str,
    #[serde(skip_serializing_if = "Option::is_none")]
    git_branch: Option<&'e str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CompactMetadata<'a> {
    trigger: &'a str,
}

#[derive(Serialize)]
#[serde(untagged)]
enum Message<'a> {
    User {
        role: &'static str,
        content: UserContent<'a>,
    },
    Assistant {
        id: &'a str,
        #[serde(rename = "type")]
        kind: &'static str,
        role: &'static str,
        model: &'a str,
        content: [&'a Block; 1],
        stop_reason: &'a str,
        stop_sequence: Option<&'a str>,
        usage: &'a UsageOut,
    },
}

#[derive(Serialize)]
#[serde(untagged)]
enum UserContent<'a> {
    Text(&'a str),
    Result([ToolResult<'a>; 1]),
}

#[derive(Serialize)]
struct ToolResult<'a> {
    tool_use_id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    content: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_error: Option<bool>,
}

/// An assistant content block.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Text { text: String },
    Thinking { thinking: String, signature: String },
    RedactedThinking { data: String },
    ToolUse { id: String, name: String, input: Value },
}

/// `message.usage`: Anthropic's counts, `input_tokens` excluding the cache.
#[derive(Serialize, Default)]
struct UsageOut {
    input_tokens: u64,
    cache_creation_input_tokens: u64,
    cache_read_input_tokens: u64,
    output_tokens: u64,
}

// ---------------------------------------------------------------- the writer

/// A model response being assembled: written once the next user-side line
/// (or the end) shows it is complete.
struct Response {
    /// The canonical assistant record it came from.
    canonical_id: Option<String>,
    message_id: String,
    model: String,
    stop_reason: Option<String>,
    usage: UsageOut,
    /// Blocks with the timestamps of their records.
    blocks: Vec<(Block, String)>,
}

struct Transcript {
    ids: Ids,
    session_id: String,
    cwd: String,
    git_branch: Option<String>,
    /// The document was read from Claude Code: its thinking blocks carry
    /// Anthropic's signatures and its message ids are native.
    same_harness: bool,
    /// Lines made and not yet handed back.
    out: Vec<u8>,
    lines_written: u64,
    last_uuid: Option<String>,
    last_ms: i64,
    /// Timestamp of the record being written.
    now: String,
    /// `promptId` of the current user turn.
    prompt_id: Option<String>,
    prompts: u64,
    open: Option<Response>,
    messages: u64,
    /// Thinking blocks read before the response they open.
    leading: Vec<Block>,
    /// Written tool-use ids of the last response still awaiting a result,
    /// with the uuid of the line that holds each.
    pending: Vec<(String, String)>,
    /// Canonical call id → written tool-use id.
    calls: BTreeMap<String, String>,
    used_call_ids: BTreeSet<String>,
    /// Written tool-use ids that have their result.
    answered: BTreeSet<String>,
    used_message_ids: BTreeSet<String>,
    last_model: Option<String>,
    first_model: Option<String>,
    diags: Diagnostics,
}

impl Transcript {
    fn not_carried(&mut self, detail: &str, severity: Severity) {
        self.diags.add("not-carried", severity, detail, None, None);
    }

    /// Sets the current time from a record: its own timestamp, else one
    /// millisecond after the last.
    fn clock(&mut self, ts: Option<&str>) {
        match ts.and_then(parse_rfc3339) {
            Some(ms) => self.last_ms = ms,
            None => {
                if ts.is_some() {
                    self.diags.add("placeholder", Severity::Info, "timestamp", None, None);
                }
                self.last_ms += 1;
            }
        }
        self.now = rfc3339_utc(self.last_ms);
    }

    fn next_uuid(&mut self) -> String {
        let uuid = self.ids.uuid("line", self.lines_written);
        self.lines_written += 1;
        uuid
    }

    /// Appends one conversational line: `fill` sets the type-specific
    /// fields of an envelope that links to the previous line.
    fn push<'a>(&mut self, fill: impl for<'e> FnOnce(&mut Line<'a, 'e>)) -> String {
        let uuid = self.next_uuid();
        {
            let mut line = Line {
                parent_uuid: self.last_uuid.as_deref(),
                logical_parent_uuid: None,
                is_sidechain: false,
                prompt_id: None,
                kind: "user",
                subtype: None,
                content: None,
                is_meta: None,
                level: None,
                compact_metadata: None,
                message: None,
                is_compact_summary: None,
                is_visible_in_transcript_only: None,
                uuid: &uuid,
                timestamp: &self.now,
                tool_use_result: None,
                source_tool_assistant_uuid: None,
                user_type: USER_TYPE,
                entrypoint: ENTRYPOINT,
                cwd: &self.cwd,
                session_id: &self.session_id,
                version: CLI_VERSION,
                git_branch: self.git_branch.as_deref(),
            };
            fill(&mut line);
            let start = self.out.len();
            if serde_json::to_writer(&mut self.out, &line).is_err() {
                self.out.truncate(start);
            }
            self.out.push(b'\n');
        }
        self.last_uuid = Some(uuid.clone());
        uuid
    }

    fn record(&mut self, record: &Record) {
        match &record.body {
            Body::Meta(_) => {}
            Body::System { .. } => self.not_carried("system-prompt", Severity::Info),
            Body::User { text, attachments } => {
                for _ in attachments {
                    self.not_carried("attachments", Severity::Warning);
                }
                self.clock(record.ts.as_deref());
                self.close_turn();
                self.drop_leading();
                if text.trim().is_empty() {
                    if attachments.is_empty() {
                        self.not_carried("empty-user-turn", Severity::Info);
                    }
                    return;
                }
                let prompt_id = self.ids.uuid("prompt", self.prompts);
                self.prompts += 1;
                self.prompt_id = Some(prompt_id.clone());
                self.push(|line| {
                    line.prompt_id = Some(&prompt_id);
                    line.message = Some(Message::User { role: "user", content: UserContent::Text(text) });
                });
            }
            Body::Assistant(a) => {
                self.clock(record.ts.as_deref());
                self.close_turn();
                self.open_response(Some(record.id.as_str()), Some(a));
                if !a.text.trim().is_empty() {
                    self.add_block(Block::Text { text: a.text.clone() });
                } else if !a.text.is_empty() {
                    self.not_carried("blank-assistant-text", Severity::Info);
                }
            }
            Body::Reasoning(r) => self.reasoning(record, r),
            Body::ToolCall { call_id, name, arguments } => {
                self.clock(record.ts.as_deref());
                if self.open.is_none() {
                    // Calls without a response record (or after results):
                    // a response of their own.
                    self.close_turn();
                    self.open_response(None, None);
                }
                let id = self.call_id(call_id);
                let name = self.tool_name(name);
                let input = self.arguments(arguments);
                self.add_block(Block::ToolUse { id, name, input });
            }
            Body::ToolResult { call_id, content, ok } => {
                self.clock(record.ts.as_deref());
                self.flush_response();
                self.drop_leading();
                let Some(written) = self.calls.get(call_id).cloned() else {
                    self.not_carried("orphan-tool-result", Severity::Warning);
                    return;
                };
                let Some(at) = self.pending.iter().position(|(id, _)| *id == written) else {
                    let detail = if self.answered.contains(&written) {
                        "duplicate-tool-result"
                    } else {
                        "tool-result-out-of-order"
                    };
                    self.not_carried(detail, Severity::Warning);
                    return;
                };
                let (id, source) = self.pending.remove(at);
                self.result_line(&id, &source, content, ok.map(|ok| !ok));
            }
            Body::Observation { subtype, .. } => {
                // Compact boundaries are written again from the compaction
                // record that follows them.
                if subtype != "system/compact_boundary" {
                    let family = subtype.split('/').next().unwrap_or(subtype);
                    let detail = format!("observation/{}", crate::records::type_name(Some(family)));
                    self.not_carried(&detail, Severity::Info);
                }
            }
            Body::Compaction { summary, trigger } => {
                self.clock(record.ts.as_deref());
                self.close_turn();
                self.drop_leading();
                let logical = self.last_uuid.take();
                let trigger = trigger.as_deref();
                self.push(|line| {
                    line.parent_uuid = None;
                    line.logical_parent_uuid = logical.as_deref();
                    line.kind = "system";
                    line.subtype = Some("compact_boundary");
                    line.content = Some(COMPACT_BOUNDARY_TEXT);
                    line.is_meta = Some(false);
                    line.level = Some("info");
                    line.compact_metadata = trigger.map(|trigger| CompactMetadata { trigger });
                });
                self.push(|line| {
                    line.message = Some(Message::User { role: "user", content: UserContent::Text(summary) });
                    line.is_compact_summary = Some(true);
                    line.is_visible_in_transcript_only = Some(true);
                });
            }
        }
    }

    /// Reasoning: thinking blocks Claude Code signed are written back into
    /// their response; any other reasoning is reported.
    fn reasoning(&mut self, record: &Record, r: &Reasoning) {
        let block = if !self.same_harness {
            None
        } else if r.encrypted {
            r.opaque.clone().map(|data| Block::RedactedThinking { data })
        } else {
            r.opaque
                .clone()
                .filter(|s| !s.is_empty())
                .map(|signature| Block::Thinking { thinking: r.text.clone().unwrap_or_default(), signature })
        };
        let Some(block) = block else {
            if r.text.as_deref().is_some_and(|t| !t.is_empty()) {
                self.not_carried("reasoning", Severity::Warning);
            } else if r.opaque.is_some() {
                self.not_carried("opaque-reasoning", Severity::Warning);
            }
            return;
        };
        self.clock(record.ts.as_deref());
        let belongs = self.open.as_ref().is_some_and(|open| {
            open.canonical_id.is_some() && open.canonical_id.as_deref() == record.parent.as_deref()
        });
        if belongs {
            self.add_block(block);
        } else {
            // Leading thinking: its response record comes next.
            self.flush_response();
            self.leading.push(block);
        }
    }

    /// Starts a response; the thinking read before it goes first.
    fn open_response(&mut self, canonical_id: Option<&str>, a: Option<&Assistant>) {
        let index = self.messages;
        self.messages += 1;
        let native = a
            .and_then(|a| a.message_id.as_deref())
            .filter(|id| self.same_harness && is_token(id) && !self.used_message_ids.contains(*id));
        let message_id = match native {
            Some(id) => id.to_string(),
            None => self.ids.anthropic_id("msg_", "message", index),
        };
        self.used_message_ids.insert(message_id.clone());
        let model = match a.and_then(|a| a.model.clone()).filter(|m| !m.is_empty()) {
            Some(model) => model,
            None => match self.last_model.clone().or_else(|| self.first_model.clone()) {
                Some(model) => model,
                None => {
                    self.diags.add("placeholder", Severity::Info, "model", None, None);
                    SYNTHETIC_MODEL.to_string()
                }
            },
        };
        if model != SYNTHETIC_MODEL {
            self.last_model = Some(model.clone());
        }
        let usage = match a.and_then(|a| a.usage.as_ref()) {
            Some(usage) => self.usage(usage),
            None => {
                self.diags.add("placeholder", Severity::Info, "usage", None, None);
                UsageOut::default()
            }
        };
        let now = self.now.clone();
        let blocks = std::mem::take(&mut self.leading).into_iter().map(|b| (b, now.clone())).collect();
        self.open = Some(Response {
            canonical_id: canonical_id.map(str::to_string),
            message_id,
            model,
            stop_reason: a.and_then(|a| a.stop_reason.clone()),
            usage,
            blocks,
        });
    }

    fn usage(&mut self, usage: &Usage) -> UsageOut {
        if usage.cost_usd.is_some_and(|c| c > 0.0) {
            self.not_carried("usage.cost_usd", Severity::Info);
        }
        if usage.reasoning.is_some_and(|n| n > 0) {
            self.not_carried("usage.reasoning", Severity::Info);
        }
        UsageOut {
            input_tokens: usage.input.unwrap_or(0),
            cache_creation_input_tokens: usage.cache_write.unwrap_or(0),
            cache_read_input_tokens: usage.cache_read.unwrap_or(0),
            output_tokens: usage.output.unwrap_or(0),
        }
    }

    fn add_block(&mut self, block: Block) {
        let now = self.now.clone();
        if let Some(open) = self.open.as_mut() {
            open.blocks.push((block, now));
        }
    }

    /// Writes the open response, one line per block. A response left with
    /// no block (its text was empty, its reasoning not carried) is dropped.
    fn flush_response(&mut self) {
        let Some(response) = self.open.take() else {
            return;
        };
        if response.blocks.is_empty() {
            self.not_carried("empty-assistant-turn", Severity::Info);
            return;
        }
        let has_tool_use = response.blocks.iter().any(|(b, _)| matches!(b, Block::ToolUse { .. }));
        let stop_reason = if has_tool_use {
            "tool_use"
        } else {
            // A stop reason of the Messages API is kept; anything else
            // (another provider's vocabulary, none) ended the turn.
            response
                .stop_reason
                .as_deref()
                .filter(|r| matches!(*r, "end_turn" | "max_tokens" | "stop_sequence" | "pause_turn" | "refusal"))
                .unwrap_or("end_turn")
        };
        let saved_now = self.now.clone();
        for (block, ts) in &response.blocks {
            self.now = ts.clone();
            let uuid = self.push(|line| {
                line.kind = "assistant";
                line.message = Some(Message::Assistant {
                    id: &response.message_id,
                    kind: "message",
                    role: "assistant",
                    model: &response.model,
                    content: [block],
                    stop_reason,
                    stop_sequence: None,
                    usage: &response.usage,
                });
            });
            if let Block::ToolUse { id, .. } = block {
                self.pending.push((id.clone(), uuid));
            }
        }
        self.now = saved_now;
    }

    /// Ends the model's side of a turn: the open response is written, and
    /// calls still without a result get an error result, since the API
    /// rejects a tool use whose result does not follow it.
    fn close_turn(&mut self) {
        self.flush_response();
        for (id, source) in std::mem::take(&mut self.pending) {
            self.diags.add("synthesized", Severity::Warning, "missing-tool-result", None, None);
            self.result_line(&id, &source, MISSING_RESULT, Some(true));
        }
    }

    /// Thinking read before a response that never came (a user-side line
    /// or the end followed it) has no response to go into.
    fn drop_leading(&mut self) {
        for _ in std::mem::take(&mut self.leading) {
            self.not_carried("reasoning", Severity::Warning);
        }
    }

    fn result_line(&mut self, id: &str, source: &str, content: &str, is_error: Option<bool>) {
        let detail = if is_error == Some(true) { format!("Error: {content}") } else { content.to_string() };
        let prompt_id = self.prompt_id.clone();
        self.push(|line| {
            line.prompt_id = prompt_id.as_deref();
            line.message = Some(Message::User {
                role: "user",
                content: UserContent::Result([ToolResult { tool_use_id: id, kind: "tool_result", content, is_error }]),
            });
            line.tool_use_result = Some(&detail);
            line.source_tool_assistant_uuid = Some(source);
        });
        self.answered.insert(id.to_string());
    }

    /// Ends the document. Calls still without a result stay so: that is
    /// how Claude Code leaves a session interrupted mid-turn, and its
    /// resume drops them.
    fn finish(&mut self) {
        self.flush_response();
        self.drop_leading();
    }

    /// The session title, as Claude Code's generated title line.
    fn title(&mut self, title: &str) {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Title<'a> {
            #[serde(rename = "type")]
            kind: &'static str,
            ai_title: &'a str,
            session_id: &'a str,
        }
        let line = Title { kind: "ai-title", ai_title: title, session_id: &self.session_id };
        let start = self.out.len();
        if serde_json::to_writer(&mut self.out, &line).is_err() {
            self.out.truncate(start);
        }
        self.out.push(b'\n');
    }

    /// The tool-use id written for a canonical call id: the same when the
    /// API accepts it and it is not taken, else a fresh `toolu_` id.
    fn call_id(&mut self, call_id: &str) -> String {
        let id = if is_token(call_id) && !self.used_call_ids.contains(call_id) {
            call_id.to_string()
        } else {
            self.diags.add("renamed", Severity::Info, "tool-call-id", None, None);
            let mut n = self.used_call_ids.len() as u64;
            loop {
                let id = self.ids.anthropic_id("toolu_", "call", n);
                if !self.used_call_ids.contains(&id) {
                    break id;
                }
                n += 1;
            }
        };
        self.used_call_ids.insert(id.clone());
        self.calls.insert(call_id.to_string(), id.clone());
        id
    }

    /// A tool name the API accepts: `[a-zA-Z0-9_-]{1,128}`.
    fn tool_name(&mut self, name: &str) -> String {
        if is_token(name) {
            return name.to_string();
        }
        self.diags.add("renamed", Severity::Info, "tool-name", None, None);
        let clean: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' })
            .take(MAX_ID_CHARS)
            .collect();
        if clean.is_empty() { "tool".to_string() } else { clean }
    }

    /// `tool_use.input` must be an object: a JSON string that holds one is
    /// parsed, anything else is wrapped as `{"input": …}`.
    fn arguments(&mut self, arguments: &Value) -> Value {
        if arguments.is_object() {
            return arguments.clone();
        }
        if let Value::String(s) = arguments
            && let Ok(parsed @ Value::Object(_)) = serde_json::from_str::<Value>(s)
        {
            return parsed;
        }
        self.diags.add("reshaped", Severity::Info, "tool-arguments", None, None);
        match arguments {
            Value::Null => Value::Object(Default::default()),
            other => {
                let mut map = serde_json::Map::new();
                map.insert("input".to_string(), other.clone());
                Value::Object(map)
            }
        }
    }
}

/// `[a-zA-Z0-9_-]{1,128}`: what the API accepts as a tool name or id.
fn is_token(s: &str) -> bool {
    !s.is_empty() && s.len() <= MAX_ID_CHARS && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
