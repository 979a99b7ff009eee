//! `write`: a canonical session → the rows hermes-agent 0.19.0 keeps for it
//! in `state.db`, as an export (`crate::export`: `messages.jsonl` streamed,
//! `session.json` at the end). The rows are filled the way Hermes fills
//! them (`SessionDB.append_message`, `import_sessions`):
//!
//! - `user` → a `user` row; `assistant` (with the `reasoning` before it and
//!   the `tool_call`s after it) → one `assistant` row: `content` (NULL when
//!   it only calls tools), `reasoning`, `tool_calls` as Hermes stores them
//!   (`json.dumps` of `[{id, call_id, type: "function", function: {name,
//!   arguments}}]`, arguments a JSON string), `finish_reason`;
//!   `tool_result` → a `tool` row with `tool_call_id` and `tool_name`.
//! - Hermes replays the rows to a chat-completions API: an assistant row's
//!   calls are answered by the tool rows right after it. A call still
//!   unanswered when the conversation moves on gets an error result
//!   (`synthesized`); a result of an unknown or answered call is
//!   `not-carried`.
//! - The session row: `source` `cli` (what `hermes sessions list` and
//!   `--resume` show), `model` (the user's `--model`, else the first
//!   assistant model), `cwd`, `git_branch`, `title`, `started_at`, the
//!   counters Hermes keeps (`message_count`, `tool_call_count`) and the
//!   source's usage summed into the session's token totals (Hermes records
//!   usage per session only). `system_prompt` only from a Hermes source:
//!   Hermes reuses a stored prompt verbatim, so another harness's would
//!   replace Hermes' own tools and rules; NULL makes Hermes build its own.
//!
//! Not carried (`not-carried`, with a count): `system-prompt` of another
//! harness, `system-message` (a Hermes system record after the prompt),
//! `attachments`, `observation/<subtype>`, `usage` (per message; kept as
//! session totals), `model` (an assistant model other than the session's),
//! `message-id`, `reasoning-signature` (another harness's opaque reasoning
//! beside its text), `subagent-transcript`. Opaque reasoning of another
//! harness with no text: `untranslated-reasoning`.
//!
//! A compaction is what Hermes' `archive_and_compact` leaves: a `user` row
//! `[CONTEXT SUMMARY]: <summary>` (a summary prefix Hermes recognizes),
//! the rows before it archived (`active` 0, `compacted` 1: history Hermes
//! shows but no longer sends). The summary row carries
//! [`ARCHIVES_EARLIER`] in the export; `prepare` applies it.
//!
//! The session id is `options.native_id` (letters, digits, `_`, `-`), else
//! Hermes' shape `YYYYMMDD_HHMMSS_<6 hex>` from the start time (UTC) and the
//! SHA-256 of the `meta` line: the same document gives the same bytes.

use serde::Serialize;
use serde_json::Value as Json;
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Reasoning, Record, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::time::{Civil, epoch_secs, parse_rfc3339};
use trajhost_codec_sdk::writer::{CanonicalInput, OpenCalls, ids};
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WriteOptions, Written};

use crate::HARNESS;
use crate::export::{self, is_session_id};

/// `sessions.source` of a written session.
pub const SOURCE: &str = "cli";
/// Content of a tool row written for a call whose result was not recorded.
pub const MISSING_RESULT: &str = "[trajhost: no result was recorded for this tool call]";
/// What opens a compaction summary Hermes writes as a message (its
/// `LEGACY_SUMMARY_PREFIX`, which it still recognizes as a summary).
pub const SUMMARY_PREFIX: &str = "[CONTEXT SUMMARY]:";
/// Export-only member of a summary row: `prepare` archives the rows before
/// it (`active` 0, `compacted` 1) as Hermes' `archive_and_compact` does.
pub const ARCHIVES_EARLIER: &str = "_archives_earlier";

/// The writer for `Hermes::write`.
pub fn writer(options: WriteOptions) -> Box<dyn SessionWriter> {
    Box::new(Writer::new(options))
}

/// The session, known once `meta` (or the first record) arrived.
struct Session {
    id: String,
    same_harness: bool,
    cwd: Option<String>,
    title: Option<String>,
    git_branch: Option<String>,
}

/// An assistant row being assembled.
#[derive(Default)]
struct Message {
    text: Option<String>,
    reasoning: Vec<String>,
    reasoning_details: Option<String>,
    calls: Vec<(String, String, String)>,
    finish_reason: Option<String>,
    ts: f64,
}

