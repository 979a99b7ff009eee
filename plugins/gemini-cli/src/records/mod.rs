//! Native lines → canonical records.
//!
//! Every line is either mapped (see [`KNOWN_RECORD_TYPES`]) or counted in a
//! diagnostic: `unmapped-record-type` for kinds the codec knows and leaves
//! out on purpose, `unknown-record-type` for kinds it has never seen.
//!
//! Gemini CLI writes a message again whenever it changes and repeats whole
//! histories in `$set.messages`, so records are emitted under ids derived
//! from native ids (message id, tool call id, `<callId>#result`,
//! `<messageId>#thought<n>`) and each id once: a repeat adds only what is
//! new (tool calls attached later, messages a checkpoint introduces). The
//! last version of a message written in a row is the one mapped.

mod message;
mod meta;

use std::collections::{BTreeMap, BTreeSet};

use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Body, Record, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::{Line, report_bad_line};
use trajhost_codec_sdk::records::{BatchWriter, location_id};

use crate::layout::SessionPaths;
use crate::native::{self, LineKind};

pub use meta::{child_meta, session_meta};

pub use trajhost_codec_sdk::known::Handling;

/// Every kind of line Gemini CLI (0.39–0.61) is known to write. Message
/// records are named by their `type`; `$set` patches by the key they set.
pub const KNOWN_RECORD_TYPES: &[(&str, Handling)] = &[
    ("session-header", Handling::Mapped("meta (first), observation resume (later ones)")),
    (
        "user",
        Handling::Mapped(
            "user, tool_result (when not already read from the call), observation session_context/hook_context",
        ),
    ),
    ("gemini", Handling::Mapped("assistant, reasoning, tool_call, tool_result")),
    // The API's role name, which some third-party writers use for `gemini`.
    ("model", Handling::Mapped("as gemini")),
    ("info", Handling::Mapped("observation info")),
    ("warning", Handling::Mapped("observation warning")),
    ("error", Handling::Mapped("observation error")),
    ("$set.messages", Handling::Mapped("the records of messages not read before")),
    ("$set.summary", Handling::Mapped("observation summary, meta title")),
    ("$rewindTo", Handling::Mapped("observation rewind")),
    // Session bookkeeping: the header fields again, the memory scratchpad,
    // added workspace directories, the active extension.
    ("$set.lastUpdated", Handling::Reported),
    ("$set.sessionId", Handling::Reported),
    ("$set.startTime", Handling::Reported),
    ("$set.projectHash", Handling::Reported),
    ("$set.kind", Handling::Reported),
    ("$set.directories", Handling::Reported),
    ("$set.memoryScratchpad", Handling::Reported),
    ("$set.activeExtensionName", Handling::Reported),
];

/// How `kind` is handled; `None` for a kind the codec has never seen.
pub fn handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_RECORD_TYPES, kind)
}

/// The record kinds of one line, as [`KNOWN_RECORD_TYPES`] names them (a
/// `$set` line has one per key).
pub fn record_types(line: &native::Line) -> Vec<String> {
    match line.kind() {
        LineKind::Header => vec!["session-header".into()],
        LineKind::Message(kind) => vec![kind.to_string()],
        LineKind::Rewind => vec!["$rewindTo".into()],
        LineKind::Set => {
            let set = line.set.as_ref().expect("a $set line");
            let mut kinds = Vec::new();
            if set.messages.is_some() {
                kinds.push("$set.messages".to_string());
            }
            if set.summary.is_some() {
                kinds.push("$set.summary".to_string());
            }
            kinds.extend(set.other.keys().map(|k| format!("$set.{k}")));
            kinds
        }
        LineKind::Unrecognized => vec!["(unrecognized line)".into()],
    }
}

/// Where records and diagnostics go.
pub struct Out<'a> {
    pub writer: &'a mut BatchWriter,
    pub diags: &'a mut Diagnostics,
    /// The granted home, for spilled tool outputs.
    pub home: &'a Dir,
}

/// The reading state of one session file (the main one or a subagent's),
/// kept with a resume point: the pending message travels as its line's
/// text and is parsed again ([`Transcript::restored`]).
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Transcript {
    /// The file, relative to the home: what `src.file` says.
    file: String,
    /// The subagent's session id, for records of a subagent file.
    agent: Option<String>,
    paths: SessionPaths,
    /// Ids of the records emitted so far.
    emitted: BTreeSet<String>,
    /// The last message line, until a line about another message comes.
    #[serde(skip)]
    pending: Option<(native::Line, Span)>,
    /// The pending message's line as it was read.
    pending_line: Option<(String, Span)>,
    /// Header lines seen.
    headers: u32,
    /// The last timestamp seen: the time of lines that carry none.
    last_ts: Option<String>,
    /// `toolCalls[].agentId` → call id, for subagent metas.
    pub agent_calls: BTreeMap<String, String>,
}

impl Transcript {
    pub fn new(file: String, agent: Option<String>, paths: SessionPaths) -> Transcript {
        Transcript {
            file,
            agent,
            paths,
            emitted: BTreeSet::new(),
            pending: None,
            pending_line: None,
            headers: 0,
            last_ts: None,
            agent_calls: BTreeMap::new(),
        }
    }

