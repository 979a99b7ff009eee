//! `write`: a canonical session → one legacy `session.json`, schema 1
//! (`renderSessionJson`'s shape, execution memory schema 3 as fx 0.0.13's
//! presentation codec writes it), at `.fx/sessions/<id>/session.json`. fx
//! imports it into its schema-4 layout on the first writable open (B8), so
//! `fx resume <id>` continues it.
//!
//! ```text
//! {"schema_version":1,"id","created_at_ms","updated_at_ms","workspace_root",
//!  "conversation_language":"und","history_len","history":[HistoryTurn…]}
//! ```
//!
//! Turns: every `user` record opens one; what follows until the next
//! prompt fills its execution memory. An assistant text opens a tool step
//! (`assistant`), the calls after it are that step's `tool_calls`, and each
//! result joins the step of its call (so a text between two calls of one
//! batch starts a step of its own and nothing is merged). A call after a
//! result starts a new step. The last text after the last tool step is the
//! turn's final reply (`""` when there is none: fx holds such a turn, a
//! reply is not required). An `interrupt` observation makes the turn an
//! `interrupted` one (`terminal_reason` `failed` when its text says so,
//! else `cancelled`); a `compaction` is a `compacted_summary` turn.
//!
//! Refused (an error naming the call and turn): a tool call without its
//! result, except for one call in flight in an interrupted turn (fx's
//! `interrupted.tool_call`, taken out of its step). fx cannot hold an open
//! batch anywhere else. A turn that ends after tool results without a final
//! reply is not refused: fx holds it (`assistant: ""`, no final frame).
//!
//! Not carried, each counted in a diagnostic:
//! - `untranslated-reasoning`, `untranslated-usage`, `untranslated-images`
//!   (user attachments: fx keeps image snapshots, which canonical records do
//!   not carry), `untranslated-model` (fx takes the model from its settings or
//!   `--model`), `untranslated-title` (schema 1 has no title);
//! - `not-carried`: `system` prompts, observations other than interrupts,
//!   records before the first prompt, results whose call is unknown or
//!   already answered;
//! - `placeholder`: a result without a recorded outcome is written as
//!   `success` (fx requires a status); a missing start time is 0; a missing
//!   working directory is `null` (fx adopts the resuming workspace).
//!
//! Credentials, settings, provider replay and usage sidecars are not
//! written at all: canonical records carry none of them.
//!
//! The session id is `options.native_id` (a valid fx id), else 12
//! characters of base64url from the SHA-256 of the document, the shape fx
//! 0.0.13 generates (never starting with `-`, which `fx resume` would read
//! as an option): the same document always gives the same bytes.
//! The document is one JSON object, so turns are serialized as they close
//! and the file is emitted at `finish`.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use trajhost_codec_sdk::canonical::{Body, Meta, Record};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::writer::CanonicalInput;
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WriteOptions, Written};

use crate::layout;
use crate::legacy::{PersistedToolResult, ToolCall, UserTurn};

/// `execution.schema_version` written (fx ≥0.0.8 accepts 1–3).
pub const EXECUTION_SCHEMA: u64 = 3;
/// `conversation_language` when the source does not say ("undetermined").
pub const UNDETERMINED: &str = "und";
/// Largest document written.
pub const MAX_DOCUMENT_BYTES: usize = 256 << 20;

#[derive(Default)]
struct Step {
    assistant: Option<String>,
    calls: Vec<ToolCall>,
    results: Vec<PersistedToolResult>,
}

struct Turn {
    ordinal: usize,
    user: String,
    steps: Vec<Step>,
    /// Call id → its step, for calls without a result yet.
    open: BTreeMap<String, usize>,
    interrupted: Option<&'static str>,
}

/// The streaming writer: turns are serialized as they close.
pub struct Writer {
    options: WriteOptions,
    /// The canonical lines read.
    input: CanonicalInput,
    hasher: Sha256,
    meta: Option<Meta>,
    history: Vec<u8>,
    turns: usize,
    since_compaction: usize,
    compactions: u64,
    turn: Option<Turn>,
    first_prompt: Option<String>,
    first_ms: Option<i64>,
    last_ms: Option<i64>,
    size: usize,
    diags: Diagnostics,
}

impl Writer {
    pub fn new(options: WriteOptions) -> Writer {
        Writer {
            options,
            input: CanonicalInput::new(),
            hasher: Sha256::new(),
            meta: None,
            history: Vec::new(),
            turns: 0,
            since_compaction: 0,
            compactions: 0,
            turn: None,
            first_prompt: None,
            first_ms: None,
            last_ms: None,
            size: 0,
            diags: Diagnostics::new(),
        }
    }

