//! The event log both Copilot writers make (the flat `<id>.jsonl` of 0.0.3xx
//! and the session folder's `events.jsonl` of 1.x): one envelope per line,
//! `{type, data, id, timestamp, parentId}`, each event's parent the one
//! before. Copilot's loader refuses an id that is not a UUID, so an event
//! keeps its canonical record's id only when that is a UUID not used yet;
//! every other id is derived from the session seed (the `meta` line).

use std::collections::BTreeSet;

use serde::Serialize;
use trajhost_codec_sdk::Artifact;
use trajhost_codec_sdk::paths::is_uuid;
use trajhost_codec_sdk::writer::{JsonlAssembler, ids};

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
