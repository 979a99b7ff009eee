//! The event log both Copilot writers make (the flat `<id>.jsonl` of 0.0.3xx
//! and the session folder's `events.jsonl` of 1.x): one envelope per line,
//! `{type, data, id, timestamp, parentId}`, each event's parent the one
//! before. Copilot's loader refuses an id that is not a UUID, so an event
//! keeps its canonical record's id only when that is a UUID not used yet;
//! every other id is derived from the session seed (the `meta` line).

use std::collections::BTreeSet;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use trajhost_codec_sdk::canonical::Assistant;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::paths::is_uuid;
use trajhost_codec_sdk::target::TargetChoice;
use trajhost_codec_sdk::writer::{JsonlAssembler, ids};
use trajhost_codec_sdk::{Artifact, CodecError, Severity, WriteOptions};

/// `session.start.data.version`: the events schema.
pub const EVENTS_SCHEMA: u64 = 1;
/// `session.start.data.producer`.
pub const PRODUCER: &str = "copilot-agent";
/// The time of an event when the source has none.
pub const EPOCH: &str = "1970-01-01T00:00:00.000Z";
/// What a synthesized result says.
pub const NO_RESULT: &str = "The tool call was interrupted: no result was recorded.";

/// The session id: `options.native_id` (a UUID), else one derived from the
/// session seed, so the same document always gives the same id.
pub fn session_id(options: &WriteOptions, seed: &[u8; 32]) -> Result<String, CodecError> {
    match options.native_id.as_deref() {
        Some(id) if is_uuid(id) => Ok(id.to_ascii_lowercase()),
        Some(id) => Err(CodecError::Other(format!(
            "write-options.native-id {id:?} is not a UUID (Copilot CLI names sessions by UUID)"
        ))),
        None => Ok(derived_uuid(seed, "session", 0)),
    }
}

/// The assistant message that holds gathered tool calls: the record's, else
/// an empty one (reported as a `placeholder`).
pub fn assistant_or_placeholder(assistant: Option<Assistant>, diags: &mut Diagnostics) -> Assistant {
    assistant.unwrap_or_else(|| {
        diags.add("placeholder", Severity::Info, "assistant.message", None, None);
        Assistant::default()
    })
}

/// `assistant.message.data.messageId`: the record's, else a new UUID
/// (reported as a `placeholder`), since the loader requires one.
pub fn message_id_or_placeholder(assistant: &Assistant, log: &EventLog, diags: &mut Diagnostics) -> String {
    match assistant.message_id.clone().filter(|m| !m.is_empty()) {
        Some(m) => m,
        None => {
            diags.add("placeholder", Severity::Info, "messageId", None, None);
            log.derived("message")
        }
    }
}

/// `tool.execution_start.data`: one per tool request, as Copilot logs it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolStart<'a> {
    pub tool_call_id: &'a str,
    pub tool_name: &'a str,
    pub arguments: &'a Value,
}

/// `prepare`'s checks before it plans anything: the export holds the
/// session asked for, and no provider is asked for (Copilot records none
/// per session; `provider_source` names where the resuming shell takes it).
pub fn check_request(
    id: &str,
    options: &WriteOptions,
    choice: &TargetChoice,
    provider_source: &str,
) -> Result<(), CodecError> {
    if let Some(wanted) = options.native_id.as_deref().filter(|w| !w.eq_ignore_ascii_case(id)) {
        return Err(CodecError::Malformed(format!(
            "the export's session id {id} is not the requested native id {wanted}"
        )));
    }
    if let Some(provider) = &choice.provider {
        return Err(CodecError::Other(format!(
            "provider {provider:?} cannot be set: Copilot CLI records no provider per session (it uses GitHub's, \
             or {provider_source} of the shell that resumes)"
        )));
    }
    Ok(())
}

/// `model` of the first of `files` in the target home that names one
/// (Copilot's settings and config files, which may hold `//` comments).
pub fn configured_model(target: &trajhost_codec_sdk::fs::Dir, files: &[&str]) -> Option<String> {
    files.iter().find_map(|path| {
        let bytes = target.read_to_end(path, MAX_CONFIG_BYTES).ok()?;
        let text = String::from_utf8_lossy(&bytes);
        let json: String = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
        let value: Value = serde_json::from_str(&json).ok()?;
        value.get("model").and_then(Value::as_str).map(str::trim).filter(|m| !m.is_empty()).map(str::to_string)
    })
}

