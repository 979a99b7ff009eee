//! `read`: one fx session as canonical records, streamed in batches.
//!
//! - Schema 1/2 (`legacy`): `session.json` is read whole; each history turn
//!   is parsed when the reader reaches it, its records pointing at the
//!   turn's parts (user, step, call, result) by byte span.
//! - Schema 4 (`events`): the header gives `meta`; `events.jsonl` is read
//!   line by line, every frame checked against fx's replay rules (contiguous
//!   `seq` from 1, tool linkage) and every result body read from its
//!   artifact. A broken rule, a missing or mismatched artifact or a corrupt
//!   line fails the read naming the file; an unterminated last line is a
//!   torn tail (fx mid-write), reported and not read.
//! - Schema 3 (`event_log_v1`) is refused.

use std::collections::VecDeque;

use trajhost_codec_sdk::canonical::{Assistant, Attachment, Body, Meta, Record, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::{BadLine, JsonLines};
use trajhost_codec_sdk::records::{self, BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::{CodecError, ReadOptions, Severity};

use crate::discover::MAX_SESSION_JSON;
use crate::events::{Conversation, ConversationEnvelope, Event};
use crate::layout::{self, EVENTS};
use crate::legacy::{self, LegacySession, TurnMapper};
use crate::metadata::{self, Layout, Probe, SessionMetadata};
use crate::{CODEC, HARNESS, tool_results};

enum Source {
    /// A legacy snapshot: its bytes and each history turn's span.
    Legacy { bytes: Vec<u8>, turns: Vec<(u64, u64)>, next: usize },
    /// A schema-4 log.
    Events { lines: Box<JsonLines>, conversation: Conversation, home: Dir, session_dir: String },
}

pub struct Reader {
    file: String,
    source: Source,
    pending: VecDeque<Record>,
    writer: BatchWriter,
    diags: Diagnostics,
    done: bool,
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        let (dir, dir_name) = layout::session_dir(locator)?;
        let bytes = home
            .read_to_end(locator, MAX_SESSION_JSON)
            .map_err(|e| trajhost_codec_sdk::errors::fs_error(locator, e))?;
        let malformed = |why: String| CodecError::Malformed(format!("{locator}: {why}"));
        let probe: Probe<'_> =
            serde_json::from_slice(&bytes).map_err(|e| malformed(format!("not an fx session.json: {e}")))?;
        let layout = probe.layout().map_err(malformed)?;
        let mut diags = Diagnostics::new();
        let mut id_of = |content: &str| {
            if dir_name.is_empty() {
                content.to_string()
            } else {
                if content != dir_name {
                    diags.add("session-id-mismatch", Severity::Warning, "id", Some(locator), None);
                }
                dir_name.to_string()
            }
        };
        let whole = SourceSpan { file: locator.to_string(), offset: 0, len: bytes.len() as u64 };
        let meta = |native_id: String, cwd: Option<String>, title: Option<String>, created: Option<i64>| {
            let started_at = created.filter(|ms| *ms >= 0).map(trajhost_codec_sdk::time::rfc3339_ms);
            let meta = Meta {
                native_version: Some(Probe::version(layout)),
                cwd,
                title,
                started_at,
                ..records::meta(HARNESS, CODEC, &native_id)
            };
            records::meta_record(meta, Some(whole.clone()))
        };
        let (first, source) = match layout {
            Layout::EventLogV1 => return Err(CodecError::Unsupported(metadata::event_log_v1_unsupported(locator))),
            Layout::Legacy(_) => {
                let session: LegacySession<'_> =
                    serde_json::from_slice(&bytes).map_err(|e| malformed(format!("not a legacy session.json: {e}")))?;
                let native_id = id_of(session.id.as_deref().unwrap_or(dir_name));
                if session.history_len.is_some_and(|n| n != session.history.len() as u64) {
                    diags.add("history-len-mismatch", Severity::Warning, "history_len", Some(locator), None);
                }
                let base = bytes.as_ptr() as usize;
                let turns: Vec<(u64, u64)> = session
                    .history
                    .iter()
                    .map(|raw| ((raw.get().as_ptr() as usize - base) as u64, raw.get().len() as u64))
                    .collect();
                let title = probe
                    .history
                    .as_ref()
                    .and_then(|h| h.first())
                    .and_then(|t| serde_json::from_str::<serde_json::Value>(t.get()).ok())
                    .and_then(|t| t["user"]["text"].as_str().and_then(|s| trajhost_codec_sdk::text::title_of(s, 100)));
                let first = meta(native_id, session.workspace_root.clone(), title, session.created_at_ms);
                drop(session);
                (first, Source::Legacy { bytes, turns, next: 0 })
            }
            Layout::Conversation => {
                let header = SessionMetadata::parse(&bytes).map_err(malformed)?;
                let native_id = id_of(&header.id);
                let first = meta(native_id, Some(header.workspace_root), header.title, Some(header.created_at_ms));
                let events = layout::join(dir, EVENTS);
                let lines =
                    JsonLines::open(&home, &events).map_err(|e| trajhost_codec_sdk::errors::fs_error(&events, e))?;
                let source = Source::Events {
                    lines: Box::new(lines),
                    conversation: Conversation::default(),
                    home,
                    session_dir: dir.to_string(),
                };
                (first, source)
            }
        };
        Ok(Reader {
            file: locator.to_string(),
            source,
            pending: VecDeque::new(),
            writer: BatchWriter::starting_with(options, &first),
            diags,
            done: false,
        })
    }
}

impl Steps for Reader {
    fn step(&mut self) -> Result<bool, CodecError> {
        if self.writer.release(&mut self.pending) {
            return Ok(true);
        }
        let mut out = Vec::new();
        match &mut self.source {
            Source::Legacy { bytes, turns, next } => {
                let Some(&(offset, len)) = turns.get(*next) else {
                    return Ok(false);
                };
                let turn = &bytes[offset as usize..(offset + len) as usize];
                TurnMapper { file: &self.file, diags: &mut self.diags }.map(turn, offset, *next, &mut out);
                *next += 1;
            }
            Source::Events { lines, conversation, home, session_dir } => {
                let path = lines.path().to_string();
                let Some(line) = lines.next_line() else {
                    if conversation.turn_open() {
                        self.diags.add("unfinished-turn", Severity::Info, "last turn not closed", Some(&path), None);
                    }
                    return Ok(false);
                };
                let line = line.map_err(|e| trajhost_codec_sdk::errors::fs_error(&path, e))?;
                let span = SourceSpan { file: path.clone(), offset: line.offset, len: line.len };
                let frame: ConversationEnvelope = match serde_json::from_slice(line.bytes) {
                    Ok(frame) => frame,
                    Err(e) => match BadLine::of(&line) {
                        BadLine::TornTail => {
                            self.diags.add(
                                BadLine::TornTail.code(),
                                Severity::Warning,
                                "frame",
                                Some(&path),
                                Some(line.offset),
                            );
                            if conversation.turn_open() {
                                self.diags.add(
                                    "unfinished-turn",
                                    Severity::Info,
                                    "last turn not closed",
                                    Some(&path),
                                    None,
                                );
                            }
                            return Ok(false);
                        }
                        BadLine::Corrupt => {
                            return Err(CodecError::Malformed(format!(
                                "{path}: the line at byte {} is not a conversation frame: {e}",
                                line.offset
                            )));
                        }
                    },
                };
                conversation.apply(&frame).map_err(|rule| {
                    CodecError::Malformed(format!("{path}: frame seq {} at byte {}: {rule}", frame.seq, line.offset))
                })?;
                frame_records(frame, span, home, session_dir, &mut self.diags, &mut out)?;
            }
        }
        self.pending.extend(out);
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}

/// The records of one conversation frame.
fn frame_records(
    frame: ConversationEnvelope,
    src: SourceSpan,
    home: &Dir,
    session_dir: &str,
    diags: &mut Diagnostics,
    out: &mut Vec<Record>,
) -> Result<(), CodecError> {
    let ts = Some(trajhost_codec_sdk::time::rfc3339_ms(frame.timestamp_ms));
    let id = format!("seq{}", frame.seq);
    let file = src.file.clone();
    let mut push = |suffix: &str, body: Body| {
        out.push(Record {
            id: if suffix.is_empty() { id.clone() } else { format!("{id}:{suffix}") },
            body,
            parent: None,
            ts: ts.clone(),
            agent: None,
            src: Some(src.clone()),
        })
    };
    match frame.event {
        Event::User(user) => {
            let attachments = user
                .images
                .iter()
                .map(|image| Attachment { kind: "image".into(), media_type: image.media_type.clone() })
                .collect();
            push("", Body::User { text: user.text, attachments });
        }
        Event::Steering(steering) => push("", Body::User { text: steering.text, attachments: Vec::new() }),
        Event::Assistant(assistant) => {
            if assistant.provider_replay.is_some() {
                diags.add("unmapped-record-type", Severity::Info, "assistant.provider_replay", Some(&file), None);
            }
            if !assistant.text.is_empty() {
                push("", Body::Assistant(Assistant { text: assistant.text, ..Default::default() }));
            }
        }
        Event::ToolCall(call) => push(
            "",
            legacy::call_body(legacy::ToolCall {
                id: call.call_id,
                name: call.tool_name,
                arguments_json: call.arguments_json,
                provider_result: call.provider_result,
            }),
        ),
        Event::ToolResult(result) => {
            let content = tool_results::resolve(home, session_dir, &result.artifact_ref, result.stored_bytes)?;
            if result.completeness != "complete" {
                diags.add("truncated-tool-output", Severity::Info, "tool result", Some(&file), None);
            }
            if result.tool_image_handle.is_some() {
                diags.add("unmapped-record-type", Severity::Info, "tool_result.tool_image_handle", Some(&file), None);
            }
            push("", Body::ToolResult { call_id: result.call_id, content, ok: legacy::status_ok(&result.status) });
        }
        Event::TurnCompleted(completed) => {
            // File evidence and the turn summary have no canonical record.
            if !completed.files.is_empty() {
                diags.add("unmapped-record-type", Severity::Info, "turn_completed.files", Some(&file), None);
            }
            if completed.turn_summary.is_some() {
                diags.add("unmapped-record-type", Severity::Info, "turn_completed.turn_summary", Some(&file), None);
            }
        }
        Event::Interrupted(interrupted) => {
            if let Some(text) = interrupted.partial_text.filter(|t| !t.is_empty()) {
                push("partial", Body::Assistant(Assistant { text, ..Default::default() }));
            }
            let text = match interrupted.cancellation_origin.as_deref() {
                Some(origin) if origin != "turn" => format!("{} ({origin})", interrupted.reason),
                _ => interrupted.reason,
            };
            push("", Body::Observation { subtype: "interrupt".into(), text: Some(text) });
        }
        Event::ContextCheckpoint(checkpoint) => {
            push("", Body::Compaction { summary: checkpoint.summary, trigger: None });
        }
    }
    Ok(())
}
