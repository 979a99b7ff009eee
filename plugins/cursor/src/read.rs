//! The reader of a chat store: `meta`, then the turns of root field 8 (or,
//! when a root has no turns, the JSON messages of field 1), one turn per step.

use std::collections::VecDeque;

use serde_json::Value as Json;
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Reasoning, Record, SCHEMA, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::hash::to_hex;
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{Batch, CodecError, ReadOptions, SessionReader, Severity};

use crate::conversation::{self, Turn};
use crate::decode::{Ctx, Msg};
use crate::messages::{self, Item};
use crate::session::Chat;
use crate::steps::{self, McpResult, Step};
use crate::transcript::TranscriptReader;
use crate::{CODEC, HARNESS};

pub const NOT_PORTABLE: &str = "not-portable";
pub const EMPTY_CHAT: &str = "empty-chat";

enum Work {
    Turn(usize, [u8; 32]),
    Message(usize, [u8; 32]),
}

/// A store's reader.
pub struct StoreReader {
    chat: Chat,
    writer: BatchWriter,
    diags: Diagnostics,
    done: bool,
    meta_sent: bool,
    work: VecDeque<Work>,
    timestamps: Vec<Option<u64>>,
}

/// What `read` returns.
pub enum Reader {
    Store(Box<StoreReader>),
    Transcript(Box<TranscriptReader>),
}

impl SessionReader for Reader {
    fn next_batch(&mut self) -> Result<Option<Batch>, CodecError> {
        match self {
            Reader::Store(r) => trajhost_codec_sdk::records::next_batch(r.as_mut()),
            Reader::Transcript(r) => trajhost_codec_sdk::records::next_batch(r.as_mut()),
        }
    }
}

impl StoreReader {
    pub fn open(home: &Dir, locator: &str, options: &ReadOptions) -> Result<StoreReader, CodecError> {
        let chat = Chat::open(home, locator)?;
        let mut diags = Diagnostics::new();
        let mut work = VecDeque::new();
        let mut timestamps = Vec::new();
        if let Some(why) = &chat.no_root {
            // The CLI treats such a store as an empty chat.
            diags.add(EMPTY_CHAT, Severity::Warning, why, Some(locator), None);
        }
        for cause in chat.not_portable() {
            diags.add(NOT_PORTABLE, Severity::Warning, &cause, Some(locator), None);
        }
        if let Some((root, _, _)) = &chat.root {
            for name in &root.opaque {
                // Deprecated turns are conversation the CLI no longer shows: worth a warning.
                let severity = if name.contains("turns_old") { Severity::Warning } else { Severity::Info };
                diags.add("unmapped-record-type", severity, name, Some(locator), None);
            }
            if root.turns.is_empty() {
                work.extend(root.messages.iter().enumerate().map(|(i, id)| Work::Message(i, *id)));
            } else {
                work.extend(root.turns.iter().enumerate().map(|(i, id)| Work::Turn(i, *id)));
                // Field 1 is the model's view of the same conversation: checked, not repeated.
                for id in &root.messages {
                    let blob = chat.source.blob(id, "JSON message")?;
                    messages::parse_message(&blob.data, locator, &to_hex(id))?;
                }
            }
            if root.turn_timestamps.len() == root.turns.len() {
                timestamps = root.turn_timestamps.clone();
            }
        }
        Ok(StoreReader {
            chat,
            writer: BatchWriter::new(options),
            diags,
            done: false,
            meta_sent: false,
            work,
            timestamps,
        })
    }

    fn span(&self, offset: u64, len: u64) -> Option<SourceSpan> {
        Some(SourceSpan { file: self.chat.locator.clone(), offset, len })
    }

    fn push(&mut self, id: String, body: Body, ts: Option<String>, src: Option<SourceSpan>) {
        self.writer.push(&Record { id, body, parent: None, ts, agent: None, src });
    }

    fn meta(&mut self) {
        let c = &self.chat;
        let meta = Meta {
            schema: SCHEMA.into(),
            harness: HARNESS.into(),
            native_id: c.native_id.clone(),
            native_version: None,
            cwd: c.cwd.clone(),
            title: c.title(),
            git_branch: None,
            started_at: c.created_at_ms().map(rfc3339_ms),
            parent_session: None,
            parent_call: None,
            codec: Some(CODEC.into()),
        };
        let id = format!("{}:meta", c.native_id);
        self.push(id, Body::Meta(meta), None, None);
    }