    /// What fx's history has no place for: `untranslated-<what>` (the host
    /// refuses a conversion with `untranslated-reasoning` unless `--lossy`).
    fn untranslated(&mut self, what: &str) {
        let detail = match what {
            "reasoning" => "reasoning (fx's history holds no reasoning)",
            "usage" => "usage (fx keeps usage in a sidecar, not in session.json)",
            "images" => "images (fx keeps image snapshots, which canonical records do not carry)",
            "model" => "model (fx takes it from its settings or --model)",
            "title" => "title (schema 1 has none; fx titles by the first prompt)",
            other => other,
        };
        self.diags.add(&format!("untranslated-{what}"), Severity::Info, detail, None, None);
    }

    fn record(&mut self, record: Record) -> Result<(), CodecError> {
        let ms = record.ts.as_deref().and_then(trajhost_codec_sdk::time::parse_rfc3339);
        if let Some(ms) = ms {
            self.first_ms.get_or_insert(ms);
            self.last_ms = Some(self.last_ms.map_or(ms, |last| last.max(ms)));
        }
        match record.body {
            Body::Meta(meta) => {
                if self.meta.is_none() {
                    self.meta = Some(meta);
                } else {
                    self.diags.not_carried("subagent-meta");
                }
            }
            _ if record.agent.is_some() => self.diags.not_carried("subagent-transcript"),
            Body::System { .. } => self.diags.not_carried("system"),
            Body::Reasoning(_) => self.untranslated("reasoning"),
            Body::User { text, attachments } => {
                for _ in &attachments {
                    self.untranslated("images");
                }
                if text.trim().is_empty() {
                    return Ok(());
                }
                self.close_turn()?;
                self.first_prompt.get_or_insert_with(|| text.clone());
                self.turn = Some(Turn {
                    ordinal: self.turns,
                    user: text,
                    steps: Vec::new(),
                    open: BTreeMap::new(),
                    interrupted: None,
                });
            }
            Body::Assistant(assistant) => {
                if assistant.usage.is_some() {
                    self.untranslated("usage");
                }
                if assistant.model.is_some() {
                    self.untranslated("model");
                }
                let Some(turn) = self.turn.as_mut() else {
                    if !assistant.text.is_empty() {
                        self.diags.not_carried("assistant-before-first-prompt");
                    }
                    return Ok(());
                };
                if assistant.text.is_empty() {
                    return Ok(());
                }
                match turn.steps.last_mut() {
                    Some(step) if step.assistant.is_none() && step.calls.is_empty() => {
                        step.assistant = Some(assistant.text)
                    }
                    _ => turn.steps.push(Step { assistant: Some(assistant.text), ..Default::default() }),
                }
            }
            Body::ToolCall { call_id, name, arguments } => {
                let Some(turn) = self.turn.as_mut() else {
                    self.diags.not_carried("tool-call-before-first-prompt");
                    return Ok(());
                };
                if turn.steps.last().is_none_or(|step| !step.results.is_empty()) {
                    turn.steps.push(Step::default());
                }
                let step = turn.steps.len() - 1;
                turn.open.insert(call_id.clone(), step);
                turn.steps[step].calls.push(ToolCall {
                    id: call_id,
                    name,
                    arguments_json: arguments_json(&arguments),
                    provider_result: None,
                });
            }
            Body::ToolResult { call_id, content, ok } => {
                let created_at_ms = ms.or(self.last_ms).unwrap_or(0);
                let Some(turn) = self.turn.as_mut() else {
                    self.diags.not_carried("tool-result-before-first-prompt");
                    return Ok(());
                };
                let Some(step) = turn.open.remove(&call_id) else {
                    self.diags.not_carried("orphan-tool-result");
                    return Ok(());
                };
                let step = &mut turn.steps[step];
                let tool_name =
                    step.calls.iter().rev().find(|c| c.id == call_id).map(|c| c.name.clone()).unwrap_or_default();
                let status = match ok {
                    Some(false) => "failure",
                    Some(true) => "success",
                    None => {
                        self.diags.add("placeholder", Severity::Info, "tool_result.status", None, None);
                        "success"
                    }
                };
                let bytes = content.len() as u64;
                step.results.push(PersistedToolResult {
                    tool_call_id: call_id,
                    tool_name,
                    status: status.into(),
                    output: content,
                    output_handle: None,
                    preview: None,
                    output_bytes: bytes,
                    stored_output_bytes: bytes,
                    truncated: false,
                    provider_native: false,
                    created_at_ms,
                    permission_feedback: Vec::new(),
                    command_output_replay: None,
                    command_process_presentation: None,
                });
            }
            Body::Observation { subtype, text } => match (&mut self.turn, subtype.as_str()) {
                (Some(turn), "interrupt" | "interrupted") => {
                    let failed = text.as_deref().is_some_and(|t| t.to_ascii_lowercase().contains("fail"));
                    turn.interrupted = Some(if failed { "failed" } else { "cancelled" });
                }
                _ => self.diags.not_carried(&format!("observation/{subtype}")),
            },
            Body::Compaction { summary, .. } => {
                self.close_turn()?;
                self.compactions += 1;
                let turn = CompactedSummary {
                    kind: "compacted_summary",
                    summary: &summary,
                    removed_turn_count: self.since_compaction as u64,
                    compaction_count: self.compactions,
                    root_user_messages: &[],
                    root_user_messages_complete: false,
                    permission_feedback: &[],
                    permission_feedback_complete: false,
                };
                self.append(&turn)?;
                self.since_compaction = 0;
            }
        }
        Ok(())
    }