/// Session totals of the source's usage.
#[derive(Default)]
struct Totals {
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
    reasoning: u64,
}

pub struct Writer {
    options: WriteOptions,
    /// The canonical lines read.
    input: CanonicalInput,
    session: Option<Session>,
    system_prompt: Option<String>,
    seen_message: bool,
    model: Option<String>,
    started: Option<f64>,
    last_ts: f64,
    open: Option<Message>,
    /// Written calls awaiting a result: (id, tool name).
    pending: OpenCalls<String>,
    message_count: i64,
    tool_call_count: i64,
    totals: Totals,
    lines: Vec<u8>,
    diags: Diagnostics,
}

/// One `messages` row of the export, in Hermes' column order.
#[derive(Serialize)]
struct MessageRow<'a> {
    session_id: &'a str,
    role: &'a str,
    content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_name: Option<&'a str>,
    timestamp: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    finish_reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_details: Option<&'a str>,
    observed: i64,
    active: i64,
    #[serde(rename = "_archives_earlier", skip_serializing_if = "Option::is_none")]
    archives_earlier: Option<i64>,
}

impl<'a> MessageRow<'a> {
    fn of(session_id: &'a str, role: &'a str, content: Option<&'a str>, timestamp: f64) -> MessageRow<'a> {
        MessageRow {
            session_id,
            role,
            content,
            tool_call_id: None,
            tool_calls: None,
            tool_name: None,
            timestamp,
            finish_reason: None,
            reasoning: None,
            reasoning_details: None,
            observed: 0,
            active: 1,
            archives_earlier: None,
        }
    }
}

/// The `sessions` row of the export.
#[derive(Serialize)]
struct SessionRow<'a> {
    id: &'a str,
    source: &'a str,
    model: Option<&'a str>,
    system_prompt: Option<&'a str>,
    started_at: f64,
    message_count: i64,
    tool_call_count: i64,
    input_tokens: u64,
    output_tokens: u64,
    cache_read_tokens: u64,
    cache_write_tokens: u64,
    reasoning_tokens: u64,
    cwd: Option<&'a str>,
    git_branch: Option<&'a str>,
    title: Option<&'a str>,
}

impl Writer {
    pub fn new(options: WriteOptions) -> Writer {
        Writer {
            options,
            input: CanonicalInput::new(),
            session: None,
            system_prompt: None,
            seen_message: false,
            model: trajhost_codec_sdk::target::choice().model,
            started: None,
            last_ts: 0.0,
            open: None,
            pending: OpenCalls::new(),
            message_count: 0,
            tool_call_count: 0,
            totals: Totals::default(),
            lines: Vec::new(),
            diags: Diagnostics::new(),
        }
    }

    fn start(&mut self, meta: Option<&Meta>, meta_line: &str) -> Result<(), CodecError> {
        self.started = meta.and_then(|m| m.started_at.as_deref()).and_then(parse_rfc3339).map(epoch_secs);
        if let Some(s) = self.started {
            self.last_ts = s;
        }
        let id = match self.options.native_id.as_deref() {
            Some(id) if is_session_id(id) => id.to_string(),
            Some(id) => {
                return Err(CodecError::Other(format!(
                    "write-options.native-id {id:?} is not a Hermes session id (letters, digits, '_', '-')"
                )));
            }
            None => session_id(self.started.unwrap_or(0.0), meta_line.as_bytes()),
        };
        let cwd = self.options.cwd.clone().or_else(|| meta.and_then(|m| m.cwd.clone())).filter(|c| !c.is_empty());
        if cwd.is_none() {
            self.diags.add("no-cwd", Severity::Warning, "sessions.cwd", None, None);
        }
        self.session = Some(Session {
            id,
            same_harness: meta.is_some_and(|m| m.harness == HARNESS),
            cwd,
            title: meta.and_then(|m| m.title.as_deref()).and_then(title_of),
            git_branch: meta.and_then(|m| m.git_branch.clone()).filter(|b| !b.is_empty()),
        });
        Ok(())
    }

    fn id(&self) -> String {
        self.session.as_ref().map(|s| s.id.clone()).unwrap_or_default()
    }

    fn same_harness(&self) -> bool {
        self.session.as_ref().is_some_and(|s| s.same_harness)
    }

