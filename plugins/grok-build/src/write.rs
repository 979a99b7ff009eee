//! `write`: a canonical session → a Grok Build session folder,
//! `.grok/sessions/<percent-encoded cwd>/<uuidv7>/` with
//! `chat_history.jsonl` (format 1 `ConversationItem`s, streamed as records
//! arrive), `updates.jsonl` (the journal's lines for times, tool outcomes and
//! turn usage, see [`crate::journal`]) and `summary.json` (at `finish`, when
//! the counts and times are known). That is all `grok -r <id>` needs: it rebuilds the model context
//! from `chat_history.jsonl`, and finds the session by its `summary.json`,
//! which must hold `info`, `session_summary`, `created_at`, `updated_at`,
//! `num_messages` and `current_model_id` (without one of them 1.0.41 says
//! "Session does not exist"). The search index is left to the CLI.
//!
//! ```text
//! user       {"type":"user","content":[{"type":"text","text":"<user_query>\n…\n</user_query>"}],"prompt_index":n}
//! assistant  {"type":"assistant","content":"…","tool_calls":[{"id","name","arguments":"<JSON text>"}],"model_id"}
//! tool_result{"type":"tool_result","tool_call_id","content":"…"}
//! reasoning  {"type":"reasoning","summary":[{"type":"summary_text","text"}],"encrypted_content"?}
//! system     {"type":"system","content":"…"}                     (only a Grok Build session's own)
//! injected   {"type":"user","content":[…],"synthetic_reason"?}    (observation user-context, synthetic/<reason>)
//! compaction {"type":"user","content":[…],"synthetic_reason":"compaction_meta"}
//! ```
//!
//! Tool calls join the assistant item before them (Grok keeps a turn's calls
//! on its answer); a call with no answer before it gets an empty one.
//!
//! Not carried (`not-carried`, by detail): `system` prompts of other
//! harnesses (Grok writes its own when the history has none), `usage` per
//! answer of a turn of several model calls (Grok keeps the turn's sum),
//! `timestamps` of records the journal has no line for (system, reasoning,
//! injected context), `attachment` (canonical records carry no image bytes),
//! `opaque-reasoning` of other harnesses (xAI cannot decrypt it; the text is
//! kept), `observation/<subtype>` other than injected context (and a Grok
//! session's own provider-side tool calls, written back as
//! `backend_tool_call`), subagent transcripts. Reasoning that is only another harness's encrypted blob is
//! `untranslated-reasoning`.
//!
//! The session id is `options.native_id` (a UUID), else a UUIDv7 of the
//! start time whose random bits come from SHA-256 of the meta line: the same
//! document always gives the same bytes.

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use trajhost_codec_sdk::canonical::{Body, Meta, Reasoning, Record};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::paths::is_uuid;
use trajhost_codec_sdk::time::{parse_rfc3339, rfc3339_ms};
use trajhost_codec_sdk::writer::CanonicalInput;
use trajhost_codec_sdk::writer::ids;
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WriteOptions, Written};

use crate::HARNESS;
use crate::journal::{self, Entry, TurnSum};
use crate::layout::{CHAT_HISTORY, SESSIONS, SUMMARY, UPDATES};
use crate::records::COMPACTION_PREAMBLE;

/// `chat_format_version` written (1.0.41 writes 1).
pub const CHAT_FORMAT_VERSION: u64 = 1;
/// The model a new Grok Build 1.0.41 session starts with when
/// `~/.grok/config.toml` names none (`[models] default`).
pub const BUILTIN_DEFAULT_MODEL: &str = "grok-4.5";
/// Longest `session_summary` (the listing's title) derived from a prompt.
const SUMMARY_CHARS: usize = 100;

