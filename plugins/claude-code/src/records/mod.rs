//! Native record types → canonical records, one module per record family.
//!
//! Every line's top-level `type` is either mapped (see [`KNOWN_RECORD_TYPES`])
//! or counted in a diagnostic: `unmapped-record-type` for types the codec
//! knows and leaves out on purpose, `unknown-record-type` for types it has
//! never seen. Nothing is dropped silently.
//!
//! Records go out in file order, with two exceptions that keep it in spirit:
//! lines that do not end a model response (bookkeeping such as `tools-used`,
//! `last-prompt`, `mode`) while one is being assembled go out after it, and
//! a response or a tool result is held (see [`Held`]) until a line that
//! starts something new, because a later line may still complete it: the
//! `cost-state` that prices the response, an attachment Claude Code
//! rendered into the tool result.

mod assistant;
mod bookkeeping;
mod branches;
mod meta;
mod other;
mod system;
mod user;

use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Body, Record, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::{BadLine, Line};
use trajhost_codec_sdk::known::report_unmapped;
use trajhost_codec_sdk::records::{BatchWriter, ParentLinks, location_id};

use crate::layout::SessionPaths;
use crate::native::{self, Entry};

pub use meta::{AgentMeta, session_meta, subagent_meta};
pub use user::is_interrupt_marker;

pub use trajhost_codec_sdk::known::Handling;
pub use trajhost_codec_sdk::records::Span;

/// Every top-level `type` Claude Code is known to write (2.1.x session
/// writer, plus `progress` and `summary` of older builds).
pub const KNOWN_RECORD_TYPES: &[(&str, Handling)] = &[
    ("user", Handling::Mapped("user, tool_result, compaction, observation meta-user")),
    ("assistant", Handling::Mapped("assistant, reasoning, tool_call, tool_result, observation")),
    ("system", Handling::Mapped("observation system/<subtype>")),
    ("attachment", Handling::Mapped("observation attachment/<type>")),
    ("summary", Handling::Mapped("observation summary")),
    ("custom-title", Handling::Mapped("observation custom-title")),
    ("ai-title", Handling::Mapped("observation ai-title")),
    ("agent-name", Handling::Mapped("observation agent-name")),
    ("queue-operation", Handling::Mapped("observation queue-operation/<operation>")),
    ("mode", Handling::Mapped("observation mode")),
    ("permission-mode", Handling::Mapped("observation permission-mode")),
    ("pr-link", Handling::Mapped("observation pr-link")),
    // Claude Code 2.1.33x's request log and accounting.
    ("api-request", Handling::Mapped("observation model-request (the assistant records it produced answer it)")),
    ("api-request-blob", Handling::Mapped("counted in the observation model-request of the requests that send it")),
    ("api-request-shape", Handling::Mapped("observation api-request-shape")),
    ("tools-used", Handling::Mapped("observation tools-used")),
    ("atis-latch", Handling::Mapped("observation atis-latch")),
    ("cost-state", Handling::Mapped("usage.cost_usd of the response it prices, else observation usage")),
    ("continued-in", Handling::Mapped("observation continued-in; discover links the sessions")),
    // Bookkeeping of the harness itself: prompt-history pointer, undo
    // checkpoints, UI and session settings, streaming progress, request logs.
    ("last-prompt", Handling::Reported),
    ("progress", Handling::Reported),
    ("file-history-snapshot", Handling::Reported),
    ("file-history-delta", Handling::Reported),
    ("attribution-snapshot", Handling::Reported),
    ("content-replacement", Handling::Reported),
    ("agent-color", Handling::Reported),
    ("agent-setting", Handling::Reported),
    ("tag", Handling::Reported),
    ("relocated", Handling::Reported),
    ("ended-by-model", Handling::Reported),
    ("memory-mode", Handling::Reported),
    ("isolation-latch", Handling::Reported),
    ("dev-mods", Handling::Reported),
    ("bridge-session", Handling::Reported),
    ("frame-link", Handling::Reported),
    ("worktree-state", Handling::Reported),
    ("history-suppression", Handling::Reported),
    ("artifact-comment-monitor", Handling::Reported),
    ("artifact-autoreact-ledger", Handling::Reported),
    ("fork-context-ref", Handling::Reported),
    ("observer-ref", Handling::Reported),
    // Named by Claude Code 2.1.332's transcript reader, not seen written yet.
    ("api-request-resumed", Handling::Reported),
    ("resume-head-vouch", Handling::Reported),
    ("session-owner", Handling::Reported),
    ("data-flow-records", Handling::Reported),
    ("data-flow-incomplete", Handling::Reported),
    ("derived-from", Handling::Reported),
];