    fn clock(&mut self, ts: Option<&str>) -> f64 {
        if let Some(ms) = ts.and_then(parse_rfc3339) {
            self.last_ts = epoch_secs(ms);
            self.started.get_or_insert(self.last_ts);
        }
        self.last_ts
    }

    fn line(&mut self, row: &MessageRow<'_>) {
        if let Ok(line) = serde_json::to_vec(row) {
            self.lines.extend_from_slice(&line);
            self.lines.push(b'\n');
            self.message_count += 1;
        }
    }

    fn record(&mut self, record: Record) -> Result<(), CodecError> {
        if record.agent.is_some() {
            if matches!(record.body, Body::Meta(_)) {
                self.diags.not_carried("subagent-transcript");
            }
            return Ok(());
        }
        let ts = record.ts.clone();
        match record.body {
            Body::Meta(_) => self.diags.not_carried("additional-meta"),
            Body::System { text } => {
                if self.same_harness() && self.system_prompt.is_none() && !self.seen_message {
                    self.system_prompt = Some(text);
                } else if self.same_harness() {
                    self.diags.not_carried("system-message");
                } else {
                    self.diags.not_carried("system-prompt");
                }
            }
            Body::User { text, attachments } => {
                for _ in &attachments {
                    self.diags.not_carried("attachments");
                }
                if text.trim().is_empty() {
                    self.diags.not_carried("empty-user-turn");
                    return Ok(());
                }
                let ts = self.clock(ts.as_deref());
                self.close_model_side(ts);
                self.user(&text, ts);
            }
            Body::Observation { subtype, .. } => {
                let subtype = subtype.split('/').next().unwrap_or(&subtype).to_string();
                self.diags.not_carried(&format!("observation/{subtype}"));
            }
            Body::Reasoning(r) => {
                let ts = self.clock(ts.as_deref());
                self.reasoning(r, ts);
            }
            Body::Assistant(a) => {
                let ts = self.clock(ts.as_deref());
                self.assistant(a, ts);
            }
            Body::ToolCall { call_id, name, arguments } => {
                let ts = self.clock(ts.as_deref());
                if self.open.is_none() {
                    self.settle_pending(ts);
                    self.open = Some(Message { ts, ..Message::default() });
                }
                let arguments = match arguments {
                    Json::String(s) => s,
                    other => serde_json::to_string(&other).unwrap_or_default(),
                };
                if let Some(open) = self.open.as_mut() {
                    open.calls.push((call_id, name, arguments));
                }
            }
            Body::ToolResult { call_id, content, .. } => {
                let ts = self.clock(ts.as_deref());
                self.flush_message();
                let name = match self.pending.answer(&call_id) {
                    Ok(name) => name,
                    Err(unmatched) => {
                        self.diags.not_carried(unmatched.detail());
                        return Ok(());
                    }
                };
                self.tool_row(&call_id, &name, &content, ts);
            }
            Body::Compaction { summary, .. } => {
                let ts = self.clock(ts.as_deref());
                self.close_model_side(ts);
                self.seen_message = true;
                let id = self.id();
                let content = format!("{SUMMARY_PREFIX} {summary}");
                let row = MessageRow { archives_earlier: Some(1), ..MessageRow::of(&id, "user", Some(&content), ts) };
                self.line(&row);
            }
        }
        Ok(())
    }

    fn user(&mut self, text: &str, ts: f64) {
        self.seen_message = true;
        let id = self.id();
        self.line(&MessageRow::of(&id, "user", Some(text), ts));
    }

    fn reasoning(&mut self, r: Reasoning, ts: f64) {
        let text = r.text.filter(|t| !t.is_empty());
        let same = self.same_harness();
        let had_opaque = r.opaque.is_some();
        // Hermes keeps provider reasoning items as JSON (`reasoning_details`);
        // only a Hermes source's can go back to its provider.
        let details = r.opaque.filter(|o| same && serde_json::from_str::<Json>(o).is_ok_and(|v| v.is_array()));
        if text.is_none() && details.is_none() {
            if had_opaque {
                self.diags.add(
                    "untranslated-reasoning",
                    Severity::Warning,
                    "opaque reasoning of another harness (Hermes would send it to its own provider)",
                    None,
                    None,
                );
            }
            return;
        }
        if had_opaque && details.is_none() {
            self.diags.not_carried("reasoning-signature");
        }
        if self.open.as_ref().is_none_or(|m| m.text.is_some() || !m.calls.is_empty()) {
            self.flush_message();
            self.settle_pending(ts);
            self.open = Some(Message { ts, ..Message::default() });
        }
        if let Some(open) = self.open.as_mut() {
            if let Some(text) = text {
                open.reasoning.push(text);
            }
            if open.reasoning_details.is_none() {
                open.reasoning_details = details;
            }
        }
    }