/// Largest settings or config file read.
const MAX_CONFIG_BYTES: u64 = 4 << 20;

/// A UUID (version-4 layout) from `seed`, a label and a counter.
pub fn derived_uuid(seed: &[u8; 32], label: &str, n: u64) -> String {
    ids::uuid_v4_layout(&ids::sha256_of(&[seed, label.as_bytes(), &n.to_be_bytes()]))
}

/// One event line, in Copilot's key order.
#[derive(Serialize)]
struct Envelope<'a, D: Serialize> {
    #[serde(rename = "type")]
    kind: &'a str,
    data: D,
    id: &'a str,
    timestamp: &'a str,
    #[serde(rename = "parentId")]
    parent_id: Option<&'a str>,
}

/// The events of one session, chained by `parentId`.
pub struct EventLog {
    seed: [u8; 32],
    out: JsonlAssembler,
    events: u64,
    last_event: Option<String>,
    used: BTreeSet<String>,
}

impl EventLog {
    /// An empty log at `path`, its derived ids seeded by `seed`.
    pub fn new(seed: [u8; 32], path: String) -> EventLog {
        EventLog { seed, out: JsonlAssembler::new(path), events: 0, last_event: None, used: BTreeSet::new() }
    }

    /// A UUID for `label`, new for every event written.
    pub fn derived(&self, label: &str) -> String {
        derived_uuid(&self.seed, label, self.events)
    }

    /// Appends an event; its id is `record_id` when that is a fresh UUID.
    pub fn append(&mut self, kind: &str, record_id: Option<&str>, timestamp: &str, data: impl Serialize) -> String {
        let id = match record_id {
            Some(id) if is_uuid(id) && !self.used.contains(id) => id.to_string(),
            _ => self.derived("event"),
        };
        self.used.insert(id.clone());
        self.out.push(&Envelope { kind, data, id: &id, timestamp, parent_id: self.last_event.as_deref() });
        self.events += 1;
        self.last_event = Some(id.clone());
        id
    }

    /// The events appended since the last call, as one piece of the file.
    pub fn take_chunks(&mut self) -> Vec<Artifact> {
        self.out.take_chunks()
    }
}

/// The `session.start` line of a written log, its envelope in Copilot's key
/// order; `D` is its `data`, in the key order of the version written for.
#[derive(Deserialize, Serialize)]
pub struct StartLine<D> {
    #[serde(rename = "type")]
    kind: String,
    pub data: D,
    id: Value,
    timestamp: Value,
    #[serde(rename = "parentId")]
    parent_id: Value,
    #[serde(flatten)]
    rest: Map<String, Value>,
}

impl<D: DeserializeOwned + Serialize> StartLine<D> {
    /// The first line of `events`, checked to be the `session.start` of
    /// session `id` (`session_of` reads the id from `data`; `holder` names
    /// what else names the session, for the error), and where it ends.
    pub fn first_of(
        events: &Artifact,
        id: &str,
        holder: &str,
        session_of: impl Fn(&D) -> Option<&str>,
    ) -> Result<(StartLine<D>, usize), CodecError> {
        let bytes = &events.bytes;
        let end = bytes.iter().position(|b| *b == b'\n').unwrap_or(bytes.len());
        let bad = |why: &str| CodecError::Malformed(format!("{}: {why}", events.path));
        let start: StartLine<D> =
            serde_json::from_slice(&bytes[..end]).map_err(|_| bad("the first line is not an event"))?;
        if start.kind != "session.start" {
            return Err(bad("the first event is not session.start"));
        }
        if !session_of(&start.data).is_some_and(|s| s.eq_ignore_ascii_case(id)) {
            return Err(bad(&format!("session.start names another session than its {holder}")));
        }
        Ok((start, end))
    }

    /// `bytes` (the log this line was read from, its first line ending at
    /// `end`) with this line in place of the first; every other line stays
    /// byte for byte.
    pub fn replacing_first(&self, bytes: &[u8], end: usize) -> Result<Vec<u8>, CodecError> {
        let mut out = serde_json::to_vec(self).map_err(|e| CodecError::Other(e.to_string()))?;
        out.extend_from_slice(&bytes[end..]);
        Ok(out)
    }
}