    fn append(&mut self, turn: &impl Serialize) -> Result<(), CodecError> {
        if self.turns > 0 {
            self.history.push(b',');
        }
        serde_json::to_writer(&mut self.history, turn)
            .map_err(|e| CodecError::Other(format!("serializing a turn: {e}")))?;
        self.turns += 1;
        if self.history.len() > MAX_DOCUMENT_BYTES {
            return Err(CodecError::LimitExceeded(format!("session.json would exceed {MAX_DOCUMENT_BYTES} bytes")));
        }
        Ok(())
    }

    /// Serializes the open turn, refusing one fx cannot hold.
    fn close_turn(&mut self) -> Result<(), CodecError> {
        let Some(mut turn) = self.turn.take() else {
            return Ok(());
        };
        let mut in_flight = None;
        if !turn.open.is_empty() {
            let only = (turn.open.len() == 1).then(|| turn.open.iter().next()).flatten();
            match (turn.interrupted, only) {
                (Some(_), Some((id, &step))) => {
                    let id = id.clone();
                    let calls = &mut turn.steps[step].calls;
                    let at = calls.iter().rposition(|c| c.id == id).unwrap_or(calls.len() - 1);
                    in_flight = Some(calls.remove(at));
                    let emptied = &turn.steps[step];
                    if emptied.calls.is_empty() && emptied.results.is_empty() && emptied.assistant.is_none() {
                        turn.steps.remove(step);
                    }
                }
                _ => {
                    let (id, &step) = turn.open.iter().next().expect("not empty");
                    let name =
                        turn.steps[step].calls.iter().find(|c| c.id == *id).map(|c| c.name.as_str()).unwrap_or("?");
                    return Err(CodecError::Malformed(format!(
                        "turn {}: tool call {name} ({id}) has no result ({} call(s) without one); an fx history \
                         holds only completed tool batches, and one call in flight only in an interrupted turn, \
                         so this session cannot be written as fx",
                        turn.ordinal + 1,
                        turn.open.len()
                    )));
                }
            }
        }
        let reply = match turn.steps.last() {
            Some(step) if step.calls.is_empty() && step.results.is_empty() => {
                turn.steps.pop().and_then(|s| s.assistant)
            }
            _ => None,
        };
        let execution = (!turn.steps.is_empty()).then(|| ExecutionMemory {
            schema_version: EXECUTION_SCHEMA,
            tool_steps: turn
                .steps
                .iter()
                .map(|s| ToolStep { assistant: s.assistant.as_deref(), tool_calls: &s.calls, tool_results: &s.results })
                .collect(),
            files: &[],
            steering: &[],
        });
        let user = UserTurn { text: turn.user.clone(), images: Vec::new() };
        match turn.interrupted {
            None => self.append(&AssistantTurn {
                kind: "assistant",
                user: &user,
                assistant: reply.as_deref().unwrap_or(""),
                execution,
            })?,
            Some(reason) => {
                let completed: Vec<&str> =
                    turn.steps.iter().flat_map(|s| s.results.iter().map(|r| r.tool_name.as_str())).collect();
                self.append(&InterruptedTurn {
                    kind: "interrupted",
                    user: &user,
                    assistant: reply.as_deref(),
                    tool_call: in_flight.as_ref(),
                    completed_tool_names: completed,
                    terminal_reason: reason,
                    execution,
                })?
            }
        }
        self.since_compaction += 1;
        Ok(())
    }

    fn document(&mut self, id: &str, cwd: Option<&str>, created: i64, updated: i64) -> Result<Vec<u8>, CodecError> {
        let head = serde_json::to_string(&Header {
            schema_version: 1,
            id,
            created_at_ms: created,
            updated_at_ms: updated,
            workspace_root: cwd,
            conversation_language: UNDETERMINED,
            history_len: self.turns as u64,
        })
        .map_err(|e| CodecError::Other(format!("serializing the header: {e}")))?;
        let mut out = Vec::with_capacity(head.len() + self.history.len() + 16);
        out.extend_from_slice(&head.as_bytes()[..head.len() - 1]);
        out.extend_from_slice(b",\"history\":[");
        out.append(&mut self.history);
        out.extend_from_slice(b"]}");
        Ok(out)
    }
}