/// The streaming writer: each record becomes a line as soon as it is
/// complete (an answer once no more calls can join it).
pub struct Writer {
    options: WriteOptions,
    /// The canonical lines read.
    input: CanonicalInput,
    diags: Diagnostics,
    meta: Option<Meta>,
    meta_digest: [u8; 32],
    /// The source is a Grok Build session: its system prompt and encrypted
    /// reasoning are Grok's own.
    from_grok: bool,
    /// `<dir>/chat_history.jsonl` once the id is settled.
    dir: Option<String>,
    id: Option<String>,
    cwd: String,
    out: Vec<u8>,
    /// `updates.jsonl` lines not yet returned (the id names the session in each).
    journal: Vec<Entry>,
    /// The open turn's answers' usage.
    turn: TurnSum,
    /// The open turn's usage was written as recorded (a `turn-usage` observation).
    turn_written: bool,
    /// The answer that later tool calls join.
    answer: Option<Map<String, Value>>,
    prompts: u64,
    lines: u64,
    first_prompt: Option<String>,
    last_model: Option<String>,
    first_ms: Option<i64>,
    last_ms: Option<i64>,
    /// The model chosen for the target (`--model`).
    model: Option<String>,
}

impl Writer {
    pub fn new(options: WriteOptions) -> Result<Writer, CodecError> {
        let choice = trajhost_codec_sdk::target::choice();
        check_provider(choice.provider.as_deref())?;
        if let Some(model) = &choice.model {
            check_model(model)?;
        }
        Ok(Writer {
            options,
            input: CanonicalInput::new(),
            diags: Diagnostics::new(),
            meta: None,
            meta_digest: [0; 32],
            from_grok: false,
            dir: None,
            id: None,
            cwd: String::new(),
            out: Vec::new(),
            journal: Vec::new(),
            turn: TurnSum::default(),
            turn_written: false,
            answer: None,
            prompts: 0,
            lines: 0,
            first_prompt: None,
            last_model: None,
            first_ms: None,
            last_ms: None,
            model: choice.model,
        })
    }

    /// Settles the session id and folder (needs the start time).
    fn open(&mut self, start_ms: Option<i64>) -> Result<(), CodecError> {
        if self.dir.is_some() {
            return Ok(());
        }
        let meta = self.meta.clone().unwrap_or_default();
        let cwd = self.options.cwd.clone().filter(|c| !c.is_empty()).or(meta.cwd.clone()).ok_or_else(|| {
            CodecError::Malformed(
                "the session names no working directory; Grok Build files sessions by cwd (pass --cwd)".into(),
            )
        })?;
        let folder = cwd_folder(&cwd)?;
        let id = match self.options.native_id.as_deref() {
            Some(id) if is_uuid(id) => id.to_ascii_lowercase(),
            Some(id) => {
                return Err(CodecError::Malformed(format!(
                    "native id {id:?} is not a UUID; `grok -r` takes the session folder's UUID"
                )));
            }
            None => {
                let ms = start_ms.unwrap_or_else(|| {
                    self.diags.add("no-timestamp", Severity::Warning, "session start (id from time 0)", None, None);
                    0
                });
                uuid_v7(ms, &self.meta_digest)
            }
        };
        self.cwd = cwd;
        self.dir = Some(format!("{SESSIONS}/{folder}/{id}"));
        self.id = Some(id);
        Ok(())
    }

    fn line(&mut self, item: Value) {
        self.lines += 1;
        self.out.extend_from_slice(item.to_string().as_bytes());
        self.out.push(b'\n');
    }

    fn flush_answer(&mut self) {
        if let Some(answer) = self.answer.take() {
            self.line(Value::Object(answer));
        }
    }