    fn turn(&mut self, index: usize, id: [u8; 32]) -> Result<(), CodecError> {
        let file = self.chat.locator.clone();
        let hex = to_hex(&id);
        let blob = self.chat.source.blob(&id, "agent.v1.ConversationTurnStructure")?;
        let m = Msg::new(Ctx { blob: &hex, file: &file }, "agent.v1.ConversationTurnStructure");
        let ts = self.timestamps.get(index).copied().flatten().map(|t| rfc3339_ms(t as i64));
        match conversation::decode_turn(m, &blob.data)? {
            Turn::Empty => {}
            Turn::Agent { user_message, steps, .. } => {
                if let Some(uid) = user_message {
                    let uhex = to_hex(&uid);
                    let ub = self.chat.source.blob(&uid, "agent.v1.UserMessage")?;
                    let um = Msg::new(Ctx { blob: &uhex, file: &file }, "agent.v1.UserMessage");
                    let user = conversation::decode_user_message(um, &ub.data)?;
                    if user.has_selected_context {
                        self.diags.add(
                            "unmapped-record-type",
                            Severity::Info,
                            "UserMessage.selected_context",
                            Some(&file),
                            None,
                        );
                    }
                    let rid = user.message_id.clone().unwrap_or_else(|| format!("t{index}:user"));
                    let (text, context) = messages::split_user_text(&user.text);
                    if let Some(c) = context {
                        let span = self.span(ub.offset, ub.len);
                        self.push(format!("{rid}:context"), Body::System { text: c }, ts.clone(), span);
                    }
                    if let Some(t) = text {
                        let span = self.span(ub.offset, ub.len);
                        self.push(rid, Body::User { text: t, attachments: Vec::new() }, ts.clone(), span);
                    }
                }
                for (j, sid) in steps.iter().enumerate() {
                    self.step_blob(index, j, sid)?;
                }
            }
            Turn::Shell { command, output } => {
                let call_id = format!("t{index}:shell");
                let span = self.span(blob.offset, blob.len);
                if let Some(cid) = command {
                    let chex = to_hex(&cid);
                    let cb = self.chat.source.blob(&cid, "agent.v1.ShellCommand")?;
                    let cm = Msg::new(Ctx { blob: &chex, file: &file }, "agent.v1.ShellCommand");
                    let command = conversation::decode_shell_command(cm, &cb.data)?;
                    let body = Body::ToolCall {
                        call_id: call_id.clone(),
                        name: "shell".into(),
                        arguments: serde_json::json!({ "command": command }),
                    };
                    self.push(call_id.clone(), body, ts.clone(), span.clone());
                    if let Some(oid) = output {
                        let ohex = to_hex(&oid);
                        let ob = self.chat.source.blob(&oid, "agent.v1.ShellOutput")?;
                        let om = Msg::new(Ctx { blob: &ohex, file: &file }, "agent.v1.ShellOutput");
                        let (out, err, code) = conversation::decode_shell_output(om, &ob.data)?;
                        let content = if err.is_empty() { out } else { format!("{out}{err}") };
                        let body = Body::ToolResult { call_id: call_id.clone(), content, ok: Some(code == 0) };
                        let span = self.span(ob.offset, ob.len);
                        self.push(format!("{call_id}:result"), body, ts, span);
                    }
                }
            }
        }
        Ok(())
    }