    fn assistant(&mut self, a: Assistant, ts: f64) {
        match (&self.model, &a.model) {
            (None, Some(m)) => self.model = Some(m.clone()),
            (Some(s), Some(m)) if s != m => self.diags.not_carried("model"),
            _ => {}
        }
        if a.message_id.is_some() {
            self.diags.not_carried("message-id");
        }
        if let Some(u) = &a.usage {
            self.add_usage(u);
        }
        // The text of a message whose calls came first joins it, so its
        // calls stay right before their results.
        if self.open.as_ref().is_none_or(|m| m.text.is_some()) {
            self.flush_message();
            self.settle_pending(ts);
            self.open = Some(Message { ts, ..Message::default() });
        }
        if let Some(open) = self.open.as_mut() {
            open.text = Some(a.text);
            open.finish_reason = a.stop_reason;
        }
    }

    fn add_usage(&mut self, u: &Usage) {
        self.diags.not_carried("usage");
        let t = &mut self.totals;
        t.input += u.input.unwrap_or(0);
        t.output += u.output.unwrap_or(0);
        t.cache_read += u.cache_read.unwrap_or(0);
        t.cache_write += u.cache_write.unwrap_or(0);
        t.reasoning += u.reasoning.unwrap_or(0);
    }

    fn close_model_side(&mut self, ts: f64) {
        self.flush_message();
        self.settle_pending(ts);
    }

    fn settle_pending(&mut self, ts: f64) {
        for (id, name) in self.pending.close_all() {
            self.diags.add("synthesized", Severity::Warning, "missing-tool-result", None, None);
            self.tool_row(&id, &name, MISSING_RESULT, ts);
        }
    }

    fn tool_row(&mut self, call_id: &str, name: &str, content: &str, ts: f64) {
        let id = self.id();
        let row = MessageRow {
            tool_call_id: Some(call_id),
            tool_name: Some(name).filter(|n| !n.is_empty()),
            ..MessageRow::of(&id, "tool", Some(content), ts)
        };
        self.line(&row);
    }

    /// Writes the open assistant row.
    fn flush_message(&mut self) {
        let Some(m) = self.open.take() else { return };
        let text = m.text.clone().unwrap_or_default();
        if m.reasoning.is_empty() && m.reasoning_details.is_none() && text.is_empty() && m.calls.is_empty() {
            if m.text.is_some() {
                self.diags.not_carried("empty-assistant-turn");
            }
            return;
        }
        self.seen_message = true;
        let tool_calls = (!m.calls.is_empty()).then(|| tool_calls_json(&m.calls));
        let reasoning = (!m.reasoning.is_empty()).then(|| m.reasoning.join("\n\n"));
        let id = self.id();
        let content = if text.is_empty() && !m.calls.is_empty() { None } else { Some(text.as_str()) };
        let row = MessageRow {
            tool_calls,
            finish_reason: m.finish_reason.as_deref().or(if m.calls.is_empty() { None } else { Some("tool_calls") }),
            reasoning: reasoning.as_deref(),
            reasoning_details: m.reasoning_details.as_deref(),
            ..MessageRow::of(&id, "assistant", content, m.ts)
        };
        self.line(&row);
        self.tool_call_count += m.calls.len() as i64;
        for (call_id, name, _) in m.calls {
            self.pending.open(call_id, name);
        }
    }

    fn session_json(&self) -> Vec<u8> {
        let s = self.session.as_ref();
        let row = SessionRow {
            id: s.map_or("", |s| s.id.as_str()),
            source: SOURCE,
            model: self.model.as_deref(),
            system_prompt: self.system_prompt.as_deref(),
            started_at: self.started.unwrap_or(self.last_ts),
            message_count: self.message_count,
            tool_call_count: self.tool_call_count,
            input_tokens: self.totals.input,
            output_tokens: self.totals.output,
            cache_read_tokens: self.totals.cache_read,
            cache_write_tokens: self.totals.cache_write,
            reasoning_tokens: self.totals.reasoning,
            cwd: s.and_then(|s| s.cwd.as_deref()),
            git_branch: s.and_then(|s| s.git_branch.as_deref()),
            title: s.and_then(|s| s.title.as_deref()),
        };
        let mut bytes = serde_json::to_vec_pretty(&row).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }

