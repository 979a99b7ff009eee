//! Native records → canonical records.
//!
//! Every record's kind (`type`, `system/<subtype>` for system records) is
//! either mapped (see [`KNOWN_RECORD_TYPES`]) or counted in a diagnostic:
//! `unmapped-record-type` for kinds the codec knows and leaves out on
//! purpose, `unknown-record-type` for kinds it has never seen. Nothing is
//! dropped silently.

mod conversation;
mod meta;
mod system;

use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Body, Record, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::{Line, report_bad_line};
use trajhost_codec_sdk::known::report_unmapped;
use trajhost_codec_sdk::records::{BatchWriter, ParentLinks, location_id};

use crate::native::{self, Entry};

pub use meta::session_meta;

pub use trajhost_codec_sdk::known::Handling;

/// Every record kind Qwen Code is known to write (`ChatRecord.type` and the
/// system `subtype`s of `chatRecordingService.ts`).
pub const KNOWN_RECORD_TYPES: &[(&str, Handling)] = &[
    (
        "user",
        Handling::Mapped(
            "user (tool_result for functionResponse parts; observation notification for subtype notification)",
        ),
    ),
    ("assistant", Handling::Mapped("assistant, reasoning, tool_call")),
    ("tool_result", Handling::Mapped("tool_result")),
    ("system", Handling::Mapped("observation system")),
    ("system/chat_compression", Handling::Mapped("compaction")),
    ("system/custom_title", Handling::Mapped("observation custom_title, meta title")),
    ("system/slash_command", Handling::Mapped("observation slash_command/<phase>")),
    ("system/at_command", Handling::Mapped("observation at_command")),
    ("system/mid_turn_user_message", Handling::Mapped("user")),
    ("system/notification", Handling::Mapped("observation notification")),
    ("system/background_task_completed", Handling::Mapped("observation background_task_completed")),
    ("system/cron", Handling::Mapped("observation cron")),
    ("system/realtime_message", Handling::Mapped("observation realtime_message")),
    ("system/rewind", Handling::Mapped("observation rewind")),
    ("system/parent_session", Handling::Mapped("observation parent_session, meta parent_session")),
    ("system/session_model", Handling::Mapped("observation session_model")),
    ("system/session_approval_mode", Handling::Mapped("observation session_approval_mode")),
    // Telemetry (usage and tool timings repeated from the records above),
    // attribution and file-history snapshots, notes, goals, agent runtime
    // bookkeeping, managed-session envelopes.
    ("system/ui_telemetry", Handling::Reported),
    ("system/attribution_snapshot", Handling::Reported),
    ("system/file_history_snapshot", Handling::Reported),
    ("system/session_notes", Handling::Reported),
    ("system/session_source", Handling::Reported),
    ("system/session_sources_snapshot", Handling::Reported),
    ("system/session_execution_engine", Handling::Reported),
    ("system/session_artifact_event", Handling::Reported),
    ("system/session_artifact_snapshot", Handling::Reported),
    ("system/omni_recall", Handling::Reported),
    ("system/user_text_elements", Handling::Reported),
    ("system/agent_bootstrap", Handling::Reported),
    ("system/agent_launch_prompt", Handling::Reported),
    ("system/agent_retry", Handling::Reported),
    ("system/agent_session_ready", Handling::Reported),
    ("system/branch_checkpoint", Handling::Reported),
    ("system/goal_state", Handling::Reported),
    ("system/goal_runtime", Handling::Reported),
    ("system/goal_turn_end", Handling::Reported),
    ("system/turn_result", Handling::Reported),
    ("system/managed_session_header_v1", Handling::Reported),
    ("system/managed_session_event_v1", Handling::Reported),
    ("system/managed_session_commit_v1", Handling::Reported),
];

/// How `kind` is handled; `None` for a kind the codec has never seen.
pub fn handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_RECORD_TYPES, kind)
}

/// The kind of one record, as [`KNOWN_RECORD_TYPES`] names it.
pub fn record_type(entry: &Entry) -> String {
    entry.record_type()
}

/// Where records and diagnostics go.
pub struct Out<'a> {
    pub writer: &'a mut BatchWriter,
    pub diags: &'a mut Diagnostics,
    /// The granted home, for spilled tool outputs.
    pub home: &'a Dir,
}