    /// Maps one line.
    pub fn line(&mut self, line: &Line<'_>, out: &mut Out<'_>) {
        let span = Span { offset: line.offset, len: line.len };
        let parsed = match native::parse(line.bytes) {
            Ok(parsed) => parsed,
            Err(_) => {
                report_bad_line(out.diags, line, "json", &self.file);
                return;
            }
        };
        match parsed.kind() {
            LineKind::Message(_) => {
                let same = self.pending.as_ref().is_some_and(|(p, _)| p.id == parsed.id);
                if !same {
                    self.flush(out);
                }
                if let Some(ts) = &parsed.timestamp {
                    self.last_ts = Some(ts.clone());
                }
                self.pending = Some((parsed, span));
                self.pending_line = Some((String::from_utf8_lossy(line.bytes).into_owned(), span));
            }
            LineKind::Header => {
                self.flush(out);
                self.headers += 1;
                if self.headers > 1 {
                    // Gemini CLI writes the header again when it resumes the session.
                    let ts = parsed.start_time.clone().or_else(|| self.last_ts.clone());
                    let body = Body::Observation { subtype: "resume".into(), text: None };
                    let record = self.record(location_id(&self.file, span.offset, 0), body, None, ts, span);
                    self.push(record, out);
                }
            }
            LineKind::Rewind => {
                self.flush(out);
                let target = parsed.rewind_to.clone().unwrap_or_default();
                let body = Body::Observation { subtype: "rewind".into(), text: Some(target) };
                let record =
                    self.record(location_id(&self.file, span.offset, 0), body, None, self.last_ts.clone(), span);
                self.push(record, out);
            }
            LineKind::Set => self.set(parsed, span, out),
            LineKind::Unrecognized => {
                out.diags.add(
                    "unknown-record-type",
                    Severity::Warning,
                    "(unrecognized line)",
                    Some(&self.file),
                    Some(span.offset),
                );
            }
        }
    }

    /// A `$set` patch.
    fn set(&mut self, parsed: native::Line, span: Span, out: &mut Out<'_>) {
        let Some(set) = parsed.set else { return };
        if let Some(messages) = set.messages {
            // A checkpoint: the whole list again, with what changed.
            self.flush(out);
            for message in &messages {
                match message.kind() {
                    LineKind::Message(_) => self.message(message, span, out),
                    _ => out.diags.add(
                        "unknown-record-type",
                        Severity::Warning,
                        "$set.messages/(not a message)",
                        Some(&self.file),
                        Some(span.offset),
                    ),
                }
            }
        }
        if let Some(summary) = set.summary {
            let body = Body::Observation { subtype: "summary".into(), text: Some(summary) };
            let record = self.record(location_id(&self.file, span.offset, 0), body, None, self.last_ts.clone(), span);
            self.push(record, out);
        }
        for key in set.other.keys() {
            let kind = format!("$set.{}", type_name(Some(key)));
            let (code, severity) = match handling(&kind) {
                Some(Handling::Reported) => ("unmapped-record-type", Severity::Info),
                Some(Handling::Mapped(_)) => continue,
                None => ("unknown-record-type", Severity::Warning),
            };
            out.diags.add(code, severity, &kind, Some(&self.file), Some(span.offset));
        }
    }

    /// Emits the pending message.
    fn flush(&mut self, out: &mut Out<'_>) {
        self.pending_line = None;
        if let Some((message, span)) = self.pending.take() {
            self.message(&message, span, out);
        }
    }

    /// Maps one message record (from a line or a checkpoint).
    fn message(&mut self, message: &native::Line, span: Span, out: &mut Out<'_>) {
        match message.kind.as_deref().unwrap_or("") {
            "user" => message::user(self, message, span, out),
            "gemini" | "model" => message::gemini(self, message, span, out),
            kind @ ("info" | "warning" | "error") => message::notice(self, kind, message, span, out),
            other => {
                let kind = type_name(Some(other));
                out.diags.add("unknown-record-type", Severity::Warning, &kind, Some(&self.file), Some(span.offset));
            }
        }
    }

    /// The state a resume point carried, its pending message parsed again.
    pub fn restored(mut self) -> Transcript {
        self.pending = self
            .pending_line
            .as_ref()
            .and_then(|(text, span)| native::parse(text.as_bytes()).ok().map(|line| (line, *span)));
        self
    }

    /// End of file: emits what is pending.
    pub fn finish(&mut self, out: &mut Out<'_>) {
        self.flush(out);
    }

    /// Pushes a record unless a record with its id went out before.
    fn push(&mut self, record: Record, out: &mut Out<'_>) -> bool {
        if self.emitted.contains(&record.id) {
            return false;
        }
        self.emitted.insert(record.id.clone());
        out.writer.push(&record);
        true
    }

    fn was_emitted(&self, id: &str) -> bool {
        self.emitted.contains(id)
    }

    fn record(&self, id: String, body: Body, parent: Option<String>, ts: Option<String>, span: Span) -> Record {
        Record {
            id,
            body,
            parent,
            ts,
            agent: self.agent.clone(),
            src: Some(SourceSpan { file: self.file.clone(), offset: span.offset, len: span.len }),
        }
    }
}

pub use trajhost_codec_sdk::records::Span;
pub use trajhost_codec_sdk::text::type_name;
