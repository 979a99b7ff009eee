//! Native lines → canonical records.
//!
//! Every line's `type` is either mapped (see [`KNOWN_RECORD_TYPES`]) or
//! counted in a diagnostic: `unmapped-record-type` for types the codec
//! knows and leaves out on purpose, `unknown-record-type` for types it has
//! never seen. Nothing is dropped silently.

mod message;
mod meta;

use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Body, Record, SourceSpan};
use trajhost_codec_sdk::jsonl::{Line, report_bad_line};
use trajhost_codec_sdk::records::{Lines, ParentLinks, location_id};

use crate::native::{self, Entry};

pub use meta::session_meta;

pub use trajhost_codec_sdk::known::Handling;

/// Every line `type` Factory Droid is known to write (0.225–0.229).
pub const KNOWN_RECORD_TYPES: &[(&str, Handling)] = &[
    ("session_start", Handling::Mapped("meta")),
    ("message", Handling::Mapped("user, observation context, tool_result; assistant, reasoning, tool_call")),
    ("compaction_state", Handling::Mapped("compaction (observation when it holds no summary)")),
    // Turn bookkeeping (how each agent turn ended), the todo list, settings
    // revisions and the end marker.
    ("agent_turn_outcome", Handling::Reported),
    ("todo_state", Handling::Reported),
    ("session_settings", Handling::Reported),
    ("session_end", Handling::Reported),
];

/// How `kind` is handled; `None` for a type the codec has never seen.
pub fn handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_RECORD_TYPES, kind)
}

/// The reading state of one session file.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Transcript {
    /// The session's head once no later line can change it: a resumed read
    /// makes `meta` from it without reading the head again.
    pub settled_head: Option<crate::head::Head>,
    file: String,
    links: ParentLinks,
    /// `session_start` lines seen.
    starts: u32,
    last_ts: Option<String>,
}

impl Transcript {
    pub fn new(file: String) -> Transcript {
        Transcript { settled_head: None, file, links: ParentLinks::new(), starts: 0, last_ts: None }
    }

    /// The id of the `index`th record a line yields: its native id, else
    /// its byte location.
    fn line_id(&self, entry: &Entry, span: Span, index: usize) -> String {
        match entry.id.as_deref().filter(|i| !i.is_empty()) {
            Some(id) if index == 0 => id.to_string(),
            Some(id) => format!("{id}#{index}"),
            None => location_id(&self.file, span.offset, index),
        }
    }

    fn record(&self, entry: &Entry, id: String, body: Body, parent: Option<String>, span: Span) -> Record {
        Record {
            id,
            body,
            parent,
            ts: entry.timestamp.clone().or_else(|| self.last_ts.clone()),
            agent: None,
            src: Some(SourceSpan { file: self.file.clone(), offset: span.offset, len: span.len }),
        }
    }
}

impl Lines for Transcript {
    fn save(&self) -> Option<Vec<u8>> {
        trajhost_codec_sdk::resume::save(self)
    }

    /// Maps one line.
    fn line(&mut self, line: &Line<'_>, out: &mut Out<'_>) {
        let span = Span { offset: line.offset, len: line.len };
        let entry = match native::parse(line.bytes) {
            Ok(entry) => entry,
            Err(_) => {
                report_bad_line(out.diags, line, "json", &self.file);
                return;
            }
        };
        if let Some(ts) = &entry.timestamp {
            self.last_ts = Some(ts.clone());
        }
        let kind = entry.kind.clone().unwrap_or_default();
        let emitted = match (kind.as_str(), handling(&kind)) {
            ("session_start", _) => {
                self.starts += 1;
                if self.starts > 1 {
                    out.diags.add(
                        "repeated-session-start",
                        Severity::Info,
                        "session_start",
                        Some(&self.file),
                        Some(span.offset),
                    );
                }
                false
            }
            ("message", _) => message::map(self, &entry, span, out),
            ("compaction_state", _) => {
                compaction(self, &entry, span, out);
                true
            }
            (_, Some(_)) => {
                out.unmapped(Some(Handling::Reported), &kind, &self.file, span.offset);
                false
            }
            (_, None) => {
                out.unmapped(None, &type_name(Some(&kind)), &self.file, span.offset);
                false
            }
        };
        if !emitted && let Some(id) = entry.id.as_deref().filter(|_| kind == "message") {
            let parent = self.links.resolve(entry.parent_id.as_deref());
            self.links.alias(id, parent);
        }
    }
}

/// `compaction_state`: the summary that replaces the history before it.
fn compaction(t: &mut Transcript, entry: &Entry, span: Span, out: &mut Out<'_>) {
    let summary = entry.summary_text.clone().or_else(|| entry.summary.clone()).filter(|s| !s.is_empty());
    let body = match summary {
        Some(summary) => Body::Compaction { summary, trigger: None },
        None => Body::Observation { subtype: "compaction_state".into(), text: None },
    };
    let record = t.record(entry, t.line_id(entry, span, 0), body, t.links.resolve(entry.parent_id.as_deref()), span);
    out.writer.push(&record);
}

pub use trajhost_codec_sdk::records::{Out, Span};
pub use trajhost_codec_sdk::text::type_name;
