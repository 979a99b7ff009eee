//! Session events → canonical records.
//!
//! Every event `type` is either mapped (see [`KNOWN_RECORD_TYPES`]) or
//! counted in a diagnostic: `unmapped-record-type` for types the codec
//! knows and leaves out on purpose, `unknown-record-type` for types it has
//! never seen. Nothing is dropped silently.
//!
//! Copilot CLI logs some content twice: a tool call is both a
//! `toolRequests` entry of its `assistant.message` and a
//! `tool.execution_start` event; reasoning may come as `assistant.reasoning`
//! events and again as the message's `reasoningText`. Each is emitted once.
//! A call is matched by its `toolCallId`, whichever of the two comes first
//! (a request repeated in a later message is the same call); an execution
//! makes a call of its own only when no request announced it. A request
//! without a `toolCallId` is claimed by the next execution of that tool,
//! whose results then go to it.
//! The usage of a model call is a `session.usage_record` logged just before
//! the message, joined to it by `apiCallId`.

mod conversation;
mod meta;
mod session;
mod tools;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::{Body, Record, SourceSpan, Usage};
use trajhost_codec_sdk::jsonl::{Line, report_bad_line};
use trajhost_codec_sdk::records::{Lines, ParentLinks, location_id};

use crate::native::{self, Event};

pub use meta::session_meta;

pub use trajhost_codec_sdk::known::Handling;

