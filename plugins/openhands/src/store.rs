//! The conversation folder: its event files in order, `base_state.json`
//! (workspace, per-response token usage) and the facts discovery reports.

use std::collections::BTreeMap;

use serde_json::Value;
use trajhost_codec_sdk::Severity;
use trajhost_codec_sdk::canonical::Usage;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, DirEntry, FsError};

use crate::clock::Clock;
use crate::layout::{self, BASE_STATE, EVENTS, SessionPaths};
use trajhost_codec_sdk::errors::fs_kind;
use trajhost_codec_sdk::json::{count_of, str_of};
use trajhost_codec_sdk::paths::join;
use trajhost_codec_sdk::text::title_of;

/// Largest `base_state.json` read.
pub const MAX_STATE_BYTES: u64 = 64 << 20;
/// Largest event file read.
pub const MAX_EVENT_BYTES: u64 = 64 << 20;
/// Events scanned by discovery for the first prompt.
pub const TITLE_SCAN_EVENTS: usize = 16;
pub const TITLE_CHARS: usize = 80;
/// Per-response usages kept from `base_state.json`.
pub const MAX_USAGES: usize = 200_000;

/// One event file.
#[derive(Debug, Clone)]
pub struct EventFile {
    pub index: u64,
    pub name: String,
    pub size: u64,
    pub modified_ms: Option<i64>,
}

/// The event files of a listing, by index.
pub fn event_files(entries: &[DirEntry]) -> Vec<EventFile> {
    let mut files: Vec<EventFile> = entries
        .iter()
        .filter(|e| e.is_file())
        .filter_map(|e| {
            let (index, _) = layout::event_file(&e.name)?;
            Some(EventFile { index, name: e.name.clone(), size: e.meta.size, modified_ms: e.meta.modified_ms })
        })
        .collect();
    files.sort_by(|a, b| (a.index, &a.name).cmp(&(b.index, &b.name)));
    files
}

/// Reads one event file as JSON.
pub fn read_event(home: &Dir, path: &str, diags: &mut Diagnostics) -> Option<Value> {
    match home.read_to_end(path, MAX_EVENT_BYTES) {
        Ok(bytes) => match serde_json::from_slice(&bytes) {
            Ok(v) => Some(v),
            Err(_) => {
                diags.add("malformed-event", Severity::Error, "json", Some(path), None);
                None
            }
        },
        Err(e) => {
            diags.add("unreadable-file", Severity::Warning, fs_kind(&e), Some(path), None);
            None
        }
    }
}

pub fn read_state(home: &Dir, path: &str, diags: &mut Diagnostics) -> Value {
    match home.read_to_end(path, MAX_STATE_BYTES) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|_| {
            diags.add("malformed-file", Severity::Warning, "base_state.json", Some(path), None);
            Value::Null
        }),
        Err(FsError::NotFound(_)) => Value::Null,
        Err(e) => {
            diags.add("unreadable-file", Severity::Warning, fs_kind(&e), Some(path), None);
            Value::Null
        }
    }
}

/// What one model response cost, from `base_state.json` `stats`.
#[derive(Debug, Clone)]
pub struct ResponseUsage {
    pub model: Option<String>,
    pub usage: Option<Usage>,
}