    fn step_blob(&mut self, turn: usize, index: usize, id: &[u8; 32]) -> Result<(), CodecError> {
        let file = self.chat.locator.clone();
        let hex = to_hex(id);
        let blob = self.chat.source.blob(id, "agent.v1.ConversationStep")?;
        let m = Msg::new(Ctx { blob: &hex, file: &file }, "agent.v1.ConversationStep");
        let rid = format!("t{turn}.s{index}");
        let span = self.span(blob.offset, blob.len);
        match steps::decode_step(m, &blob.data)? {
            Step::Assistant { text } => {
                if !text.is_empty() {
                    self.push(rid, Body::Assistant(Assistant { text, ..Assistant::default() }), None, span);
                }
            }
            Step::Thinking { text, .. } => {
                let body = Body::Reasoning(Reasoning { text: Some(text), opaque: None, encrypted: false });
                self.push(rid, body, None, span);
            }
            Step::Tool(call) => {
                if let Some(mcp) = call.mcp {
                    let call_id = call.tool_call_id.or(mcp.tool_call_id.clone()).unwrap_or_else(|| rid.clone());
                    let name = if mcp.name.is_empty() { mcp.tool_name.clone().unwrap_or_default() } else { mcp.name };
                    let body = Body::ToolCall { call_id: call_id.clone(), name, arguments: Json::Object(mcp.args) };
                    self.push(call_id.clone(), body, None, span.clone());
                    let Some(result) = mcp.result else { return Ok(()) };
                    let (content, ok) = match result {
                        McpResult::Success { texts, images, is_error } => {
                            if images > 0 {
                                self.diags.add(
                                    "not-mapped",
                                    Severity::Info,
                                    "McpImageContent in a tool result",
                                    Some(&file),
                                    None,
                                );
                            }
                            (texts.join("\n"), !is_error)
                        }
                        McpResult::Error { error } => (error, false),
                        McpResult::Rejected { reason } => (reason, false),
                        McpResult::PermissionDenied { error } => (error, false),
                    };
                    let body = Body::ToolResult { call_id: call_id.clone(), content, ok: Some(ok) };
                    self.push(format!("{call_id}:result"), body, None, span);
                } else {
                    let name = steps::variant_name(call.variant).unwrap_or("tool_call").to_string();
                    self.diags.add(
                        "opaque-tool-call",
                        Severity::Info,
                        &format!(
                            "ToolCall variant {} ({name}): arguments and result kept as field trees",
                            call.variant
                        ),
                        Some(&file),
                        None,
                    );
                    let call_id = call.tool_call_id.unwrap_or_else(|| rid.clone());
                    let arguments = call.builtin_args.unwrap_or_else(|| serde_json::json!({}));
                    let body = Body::ToolCall { call_id: call_id.clone(), name, arguments };
                    self.push(call_id.clone(), body, None, span.clone());
                    if let Some(result) = call.builtin_result {
                        let body = Body::ToolResult { call_id: call_id.clone(), content: result.to_string(), ok: None };
                        self.push(format!("{call_id}:result"), body, None, span);
                    }
                }
            }
        }
        Ok(())
    }

    fn message(&mut self, index: usize, id: [u8; 32]) -> Result<(), CodecError> {
        let file = self.chat.locator.clone();
        let blob = self.chat.source.blob(&id, "JSON message")?;
        let span = self.span(blob.offset, blob.len);
        for (p, item) in messages::parse_message(&blob.data, &file, &to_hex(&id))?.into_iter().enumerate() {
            let rid = format!("m{index}.{p}");
            let body = match item {
                Item::System(text) | Item::Context(text) => Body::System { text },
                Item::User(text) => Body::User { text, attachments: Vec::new() },
                Item::Assistant(text) => Body::Assistant(Assistant { text, ..Assistant::default() }),
                Item::Reasoning(text) => {
                    Body::Reasoning(Reasoning { text: Some(text), opaque: None, encrypted: false })
                }
                Item::RedactedReasoning(data) => {
                    Body::Reasoning(Reasoning { text: None, opaque: Some(data), encrypted: true })
                }
                Item::ToolCall { id, name, args } => {
                    let call_id = if id.is_empty() { rid.clone() } else { id };
                    self.push(call_id.clone(), Body::ToolCall { call_id, name, arguments: args }, None, span.clone());
                    continue;
                }
                Item::ToolResult { id, content, ok } => {
                    let rid = if id.is_empty() { rid } else { format!("{id}:result") };
                    self.push(rid, Body::ToolResult { call_id: id, content, ok }, None, span.clone());
                    continue;
                }
                Item::Unknown(kind) => {
                    self.diags.add("unknown-record-type", Severity::Warning, &kind, Some(&file), None);
                    continue;
                }
            };
            self.push(rid, body, None, span.clone());
        }
        Ok(())
    }
}

impl Steps for StoreReader {
    fn step(&mut self) -> Result<bool, CodecError> {
        if !self.meta_sent {
            self.meta_sent = true;
            self.meta();
            return Ok(true);
        }
        match self.work.pop_front() {
            None => Ok(false),
            Some(Work::Turn(i, id)) => self.turn(i, id).map(|_| true),
            Some(Work::Message(i, id)) => self.message(i, id).map(|_| true),
        }
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}