    fn take_lines(&mut self, out: &mut Vec<Artifact>) {
        if !self.lines.is_empty() {
            let path = export::messages_path(&self.id());
            out.push(Artifact { path, bytes: std::mem::take(&mut self.lines) });
        }
    }
}

impl SessionWriter for Writer {
    fn push(&mut self, records: &str) -> Result<Vec<Artifact>, CodecError> {
        for line in records.lines() {
            let Some(record) = self.input.record(line, &mut self.diags)? else { continue };
            if self.session.is_none() {
                match &record.body {
                    Body::Meta(meta) if record.agent.is_none() => {
                        self.start(Some(meta), line)?;
                        continue;
                    }
                    _ => self.start(None, line)?,
                }
            }
            self.record(record)?;
        }
        let mut out = Vec::new();
        self.take_lines(&mut out);
        Ok(out)
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        if self.session.is_none() {
            return Err(CodecError::Malformed("an empty canonical document: nothing to write".into()));
        }
        let ts = self.last_ts;
        self.close_model_side(ts);
        if self.started.is_none() {
            self.diags.add("no-timestamp", Severity::Warning, "sessions.started_at", None, None);
        }
        let mut out = Vec::new();
        self.take_lines(&mut out);
        let id = self.id();
        // An empty messages file too: prepare and read find the pair.
        if !out.iter().any(|a| a.path.ends_with(export::MESSAGES_FILE)) && self.message_count == 0 {
            out.push(Artifact { path: export::messages_path(&id), bytes: Vec::new() });
        }
        out.push(Artifact { path: export::session_path(&id), bytes: self.session_json() });
        Ok(Written { native_id: id, chunks: out, diagnostics: self.diags.drain() })
    }
}

/// `tool_calls` as Hermes stores it: Python's `json.dumps` of the OpenAI
/// call list (`", "` / `": "` separators, non-ASCII escaped).
pub fn tool_calls_json(calls: &[(String, String, String)]) -> String {
    #[derive(Serialize)]
    struct Function<'a> {
        name: &'a str,
        arguments: &'a str,
    }
    #[derive(Serialize)]
    struct Call<'a> {
        id: &'a str,
        call_id: &'a str,
        #[serde(rename = "type")]
        kind: &'static str,
        function: Function<'a>,
    }
    let calls: Vec<Call<'_>> = calls
        .iter()
        .map(|(id, name, arguments)| Call { id, call_id: id, kind: "function", function: Function { name, arguments } })
        .collect();
    String::from_utf8(python_json(&calls)).unwrap_or_default()
}

/// Python's `json.dumps` spacing and ASCII escaping.
pub use trajhost_codec_sdk::writer::python_json;

/// A title Hermes accepts (`SessionDB.sanitize_title`): control and
/// invisible characters removed, whitespace collapsed, at most 100
/// characters (longer ones are cut: Hermes refuses them).
pub fn title_of(title: &str) -> Option<String> {
    let kept: String = title
        .chars()
        .filter(|c| {
            !matches!(*c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}')
                && !matches!(*c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2069}')
                && !matches!(*c, '\u{feff}' | '\u{fffc}' | '\u{fff9}'..='\u{fffb}')
        })
        .collect();
    let collapsed = kept.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut: String = collapsed.chars().take(MAX_TITLE_CHARS).collect();
    let cut = cut.trim_end().to_string();
    (!cut.is_empty()).then_some(cut)
}

/// Hermes' `MAX_TITLE_LENGTH`.
pub const MAX_TITLE_CHARS: usize = 100;

/// `YYYYMMDD_HHMMSS_<6 hex>` (UTC) from epoch seconds and a digest of `seed`.
pub fn session_id(started: f64, seed: &[u8]) -> String {
    let c = Civil::from_ms((started * 1e3) as i64);
    let hex = ids::hex_prefix(&ids::sha256_of(&[seed]), 6);
    format!("{:04}{:02}{:02}_{:02}{:02}{:02}_{hex}", c.year, c.month, c.day, c.hour, c.minute, c.second)
}