/// How `kind` is handled; `None` for a type the codec has never seen.
pub fn handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_RECORD_TYPES, kind)
}

/// Where records and diagnostics go.
pub struct Out<'a> {
    pub writer: &'a mut BatchWriter,
    pub diags: &'a mut Diagnostics,
    /// The granted home, for files records refer to (spilled tool output).
    pub home: &'a Dir,
}

impl Out<'_> {
    pub fn push(&mut self, record: Record) {
        self.writer.push(&record);
    }
}

/// The reading state of one transcript file (the main one or a subagent's).
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Transcript {
    /// The file, relative to the home: what `src.file` says.
    file: String,
    /// The subagent id for records of a subagent transcript.
    agent: Option<String>,
    /// The main session's paths (spilled tool outputs live there).
    paths: SessionPaths,
    links: ParentLinks,
    /// The last timestamp seen: the time of lines that carry none.
    last_ts: Option<String>,
    /// The first `version` seen, to report a mid-file upgrade once per change.
    version: Option<String>,
    /// `compactMetadata.trigger` of the last compact boundary, for the
    /// summary line that follows it.
    compact_trigger: Option<String>,
    assistant: assistant::State,
    /// A main transcript of older builds holds its subagents' lines inline
    /// (`isSidechain: true`): they are not this conversation's.
    skip_sidechains: bool,
    branches: branches::Branches,
    held: Held,
    /// The record the newest line with a `uuid` became: where the
    /// conversation stood when a request was sent.
    tip: Option<String>,
    requests: bookkeeping::Requests,
    costs: bookkeeping::Costs,
}

/// Records held back because a later line may still add to them: the last
/// response (a `cost-state` may price it) and the last tool result (an
/// attachment Claude Code rendered into it may follow). Everything after
/// them waits with them, so the order stays the file's. A line that starts
/// something new (a prompt, a tool result, a response, a queued prompt, a
/// compaction) releases them; so do [`MAX_HELD_RECORDS`] and
/// [`MAX_HELD_BYTES`].
#[derive(Default, serde::Serialize, serde::Deserialize)]
struct Held {
    records: Vec<Record>,
    bytes: usize,
    /// Index of the tool result rendered attachments go into.
    result: Option<usize>,
    /// Index of the response a `cost-state` may price.
    answer: Option<usize>,
}

const MAX_HELD_RECORDS: usize = 256;
const MAX_HELD_BYTES: usize = 8 << 20;

/// What a held record is there for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hold {
    Result,
    Answer,
}

/// Types whose lines leave a response being assembled open: they note
/// something about the session, and the next line of the response may
/// still follow them.
fn keeps_response_open(kind: &str, handling: Option<Handling>) -> bool {
    handling == Some(Handling::Reported)
        || bookkeeping::handles(kind)
        || matches!(kind, "mode" | "permission-mode" | "custom-title" | "ai-title" | "agent-name" | "pr-link")
}

/// Lines that start something new: held records go out before them.
fn releases_held(kind: &str, entry: &Entry<'_>) -> bool {
    match kind {
        "user" | "assistant" | "queue-operation" | "summary" => true,
        "system" => entry.subtype.get() == Some("compact_boundary"),
        _ => false,
    }
}

impl Transcript {
    pub fn new(file: String, agent: Option<String>, paths: SessionPaths) -> Transcript {
        Transcript {
            file,
            agent,
            paths,
            links: ParentLinks::new(),
            last_ts: None,
            version: None,
            compact_trigger: None,
            assistant: assistant::State::default(),
            skip_sidechains: false,
            branches: branches::Branches::default(),
            held: Held::default(),
            tip: None,
            requests: bookkeeping::Requests::default(),
            costs: bookkeeping::Costs::default(),
        }
    }