    fn record(&mut self, record: Record) -> Result<(), CodecError> {
        let ms = record.ts.as_deref().and_then(parse_rfc3339);
        if let Some(ms) = ms {
            self.first_ms.get_or_insert(ms);
            self.last_ms = Some(self.last_ms.map_or(ms, |l| l.max(ms)));
        }
        if let Body::Meta(meta) = record.body {
            if self.meta.is_some() {
                self.diags.not_carried("additional-meta");
                return Ok(());
            }
            self.from_grok = meta.harness == HARNESS;
            self.meta_digest = Sha256::digest(serde_json::to_vec(&meta).unwrap_or_default()).into();
            let start = meta.started_at.as_deref().and_then(parse_rfc3339);
            if let Some(start) = start {
                self.first_ms = Some(self.first_ms.map_or(start, |f| f.min(start)));
            }
            self.meta = Some(meta);
            if start.is_some() {
                self.open(start)?;
            }
            return Ok(());
        }
        if record.agent.is_some() {
            self.diags.not_carried("subagent-transcript");
            return Ok(());
        }
        if self.dir.is_none() && ms.is_some() {
            self.open(ms)?;
        }
        let journaled = matches!(
            record.body,
            Body::User { .. } | Body::Assistant(_) | Body::ToolCall { .. } | Body::ToolResult { .. }
        ) || matches!(&record.body, Body::Observation { subtype, .. } if subtype == "turn-usage");
        let has_ts = record.ts.is_some();
        let is_call = matches!(record.body, Body::ToolCall { .. });
        if !is_call {
            self.flush_answer();
        }
        let before = self.lines;
        match record.body {
            Body::Meta(_) => {}
            Body::System { text } => {
                if self.from_grok {
                    self.line(json!({"type": "system", "content": text}));
                } else {
                    self.diags.not_carried("system");
                }
            }
            Body::User { text, attachments } => {
                if !attachments.is_empty() {
                    for _ in &attachments {
                        self.diags.not_carried("attachment");
                    }
                }
                self.end_turn();
                self.first_prompt.get_or_insert_with(|| text.clone());
                self.journal.push(journal::prompt(self.prompts, &text, ms));
                let wrapped = format!("<user_query>\n{text}\n</user_query>");
                let index = self.prompts;
                self.prompts += 1;
                self.line(json!({"type": "user", "content": [text_part(&wrapped)], "prompt_index": index}));
            }
            Body::Assistant(a) => {
                if let Some(u) = &a.usage {
                    self.turn.add(u);
                }
                if !a.text.is_empty() {
                    self.journal.push(journal::answer(&a.text, ms));
                }
                if let Some(m) = &a.model {
                    self.last_model = Some(m.clone());
                }
                let mut answer = Map::new();
                answer.insert("type".into(), "assistant".into());
                answer.insert("content".into(), a.text.into());
                if let Some(m) = a.model {
                    answer.insert("model_id".into(), m.into());
                }
                self.answer = Some(answer);
            }
            Body::ToolCall { call_id, name, arguments } => {
                if self.answer.is_none() {
                    self.flush_answer();
                    let mut answer = Map::new();
                    answer.insert("type".into(), "assistant".into());
                    answer.insert("content".into(), "".into());
                    if let Some(m) = &self.last_model {
                        answer.insert("model_id".into(), m.clone().into());
                    }
                    self.answer = Some(answer);
                }
                self.journal.push(journal::call(&call_id, &name, &arguments, ms));
                let arguments = match arguments {
                    Value::Null => "{}".to_string(),
                    other => other.to_string(),
                };
                let call = json!({"id": call_id, "name": name, "arguments": arguments});
                if let Some(answer) = self.answer.as_mut() {
                    match answer.entry("tool_calls").or_insert_with(|| Value::Array(Vec::new())) {
                        Value::Array(calls) => calls.push(call),
                        other => *other = Value::Array(vec![call]),
                    }
                }
            }
            Body::ToolResult { call_id, content, ok } => {
                self.journal.push(journal::result(&call_id, &content, ok, ms));
                self.line(json!({"type": "tool_result", "tool_call_id": call_id, "content": content}));
            }
            Body::Reasoning(r) => self.reasoning(r),
            Body::Observation { subtype, text } => match (subtype.as_str(), subtype.strip_prefix("synthetic/")) {
                // A Grok turn's usage as recorded, back into its turn_completed.
                ("turn-usage", _) if let Some(raw) = text.as_deref().and_then(|t| serde_json::from_str(t).ok()) => {
                    self.journal.push(journal::turn_completed(raw, ms));
                    self.turn_written = true;
                }
                ("user-context", _) => {
                    self.line(json!({"type": "user", "content": [text_part(text.as_deref().unwrap_or(""))]}));
                }
                (_, Some(reason)) => {
                    let text = text.unwrap_or_default();
                    self.line(json!({"type": "user", "content": [text_part(&text)], "synthetic_reason": reason}));
                }
                // A provider-side tool of a Grok session goes back as it was.
                _ if self.from_grok
                    && subtype.starts_with("backend-tool/")
                    && let Some(kind) = text.as_deref().and_then(|t| serde_json::from_str::<Value>(t).ok()) =>
                {
                    self.line(json!({"type": "backend_tool_call", "kind": kind}));
                }
                _ => {
                    let kind = trajhost_codec_sdk::text::type_name(Some(&subtype));
                    self.diags.not_carried(&format!("observation/{kind}"));
                }
            },
            Body::Compaction { summary, .. } => {
                let text = if summary.starts_with(COMPACTION_PREAMBLE) {
                    summary
                } else {
                    format!("{COMPACTION_PREAMBLE}. The summary below covers the earlier portion.\n\n{summary}")
                };
                self.line(
                    json!({"type": "user", "content": [text_part(&text)], "synthetic_reason": "compaction_meta"}),
                );
            }
        }
        // Written into the context, which holds no times, and not journaled.
        if has_ts && !journaled && self.lines > before {
            self.diags.not_carried("timestamps");
        }
        Ok(())
    }