/// Every event type of the `SessionEvent` union (copilot-sdk
/// `session-events.schema.json`), plus `session.usage_record`, which
/// Copilot CLI 1.0.x writes.
pub const KNOWN_RECORD_TYPES: &[(&str, Handling)] = &[
    ("session.start", Handling::Mapped("meta (first), observation (later ones)")),
    ("session.resume", Handling::Mapped("observation session.resume")),
    ("user.message", Handling::Mapped("user (observation user.message/system when `source` is system)")),
    ("system.message", Handling::Mapped("system")),
    ("assistant.message", Handling::Mapped("assistant, reasoning, tool_call")),
    ("assistant.reasoning", Handling::Mapped("reasoning")),
    ("session.usage_record", Handling::Mapped("usage of the assistant record with its apiCallId")),
    ("assistant.usage", Handling::Mapped("usage of the assistant record with its apiCallId")),
    ("tool.user_requested", Handling::Mapped("tool_call")),
    ("tool.execution_start", Handling::Mapped("tool_call, unless the call is an assistant message's tool request")),
    ("tool.execution_complete", Handling::Mapped("tool_result")),
    ("session.compaction_complete", Handling::Mapped("compaction (observation when it failed)")),
    ("abort", Handling::Mapped("observation abort")),
    ("session.error", Handling::Mapped("observation session.error")),
    ("session.info", Handling::Mapped("observation session.info")),
    ("session.warning", Handling::Mapped("observation session.warning")),
    ("session.model_change", Handling::Mapped("observation session.model_change")),
    ("session.mode_changed", Handling::Mapped("observation session.mode_changed")),
    ("session.title_changed", Handling::Mapped("observation session.title_changed")),
    ("session.truncation", Handling::Mapped("observation session.truncation")),
    ("session.snapshot_rewind", Handling::Mapped("observation session.snapshot_rewind")),
    ("session.context_cleared", Handling::Mapped("observation session.context_cleared")),
    ("session.handoff", Handling::Mapped("observation session.handoff")),
    ("session.task_complete", Handling::Mapped("observation session.task_complete")),
    ("subagent.started", Handling::Mapped("observation subagent.started")),
    ("subagent.completed", Handling::Mapped("observation subagent.completed")),
    ("subagent.failed", Handling::Mapped("observation subagent.failed")),
    ("skill.invoked", Handling::Mapped("observation skill.invoked")),
    ("system.notification", Handling::Mapped("observation system.notification")),
    (
        "hook.start",
        Handling::Mapped("observation hook.start/<hookType> (a userPromptSubmitted hook's text is the prompt)"),
    ),
    // Turn and session lifecycle, accounting totals, streaming deltas, UI
    // state, permissions, MCP, hooks, commands, canvases and the rest of
    // the runtime's bookkeeping.
    ("assistant.turn_start", Handling::Reported),
    ("assistant.turn_end", Handling::Reported),
    ("assistant.intent", Handling::Reported),
    ("assistant.idle", Handling::Reported),
    ("assistant.message_start", Handling::Reported),
    ("assistant.message_delta", Handling::Reported),
    ("assistant.streaming_delta", Handling::Reported),
    ("assistant.reasoning_delta", Handling::Reported),
    ("assistant.tool_call_delta", Handling::Reported),
    ("assistant.server_tool_progress", Handling::Reported),
    ("session.shutdown", Handling::Reported),
    ("session.idle", Handling::Reported),
    ("session.usage_checkpoint", Handling::Reported),
    ("session.usage_info", Handling::Reported),
    ("session.compaction_start", Handling::Reported),
    ("session.context_changed", Handling::Reported),
    ("session.remote_steerable_changed", Handling::Reported),
    ("session.schedule_created", Handling::Reported),
    ("session.schedule_cancelled", Handling::Reported),
    ("session.schedule_rearmed", Handling::Reported),
    ("session.autopilot_objective_changed", Handling::Reported),
    ("session.session_limits_changed", Handling::Reported),
    ("session.permissions_changed", Handling::Reported),
    ("session.plan_changed", Handling::Reported),
    ("session.todos_changed", Handling::Reported),
    ("session.workspace_file_changed", Handling::Reported),
    ("session.background_tasks_changed", Handling::Reported),
    ("session.binary_asset", Handling::Reported),
    ("session.custom_notification", Handling::Reported),
    ("session.custom_agents_updated", Handling::Reported),
    ("session.skills_loaded", Handling::Reported),
    ("session.tools_updated", Handling::Reported),
    ("session.mcp_servers_loaded", Handling::Reported),
    ("session.mcp_server_status_changed", Handling::Reported),
    ("session.extensions_loaded", Handling::Reported),
    ("session.extensions.attachments_pushed", Handling::Reported),
    ("session.managed_settings_resolved", Handling::Reported),
    ("session.managed_settings_enforced", Handling::Reported),
    ("session.auto_mode_resolved", Handling::Reported),
    ("session.canvas.opened", Handling::Reported),
    ("session.canvas.closed", Handling::Reported),
    ("session.canvas.recorded", Handling::Reported),
    ("session.canvas.removed", Handling::Reported),
    ("session.canvas.registry_changed", Handling::Reported),
    ("session.canvas.unavailable", Handling::Reported),
    ("pending_messages.modified", Handling::Reported),
    ("model.call_failure", Handling::Reported),
    ("tool.execution_partial_result", Handling::Reported),
    ("tool.execution_progress", Handling::Reported),
    ("tool_search.activated", Handling::Reported),
    ("subagent.selected", Handling::Reported),
    ("subagent.deselected", Handling::Reported),
    ("hook.end", Handling::Reported),
    ("hook.progress", Handling::Reported),
    ("permission.requested", Handling::Reported),
    ("permission.completed", Handling::Reported),
    ("user_input.requested", Handling::Reported),
    ("user_input.completed", Handling::Reported),
    ("elicitation.requested", Handling::Reported),
    ("elicitation.completed", Handling::Reported),
    ("sampling.requested", Handling::Reported),
    ("sampling.completed", Handling::Reported),
    ("mcp.oauth_required", Handling::Reported),
    ("mcp.oauth_completed", Handling::Reported),
    ("mcp.headers_refresh_required", Handling::Reported),
    ("mcp.headers_refresh_completed", Handling::Reported),
    ("mcp.tools.list_changed", Handling::Reported),
    ("mcp.resources.list_changed", Handling::Reported),
    ("mcp.prompts.list_changed", Handling::Reported),
    ("mcp_app.tool_call_complete", Handling::Reported),
    ("external_tool.requested", Handling::Reported),
    ("external_tool.completed", Handling::Reported),
    ("command.queued", Handling::Reported),
    ("command.execute", Handling::Reported),
    ("command.completed", Handling::Reported),
    ("commands.changed", Handling::Reported),
    ("capabilities.changed", Handling::Reported),
    ("auto_mode_switch.requested", Handling::Reported),
    ("auto_mode_switch.completed", Handling::Reported),
    ("session_limits_exhausted.requested", Handling::Reported),
    ("session_limits_exhausted.completed", Handling::Reported),
    ("exit_plan_mode.requested", Handling::Reported),
    ("exit_plan_mode.completed", Handling::Reported),
    ("factory.run_started", Handling::Reported),
    ("factory.run_updated", Handling::Reported),
    ("factory.run_settled", Handling::Reported),
    ("ui.ephemeral_query", Handling::Reported),
];

/// How `kind` is handled; `None` for a type the codec has never seen.
pub fn handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_RECORD_TYPES, kind)
}

