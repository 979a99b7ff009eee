//! `~/.cursor/projects/<encoded cwd>/agent-transcripts/<id>.jsonl` (and
//! `…/<id>/<id>.jsonl`): the CLI's JSONL mirror of a chat, one line per
//! message `{"role", "message": {"content": [parts]}}`. It records no ids,
//! no times and no tool results; user text is wrapped in `<user_query>`.

use serde_json::Value as Json;
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Reasoning, Record, SCHEMA, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::{BadLine, JsonLines};
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps, location_id};
use trajhost_codec_sdk::{CodecError, ReadOptions, Severity};

use crate::messages::split_user_text;
use crate::{CODEC, HARNESS};

pub const PROJECTS: &str = ".cursor/projects";
pub const DIR: &str = "agent-transcripts";

/// The native id of a transcript: its file stem.
pub fn stem(locator: &str) -> &str {
    let name = locator.rsplit('/').next().unwrap_or(locator);
    name.strip_suffix(".jsonl").unwrap_or(name)
}

/// Whether a loose file's head is an agent-transcripts mirror: every
/// complete line an object of `role` (user / assistant) and `message` only.
pub fn sniff(path: &str, head: &[u8]) -> Option<trajhost_codec_sdk::Sniffed> {
    if !path.ends_with(".jsonl") {
        return None;
    }
    let mut lines = 0;
    for line in head.split(|&b| b == b'\n').take(50) {
        let Ok(v) = serde_json::from_slice::<Json>(line) else { break };
        let obj = v.as_object()?;
        let role_ok = matches!(obj.get("role").and_then(Json::as_str), Some("user" | "assistant"));
        let content_ok =
            obj.get("message").and_then(|m| m.get("content")).is_some_and(|c| c.is_array() || c.is_string());
        if !role_ok || !content_ok || obj.len() != 2 {
            return None;
        }
        lines += 1;
    }
    (lines > 0).then(|| trajhost_codec_sdk::Sniffed { native_version: None, native_id: Some(stem(path).to_string()) })
}

pub struct TranscriptReader {
    lines: JsonLines,
    locator: String,
    writer: BatchWriter,
    diags: Diagnostics,
    done: bool,
    meta_sent: bool,
}

impl TranscriptReader {
    pub fn open(home: &Dir, locator: &str, options: &ReadOptions) -> Result<TranscriptReader, CodecError> {
        let lines = JsonLines::open(home, locator).map_err(|e| trajhost_codec_sdk::errors::fs_error(locator, e))?;
        Ok(TranscriptReader {
            lines,
            locator: locator.to_string(),
            writer: BatchWriter::new(options),
            diags: Diagnostics::new(),
            done: false,
            meta_sent: false,
        })
    }
}

fn text_of(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        Json::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Json::as_str).or_else(|| p.as_str()))
            .collect::<Vec<_>>()
            .join("\n"),
        Json::Null => String::new(),
        other => other.to_string(),
    }
}

impl Steps for TranscriptReader {
    fn step(&mut self) -> Result<bool, CodecError> {
        if !self.meta_sent {
            self.meta_sent = true;
            let meta = Meta {
                schema: SCHEMA.into(),
                harness: HARNESS.into(),
                native_id: stem(&self.locator).to_string(),
                codec: Some(CODEC.into()),
                ..Meta::default()
            };
            let id = format!("{}:meta", meta.native_id);
            self.writer.push(&Record { id, body: Body::Meta(meta), parent: None, ts: None, agent: None, src: None });
            return Ok(true);
        }
        let file = self.locator.clone();
        let Some(line) = self.lines.next_line() else { return Ok(false) };
        let line = line.map_err(|e| trajhost_codec_sdk::errors::fs_error(&file, e))?;
        let (offset, len) = (line.offset, line.len);
        let v: Json = match serde_json::from_slice(line.bytes) {
            Ok(v) => v,
            Err(_) => {
                let bad = BadLine::of(&line);
                self.diags.add(bad.code(), Severity::Error, "agent-transcripts line", Some(&file), Some(offset));
                return Ok(true);
            }
        };
        let role = v.get("role").and_then(Json::as_str).unwrap_or("").to_string();
        let content = v.get("message").and_then(|m| m.get("content")).cloned().unwrap_or(Json::Null);
        let parts = match content {
            Json::Array(a) => a,
            Json::String(s) => vec![serde_json::json!({"type": "text", "text": s})],
            _ => Vec::new(),
        };
        let src = Some(SourceSpan { file: file.clone(), offset, len });
        let mut records = Vec::new();
        for part in &parts {
            let kind = part.get("type").and_then(Json::as_str).unwrap_or("");
            let text = part.get("text").and_then(Json::as_str).unwrap_or("").to_string();
            match (role.as_str(), kind) {
                ("user", "text") => {
                    let (user, context) = split_user_text(&text);
                    if let Some(c) = context {
                        records.push(Body::System { text: c });
                    }
                    if let Some(u) = user {
                        records.push(Body::User { text: u, attachments: Vec::new() });
                    }
                }
                ("assistant", "text") => records.push(Body::Assistant(Assistant { text, ..Assistant::default() })),
                ("assistant", "thinking" | "reasoning") => {
                    let t = part.get("thinking").and_then(Json::as_str).map(str::to_string).unwrap_or(text);
                    records.push(Body::Reasoning(Reasoning { text: Some(t), opaque: None, encrypted: false }));
                }
                ("assistant", "tool_use" | "tool-call") => {
                    let id = part.get("id").or_else(|| part.get("toolCallId")).and_then(Json::as_str);
                    let call_id = id.map_or_else(|| location_id(&file, offset, records.len()), str::to_string);
                    let name = part.get("name").or_else(|| part.get("toolName")).and_then(Json::as_str);
                    let arguments = part.get("input").or_else(|| part.get("args")).cloned().unwrap_or(Json::Null);
                    records.push(Body::ToolCall { call_id, name: name.unwrap_or("").to_string(), arguments });
                }
                (_, "tool_result" | "tool-result") => {
                    let id = part.get("tool_use_id").or_else(|| part.get("toolCallId")).and_then(Json::as_str);
                    let content = text_of(part.get("content").or_else(|| part.get("result")).unwrap_or(&Json::Null));
                    let ok = part.get("is_error").and_then(Json::as_bool).map(|e| !e);
                    records.push(Body::ToolResult { call_id: id.unwrap_or("").to_string(), content, ok });
                }
                _ => {
                    let detail = format!("agent-transcripts {role}/{kind}");
                    self.diags.add("unknown-record-type", Severity::Warning, &detail, Some(&file), Some(offset));
                }
            }
        }
        for (i, body) in records.into_iter().enumerate() {
            let id = match &body {
                Body::ToolCall { call_id, .. } => call_id.clone(),
                _ => location_id(&file, offset, i),
            };
            self.writer.push(&Record { id, body, parent: None, ts: None, agent: None, src: src.clone() });
        }
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}