    fn reasoning(&mut self, r: Reasoning) {
        let text = r.text.filter(|t| !t.trim().is_empty());
        let opaque = r.opaque.filter(|o| !o.is_empty());
        let opaque = match opaque {
            Some(o) if self.from_grok => Some(o),
            Some(_) => {
                if text.is_none() {
                    self.diags.add(
                        "untranslated-reasoning",
                        Severity::Warning,
                        "encrypted reasoning of another harness (xAI cannot decrypt it) without its text",
                        None,
                        None,
                    );
                    return;
                }
                self.diags.not_carried("opaque-reasoning");
                None
            }
            None => None,
        };
        if text.is_none() && opaque.is_none() {
            return;
        }
        let mut item = Map::new();
        item.insert("type".into(), "reasoning".into());
        let parts: Vec<Value> = text.iter().map(|t| json!({"type": "summary_text", "text": t})).collect();
        item.insert("summary".into(), Value::Array(parts));
        if let Some(o) = opaque {
            item.insert("encrypted_content".into(), o.into());
        }
        self.line(Value::Object(item));
    }

    /// Ends the open turn: its answers' usage as one `turn_completed`
    /// (Grok gives a turn's usage to its answer only when the turn made one
    /// model call; a turn of several keeps only the sum).
    fn end_turn(&mut self) {
        let turn = std::mem::take(&mut self.turn);
        if turn.calls > 0 && !self.turn_written {
            // Several answers: each one's own usage is lost (counted per answer).
            for _ in 0..if turn.calls > 1 { turn.calls } else { 0 } {
                self.diags.add(
                    "not-carried",
                    Severity::Info,
                    "usage (per answer; Grok keeps a turn's sum)",
                    None,
                    None,
                );
            }
            self.journal.push(journal::turn_completed(turn.usage(), self.last_ms));
        }
        self.turn_written = false;
    }

    fn take_chunk(&mut self) -> Vec<Artifact> {
        let (Some(dir), Some(id)) = (&self.dir, &self.id) else { return Vec::new() };
        let mut chunks = Vec::new();
        if !self.out.is_empty() {
            chunks.push(Artifact { path: format!("{dir}/{CHAT_HISTORY}"), bytes: std::mem::take(&mut self.out) });
        }
        if !self.journal.is_empty() {
            let mut bytes = Vec::new();
            for entry in self.journal.drain(..) {
                bytes.extend_from_slice(entry.line(id).as_bytes());
                bytes.push(b'\n');
            }
            chunks.push(Artifact { path: format!("{dir}/{UPDATES}"), bytes });
        }
        chunks
    }