/// Usage records waiting for their message, at most this many.
const PENDING_USAGE_KEPT: usize = 64;
/// Reasoning texts of `assistant.reasoning` events waiting for their
/// message, at most this many.
const PENDING_REASONING_KEPT: usize = 16;
/// Tool requests without a `toolCallId` waiting for their execution, and
/// execution ids given to such requests, at most this many.
const UNSTARTED_KEPT: usize = 256;
/// The reading state of one event log (kept with a resume point).
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Transcript {
    file: String,
    /// The session id: the `meta` record's id.
    native_id: String,
    /// Event ids of events that produced no record → the record id their
    /// children should point at.
    links: ParentLinks,
    /// Tool call ids emitted so far.
    calls: BTreeSet<String>,
    /// Of those, the ones emitted from a `tool.execution_start` that no
    /// assistant message has requested (yet): (call id, tool name), oldest
    /// first.
    started: VecDeque<(String, String)>,
    /// Calls emitted from tool requests that carry no `toolCallId` (named
    /// `<message>#call<n>`) and no `tool.execution_start` has claimed yet:
    /// (that name, tool name), oldest first.
    unstarted: VecDeque<(String, String)>,
    /// The `toolCallId` an execution gave such a call → the call's name.
    aliases: BTreeMap<String, String>,
    /// `apiCallId` → the usage and model of that call.
    usage: VecDeque<(String, Usage, Option<String>)>,
    /// Texts of reasoning events since the last assistant message.
    reasoning: VecDeque<String>,
    /// `session.start` events seen.
    starts: u32,
    last_ts: Option<String>,
}

impl Transcript {
    pub fn new(file: String, native_id: String) -> Transcript {
        Transcript {
            file,
            native_id,
            links: ParentLinks::new(),
            calls: BTreeSet::new(),
            started: VecDeque::new(),
            unstarted: VecDeque::new(),
            aliases: BTreeMap::new(),
            usage: VecDeque::new(),
            reasoning: VecDeque::new(),
            starts: 0,
            last_ts: None,
        }
    }

    /// Maps a mapped event; returns the id of its main record.
    fn map(&mut self, kind: &str, event: &Event<'_>, span: Span, out: &mut Out<'_>) -> Option<String> {
        match kind {
            "session.start" => {
                self.starts += 1;
                // The first one is the session's `meta`.
                if self.starts == 1 {
                    return Some(self.native_id.clone());
                }
                session::observation(self, kind, event, span, out)
            }
            "user.message" => conversation::user(self, event, span, out),
            "system.message" => conversation::system(self, event, span, out),
            "assistant.message" => conversation::assistant(self, event, span, out),
            "assistant.reasoning" => conversation::reasoning(self, event, span, out),
            "session.usage_record" | "assistant.usage" => {
                conversation::usage_record(self, kind, event, span, out);
                None
            }
            "tool.user_requested" | "tool.execution_start" => tools::start(self, event, span, out),
            "tool.execution_complete" => tools::complete(self, event, span, out),
            "session.compaction_complete" => session::compaction(self, event, span, out),
            "hook.start" => session::hook(self, event, span, out),
            _ => session::observation(self, kind, event, span, out),
        }
    }

    /// The id of an event's record: its event id, else its byte location.
    fn event_id(&self, event: &Event<'_>, span: Span) -> String {
        event.id.clone().filter(|i| !i.is_empty()).unwrap_or_else(|| location_id(&self.file, span.offset, 0))
    }

    fn record(&self, event: &Event<'_>, id: String, body: Body, parent: Option<String>, span: Span) -> Record {
        Record {
            id,
            body,
            parent,
            ts: event.timestamp.clone().or_else(|| self.last_ts.clone()),
            agent: event.agent_id.clone().filter(|a| !a.is_empty()),
            src: Some(SourceSpan { file: self.file.clone(), offset: span.offset, len: span.len }),
        }
    }
}

impl Lines for Transcript {
    /// Maps one line.
    fn line(&mut self, line: &Line<'_>, out: &mut Out<'_>) {
        let span = Span { offset: line.offset, len: line.len };
        let event = match native::parse(line.bytes) {
            Ok(event) => event,
            Err(_) => {
                report_bad_line(out.diags, line, "json", &self.file);
                return;
            }
        };
        if let Some(ts) = &event.timestamp {
            self.last_ts = Some(ts.clone());
        }
        let kind = event.kind.clone().unwrap_or_default();
        let emitted = match handling(&kind) {
            Some(Handling::Mapped(_)) => self.map(&kind, &event, span, out),
            Some(Handling::Reported) => {
                out.unmapped(Some(Handling::Reported), &kind, &self.file, span.offset);
                None
            }
            None => {
                out.unmapped(None, &type_name(Some(&kind)), &self.file, span.offset);
                None
            }
        };
        if let Some(id) = event.id.as_deref() {
            // An event that produced no record: its children follow its parent.
            let target = emitted.or_else(|| self.links.resolve(event.parent_id.as_deref()));
            self.links.alias(id, target);
        }
    }
    fn save(&self) -> Option<Vec<u8>> {
        trajhost_codec_sdk::resume::save(self)
    }

    /// End of the log: usage records no message claimed.
    fn finish(&mut self, out: &mut Out<'_>) {
        for _ in self.usage.drain(..) {
            out.diags.add("unmatched-usage-record", Severity::Info, "apiCallId", Some(&self.file), None);
        }
    }
}

pub use trajhost_codec_sdk::records::{Out, Span};
pub use trajhost_codec_sdk::text::type_name;