impl SessionWriter for Writer {
    fn push(&mut self, records: &str) -> Result<Vec<Artifact>, CodecError> {
        self.size += records.len();
        if self.size > MAX_DOCUMENT_BYTES * 2 {
            return Err(CodecError::LimitExceeded(format!("canonical document over {} bytes", MAX_DOCUMENT_BYTES * 2)));
        }
        self.hasher.update(records.as_bytes());
        for line in records.lines() {
            let Some(record) = self.input.strict_record(line)? else { continue };
            self.record(record)?;
        }
        Ok(Vec::new())
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        self.close_turn()?;
        let seed: [u8; 32] = std::mem::take(&mut self.hasher).finalize().into();
        let id = match self.options.native_id.as_deref() {
            Some(id) if layout::is_session_id(id) => id.to_string(),
            Some(id) => {
                return Err(CodecError::Other(format!(
                    "write-options.native-id {id:?} is not a valid fx session id (1–255 bytes of [A-Za-z0-9._-], not `v2`)"
                )));
            }
            None => fresh_id(seed),
        };
        let meta = self.meta.take().unwrap_or_default();
        let cwd = self.options.cwd.clone().or(meta.cwd.clone()).filter(|c| !c.is_empty());
        if cwd.is_none() {
            self.diags.add("no-cwd", Severity::Warning, "workspace_root", None, None);
        }
        let started = meta.started_at.as_deref().and_then(trajhost_codec_sdk::time::parse_rfc3339);
        let created = started.or(self.first_ms).unwrap_or_else(|| {
            self.diags.add("no-timestamp", Severity::Warning, "created_at_ms", None, None);
            0
        });
        let updated = self.last_ms.unwrap_or(created).max(created);
        if let Some(title) = meta.title.as_deref().filter(|t| !t.trim().is_empty()) {
            let derived = self.first_prompt.as_deref().and_then(|p| trajhost_codec_sdk::text::title_of(p, 100));
            if derived.as_deref() != Some(title) {
                self.untranslated("title");
            }
        }
        let bytes = self.document(&id, cwd.as_deref(), created, updated)?;
        Ok(Written {
            native_id: id.clone(),
            chunks: vec![Artifact { path: layout::session_json(&id), bytes }],
            diagnostics: self.diags.drain(),
        })
    }
}

/// A generated id that does not start with `-` (which `fx resume <id>`
/// would take for an option): the first of the document's seed, then
/// SHA-256 of it, again, … that does not.
fn fresh_id(mut seed: [u8; 32]) -> String {
    loop {
        let id = layout::generated_id(&seed);
        if !id.starts_with('-') {
            return id;
        }
        seed = Sha256::digest(seed).into();
    }
}

/// `arguments_json`: the arguments object as JSON. Arguments a source kept
/// as a string that is not JSON are written as that string (fx marks them
/// `malformed_json`), so they read back the same.
fn arguments_json(arguments: &Value) -> String {
    match arguments {
        Value::String(s) if !s.is_empty() && serde_json::from_str::<Value>(s).is_err() => s.clone(),
        other => other.to_string(),
    }
}

#[derive(Serialize)]
struct Header<'a> {
    schema_version: u64,
    id: &'a str,
    created_at_ms: i64,
    updated_at_ms: i64,
    workspace_root: Option<&'a str>,
    conversation_language: &'a str,
    history_len: u64,
}

#[derive(Serialize)]
struct AssistantTurn<'a> {
    kind: &'static str,
    user: &'a UserTurn,
    assistant: &'a str,
    execution: Option<ExecutionMemory<'a>>,
}

#[derive(Serialize)]
struct InterruptedTurn<'a> {
    kind: &'static str,
    user: &'a UserTurn,
    assistant: Option<&'a str>,
    tool_call: Option<&'a ToolCall>,
    completed_tool_names: Vec<&'a str>,
    terminal_reason: &'static str,
    execution: Option<ExecutionMemory<'a>>,
}

#[derive(Serialize)]
struct CompactedSummary<'a> {
    kind: &'static str,
    summary: &'a str,
    removed_turn_count: u64,
    compaction_count: u64,
    root_user_messages: &'a [String],
    root_user_messages_complete: bool,
    permission_feedback: &'a [String],
    permission_feedback_complete: bool,
}

#[derive(Serialize)]
struct ExecutionMemory<'a> {
    schema_version: u64,
    tool_steps: Vec<ToolStep<'a>>,
    files: &'a [Value],
    steering: &'a [Value],
}

#[derive(Serialize)]
struct ToolStep<'a> {
    assistant: Option<&'a str>,
    tool_calls: &'a [ToolCall],
    tool_results: &'a [PersistedToolResult],
}