    /// Leaves out the sidechain lines of a main transcript whose own
    /// conversation is not a sidechain (older builds wrote a subagent's
    /// lines inline; Claude Code's main chain never includes them).
    pub fn skip_sidechains(&mut self, skip: bool) {
        self.skip_sidechains = skip;
    }

    /// Maps one line.
    pub fn line(&mut self, line: &Line<'_>, out: &mut Out<'_>) {
        let span = Span { offset: line.offset, len: line.len };
        let entry = match native::parse(line.bytes) {
            Ok(entry) => entry,
            Err(category) => {
                self.bad_line(line, category, out);
                return;
            }
        };
        if self.skip_sidechains && entry.is_sidechain.is_true() {
            // A subagent's line written inline: counted, and the chain
            // through it kept resolvable.
            out.diags.add(
                "inline-sidechain-line",
                Severity::Info,
                "isSidechain line in a main transcript (a subagent's conversation)",
                Some(&self.file),
                Some(span.offset),
            );
            if let Some(uuid) = entry.uuid.get() {
                let target = self.links.resolve(entry.parent_uuid.get());
                self.links.alias(uuid, target);
            }
            return;
        }
        self.branches.line(&entry, span.offset);
        let kind = entry.kind.get().unwrap_or("");
        let handling = handling(kind);
        // An assistant response split over several lines is one record; only
        // a line that emits records of its own ends it.
        let continues = kind == "assistant" && self.assistant.continues(&entry);
        if !continues && !keeps_response_open(kind, handling) {
            self.flush_assistant(out);
        }
        if !continues && releases_held(kind, &entry) {
            self.release(out);
        }
        self.note_version(&entry, span, out);
        match kind {
            "user" => user::map(self, &entry, span, out),
            "assistant" => assistant::map(self, &entry, span, out),
            "system" => system::map(self, &entry, span, out),
            "attachment" | "summary" | "custom-title" | "ai-title" | "agent-name" | "queue-operation" | "mode"
            | "permission-mode" | "pr-link" => other::map(self, kind, &entry, span, out),
            k if bookkeeping::handles(k) => bookkeeping::map(self, k, &entry, line.bytes, span, out),
            _ => {
                match handling {
                    Some(known) => report_unmapped(out.diags, Some(known), kind, &self.file, span.offset),
                    None => report_unmapped(out.diags, None, &type_name(entry.kind.get()), &self.file, span.offset),
                }
                // Keep parent chains that run through this line resolvable.
                if let Some(uuid) = entry.uuid.get() {
                    let target = self.links.resolve(entry.parent_uuid.get());
                    self.links.alias(uuid, target);
                }
            }
        }
        if let Some(uuid) = entry.uuid.get().filter(|u| !u.is_empty()) {
            self.tip = self.links.resolve(Some(uuid));
        }
        if let Some(ts) = entry.timestamp.get()
            && self.last_ts.as_deref() != Some(ts)
        {
            self.last_ts = Some(ts.to_string());
        }
    }

    /// Ends the file: emits what is still buffered.
    pub fn finish(&mut self, out: &mut Out<'_>) {
        self.flush_assistant(out);
        self.release(out);
        for offset in self.branches.abandoned_leaves() {
            out.diags.add(
                "unchosen-branch",
                Severity::Warning,
                "a branch Claude Code no longer resumes (a rewound prompt) ends here; the file holds both",
                Some(&self.file),
                Some(offset),
            );
        }
    }

    fn flush_assistant(&mut self, out: &mut Out<'_>) {
        if let Some(group) = self.assistant.take() {
            assistant::emit(self, group, out);
        }
    }

    /// Sends a record on: into the response being assembled (a bookkeeping
    /// line's record while one is open), behind held records, or out.
    fn emit(&mut self, out: &mut Out<'_>, record: Record) {
        let Some(record) = self.assistant.trail(record) else { return };
        if self.held.records.is_empty() {
            out.push(record);
        } else {
            self.push_held(out, record);
        }
    }

    /// Holds a record that a later line may complete (see [`Held`]).
    fn hold(&mut self, out: &mut Out<'_>, record: Record, what: Hold) {
        let index = self.held.records.len();
        match what {
            Hold::Result => self.held.result = Some(index),
            Hold::Answer => self.held.answer = Some(index),
        }
        self.push_held(out, record);
    }