/// `stats.usage_to_metrics.<usage id>.token_usages[]` (and `costs[]`) by
/// `response_id`.
pub fn response_usages(state: &Value, diags: &mut Diagnostics, path: &str) -> BTreeMap<String, ResponseUsage> {
    let mut out = BTreeMap::new();
    let Some(metrics) = state.get("stats").and_then(|s| s.get("usage_to_metrics")).and_then(Value::as_object) else {
        return out;
    };
    for m in metrics.values() {
        let mut costs: BTreeMap<&str, f64> = BTreeMap::new();
        for c in m.get("costs").and_then(Value::as_array).map_or(&[][..], Vec::as_slice) {
            if let (Some(id), Some(cost)) = (str_of(c, "response_id"), c.get("cost").and_then(Value::as_f64)) {
                *costs.entry(id).or_default() += cost;
            }
        }
        for u in m.get("token_usages").and_then(Value::as_array).map_or(&[][..], Vec::as_slice) {
            let Some(id) = str_of(u, "response_id").filter(|i| !i.is_empty()) else { continue };
            if out.len() >= MAX_USAGES {
                diags.add("usage-index-full", Severity::Warning, "token_usages", Some(path), None);
                return out;
            }
            let prompt = count_of(u, "prompt_tokens");
            let cache_read = count_of(u, "cache_read_tokens");
            let cache_write = count_of(u, "cache_write_tokens");
            // LiteLLM's prompt_tokens counts cache reads and writes too.
            let usage = Usage {
                input: prompt
                    .map(|p| p.saturating_sub(cache_read.unwrap_or(0)).saturating_sub(cache_write.unwrap_or(0))),
                output: count_of(u, "completion_tokens"),
                cache_read,
                cache_write,
                reasoning: count_of(u, "reasoning_tokens"),
                cost_usd: costs.get(id).copied().filter(|c| *c > 0.0),
            };
            let usage = (usage.input.is_some() || usage.output.is_some()).then_some(usage);
            out.insert(id.to_string(), ResponseUsage { model: str_of(u, "model").map(str::to_string), usage });
        }
    }
    out
}

/// What discovery (and `meta`) report about a conversation.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    pub cwd: Option<String>,
    pub started_at: Option<String>,
    pub updated_ms: Option<i64>,
    pub size: u64,
    pub title: Option<String>,
    pub clock: Clock,
    /// The start time had no offset and none could be recovered.
    pub assumed_utc: bool,
    pub events: Vec<EventFile>,
    /// `base_state.json`'s `id`.
    pub state_id: Option<String>,
}

/// Lists the conversation folder and its events, reads `base_state.json`
/// and the first events. `None` when there is no `base_state.json`.
pub fn facts(home: &Dir, paths: &SessionPaths, diags: &mut Diagnostics) -> Option<Facts> {
    let entries = match home.list(&paths.dir) {
        Ok(e) => e,
        Err(e) => {
            diags.add("unreadable-directory", Severity::Warning, fs_kind(&e), Some(&paths.dir), None);
            return None;
        }
    };
    let state_entry = entries.iter().find(|e| e.is_file() && e.name == BASE_STATE)?;
    let event_entries = if entries.iter().any(|e| e.is_dir() && e.name == EVENTS) {
        match home.list(&paths.events_dir()) {
            Ok(e) => e,
            Err(e) => {
                diags.add("unreadable-directory", Severity::Warning, fs_kind(&e), Some(&paths.events_dir()), None);
                Vec::new()
            }
        }
    } else {
        Vec::new()
    };
    let events = event_files(&event_entries);
    let state = read_state(home, &paths.locator, diags);
    let mut facts = Facts {
        state_id: str_of(&state, "id").filter(|id| !id.is_empty()).map(str::to_string),
        cwd: state.get("workspace").and_then(|w| str_of(w, "working_dir")).map(str::to_string),
        size: entries.iter().filter(|e| e.is_file()).map(|e| e.meta.size).sum::<u64>()
            + event_entries.iter().filter(|e| e.is_file()).map(|e| e.meta.size).sum::<u64>(),
        updated_ms: events.iter().filter_map(|e| e.modified_ms).chain(state_entry.meta.modified_ms).max(),
        ..Facts::default()
    };
    for (i, file) in events.iter().take(TITLE_SCAN_EVENTS).enumerate() {
        let path = join(&paths.events_dir(), &file.name);
        let Some(event) = read_event(home, &path, diags) else { continue };
        if i == 0 {
            let stamp = str_of(&event, "timestamp").unwrap_or("");
            facts.clock = Clock::from_sample(stamp, file.modified_ms);
            if let Some((ts, assumed)) = facts.clock.rfc3339(stamp) {
                facts.started_at = Some(ts);
                facts.assumed_utc = assumed;
            }
        }
        if str_of(&event, "kind") == Some("MessageEvent") && str_of(&event, "source") == Some("user") {
            let text = event
                .get("llm_message")
                .and_then(|m| m.get("content"))
                .map(crate::records::text_of)
                .unwrap_or_default();
            facts.title = title_of(&text, TITLE_CHARS);
            break;
        }
    }
    facts.events = events;
    Some(facts)
}