/// The reading state of one transcript (kept with a resume point).
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Transcript {
    file: String,
    links: ParentLinks,
    /// The last timestamp seen: the time of records that carry none.
    last_ts: Option<String>,
    /// The first `version` seen, to report a mid-file change once per change.
    version: Option<String>,
}

impl Transcript {
    pub fn new(file: String) -> Transcript {
        Transcript { file, links: ParentLinks::new(), last_ts: None, version: None }
    }

    /// Maps one line.
    pub fn line(&mut self, line: &Line<'_>, out: &mut Out<'_>) {
        let span = Span { offset: line.offset, len: line.len };
        let entry = match native::parse(line.bytes) {
            Ok(entry) => entry,
            Err(_) => {
                // Records glued on one line are read one by one, each with its own span.
                if let Some(ranges) = native::glued(line.bytes) {
                    out.diags.add("glued-records", Severity::Info, "json", Some(&self.file), Some(line.offset));
                    for (start, end) in ranges {
                        let Ok(entry) = native::parse(&line.bytes[start..end]) else { continue };
                        let span = Span { offset: line.offset + start as u64, len: (end - start) as u64 };
                        self.entry(entry, span, out);
                    }
                    return;
                }
                report_bad_line(out.diags, line, "json", &self.file);
                return;
            }
        };
        self.entry(entry, span, out);
    }

    /// Maps one record.
    fn entry(&mut self, entry: Entry, span: Span, out: &mut Out<'_>) {
        if let Some(ts) = &entry.timestamp {
            self.last_ts = Some(ts.clone());
        }
        if let Some(version) = entry.version.as_deref().filter(|v| !v.is_empty()) {
            match &self.version {
                Some(v) if v != version => {
                    out.diags.add(
                        "native-version-changed",
                        Severity::Info,
                        "version",
                        Some(&self.file),
                        Some(span.offset),
                    );
                    self.version = Some(version.to_string());
                }
                None => self.version = Some(version.to_string()),
                _ => {}
            }
        }
        let kind = entry.record_type();
        let emitted = match handling(&kind) {
            Some(Handling::Mapped(_)) => match entry.kind.as_deref() {
                Some("user") => conversation::user(self, &entry, span, out),
                Some("assistant") => conversation::assistant(self, &entry, span, out),
                Some("tool_result") => conversation::tool_result(self, &entry, span, out),
                _ => system::map(self, &entry, span, out),
            },
            Some(Handling::Reported) => {
                report_unmapped(out.diags, Some(Handling::Reported), &kind, &self.file, span.offset);
                false
            }
            None => {
                report_unmapped(out.diags, None, &type_name(Some(&kind)), &self.file, span.offset);
                false
            }
        };
        if !emitted && let Some(uuid) = entry.uuid.as_deref() {
            // Nothing came of this record: its children hang off its parent.
            let parent = self.links.resolve(entry.parent_uuid.as_deref());
            self.links.alias(uuid, parent);
        }
    }

    /// The id of the `index`th record a line yields: its uuid, else its
    /// byte location.
    fn line_id(&self, entry: &Entry, span: Span, index: usize) -> String {
        match entry.uuid.as_deref().filter(|u| !u.is_empty()) {
            Some(uuid) if index == 0 => uuid.to_string(),
            Some(uuid) => format!("{uuid}#{index}"),
            None => location_id(&self.file, span.offset, index),
        }
    }

    fn parent(&self, entry: &Entry) -> Option<String> {
        self.links.resolve(entry.parent_uuid.as_deref())
    }

    fn ts(&self, entry: &Entry) -> Option<String> {
        entry.timestamp.clone().or_else(|| self.last_ts.clone())
    }

    fn record(&self, entry: &Entry, id: String, body: Body, parent: Option<String>, span: Span) -> Record {
        let agent = entry.agent_id.clone().filter(|a| !a.is_empty() && entry.is_sidechain != Some(false));
        Record {
            id,
            body,
            parent,
            ts: self.ts(entry),
            agent,
            src: Some(SourceSpan { file: self.file.clone(), offset: span.offset, len: span.len }),
        }
    }
}

pub use trajhost_codec_sdk::records::Span;
pub use trajhost_codec_sdk::text::type_name;