    fn push_held(&mut self, out: &mut Out<'_>, record: Record) {
        self.held.bytes += record_bytes(&record);
        self.held.records.push(record);
        if self.held.records.len() >= MAX_HELD_RECORDS || self.held.bytes >= MAX_HELD_BYTES {
            self.release(out);
        }
    }

    /// Sends the held records out.
    fn release(&mut self, out: &mut Out<'_>) {
        for record in self.held.records.drain(..) {
            out.push(record);
        }
        self.held = Held::default();
    }

    /// The held tool result that rendered attachments go into.
    fn held_result(&mut self) -> Option<&mut Record> {
        let index = self.held.result?;
        self.held.records.get_mut(index)
    }

    /// The held response with record id `id`.
    fn held_answer(&mut self, id: &str) -> Option<&mut Record> {
        let index = self.held.answer?;
        self.held.records.get_mut(index).filter(|r| r.id == id)
    }

    fn bad_line(&mut self, line: &Line<'_>, category: &str, out: &mut Out<'_>) {
        let bad = BadLine::of(line);
        let (severity, detail) = match bad {
            BadLine::TornTail => (Severity::Warning, "unterminated last line"),
            BadLine::Corrupt => {
                // Valid JSON of an unexpected shape is not corruption.
                if serde_json::from_slice::<serde::de::IgnoredAny>(line.bytes).is_ok() {
                    out.diags.add("unexpected-shape", Severity::Warning, category, Some(&self.file), Some(line.offset));
                    return;
                }
                (Severity::Error, category)
            }
        };
        out.diags.add(bad.code(), severity, detail, Some(&self.file), Some(line.offset));
    }

    fn note_version(&mut self, entry: &Entry<'_>, span: Span, out: &mut Out<'_>) {
        let Some(version) = entry.version.get() else {
            return;
        };
        match &self.version {
            None => self.version = Some(version.to_string()),
            Some(seen) if seen != version => {
                // One file can hold lines of several CLI versions after an upgrade.
                out.diags.add(
                    "native-version-changed",
                    Severity::Info,
                    &format!("{} -> {}", type_name(Some(seen)), type_name(Some(version))),
                    Some(&self.file),
                    Some(span.offset),
                );
                self.version = Some(version.to_string());
            }
            Some(_) => {}
        }
    }

    /// The record time: the line's own timestamp, else the last one seen
    /// (lines such as `mode` carry none; they were written after it).
    fn ts(&self, entry: &Entry<'_>) -> Option<String> {
        entry.timestamp.owned().or_else(|| self.last_ts.clone())
    }

    /// A record of this transcript.
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

    /// The id of the `index`-th record made from a line: its `uuid`, suffixed
    /// `#index` after the first; the byte location when it has no uuid.
    fn line_id(&self, entry: &Entry<'_>, span: Span, index: usize) -> String {
        match entry.uuid.get().filter(|u| !u.is_empty()) {
            Some(uuid) if index == 0 => uuid.to_string(),
            Some(uuid) => format!("{uuid}#{index}"),
            None => location_id(&self.file, span.offset, index),
        }
    }
}

/// Roughly the memory a record holds.
fn record_bytes(record: &Record) -> usize {
    let text = match &record.body {
        Body::User { text, .. } | Body::System { text } => text.len(),
        Body::Assistant(a) => a.text.len(),
        Body::Reasoning(r) => r.text.as_ref().map_or(0, String::len) + r.opaque.as_ref().map_or(0, String::len),
        Body::ToolCall { arguments, .. } => arguments.to_string().len(),
        Body::ToolResult { content, .. } => content.len(),
        Body::Observation { text, .. } => text.as_ref().map_or(0, String::len),
        Body::Compaction { summary, .. } => summary.len(),
        Body::Meta(_) => 0,
    };
    text + record.id.len() + 128
}

/// A record type name fit for a diagnostic: the native spelling when it is a
/// plain identifier, else a placeholder (a hostile file could put anything
/// in `type`).
pub(crate) fn type_name(kind: Option<&str>) -> String {
    match kind {
        None => "(missing)".to_string(),
        Some(k)
            if !k.is_empty()
                && k.len() <= 64
                && k.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/')) =>
        {
            k.to_string()
        }
        Some(_) => "(not an identifier)".to_string(),
    }
}