    /// `summary.json`, once every line is written.
    fn summary(&self) -> Vec<u8> {
        let meta = self.meta.clone().unwrap_or_default();
        let created = self.first_ms.map(rfc3339_ms).unwrap_or_else(|| rfc3339_ms(0));
        let updated = self.last_ms.or(self.first_ms).map(rfc3339_ms).unwrap_or_else(|| created.clone());
        let title = meta.title.clone().filter(|t| !t.trim().is_empty());
        let session_summary = title
            .clone()
            .or_else(|| self.first_prompt.as_deref().and_then(|p| trajhost_codec_sdk::text::title_of(p, SUMMARY_CHARS)))
            .unwrap_or_default();
        let model = self
            .model
            .clone()
            .or_else(|| self.last_model.clone().filter(|_| self.from_grok))
            .unwrap_or_else(|| BUILTIN_DEFAULT_MODEL.to_string());
        let mut s = json!({
            "info": {"id": self.id, "cwd": self.cwd},
            "session_summary": session_summary,
            "created_at": created,
            "updated_at": updated,
            "last_active_at": updated,
            "num_messages": self.lines,
            "num_chat_messages": self.lines,
            "current_model_id": model,
            "chat_format_version": CHAT_FORMAT_VERSION,
        });
        if let Some(t) = title {
            s["generated_title"] = t.into();
        }
        if let Some(b) = meta.git_branch {
            s["head_branch"] = b.into();
        }
        if let Some(p) = meta.parent_session.filter(|p| is_uuid(p)) {
            s["parent_session_id"] = p.into();
        }
        let mut bytes = serde_json::to_vec_pretty(&s).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }
}

impl SessionWriter for Writer {
    fn push(&mut self, records: &str) -> Result<Vec<Artifact>, CodecError> {
        for line in records.lines() {
            let Some(record) = self.input.record(line, &mut self.diags)? else { continue };
            self.record(record)?;
        }
        Ok(self.take_chunk())
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        self.flush_answer();
        self.end_turn();
        self.open(self.first_ms)?;
        let mut chunks = self.take_chunk();
        let dir = self.dir.clone().unwrap_or_default();
        if self.lines == 0 {
            return Err(CodecError::Malformed("nothing to write: the session has no conversation".into()));
        }
        chunks.push(Artifact { path: format!("{dir}/{SUMMARY}"), bytes: self.summary() });
        Ok(Written { native_id: self.id.clone().unwrap_or_default(), chunks, diagnostics: self.diags.drain() })
    }
}

fn text_part(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// Grok names a cwd's folder by percent-encoding it (every byte but ASCII
/// letters, digits and `-_.~`); a name over 255 bytes would become a slug
/// with a hash and a `.cwd` file, which this writer does not make.
pub fn cwd_folder(cwd: &str) -> Result<String, CodecError> {
    let mut out = String::with_capacity(cwd.len() * 3);
    for b in cwd.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if !cwd.starts_with('/') {
        return Err(CodecError::Malformed(format!("cwd {cwd:?} is not an absolute path")));
    }
    if out.len() > 255 {
        return Err(CodecError::Unsupported(format!(
            "cwd of {} bytes: its encoded folder name is over 255 bytes (Grok's slug form is not written)",
            cwd.len()
        )));
    }
    Ok(out)
}

/// Grok Build records no provider per session: the endpoint comes from the
/// model's entry in `~/.grok/config.toml` (`[model.<id>] base_url`).
pub fn check_provider(provider: Option<&str>) -> Result<(), CodecError> {
    match provider {
        None => Ok(()),
        Some(p) => Err(CodecError::Other(format!(
            "Grok Build cannot honour --provider {p:?}: it records no provider per session (the endpoint is the \
             model's, from [model.<id>] in ~/.grok/config.toml); choose the model with --model"
        ))),
    }
}

/// A model id Grok accepts in `current_model_id`: 1–256 bytes, no
/// surrounding space, no control characters.
pub fn check_model(model: &str) -> Result<(), CodecError> {
    if model.is_empty() || model.len() > 256 || model.trim() != model || model.chars().any(char::is_control) {
        return Err(CodecError::Other(format!(
            "model {model:?} is not a model id Grok Build accepts (1–256 bytes, no surrounding space or control \
             characters)"
        )));
    }
    Ok(())
}

/// A UUIDv7 for instant `ms` whose other bits come from `seed`.
pub fn uuid_v7(ms: i64, seed: &[u8; 32]) -> String {
    ids::uuid_v7_layout(ms, &ids::sha256_of(&[seed]))
}
